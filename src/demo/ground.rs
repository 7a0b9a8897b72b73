//! The demo park's ground, written by [`crate::writers::park_ground`]: a `terrain.wad` whose
//! `base.MD2` holds a 30 × 30 cell heightfield (flat where the park stands, hills rising
//! beyond, grass with each cell turned so the tiling hides, and a sandy pond whose
//! water drifts in `basem.md2`), the jungle's `.tct`
//! with the path art of the two tiles the save lays (a straight and a crossing), and a
//! `queue.wad` whose pieces are railed lanes.

use glam::Vec3;

use super::geometry::{Builder, cuboid, snap};
use super::textures::{lawn_png, sand_png, sea_png, stone_png, wood_png};
use crate::formats::park::ground::tct::wct_name;
use crate::writers::park_ground::{GroundSpec, QUEUE_PIECE_NAMES};
use crate::writers::tpw::{
    AnimFile, HeightfieldSpec, IDENTITY, MaterialSpec, MeshFile, MeshSpec, TextureSpec, TrackSpec, UvEntrySpec,
};

/// Heightfield cells across and down from map cell (0, 0): the park stands in 4..26.
const FIELD: u32 = 30;
/// The middle of the flat ground, in cells, and its radius before the hills begin.
const FLAT_MIDDLE: [f32; 2] = [15.0, 14.0];
const FLAT_RADIUS: f32 = 13.0;
/// The base model's texture frames: 0 is the engine's "not ground" slot.
const GROUND_FRAMES: [&str; 4] = ["grd_ctr1.tga", "jgr_bas1.tga", "jgr_bas2.tga", "water.tga"];
const WATER_FRAME: usize = 3;
/// The pond: cells x 21..26, y 4..10 (corner vertices inclusive), its water at `POND_LEVEL`
/// over a bed at `POND_BED`.
const POND: [[u32; 2]; 2] = [[21, 4], [27, 11]];
const POND_LEVEL: f32 = -0.4;
const POND_BED: f32 = -1.5;
/// The PathTex rows the save's path tiles use: 2 straight, 5 a crossing.
const PATH_ROWS: [(u32, &str); 2] = [(2, "jpa_str1.tga"), (5, "jpa_xrd1.tga")];

/// The ground's height at grid vertex (x, y): 0 on the park's flat, hills rising beyond.
fn height(x: u32, y: u32) -> f32 {
    if in_pond(x, y) {
        return POND_BED;
    }
    let (dx, dy) = (x as f32 - FLAT_MIDDLE[0], y as f32 - FLAT_MIDDLE[1]);
    let beyond = ((dx * dx + dy * dy).sqrt() - FLAT_RADIUS).max(0.0);
    let ripple = 1.0 + 0.3 * (x as f32 * 0.45).sin() * (y as f32 * 0.37).cos();
    snap(0.1 * beyond * beyond * ripple)
}

/// Whether grid vertex (x, y) lies inside the pond (its rim stays on the ground).
fn in_pond(x: u32, y: u32) -> bool {
    let [[x0, y0], [x1, y1]] = POND;
    x > x0 && x < x1 && y > y0 && y < y1
}

/// Cell (x, y)'s record `[flags, texture]`: grass, and sand in and round the pond (its bed
/// shows through the water), each turned by a fixed hash so the tiling hides.
fn cell(x: u32, y: u32) -> [u16; 2] {
    let [[x0, y0], [x1, y1]] = POND;
    let shore = (x0.saturating_sub(1)..=x1).contains(&x) && (y0.saturating_sub(1)..=y1).contains(&y);
    let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) % 97;
    let turn = [0u16, 0x08, 0x10, 0x20][(h % 4) as usize];
    [turn, if shore { 2 } else { 1 }]
}

fn base() -> MeshFile {
    let heightfield = MeshSpec { name: "heightfield".into(), flags: 0x2, ..MeshSpec::default() };
    let heights: Vec<f32> = (0..=FIELD).flat_map(|y| (0..=FIELD).map(move |x| height(x, y))).collect();
    let high = heights.iter().copied().fold(0.0, f32::max).ceil();
    MeshFile {
        textures: GROUND_FRAMES
            .iter()
            .map(|&t| if t == "water.tga" { TextureSpec::see_through(t) } else { TextureSpec::opaque(t) })
            .collect(),
        meshes: vec![heightfield, pond()],
        heightfield: Some(HeightfieldSpec {
            cell: [10.0, 10.0],
            across: FIELD,
            down: FIELD,
            low: 0.0,
            high,
            heights,
            cells: (0..FIELD).flat_map(|y| (0..FIELD).map(move |x| cell(x, y))).collect(),
        }),
        ..MeshFile::default()
    }
}

