//! Sampling: when channels are written. Clip times to seconds, key times and grids, the
//! document's [`SampleBudget`] and the refinement that adds samples until linear keys follow
//! the viewer's curves.

use super::blend;
use super::decompose::Trs;
use crate::scene::{Channel, Clip, Scene, TrackTime};

/// Samples per second for curves that are not piecewise linear in the written form.
const GRID_PER_SECOND: f32 = 30.0;

/// Animation samples one document may write: this many, plus [`SAMPLES_PER_KEY`] for every key
/// the scene's clips hold. Key times, grids, loop repeats and refinement all draw on it. The
/// corpus's Rabbit (7 sequences) writes 72,902 samples (69,639 of them from refinement); the
/// bound keeps a damaged file's curves (a key repeated on a short global loop for every joint)
/// from costing minutes and gigabytes. Past it, curves are thinned and refined no further.
const SAMPLES_START: usize = 1 << 16;

const SAMPLES_PER_KEY: usize = 16;

/// What one written channel costs in samples' worth: its accessors, views and JSON objects.
const CHANNEL_COST: usize = 32;

/// What sampling may still write, and whether it ever ran out.
pub(super) struct SampleBudget {
    pub(super) left: usize,
    pub(super) exhausted: bool,
}

/// The most grid samples one node's channels get (a 136-second span at 30 per second).
pub(super) const MAX_GRID: usize = 4096;

/// Clip units between a jump in a node's motion and the sample written just beside it.
pub(super) const JUMP_GAP: f32 = 1e-3;

/// How one document samples its curves: the [`SampleBudget`] every channel draws on, and the
/// tolerance that refinement holds the written keys to.
pub(super) struct Sampling {
    budget: SampleBudget,
    /// How far a sampled joint may stray from the viewer's curve: 1e-5 of the model's size.
    tolerance: f32,
    /// The model's size, the distance at which rotation and scale errors are weighed.
    reach: f32,
    /// The farthest a point can be from the pivot it turns about (the rest box's diagonal):
    /// the lever at which a rotation's blend error is weighed ([`blend`]).
    lever: f32,
}

impl Sampling {
    /// Sampling for `scene`: its size sets the tolerance, its keys the budget.
    pub(super) fn for_scene(scene: &Scene) -> Self {
        let size = scene.bounds().size();
        let reach = size.max_element().max(1e-3);
        Self {
            budget: SampleBudget {
                left: SAMPLES_START.saturating_add(key_count(scene).saturating_mul(SAMPLES_PER_KEY)),
                exhausted: false,
            },
            tolerance: 1e-5 * reach,
            reach,
            lever: if size.is_finite() { size.length().max(reach) } else { reach },
        }
    }

    /// Charges `times` to the document's [`SampleBudget`]; past it, keeps an even spread of what
    /// is left (at least both ends), so the curve is thinned rather than dropped.
    /// Each channel also costs [`CHANNEL_COST`] (its accessors and JSON); with not even that
    /// left, the channel is left out (an empty list).
    pub(super) fn take(&mut self, times: Vec<f32>) -> Vec<f32> {
        let cost = times.len().saturating_add(CHANNEL_COST);
        if cost <= self.budget.left {
            self.budget.left -= cost;
            return times;
        }
        self.budget.exhausted = true;
        if self.budget.left < CHANNEL_COST + 2 || times.is_empty() {
            self.budget.left = 0;
            return Vec::new();
        }
        let keep = (self.budget.left - CHANNEL_COST).min(times.len());
        self.budget.left = 0;
        let last = times.len() - 1;
        let mut thinned: Vec<f32> =
            (0..keep).filter_map(|k| times.get(k * last / (keep - 1).max(1)).copied()).collect();
        thinned.dedup();
        thinned
    }

    /// The sample times `times` (already taken) refined against `local_at` ([`refine`]).
    pub(super) fn refine(&mut self, times: Vec<f32>, local_at: &dyn Fn(f32) -> Trs) -> Vec<f32> {
        refine(times, local_at, [self.tolerance, self.reach, self.lever], &mut self.budget)
    }

    /// Whether the budget ever ran out (some curves were thinned or left unrefined).
    pub(super) fn exhausted(&self) -> bool {
        self.budget.exhausted
    }
}

/// Adds sample times between `times` until linear keys (slerp for the rotation) follow
/// `local_at` within `tolerance` (scene units; rotation and scale errors count at `reach`, the
/// model's size), halving an interval at most 8 times. Needed where a written value is not linear
/// between keys: folded pivots, cubic curves, loops that wrap mid-interval. Then rotation
/// intervals wide enough for a component-wise blend to stray from the slerp by more than
/// `tolerance` at `lever` get equal steps ([`blend::nlerp_safe_times`]).
fn refine(
    times: Vec<f32>,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, reach, lever]: [f32; 3],
    budget: &mut SampleBudget,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(times.len());
    for pair in times.windows(2) {
        if let [t0, t1] = *pair {
            out.push(t0);
            split_interval(t0, t1, 0, local_at, [tolerance, reach], budget, &mut out);
        }
    }
    out.extend(times.last().copied());
    blend::nlerp_safe_times(out, local_at, [tolerance, lever], budget)
}

