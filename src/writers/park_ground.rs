//! Writes a theme's ground for a synthetic install (fixtures and the demo): `terrain.wad` with a
//! `base.MD2` holding a heightfield with cell records and textures beside an empty `heightfield`
//! mesh and a water mesh, a `basem.md2` sliding the water's UVs, the theme's `.tct` with a
//! PathTex table, `pathtex/` art (and a differently coloured low-detail `spathtex/` set, as the
//! game ships, which must not be taken for it), and `queue.wad` with the queue pieces.

use std::path::Path;

use crate::formats::park::ground::tct::wct_name;
use crate::writers::tpw::{
    AnimFile, HeightfieldSpec, MaterialSpec, MeshFile, MeshSpec, TextureSpec, TrackSpec, UvEntrySpec,
};
use crate::writers::wad::{WadMember, write_wad};
use crate::writers::wct::{WctOptions, encode};

/// One theme's ground files.
#[derive(Debug, Clone)]
pub struct GroundSpec {
    pub theme: String,
    /// The table's file name in `terrain.wad` (`Jungle.tct`).
    pub tct_name: String,
    pub tct: String,
    pub base: MeshFile,
    pub basem: Option<AnimFile>,
    /// `terrain.wad` members beside the model: `textures/…`, `pathtex/…`, `spathtex/…`.
    pub terrain_files: Vec<(String, Vec<u8>)>,
    /// `queue.wad`: piece models by stem, and its `textures/…`.
    pub queue_pieces: Vec<(String, MeshFile)>,
    pub queue_files: Vec<(String, Vec<u8>)>,
}

/// The fixture heightfield's size: the shipped parks' 96 × 85 cells.
pub const FIELD_ACROSS: u32 = 96;
pub const FIELD_DOWN: u32 = 85;
/// Columns 20 and 21 are the river: flag 0x1 and texture 0, drawn by the water mesh.
pub const RIVER_COLUMNS: [u32; 2] = [20, 21];
/// The frame table of `base.MD2`: 0 is the engine's "not ground" slot.
pub const GROUND_TEXTURES: [&str; 4] = ["grd_ctr1.tga", "jgr_bas1.tga", "jgr_bas2.tga", "water.tga"];
/// The PathTex rows written (index, name).
pub const PATH_ROWS: [(u32, &str); 4] =
    [(0, "jpa_squ1.tga"), (2, "jpa_str1.tga"), (5, "jpa_xrd1.tga"), (9, "jpa_cnr1.tga")];
/// Every queue piece name of `queue.wad`.
pub const QUEUE_PIECE_NAMES: [&str; 7] = ["quedead", "questra", "quebnd2", "quebnd1", "queend", "quebin1", "quebin2"];

/// The fixture's ground height at grid vertex (x, y): a gentle slope, 0.1 a cell each way.
pub fn fixture_height(x: u32, y: u32) -> f32 {
    (x + y) as f32 * 0.1
}

/// The fixture's cell record `[flags, texture]` of cell (x, y): the river, then textures 1 and 2
/// in a checker with every turn, the mirror and the half colour among them.
pub fn fixture_cell(x: u32, y: u32) -> [u16; 2] {
    if RIVER_COLUMNS.contains(&x) {
        return [0x1, 0];
    }
    let texture = 1 + ((x + y) % 2) as u16;
    let flags = [0u16, 0x08, 0x10, 0x20, 0x40, 0x48, 0x0400][((x * 7 + y * 3) % 7) as usize];
    [flags, texture]
}

/// A square RGBA image of one colour with a darker top-left quarter (so turns show).
pub fn marked_image(size: u32, rgb: [u8; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let dark = x < size / 2 && y < size / 2;
            out.extend(rgb.map(|c| if dark { c / 3 } else { c }));
            out.push(255);
        }
    }
    out
}

fn wct(rgb: [u8; 3]) -> Vec<u8> {
    encode(&marked_image(8, rgb), 8, 8, WctOptions::default())
}

/// A quad over `[x0, z0]..[x1, z1]` at height `y`, one material of `texture`, facing up (the
/// file's winding is the reverse of the scene's).
fn quad(name: &str, [x0, z0]: [f32; 2], [x1, z1]: [f32; 2], y: f32, texture: Option<usize>) -> MeshSpec {
    MeshSpec {
        name: name.into(),
        vertices: vec![[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]],
        vertex_order: vec![0, 1, 2, 3],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        faces: vec![[0, 1, 2], [0, 2, 3]],
        materials: vec![MaterialSpec { texture, start: 0, end: 3 }],
        ..MeshSpec::default()
    }
}

/// The fixture terrain model: the empty heightfield mesh (flag 0x2), the river's water quad.
pub fn fixture_base() -> MeshFile {
    let heightfield = MeshSpec { name: "heightfield".into(), flags: 0x2, ..MeshSpec::default() };
    let [first, last] = RIVER_COLUMNS;
    let water =
        quad("water", [first as f32 * 10.0, 0.0], [(last + 1) as f32 * 10.0, FIELD_DOWN as f32 * 10.0], 1.0, Some(3));
    let heights = (0..=FIELD_DOWN).flat_map(|y| (0..=FIELD_ACROSS).map(move |x| fixture_height(x, y))).collect();
    let cells = (0..FIELD_DOWN).flat_map(|y| (0..FIELD_ACROSS).map(move |x| fixture_cell(x, y))).collect();
    MeshFile {
        textures: GROUND_TEXTURES.iter().map(|&t| TextureSpec::opaque(t)).collect(),
        meshes: vec![heightfield, water],
        heightfield: Some(HeightfieldSpec {
            cell: [10.0, 10.0],
            across: FIELD_ACROSS,
            down: FIELD_DOWN,
            low: 0.0,
            high: fixture_height(FIELD_ACROSS, FIELD_DOWN).ceil(),
            heights,
            cells,
        }),
        ..MeshFile::default()
    }
}

