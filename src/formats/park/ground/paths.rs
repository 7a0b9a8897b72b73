//! Path tiles (map tile set 1): a quad on each path cell, its corners at the ground's heights
//! lifted a little (so the ground under it never shows through), its art the theme's `.tct`
//! PathTex row for the tile index from `terrain.wad/pathtex/`, turned by the tile's angle (a
//! quarter turn of the corner ring per 90°, see `cells`). One submesh per tile index.

use std::collections::BTreeMap;
use std::path::Path;

use glam::{Mat4, Vec3};

use super::cells::path_corner_uvs;
use super::tct::{PATH_SECTION, TextureTable, wct_name};
use super::terrain::ImageLookup;
use super::{CELL_SIZE, Heights};
use crate::formats::park::PathCell;
use crate::scene::{Aabb, Material, Mesh, Node, NodeKind, Scene, Submesh};

/// How far a path lies above the ground, in world units.
pub const PATH_LIFT: f32 = 0.05;

/// Where the path art comes from: the table and the `pathtex/` folder, when the install has them.
pub(super) struct PathArt<'a> {
    pub table: Option<&'a TextureTable>,
    pub folder: Option<&'a Path>,
}

/// Adds one `paths` node and mesh holding every path cell's tile. Nothing is added for no paths.
pub(super) fn add_paths(
    scene: &mut Scene,
    paths: &[PathCell],
    heights: &Heights,
    art: &PathArt,
    warnings: &mut Vec<String>,
) {
    if paths.is_empty() {
        return;
    }
    let mut by_index: BTreeMap<u32, Vec<&PathCell>> = BTreeMap::new();
    for path in paths {
        by_index.entry(path.index).or_default().push(path);
    }
    let mut images = ImageLookup::default();
    let (mut positions, mut uvs, mut triangles, mut submeshes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut missing_rows = Vec::new();
    for (&index, cells) in &by_index {
        let row = art.table.and_then(|t| t.row(PATH_SECTION, index));
        if art.table.is_some() && row.is_none() {
            missing_rows.push(index);
        }
        let mut material = Material::new(match row {
            Some(name) => format!("path {index} {name}"),
            None => format!("path {index}"),
        });
        if let (Some(name), Some(folder)) = (row, art.folder) {
            let file = wct_name(name);
            material.texture = Some(file.clone());
            material.image = Some(images.image(scene, &file, folder, warnings));
        }
        scene.materials.push(material);
        let material = scene.materials.len() - 1;
        let (first_triangle, vertex_start) = (triangles.len() as u32, positions.len() as u32);
        for cell in cells {
            let base = positions.len() as u32;
            let [x, y] = cell.cell.map(u32::from);
            let grid = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)];
            for (&(gx, gy), uv) in grid.iter().zip(path_corner_uvs(cell.angle)) {
                let h = heights.vertex(gx, gy) + PATH_LIFT;
                positions.push(Vec3::new(gx as f32 * CELL_SIZE, h, gy as f32 * CELL_SIZE));
                uvs.push(uv);
            }
            triangles.push([base, base + 2, base + 1]);
            triangles.push([base, base + 3, base + 2]);
        }
        submeshes.push(Submesh {
            material: Some(material),
            first_triangle,
            triangle_count: triangles.len() as u32 - first_triangle,
            vertex_start,
            vertex_end: (positions.len() as u32).saturating_sub(1),
        });
    }
    if !missing_rows.is_empty() {
        warnings
            .push(format!("paths: tile indices {missing_rows:?} have no PathTex row in the .tct: drawn untextured"));
    }
    let node_index = scene.nodes.len();
    let mut node = Node::new("paths", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(scene.meshes.len());
    scene.nodes.push(node);
    scene.meshes.push(flat_mesh("paths", node_index, positions, uvs, triangles, submeshes));
}

/// A mesh whose render vertices are its source positions, lit from above.
pub(super) fn flat_mesh(
    name: &str,
    node: usize,
    positions: Vec<Vec3>,
    uvs: Vec<glam::Vec2>,
    triangles: Vec<[u32; 3]>,
    submeshes: Vec<Submesh>,
) -> Mesh {
    let normals = crate::scene::compute_normals(&positions, &triangles);
    Mesh {
        name: name.into(),
        node: Some(node),
        vertex_source: (0..positions.len() as u32).collect(),
        bounds: Aabb::from_points(&positions),
        source_positions: positions,
        uvs,
        normals,
        triangles,
        submeshes,
        ..Mesh::default()
    }
}
