//! Assembled scenes: several models in one [`Scene`], each a [`Part`] (a park's placed items
//! and its ground, a Quake 3 player's legs, torso and head), and clips that play at once, each
//! on its own clock, as [`Layer`]s (every park item plays its own clip at its own time; a
//! player's torso and legs play two clips together).
//!
//! A scene with layers has one clock, in seconds: [`Layer::time_at`] turns it into each
//! layer's clip time, and [`Pose::evaluate_layers`](super::anim::Pose::evaluate_layers)
//! applies every layer's clip. At clock 0 each layer stands where the file put it (a park
//! item at the time its save recorded).

use std::ops::Range;

use serde::Serialize;

use super::Scene;

/// The [`Part::group`] of a park's terrain, which cameras leave out of their framing.
pub const GROUND: &str = "ground";

/// How a layer's clip runs on the scene clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Playback {
    /// Wraps from its end back to its start.
    Loop,
    /// Runs to its end and holds there.
    Once,
    /// Stands on the clip's first frame.
    HoldFirst,
    /// Stands on the clip's last frame.
    HoldLast,
}

/// One clip playing on its own clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    /// What the UI calls it (`thing 12 monkey: M1`, `torso`).
    pub name: String,
    /// The clip playing now, an index into [`Scene::clips`]; `None` plays nothing.
    pub clip: Option<usize>,
    /// The clips the user may switch this layer to (a player's torso clips); empty when the
    /// layer's clip is fixed.
    pub choices: Vec<usize>,
    /// Clip time at scene clock 0, in the clip's units.
    pub start: f32,
    /// A multiplier on the clip's own rate.
    pub speed: f32,
    pub playback: Playback,
    /// The part the layer animates, an index into [`Scene::parts`].
    pub part: Option<usize>,
    /// Where a looping clip returns to after its first pass, in clip units (a Quake 3
    /// animation whose `loopFrames` is less than its frame count replays only its tail);
    /// `None` returns to the clip's start.
    pub loop_start: Option<f32>,
    /// Per entry of [`Layer::choices`], how that clip plays when chosen: `Some(loop_start)`
    /// loops it (returning there, as [`Layer::loop_start`]), `None` plays it once. Empty (or
    /// short) leaves the playback as it is ([`Layer::choose`]).
    pub choice_loops: Vec<Option<f32>>,
}

impl Layer {
    /// A layer playing `clip` from its start, looping at its own rate.
    pub fn looping(name: impl Into<String>, clip: usize, start: f32) -> Layer {
        Layer {
            name: name.into(),
            clip: Some(clip),
            choices: Vec::new(),
            start,
            speed: 1.0,
            playback: Playback::Loop,
            part: None,
            loop_start: None,
            choice_loops: Vec::new(),
        }
    }

    /// Switches to `clip` (one of [`Layer::choices`]), playing from its start at `seconds` on
    /// the scene clock, looped or once as [`Layer::choice_loops`] says; `false` (and nothing
    /// changed) when `clip` is not a choice.
    pub fn choose(&mut self, scene: &Scene, clip: usize, seconds: f32) -> bool {
        let Some(index) = self.choices.iter().position(|&c| c == clip) else { return false };
        let Some(found) = scene.clips.get(clip) else { return false };
        if let Some(looping) = self.choice_loops.get(index) {
            self.playback = if looping.is_some() { Playback::Loop } else { Playback::Once };
            self.loop_start = *looping;
        }
        self.clip = Some(clip);
        let speed = if self.speed.is_finite() { self.speed } else { 1.0 };
        let seconds = if seconds.is_finite() { seconds } else { 0.0 };
        self.start = found.start - seconds * found.rate * speed;
        true
    }

    /// The layer's clip time at `seconds` on the scene clock (clip units), `None` when it
    /// plays no clip. Looping clips wrap into their period (length plus their loop blend).
    pub fn time_at(&self, scene: &Scene, seconds: f32) -> Option<f32> {
        let clip = scene.clips.get(self.clip?)?;
        let speed = if self.speed.is_finite() { self.speed } else { 1.0 };
        let seconds = if seconds.is_finite() { seconds } else { 0.0 };
        let run = self.start + seconds * clip.rate * speed;
        Some(match self.playback {
            Playback::HoldFirst => clip.start,
            Playback::HoldLast => clip.end,
            Playback::Once => run.clamp(clip.start, clip.end),
            Playback::Loop => self.wrap(clip, run),
        })
    }

