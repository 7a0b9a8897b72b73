//! Quake `.mdl`: every corpus file opens with its skins in the corpus palette, frame groups and
//! trailing QME blocks as SOURCES.md lists them, frame-0 parity with Debian's assimp (run when
//! `assimp` is installed), and damaged bytes give errors, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use mdview::formats::{self, mdl};
use mdview::writers::mdl::{sample, write};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mdl")
}

fn corpus_models() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(corpus()) else {
        eprintln!("SKIP: no Quake MDL corpus at {}", corpus().display());
        return out;
    };
    for dir in dirs.flatten() {
        for file in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            let p = file.path();
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("mdl")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_model_opens_with_the_palette_above_it() {
    for path in corpus_models() {
        let scene = formats::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let file = mdl::read(&std::fs::read(&path).unwrap()).unwrap();
        assert!(!scene.clips.is_empty());
        let image = scene.material_image(0).unwrap();
        assert!(image.location().unwrap().contains("palette/palette.lmp"), "{:?}", image.location());
        let pixels = image.load().unwrap();
        assert_eq!((pixels.width, pixels.height), (file.header.skin_width, file.header.skin_height));
        // Trailing bytes are a note, and every such block here is QME's.
        let noted = scene.warnings.iter().any(|w| w.contains("Quake Model Editor"));
        assert_eq!(noted, !file.trailing.is_empty(), "{}", path.display());
    }
}

#[test]
fn frame_groups_and_flags_match_the_corpus_notes() {
    let flame = corpus().join("blockquake/vanilla1.1_flame.mdl");
    if !flame.is_file() {
        eprintln!("SKIP: no Block Quake files in the corpus");
        return;
    }
    // One group of 6 poses: one clip over 6 table poses.
    let scene = formats::open(&flame).unwrap();
    assert_eq!(scene.clips.len(), 1);
    let file = mdl::read(&std::fs::read(&flame).unwrap()).unwrap();
    let mdl::Frame::Group { poses, .. } = &file.frames[0] else { panic!("not a group") };
    assert_eq!(poses.len(), 6);
    let key = formats::open(&corpus().join("blockquake/copper1.1_m_key.mdl")).unwrap();
    assert_eq!(key.choices[0].options.len(), 8, "8 skins");
    assert!(key.warnings.iter().any(|w| w.contains("EF_ROTATE")));
}

#[test]
fn frame_zero_matches_assimp() {
    if Command::new("assimp").arg("version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "assimp must be installed in CI (.ci/run installs assimp-utils)");
        eprintln!("SKIP: assimp is not installed (apt-get install assimp-utils)");
        return;
    }
    let dir = temp_dir("mdl-assimp-parity");
    for (i, path) in corpus_models().iter().enumerate() {
        let theirs_path = dir.join(format!("assimp{i}.obj"));
        let out = Command::new("assimp").arg("export").arg(path).arg(&theirs_path).output().unwrap();
        assert!(out.status.success(), "assimp failed on {}", path.display());
        let theirs = obj_vertices(&std::fs::read_to_string(&theirs_path).unwrap());
        let ours_path = dir.join(format!("ours{i}.obj"));
        let out = Command::new(env!("CARGO_BIN_EXE_mdview"))
            .args(["export", path.to_str().unwrap(), "-o", ours_path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ours = obj_vertices(&std::fs::read_to_string(&ours_path).unwrap());
        // assimp maps Quake (x, y, z) to (x, z, -y) as formats::quake_axes does. (candle1:
        // assimp reports 256 faces where the header says 316, SOURCES.md, yet every position
        // matches both ways.)
        covered(&ours, &theirs, 1e-4).unwrap_or_else(|e| panic!("{}: our vertex {e}", path.display()));
        covered(&theirs, &ours, 1e-4).unwrap_or_else(|e| panic!("{}: assimp vertex {e}", path.display()));
    }
}

#[test]
fn damaged_bytes_give_errors_not_panics() {
    let mut inputs = vec![write(&sample())];
    inputs.extend(
        corpus_models()
            .iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 20_000))
            .map(|p| std::fs::read(p).unwrap()),
    );
    for good in inputs {
        for len in (0..good.len()).step_by((good.len() / 300).max(1)) {
            let _ = mdl::decode(&good[..len]);
        }
        let mut state = 0x2545_f491_u32;
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let mut bad = good.clone();
            let at = state as usize % bad.len();
            bad[at] ^= (state >> 24) as u8 | 1;
            if let Ok(scene) = mdl::decode(&bad) {
                let _ = mdview::scene::anim::Pose::at(&scene, scene.first_clip(), 0.5);
                for image in &scene.images {
                    let _ = image.load();
                }
            }
        }
    }
}
