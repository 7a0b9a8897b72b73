//! An encoder for Theme Park World `.md2` files, written from the spec (`tpw-md2.txt`), not from
//! the decoder. No game files are public, so tests, benchmarks and the built-in demo write their
//! own: [`MeshFile`] for static meshes with a node tree, [`AnimFile`] for animation files.
//!
//! What the writer guarantees is structure: every count matches its table, every stored offset
//! points at what the spec says it points at, every table starts on a 4-byte boundary, the track
//! table ends exactly where the animation block starts (unless asked to break that), and every
//! channel bit it sets owns a filled slot. [`MeshFile::validate`] and [`AnimFile::validate`]
//! state the structural rules a spec must follow; `to_bytes` checks them with `debug_assert!`.
//! Values are the caller's: a non-unit quaternion or descending frames are written as given, so
//! decoder tests can build files a reader must reject.
//!
//! Layout choices the spec leaves open (none of which a reader may rely on):
//! - Mesh files: header, frame table (entries then names), frame data table, mesh table, node
//!   table, node names, then per mesh its vertices, UVs, vertex order, faces and materials.
//! - Animation files: header, track table, animation block, then per track its channel data.
//! - A pointer to an empty table is 0; header 0x74 is 0 when there are no transform-only nodes.
//! - Top-level nodes are chained through their sibling links, in index order, like children.
//! - Fields the spec calls unknown are written as 0.
//!
//! - [`nodes`]: the node records (meshes, transform-only nodes, paths, ids, heightfield) and
//!   the tree links derived from their parents.
//! - [`mesh`]: [`MeshFile`], a whole mesh file.
//! - [`anim`]: [`AnimFile`], a whole animation file, and its tracks and channels.
//! - [`matrix`]: row-major matrix and quaternion helpers in the file's convention.
//! - `buf`: the growing, 4-byte-aligned byte buffer both files are written into.

pub mod anim;
mod buf;
pub mod matrix;
pub mod mesh;
pub mod nodes;

pub use anim::*;
pub use matrix::*;
pub use mesh::*;
pub use nodes::*;

/// Byte probes and a small mesh shared by the writer's unit tests.
#[cfg(test)]
mod test_support {
    use super::*;
    use crate::formats::tpw::layout::NO_EASING;

    pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
    }
    pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    pub(super) fn f32_at(b: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// A mesh of `n` vertices at (i, 10 + i, 20 + i) with UV (i, -i), one fan of faces, one
    /// untextured material over all of it.
    pub(super) fn numbered_mesh(name: &str, n: u16) -> MeshSpec {
        MeshSpec {
            name: name.into(),
            vertices: (0..n).map(|i| [f32::from(i), 10.0 + f32::from(i), 20.0 + f32::from(i)]).collect(),
            vertex_order: (0..n).collect(),
            uvs: (0..n).map(|i| [f32::from(i), -f32::from(i)]).collect(),
            faces: (1..n.saturating_sub(1)).map(|i| [0, i + 1, i]).collect(),
            materials: vec![MaterialSpec { texture: None, start: 0, end: n - 1 }],
            ..MeshSpec::default()
        }
    }

    pub(super) fn key(frame: u16, radians: f32) -> RotationKeySpec {
        RotationKeySpec { frame, curve: NO_EASING, quat: quat_y(radians) }
    }
}
