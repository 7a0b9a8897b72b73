//! A large synthetic park for benchmarks and scale tests: `models` distinct items and `placed`
//! placements spread over the whole 128 × 128 map, on a 128 × 128 heightfield. Each item is
//! shaped like a game item: a base slab, a column, arms turning on a rotor node and a top, four
//! meshes on three dummies, two WCT textures, a construction clip `C` (the top drops in, the
//! arms grow) and a looping `M1` (the rotor turns about Y; every third item's top also morphs
//! its vertices). Half the placements loop `M1` at staggered times; the rest stand as built.

use std::f32::consts::PI;
use std::path::{Path, PathBuf};

use crate::formats::park::world::MAP_SIZE;
use crate::formats::park::world::WorldHeader;
use crate::formats::tpw::layout::NO_EASING;
use crate::writers::park::{
    InstallSpec, ItemSpec, SaveSpec, idle_channel, object_slot, object_thing, playing, write_install, write_save,
};
use crate::writers::park_ground::{FIELD_ACROSS, fixture_cell, fixture_ground, fixture_height};
use crate::writers::tpw::{
    AnimFile, DummySpec, HeightfieldSpec, MaterialSpec, MeshFile, MeshSpec, MorphRecordSpec, MorphSpec, PositionSpec,
    RotationKeySpec, TextureSpec, TrackSpec, morph_box, pack_morph, quat_y, translation,
};
use crate::writers::wct::{WctOptions, encode};

/// World units per map cell.
const CELL: f32 = 10.0;
/// Item folders, taking turns.
const FOLDERS: [&str; 4] = ["rides", "shops", "sideshow", "features"];
/// Node indices inside every item model: meshes 0..4, then the dummies.
const ARMS_NODE: u16 = 2;
const TOP_NODE: u16 = 3;
const ROOT_DUMMY: usize = 4;
const MIDDLE_DUMMY: usize = 5;
const ROTOR_DUMMY: usize = 6;
/// One turn of `M1`, in frames.
const TURN_FRAMES: u16 = 120;
/// How far the top bobs in the morph, in model units.
const BOB: f32 = 3.0;
/// The role that plays `M1` ([`crate::writers::park::playing`]).
const ROLE_M: u32 = 5;
/// The first placed object's thing id.
const FIRST_THING: u32 = 20;

/// Where a save written by [`write_synthetic_park`] lies under its root.
pub const SAVE_PATH: &str = "data/levels/jungle/synthetic.TPWS";

/// The install and save of a synthetic park with `models` distinct items and `placed`
/// placements (at most 529: a 23 × 23 grid of anchors five cells apart over the map).
pub fn synthetic_park(models: usize, placed: usize) -> (InstallSpec, SaveSpec) {
    let models = models.max(1);
    let mut ground = fixture_ground("jungle");
    if let Some(field) = ground.base.heightfield.as_mut() {
        *field = full_map_heightfield();
    }
    let categories = FOLDERS
        .iter()
        .map(|f| ("jungle".to_string(), f.to_string(), "Info.NumSimultAnims 1\nInfo.IsChoosable 1\n".to_string()))
        .collect();
    let items = (0..models).map(item_spec).collect();
    let install = InstallSpec { categories, items, grounds: vec![ground] };
    (install, save(models, placed.min(ANCHORS_ACROSS * ANCHORS_ACROSS)))
}

/// Writes the install and save under `root` and returns the save's path.
pub fn write_synthetic_park(root: &Path, models: usize, placed: usize) -> std::io::Result<PathBuf> {
    let (install, save) = synthetic_park(models, placed);
    write_install(root, &install)?;
    let path = root.join(SAVE_PATH);
    std::fs::write(&path, write_save(&save))?;
    Ok(path)
}

/// The ground over the whole map: the fixture's slope and cell textures, 128 cells each way.
fn full_map_heightfield() -> HeightfieldSpec {
    let size = MAP_SIZE as u32;
    let heights = (0..=size).flat_map(|y| (0..=size).map(move |x| fixture_height(x, y))).collect();
    // The fixture's river columns stay; past its width the checker repeats.
    let cells = (0..size).flat_map(|y| (0..size).map(move |x| fixture_cell(x % FIELD_ACROSS, y))).collect();
    HeightfieldSpec {
        cell: [CELL, CELL],
        across: size,
        down: size,
        low: 0.0,
        high: fixture_height(size, size).ceil(),
        heights,
        cells,
    }
}

