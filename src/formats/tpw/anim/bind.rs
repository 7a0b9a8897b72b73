//! Binding decoded tracks against a base model: resolving each track's target, naming its
//! channels and key counts for the report, and turning rotation, position, scale, path,
//! visibility, morph, raw-frame and UV data into scene channels of one [`Clip`].

use glam::{Quat, Vec3};

use super::{AnimFile, MorphTrack, PathProgress, PositionTrack, RawFrames, RawTrack, RotationTrack};
use crate::formats::tpw::layout::*;
use crate::formats::tpw::{TpwModel, mesh};
use crate::scene::{Channel, Clip, Curve, EaseRamp, Interpolation, Key, MorphBlock, TrackReport, UvSlotKeys, math};

use super::channels::morph_position;
/// The channel names a track's flag word lists: decoded kinds by name, others by flag bit.
pub fn channel_names(flags: u32, slot_34: u32) -> Vec<String> {
    let mut names = Vec::new();
    let has = |bits: u32| flags & bits == bits;
    for bit in (0..32).map(|b| 1u32 << b).filter(|b| flags & b != 0) {
        match bit {
            CH_ROTATION => names.push("rotation".to_string()),
            CH_POSITION => names.push("position".to_string()),
            0x80 | 0x100 if has(CH_SCALE) => {
                if bit == 0x80 {
                    names.push("scale".to_string());
                }
            }
            CH_PATH => names.push("path progress".to_string()),
            CH_PATH_FACING if has(CH_PATH) => names.push("facing".to_string()),
            CH_MORPH if has(CH_RAW_FRAMES) => names.push("raw frames".to_string()),
            CH_MORPH => names.push("morph".to_string()),
            CH_RAW_FRAMES if has(CH_MORPH) => {} // the modifier named with 0x1000 above
            CH_UV => names.push("uv".to_string()),
            CH_VISIBILITY => names.push("visibility".to_string()),
            other => names.push(format!("{other:#x}")),
        }
    }
    if slot_34 != 0 {
        names.push(if has(CH_ROTATION) { "easing".to_string() } else { "+0x34".to_string() });
    }
    names
}

/// Resolves each track's target against `model` (if any) and turns decoded channels into
/// scene channels; everything that cannot play is reported on its track with the reason.
/// The clip runs over the block's declared span at 30 frames per second, and starts by
/// hiding the nodes of its hide list (notes §18: visibility tracks may show them again).
/// The viewer evaluates every clip from the loaded state, which is what the engine's clip
/// start restores of the outgoing clip (transforms, vertices, UVs, and the hidden flag of the
/// nodes it named), so nothing carries over from one clip to the next.
pub fn bind(file: &AnimFile, model: Option<&TpwModel>, name: &str, source: Option<&std::path::Path>) -> Clip {
    let mut clip = Clip {
        name: name.to_string(),
        source: source.map(|p| p.to_path_buf()),
        start: file.first_frame as f32,
        end: file.first_frame as f32 + file.length() as f32,
        rate: FRAMES_PER_SECOND,
        channels: Vec::new(),
        tracks: Vec::new(),
        warnings: file.warnings.clone(),
    };
    if let Some(model) = model {
        let nodes = model.scene.nodes.len();
        for &node in &file.hide_list {
            if usize::from(node) < nodes {
                clip.channels.push(Channel::NodeVisibility {
                    node: usize::from(node),
                    keys: vec![Key { time: clip.start, value: false }],
                });
            } else {
                clip.warnings.push(format!("hide list names node {node}, but the model has {nodes}; ignored"));
            }
        }
    }
    for track in &file.tracks {
        let slot_34 = track.slots.iter().find(|(n, _)| n == "+0x34").map(|(_, v)| *v).unwrap_or(0);
        let mut report = TrackReport {
            index: track.position,
            target: u32::from(track.target),
            target_name: None,
            channels: channel_names(track.flags, slot_34).into_iter().map(Into::into).collect(),
            flags: track.flags,
            slots: track.slots.clone(),
            key_counts: key_counts(track).into_iter().map(|(kind, n)| (kind.into(), n)).collect(),
            reasons: Vec::new(),
            skipped: None,
        };
        let mut reasons = Vec::new();
        let mut played = 0;
        match model {
            None => reasons.push("no base model to pose".to_string()),
            Some(model) => {
                let target = usize::from(track.target);
                report.target_name = model.scene.nodes.get(target).map(|n| n.name.as_str().into());
                let mut bound = Bound { channels: &mut clip.channels, reasons: &mut reasons, played: &mut played };
                bind_track(track, model, &mut bound);
            }
        }
        if played == 0 && reasons.is_empty() {
            let listed =
                if report.channels.is_empty() { "no channel flags".to_string() } else { report.channels.join(", ") };
            reasons.push(format!("no decoded channel to play (carries {listed})"));
        }
        if !reasons.is_empty() {
            report.skipped = Some(reasons.join("; "));
        }
        report.reasons = reasons;
        clip.tracks.push(report);
    }
    clip
}

