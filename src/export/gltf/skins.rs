//! Skins: joint nodes per skeleton at their bind pose ([`write()`], which hands on the
//! [`Joints`]), one skin per skinned skeleton with its inverse bind matrices ([`skin`], which
//! the meshes part asks for), and four joint influences per render vertex.

use glam::{Mat4, Vec3};
use gltf_json as json;

use super::decompose::Trs;
use super::document::Writer;
use super::index;
use super::nodes::{add_child, push_node, to_trs};
use crate::scene::Scene;

/// The joint nodes of the scene's skeletons, for skins, links and bone channels.
#[derive(Default)]
pub(super) struct Joints {
    /// Per skeleton: the glTF node of each joint.
    pub(super) nodes: Vec<Vec<u32>>,
    /// Per skeleton: the node its joints hang under.
    pub(super) roots: Vec<u32>,
}

/// A joint's pivot (M2: rotation and scale happen about it; zero elsewhere).
pub(super) fn joint_pivot(scene: &Scene, skeleton: usize, joint: usize) -> Vec3 {
    scene.skeletons.get(skeleton).and_then(|s| s.joints.get(joint)).map_or(Vec3::ZERO, |j| j.pivot)
}

/// Where joint `joint`'s node sits in the bind pose, in model space: its rest matrix (MDR)
/// moved to its pivot (M2, whose joint matrices are identity at rest). Joint nodes are
/// written as the joint's matrix times a move to its pivot, so an importer's armature has
/// its bones where the model's are, and M2 keys go on the joints as they are (no pivot
/// folded into the translation, which would tie translation to rotation).
pub(super) fn joint_bind(scene: &Scene, skeleton: usize, joint: usize) -> Mat4 {
    let rest = scene.skeletons.get(skeleton).and_then(|s| s.rest_pose.get(joint)).copied();
    rest.unwrap_or(Mat4::IDENTITY) * Mat4::from_translation(joint_pivot(scene, skeleton, joint))
}

/// Joint nodes per skeleton: each joint's bind matrix ([`joint_bind`]) relative to its
/// parent's, under one root node per skeleton.
pub(super) fn write(scene: &Scene, out: &mut Writer) -> Joints {
    let mut joints = Joints::default();
    for (s, skeleton) in scene.skeletons.iter().enumerate() {
        let root = push_node(
            out,
            if skeleton.name.is_empty() { format!("skeleton {s}") } else { skeleton.name.clone() },
            Trs::IDENTITY,
        );
        let mut nodes = Vec::with_capacity(skeleton.joints.len());
        for (j, joint) in skeleton.joints.iter().enumerate() {
            let parent = joint.parent.filter(|&p| p < j);
            let parent_bind = parent.map_or(Mat4::IDENTITY, |p| joint_bind(scene, s, p));
            let local = parent_bind.inverse() * joint_bind(scene, s, j);
            let trs = to_trs(&local);
            let n = push_node(out, joint.name.clone(), trs);
            match parent.and_then(|p| nodes.get(p).copied()) {
                Some(p) => add_child(out, p, n),
                None => add_child(out, root, n),
            }
            nodes.push(n);
            if joint.billboard {
                out.note(format!("joint {j} ({}): billboard not exported (it needs the camera)", joint.name));
            }
        }
        joints.nodes.push(nodes);
        joints.roots.push(root);
    }
    joints
}

/// The skin of skeleton `skeleton`: its joint nodes, and inverse bind matrices that are the
/// inverses of the bind pose.
pub(super) fn skin(scene: &Scene, joints: &Joints, skeleton: usize, out: &mut Writer) -> u32 {
    let nodes = joints.nodes.get(skeleton).map_or(&[][..], Vec::as_slice);
    let ibm: Vec<f32> = (0..nodes.len())
        .flat_map(|j| {
            let inv = joint_bind(scene, skeleton, j).inverse();
            if inv.is_finite() { inv } else { Mat4::IDENTITY }.to_cols_array()
        })
        .collect();
    let ibm = out.floats(&ibm, 16, false, None);
    out.root
        .push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(index(ibm)),
            joints: nodes.iter().map(|&j| index(j)).collect(),
            name: scene.skeletons.get(skeleton).map(|s| s.name.clone()),
            skeleton: joints.roots.get(skeleton).map(|&r| index(r)),
        })
        .value() as u32
}

/// Up to four joints and weights per render vertex: the heaviest influences, repeated joints
/// merged, weights renormalised to sum to 1, unused slots zero.
pub(super) fn four_influences(
    mesh: &crate::scene::Mesh,
    skin: &crate::scene::SkinWeights,
) -> (Vec<[u16; 4]>, Vec<f32>) {
    let mut joints = Vec::with_capacity(mesh.vertex_count());
    let mut weights = Vec::with_capacity(mesh.vertex_count() * 4);
    for &source in &mesh.vertex_source {
        let mut merged: Vec<(u32, f32)> = Vec::new();
        if let Some(&(start, count)) = skin.ranges.get(source as usize) {
            let end = (start as usize).saturating_add(count as usize);
            for inf in skin.influences.get(start as usize..end).unwrap_or(&[]) {
                if inf.weight.is_nan() || inf.weight <= 0.0 {
                    continue;
                }
                match merged.iter_mut().find(|(j, _)| *j == inf.joint) {
                    Some(slot) => slot.1 += inf.weight,
                    None => merged.push((inf.joint, inf.weight)),
                }
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged.truncate(4);
        let total: f32 = merged.iter().map(|(_, w)| w).sum();
        let mut j4 = [0u16; 4];
        let mut w4 = [0f32; 4];
        if total > 0.0 {
            for (k, (j, w)) in merged.iter().enumerate() {
                if let (Some(js), Some(ws)) = (j4.get_mut(k), w4.get_mut(k)) {
                    *js = u16::try_from(*j).unwrap_or(0);
                    *ws = w / total;
                }
            }
        } else {
            w4[0] = 1.0;
        }
        joints.push(j4);
        weights.extend_from_slice(&w4);
    }
    (joints, weights)
}
