//! A player's clips: one per `animation.cfg` animation, whose channels drive only the parts
//! it names (`TORSO_` upper, `LEGS_` lower, `BOTH_` both), keyed on the frames the game shows
//! in order (`CG_RunLerpFrame`): `first + k`, or `first + count - 1 - k` reversed, then for a
//! looping animation one more key, the frame the loop returns to (`count - loopFrames`),
//! so a layer looping the clip lerps from the last frame into it as the game does. Tags are
//! keyed as whole placements ([`Channel::NodeFrames`]): between frames their axes blend
//! linearly and are re-normalised, as `R_LerpTag` does, not slerped.
//!
//! Frames outside a part's file follow the renderer: a surface shows frame 0
//! (`R_AddMD3Surfaces`), a tag its last frame (`R_GetTag`); either is a warning.

use super::config::Animation;
use crate::formats::md3::Md3File;
use crate::formats::md3::assemble::tag_matrix;
use crate::formats::quake_axes::to_scene;
use crate::scene::{Channel, Clip, Key, Scene};

/// One part as the clips address it in the assembled scene.
pub struct PartFrames<'a> {
    pub name: &'static str,
    pub file: &'a Md3File,
    /// The scene's index of the part's first mesh (one per surface, in order).
    pub first_mesh: usize,
    /// The scene's node of each tag, in the file's tag order.
    pub tag_nodes: Vec<usize>,
}

/// At most this many keys per clip: no part has more frames (`MD3_MAX_FRAMES`).
pub const MAX_KEYS: i64 = crate::formats::md3::MAX_FRAMES as i64;

/// The frame numbers an animation shows, key by key (see the module doc); a count past
/// [`MAX_KEYS`] is cut there.
pub fn key_frames(animation: &Animation) -> Vec<i64> {
    let count = animation.frame_count.clamp(1, MAX_KEYS);
    let frame = |k: i64| {
        if animation.reversed { animation.first_frame + count - 1 - k } else { animation.first_frame + k }
    };
    let mut frames: Vec<i64> = (0..count).map(frame).collect();
    if animation.loop_frames > 0 {
        frames.push(frame(count - animation.loop_frames.min(count)));
    }
    frames
}

/// Where a looping animation's clip returns to after its first pass, in clip units (the key
/// of frame `count - loopFrames`, as `CG_RunLerpFrame` wraps: `f %= loopFrames; f += numFrames
/// - loopFrames`); `None` when it does not loop (`loopFrames` 0) and plays once.
pub fn loop_start(animation: &Animation) -> Option<f32> {
    let count = animation.frame_count.clamp(1, MAX_KEYS);
    (animation.loop_frames > 0).then(|| (count - animation.loop_frames.min(count)) as f32)
}

/// The channels that play `frames` (file frame numbers, one per key) on one part.
fn part_channels(part: &PartFrames, frames: &[i64], warnings: &mut Vec<String>) -> Vec<Channel> {
    let file = part.file;
    let frame_count = file.frames.len();
    let inside = |f: i64| usize::try_from(f).ok().filter(|&f| f < frame_count);
    if let Some(bad) = frames.iter().find(|&&f| inside(f).is_none()) {
        warnings.push(format!(
            "frame {bad} is past {}.md3's {frame_count} frames: its surfaces show frame 0, its tags the last frame",
            part.name
        ));
    }
    let mesh_frames: Vec<usize> = frames.iter().map(|&f| inside(f).unwrap_or(0)).collect();
    let last = frame_count.saturating_sub(1);
    let tag_frames: Vec<usize> = frames.iter().map(|&f| inside(f).unwrap_or(if f < 0 { 0 } else { last })).collect();
    let times: Vec<f32> = (0..frames.len()).map(|k| k as f32).collect();

    let mut channels = Vec::with_capacity(file.surfaces.len() + 2 * part.tag_nodes.len());
    for (s, surface) in file.surfaces.iter().enumerate() {
        let positions =
            mesh_frames.iter().flat_map(|&f| surface.frame(f).iter().map(|v| to_scene(v.position()))).collect();
        channels.push(Channel::VertexFrames {
            mesh: part.first_mesh + s,
            times: times.clone(),
            vertex_count: surface.vertex_count,
            positions,
            additive: false,
        });
    }
    for (t, &node) in part.tag_nodes.iter().enumerate() {
        let keys = tag_frames
            .iter()
            .zip(&times)
            .filter_map(|(&f, &time)| Some(Key { time, value: tag_matrix(file.tags.get(f)?.get(t)?) }))
            .collect();
        channels.push(Channel::NodeFrames { node, keys });
    }
    channels
}

