//! The theme's terrain: `terrain.wad/base.MD2` opened as a model (its scenery and water meshes,
//! `basem.md2` bound as its clip), then its heightfield mesh rebuilt cell by cell from the cell
//! records, one submesh per texture, with `terrain/textures/` art.
//!
//! Choices for what the public record leaves open (one place each):
//! - **Grid origin.** Heightfield cell (x, y) is map cell (x, y): grid vertex (x, y) stands at
//!   (x · cell size X, height, y · cell size Y) in model space, and model space is park world
//!   space (the scenery is drawn unmoved). The two f32 at +0x08 are kept as a raw field and not
//!   applied. OpenTPW lays its paths and ground on the same grid this way.
//! - **Diagonal.** Every cell is cut from (x, y) to (x + 1, y + 1), as OpenTPW cuts it (the
//!   engine picks per cell from flag 0x0004 on cells it finds not flat; not followed here). So
//!   the ground height in the middle of a cell is the mean of those two corners' heights.
//! - **Flag 0x0400** (corner colour halved) draws the whole cell at half brightness, through a
//!   material of its own with base colour 0.5.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};

use super::cells::{CELL_HALF_COLOUR, CELL_NOT_DRAWN, cell_corner_uvs};
use crate::formats::tpw::heightfield::{Heightfield, heightfield_mesh, read_heightfield};
use crate::scene::{Aabb, ImageSource, Material, Scene, SceneImage, Submesh};

/// The terrain as opened: the model's scene, its water clip, and the heightfield.
pub(super) struct Terrain {
    pub scene: Scene,
    pub water_clip: Option<usize>,
    pub field: Option<Heightfield>,
}

/// Opens `base.MD2` of the terrain archive with its siblings and images; `None` (with a
/// warning) when it is missing or does not decode.
pub(super) fn open_terrain(wad: &Path, warnings: &mut Vec<String>) -> Option<Terrain> {
    let base = crate::formats::vfs::join_member(wad, "base.MD2");
    if !crate::formats::vfs::is_file(&base) {
        warnings.push(format!("{} holds no base.MD2: no terrain", wad.display()));
        return None;
    }
    let scene = match crate::formats::open(&base) {
        Ok(scene) => scene,
        Err(e) => {
            warnings.push(format!("terrain base.MD2 did not open ({}): no terrain", e.reason()));
            return None;
        }
    };
    warnings.extend(scene.warnings.iter().map(|w| format!("terrain: {w}")));
    let field = match crate::formats::vfs::read(&base).map(|bytes| read_heightfield(&bytes)) {
        Ok(Ok(field)) => field,
        Ok(Err(e)) => {
            warnings.push(format!("terrain heightfield unreadable ({e}): flat ground"));
            None
        }
        Err(e) => {
            warnings
                .push(format!("terrain base.MD2 unreadable ({}): flat ground", crate::formats::assets::io_wording(&e)));
            None
        }
    };
    if let Some(field) = &field {
        warnings.extend(field.warnings.iter().map(|w| format!("terrain: {w}")));
        if field.cell != Vec2::splat(super::CELL_SIZE) {
            warnings.push(format!(
                "terrain cells are {} x {} units, not the map's {}: the ground and the map's cells do not line up",
                field.cell.x,
                field.cell.y,
                super::CELL_SIZE
            ));
        }
    }
    let water_clip = water_clip(&scene);
    if water_clip.is_none() {
        warnings.push("terrain has no basem.md2 animation: the water stands still".into());
    }
    Some(Terrain { scene, water_clip, field })
}

/// The clip bound from `basem.md2` (the scenery's UV tracks), else the first clip.
fn water_clip(scene: &Scene) -> Option<usize> {
    let from_basem = |source: &Option<PathBuf>| {
        source
            .as_ref()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("basem.md2"))
    };
    scene.clips.iter().position(|c| from_basem(&c.source)).or_else(|| (!scene.clips.is_empty()).then_some(0))
}

