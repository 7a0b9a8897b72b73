//! Geometry: one scene mesh per skin submesh (corners renumbered per mesh, positions and
//! normals in scene axes, the second UV set where a unit samples it) and each vertex's bone
//! influences, with a rigid fast path for models whose vertices follow one bone each.

use glam::{Mat4, Vec2, Vec3};

use super::materials::{second_coord_set, unit_coord_set};
use crate::formats::m2::axes;
use crate::formats::m2::layout::*;
use crate::formats::m2::model::{M2Model, Vertex};
use crate::formats::m2::skin::Skin;
use crate::scene::{Aabb, Influence, Mesh, Node, NodeKind, RawField, Scene, SkinWeights, Submesh};

/// One mesh per skin submesh; returns the mesh of each submesh (`None` when dropped).
pub(super) fn build_meshes(model: &M2Model, skin: &Skin, scene: &mut Scene) -> Vec<Option<usize>> {
    let bone_count = model.bones.len();
    // Skin vertex → [the mesh that numbered it last, its local number there]: one lookup per
    // corner (allocated once for all meshes).
    let mut numbered = vec![[u32::MAX, 0u32]; skin.lookup.len()];
    let mut out = Vec::with_capacity(skin.submeshes.len());
    let mut bad_vertices = 0usize;
    // The second UV set is kept only where a unit samples it (most models have none).
    let second_set_sampled = skin.units.iter().any(|u| {
        let second = (u.texture_count >= 2).then(|| second_coord_set(model, u)).flatten();
        unit_coord_set(model, u) == Some(1) || second == Some(1)
    });
    for (si, sub) in skin.submeshes.iter().enumerate() {
        let start = sub.index_start as usize;
        let mut count = usize::from(sub.index_count);
        if count % 3 != 0 {
            scene.warnings.push(format!("submesh {si}: index count {count} is not a multiple of 3; tail dropped"));
            count -= count % 3;
        }
        let Some(indices) = start.checked_add(count).and_then(|end| skin.indices.get(start..end)) else {
            scene.warnings.push(format!(
                "submesh {si}: indices {start}..{} lie outside the skin's {} indices; submesh dropped",
                start.saturating_add(count),
                skin.indices.len()
            ));
            out.push(None);
            continue;
        };
        // Sized from the submesh's vertex count, bounded by its corners (checked above).
        let expected = usize::from(sub.vertex_count).min(count);
        // First the corners: each skin vertex gets a local number on first use, and `used`
        // lists the model vertex of each local one. Then one short pass per attribute: a loop
        // doing all of it at once kept too many vectors live and spilled them to the stack.
        let mut used: Vec<&Vertex> = Vec::with_capacity(expected);
        let mut triangles = Vec::with_capacity(count / 3);
        let stamp_value = si as u32;
        'tri: for tri in indices.chunks_exact(3) {
            let mut corners = [0u32; 3];
            for (corner, &skin_vertex) in corners.iter_mut().zip(tri) {
                let sv = usize::from(skin_vertex);
                let vertex = skin.lookup.get(sv).and_then(|&v| model.vertices.get(usize::from(v)));
                let (Some(vertex), Some([stamp, local])) = (vertex, numbered.get_mut(sv)) else {
                    bad_vertices += 1;
                    continue 'tri;
                };
                if *stamp != stamp_value {
                    *stamp = stamp_value;
                    *local = used.len() as u32;
                    used.push(vertex);
                }
                *corner = *local;
            }
            triangles.push(corners);
        }
        let source_positions: Vec<Vec3> = used.iter().map(|v| axes::position(v.position)).collect();
        let mut normals: Vec<Vec3> = used.iter().map(|v| axes::position(v.normal)).collect();
        normalize_or_up(&mut normals);
        let uvs: Vec<Vec2> = used.iter().map(|v| Vec2::from_array(v.uv)).collect();
        let uvs1: Vec<Vec2> =
            if second_set_sampled { used.iter().map(|v| Vec2::from_array(v.uv1)).collect() } else { Vec::new() };
        let (ranges, influences) = if bone_count > 0 { skin_influences(&used, bone_count) } else { Default::default() };
        let n = source_positions.len() as u32;
        let mesh_index = scene.meshes.len();
        let node_index = scene.nodes.len();
        let name = format!("submesh {si} (id {})", sub.id);
        let mut node = Node::new(name.clone(), NodeKind::Mesh, Mat4::IDENTITY);
        node.parent = Some(0);
        node.mesh = Some(mesh_index);
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(node_index);
        }
        let triangle_count = triangles.len() as u32;
        scene.meshes.push(Mesh {
            name,
            node: Some(node_index),
            bounds: Aabb::from_points(&source_positions),
            vertex_source: (0..n).collect(),
            source_positions,
            uvs,
            uvs1,
            normals,
            triangles,
            submeshes: vec![Submesh {
                material: None,
                first_triangle: 0,
                triangle_count,
                vertex_start: 0,
                vertex_end: n.saturating_sub(1),
            }],
            skin: (bone_count > 0).then_some(SkinWeights { skeleton: 0, ranges, influences }),
            raw: vec![
                RawField::new("submesh id", sub.offset, u64::from(sub.id)),
                RawField::new("level", sub.offset + SUB_LEVEL, u64::from(sub.level)),
                RawField::new("vertex start", sub.offset + SUB_VERTEX_START, u64::from(sub.vertex_start)),
                RawField::new("vertex count", sub.offset + SUB_VERTEX_COUNT, u64::from(sub.vertex_count)),
                RawField::new("index start", sub.offset + SUB_INDEX_START, u64::from(sub.index_start)),
                RawField::new("bone count", sub.offset + SUB_BONE_COUNT, u64::from(sub.bone_count)),
            ],
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        out.push(Some(mesh_index));
    }
    if bad_vertices > 0 {
        scene.warnings.push(format!(
            "{bad_vertices} triangle corners named a skin vertex or model vertex out of range; their triangles were dropped"
        ));
    }
    out
}

