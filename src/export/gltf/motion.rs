//! Node and joint motion: TPW node channels, face riders and visibility, MDR bone frames and M2
//! bone tracks, each sampled as the viewer poses it and written as TRS channels into one clip's
//! animation ([`ClipWriter`]), on the nodes the [`NodeMap`] and [`Joints`] name.

use glam::{Mat4, Quat, Vec3};
use gltf_json as json;

use super::animation::ClipWriter;
use super::decompose::{NodeTransform, Trs};
use super::morphs::MorphPlan;
use super::nodes::{NodeMap, to_trs};
use super::sampling::{JUMP_GAP, MAX_GRID, clip_seconds, clip_times, grid_between, track_times};
use super::skins::{Joints, joint_pivot};
use crate::scene::anim::{animated_node_local, sample_curve};
use crate::scene::{Channel, Clip, Key, Scene};

/// TPW node channels (rotation, eased rotation, position, axis scale, path progress) of one
/// node: its local matrix as the viewer poses it ([`animated_node_local`]), sampled at the
/// keys (and on a grid where the curve is not linear between keys), refined until linear
/// keys follow it within the tolerance, and written on the node's TRS. A chain keeps its
/// fixed stretch `V·Σ·Vᵀ`: the translation goes on the outer node, and the rest of the
/// matrix (`stretch⁻¹ · linear`: the keyed rotation, and any axis scale) on the inner one.
///
/// A node that rides a face of a mesh the clip morphs ([`crate::scene::FaceAnchor`]) is
/// posed by the viewer's whole pose instead, sampled at the mesh's morph keys: between them
/// the morph weights, and so the point on the face, blend linearly.
pub(super) fn node_motion(
    w: &mut ClipWriter,
    scene: &Scene,
    c: usize,
    node: usize,
    nodes: &NodeMap,
    morphs: &[MorphPlan],
) {
    let Some(clip) = scene.clips.get(c) else { return };
    let (Some(placed), Some(form)) = (nodes.placed.get(node).copied(), nodes.forms.get(node).copied()) else {
        return;
    };
    // The node's own channels, picked once: a file may hold thousands of channels.
    let own: Vec<&Channel> = clip.channels.iter().filter(|c| c.moved_node() == Some(node)).collect();
    let mut key_times: Vec<f32> = Vec::new();
    let mut grid = false;
    // Where the motion jumps (a channel starts or stops acting): a sample just beside it.
    let mut jumps: Vec<f32> = Vec::new();
    for channel in own.iter().copied() {
        match channel {
            Channel::NodeRotation { keys, .. } => key_times.extend(keys.iter().map(|k| k.time)),
            Channel::NodeRotationEased { keys, ease, .. } => {
                key_times.extend(keys.iter().map(|k| k.time));
                grid |= ease.iter().any(Option::is_some);
            }
            Channel::NodePosition { curve, .. } => {
                key_times.extend(curve.keys.iter().map(|k| k.time));
                grid |= curve.interpolation != crate::scene::Interpolation::Linear;
                jumps.extend(curve.keys.first().map(|k| k.time - JUMP_GAP));
            }
            Channel::NodeAxisScale { keys, .. } => key_times.extend(keys.iter().map(|k| k.time)),
            Channel::NodeFrames { keys, .. } => key_times.extend(keys.iter().map(|k| k.time)),
            Channel::NodePathProgress { start, values, .. } => {
                // One value per frame; past MAX_GRID of them the grid and refinement cover it.
                key_times.extend((0..values.len().min(MAX_GRID)).map(|i| start + i as f32));
                grid = true;
                let end = start + values.len().saturating_sub(1) as f32;
                jumps.extend([start - JUMP_GAP, end + JUMP_GAP]);
            }
            _ => {}
        }
    }
    let ridden_keys = ridden_keys(scene, morphs, c, node);
    let rides = ridden_keys.is_some();
    key_times.extend(ridden_keys.into_iter().flatten().map(|&(t, _)| t));
    if grid {
        // Outside its keys a channel holds, so the grid spans the keys only.
        let (low, high) = key_times.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &t| (l.min(t), h.max(t)));
        key_times.extend(grid_between(clip, low, high));
    }
    key_times.extend(jumps);
    let fixed_stretch = match form {
        NodeTransform::Single(_) => None,
        NodeTransform::Chain { outer, middle, .. } => {
            Some((Trs { translation: Vec3::ZERO, ..outer }.matrix() * middle.matrix()).inverse())
        }
    };
    let local_at = |t: f32| -> Trs {
        let local = if rides {
            crate::scene::anim::Pose::at(scene, Some(c), t).locals.get(node).copied().unwrap_or(Mat4::IDENTITY)
        } else {
            animated_node_local(scene, own.iter().copied(), node, t)
        };
        match fixed_stretch {
            None => to_trs(&local),
            Some(unstretch) => {
                let mut linear = local;
                linear.w_axis = glam::Vec4::W;
                Trs { translation: local.w_axis.truncate(), ..to_trs(&(unstretch * linear)) }
            }
        }
    };
    let given = w.sampling.take(clip_times(clip, key_times, false));
    if given.is_empty() {
        return;
    }
    let times = w.sampling.refine(given, &local_at);
    let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
    let locals: Vec<Trs> = times.iter().map(|&t| local_at(t)).collect();
    // A single node is its own outer and rotated node; a chain splits the two.
    w.trs_channels([placed.outer, placed.rotated], &seconds, &locals);
}