/// Rebuilds the heightfield mesh of `scene` from the cell records: four corners a drawn cell,
/// textured from its record (turns and mirror), one submesh per (texture, half colour). Cells
/// `covered` says another surface draws are left out. Textures are looked up in `textures`
/// (`terrain.wad/textures`).
pub(super) fn texture_cells(
    scene: &mut Scene,
    field: &Heightfield,
    textures: &Path,
    covered: &BTreeSet<[u32; 2]>,
    warnings: &mut Vec<String>,
) {
    let Some(mesh_index) = heightfield_mesh(scene) else {
        warnings.push("terrain: no mesh holds the heightfield: no ground drawn".into());
        return;
    };
    if field.cells.is_empty() {
        return;
    }
    // Cells by (texture index, half colour), in texture order: each group becomes a submesh.
    let mut groups: BTreeMap<(u16, bool), Vec<[u32; 2]>> = BTreeMap::new();
    let (mut unnamed, mut odd_turns) = (BTreeSet::new(), 0usize);
    for y in 0..field.down {
        for x in 0..field.across {
            let Some(record) = field.cell(x, y) else { continue };
            if record.texture == 0 || record.flags & CELL_NOT_DRAWN != 0 || covered.contains(&[x, y]) {
                continue;
            }
            if field.texture_names.get(usize::from(record.texture)).is_none_or(Option::is_none) {
                unnamed.insert(record.texture);
            }
            odd_turns += usize::from(!cell_corner_uvs(record.flags).1);
            groups.entry((record.texture, record.flags & CELL_HALF_COLOUR != 0)).or_default().push([x, y]);
        }
    }
    if !unnamed.is_empty() {
        warnings.push(format!(
            "terrain: cells name texture indices {unnamed:?}, past the {} frame-table names or unreadable: \
             drawn with the fallback texture",
            field.texture_names.len()
        ));
    }
    if odd_turns > 0 {
        warnings.push(format!("terrain: {odd_turns} cells set more than one turn flag (0x38): drawn unturned"));
    }
    let normal_at = |x: u32, y: u32| grid_normal(field, x, y);
    let corner = |x: u32, y: u32| {
        let h = field.vertex_height(x, y).unwrap_or(0.0);
        Vec3::new(x as f32 * field.cell.x, h, y as f32 * field.cell.y)
    };
    let (mut positions, mut uvs, mut normals, mut triangles, mut submeshes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut images = ImageLookup::default();
    // The plain model's one untextured material becomes the first texture's, so none is left unused.
    let mut reuse = scene.meshes.get(mesh_index).and_then(|m| m.submeshes.first()).and_then(|s| s.material);
    for ((texture, half), cells) in &groups {
        let material = ground_material(scene, field, (*texture, *half), textures, &mut images, &mut reuse, warnings);
        let (first_triangle, vertex_start) = (triangles.len() as u32, positions.len() as u32);
        for &[x, y] in cells {
            let base = positions.len() as u32;
            let grid = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)];
            let (corner_uvs, _) = cell_corner_uvs(field.cell(x, y).map_or(0, |c| c.flags));
            for (&(gx, gy), uv) in grid.iter().zip(corner_uvs) {
                positions.push(corner(gx, gy));
                normals.push(normal_at(gx, gy));
                uvs.push(uv);
            }
            // Cut along (x, y)–(x + 1, y + 1), counter-clockwise seen from above.
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
    let Some(mesh) = scene.meshes.get_mut(mesh_index) else { return };
    mesh.vertex_source = (0..positions.len() as u32).collect();
    mesh.bounds = Aabb::from_points(&positions);
    mesh.source_positions = positions;
    mesh.uvs = uvs;
    mesh.normals = normals;
    mesh.keep_rest_normals = true;
    mesh.triangles = triangles;
    mesh.submeshes = submeshes;
    mesh.raw_triangle_tags = Vec::new();
}

/// Smooth normal at grid vertex (x, y) from the heights either side (clamped at the edges), so
/// a corner four cells share is lit as one surface.
fn grid_normal(field: &Heightfield, x: u32, y: u32) -> Vec3 {
    let h = |x: u32, y: u32| field.vertex_height(x.min(field.across), y.min(field.down)).unwrap_or(0.0);
    let slope_x = (h(x + 1, y) - h(x.saturating_sub(1), y)) / (2.0 * field.cell.x);
    let slope_z = (h(x, y + 1) - h(x, y.saturating_sub(1))) / (2.0 * field.cell.y);
    Vec3::new(-slope_x, 1.0, -slope_z).normalize_or(Vec3::Y)
}

/// Images already added to the scene by lower-cased name.
#[derive(Default)]
pub(super) struct ImageLookup(BTreeMap<String, usize>);

impl ImageLookup {
    /// The scene image for `name`, looked up in `folder` (one `.wct` or other image of that
    /// stem); a name found nowhere is an image with no source (the fallback texture) and a warning.
    pub fn image(&mut self, scene: &mut Scene, name: &str, folder: &Path, warnings: &mut Vec<String>) -> usize {
        if let Some(&index) = self.0.get(&name.to_lowercase()) {
            return index;
        }
        let source = crate::formats::assets::resolve_texture(name, &[folder.to_path_buf()])
            .map(|asset| Arc::new(asset) as Arc<dyn ImageSource>);
        if source.is_none() {
            warnings.push(format!("{name} not found in {}: drawn with the fallback texture", folder.display()));
        }
        scene.images.push(SceneImage::new(name, source));
        let index = scene.images.len() - 1;
        self.0.insert(name.to_lowercase(), index);
        index
    }
}

/// The material of one (texture index, half colour) group, written over `reuse` when given.
fn ground_material(
    scene: &mut Scene,
    field: &Heightfield,
    (texture, half): (u16, bool),
    folder: &Path,
    images: &mut ImageLookup,
    reuse: &mut Option<usize>,
    warnings: &mut Vec<String>,
) -> usize {
    let name = field.texture_names.get(usize::from(texture)).cloned().flatten();
    let mut material = Material::new(match (&name, half) {
        (Some(n), false) => format!("ground {n}"),
        (Some(n), true) => format!("ground {n} (half colour)"),
        (None, _) => format!("ground texture {texture} (unnamed)"),
    });
    if let Some(name) = &name {
        material.texture = Some(name.clone());
        material.image = Some(images.image(scene, name, folder, warnings));
    }
    if half {
        material.base_color = Vec4::new(0.5, 0.5, 0.5, 1.0);
    }
    if let Some(index) = reuse.take()
        && let Some(slot) = scene.materials.get_mut(index)
    {
        *slot = material;
        return index;
    }
    scene.materials.push(material);
    scene.materials.len() - 1
}