/// `basem.md2`: the water's four UVs slide one texture along u over 60 frames.
pub fn fixture_basem() -> AnimFile {
    let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let entries = corners.iter().map(|&[u, v]| UvEntrySpec { keys: vec![(0, [u, v]), (60, [u + 1.0, v])] }).collect();
    let track = TrackSpec { target: 1, uv: Some(entries), ..TrackSpec::default() };
    AnimFile { last_frame: 60, tracks: vec![track], ..AnimFile::default() }
}

/// A queue piece: a floor plate with the queue texture and a post at the model's (1, 1) corner,
/// which shows which way the piece is turned.
pub fn queue_piece(stem: &str) -> MeshFile {
    let plate = quad(&format!("{stem}_base"), [0.0, 0.0], [10.0, 10.0], 0.0, Some(0));
    let post = MeshSpec {
        name: format!("{stem}_post"),
        vertices: vec![[1.0, 0.0, 1.0], [2.0, 0.0, 1.0], [1.0, 3.0, 1.0]],
        vertex_order: vec![0, 1, 2],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        faces: vec![[0, 2, 1]],
        materials: vec![MaterialSpec { texture: Some(0), start: 0, end: 2 }],
        ..MeshSpec::default()
    };
    MeshFile { textures: vec![TextureSpec::opaque("jpa_que1.tga")], meshes: vec![plate, post], ..MeshFile::default() }
}

/// The fixture theme's `.tct`: a comment, the PathTex rows, a QueueTex section and a commented-out one.
pub fn fixture_tct() -> String {
    let mut text = String::from("# Texture Correspondance Table\r\nPathTex\r\n");
    for (index, name) in PATH_ROWS {
        text.push_str(&format!("{index}\t{name}\r\n"));
    }
    text.push_str("\r\nQueueTex\r\n0\tjpa_que4.tga\r\n#Water\r\n#0\twater.tga\r\n");
    text
}

/// A whole ground for `theme` (the table named after it, capitalised).
pub fn fixture_ground(theme: &str) -> GroundSpec {
    let mut terrain_files: Vec<(String, Vec<u8>)> = Vec::new();
    let colours = [[90, 90, 90], [60, 160, 60], [80, 140, 50], [40, 90, 200]];
    for (name, rgb) in GROUND_TEXTURES.iter().zip(colours) {
        terrain_files.push((format!("textures/{}", wct_name(name)), wct(rgb)));
    }
    for (k, (_, name)) in PATH_ROWS.iter().enumerate() {
        let stem = wct_name(name);
        terrain_files.push((format!("pathtex/{stem}"), wct([200, 180, 120 + 20 * k as u8])));
        terrain_files.push((format!("spathtex/{stem}"), wct([255, 0, 255])));
    }
    let mut chars = theme.chars();
    let capitalised = chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default();
    GroundSpec {
        theme: theme.into(),
        tct_name: format!("{capitalised}.tct"),
        tct: fixture_tct(),
        base: fixture_base(),
        basem: Some(fixture_basem()),
        terrain_files,
        queue_pieces: QUEUE_PIECE_NAMES.iter().map(|&n| (n.to_string(), queue_piece(n))).collect(),
        queue_files: vec![("textures/jpa_que1.wct".into(), wct([150, 100, 60]))],
    }
}

/// The theme's `terrain.wad`.
pub fn terrain_wad(spec: &GroundSpec) -> Vec<u8> {
    let mut members = vec![
        WadMember::stored("base.MD2", &spec.base.to_bytes()),
        WadMember::compressed(spec.tct_name.clone(), spec.tct.as_bytes()),
    ];
    if let Some(basem) = &spec.basem {
        members.push(WadMember::stored("basem.md2", &basem.to_bytes()));
    }
    members.extend(spec.terrain_files.iter().map(|(path, data)| WadMember::stored(path.clone(), data)));
    write_wad(&members)
}

/// The theme's `queue.wad`.
pub fn queue_wad(spec: &GroundSpec) -> Vec<u8> {
    let mut members: Vec<WadMember> = spec
        .queue_pieces
        .iter()
        .map(|(stem, file)| WadMember::stored(format!("{stem}.md2"), &file.to_bytes()))
        .collect();
    members.extend(spec.queue_files.iter().map(|(path, data)| WadMember::stored(path.clone(), data)));
    write_wad(&members)
}

/// Writes `data/levels/<theme>/terrain.wad` and `queue.wad` under `root`.
pub fn write_ground(root: &Path, spec: &GroundSpec) -> std::io::Result<()> {
    let dir = root.join("data").join("levels").join(&spec.theme);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("terrain.wad"), terrain_wad(spec))?;
    std::fs::write(dir.join("queue.wad"), queue_wad(spec))
}
