//! Nodes: each scene node as a TRS node, or a chain where it is sheared ([`super::decompose`]),
//! and the visibility children ([`write()`], which hands on a [`NodeMap`]); once joints and
//! meshes have their nodes, the parent links and scene roots ([`link`]).

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf_json as json;

use super::decompose::{self, NodeTransform, Trs};
use super::document::Writer;
use super::index;
use super::meshes::MeshMap;
use super::skins::{Joints, joint_pivot};
use crate::scene::{Channel, Scene};

/// Where the scene's nodes landed, for the parts that hang meshes on them and animate them.
#[derive(Default)]
pub(super) struct NodeMap {
    /// Per scene node: its glTF nodes.
    pub(super) placed: Vec<Placed>,
    /// Per scene node: how it was written (one TRS node or a chain).
    pub(super) forms: Vec<NodeTransform>,
    /// Per node with visibility keys: the child that carries its mesh.
    pub(super) visibility: HashMap<usize, u32>,
}

/// Where one scene node landed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placed {
    /// Carries the translation; children of the scene node's parent link here.
    pub(super) outer: u32,
    /// The node a rotation channel rotates.
    pub(super) rotated: u32,
    /// Children and meshes hang here.
    pub(super) inner: u32,
}

/// A glTF node named `name` with the transform `trs` (identity parts left out); its index.
pub(super) fn push_node(out: &mut Writer, name: String, trs: Trs) -> u32 {
    let node = json::Node {
        name: Some(name),
        translation: (trs.translation != Vec3::ZERO).then(|| trs.translation.to_array()),
        rotation: (trs.rotation != Quat::IDENTITY)
            .then(|| json::scene::UnitQuaternion(trs.rotation.normalize().to_array())),
        scale: (trs.scale != Vec3::ONE).then(|| trs.scale.to_array()),
        ..Default::default()
    };
    out.root.push(node).value() as u32
}

/// Hangs glTF node `child` under `parent`.
pub(super) fn add_child(out: &mut Writer, parent: u32, child: u32) {
    if let Some(node) = out.root.nodes.get_mut(parent as usize) {
        node.children.get_or_insert_with(Vec::new).push(index(child));
    }
}

/// Every scene node as glTF nodes (unlinked: [`link`] hangs them once joints and meshes are
/// written), and a child to carry the mesh of each node a clip hides and shows.
pub(super) fn write(scene: &Scene, out: &mut Writer) -> NodeMap {
    let mut map = NodeMap::default();
    let mut rotated = vec![false; scene.nodes.len()];
    for channel in scene.clips.iter().flat_map(|c| &c.channels) {
        if let Channel::NodeRotation { node, .. }
        | Channel::NodeRotationEased { node, .. }
        | Channel::NodeFrames { node, .. } = channel
            && let Some(r) = rotated.get_mut(*node)
        {
            *r = true;
        }
    }
    for (i, node) in scene.nodes.iter().enumerate() {
        // A node that follows a joint hangs under the joint's node, which sits at its pivot.
        let local = match node.joint {
            Some((s, j)) => Mat4::from_translation(-joint_pivot(scene, s, j)) * node.local,
            None => node.local,
        };
        // A mirror under rotation keys no longer matters here: keyed poses are decomposed
        // against the chain's fixed stretch (`node_motion`), which keeps the mirror exactly.
        let transform = decompose::split(&local, rotated.get(i).copied().unwrap_or(false));
        map.forms.push(transform);
        let placed = match transform {
            NodeTransform::Single(trs) => {
                let n = push_node(out, node.name.clone(), trs);
                Placed { outer: n, rotated: n, inner: n }
            }
            NodeTransform::Chain { outer, middle, inner } => {
                let o = push_node(out, node.name.clone(), outer);
                let m = push_node(out, format!("{} (stretch)", node.name), middle);
                let r = push_node(out, format!("{} (orientation)", node.name), inner);
                add_child(out, o, m);
                add_child(out, m, r);
                Placed { outer: o, rotated: r, inner: r }
            }
        };
        map.placed.push(placed);
    }
    for channel in scene.clips.iter().flat_map(|c| &c.channels) {
        if let Channel::NodeVisibility { node, .. } = channel
            && !map.visibility.contains_key(node)
            && let Some(placed) = map.placed.get(*node).copied()
        {
            let name = scene.nodes.get(*node).map(|n| n.name.clone()).unwrap_or_default();
            let v = push_node(out, format!("{name} (visibility)"), Trs::IDENTITY);
            add_child(out, placed.inner, v);
            map.visibility.insert(*node, v);
        }
    }
    map
}

/// Parent links of the scene's nodes (nodes that follow a joint hang under its node), and the
/// scene's roots: top nodes, skeleton roots and the nodes of loose meshes.
pub(super) fn link(scene: &Scene, nodes: &NodeMap, joints: &Joints, meshes: &MeshMap, out: &mut Writer) {
    let mut roots = Vec::new();
    for (i, node) in scene.nodes.iter().enumerate() {
        let Some(placed) = nodes.placed.get(i).copied() else { continue };
        let joint_parent = node.joint.and_then(|(s, j)| joints.nodes.get(s).and_then(|nodes| nodes.get(j)).copied());
        let parent = node.parent.and_then(|p| nodes.placed.get(p)).map(|p| p.inner);
        match joint_parent.or(parent) {
            Some(p) => add_child(out, p, placed.outer),
            None => roots.push(placed.outer),
        }
    }
    roots.extend(joints.roots.iter().copied());
    roots.extend(meshes.loose.iter().copied());
    out.root.scenes.push(json::Scene {
        extensions: None,
        extras: None,
        name: None,
        nodes: roots.into_iter().map(index).collect(),
    });
    out.root.scene = Some(index(0));
}

/// A TRS for a matrix known to be one (joint poses); shear, if any, is dropped.
pub(super) fn to_trs(m: &Mat4) -> Trs {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    if scale.is_finite() && rotation.is_finite() && translation.is_finite() {
        Trs { translation, rotation: rotation.normalize(), scale }
    } else {
        Trs::IDENTITY
    }
}