/// Scales each vector to unit length, or makes it `Vec3::Y` where it has none, with the
/// same arithmetic as `try_normalize().unwrap_or(Vec3::Y)`. The square roots and divisions
/// of eight vectors run together, which vectorises; one at a time, each waited on the last.
fn normalize_or_up(vectors: &mut [Vec3]) {
    fn scale(vectors: &mut [Vec3], reciprocals: &mut [f32]) {
        for (r, v) in reciprocals.iter_mut().zip(vectors.iter()) {
            *r = 1.0 / v.length_squared().sqrt();
        }
        for (v, &r) in vectors.iter_mut().zip(reciprocals.iter()) {
            *v = if r.is_finite() && r > 0.0 { *v * r } else { Vec3::Y };
        }
    }
    let (groups, rest) = vectors.as_chunks_mut::<8>();
    for group in groups {
        scale(group, &mut [0.0; 8]);
    }
    scale(rest, &mut [0.0; 8]);
}

/// The bone influences of each vertex in `used` (of a model with `bone_count` > 0 bones):
/// weights on existing bones, scaled to sum to 1. A vertex with no usable weight follows the
/// first bone rather than collapse to the origin.
fn skin_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    if used.iter().all(|vertex| usable_weights(vertex, bone_count) <= 1) {
        rigid_influences(used, bone_count)
    } else {
        weighted_influences(used, bone_count)
    }
}

/// How many of a vertex's weights are above zero on an existing bone.
fn usable_weights(vertex: &Vertex, bone_count: usize) -> u32 {
    vertex.weights.iter().zip(vertex.bones).map(|(&w, b)| u32::from(w > 0 && usize::from(b) < bone_count)).sum()
}

/// [`skin_influences`] where no vertex has more than one usable weight (above zero, on an
/// existing bone), as in rigid models (doodads, items: most of WoW's files): one influence per
/// vertex, of weight exactly 1 (the general path's w / w), collected in one pass with no
/// capacity check per influence. The tank decoded in 34.4 µs against 37.2 (`m2_timing`,
/// medians).
fn rigid_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    let influences = used
        .iter()
        .map(|vertex| {
            let joint = vertex
                .weights
                .iter()
                .zip(vertex.bones)
                .find(|&(&w, b)| w > 0 && usize::from(b) < bone_count)
                .map_or(0, |(_, b)| u32::from(b));
            Influence {
                joint,
                weight: 1.0,
                offset: axes::position(vertex.position),
                normal: axes::position(vertex.normal),
            }
        })
        .collect();
    ((0..used.len() as u32).map(|i| (i, 1)).collect(), influences)
}

