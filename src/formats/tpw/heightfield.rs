//! The terrain heightfield (header 0x6C, engine notes §6): a grid of heights that only the
//! terrain models (the parks' and the lobby's `base.MD2`) carry, beside an empty mesh (node flag
//! 0x2) that holds no geometry of its own. The grid becomes that mesh: vertex (x, y) of the
//! `(across + 1) × (down + 1)` grid sits at `(x · cell size X, height, y · cell size Y)` in the
//! mesh's space (model space is Y-up). Opened as a plain model, the per-cell records (+0x2C) are
//! not drawn, so the ground is untextured; [`read_heightfield`] hands the grid, the cell records
//! and the frame table's texture names to the park ground (`formats::park::ground`), which draws
//! each cell with its texture.

use glam::{Vec2, Vec3};

use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use crate::scene::{Aabb, Material, RawField, Scene, Submesh, compute_normals};

/// Node flag of the empty mesh the engine draws the ground with (no depth writes).
const HEIGHTFIELD_MESH_FLAG: u32 = 0x2;

/// The raw field every filled heightfield mesh carries, by which [`heightfield_mesh`] finds it.
const CELLS_ACROSS_FIELD: &str = "heightfield cells across";

/// A heightfield as the park ground draws it: the grid, one `(flags, texture index)` record a
/// cell (`y · across + x`), and the model's frame-table texture names the index counts through.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightfield {
    pub across: u32,
    pub down: u32,
    /// Cell size X and Y (+0x10, +0x14).
    pub cell: Vec2,
    /// The two f32 at +0x08 (the grid's world origin is open; the park ground does not apply them).
    pub origin_field: [f32; 2],
    /// `(across + 1) · (down + 1)` heights, rows of across + 1.
    pub heights: Vec<f32>,
    /// Empty when the cell pointer is 0.
    pub cells: Vec<CellRecord>,
    /// Frame `i`'s texture name, `None` where it cannot be read.
    pub texture_names: Vec<Option<String>>,
    /// Oddities: a stored count that disagrees, missing cell records, unreadable names.
    pub warnings: Vec<String>,
}

/// One cell record {u16 flags; u16 texture index} (OpenTPW's `HeightfieldFile`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellRecord {
    pub flags: u16,
    pub texture: u16,
}

impl Heightfield {
    /// The height at grid vertex (x, y), `None` off the grid.
    pub fn vertex_height(&self, x: u32, y: u32) -> Option<f32> {
        if x > self.across || y > self.down {
            return None;
        }
        self.heights.get((y as usize) * (self.across as usize + 1) + x as usize).copied()
    }

    /// The record of cell (x, y), `None` off the grid or without records.
    pub fn cell(&self, x: u32, y: u32) -> Option<CellRecord> {
        if x >= self.across || y >= self.down {
            return None;
        }
        self.cells.get((y as usize) * (self.across as usize) + x as usize).copied()
    }
}

/// Reads the heightfield of a TPW mesh file's bytes with its cell records and texture names;
/// `Ok(None)` when header 0x6C is 0. A damaged grid is an error; damaged records or names only
/// warnings (the grid still stands).
pub fn read_heightfield(data: &[u8]) -> DecodeResult<Option<Heightfield>> {
    let r = Reader::new(data, super::FORMAT);
    let Some(grid) = read_grid(&r)? else { return Ok(None) };
    let mut warnings: Vec<String> = grid.mismatch.into_iter().collect();
    let header = u64::from(r.u32(HDR_HEIGHTFIELD, "heightfield pointer")?);
    let origin_field = r.f32s::<2>(header + HF_ORIGIN, "heightfield origin")?;
    let cells_at = u64::from(r.u32(header + HF_CELLS, "heightfield cells pointer")?);
    let count = u64::from(grid.across) * u64::from(grid.down);
    let cells = if cells_at == 0 {
        warnings.push("heightfield has no cell records (pointer 0); the ground is drawn untextured".into());
        Vec::new()
    } else {
        match r
            .table(cells_at, count, 4, "heightfield cells")
            .and_then(|t| r.bytes(t.offset, count * 4, "heightfield cells"))
        {
            Ok(bytes) => bytes
                .as_chunks::<4>()
                .0
                .iter()
                .map(|b| CellRecord {
                    flags: u16::from_le_bytes([b[0], b[1]]),
                    texture: u16::from_le_bytes([b[2], b[3]]),
                })
                .collect(),
            Err(e) => {
                warnings.push(format!("heightfield cell records unreadable ({e}); the ground is drawn untextured"));
                Vec::new()
            }
        }
    };
    let texture_names = match super::mesh::TextureTables::locate(&r) {
        Ok(tables) => (0..tables.frames.count).map(|i| tables.name(&r, i).ok()).collect(),
        Err(e) => {
            warnings.push(format!("frame table unreadable ({e}); no cell has a texture"));
            Vec::new()
        }
    };
    Ok(Some(Heightfield {
        across: grid.across,
        down: grid.down,
        cell: grid.cell,
        origin_field,
        heights: grid.heights,
        cells,
        texture_names,
        warnings,
    }))
}

