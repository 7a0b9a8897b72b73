//! A player's clips: one per `animation.cfg` animation, whose channels drive only the parts
//! it names (`TORSO_` upper, `LEGS_` lower, `BOTH_` both), keyed on the frames the game shows
//! in order (`CG_RunLerpFrame`): `first + k`, or `first + count - 1 - k` reversed, then for a
//! looping animation one more key, the frame the loop returns to (`count - loopFrames`),
//! so a layer looping the clip lerps from the last frame into it as the game does.
//!
//! Frames outside a part's file follow the renderer: a surface shows frame 0
//! (`R_AddMD3Surfaces`), a tag its last frame (`R_GetTag`); either is a warning.

use glam::{Mat4, Quat, Vec3};

use super::config::Animation;
use crate::formats::md3::Md3File;
use crate::formats::md3::assemble::tag_in_scene;
use crate::formats::quake_axes::to_scene;
use crate::scene::{Channel, Clip, Curve, Key, Scene};

/// One part as the clips address it in the assembled scene.
pub struct PartFrames<'a> {
    pub name: &'static str,
    pub file: &'a Md3File,
    /// The scene's index of the part's first mesh (one per surface, in order).
    pub first_mesh: usize,
    /// The scene's node of each tag, in the file's tag order.
    pub tag_nodes: Vec<usize>,
}

/// The frame numbers an animation shows, key by key (see the module doc).
pub fn key_frames(animation: &Animation) -> Vec<i64> {
    let count = animation.frame_count.max(1);
    let frame = |k: i64| {
        if animation.reversed { animation.first_frame + count - 1 - k } else { animation.first_frame + k }
    };
    let mut frames: Vec<i64> = (0..count).map(frame).collect();
    if animation.loop_frames > 0 {
        frames.push(frame(count - animation.loop_frames.min(count)));
    }
    frames
}

/// The channels that play `frames` (file frame numbers, one per key) on one part.
fn part_channels(scene: &Scene, part: &PartFrames, frames: &[i64], warnings: &mut Vec<String>) -> Vec<Channel> {
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
        let keys: Vec<(f32, Quat, Vec3)> = tag_frames
            .iter()
            .zip(&times)
            .filter_map(|(&f, &time)| {
                let (rotation, origin) = tag_in_scene(file.tags.get(f)?.get(t)?);
                Some((time, rotation, origin))
            })
            .collect();
        let rest = scene.nodes.get(node).map_or(Mat4::IDENTITY, |n| n.local);
        let (_, rest_rotation, _) = rest.to_scale_rotation_translation();
        channels.push(Channel::NodeRotation {
            node,
            authored_inverse: Mat4::from_quat(rest_rotation.inverse()),
            keys: keys.iter().map(|&(time, value, _)| Key { time, value }).collect(),
        });
        channels.push(Channel::NodePosition {
            node,
            curve: Curve::linear(keys.iter().map(|&(time, _, value)| Key { time, value }).collect()),
            additive: false,
        });
    }
    channels
}

/// The clip of one animation over `parts` (the parts its name drives).
pub fn animation_clip(scene: &Scene, name: &str, animation: &Animation, parts: &[&PartFrames]) -> Clip {
    let frames = key_frames(animation);
    let mut warnings = Vec::new();
    let channels = parts.iter().flat_map(|part| part_channels(scene, part, &frames, &mut warnings)).collect();
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
    }
}
