//! The ground of a park: its own scene holding the theme's terrain (`terrain.wad/base.MD2` with
//! its heightfield cells textured from their records, and the model's own scenery and water
//! meshes with `basem.md2` bound as a clip), the path tiles and the queue pieces, all in park
//! world space (map cell x · 10 on world X, cell y · 10 on world Z, Y up, as `placement` has it),
//! plus the ground height under each map cell. Anything missing is a warning and the rest still
//! builds; with no install, a flat placeholder plane lies under the park's used cells.
//!
//! - `terrain`: opening the terrain and drawing the heightfield's cells (and the open points
//!   chosen: grid origin, diagonal, half colour);
//! - `cells`: the cell records' turns and mirror, and the path tiles' turn;
//! - `tct`: the theme's texture correspondence table;
//! - `paths`: path tiles; `queues`: queue pieces.

mod cells;
mod paths;
mod queues;
pub mod tct;
mod terrain;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3};

pub use cells::{cell_corner_uvs, path_corner_uvs};
pub use paths::PATH_LIFT;
pub use queues::{QueuePiece, QueuePlacement, queue_turn, queue_world};

use super::Park;
use super::catalogue::{child_ci, levels_dir};
use super::placement::CELL_SIZE;
use crate::formats::tpw::heightfield::Heightfield;
use crate::scene::{FormatKind, Material, Node, NodeKind, Scene, SceneKind, Submesh};

/// Map cells across and down.
const MAP_CELLS: u32 = 128;

/// The ground's heights by grid vertex, as the heightfield has them (none: flat at 0).
#[derive(Debug, Clone, Default)]
pub(crate) struct Heights {
    across: u32,
    down: u32,
    values: Vec<f32>,
}

impl Heights {
    fn from_field(field: &Heightfield) -> Heights {
        Heights { across: field.across, down: field.down, values: field.heights.clone() }
    }

    /// The height at grid vertex (x, y): 0 off the field.
    pub(crate) fn vertex(&self, x: u32, y: u32) -> f32 {
        if x > self.across || y > self.down {
            return 0.0;
        }
        self.values.get(y as usize * (self.across as usize + 1) + x as usize).copied().unwrap_or(0.0)
    }

    /// The height in the middle of map cell `cell`: on the cut from (x, y) to (x + 1, y + 1), the
    /// mean of those corners; 0 off the field.
    pub(crate) fn middle(&self, cell: [u8; 2]) -> f32 {
        let [x, y] = cell.map(u32::from);
        if x >= self.across || y >= self.down {
            return 0.0;
        }
        (self.vertex(x, y) + self.vertex(x + 1, y + 1)) / 2.0
    }
}

/// The ground of a park (see the module doc).
pub struct Ground {
    pub scene: Scene,
    /// `basem.md2`'s UV clip in `scene.clips` (the water), to loop.
    pub water_clip: Option<usize>,
    /// The queue pieces, each decoded once; `scene` holds one copy per queue cell.
    pub queue_pieces: Vec<QueuePiece>,
    pub queue_placements: Vec<QueuePlacement>,
    heights: Heights,
    pub warnings: Vec<String>,
}

impl Ground {
    /// World height at the middle of a map cell; 0 off the field.
    pub fn height_at(&self, cell: [u8; 2]) -> f32 {
        self.heights.middle(cell)
    }
}

/// Builds the ground of `park` from the install at `install_root`, theme folder `theme`
/// (`jungle`). Never fails: what is missing is a warning.
pub fn build_ground(install_root: Option<&Path>, theme: Option<&str>, park: &Park) -> Ground {
    let mut warnings = Vec::new();
    let theme_dir = match (install_root, theme) {
        (None, _) => {
            warnings.push("no install: the ground is a flat placeholder, paths untextured, no queue pieces".into());
            None
        }
        (Some(_), None) => {
            warnings.push("the park's theme is not known: the ground is a flat placeholder".into());
            None
        }
        (Some(root), Some(theme)) => {
            let dir = levels_dir(root).and_then(|levels| child_ci(&levels, theme));
            if dir.is_none() {
                warnings
                    .push(format!("{} has no data/levels/{theme}/: the ground is a flat placeholder", root.display()));
            }
            dir
        }
    };
    let terrain_wad = theme_dir.as_deref().and_then(|dir| {
        let wad = child_ci(dir, "terrain.wad");
        if wad.is_none() {
            warnings.push(format!("{} has no terrain.wad: the ground is a flat placeholder", dir.display()));
        }
        wad
    });
    let terrain = terrain_wad.as_deref().and_then(|wad| terrain::open_terrain(wad, &mut warnings));
    let (mut scene, water_clip, field) = match terrain {
        Some(t) => (t.scene, t.water_clip, t.field),
        None => (placeholder(park), None, None),
    };
    if let Some(default) = water_clip {
        scene.default_clip = Some(default);
    }
    scene.warnings.clear();
    let heights = field.as_ref().map(Heights::from_field).unwrap_or_default();

    let queue_wad = theme_dir.as_deref().and_then(|dir| {
        let wad = child_ci(dir, "queue.wad");
        if wad.is_none() && !park.queues.is_empty() {
            warnings.push(format!("{} has no queue.wad: queue cells are left bare", dir.display()));
        }
        wad
    });
    let (queue_pieces, queue_placements) = match &queue_wad {
        Some(wad) => queues::add_queues(&mut scene, &park.queues, wad, &heights, &mut warnings),
        None => (Vec::new(), Vec::new()),
    };
    if let (Some(field), Some(wad)) = (&field, &terrain_wad) {
        // A placed queue piece brings its own floor: the ground under it is left out.
        let covered: BTreeSet<[u32; 2]> = queue_placements.iter().map(|q| q.cell.map(u32::from)).collect();
        let textures = crate::formats::vfs::join_member(wad, "textures");
        terrain::texture_cells(&mut scene, field, &textures, &covered, &mut warnings);
    }
    let table = terrain_wad.as_deref().and_then(|wad| read_table(wad, theme, &mut warnings));
    let pathtex = terrain_wad.as_deref().map(|wad| crate::formats::vfs::join_member(wad, "pathtex"));
    let art = paths::PathArt { table: table.as_ref(), folder: pathtex.as_deref() };
    paths::add_paths(&mut scene, &park.paths, &heights, &art, &mut warnings);

    if let Err(violation) = scene.validate() {
        warnings.push(format!("ground scene {}: {}", violation.location, violation.problem));
    }
    Ground { scene, water_clip, queue_pieces, queue_placements, heights, warnings }
}