/// The mesh of an opened terrain scene that holds the heightfield grid (see
/// `attach_heightfield`), found by the raw field it carries.
pub fn heightfield_mesh(scene: &Scene) -> Option<usize> {
    scene.meshes.iter().position(|m| m.raw.iter().any(|f| f.name == CELLS_ACROSS_FIELD))
}

/// The heightfield as read: cells across and down, cell size, and the heights row by row.
struct Grid {
    across: u32,
    down: u32,
    cell: Vec2,
    heights: Vec<f32>,
    raw: Vec<RawField>,
    /// A stored count that disagrees with the grid, for the warnings.
    mismatch: Option<String>,
}

/// Fills the empty heightfield mesh with the grid when the header points at one, and returns
/// that mesh. A block that cannot be read, or has no empty mesh to hold it, is a warning.
pub(crate) fn attach_heightfield(r: &Reader, scene: &mut Scene) -> Option<usize> {
    let mut grid = match read_grid(r) {
        Ok(None) => return None,
        Ok(Some(grid)) => grid,
        Err(e) => {
            scene.warnings.push(format!("heightfield unreadable ({e}); no ground drawn"));
            return None;
        }
    };
    let flag_of = |node: &crate::scene::Node| node.raw.first().filter(|f| f.name == "flags").map_or(0, |f| f.value);
    let empty = |mesh: usize| scene.meshes.get(mesh).is_some_and(|m| m.source_positions.is_empty());
    let holder = scene
        .nodes
        .iter()
        .filter_map(|n| n.mesh.filter(|&m| empty(m)).map(|m| (m, flag_of(n))))
        .min_by_key(|&(m, flags)| (flags & u64::from(HEIGHTFIELD_MESH_FLAG) == 0, m))
        .map(|(m, _)| m);
    scene.warnings.extend(grid.mismatch.take());
    let Some(mesh_index) = holder else {
        scene.warnings.push("heightfield present but no empty mesh holds it; no ground drawn".into());
        return None;
    };
    let material = scene.materials.len();
    scene.materials.push(Material::new("heightfield (cells not decoded)"));
    let mesh = scene.meshes.get_mut(mesh_index)?;
    let width = grid.across + 1;
    let positions: Vec<Vec3> = (0..=grid.down)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .zip(&grid.heights)
        .map(|((x, y), &h)| Vec3::new(x as f32 * grid.cell.x, h, y as f32 * grid.cell.y))
        .collect();
    // Two triangles a cell, counter-clockwise seen from above (+Y).
    let triangles: Vec<[u32; 3]> = (0..grid.down)
        .flat_map(|y| (0..grid.across).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let a = y * width + x;
            let (b, c) = (a + 1, a + width);
            [[a, c, b], [b, c, c + 1]]
        })
        .collect();
    mesh.uvs = (0..=grid.down).flat_map(|y| (0..width).map(move |x| Vec2::new(x as f32, y as f32))).collect();
    mesh.normals = compute_normals(&positions, &triangles);
    mesh.keep_rest_normals = false;
    mesh.vertex_source = (0..positions.len() as u32).collect();
    mesh.bounds = Aabb::from_points(&positions);
    mesh.source_positions = positions;
    mesh.submeshes = vec![Submesh {
        material: Some(material),
        first_triangle: 0,
        triangle_count: triangles.len() as u32,
        vertex_start: 0,
        vertex_end: mesh.vertex_source.len().saturating_sub(1) as u32,
    }];
    mesh.raw_triangle_tags = Vec::new();
    mesh.triangles = triangles;
    mesh.raw.extend(grid.raw);
    Some(mesh_index)
}

