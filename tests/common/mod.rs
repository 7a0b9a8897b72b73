//! Fixture builders shared by the integration tests: small TPW files made with the writer,
//! each shaped to exercise one rule of the spec. Expected values live in the tests, computed
//! by hand from the spec's rules, never read back from the writer.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mdview::writers::tpw::*;

pub const ROW_IDENTITY: [f32; 16] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];

/// Row-major, row-vector translation (elements 12..14).
pub fn t(x: f32, y: f32, z: f32) -> [f32; 16] {
    [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., x, y, z, 1.]
}

/// A mesh whose render vertices are its source vertices in order, one material over all.
pub fn simple_mesh(
    name: &str,
    parent: Option<usize>,
    matrix: [f32; 16],
    vertices: Vec<[f32; 3]>,
    texture: Option<usize>,
) -> MeshSpec {
    let n = vertices.len() as u16;
    let faces = (0..n.saturating_sub(2)).map(|i| [0, i + 1, i + 2]).collect();
    MeshSpec {
        name: name.into(),
        parent,
        matrix,
        uvs: (0..n).map(|i| [f32::from(i) * 0.25, 0.5]).collect(),
        vertex_order: (0..n).collect(),
        vertices,
        faces,
        materials: vec![MaterialSpec { texture, start: 0, end: n.saturating_sub(1) }],
        ..Default::default()
    }
}

/// Jun_isle in miniature: Island (mesh 0, at x=10) holds two dummies; l_tree1 (node 5) is a
/// plain translation, l_tree2 (node 6) is sheared (its Y axis leans +0.5 in X). Each dummy
/// holds a trunk at local (0,0,0) and leaves at local (0,3.66,0).
pub fn island() -> MeshFile {
    let quad = || vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
    let sheared = [1., 0., 0., 0., 0.5, 1., 0., 0., 0., 0., 1., 0., 2.28, 14.88, 8.81, 1.];
    MeshFile {
        textures: vec![TextureSpec::opaque("sand.wct"), TextureSpec::see_through("jtr_plm1.wct")],
        meshes: vec![
            simple_mesh("Island", None, t(10.0, 0.0, 0.0), quad(), Some(0)),
            simple_mesh("Box77", Some(5), ROW_IDENTITY, quad(), Some(0)),
            simple_mesh("Box78", Some(5), t(0.0, 3.66, 0.0), quad(), Some(1)),
            simple_mesh("Box69", Some(6), ROW_IDENTITY, quad(), Some(0)),
            simple_mesh("Box70", Some(6), t(0.0, 3.66, 0.0), quad(), Some(1)),
        ],
        dummies: vec![
            DummySpec { name: "l_tree1".into(), parent: Some(0), matrix: t(-11.92, 8.99, 8.40), ..Default::default() },
            DummySpec { name: "l_tree2".into(), parent: Some(0), matrix: sheared, ..Default::default() },
        ],
        ..Default::default()
    }
}

