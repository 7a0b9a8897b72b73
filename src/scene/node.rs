//! The node tree: [`Node`]s with their local matrices and kinds, and the [`FaceAnchor`] that
//! pins a node to a face of its parent's mesh.

use glam::{Mat4, Vec3};
use serde::Serialize;

use super::RawField;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A node that carries a mesh.
    Mesh,
    /// A transform-only node (TPW dummies).
    Transform,
    /// A skeleton joint.
    Bone,
    /// An attachment point (MDR tags, M2 attachments) that follows a bone.
    Tag,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Transform relative to the parent (column-vector convention, see the module doc).
    pub local: Mat4,
    pub mesh: Option<usize>,
    /// For tags, attachments and bones: the (skeleton, joint) this node follows. When the pose
    /// has joint matrices, the node's world matrix is `joint_matrix * local` (its parent is
    /// ignored), so `local` is the offset from the joint.
    pub joint: Option<(usize, usize)>,
    /// A point on a face of the parent's mesh that this node rides while that mesh's vertices
    /// move. Boxed: few nodes have one, and every node would carry its size.
    pub anchor: Option<Box<FaceAnchor>>,
    pub raw: Vec<RawField>,
}

/// A node pinned to one face of its parent's mesh while an animation moves that mesh's
/// vertices (TPW's face anchors, engine notes §4): the node's local translation becomes
/// `lerp(lerp(c0, c1, u), c2, v) + normal · offset`, in the space of the mesh's node. At rest,
/// and in clips that leave the mesh's vertices alone, the node keeps its own matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceAnchor {
    pub mesh: usize,
    /// The face's corners in the order the file stores them, as indices into the mesh's
    /// `source_positions`.
    pub corners: [u32; 3],
    /// From corner 0 towards corner 1.
    pub u: f32,
    /// From that point towards corner 2.
    pub v: f32,
    /// Distance along `normal`.
    pub offset: f32,
    /// The face's normal as the file stores it; moving the vertices does not change it.
    pub normal: Vec3,
}

impl FaceAnchor {
    /// The anchored point, with the mesh's source vertices at `positions`; `None` when a
    /// corner is not among them.
    pub fn point_on(&self, positions: &[Vec3]) -> Option<Vec3> {
        let [c0, c1, c2] = self.corners.map(|c| positions.get(c as usize).copied());
        Some(c0?.lerp(c1?, self.u).lerp(c2?, self.v) + self.normal * self.offset)
    }
}

impl Node {
    pub fn new(name: impl Into<String>, kind: NodeKind, local: Mat4) -> Self {
        Self {
            name: name.into(),
            kind,
            parent: None,
            children: Vec::new(),
            local,
            mesh: None,
            joint: None,
            anchor: None,
            raw: Vec::new(),
        }
    }
}