fn key_counts(track: &RawTrack) -> Vec<(String, u32)> {
    let mut counts = Vec::new();
    if let Some(Ok(rotation)) = &track.rotation {
        counts.push(("rotation keys".into(), rotation.keys.len() as u32));
        let eased = rotation.curves.iter().filter(|c| c.is_some()).count() as u32;
        if eased > 0 {
            counts.push(("eased keys".into(), eased));
        }
    }
    if let Some(Ok(morph)) = &track.morph {
        counts.push(("morph records".into(), morph.records.len() as u32));
        counts.push(("morph channels".into(), morph.records.iter().map(|r| r.channels.len() as u32).sum()));
        counts.push(("morph keys".into(), morph.records.iter().map(|r| r.frames.len() as u32).sum()));
    }
    if let Some(Ok(frames)) = &track.raw_frames {
        counts.push(("raw frames".into(), frames.frame_count() as u32));
    }
    if let Some(Ok(entries)) = &track.uv {
        counts.push(("uv entries".into(), entries.len() as u32));
        counts.push(("uv keys".into(), entries.iter().map(|e| e.keys.len() as u32).sum()));
    }
    if let Some(Ok(position)) = &track.position_curve {
        counts.push(("position keys".into(), position.frames.len() as u32));
    }
    if let Some(Ok(keys)) = &track.scale {
        counts.push(("scale keys".into(), keys.len() as u32));
    }
    if let Some(Ok(progress)) = &track.path_progress {
        counts.push(("path values".into(), progress.values.len() as u32));
    }
    if let Some(Ok(entries)) = &track.visibility {
        counts.push(("visibility entries".into(), entries.len() as u32));
    }
    counts
}

/// Where one track's bound channels, reasons and played count go.
struct Bound<'a> {
    channels: &'a mut Vec<Channel>,
    reasons: &'a mut Vec<String>,
    played: &'a mut u32,
}

impl Bound<'_> {
    /// Records a channel's outcome: its scene channel, or why it cannot play.
    fn push(&mut self, kind: &str, outcome: Result<Channel, String>) {
        match outcome {
            Ok(channel) => {
                self.channels.push(channel);
                *self.played += 1;
            }
            Err(reason) => self.reasons.push(format!("{kind}: {reason}")),
        }
    }
}

