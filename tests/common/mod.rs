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