fn item_id(index: usize) -> u16 {
    // 1100 + folder · 100 + turn: rides 11xx, shops 12xx, sideshows 13xx, features 14xx.
    1100 + (index % FOLDERS.len()) as u16 * 100 + (index / FOLDERS.len()) as u16
}

/// Footprint in cells, 1 to 3 each way.
fn footprint(index: usize) -> [u32; 2] {
    [1 + (index % 3) as u32, 1 + (index / 3 % 3) as u32]
}

fn stem(index: usize) -> String {
    format!("syn{index:03}")
}

fn item_spec(index: usize) -> ItemSpec {
    let [across, down] = footprint(index);
    let rows: Vec<String> = (0..down).map(|_| "*".repeat(across as usize)).collect();
    let sam = format!("Info.Id {} Synthetic {index}\nInfo.Shape\n---\n{}\n---\n", item_id(index), rows.join("\n"));
    let stem = stem(index);
    let model = item_model(index);
    let mut extra = vec![
        (format!("{stem}.md2"), model.to_bytes()),
        (format!("{stem}C.md2"), construction().to_bytes()),
        (format!("{stem}M1.md2"), turn(index).to_bytes()),
    ];
    for (k, texture) in model.textures.iter().enumerate() {
        extra.push((format!("textures/{}.wct", texture.name), texture_wct(index, k)));
    }
    let folder = FOLDERS[index % FOLDERS.len()];
    ItemSpec { theme: "jungle".into(), folder: folder.into(), stem, sam, model: None, extra }
}

/// A 32 × 32 checker in the item's own colours, as `.wct`.
fn texture_wct(index: usize, k: usize) -> Vec<u8> {
    const SIZE: u32 = 32;
    let hue = (index * 47 + k * 90) as u32;
    let colour = [(hue * 3 % 200 + 40) as u8, (hue * 7 % 200 + 40) as u8, (hue * 11 % 200 + 40) as u8];
    let mut rgba = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let dark = (x / 8 + y / 8) % 2 == 0;
            rgba.extend(colour.map(|c| if dark { c / 2 } else { c }));
            rgba.push(255);
        }
    }
    encode(&rgba, SIZE, SIZE, WctOptions::default())
}

/// Source vertices, final vertices (source index and UV) and stored faces of a mesh in the
/// making.
#[derive(Default)]
struct Shape {
    vertices: Vec<[f32; 3]>,
    order: Vec<u16>,
    uvs: Vec<[f32; 2]>,
    faces: Vec<[u16; 3]>,
}

impl Shape {
    /// An axis-aligned box: 8 shared source vertices, 4 final vertices a side for its UVs.
    fn cuboid(&mut self, min: [f32; 3], max: [f32; 3]) {
        let base = self.vertices.len() as u16;
        for corner in 0..8u16 {
            let pick = |axis: usize| if corner >> axis & 1 == 0 { min[axis] } else { max[axis] };
            self.vertices.push([pick(0), pick(1), pick(2)]);
        }
        // Each side's corners (bit 0 x, bit 1 y, bit 2 z) clockwise seen from outside: the
        // order the floor plate of `writers::park` lists, stored as it stores them.
        const SIDES: [[u16; 4]; 6] =
            [[2, 3, 7, 6], [0, 4, 5, 1], [1, 5, 7, 3], [0, 2, 6, 4], [4, 6, 7, 5], [0, 1, 3, 2]];
        for side in SIDES {
            let first = self.order.len() as u16;
            for (k, corner) in side.iter().enumerate() {
                self.order.push(base + corner);
                self.uvs.push([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]][k]);
            }
            let [a, b, c, d] = [first, first + 1, first + 2, first + 3];
            self.faces.push([a, c, b]);
            self.faces.push([a, d, c]);
        }
    }

    fn mesh(self, name: String, parent: usize, matrix: [f32; 16], texture: usize) -> MeshSpec {
        let end = self.order.len().saturating_sub(1) as u16;
        MeshSpec {
            name,
            parent: Some(parent),
            matrix,
            vertices: self.vertices,
            vertex_order: self.order,
            uvs: self.uvs,
            faces: self.faces,
            materials: vec![MaterialSpec { texture: Some(texture), start: 0, end }],
            ..MeshSpec::default()
        }
    }
}