/// Binds a track's channels in the engine's order within a track (notes: rotation at
/// `0x00471d53`, scale `0x00471d8d`, path `0x00471f77`, position `0x0047205d`), then
/// visibility, vertices and UVs.
fn bind_track(track: &RawTrack, model: &TpwModel, out: &mut Bound) {
    let scene = &model.scene;
    let target = usize::from(track.target);
    let node_count = scene.nodes.len();
    let node_target = || {
        if target < node_count {
            Ok(target)
        } else {
            Err(format!("target {target} is outside the model's {node_count} nodes"))
        }
    };
    if let Some(rotation) = &track.rotation {
        let outcome = rotation.clone().and_then(|rotation| Ok(rotation_channel(&rotation, node_target()?, model)));
        out.push("rotation", outcome);
    }
    if let Some(scale) = &track.scale {
        let outcome = scale.clone().and_then(|keys| {
            Ok(Channel::NodeAxisScale {
                node: node_target()?,
                keys: keys.iter().map(|&(frame, value)| Key { time: f32::from(frame), value }).collect(),
            })
        });
        out.push("scale", outcome);
    }
    if let Some(progress) = &track.path_progress {
        let outcome = progress.clone().and_then(|p| path_channel(&p, node_target()?, track.flags, model));
        out.push("path progress", outcome);
    }
    if let Some(position) = &track.position_curve {
        let outcome = position.clone().and_then(|p| {
            Ok(Channel::NodePosition { node: node_target()?, curve: position_curve(&p), additive: model.additive })
        });
        out.push("position", outcome);
    }
    if let Some(visibility) = &track.visibility {
        let outcome = visibility
            .clone()
            .and_then(|entries| Ok(Channel::NodeVisibility { node: node_target()?, keys: visibility_keys(&entries) }));
        out.push("visibility", outcome);
    }
    // Morph, raw frames and UV need a mesh: a target at or past the mesh count is a
    // transform-only node.
    let mesh_count = model.meshes.len();
    let mesh_target = || {
        (target < mesh_count)
            .then(|| scene.nodes.get(target).and_then(|n| n.mesh))
            .flatten()
            .ok_or_else(|| format!("target {target} is not one of the model's {mesh_count} meshes"))
    };
    if let Some(morph) = &track.morph {
        let outcome = morph.as_ref().map_err(Clone::clone).and_then(|m| bind_morph(m, model, target, mesh_target()?));
        out.push("morph", outcome);
    }
    if let Some(frames) = &track.raw_frames {
        let outcome =
            frames.as_ref().map_err(Clone::clone).and_then(|f| bind_raw_frames(f, model, target, mesh_target()?));
        out.push("raw frames", outcome);
    }
    if let Some(uv) = &track.uv {
        let outcome = uv.as_ref().map_err(Clone::clone).and_then(|entries| {
            let mesh = mesh_target()?;
            let slots = model.meshes.get(target).map(|f| f.order_length as usize).unwrap_or(0);
            if entries.len() > slots {
                return Err(format!("{} entries, but the mesh has {slots} UV slots", entries.len()));
            }
            Ok(Channel::UvKeys {
                mesh,
                slots: (0u32..)
                    .zip(entries)
                    .map(|(slot, e)| UvSlotKeys {
                        slot,
                        keys: e.keys.iter().map(|&(frame, value)| Key { time: f32::from(frame), value }).collect(),
                    })
                    .collect(),
            })
        });
        out.push("uv", outcome);
    }
}

/// A rotation track as a scene channel: keys replace the node's authored local rotation, or
/// under the model's additive bit compose with it (no authored rotation is taken out).
fn rotation_channel(rotation: &RotationTrack, node: usize, model: &TpwModel) -> Channel {
    let local = model.scene.nodes.get(node).map(|n| n.local).unwrap_or_default();
    let authored_inverse =
        if model.additive { glam::Mat4::IDENTITY } else { math::authored_orientation_inverse(&local) };
    let keys: Vec<Key<Quat>> =
        rotation.keys.iter().map(|k| Key { time: f32::from(k.frame), value: k.quat.normalize() }).collect();
    if rotation.curves.iter().all(Option::is_none) {
        return Channel::NodeRotation { node, authored_inverse, keys };
    }
    let ease = rotation.curves.iter().map(|c| c.map(EaseRamp)).collect();
    Channel::NodeRotationEased { node, authored_inverse, keys, ease }
}