    /// Clip time `run` of a looping layer inside its clip: the first pass runs from the
    /// clip's start to its end plus its loop blend, and every later pass from
    /// [`Layer::loop_start`] (the clip's start when unset or outside the clip) to there.
    pub fn wrap(&self, clip: &super::Clip, run: f32) -> f32 {
        let end = clip.start + clip.length() + clip.loop_blend();
        let period = end - clip.start;
        if period <= 0.0 {
            return clip.start;
        }
        let from = self.loop_start.filter(|&s| s > clip.start && s < end);
        match from {
            Some(from) if run >= end => from + (run - end).rem_euclid(end - from),
            _ => clip.start + (run - clip.start).rem_euclid(period),
        }
    }

    /// Whether the clip blends its end back into its start (see [`super::anim::Pose::looping`]).
    pub fn is_looping(&self) -> bool {
        self.playback == Playback::Loop
    }
}

/// One model inside an assembled scene: its nodes, meshes and materials are contiguous ranges
/// of the scene's lists, and `root` places it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    /// The name the UI lists (`monkey #12`).
    pub name: String,
    /// The group the UI lists it under (`rides`, `shops`, `ground`, `player`).
    pub group: String,
    /// The node that places the part (the park's placement of an item).
    pub root: usize,
    pub nodes: Range<usize>,
    pub meshes: Range<usize>,
    pub materials: Range<usize>,
    /// Facts the UI and `info` show beside the name, as (label, value): id, cell, clip.
    pub facts: Vec<(String, String)>,
    /// Why the part is a stand-in (a labelled box for an item that cannot be shown).
    pub stand_in: Option<String>,
}

impl Scene {
    /// The part that holds `node`, if the scene is assembled.
    pub fn part_of_node(&self, node: usize) -> Option<usize> {
        self.parts.iter().position(|p| p.nodes.contains(&node) || p.root == node)
    }

    /// The clip time of every layer at `seconds` on the scene clock, with its looping flag,
    /// ready for [`Pose::evaluate_layers`](super::anim::Pose::evaluate_layers).
    pub fn layer_times(&self, seconds: f32) -> Vec<LayerTime> {
        self.layers
            .iter()
            .filter_map(|l| Some(LayerTime { clip: l.clip?, time: l.time_at(self, seconds)?, looping: l.is_looping() }))
            .collect()
    }

    /// Per mesh, whether a camera framing the scene takes it in: in an assembled scene with a
    /// part of group [`GROUND`] and others, every mesh but the ground's (a park's camera takes
    /// in its used cells, not the theme's whole terrain); `None` when every mesh counts.
    pub fn framing_meshes(&self) -> Option<Vec<bool>> {
        let ground: Vec<&Part> = self.parts.iter().filter(|p| p.group == GROUND).collect();
        if ground.is_empty() || ground.len() == self.parts.len() {
            return None;
        }
        let mut framed = vec![true; self.meshes.len()];
        for part in ground {
            for m in part.meshes.clone() {
                if let Some(f) = framed.get_mut(m) {
                    *f = false;
                }
            }
        }
        Some(framed)
    }

    /// The mesh whose geometry `mesh` repeats (itself when it is no copy): meshes that share a
    /// source may share one GPU buffer and one glTF mesh while their vertices do not move.
    pub fn geometry_source(&self, mesh: usize) -> usize {
        self.mesh_copies.get(mesh).copied().flatten().unwrap_or(mesh)
    }
}