/// The theme's `.tct` in the terrain archive: `<theme>.tct`, else the only `.tct` there.
fn read_table(wad: &Path, theme: Option<&str>, warnings: &mut Vec<String>) -> Option<tct::TextureTable> {
    let tables: Vec<PathBuf> = crate::formats::vfs::list_files(wad)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("tct")))
        .collect();
    let named = |p: &&PathBuf| {
        theme.is_some_and(|t| p.file_stem().is_some_and(|s| s.to_string_lossy().eq_ignore_ascii_case(t)))
    };
    let Some(path) = tables.iter().find(named).or(tables.first()) else {
        warnings.push(format!("{} holds no .tct: paths are drawn untextured", wad.display()));
        return None;
    };
    match crate::formats::vfs::read(path) {
        Ok(bytes) => {
            let table = tct::TextureTable::parse(&bytes);
            warnings.extend(table.odd_lines.iter().map(|l| format!("{}: {l} (skipped)", path.display())));
            Some(table)
        }
        Err(e) => {
            warnings.push(format!(
                "{} unreadable ({}): paths are drawn untextured",
                path.display(),
                crate::formats::assets::io_wording(&e)
            ));
            None
        }
    }
}

/// A flat plane at height 0 over the park's used cells (items' footprints, paths, queues) and a
/// cell's margin, or the whole map when nothing is used.
fn placeholder(park: &Park) -> Scene {
    let used = park
        .items
        .iter()
        .filter_map(|i| i.cell.map(|c| (c, i.footprint.unwrap_or([1, 1]))))
        .chain(park.paths.iter().map(|p| (p.cell, [1, 1])))
        .chain(park.queues.iter().map(|q| (q.cell, [1, 1])));
    let mut bounds: Option<([u32; 2], [u32; 2])> = None;
    for (cell, [across, down]) in used {
        let [x, y] = cell.map(u32::from);
        // The footprint may stand either side of the anchor when turned: take it both ways.
        let reach = across.max(down).min(MAP_CELLS);
        let lo = [x.saturating_sub(reach), y.saturating_sub(reach)];
        let hi = [(x + reach + 1).min(MAP_CELLS), (y + reach + 1).min(MAP_CELLS)];
        bounds = Some(match bounds {
            None => (lo, hi),
            Some((a, b)) => ([a[0].min(lo[0]), a[1].min(lo[1])], [b[0].max(hi[0]), b[1].max(hi[1])]),
        });
    }
    let (lo, hi) = bounds.unwrap_or(([0, 0], [MAP_CELLS, MAP_CELLS]));
    let corner = |x: u32, y: u32| Vec3::new(x as f32 * CELL_SIZE, 0.0, y as f32 * CELL_SIZE);
    let positions = vec![corner(lo[0], lo[1]), corner(hi[0], lo[1]), corner(hi[0], hi[1]), corner(lo[0], hi[1])];
    let span = Vec2::new((hi[0] - lo[0]) as f32, (hi[1] - lo[1]) as f32);
    let uvs = vec![Vec2::ZERO, Vec2::new(span.x, 0.0), span, Vec2::new(0.0, span.y)];
    let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
    let mut material = Material::new("ground (placeholder)");
    material.base_color = glam::Vec4::new(0.35, 0.5, 0.3, 1.0);
    scene.materials.push(material);
    let mut node = Node::new("ground (placeholder)", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(0);
    scene.nodes.push(node);
    let submesh = Submesh { material: Some(0), first_triangle: 0, triangle_count: 2, vertex_start: 0, vertex_end: 3 };
    scene.meshes.push(paths::flat_mesh(
        "ground (placeholder)",
        0,
        positions,
        uvs,
        vec![[0, 2, 1], [0, 3, 2]],
        vec![submesh],
    ));
    scene
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_height_is_the_mean_of_the_cut_corners() {
        // 2 x 2 cells; heights by row: (0, 1, 2), (3, 4, 5), (6, 7, 8).
        let heights = Heights { across: 2, down: 2, values: (0..9).map(|h| h as f32).collect() };
        assert_eq!(heights.middle([0, 0]), (0.0 + 4.0) / 2.0);
        assert_eq!(heights.middle([1, 0]), (1.0 + 5.0) / 2.0);
        assert_eq!(heights.middle([1, 1]), (4.0 + 8.0) / 2.0);
        assert_eq!(heights.middle([2, 0]), 0.0, "off the field");
        assert_eq!(heights.middle([0, 2]), 0.0, "off the field");
        assert_eq!(heights.vertex(2, 2), 8.0);
        assert_eq!(heights.vertex(3, 0), 0.0);
        assert_eq!(Heights::default().middle([5, 5]), 0.0);
    }
}