/// A position record as a curve: Bezier segments use points `3s..=3s+3`, so key `s` sits at
/// point `3s` with out-tangent `3s+1` and in-tangent `3s-1`; straight lines key every point.
/// The unused Catmull-Rom type becomes Hermite with tangents `(p[i+1] - p[i-1]) / 2`.
pub fn position_curve(position: &PositionTrack) -> Curve<Vec3> {
    let point = |i: usize| position.points.get(i).copied().unwrap_or(Vec3::ZERO);
    let time = |i: usize| position.frames.get(i).map(|&f| f32::from(f)).unwrap_or(0.0);
    let count = position.frames.len();
    match mesh::path_kind(position.kind) {
        crate::scene::PathKind::Bezier => Curve {
            keys: (0..count).map(|i| Key { time: time(i), value: point(3 * i) }).collect(),
            interpolation: Interpolation::Bezier,
            tangents: (0..count)
                .map(|i| {
                    let here = point(3 * i);
                    let incoming = if i == 0 { here } else { point(3 * i - 1) };
                    let outgoing = if i + 1 == count { here } else { point(3 * i + 1) };
                    [incoming, outgoing]
                })
                .collect(),
        },
        crate::scene::PathKind::Straight => {
            Curve::linear((0..count).map(|i| Key { time: time(i), value: point(i) }).collect())
        }
        crate::scene::PathKind::CatmullRom => Curve {
            keys: (0..count).map(|i| Key { time: time(i), value: point(i) }).collect(),
            interpolation: Interpolation::Hermite,
            tangents: (0..count)
                .map(|i| {
                    let tangent = (point((i + 1).min(count - 1)) - point(i.saturating_sub(1))) * 0.5;
                    [tangent, tangent]
                })
                .collect(),
        },
    }
}

/// Visibility entries as switch keys. The engine walks the entries from the end and the first
/// with `|e| <= frame` decides (`e >= 1` shows, else hides); that is, at each frame the entry
/// with the highest index among those reached. Sorting by `|e|` while carrying the highest index
/// seen gives the same answer as keys, even for lists out of frame order.
pub fn visibility_keys(entries: &[i16]) -> Vec<Key<bool>> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries.get(i).map(|e| e.unsigned_abs()).unwrap_or(0));
    let mut keys: Vec<Key<bool>> = Vec::with_capacity(entries.len());
    let mut deciding: Option<usize> = None;
    for i in order {
        let Some(&entry) = entries.get(i) else { continue };
        deciding = Some(deciding.map_or(i, |d| d.max(i)));
        let value = deciding.and_then(|d| entries.get(d)).is_some_and(|&e| e >= 1);
        let time = f32::from(entry.unsigned_abs());
        match keys.last_mut() {
            Some(last) if last.time == time => last.value = value,
            _ => keys.push(Key { time, value }),
        }
    }
    keys
}

fn path_channel(progress: &PathProgress, node: usize, flags: u32, model: &TpwModel) -> Result<Channel, String> {
    let scene = &model.scene;
    let parent = scene.nodes.get(node).and_then(|n| n.parent).ok_or("the target has no parent, so no path node")?;
    let index = model
        .path_nodes
        .get(parent)
        .copied()
        .flatten()
        .ok_or_else(|| format!("the target's parent (node {parent}) is not a path node (flag 0x8)"))?;
    let path = match model.paths.get(usize::from(index)) {
        Some(Ok(path)) => path.clone(),
        Some(Err(reason)) => return Err(reason.clone()),
        None => return Err(format!("path node names path {index}, but the model has {} paths", model.paths.len())),
    };
    if path.segments() == 0 {
        return Err(format!("path {index} has {} points, too few for one segment", path.points.len()));
    }
    Ok(Channel::NodePathProgress {
        node,
        path,
        start: progress.start as f32,
        values: progress.values.clone(),
        face_along: flags & CH_PATH_FACING != 0,
        additive: model.additive,
    })
}