/// [`island`] with face anchors, and a clip that morphs the Island under them: the tree dummy
/// `l_tree1` (node 5, holding two meshes) is anchored to the Island's second face (0, 2, 3)
/// at u 0.25, v 0.5, 0.3 along the stored normal entry 1 (tilted (0, 1, 1)); `l_tree2` has a
/// record with flags 0x111, whose anchor pointer is not used. The clip (`islandM1`) lifts
/// vertex 2 of the Island by 1 in z and moves vertex 3 over 10 frames, in the track box
/// centre (0.5, 0.5, 0), step 0.01.
pub fn anchored_island() -> (MeshFile, AnimFile) {
    let mut file = island();
    file.meshes[0].normals = Some(vec![[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]);
    file.meshes[0].face_tags = vec![0, 1];
    file.meshes[0].bbox = Some(([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]));
    let anchor = Some(FaceAnchorSpec { face: 1, u: 0.25, v: 0.5, offset: 0.3 });
    file.first_id_node = 5;
    file.node_ids = vec![NodeIdSpec { flags: 0x40, id: 1, anchor }, NodeIdSpec { flags: 0x111, id: 2, anchor }];
    // Four vertices and the two box corners, at frames 0 and 10.
    let values = [
        [(-50, -50, 0), (50, -50, 0), (50, 50, 0), (-50, 50, 0), (-50, -50, 0), (50, 50, 0)],
        [(-50, -50, 0), (50, -50, 0), (50, 50, 100), (-20, 80, 40), (-50, -50, 0), (50, 80, 100)],
    ]
    .iter()
    .flatten()
    .map(|&(x, y, z)| morph_fields(x, y, z))
    .collect();
    let morph = MorphSpec {
        flags: 0x01,
        centre: [0.5, 0.5, 0.0],
        step: [0.01; 3],
        records: vec![MorphRecordSpec { channels: (0..6).collect(), frames: vec![0, 10], values }],
    };
    let track = TrackSpec { target: 0, morph: Some(morph), ..Default::default() };
    (file, AnimFile { last_frame: 10, tracks: vec![track], ..Default::default() })
}

/// A terrain model in miniature: an empty `heightfield` mesh (flag 0x2, as the engine's five
/// terrain models have) and a pole, with a 3 x 2-cell heightfield of 10 x 10 cells; heights by
/// row: (0, 0, 0, 0), (0, 5, 5, 0), (-2, 0, 0, 1).
pub fn terrain() -> MeshFile {
    let heightfield = MeshSpec { name: "heightfield".into(), flags: 0x2, ..Default::default() };
    let pole = simple_mesh("pole", None, t(5.0, 0.0, 5.0), vec![[0.0; 3], [0.1, 0.0, 0.0], [0.0, 3.0, 0.0]], None);
    MeshFile {
        meshes: vec![heightfield, pole],
        heightfield: Some(HeightfieldSpec {
            cell: [10.0, 10.0],
            across: 3,
            down: 2,
            low: -2.0,
            high: 5.0,
            heights: vec![0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 5.0, 0.0, -2.0, 0.0, 0.0, 1.0],
            cells: Vec::new(),
        }),
        ..Default::default()
    }
}

/// A temp folder unique to one test, under cargo's temp folder for tests (`target/tmp`) and
/// emptied at the start of each run, so runs do not pile folders up in the system's temp folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mdview-test-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path
}

pub fn approx(a: [f32; 3], b: [f32; 3], eps: f32) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= eps)
}

/// Parses the `v` lines of an OBJ per `o` object.
pub fn obj_positions(obj: &str) -> Vec<(String, Vec<[f32; 3]>)> {
    let mut out: Vec<(String, Vec<[f32; 3]>)> = Vec::new();
    for line in obj.lines() {
        if let Some(name) = line.strip_prefix("o ") {
            out.push((name.to_string(), Vec::new()));
        } else if let Some(rest) = line.strip_prefix("v ") {
            let v: Vec<f32> = rest.split_whitespace().map(|s| s.parse().expect("float")).collect();
            out.last_mut().expect("v before o").1.push([v[0], v[1], v[2]]);
        }
    }
    out
}

/// Advisorm1's easing curve 0 (notes §10).
pub const ADVISOR_CURVE: [u8; 8] = [32, 66, 105, 141, 176, 208, 233, 249];

/// Side of the rig's square sheet grid.
pub const SHEET_SIDE: u16 = 16;

