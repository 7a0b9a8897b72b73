//! Fixture builders shared by the integration tests: small TPW files made with the writer,
//! each shaped to exercise one rule of the spec. Expected values live in the tests, computed
//! by hand from the spec's rules, never read back from the writer.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mdview::formats::tpw::writer::*;

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

/// A temp folder unique to one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mdview-test-{}-{name}", std::process::id()));
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
pub fn quake2_quad(x0: u8, skins: &[&str]) -> mdview::formats::quake2::writer::Md2Spec {
    use mdview::formats::quake2::writer::{FrameSpec, Md2Spec};
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