fn bind_morph(morph: &MorphTrack, model: &TpwModel, target: usize, mesh: usize) -> Result<Channel, String> {
    let facts = model.meshes.get(target).ok_or("target has no mesh record")?;
    let channel_count: u64 = morph.records.iter().map(|r| r.channels.len() as u64).sum();
    let expected = u64::from(facts.vertex_count) + 2;
    if channel_count != expected {
        return Err(format!(
            "{channel_count} channels, but target mesh {target} has {} vertices (+2 box corners expected = {expected})",
            facts.vertex_count
        ));
    }
    let mut blocks = Vec::with_capacity(morph.records.len());
    for record in &morph.records {
        let width = record.channels.len();
        // Keep the channels that are vertices; the two trailing box corners are not.
        let kept: Vec<(usize, u32)> = record
            .channels
            .iter()
            .enumerate()
            .filter(|&(_, &id)| u32::from(id) < facts.vertex_count)
            .map(|(k, &id)| (k, u32::from(id)))
            .collect();
        let mut positions = Vec::with_capacity(kept.len() * record.frames.len());
        for e in 0..record.frames.len() {
            for &(k, _) in &kept {
                let raw = record.values.get(e * width + k).copied().unwrap_or(0);
                positions.push(morph_position(raw, morph.centre, morph.step));
            }
        }
        blocks.push(MorphBlock {
            times: record.frames.iter().map(|&f| f32::from(f)).collect(),
            vertices: kept.into_iter().map(|(_, id)| id).collect(),
            positions,
        });
    }
    Ok(Channel::VertexMorph { mesh, blocks })
}

fn bind_raw_frames(frames: &RawFrames, model: &TpwModel, target: usize, mesh: usize) -> Result<Channel, String> {
    let facts = model.meshes.get(target).ok_or("target has no mesh record")?;
    let vertex_count = facts.vertex_count as usize;
    if frames.index.len() < vertex_count {
        return Err(format!("{} index entries for a {vertex_count}-vertex mesh", frames.index.len()));
    }
    let per_frame = frames.per_frame as usize;
    let frame_count = frames.frame_count();
    let mut positions = Vec::with_capacity(frame_count * vertex_count);
    for f in 0..frame_count {
        for &index in frames.index.iter().take(vertex_count) {
            positions.push(frames.positions.get(f * per_frame + index as usize).copied().unwrap_or(Vec3::ZERO));
        }
    }
    Ok(Channel::VertexFrames {
        mesh,
        times: (0..frame_count).map(|f| f as f32).collect(),
        vertex_count,
        positions,
        additive: model.additive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_cover_every_owned_bit() {
        let flags =
            CH_ROTATION | CH_MORPH | CH_UV | CH_VISIBILITY | CH_POSITION | CH_SCALE | CH_PATH | CH_PATH_FACING | 0x40;
        let names = channel_names(flags, 5);
        assert_eq!(
            names,
            ["position", "rotation", "0x40", "scale", "path progress", "facing", "morph", "uv", "visibility", "easing"]
        );
        assert_eq!(channel_names(CH_MORPH | CH_RAW_FRAMES, 0), ["raw frames"]);
        // Half a scale pair is not a scale channel.
        assert_eq!(channel_names(0x80, 0), ["0x80"]);
    }

    #[test]
    fn visibility_walks_from_the_end() {
        // Advisorm10's eyelids: 0, 40, -44, 180, -184: hidden from 0, shown 40, hidden 44 ...
        let keys = visibility_keys(&[0, 40, -44, 180, -184]);
        let at = |f: f32| keys.iter().rev().find(|k| k.time <= f).map(|k| k.value);
        assert_eq!(at(0.0), Some(false));
        assert_eq!(at(41.0), Some(true));
        assert_eq!(at(44.0), Some(false));
        assert_eq!(at(200.0), Some(false));
        // Out of order: [10, -5]. At frame 12 both qualify; walking from the end, -5 decides.
        let keys = visibility_keys(&[10, -5]);
        let at = |f: f32| keys.iter().rev().find(|k| k.time <= f).map(|k| k.value);
        assert_eq!(at(4.0), None);
        assert_eq!(at(7.0), Some(false));
        assert_eq!(at(12.0), Some(false));
    }

    #[test]
    fn bezier_positions_take_three_points_a_key() {
        let p = |x: f32| Vec3::new(x, 0.0, 0.0);
        let track =
            PositionTrack { kind: 0x12, points: (0..7).map(|i| p(i as f32)).collect(), frames: vec![0, 10, 20] };
        let curve = position_curve(&track);
        assert_eq!(curve.keys.iter().map(|k| k.value.x).collect::<Vec<_>>(), [0.0, 3.0, 6.0]);
        assert_eq!(curve.tangents[1], [p(2.0), p(4.0)]);
    }
}