/// Reads the block at header 0x6C; `None` when the pointer is 0.
fn read_grid(r: &Reader) -> DecodeResult<Option<Grid>> {
    let block = u64::from(r.u32(HDR_HEIGHTFIELD, "heightfield pointer")?);
    if block == 0 {
        return Ok(None);
    }
    let header = r.table(block, 1, HEIGHTFIELD_HEADER_SIZE, "heightfield header")?.record(0);
    let across = r.u32(header + HF_CELLS_ACROSS, "heightfield cells across")?;
    let down = r.u32(header + HF_CELLS_DOWN, "heightfield cells down")?;
    let [cell_x, cell_y] = r.f32s::<2>(header + HF_CELL_SIZE, "heightfield cell size")?;
    // The grid's far corner must be finite too, or the scene would refuse the whole model.
    let extent = [cell_x * across as f32, cell_y * down as f32];
    if !(cell_x > 0.0 && cell_y > 0.0 && extent.iter().all(|e| e.is_finite())) {
        return Err(r.invalid("heightfield cell size", header + HF_CELL_SIZE, format!("{cell_x} x {cell_y}")));
    }
    // Render indices are u32: the vertex count must fit one.
    let vertex_count = u64::from(across)
        .checked_add(1)
        .and_then(|w| w.checked_mul(u64::from(down).checked_add(1)?))
        .filter(|&n| n <= u64::from(u32::MAX) && across > 0 && down > 0)
        .ok_or_else(|| {
            r.invalid("heightfield cells across", header + HF_CELLS_ACROSS, format!("{across} x {down} cells"))
        })?;
    let heights_at = u64::from(r.u32(header + HF_HEIGHTS, "heightfield heights pointer")?);
    if heights_at == 0 {
        return Err(r.invalid("heightfield heights pointer", header + HF_HEIGHTS, "0, though the block is present"));
    }
    // The table check bounds the count by the file's bytes before anything is allocated.
    let table = r.table(heights_at, vertex_count, 4, "heightfield heights")?;
    let bytes = r.bytes(table.offset, table.end() - table.offset, "heightfield heights")?;
    let heights: Vec<f32> = bytes.as_chunks::<4>().0.iter().map(|&b| f32::from_le_bytes(b)).collect();
    if let Some(i) = heights.iter().position(|h| !h.is_finite()) {
        return Err(r.invalid("heightfield heights", table.record(i as u64), "a height is not finite"));
    }
    let stored_vertices = u64::from(r.u16(header + HF_VERTEX_COUNT, "heightfield vertex count")?);
    let stored_cells = u64::from(r.u16(header + HF_CELL_COUNT, "heightfield cell count")?);
    let cells = u64::from(across) * u64::from(down);
    let mismatch = (stored_vertices != vertex_count || stored_cells != cells).then(|| {
        format!(
            "heightfield counts {stored_vertices} vertices and {stored_cells} cells, but {across} x {down} cells make \
             {vertex_count} and {cells}; the grid follows the cells across and down"
        )
    });
    let raw = [
        ("heightfield vertex count", HF_VERTEX_COUNT, stored_vertices),
        ("heightfield cell count", HF_CELL_COUNT, stored_cells),
        (CELLS_ACROSS_FIELD, HF_CELLS_ACROSS, u64::from(across)),
        ("heightfield cells down", HF_CELLS_DOWN, u64::from(down)),
        ("heightfield heights pointer", HF_HEIGHTS, heights_at),
        ("heightfield cells pointer", HF_CELLS, u64::from(r.u32(header + HF_CELLS, "cells pointer")?)),
    ]
    .map(|(name, at, value)| RawField::new(name, header + at, value))
    .to_vec();
    Ok(Some(Grid { across, down, cell: Vec2::new(cell_x, cell_y), heights, raw, mismatch }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writers::tpw::{HeightfieldSpec, MeshFile, MeshSpec, TextureSpec};

    fn terrain(cells: Vec<[u16; 2]>) -> Vec<u8> {
        MeshFile {
            textures: vec![TextureSpec::opaque("zero.tga"), TextureSpec::opaque("grass.tga")],
            meshes: vec![MeshSpec { name: "heightfield".into(), flags: 0x2, ..MeshSpec::default() }],
            heightfield: Some(HeightfieldSpec {
                cell: [10.0, 10.0],
                across: 2,
                down: 1,
                low: 0.0,
                high: 5.0,
                heights: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
                cells,
            }),
            ..MeshFile::default()
        }
        .to_bytes()
    }

    #[test]
    fn cell_records_and_names_read_beside_the_grid() {
        let field = read_heightfield(&terrain(vec![[0x48, 1], [0x1, 0]])).unwrap().unwrap();
        assert_eq!((field.across, field.down), (2, 1));
        assert_eq!(field.cell(0, 0), Some(CellRecord { flags: 0x48, texture: 1 }));
        assert_eq!(field.cell(1, 0), Some(CellRecord { flags: 0x1, texture: 0 }));
        assert_eq!(field.cell(2, 0), None);
        assert_eq!(field.vertex_height(2, 1), Some(5.0));
        assert_eq!(field.vertex_height(3, 0), None);
        assert_eq!(field.texture_names, vec![Some("zero.tga".to_string()), Some("grass.tga".to_string())]);
        assert!(field.warnings.is_empty(), "{:?}", field.warnings);
        // The plain model open still fills the empty mesh with the grid, found again by its field.
        let scene = crate::formats::tpw::decode(&terrain(Vec::new())).unwrap();
        let mesh = heightfield_mesh(&scene).expect("the filled mesh");
        assert_eq!(scene.meshes[mesh].source_positions.len(), 6);
    }

    #[test]
    fn records_past_the_end_are_a_warning_not_an_error() {
        let mut bytes = terrain(vec![[0, 1], [0, 1]]);
        let header = u32::from_le_bytes(bytes[HDR_HEIGHTFIELD as usize..][..4].try_into().unwrap()) as usize;
        let at = header + HF_CELLS as usize;
        bytes[at..at + 4].copy_from_slice(&(u32::MAX - 2).to_le_bytes());
        let field = read_heightfield(&bytes).unwrap().unwrap();
        assert!(field.cells.is_empty() && field.warnings.iter().any(|w| w.contains("cell records unreadable")));
        assert_eq!(field.heights.len(), 6);
    }
}
