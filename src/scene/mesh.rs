//! Meshes: source positions kept apart from render vertices, one submesh per material, skin
//! weights per source vertex, and smooth normals computed from the faces.

use glam::{Vec2, Vec3};

use super::{Aabb, Material, RawField};

/// A contiguous range of a mesh's triangles drawn with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Submesh {
    pub material: Option<usize>,
    /// Range into `Mesh::triangles`.
    pub first_triangle: u32,
    pub triangle_count: u32,
    /// The render-vertex range the material covers, as the file states it (inclusive end).
    pub vertex_start: u32,
    pub vertex_end: u32,
}

/// Skinning influences of a mesh, per source vertex: `pos = Σ weight · (bone_matrix · offset)`.
/// Influences of source vertex `v` are `influences[ranges[v].0 .. ranges[v].0 + ranges[v].1]`.
#[derive(Debug, Clone, Default)]
pub struct SkinWeights {
    pub skeleton: usize,
    pub ranges: Vec<(u32, u32)>,
    pub influences: Vec<Influence>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    pub joint: u32,
    pub weight: f32,
    /// Position in the joint's space (MDR offsets; for M2 the bind position).
    pub offset: Vec3,
    /// Normal in the joint's space.
    pub normal: Vec3,
}

#[derive(Debug, Clone, Default)]
pub struct Mesh {
    pub name: String,
    /// The node that places this mesh.
    pub node: Option<usize>,
    /// Positions as stored in the file, before any reordering; what morphs and skins address.
    pub source_positions: Vec<Vec3>,
    /// Per render vertex: index into `source_positions`.
    pub vertex_source: Vec<u32>,
    /// Per render vertex.
    pub uvs: Vec<Vec2>,
    /// A second texture coordinate set, per render vertex, for materials whose
    /// [`Material::uv_set`] is 1 (M2 vertices carry two); empty when the format has one or no
    /// material samples it.
    pub uvs1: Vec<Vec2>,
    /// Per render vertex: the rest pose's normals (the file's own, or computed smooth ones).
    pub normals: Vec<Vec3>,
    /// The rest normals light every pose, however the vertices move: they are the file's
    /// stored normals and its animation never rewrites them (TPW's 0x64 table, engine notes
    /// §7). Otherwise moved vertices get normals recomputed from their faces.
    pub keep_rest_normals: bool,
    /// Triangles over render vertices, counter-clockwise front faces.
    pub triangles: Vec<[u32; 3]>,
    pub submeshes: Vec<Submesh>,
    /// Bounds of the source positions in the mesh's own space.
    pub bounds: Aabb,
    pub skin: Option<SkinWeights>,
    pub raw: Vec<RawField>,
    /// Per-triangle raw values the format stores but nobody understands yet (TPW's leading u16).
    pub raw_triangle_tags: Vec<u16>,
}

impl Mesh {
    /// Render-vertex positions for the rest pose.
    pub fn render_positions(&self) -> Vec<Vec3> {
        expand_positions(&self.source_positions, &self.vertex_source)
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_source.len()
    }

    /// Whether `material` draws this mesh with its second UV set: it asks for set 1 and the
    /// mesh has one (a validated second set is whole). Otherwise the first set is drawn, as the
    /// renderer does.
    pub fn samples_second_uv_set(&self, material: &Material) -> bool {
        material.uv_set == 1 && !self.uvs1.is_empty()
    }
}

/// Expands source positions to render vertices; out-of-range sources become the origin
/// (decoders validate them, so this is only a guard).
pub fn expand_positions(source: &[Vec3], vertex_source: &[u32]) -> Vec<Vec3> {
    vertex_source.iter().map(|&s| source.get(s as usize).copied().unwrap_or(Vec3::ZERO)).collect()
}

/// Smooth vertex normals: each triangle's unit face normal is accumulated on its three render
/// vertices, then normalised (as the TPW spec and OpenTPW do). Degenerate triangles add
/// nothing; vertices on no triangle get +Y.
pub fn compute_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut normals = Vec::new();
    compute_normals_into(positions, triangles, &mut normals);
    normals
}

/// [`compute_normals`] into a buffer the caller keeps (the renderer, for every animated frame).
pub fn compute_normals_into(positions: &[Vec3], triangles: &[[u32; 3]], normals: &mut Vec<Vec3>) {
    normals.clear();
    normals.resize(positions.len(), Vec3::ZERO);
    for tri in triangles {
        let [a, b, c] = tri.map(|i| positions.get(i as usize).copied());
        if let (Some(a), Some(b), Some(c)) = (a, b, c) {
            let Some(face) = (b - a).cross(c - a).try_normalize() else { continue };
            for &i in tri {
                if let Some(n) = normals.get_mut(i as usize) {
                    *n += face;
                }
            }
        }
    }
    for n in normals.iter_mut() {
        *n = n.try_normalize().unwrap_or(Vec3::Y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_of_a_ccw_triangle_face_the_viewer() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let n = compute_normals(&p, &[[0, 1, 2]]);
        assert_eq!(n, vec![Vec3::Z; 3]);
    }
}
