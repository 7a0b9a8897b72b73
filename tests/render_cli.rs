//! `mdview render` end to end: a single PNG with the requested size and background, a frame
//! sequence, and clean one-line errors. Skips without a wgpu adapter unless `CI` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

mod render_common;
use render_common::*;

#[test]
fn renders_one_png_with_size_and_transparent_background() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("render-cli", "single");
    let png = dir.join("gate.png");
    let out = mdview(&[
        "render",
        &demo("gate.MD2").to_string_lossy(),
        "-o",
        &png.to_string_lossy(),
        "--size",
        "200x120",
        "--background",
        "transparent",
        "--anim",
        "M1",
        "--frame",
        "15",
        "--yaw",
        "-20",
        "--wireframe",
        "--grid",
    ]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let image = image::open(&png).expect("a PNG was written").to_rgba8();
    assert_eq!(image.dimensions(), (200, 120));
    assert_eq!(image.get_pixel(0, 0).0[3], 0, "transparent corner");
    assert!(image.pixels().any(|p| p.0[3] == 255), "the model is drawn");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn renders_a_frame_sequence() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("render-cli", "frames");
    let pattern = dir.join("gate_{frame}.png");
    let out = mdview(&[
        "render",
        &demo("gate.MD2").to_string_lossy(),
        "--anim",
        "M1",
        "--frames",
        "0..=30",
        "--size",
        "96x64",
        "-o",
        &pattern.to_string_lossy(),
    ]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    for frame in [0, 15, 30] {
        assert!(dir.join(format!("gate_{frame}.png")).is_file(), "frame {frame} written");
    }
    assert!(!dir.join("gate_31.png").exists());
    let first = image::open(dir.join("gate_0.png")).expect("png").to_rgba8();
    let last = image::open(dir.join("gate_30.png")).expect("png").to_rgba8();
    assert_ne!(first.as_raw(), last.as_raw(), "the doors move between the first and last frame");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_fail_with_one_line() {
    // These fail before any device is opened, so they need no adapter.
    let dir = out_dir("render-cli", "errors");
    let gate = demo("gate.MD2");
    let cases: [(&[&str], &str); 7] = [
        (&["--frames", "0..10", "-o", "no_placeholder.jpg"], "{frame}"),
        (&["--background", "blue", "-o", "x.png"], "RRGGBB"),
        (&["--anim", "M9", "-o", "x.png"], "M9"),
        (&["--yaw", "NaN", "-o", "x.png"], "finite"),
        (&["--pitch", "inf", "-o", "x.png"], "finite"),
        (&["--zoom", "nan", "-o", "x.png"], "zoom"),
        (&["--zoom", "0", "-o", "x.png"], "zoom"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["render", gate.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_mdview")).args(&args).current_dir(&dir).output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(stderr.contains(expected), "{args:?}: stderr should mention {expected}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every model file under the corpus (read in place), and the demo models.
fn corpus_and_demo_models() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if mdview::formats::assets::is_model_file(&path) && !path.to_string_lossy().contains("malformed") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.exists() {
        eprintln!("SKIP (corpus part): no corpus at {}", corpus.display());
    }
    walk(&corpus, &mut out);
    walk(&demo(""), &mut out);
    out.sort();
    out
}

/// One answer to "where is this texture": for every material of every corpus model, `info`
/// names the file that `render --verbose` draws, or both say it is missing.
#[test]
fn info_and_render_name_the_same_texture_file() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("render-cli", "one-resolver");
    let png = dir.join("shot.png");
    let mut compared = 0;
    for model in corpus_and_demo_models() {
        let info = mdview(&["info", "--json", &model.to_string_lossy()]);
        if !info.status.success() {
            continue; // Files that do not open have nothing to draw (the damage tests cover them).
        }
        let summary: serde_json::Value = serde_json::from_slice(&info.stdout).expect("info --json");
        let render =
            mdview(&["render", &model.to_string_lossy(), "-o", &png.to_string_lossy(), "--size", "64x64", "--verbose"]);
        let stderr = String::from_utf8_lossy(&render.stderr);
        assert!(render.status.success(), "{}: {stderr}", model.display());
        for texture in summary["textures"].as_array().expect("textures") {
            if texture["texture"].is_null() {
                continue;
            }
            let material = texture["material"].as_u64().expect("material index");
            let prefix = format!("material {material} '");
            let line = stderr.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| {
                panic!("{}: render --verbose has no line for material {material}:\n{stderr}", model.display())
            });
            let drawn = line.split_once("': ").map(|(_, rest)| rest).unwrap_or_default();
            match texture["resolved"].as_str() {
                Some(file) => assert!(
                    drawn.starts_with(&format!("{file} [")),
                    "{}: info says material {material} is {file}, render drew {drawn}",
                    model.display()
                ),
                None => assert!(
                    drawn.starts_with("fallback tile"),
                    "{}: info says material {material} is missing, render drew {drawn}",
                    model.display()
                ),
            }
            compared += 1;
        }
    }
    assert!(compared > 0, "no textured material was compared");
    eprintln!("compared {compared} materials");
    std::fs::remove_dir_all(&dir).ok();
}