fn split_interval(
    t0: f32,
    t1: f32,
    depth: u32,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, reach]: [f32; 2],
    budget: &mut SampleBudget,
    out: &mut Vec<f32>,
) {
    if budget.left == 0 {
        return;
    }
    let (a, b) = (local_at(t0), local_at(t1));
    let rb = if a.rotation.dot(b.rotation) < 0.0 { -b.rotation } else { b.rotation };
    let worst = [0.25f32, 0.5, 0.75]
        .iter()
        .map(|&f| {
            let truth = local_at(t0 + (t1 - t0) * f);
            let t = (a.translation.lerp(b.translation, f) - truth.translation).length();
            let s = (a.scale.lerp(b.scale, f) - truth.scale).length();
            let r = a.rotation.slerp(rb, f).angle_between(truth.rotation);
            t + (s + r) * reach
        })
        .fold(0f32, f32::max);
    if depth < 8 && worst > tolerance {
        if budget.left == 0 {
            budget.exhausted = true;
            return;
        }
        budget.left -= 1;
        let mid = 0.5 * (t0 + t1);
        split_interval(t0, mid, depth + 1, local_at, [tolerance, reach], budget, out);
        out.push(mid);
        split_interval(mid, t1, depth + 1, local_at, [tolerance, reach], budget, out);
    }
}

/// Sample times (clip units) for a channel: its key times inside the clip, the clip's bounds,
/// and a grid when `grid`; strictly increasing once turned into seconds.
pub(super) fn clip_times(clip: &Clip, key_times: impl IntoIterator<Item = f32>, grid: bool) -> Vec<f32> {
    let (start, end) = (clip.start, clip.end.max(clip.start));
    let mut times: Vec<f32> = key_times.into_iter().filter(|t| t.is_finite() && *t >= start && *t <= end).collect();
    times.push(start);
    times.push(end);
    if grid {
        times.extend(grid_between(clip, start, end));
    }
    times.sort_by(f32::total_cmp);
    let mut out: Vec<f32> = Vec::with_capacity(times.len());
    for t in times {
        if out.last().is_none_or(|&last| clip_seconds(clip, t) > clip_seconds(clip, last) + 1e-6) {
            out.push(t);
        }
    }
    out
}

/// Keys in the scene's clips and global channels: what the sample budget scales with, since
/// each key took bytes of the file.
fn key_count(scene: &Scene) -> usize {
    let channel_keys = |channel: &Channel| -> usize {
        match channel {
            Channel::NodeRotation { keys, .. } | Channel::NodeRotationEased { keys, .. } => keys.len(),
            Channel::NodePosition { curve, .. } => curve.keys.len(),
            Channel::NodeAxisScale { keys, .. } => keys.len(),
            Channel::NodeFrames { keys, .. } => keys.len(),
            Channel::NodePathProgress { values, .. } => values.len(),
            Channel::NodeVisibility { keys, .. } => keys.len(),
            Channel::VertexMorph { blocks, .. } => blocks.iter().map(|b| b.times.len()).sum(),
            Channel::VertexFrames { times, .. } => times.len(),
            Channel::PackedFrames(packed) => packed.frames.len(),
            Channel::UvKeys { slots, .. } => slots.iter().map(|s| s.keys.len()).sum(),
            Channel::BoneFrames { times, frames, .. } => {
                times.len().saturating_mul(frames.first().map_or(1, Vec::len).max(1))
            }
            Channel::BoneTracks { joints, .. } => {
                joints.iter().map(|j| j.translation.keys.len() + j.rotation.keys.len() + j.scale.keys.len()).sum()
            }
            Channel::MaterialColor { keys, .. } => keys.keys.len(),
            Channel::MaterialAlpha { keys, .. } => keys.keys.len(),
            Channel::UvTransform { translation, rotation, scale, .. } => {
                translation.keys.len() + rotation.keys.len() + scale.keys.len()
            }
        }
    };
    scene
        .clips
        .iter()
        .flat_map(|c| &c.channels)
        .chain(&scene.global_channels)
        .map(channel_keys)
        .fold(0, usize::saturating_add)
}

/// Grid times between `low` and `high` (clip units) at [`GRID_PER_SECOND`], clamped to the clip;
/// at most [`MAX_GRID`] of them (a longer span gets a coarser grid).
pub(super) fn grid_between(clip: &Clip, low: f32, high: f32) -> Vec<f32> {
    let (low, high) = (low.max(clip.start), high.min(clip.end));
    if !(low.is_finite() && high.is_finite() && high > low) {
        return Vec::new();
    }
    let step = (clip_rate(clip) / GRID_PER_SECOND).max((high - low) / MAX_GRID as f32);
    let steps = ((high - low) / step).floor() as usize;
    (1..steps.min(MAX_GRID)).map(|k| low + k as f32 * step).collect()
}

/// Key times of a track as they fall in the clip: as they are, or repeated every period for
/// tracks on their own loop (M2 global sequences).
pub(super) fn track_times(clip: &Clip, keys: impl Iterator<Item = f32>, timing: TrackTime) -> Vec<f32> {
    match timing {
        TrackTime::Clip => keys.collect(),
        TrackTime::Loop { period } if period > 0.0 && period.is_finite() => {
            let mut out = Vec::new();
            let first_loop = (clip.start / period).floor();
            for key in keys {
                let mut n = first_loop;
                while out.len() < MAX_GRID {
                    let t = key + n * period;
                    if t > clip.end {
                        break;
                    }
                    out.push(t);
                    n += 1.0;
                }
            }
            // Each loop's wrap is a jump; the grid bounds the blur of it.
            let mut n = first_loop + 1.0;
            while n * period <= clip.end && out.len() < MAX_GRID {
                out.push(n * period);
                n += 1.0;
            }
            out
        }
        TrackTime::Loop { .. } => Vec::new(),
    }
}

pub(super) fn clip_rate(clip: &Clip) -> f32 {
    if clip.rate.is_finite() && clip.rate > 0.0 { clip.rate } else { 1.0 }
}

/// Seconds from the clip's start of clip time `t`.
pub fn clip_seconds(clip: &Clip, t: f32) -> f32 {
    (t - clip.start) / clip_rate(clip)
}