/// Makes file frame `frame` the part's rest pose (meshes, their bounds and normals, and tag
/// nodes), so that a clip of the other part alone, or a still export, shows this part as it
/// stands in its layer's first clip rather than in its file's frame 0 (a death pose).
pub fn stand_at(scene: &mut Scene, part: &PartFrames, frame: i64) {
    let file = part.file;
    let Some(frame) = usize::try_from(frame).ok().filter(|&f| f < file.frames.len()) else { return };
    for (s, surface) in file.surfaces.iter().enumerate() {
        let Some(mesh) = scene.meshes.get_mut(part.first_mesh + s) else { continue };
        let vertices = surface.frame(frame);
        if vertices.len() != mesh.source_positions.len() {
            continue;
        }
        mesh.source_positions = vertices.iter().map(|v| to_scene(v.position())).collect();
        mesh.normals = vertices.iter().map(|v| to_scene(v.unit_normal())).collect();
        mesh.bounds = crate::scene::Aabb::from_points(&mesh.source_positions);
    }
    for (t, &node) in part.tag_nodes.iter().enumerate() {
        let (Some(tag), Some(node)) = (file.tags.get(frame).and_then(|f| f.get(t)), scene.nodes.get_mut(node)) else {
            continue;
        };
        node.local = tag_matrix(tag);
    }
}

/// The clip of one animation over `parts` (the parts its name drives).
pub fn animation_clip(name: &str, animation: &Animation, parts: &[&PartFrames]) -> Clip {
    let frames = key_frames(animation);
    let mut warnings = Vec::new();
    if animation.frame_count > MAX_KEYS {
        warnings.push(format!("{} frames, more than any .md3 holds: the first {MAX_KEYS} kept", animation.frame_count));
    }
    let channels = parts.iter().flat_map(|part| part_channels(part, &frames, &mut warnings)).collect();
    Clip {
        name: name.to_string(),
        source: None,
        start: 0.0,
        end: frames.len().saturating_sub(1) as f32,
        rate: animation.rate(),
        channels,
        tracks: Vec::new(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_games_frame_order() {
        let anim = |first, count, loop_frames, reversed| Animation {
            first_frame: first,
            frame_count: count,
            loop_frames,
            frame_ms: 100,
            reversed,
        };
        assert_eq!(key_frames(&anim(10, 4, 0, false)), [10, 11, 12, 13]);
        // A full loop returns to the first frame; a partial one to `count - loopFrames`.
        assert_eq!(key_frames(&anim(10, 4, 4, false)), [10, 11, 12, 13, 10]);
        assert_eq!(key_frames(&anim(10, 4, 2, false)), [10, 11, 12, 13, 12]);
        assert_eq!(key_frames(&anim(10, 4, 4, true)), [13, 12, 11, 10, 13]);
        // Loops return to the key of frame `count - loopFrames`.
        assert_eq!(loop_start(&anim(10, 4, 0, false)), None);
        assert_eq!(loop_start(&anim(10, 4, 4, false)), Some(0.0));
        assert_eq!(loop_start(&anim(10, 4, 2, false)), Some(2.0));
        assert_eq!(loop_start(&anim(10, 4, 9, false)), Some(0.0));
    }
}