/// [`skin_influences`] for any vertices. Weights are divided by the sum of the usable ones
/// (above zero, on a bone that exists), not by 255: shipped files sum to 255, where the two
/// agree, and a weight on a missing bone then does not pull the vertex towards the origin.
// Not inlined into `build`: in that large body its loop kept the vectors' lengths on the stack.
#[inline(never)]
fn weighted_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    let mut ranges = Vec::with_capacity(used.len());
    let mut influences = Vec::with_capacity(used.len() * 2);
    for vertex in used {
        let first = influences.len() as u32;
        let offset = axes::position(vertex.position);
        let normal = axes::position(vertex.normal);
        let on_a_bone = vertex.bones.map(|b| usize::from(b) < bone_count);
        let total: u32 = vertex.weights.iter().zip(on_a_bone).map(|(&w, on)| u32::from(w) * u32::from(on)).sum();
        if total > 0 {
            let total = total as f32;
            for ((&w, b), on) in vertex.weights.iter().zip(vertex.bones).zip(on_a_bone) {
                if w > 0 && on {
                    influences.push(Influence { joint: u32::from(b), weight: f32::from(w) / total, offset, normal });
                }
            }
        }
        if influences.len() as u32 == first {
            influences.push(Influence { joint: 0, weight: 1.0, offset, normal });
        }
        ranges.push((first, influences.len() as u32 - first));
    }
    (ranges, influences)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batched normalisation gives `try_normalize().unwrap_or(Vec3::Y)` to the bit, at
    /// every length (whole groups of eight and the rest) and on zero, tiny, huge, infinite and
    /// NaN vectors.
    #[test]
    fn batched_normalisation_matches_try_normalize() {
        let odd = [0.0, -0.0, 1e-30, -1e-45, 3.5, -2.25, 1e20, 3e38, f32::INFINITY, f32::NAN, 0.6, -0.8];
        let vectors: Vec<Vec3> = (0..odd.len() * 3)
            .map(|i| Vec3::new(odd[i % odd.len()], odd[(i * 5 + 1) % odd.len()], odd[(i * 7 + 2) % odd.len()]))
            .collect();
        for length in 0..=vectors.len() {
            let mut batched = vectors[..length].to_vec();
            normalize_or_up(&mut batched);
            for (got, v) in batched.iter().zip(&vectors[..length]) {
                let want = v.try_normalize().unwrap_or(Vec3::Y);
                assert_eq!(got.to_array().map(f32::to_bits), want.to_array().map(f32::to_bits), "{v}");
            }
        }
    }

    #[test]
    fn influences_keep_weights_on_existing_bones_scaled_to_one_else_follow_bone_0() {
        let vertex = |weights: [u8; 4], bones: [u8; 4]| Vertex {
            position: Vec3::new(1.0, 2.0, 3.0),
            weights,
            bones,
            normal: Vec3::new(0.0, 0.0, 2.0),
            uv: [0.0; 2],
            uv1: [0.0; 2],
        };
        let split = vertex([100, 0, 50, 50], [1, 0, 2, 9]); // bone 9 does not exist
        let none_usable = vertex([0, 0, 0, 40], [0, 1, 2, 7]);
        let whole = vertex([255, 0, 0, 0], [2, 0, 0, 0]);
        let (ranges, influences) = skin_influences(&[&split, &none_usable, &whole], 3);
        assert_eq!(ranges, [(0, 2), (2, 1), (3, 1)]);
        let joints_and_weights: Vec<(u32, f32)> = influences.iter().map(|i| (i.joint, i.weight)).collect();
        assert_eq!(joints_and_weights, [(1, 100.0 / 150.0), (2, 50.0 / 150.0), (0, 1.0), (2, 1.0)]);
        // Scene axes: (x, y, z) → (x, z, −y); every influence carries its vertex's bind values.
        assert!(
            influences.iter().all(|i| i.offset == Vec3::new(1.0, 3.0, -2.0) && i.normal == Vec3::new(0.0, 2.0, 0.0))
        );
    }

    /// The rigid path gives exactly what the general one gives, wherever each vertex's one
    /// usable weight sits (any slot, beside zero weights and weights on missing bones), and for
    /// vertices with none; `skin_influences` takes it only when no vertex has two.
    #[test]
    fn rigid_influences_match_the_weighted_ones() {
        let mut vertices = Vec::new();
        for slot in 0..4 {
            for weight in [1u8, 77, 255] {
                let mut weights = [0u8, 0, 0, 0];
                weights[slot] = weight;
                // Weights on the missing bone 9 and zero weights around the usable one.
                weights[(slot + 1) % 4] = 30;
                let mut bones = [9u8, 9, 9, 9];
                bones[slot] = slot as u8 + 1;
                vertices.push(Vertex {
                    position: Vec3::new(slot as f32, 2.0, -3.5),
                    weights,
                    bones,
                    normal: Vec3::new(0.25, f32::from(weight), 1.0),
                    uv: [0.0; 2],
                    uv1: [0.0; 2],
                });
            }
        }
        vertices.push(Vertex {
            position: Vec3::ONE,
            weights: [0, 0, 0, 0],
            bones: [1, 2, 3, 4],
            normal: Vec3::X,
            uv: [0.0; 2],
            uv1: [0.0; 2],
        });
        let used: Vec<&Vertex> = vertices.iter().collect();
        let (rigid_ranges, rigid) = rigid_influences(&used, 5);
        let (ranges, weighted) = weighted_influences(&used, 5);
        assert_eq!(rigid_ranges, ranges);
        assert_eq!(rigid, weighted);
        assert_eq!(skin_influences(&used, 5), (ranges, weighted));
        // One vertex with two usable weights sends the whole mesh down the general path.
        let mut two = vertices[0];
        two.weights = [128, 127, 0, 0];
        two.bones = [1, 2, 0, 0];
        let with_two: Vec<&Vertex> = used.iter().copied().chain([&two]).collect();
        let (ranges, influences) = skin_influences(&with_two, 5);
        assert_eq!(ranges.last(), Some(&(used.len() as u32, 2)));
        assert_eq!(influences.len(), used.len() + 2);
    }
}
