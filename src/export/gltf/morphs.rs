//! Morph targets: one target per distinct vertex key of the clips (TPW morphs, Quake II frames)
//! ([`plan`], which hands on a [`MorphPlan`] per mesh) and the one-hot weights that play them.

use std::collections::HashMap;

use glam::Vec3;
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::document::{Notes, Writer};
use super::sampling::clip_times;
use super::{index, usize64};
use crate::scene::anim::Pose;
use crate::scene::{Channel, Scene};

/// Morph-target deltas (targets × vertices) one mesh may hold; a damaged file could ask for
/// far more, and the rest of its keys are then left out with a note.
pub(super) const MAX_MORPH_DELTAS: usize = 8 << 20;

/// Morph targets of one mesh and, per clip, which target is full on at which time.
#[derive(Default)]
pub(super) struct MorphPlan {
    /// Per target: render-vertex deltas from the rest positions.
    pub(super) targets: Vec<Vec<Vec3>>,
    /// Per clip: `(time, target)` one-hot keys.
    pub(super) keys: HashMap<usize, Vec<(f32, usize)>>,
}

/// Morph targets per mesh from the clips' vertex channels: one target per distinct key
/// (TPW morph key times, Quake II frames), so each clip animates its weights one-hot.
pub(super) fn plan(scene: &Scene, notes: &mut Notes) -> Vec<MorphPlan> {
    let mut plans: Vec<MorphPlan> = (0..scene.meshes.len()).map(|_| MorphPlan::default()).collect();
    let rest: Vec<Vec<Vec3>> = scene.meshes.iter().map(|m| m.render_positions()).collect();
    let mut packed_targets: HashMap<(usize, usize), usize> = HashMap::new();
    for (c, clip) in scene.clips.iter().enumerate() {
        let mut morphed: Vec<usize> = Vec::new();
        for channel in &clip.channels {
            match channel {
                Channel::VertexMorph { mesh, .. } | Channel::VertexFrames { mesh, .. } if !morphed.contains(mesh) => {
                    morphed.push(*mesh);
                    // Every key time of every vertex channel on the mesh: between them each
                    // vertex moves linearly, so one-hot weights between targets are exact.
                    let key_times = clip.channels.iter().flat_map(|other| -> Vec<f32> {
                        match other {
                            Channel::VertexMorph { mesh: m, blocks } if m == mesh => {
                                blocks.iter().flat_map(|b| b.times.iter().copied()).collect()
                            }
                            Channel::VertexFrames { mesh: m, times, .. } if m == mesh => times.clone(),
                            _ => Vec::new(),
                        }
                    });
                    let times = clip_times(clip, key_times, false);
                    let Some(base) = rest.get(*mesh) else { continue };
                    let mut pose = Pose::default();
                    let mut keys = Vec::new();
                    for t in times {
                        if plans.get(*mesh).is_some_and(|p| (p.targets.len() + 1) * base.len() > MAX_MORPH_DELTAS) {
                            notes.add_again(format!(
                                "clip {}: mesh {mesh} has too many morph keys; the rest left out",
                                clip.name
                            ));
                            break;
                        }
                        pose.evaluate(scene, Some(c), t);
                        let moved = pose.mesh_positions(scene, *mesh);
                        let delta: Vec<Vec3> = moved.iter().zip(base).map(|(p, b)| *p - *b).collect();
                        let Some(plan) = plans.get_mut(*mesh) else { continue };
                        plan.targets.push(delta);
                        keys.push((t, plan.targets.len() - 1));
                    }
                    if let Some(plan) = plans.get_mut(*mesh) {
                        plan.keys.insert(c, keys);
                    }
                }
                Channel::PackedFrames(packed) => {
                    let (Some(base), Some(mesh)) = (rest.get(packed.mesh), scene.meshes.get(packed.mesh)) else {
                        continue;
                    };
                    let mut frame_targets = Vec::new();
                    for k in 0..packed.frames.len() {
                        let key = (packed.mesh, packed.frames.start + k);
                        let target = match packed_targets.get(&key) {
                            Some(&t) => t,
                            None => {
                                if plans
                                    .get(packed.mesh)
                                    .is_some_and(|p| (p.targets.len() + 1) * base.len() > MAX_MORPH_DELTAS)
                                {
                                    break;
                                }
                                let source = packed.unpack(k);
                                let moved = crate::scene::expand_positions(&source, &mesh.vertex_source);
                                let delta: Vec<Vec3> = moved.iter().zip(base).map(|(p, b)| *p - *b).collect();
                                let Some(plan) = plans.get_mut(packed.mesh) else { continue };
                                plan.targets.push(delta);
                                packed_targets.insert(key, plan.targets.len() - 1);
                                plan.targets.len() - 1
                            }
                        };
                        frame_targets.push(target);
                    }
                    // Frames between the clip's bounds; the bounds themselves hold the
                    // nearest frame, as the viewer clamps.
                    let frame_times = packed.times();
                    let times = clip_times(clip, frame_times.iter().copied(), false);
                    let keys: Vec<(f32, usize)> = times
                        .iter()
                        .filter_map(|&t| {
                            let k = frame_times
                                .partition_point(|&ft| ft < t - 1e-4)
                                .min(frame_times.len().saturating_sub(1));
                            frame_targets.get(k).map(|&target| (t, target))
                        })
                        .collect();
                    if let Some(plan) = plans.get_mut(packed.mesh) {
                        plan.keys.insert(c, keys);
                    }
                }
                _ => {}
            }
        }
    }
    plans
}

/// Weights output for one-hot keys: sparse when that is smaller than dense.
pub(super) fn one_hot_weights(out: &mut Writer, keys: &[(f32, usize)], target_count: usize) -> u32 {
    use json::accessor::{ComponentType, Type};
    let count = keys.len() * target_count;
    let dense_bytes = count * 4;
    let sparse_bytes = keys.len() * 8;
    if sparse_bytes < dense_bytes {
        let indices: Vec<u32> = keys.iter().enumerate().map(|(k, &(_, t))| (k * target_count + t) as u32).collect();
        let values = vec![1f32; keys.len()];
        let index_view = out.view(bytemuck::cast_slice(&indices), None);
        let value_view = out.view(bytemuck::cast_slice(&values), None);
        let sparse = json::accessor::sparse::Sparse {
            count: usize64(keys.len()),
            indices: json::accessor::sparse::Indices {
                buffer_view: index(index_view),
                byte_offset: USize64(0),
                component_type: Valid(json::accessor::IndexComponentType(ComponentType::U32)),
                extensions: None,
                extras: None,
            },
            values: json::accessor::sparse::Values {
                buffer_view: index(value_view),
                byte_offset: USize64(0),
                extensions: None,
                extras: None,
            },
            extensions: None,
            extras: None,
        };
        out.accessor(None, count, ComponentType::F32, Type::Scalar, None, Some(sparse))
    } else {
        let mut dense = vec![0f32; count];
        for (k, &(_, t)) in keys.iter().enumerate() {
            if let Some(w) = dense.get_mut(k * target_count + t) {
                *w = 1.0;
            }
        }
        out.floats(&dense, 1, false, None)
    }
}