/// The rig (base model of [`every_channel`]): nodes 0 `sheet` (a 16x16 grid of vertices at
/// (x, 0, z), x and z in 0..16, authored at (5, 0, 0)), 1 `flag` (4 vertices, child of the cart),
/// 2 `lid` (3 vertices), 3 `track_path` (a path node for path 0: straight, open, (0,0,0) ->
/// (10,0,0) -> (10,0,10), so 2 segments), 4 `cart` (child of the path node). `flags` is the
/// header word at 0x30 (0x1, or 0x5 for additive).
pub fn rig(flags: u32) -> MeshFile {
    let side = SHEET_SIDE;
    let grid: Vec<[f32; 3]> =
        (0..side).flat_map(|z| (0..side).map(move |x| [f32::from(x), 0.0, f32::from(z)])).collect();
    let n = side * side;
    let faces = (0..side - 1)
        .flat_map(|z| {
            (0..side - 1).flat_map(move |x| {
                let a = z * side + x;
                [[a, a + side, a + 1], [a + 1, a + side, a + side + 1]]
            })
        })
        .collect();
    let sheet = MeshSpec {
        name: "sheet".into(),
        matrix: t(5.0, 0.0, 0.0),
        vertices: grid,
        vertex_order: (0..n).collect(),
        uvs: (0..n).map(|i| [f32::from(i % side) / 16.0, f32::from(i / side) / 16.0]).collect(),
        faces,
        materials: vec![MaterialSpec { texture: Some(0), start: 0, end: n - 1 }],
        ..Default::default()
    };
    let flag = simple_mesh(
        "flag",
        Some(4),
        ROW_IDENTITY,
        vec![[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        Some(0),
    );
    let lid = simple_mesh("lid", None, t(0.0, 2.0, 0.0), vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], Some(0));
    MeshFile {
        flags,
        textures: vec![TextureSpec::opaque("rig.wct")],
        meshes: vec![sheet, flag, lid],
        dummies: vec![
            DummySpec { name: "track_path".into(), path: Some(0), ..Default::default() },
            DummySpec { name: "cart".into(), parent: Some(3), ..Default::default() },
        ],
        paths: vec![PathSpec { kind: 0x8, points: vec![[0.0; 3], [10.0, 0.0, 0.0], [10.0, 0.0, 10.0]] }],
        ..Default::default()
    }
}

/// Path-progress values of [`every_channel`], one per frame 0..=30: `f * 10 / 3` up to frame
/// 27 (90 %), then 95, 99 and 3 (stored wrapped: 99 -> 3 blends the short way, through 100).
pub fn cart_progress() -> Vec<f32> {
    (0..=30u16)
        .map(|f| match f {
            28 => 95.0,
            29 => 99.0,
            30 => 3.0,
            _ => f32::from(f) * 10.0 / 3.0,
        })
        .collect()
}

/// The morph box of [`every_channel`]'s sheet track: centre (7.5, 2, 7.5), step (0.5, 0.01, 0.5).
/// It is not the mesh box ((0,0,0)..(15,0,15)): the sheet's y is 0 everywhere, and only the track
/// box says that frame 20 lifts it to 1.
pub const SHEET_CENTRE: [f32; 3] = [7.5, 2.0, 7.5];
pub const SHEET_STEP: [f32; 3] = [0.5, 0.01, 0.5];

/// Packs signed 10-bit fields (X bits 0-9, Y 10-19, Z 20-29).
pub fn morph_fields(x: i32, y: i32, z: i32) -> u32 {
    let f = |v: i32| (v as u32) & 0x3FF;
    f(x) | f(y) << 10 | f(z) << 20
}

/// The heaviest fixture clip: every channel kind at once on [`rig`], span 0..30.
/// - track 0 on `sheet`: rotation 0 -> 90 degrees about Y over frames 0..30, the first key eased
///   by [`ADVISOR_CURVE`]; scale (1,1,1) at 0 -> (2,1,0.5) at 30; straight position (0,0,0) at
///   10 -> (0,4,0) at 30; visibility [5, -12, 25]; morph in the track box (y field -200 at
///   frame 0, -100 at 20: y = 0 then 1); UV slots keyed (0: own), (10: +1 u), (30: +1 u, +2 v).
/// - track 1 on `cart`: path progress ([`cart_progress`]) facing along the path (bit 0x400).
/// - track 2 on `lid`: visibility [20] (the hide list hides it at the start).
/// - track 3 on `flag`: raw frames, 31 frames of 4 vertices, vertex `k` of frame `f` stored at
///   (k, f / 10, 0), read through the index table [3, 2, 1, 0].
pub fn every_channel() -> (MeshFile, AnimFile) {
    let side = SHEET_SIDE;
    let n = side * side;
    let base = rig(0x1);
    let sheet_values = |y_field: i32| -> Vec<u32> {
        (0..n)
            .map(|i| morph_fields(2 * i32::from(i % side) - 15, y_field, 2 * i32::from(i / side) - 15))
            .chain([morph_fields(-15, y_field, -15), morph_fields(15, y_field, 15)])
            .collect()
    };
    let mut values = sheet_values(-200);
    values.extend(sheet_values(-100));
    let morph = MorphSpec {
        flags: 0x01,
        centre: SHEET_CENTRE,
        step: SHEET_STEP,
        records: vec![MorphRecordSpec { channels: (0..n + 2).collect(), frames: vec![0, 20], values }],
    };
    let uvs = &base.meshes[0].uvs;
    let uv = uvs
        .iter()
        .map(|&[u, v]| UvEntrySpec { keys: vec![(0, [u, v]), (10, [u + 1.0, v]), (30, [u + 1.0, v + 2.0])] })
        .collect();
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let sheet = TrackSpec {
        target: 0,
        rotation: vec![
            RotationKeySpec { frame: 0, curve: 0, quat: [0.0, 0.0, 0.0, 1.0] },
            RotationKeySpec { frame: 30, curve: 0xFFFF, quat: [0.0, half, 0.0, half] },
        ],
        easing: vec![ADVISOR_CURVE],
        scale: Some(vec![(0, [1.0, 1.0, 1.0]), (30, [2.0, 1.0, 0.5])]),
        position: Some(PositionSpec { kind: 0x18, points: vec![[0.0; 3], [0.0, 4.0, 0.0]], frames: vec![10, 30] }),
        visibility: Some(vec![5, -12, 25]),
        morph: Some(morph),
        uv: Some(uv),
        ..Default::default()
    };
    let cart = TrackSpec {
        target: 4,
        extra_flags: 0x400,
        path_progress: Some(PathProgressSpec { start: 0, values: cart_progress() }),
        ..Default::default()
    };
    let lid = TrackSpec { target: 2, visibility: Some(vec![20]), ..Default::default() };
    let flag = TrackSpec {
        target: 1,
        raw_frames: Some(RawFramesSpec {
            index: vec![3, 2, 1, 0],
            per_frame: 4,
            positions: (0..=30u16)
                .flat_map(|f| (0..4u16).map(move |k| [f32::from(k), f32::from(f) / 10.0, 0.0]))
                .collect(),
        }),
        ..Default::default()
    };
    let anim =
        AnimFile { last_frame: 30, hide_list: vec![2], tracks: vec![sheet, cart, lid, flag], ..Default::default() };
    (base, anim)
}

/// An 8x8 PCX (RLE, 8-bit, one plane) of one colour: every texel is palette index 1.
pub fn flat_pcx(rgb: [u8; 3]) -> Vec<u8> {
    let (width, height) = (8u16, 8u16);
    let mut bytes = vec![0u8; 128];
    bytes[0] = 0x0a; // manufacturer
    bytes[1] = 5; // version
    bytes[2] = 1; // RLE
    bytes[3] = 8; // bits per pixel
    bytes[8..10].copy_from_slice(&(width - 1).to_le_bytes()); // xmax
    bytes[10..12].copy_from_slice(&(height - 1).to_le_bytes()); // ymax
    bytes[65] = 1; // planes
    bytes[66..68].copy_from_slice(&width.to_le_bytes()); // bytes per line
    // Index 1 is below 0xC0, so each texel is one literal byte.
    bytes.extend(std::iter::repeat_n(1u8, usize::from(width) * usize::from(height)));
    bytes.push(0x0c);
    let mut palette = vec![0u8; 768];
    palette[3..6].copy_from_slice(&rgb);
    bytes.extend(palette);
    bytes
}

/// A Quake II quad in the x-z plane facing -y (scene +Z), 16 units square from `x0` (in steps
/// of 0.2 units),
/// textured edge to edge by an 8x8 skin. Triangles are stored clockwise, as the game does.
pub fn quake2_quad(x0: u8, skins: &[&str]) -> mdview::writers::quake2::Md2Spec {
    use mdview::writers::quake2::{FrameSpec, Md2Spec};
    Md2Spec {
        skin_width: 8,
        skin_height: 8,
        skins: skins.iter().map(|s| s.to_string()).collect(),
        // Bottom-left, bottom-right, top-right, top-left; t = 0 is the image's top row.
        st: vec![[0, 8], [8, 8], [8, 0], [0, 0]],
        triangles: vec![([0, 2, 1], [0, 2, 1]), ([0, 3, 2], [0, 3, 2])],
        frames: vec![FrameSpec {
            name: "stand01".into(),
            scale: [0.2, 0.2, 0.2],
            translate: [0.0, 0.0, 0.0],
            vertices: vec![[x0, 0, 0, 0], [x0 + 80, 0, 0, 0], [x0 + 80, 0, 80, 0], [x0, 0, 80, 0]],
        }],
    }
}

/// Colours of the skins in [`quake2_player_folder`].
pub const X_SKIN: [u8; 3] = [200, 40, 40];
pub const OTHER_SKIN: [u8; 3] = [40, 200, 40];
pub const ICON: [u8; 3] = [40, 40, 200];
pub const WEAPON_SKIN: [u8; 3] = [220, 220, 40];

/// A player folder `x/` as the game ships them: `tris.md2` names no skin (`num_skins = 0`),
/// beside it the skin `x.pcx`, its icon `x_i.pcx`, another skin `other.pcx`, and `weapon.md2`
/// with the `weapon.pcx` it names. Returns the model's path.
pub fn quake2_player_folder(root: &Path) -> PathBuf {
    let dir = root.join("x");
    std::fs::create_dir_all(&dir).expect("player folder");
    write(&dir, "x.pcx", &flat_pcx(X_SKIN));
    write(&dir, "x_i.pcx", &flat_pcx(ICON));
    write(&dir, "other.pcx", &flat_pcx(OTHER_SKIN));
    write(&dir, "weapon.pcx", &flat_pcx(WEAPON_SKIN));
    write(&dir, "weapon.md2", &quake2_quad(120, &["players/x/weapon.pcx"]).to_bytes());
    write(&dir, "tris.md2", &quake2_quad(0, &[]).to_bytes())
}

/// A Quake II fixture: the spec's worked example in frame 0, a second frame of the same clip
/// and a one-frame clip, two triangles sharing a vertex with different texture coordinates.
pub fn quake2_fixture() -> mdview::writers::quake2::Md2Spec {
    use mdview::writers::quake2::{FrameSpec, Md2Spec};
    let frame = |name: &str, scale: f32, verts: Vec<[u8; 4]>| FrameSpec {
        name: name.into(),
        scale: [scale, scale, scale],
        translate: [-32.0, -32.0, -16.0],
        vertices: verts,
    };
    Md2Spec {
        skin_width: 64,
        skin_height: 32,
        skins: vec!["models/test/skin.pcx".into()],
        st: vec![[0, 0], [64, 0], [64, 32], [32, 16]],
        triangles: vec![([0, 1, 2], [0, 1, 2]), ([0, 2, 3], [3, 2, 0])],
        frames: vec![
            frame("stand01", 0.5, vec![[0x40, 0xC0, 0x20, 5], [0, 0, 0, 0], [255, 255, 255, 84], [128, 64, 32, 32]]),
            frame("stand02", 0.25, vec![[0x40, 0xC0, 0x20, 5], [1, 2, 3, 0], [4, 5, 6, 84], [7, 8, 9, 32]]),
            frame("run1", 1.0, vec![[10, 20, 30, 5], [0, 0, 0, 0], [0, 0, 0, 84], [0, 0, 0, 32]]),
        ],
    }
}

/// The `v` lines of an OBJ, as assimp and mdview write them.
pub fn obj_vertices(text: &str) -> Vec<[f32; 3]> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// Every point of `a` lies within `eps` of some point of `b`.
pub fn covered(a: &[[f32; 3]], b: &[[f32; 3]], eps: f32) -> Result<(), String> {
    for p in a {
        if !b.iter().any(|q| approx(*p, *q, eps)) {
            return Err(format!("{p:?} has no counterpart within {eps}"));
        }
    }
    Ok(())
}