/// The morph keys of clip `c` on the mesh whose face `node` is anchored to, when the clip
/// morphs that mesh (the node then rides the face).
pub(super) fn ridden_keys<'m>(
    scene: &Scene,
    morphs: &'m [MorphPlan],
    c: usize,
    node: usize,
) -> Option<&'m [(f32, usize)]> {
    let anchor = scene.nodes.get(node).and_then(|n| n.anchor.as_deref())?;
    let keys = morphs.get(anchor.mesh).and_then(|plan| plan.keys.get(&c))?;
    (!keys.is_empty()).then_some(keys.as_slice())
}

/// A node's visibility as a STEP scale (0 or 1) on the child that carries its mesh: every
/// visibility channel of the node applied in order, the last key at or before the time of
/// each deciding, as the viewer does (the clip's hide list, then the track's switches).
pub(super) fn node_visibility(w: &mut ClipWriter, nodes: &NodeMap, clip: &Clip, node: usize) {
    let Some(&holder) = nodes.visibility.get(&node) else { return };
    let switches: Vec<&[Key<bool>]> = clip
        .channels
        .iter()
        .filter_map(|c| match c {
            Channel::NodeVisibility { node: n, keys } if *n == node => Some(keys.as_slice()),
            _ => None,
        })
        .collect();
    let times = clip_times(clip, switches.iter().flat_map(|keys| keys.iter().map(|k| k.time)), false);
    let values: Vec<Vec3> = times
        .iter()
        .map(|&t| {
            let shown = switches.iter().fold(true, |shown, keys| last_at_or_before(keys, t).map_or(shown, |k| k.value));
            if shown { Vec3::ONE } else { Vec3::ZERO }
        })
        .collect();
    let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
    w.vectors(holder, json::animation::Property::Scale, &seconds, &values, true);
}

/// MDR: per-frame model-space joint matrices become joint TRS keys, with sub-samples
/// between frames (the engine blends matrices element-wise).
pub(super) fn bone_frames(
    w: &mut ClipWriter,
    scene: &Scene,
    joints: &Joints,
    clip: &Clip,
    skeleton: usize,
    times: &[f32],
    frames: &[Vec<Mat4>],
) {
    let Some(joint_nodes) = joints.nodes.get(skeleton) else { return };
    let Some(skel) = scene.skeletons.get(skeleton) else { return };
    let frame_times = clip_times(clip, times.iter().copied(), false);
    for (j, &node) in joint_nodes.iter().enumerate() {
        let parent = skel.joints.get(j).and_then(|joint| joint.parent).filter(|&p| p < j);
        let local_at = |t: f32| -> Trs {
            let pose = blend_frames(times, frames, t);
            let m = pose.get(j).copied().unwrap_or(Mat4::IDENTITY);
            let p = parent.and_then(|p| pose.get(p)).copied().unwrap_or(Mat4::IDENTITY);
            to_trs(&(p.inverse() * m))
        };
        let given = w.sampling.take(frame_times.clone());
        if given.is_empty() {
            continue;
        }
        let sample_times = w.sampling.refine(given, &local_at);
        let seconds: Vec<f32> = sample_times.iter().map(|&t| clip_seconds(clip, t)).collect();
        let locals: Vec<Trs> = sample_times.iter().map(|&t| local_at(t)).collect();
        w.trs_channels([node, node], &seconds, &locals);
    }
}

