//! The node records of a TPW mesh file as specs: textures and materials, mesh and
//! transform-only nodes, paths, node ids with face anchors, the heightfield; and the sibling and
//! child links the writer derives from each node's parent.

use glam::Vec3;

use super::matrix::IDENTITY;
use crate::formats::tpw::layout::*;

/// Texture names live in 20-byte NUL-padded fields, so at most 19 characters keep a terminator.
pub const MAX_TEXTURE_NAME: usize = TEXTURE_NAME_LEN as usize - 1;

/// One frame-table entry: a texture name and the flags word at the entry's first 4 bytes
/// (the word materials read through their FrameOffset; 0x01 is set on every game material,
/// 0x02 marks see-through).
#[derive(Debug, Clone, PartialEq)]
pub struct TextureSpec {
    pub name: String,
    pub flags: u32,
}

impl TextureSpec {
    pub fn new(name: impl Into<String>, flags: u32) -> Self {
        Self { name: name.into(), flags }
    }

    /// Flags 0x01, as on every material in the game.
    pub fn opaque(name: impl Into<String>) -> Self {
        Self::new(name, 0x01)
    }

    /// Flags 0x01 | 0x02: drawn see-through.
    pub fn see_through(name: impl Into<String>) -> Self {
        Self::new(name, 0x01 | SEE_THROUGH_FLAG)
    }
}

impl Default for TextureSpec {
    fn default() -> Self {
        Self::opaque("")
    }
}

/// A material: its texture (index into [`MeshFile::textures`](super::MeshFile::textures);
/// `None` writes FrameOffset 0, "no texture") and the inclusive range of final vertices it covers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaterialSpec {
    pub texture: Option<usize>,
    pub start: u16,
    pub end: u16,
}

/// One mesh node (a 160-byte record at header 0x70).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshSpec {
    pub name: String,
    /// Node index: meshes are nodes `0..meshes.len()`, dummies follow in order.
    pub parent: Option<usize>,
    /// Row-major, row-vector convention (translation at elements 12, 13, 14).
    pub matrix: [f32; 16],
    /// Source vertices, written in batches of 4, axis-major, count padded to a multiple of 4.
    pub vertices: Vec<[f32; 3]>,
    /// Final vertex `i` -> source vertex index; its length is the vertex order length (0x5E).
    pub vertex_order: Vec<u16>,
    /// One per final vertex, batched like the vertices but with 2 axes.
    pub uvs: Vec<[f32; 2]>,
    /// A, B, C into the final vertex list, exactly as stored: the file's winding is the reverse
    /// of counter-clockwise front faces, and the writer does not flip.
    pub faces: Vec<[u16; 3]>,
    /// The leading unknown u16 of each face; empty writes zeros.
    pub face_tags: Vec<u16>,
    pub materials: Vec<MaterialSpec>,
    /// `None` writes the vertices' own box (zeros for a mesh with none). Morph values quantise
    /// into this box, so a mesh that morphs beyond its rest shape states a bigger one.
    pub bbox: Option<([f32; 3], [f32; 3])>,
    /// The record's flags word. Bit 0x200 is never written on a mesh record: it marks a
    /// transform-only node, and the engine skips the materials of a node that carries it.
    pub flags: u32,
    /// The normals table at 0x64, one entry per final vertex (the lighter's reading); `None`
    /// writes pointer 0 (no stored normals).
    pub normals: Option<Vec<[f32; 3]>>,
}

impl Default for MeshSpec {
    fn default() -> Self {
        Self {
            name: String::new(),
            parent: None,
            matrix: IDENTITY,
            vertices: Vec::new(),
            vertex_order: Vec::new(),
            uvs: Vec::new(),
            faces: Vec::new(),
            face_tags: Vec::new(),
            materials: Vec::new(),
            bbox: None,
            flags: 0,
            normals: None,
        }
    }
}