/// One layer's clip and time for one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerTime {
    pub clip: usize,
    pub time: f32,
    pub looping: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, FormatKind, SceneKind};

    fn scene_with_clip(start: f32, end: f32, rate: f32) -> Scene {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.clips.push(Clip {
            name: "M1".into(),
            source: None,
            start,
            end,
            rate,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        scene
    }

    #[test]
    fn layer_clocks_loop_hold_and_run_once() {
        let scene = scene_with_clip(0.0, 30.0, 30.0);
        let mut layer = Layer::looping("a", 0, 20.0);
        // 20 frames in, half a second at 30 frames a second more: 35 wraps to 5.
        assert_eq!(layer.time_at(&scene, 0.5), Some(5.0));
        layer.speed = 2.0;
        assert_eq!(layer.time_at(&scene, 0.25), Some(5.0));
        layer.playback = Playback::Once;
        assert_eq!(layer.time_at(&scene, 10.0), Some(30.0));
        layer.playback = Playback::HoldFirst;
        assert_eq!(layer.time_at(&scene, 3.0), Some(0.0));
        layer.playback = Playback::HoldLast;
        assert_eq!(layer.time_at(&scene, 0.0), Some(30.0));
        layer.clip = Some(7);
        assert_eq!(layer.time_at(&scene, 0.0), None);
    }

    #[test]
    fn a_clip_starting_late_wraps_within_its_own_span() {
        let mut scene = scene_with_clip(10.0, 20.0, 10.0);
        let layer = Layer::looping("a", 0, 18.0);
        assert_eq!(layer.time_at(&scene, 0.5), Some(13.0));
        scene.layers.push(layer);
        assert_eq!(scene.layer_times(0.5), vec![LayerTime { clip: 0, time: 13.0, looping: true }]);
    }

    /// A partial loop (Quake 3's `loopFrames` < `numFrames`, `CG_RunLerpFrame`): keys 0..=4
    /// of `first, +1, +2, +3, +2`, returning to key 2; after the first pass it replays 2..4.
    #[test]
    fn a_partial_loop_replays_only_its_tail_after_the_first_pass() {
        let scene = scene_with_clip(0.0, 4.0, 1.0);
        let mut layer = Layer::looping("legs", 0, 0.0);
        layer.loop_start = Some(2.0);
        let times: Vec<f32> =
            [0.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.5, 10.0].iter().map(|&s| layer.time_at(&scene, s).unwrap()).collect();
        // The game's frame sequence 0 1 2 3 | 2 3 | 2 3 | ... (key 4 is frame 2 again).
        assert_eq!(times, [0.0, 3.5, 2.0, 2.5, 3.0, 2.0, 3.5, 2.0]);
        // A loop start at the clip's start, or outside it, is a whole loop.
        layer.loop_start = Some(9.0);
        assert_eq!(layer.time_at(&scene, 5.0), Some(1.0));
    }

    /// Choosing a clip starts it now, looped or once as the choice says.
    #[test]
    fn choosing_a_clip_starts_it_now_as_it_plays() {
        let mut scene = scene_with_clip(0.0, 4.0, 10.0);
        let mut death = scene.clips[0].clone();
        death.name = "death".into();
        scene.clips.push(death);
        let mut layer = Layer::looping("legs", 0, 0.0);
        layer.choices = vec![0, 1];
        layer.choice_loops = vec![Some(2.0), None];
        assert!(!layer.choose(&scene, 5, 1.0), "not a choice");
        assert!(layer.choose(&scene, 1, 3.0));
        assert_eq!((layer.clip, layer.playback, layer.loop_start), (Some(1), Playback::Once, None));
        assert_eq!(layer.time_at(&scene, 3.0), Some(0.0), "from its start at the moment chosen");
        assert_eq!(layer.time_at(&scene, 3.2), Some(2.0));
        assert_eq!(layer.time_at(&scene, 9.0), Some(4.0), "held at its end");
        assert!(layer.choose(&scene, 0, 9.0));
        assert_eq!((layer.playback, layer.loop_start), (Playback::Loop, Some(2.0)));
        assert_eq!(layer.time_at(&scene, 9.5), Some(3.0), "4 + 1 wraps into 2..4");
        // Without per-choice facts the playback stays as it was.
        layer.choice_loops.clear();
        layer.playback = Playback::HoldFirst;
        assert!(layer.choose(&scene, 1, 0.0));
        assert_eq!(layer.playback, Playback::HoldFirst);
    }
}
