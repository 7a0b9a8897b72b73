//! The `mdview` binary as a user runs it: `info` (text, JSON, timing), `export` to OBJ, and
//! one-line errors with exit code 1.

mod common;

use std::process::Command;

use common::*;

fn mdview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("run mdview")
}

fn island_file(test: &str) -> std::path::PathBuf {
    let dir = temp_dir(test);
    write(&dir, "Jun_isle.MD2", &island().to_bytes())
}

#[test]
fn info_json_has_the_required_keys() {
    let path = island_file("info-json");
    let out = mdview(&["info", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(json["format"], "tpw-md2");
    assert_eq!(json["kind"], "mesh");
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 7);
    assert_eq!(nodes[0]["index"], 0);
    assert_eq!(nodes[0]["name"], "Island");
    assert!(nodes[0]["parent"].is_null());
    assert_eq!(nodes[0]["mesh"], 0);
    assert_eq!(nodes[5]["name"], "l_tree1");
    assert!(nodes[5]["mesh"].is_null());
    assert_eq!(nodes[5]["parent"], 0);
    assert_eq!(nodes[6]["sheared"], true);
    assert_eq!(nodes[5]["sheared"], false);
    let meshes = json["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 5);
    assert_eq!(meshes[2]["name"], "Box78");
    assert_eq!(meshes[2]["node"], 2);
    assert_eq!(meshes[2]["vertices"], 4);
    assert_eq!(meshes[2]["faces"], 2);
    assert_eq!(meshes[2]["uvs"], 4);
    let material = &meshes[2]["materials"][0];
    assert_eq!(material["texture"], "jtr_plm1.wct");
    assert_eq!(material["flags"], 3);
    assert_eq!(material["see_through"], true);
    assert_eq!(material["start"], 0);
    assert_eq!(material["end"], 3);
    // The fixture's textures are not beside it: each one the faces draw with is a warning.
    let warnings: Vec<&str> = json["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(warnings.iter().all(|w| w.starts_with("texture ") && w.contains("not found")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("jtr_plm1.wct")), "{warnings:?}");
}

#[test]
fn info_text_shows_tree_materials_and_timing() {
    let path = island_file("info-text");
    let out = mdview(&["info", path.to_str().unwrap(), "--timing"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Theme Park World",
        "l_tree2",
        "SHEARED",
        "transform-only",
        "jtr_plm1.wct",
        "see-through",
        "decode took",
        "open took",
        "outside decoding",
        "reading the file alone",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

#[test]
fn export_writes_world_space_obj_and_mtl() {
    let path = island_file("export");
    let obj_path = path.with_file_name("out.obj");
    let out = mdview(&["export", path.to_str().unwrap(), "-o", obj_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let obj = std::fs::read_to_string(&obj_path).unwrap();
    let objects = obj_positions(&obj);
    let names: Vec<&str> = objects.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Island", "Box77", "Box78", "Box69", "Box70"]);
    // Box70 (under the sheared dummy), vertex (1,1,0): hand-computed in tpw_mesh.rs.
    assert!(approx(objects[4].1[2], [15.61, 19.54, 8.81], 1e-4), "{:?}", objects[4].1);
    assert!(obj.contains("mtllib out.mtl"));
    // vt flips v: the fixture's first UV is (0, 0.5).
    assert!(obj.contains("\nvt 0 0.5\n"));
    assert!(obj.contains("\nvn "));
    assert!(obj.contains("\nf 1/1/1 3/3/3 2/2/2\n"), "stored (0,1,2) is written counter-clockwise as (1,3,2)");
    let mtl = std::fs::read_to_string(path.with_file_name("out.mtl")).unwrap();
    assert!(mtl.contains("map_Kd sand.wct") && mtl.contains("map_Kd jtr_plm1.wct"), "{mtl}");
}

#[test]
fn info_timing_names_the_first_open_once() {
    let path = island_file("info-timing-once");
    let out = mdview(&["info", path.to_str().unwrap(), "--timing"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("open took").count(), 1, "{text}");
    // "decode took" is the decode alone, the same figure as the open line's "decode alone".
    let figure = |after: &str| {
        let rest = &text[text.find(after).expect(after) + after.len()..];
        rest.split_whitespace().next().unwrap_or("").to_string()
    };
    assert_eq!(figure("decode took "), figure("decode alone "), "{text}");
}

/// `scan` is a survey: a file that fails to open is a row of its report (`failed`), and the
/// scan itself still succeeds.
#[test]
fn scan_reports_a_file_that_did_not_open() {
    let dir = temp_dir("cli-scan-failed");
    write(&dir, "good.MD2", &island().to_bytes());
    write(&dir, "broken.md2", b"IDP2 cut short");
    let out = mdview(&["scan", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the report");
    assert_eq!(json["files"], 2);
    let failed = json["failed"].as_array().expect("failed list");
    assert_eq!(failed.len(), 1);
    assert!(failed[0]["path"].as_str().is_some_and(|p| p.ends_with("broken.md2")), "{failed:?}");
}

#[test]
fn unknown_file_is_one_line_error_with_exit_code_1() {
    let dir = temp_dir("cli-unknown");
    let junk = write(&dir, "junk.md2", b"\x89PNG\r\n\x1a\nnot a model");
    let out = mdview(&["info", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("89 50 4E 47"), "{err}");
}

#[test]
fn damaged_file_names_format_field_and_offset() {
    let dir = temp_dir("cli-damaged");
    let mut bytes = island().to_bytes();
    bytes.truncate(0x90);
    let path = write(&dir, "cut.MD2", &bytes);
    let out = mdview(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("tpw-md2") && err.contains("offset 0x"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let out = mdview(&["info", "/nonexistent/model.md2"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn export_accepts_anim_and_frame_for_a_mesh_without_animations() {
    let path = island_file("export-anim");
    let obj_path = path.with_file_name("posed.obj");
    let ok = mdview(&["export", path.to_str().unwrap(), "-o", obj_path.to_str().unwrap(), "--frame", "12.5"]);
    assert!(ok.status.success());
    let missing = mdview(&["export", path.to_str().unwrap(), "-o", obj_path.to_str().unwrap(), "--anim", "M1"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no animations"));
}

/// Issue 12: `--frame` without `--anim` poses the default clip (the one the viewer plays
/// first) and names it on stderr; the OBJ equals the one with that clip named, and differs
/// from the rest pose. Every format: MDR, TPW, and (when the corpus is present) Quake II, M2.
#[test]
fn frame_without_anim_poses_the_default_clip_and_names_it() {
    let corpus = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        (root.join("assets/mdr/arm.mdr"), "bend", "7"),
        (root.join("assets/demo/gate.MD2"), "C", "12"),
        (corpus.join("md2/hunter/tris.md2"), "", "3"),
        (corpus.join("m2/rabbit/Rabbit.m2"), "Walk", "186"),
    ];
    let dir = temp_dir("frame-without-anim");
    for (i, (file, clip, frame)) in files.iter().enumerate() {
        if !file.exists() {
            eprintln!("SKIP: {} is absent", file.display());
            continue;
        }
        let clip = match *clip {
            "" => mdview::formats::open(file).unwrap().clips[0].name.clone(),
            name => name.to_string(),
        };
        let out = |name: &str| dir.join(format!("{i}-{name}.obj"));
        let file = file.to_str().unwrap();
        let implicit = mdview(&["export", file, "--frame", frame, "-o", out("implicit").to_str().unwrap()]);
        assert!(implicit.status.success(), "{}", String::from_utf8_lossy(&implicit.stderr));
        let stderr = String::from_utf8_lossy(&implicit.stderr);
        assert!(stderr.contains(&format!("'{clip}'")), "{file}: stderr names the clip: {stderr}");
        let named = mdview(&["export", file, "--anim", &clip, "--frame", frame, "-o", out("named").to_str().unwrap()]);
        assert!(named.status.success());
        let rest = mdview(&["export", file, "-o", out("rest").to_str().unwrap()]);
        assert!(rest.status.success());
        let read = |name: &str| std::fs::read_to_string(out(name)).unwrap().replace(&format!("{i}-{name}"), "");
        assert_eq!(read("implicit"), read("named"), "{file}");
        assert_ne!(read("implicit"), read("rest"), "{file}: frame {frame} of {clip} is not the rest pose");
    }
}