/// Where the top sits above the rotor.
fn top_height(index: usize) -> f32 {
    8.0 + (index % 4) as f32 * 2.0
}

/// The top's rest box (in the top node's space).
fn top_box(index: usize) -> ([f32; 3], [f32; 3]) {
    let r = 2.0 + (index % 3) as f32;
    ([-r, 0.0, -r], [r, 3.0, r])
}

fn item_model(index: usize) -> MeshFile {
    let [across, down] = footprint(index);
    let (x, z) = (across as f32 * CELL, down as f32 * CELL);
    let reach = x.min(z) * 0.4;
    let height = top_height(index);

    let mut base = Shape::default();
    base.cuboid([-x / 2.0 + 0.5, 0.0, -z / 2.0 + 0.5], [x / 2.0 - 0.5, 1.0, z / 2.0 - 0.5]);
    let mut column = Shape::default();
    column.cuboid([-1.0, 1.0, -1.0], [1.0, height, 1.0]);
    let mut arms = Shape::default();
    let arm_count = 3 + index % 4;
    for k in 0..arm_count {
        let angle = 2.0 * PI * k as f32 / arm_count as f32;
        let (dx, dz) = (angle.cos() * reach * 0.7, angle.sin() * reach * 0.7);
        arms.cuboid([dx - 1.0, height * 0.4, dz - 1.0], [dx + 1.0, height * 0.4 + 2.5, dz + 1.0]);
        arms.cuboid(
            [dx * 0.5 - 0.2, height * 0.5 + 0.3, dz * 0.5 - 0.2],
            [dx * 0.5 + 0.2, height * 0.5 + 0.7, dz * 0.5 + 0.2],
        );
    }
    let mut top = Shape::default();
    let (min, max) = top_box(index);
    top.cuboid(min, max);
    let mut top_mesh = top.mesh(format!("{}_top", stem(index)), ROTOR_DUMMY, translation(0.0, height, 0.0), 1);
    if morphs(index) {
        // The morph quantises into the mesh box: state the whole bob.
        top_mesh.bbox = Some(morph_extent(index));
    }
    let name = |part: &str| format!("{}_{part}", stem(index));
    MeshFile {
        textures: vec![
            TextureSpec::opaque(format!("{}a", stem(index))),
            TextureSpec::opaque(format!("{}b", stem(index))),
        ],
        meshes: vec![
            base.mesh(name("base"), MIDDLE_DUMMY, crate::writers::tpw::IDENTITY, 0),
            column.mesh(name("column"), MIDDLE_DUMMY, crate::writers::tpw::IDENTITY, 0),
            arms.mesh(name("arms"), ROTOR_DUMMY, crate::writers::tpw::IDENTITY, 1),
            top_mesh,
        ],
        dummies: vec![
            DummySpec { name: name("root"), ..DummySpec::default() },
            // The footprint's corner is the model origin, as the game authors items.
            DummySpec {
                name: name("middle"),
                parent: Some(ROOT_DUMMY),
                matrix: translation(x / 2.0, 0.0, z / 2.0),
                ..DummySpec::default()
            },
            DummySpec { name: name("rotor"), parent: Some(MIDDLE_DUMMY), ..DummySpec::default() },
        ],
        ..MeshFile::default()
    }
}

fn morphs(index: usize) -> bool {
    index.is_multiple_of(3)
}

/// The top's box over its whole bob.
fn morph_extent(index: usize) -> ([f32; 3], [f32; 3]) {
    let (min, max) = top_box(index);
    (min, [max[0], max[1] + BOB, max[2]])
}

/// `C`: the top drops in from above over 40 frames while the arms grow from frame 20.
fn construction() -> AnimFile {
    let top = TrackSpec {
        target: TOP_NODE,
        frame_value: 40,
        position: Some(PositionSpec {
            kind: 0x18,
            points: vec![[0.0, 20.0, 0.0], [0.0, 0.0, 0.0]],
            frames: vec![0, 40],
        }),
        ..TrackSpec::default()
    };
    let arms = TrackSpec {
        target: ARMS_NODE,
        frame_value: 40,
        scale: Some(vec![(20, [0.05, 0.05, 0.05]), (40, [1.0, 1.0, 1.0])]),
        ..TrackSpec::default()
    };
    AnimFile { last_frame: 40, tracks: vec![top, arms], ..AnimFile::default() }
}