/// M2: keyed TRS about each joint's pivot. The joint's matrix is `parent · T(p+t)·R·S·T(-p)`
/// and its node is that times `T(p)` ([`super::skins::joint_bind`]), so the node's local is
/// `T(p - p_parent + t)·R·S`: the keys as they are, the translation offset by the pivots.
/// Joints without a track hold their rest.
pub(super) fn bone_tracks(
    w: &mut ClipWriter,
    scene: &Scene,
    joints: &Joints,
    clip: &Clip,
    skeleton: usize,
    tracks: &[crate::scene::JointTracks],
) {
    let Some(joint_nodes) = joints.nodes.get(skeleton) else { return };
    let Some(skel) = scene.skeletons.get(skeleton) else { return };
    for (j, &node) in joint_nodes.iter().enumerate() {
        let parent = skel.joints.get(j).and_then(|joint| joint.parent).filter(|&p| p < j);
        let offset = joint_pivot(scene, skeleton, j) - parent.map_or(Vec3::ZERO, |p| joint_pivot(scene, skeleton, p));
        let track = tracks.iter().find(|t| t.joint == j);
        let local_at = |time: f32| -> Trs {
            let Some(track) = track else {
                return Trs { translation: offset, ..Trs::IDENTITY };
            };
            let [tt, rt, st] = track.timing;
            let t = sample_curve(&track.translation, tt.apply(time, time)).unwrap_or(Vec3::ZERO);
            let r = sample_curve(&track.rotation, rt.apply(time, time)).unwrap_or(Quat::IDENTITY);
            let s = sample_curve(&track.scale, st.apply(time, time)).unwrap_or(Vec3::ONE);
            Trs { translation: offset + t, rotation: r, scale: s }
        };
        let times = match track {
            Some(track) => {
                let [tt, rt, st] = track.timing;
                let mut key_times = track_times(clip, track.translation.keys.iter().map(|k| k.time), tt);
                key_times.extend(track_times(clip, track.rotation.keys.iter().map(|k| k.time), rt));
                key_times.extend(track_times(clip, track.scale.keys.iter().map(|k| k.time), st));
                w.sampling.take(clip_times(clip, key_times, false))
            }
            None => w.sampling.take(vec![clip.start]),
        };
        if times.is_empty() {
            continue;
        }
        let times = w.sampling.refine(times, &local_at);
        let locals: Vec<Trs> = times.iter().map(|&time| local_at(time)).collect();
        let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
        w.trs_channels([node, node], &seconds, &locals);
    }
}

pub(super) fn last_at_or_before<T>(keys: &[Key<T>], time: f32) -> Option<&Key<T>> {
    let n = keys.partition_point(|k| k.time <= time);
    n.checked_sub(1).and_then(|i| keys.get(i))
}

/// Element-wise blend of the two frames around `t`, as [`Pose`](crate::scene::anim::Pose) does for MDR bones.
pub(super) fn blend_frames(times: &[f32], frames: &[Vec<Mat4>], t: f32) -> Vec<Mat4> {
    let last = times.len().saturating_sub(1);
    let upper = times.partition_point(|&ft| ft <= t).min(last);
    let lower = upper.saturating_sub(1);
    let (Some(&t0), Some(&t1)) = (times.get(lower), times.get(upper)) else { return Vec::new() };
    let f = if t1 > t0 { ((t - t0) / (t1 - t0)).clamp(0.0, 1.0) } else { 0.0 };
    let (lower, f) = if t <= t0 { (lower, 0.0) } else { (lower, f) };
    let (Some(a), Some(b)) = (frames.get(lower), frames.get(upper)) else { return Vec::new() };
    a.iter().zip(b).map(|(ma, mb)| *ma * (1.0 - f) + *mb * f).collect()
}