impl MeshSpec {
    /// The box written at 0x78/0x84: the given one, or the vertices' own.
    pub fn written_bbox(&self) -> ([f32; 3], [f32; 3]) {
        if let Some(bbox) = self.bbox {
            return bbox;
        }
        let mut points = self.vertices.iter().map(|v| Vec3::from_array(*v));
        let Some(first) = points.next() else { return ([0.0; 3], [0.0; 3]) };
        let (min, max) = points.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
        (min.to_array(), max.to_array())
    }
}

/// A transform-only node: an 88-byte record at header 0x74. The writer always sets bit 0x200.
#[derive(Debug, Clone, PartialEq)]
pub struct DummySpec {
    pub name: String,
    pub parent: Option<usize>,
    pub matrix: [f32; 16],
    pub flags: u32,
    /// Makes this a path node: sets flag 0x8 and writes the path index at +0x52.
    pub path: Option<u16>,
}

impl Default for DummySpec {
    fn default() -> Self {
        Self { name: String::new(), parent: None, matrix: IDENTITY, flags: TRANSFORM_ONLY_FLAG, path: None }
    }
}

/// One path-table record (header 0xAC): type bits (0x1 closed, 0x2 Bezier, 0x8 straight) and
/// points in the path node's space.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathSpec {
    pub kind: u32,
    pub points: Vec<[f32; 3]>,
}

/// A heightfield block: `across × down` cells of `cell` size, and `(across + 1) × (down + 1)`
/// heights row by row, and the per-cell records `[flags, texture index]` (zeros where `cells`
/// is shorter than the grid).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeightfieldSpec {
    pub cell: [f32; 2],
    pub across: u32,
    pub down: u32,
    /// The authored height range (+0x20, +0x24).
    pub low: f32,
    pub high: f32,
    pub heights: Vec<f32>,
    /// Cell records by `y · across + x`: `[flags, texture index]` (u16 each).
    pub cells: Vec<[u16; 2]>,
}

/// One 20-byte node id record (notes §4): flag word, id, and an optional face anchor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeIdSpec {
    pub flags: u32,
    pub id: u32,
    pub anchor: Option<FaceAnchorSpec>,
}

/// A 16-byte face anchor: a face of the parent's mesh, `u` and `v` across it, and the offset
/// along the face's stored normal.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FaceAnchorSpec {
    pub face: u16,
    pub u: f32,
    pub v: f32,
    pub offset: f32,
}

/// Per node: its next sibling and first child, both in index order. Top-level nodes are chained
/// as siblings of each other.
pub(super) fn derive_links(parents: &[Option<usize>]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let count = parents.len();
    let mut sibling = vec![None; count];
    let mut first_child = vec![None; count];
    let mut last_child: Vec<Option<usize>> = vec![None; count];
    let mut last_root = None;
    for (index, parent) in parents.iter().enumerate() {
        let last = match parent {
            Some(p) => last_child.get_mut(*p),
            None => Some(&mut last_root),
        };
        let Some(last) = last else { continue };
        match last.replace(index) {
            Some(previous) => {
                if let Some(s) = sibling.get_mut(previous) {
                    *s = Some(index);
                }
            }
            None => {
                if let Some(c) = parent.and_then(|p| first_child.get_mut(p)) {
                    *c = Some(index);
                }
            }
        }
    }
    (sibling, first_child)
}

/// Checks that following parents from every node ends at a root within `parents.len()` steps.
pub(super) fn check_parents(parents: &[Option<usize>]) -> Result<(), String> {
    let count = parents.len();
    for (index, parent) in parents.iter().enumerate() {
        if let Some(p) = parent
            && *p >= count
        {
            return Err(format!("node {index}: parent {p} is not one of the {count} nodes"));
        }
        let mut cursor = *parent;
        let mut steps = 0;
        while let Some(p) = cursor {
            steps += 1;
            if p == index || steps > count {
                return Err(format!("node {index}: parent links form a cycle"));
            }
            cursor = parents.get(p).copied().flatten();
        }
    }
    Ok(())
}