/// `M1`: the rotor turns once about Y, keyed each quarter turn; every third item's top also
/// bobs its upper face by vertex morph.
fn turn(index: usize) -> AnimFile {
    let rotor = TrackSpec {
        target: ROTOR_DUMMY as u16,
        frame_value: u32::from(TURN_FRAMES),
        rotation: (0..=4u16)
            .map(|k| RotationKeySpec {
                frame: TURN_FRAMES * k / 4,
                curve: NO_EASING,
                quat: quat_y(f32::from(k) * PI / 2.0),
            })
            .collect(),
        ..TrackSpec::default()
    };
    let mut tracks = vec![rotor];
    if morphs(index) {
        tracks.push(TrackSpec {
            target: TOP_NODE,
            frame_value: u32::from(TURN_FRAMES),
            morph: Some(top_morph(index)),
            ..TrackSpec::default()
        });
    }
    AnimFile { last_frame: u32::from(TURN_FRAMES), tracks, ..AnimFile::default() }
}

/// The top's 8 source vertices keyed at the turn's start, middle and end: the upper face
/// rises by [`BOB`] and comes back; two trailing channels hold the box corners.
fn top_morph(index: usize) -> MorphSpec {
    let (min, max) = morph_extent(index);
    let (centre, step) = morph_box(min, max);
    let (rest_min, rest_max) = top_box(index);
    let frames = vec![0, TURN_FRAMES / 2, TURN_FRAMES];
    let mut values = Vec::new();
    for lift in [0.0, BOB, 0.0] {
        for corner in 0..8u16 {
            let pick = |axis: usize| if corner >> axis & 1 == 0 { rest_min[axis] } else { rest_max[axis] };
            let y = pick(1) + if corner >> 1 & 1 == 1 { lift } else { 0.0 };
            values.push(pack_morph([pick(0), y, pick(2)], centre, step));
        }
        values.push(pack_morph(min, centre, step));
        values.push(pack_morph(max, centre, step));
    }
    MorphSpec {
        flags: 0x01,
        centre,
        step,
        records: vec![MorphRecordSpec { channels: (0..10).collect(), frames, values }],
    }
}

/// Anchors per row of the placement grid.
const ANCHORS_ACROSS: usize = 23;

fn save(models: usize, placed: usize) -> SaveSpec {
    let mut things = Vec::with_capacity(placed);
    let mut slots = Vec::with_capacity(placed);
    for i in 0..placed {
        let model = i % models;
        let cell = [(4 + i % ANCHORS_ACROSS * 5) as u8, (4 + i / ANCHORS_ACROSS * 5) as u8];
        let angle = (i % 4) as u32 * 90;
        let id = FIRST_THING + i as u32;
        let mut thing = object_thing(id, item_id(model), cell, angle, i as u32 + 1);
        if let Some(object) = thing.object.as_mut() {
            object.next = if i + 1 < placed { id as u16 + 1 } else { 0 };
        }
        things.push(thing);
        // Half loop M1 at staggered times; the rest stand as built.
        let channel = if i % 2 == 0 { playing(ROLE_M, 0, (i as u32 * 137) % 4000, 0x1, 1.0) } else { idle_channel() };
        slots.push(Some(object_slot(u32::from(item_id(model)), cell, footprint(model), angle, vec![channel])));
    }
    let header = WorldHeader {
        version: 2,
        game_tick: 755,
        park_closed: 0,
        first_object: FIRST_THING as u16,
        ..WorldHeader::default()
    };
    SaveSpec { header, things, slots, ..SaveSpec::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_have_distinct_ids_and_placements_fit_the_map() {
        let (install, save) = synthetic_park(60, 520);
        assert_eq!(install.items.len(), 60);
        let mut ids: Vec<u16> = (0..60).map(item_id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 60);
        assert_eq!(save.slots.len(), 520);
        for slot in save.slots.iter().flatten() {
            assert!(slot.cell.iter().zip(slot.footprint).all(|(c, f)| c + f <= MAP_SIZE as u32), "{:?}", slot.cell);
        }
        for item in &install.items {
            assert!(item.extra.iter().any(|(p, _)| p.ends_with("M1.md2")));
            assert_eq!(item.extra.iter().filter(|(p, _)| p.ends_with(".wct")).count(), 2);
        }
    }
}