/// The pond's water: one see-through quad over its cells.
fn pond() -> MeshSpec {
    let [[x0, z0], [x1, z1]] = POND.map(|c| c.map(|v| v as f32 * 10.0));
    let (u, v) = ((x1 - x0) / 20.0, (z1 - z0) / 20.0);
    MeshSpec {
        name: "water".into(),
        vertices: vec![[x0, POND_LEVEL, z0], [x1, POND_LEVEL, z0], [x1, POND_LEVEL, z1], [x0, POND_LEVEL, z1]],
        vertex_order: vec![0, 1, 2, 3],
        uvs: vec![[0.0, 0.0], [u, 0.0], [u, v], [0.0, v]],
        // Stored in reverse winding: these face up.
        faces: vec![[0, 1, 2], [0, 2, 3]],
        materials: vec![MaterialSpec { texture: Some(WATER_FRAME), start: 0, end: 3 }],
        ..MeshSpec::default()
    }
}

/// `basem.md2`: the pond's UVs drift one repeat along U over 120 frames.
fn basem() -> AnimFile {
    let entries =
        pond().uvs.iter().map(|&[u, v]| UvEntrySpec { keys: vec![(0, [u, v]), (120, [u + 1.0, v])] }).collect();
    let track = TrackSpec { target: 1, frame_value: 120, uv: Some(entries), ..TrackSpec::default() };
    AnimFile { last_frame: 120, tracks: vec![track], ..AnimFile::default() }
}

/// The theme's table: the PathTex rows of the tiles the save lays.
fn tct() -> String {
    let mut text = String::from("# Texture Correspondance Table\r\nPathTex\r\n");
    for (index, name) in PATH_ROWS {
        text.push_str(&format!("{index}\t{name}\r\n"));
    }
    text
}

const RAIL_WOOD: usize = 0;
const RAIL_FLOOR: usize = 1;

/// A queue piece: a paved floor and a rail each side along Z, posts at the ends; the end piece
/// (`queend`) is closed across its far side.
fn queue_piece(stem: &str) -> MeshFile {
    let mut b = Builder::default();
    b.material(RAIL_WOOD);
    for x in [1.0, 9.0] {
        cuboid(&mut b, Vec3::new(x - 0.12, 1.5, 0.0), Vec3::new(x + 0.12, 1.75, 10.0), 0.5);
        for z in [0.3, 5.0, 9.7] {
            cuboid(&mut b, Vec3::new(x - 0.2, 0.0, z - 0.2), Vec3::new(x + 0.2, 1.9, z + 0.2), 0.5);
        }
    }
    if stem == "queend" {
        cuboid(&mut b, Vec3::new(1.0, 1.5, 0.0), Vec3::new(9.0, 1.75, 0.24), 0.5);
    }
    b.material(RAIL_FLOOR);
    cuboid(&mut b, Vec3::new(0.0, 0.0, 0.0), Vec3::new(10.0, 0.08, 10.0), 0.2);
    MeshFile {
        textures: vec![TextureSpec::opaque("que_rail"), TextureSpec::opaque("que_floor")],
        meshes: vec![b.finish(&format!("{stem}_lane"), None, IDENTITY)],
        ..MeshFile::default()
    }
}

/// The jungle's ground.
pub(super) fn ground() -> GroundSpec {
    let wct = |png: Vec<u8>| super::wct_of_png(&png).unwrap_or_default();
    let mut terrain_files = vec![
        (format!("textures/{}", wct_name("grd_ctr1.tga")), wct(sand_png())),
        (format!("textures/{}", wct_name("jgr_bas1.tga")), wct(lawn_png())),
        (format!("textures/{}", wct_name("jgr_bas2.tga")), wct(sand_png())),
        (format!("textures/{}", wct_name("water.tga")), wct(sea_png())),
    ];
    for (_, name) in PATH_ROWS {
        terrain_files.push((format!("pathtex/{}", wct_name(name)), wct(stone_png())));
    }
    GroundSpec {
        theme: "jungle".into(),
        tct_name: "Jungle.tct".into(),
        tct: tct(),
        base: base(),
        basem: Some(basem()),
        terrain_files,
        queue_pieces: QUEUE_PIECE_NAMES.iter().map(|&n| (n.to_string(), queue_piece(n))).collect(),
        queue_files: vec![
            ("textures/que_rail.wct".into(), wct(wood_png())),
            ("textures/que_floor.wct".into(), wct(stone_png())),
        ],
    }
}
