//! Render vertices: a Quake II triangle names a vertex and a texture coordinate at each corner,
//! so the mesh's vertices are the unique (vertex, st) pairs, found here in first-use order with
//! flat chains, no hashing and no allocation per vertex.

use glam::Vec2;

use super::layout::{st_entry, triangle_indices};

/// No render vertex yet in a vertex's chain.
const NO_PAIR: u32 = u32::MAX;

/// The mesh's render vertices and its triangles over them.
pub(super) struct RenderVertices {
    /// Each render vertex's vertex in the frames.
    pub vertex_source: Vec<u32>,
    /// Each render vertex's texture coordinate, in skin sizes.
    pub uvs: Vec<Vec2>,
    /// Triangles of render vertices, counter-clockwise.
    pub triangles: Vec<[u32; 3]>,
}

/// Pairs the corners of the triangle records (indices checked with the layout) into render
/// vertices; `texel` is one over the skin's size in pixels.
#[inline]
pub(super) fn render_vertices(
    st_records: &[[u8; 4]],
    triangle_records: &[[u8; 12]],
    vertex_count: usize,
    texel: Vec2,
) -> RenderVertices {
    // Flat arrays: `first_pair[key]` starts a chain of the render vertices sharing one key, and
    // `pairs` holds each one's (vertex, st) and the next in its chain, side by side (one
    // allocation, and a chain step reads one place). The key is the more numerous of vertex and
    // st, so chains stay short: most files have more st entries than vertices (a seam
    // duplicates st), and an st entry then belongs to one vertex; some exporters share few st
    // entries among many vertices, and there a vertex has few.
    let keyed_by_st = st_records.len() >= vertex_count;
    // A pair is one word, vertex in the low half and st in the high half, so a chain compares
    // whole pairs; the key is the half at `key_shift`.
    let key_shift = if keyed_by_st { 16 } else { 0 };
    // Each chain's head holds its newest pair beside its index, so the usual case (a key with
    // one pair) is answered by one load rather than two dependent ones. No pair is NO_PAIR
    // (both halves are below 0x8000), so an empty head never matches.
    let mut first_pair = vec![[NO_PAIR, NO_PAIR]; st_records.len().max(vertex_count)];
    let corners = triangle_records.len() * 3;
    let mut pairs: Vec<[u32; 2]> = Vec::with_capacity(corners);
    let mut triangles = Vec::with_capacity(triangle_records.len());
    for (xyz, st) in triangle_records.iter().map(triangle_indices) {
        let mut corner = [0u32; 3];
        for (slot, (&v, &t)) in corner.iter_mut().zip(xyz.iter().zip(&st)) {
            let pair = u32::from(v) | u32::from(t) << 16;
            let key = (pair >> key_shift) & 0xFFFF;
            let Some(head) = first_pair.get_mut(key as usize) else { continue };
            let [head_pair, head_at] = *head;
            if head_pair == pair {
                *slot = head_at;
                continue;
            }
            let mut at = head_at;
            while let Some(&[seen, next]) = pairs.get(at as usize)
                && seen != pair
            {
                at = next;
            }
            if at == NO_PAIR {
                at = pairs.len() as u32;
                pairs.push([pair, head_at]);
                *head = [pair, at];
            }
            *slot = at;
        }
        // Stored clockwise: swap two corners for a counter-clockwise front face.
        let [a, b, c] = corner;
        triangles.push([a, c, b]);
    }
    // Each render vertex's source vertex and texture coordinate, in passes of their own.
    let vertex_source: Vec<u32> = pairs.iter().map(|&[pair, _]| pair & 0xFFFF).collect();
    let uvs: Vec<Vec2> = pairs
        .iter()
        .map(|&[pair, _]| {
            let [s, t] = st_records.get((pair >> 16) as usize).map_or([0, 0], st_entry);
            Vec2::new(f32::from(s), f32::from(t)) * texel
        })
        .collect();
    RenderVertices { vertex_source, uvs, triangles }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use crate::writers::quake2 as writer;

    /// Render vertices are exactly the unique (vertex, st) pairs, in first-use order, whether
    /// the chains are keyed by st (more st entries than vertices) or by vertex (fewer).
    #[test]
    fn render_vertices_are_the_unique_pairs_with_either_chain_key() {
        for (vertices, sts) in [(4usize, 9usize), (9, 2), (5, 5)] {
            let mut triangles = Vec::new();
            for i in 0..24usize {
                let v = [i % vertices, (i * 7 + 1) % vertices, (i * 5 + 2) % vertices].map(|x| x as i16);
                let t = [(i * 3) % sts, (i + 1) % sts, (i * 11 + 3) % sts].map(|x| x as i16);
                triangles.push((v, t));
            }
            let spec = writer::Md2Spec {
                skin_width: 64,
                skin_height: 64,
                skins: Vec::new(),
                st: (0..sts).map(|k| [k as i16, 2 * k as i16]).collect(),
                triangles: triangles.clone(),
                frames: vec![writer::FrameSpec {
                    name: "frame1".into(),
                    scale: [1.0; 3],
                    translate: [0.0; 3],
                    vertices: (0..vertices).map(|k| [k as u8, 0, 0, 0]).collect(),
                }],
            };
            let scene = decode(&spec.to_bytes()).expect("decodes");
            let mesh = &scene.meshes[0];
            let mut expected: Vec<(u32, u16)> = Vec::new();
            for (v, t) in &triangles {
                for (&v, &t) in v.iter().zip(t) {
                    if !expected.contains(&(v as u32, t as u16)) {
                        expected.push((v as u32, t as u16));
                    }
                }
            }
            assert_eq!(mesh.vertex_source, expected.iter().map(|p| p.0).collect::<Vec<_>>(), "{vertices}/{sts}");
            // The one skin covers every render vertex.
            let range = (mesh.submeshes[0].vertex_start, mesh.submeshes[0].vertex_end);
            assert_eq!(range, (0, expected.len() as u32 - 1), "{vertices}/{sts}");
            let texel = |t: u16| glam::Vec2::new(f32::from(t) / 64.0, f32::from(2 * t) / 64.0);
            assert_eq!(mesh.uvs, expected.iter().map(|p| texel(p.1)).collect::<Vec<_>>(), "{vertices}/{sts}");
            for ((tri, (v, t)), n) in mesh.triangles.iter().zip(&triangles).zip(0..) {
                // Stored clockwise, decoded counter-clockwise: corners 0, 2, 1.
                for (corner, k) in tri.iter().zip([0, 2, 1]) {
                    let at = *corner as usize;
                    assert_eq!((mesh.vertex_source[at], mesh.uvs[at]), (v[k] as u32, texel(t[k] as u16)), "tri {n}");
                }
            }
        }
    }
}
