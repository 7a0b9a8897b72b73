//! Quake 3 `.md3`: every corpus file opens (tags-only ones as tags), textures and `.skin`
//! choices resolve by Quake 3's rules, frame-0 parity with Debian's assimp (run when `assimp`
//! is installed), and damaged bytes give errors, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use mdview::formats::{self, Pick, md3};
use mdview::writers::md3::{sample, write};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md3")
}

fn corpus_models() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md3")) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    if !corpus().is_dir() {
        eprintln!("SKIP: no Quake 3 corpus at {}", corpus().display());
        return out;
    }
    walk(&corpus(), &mut out);
    out.sort();
    out
}

/// The player parts: assimp, given `lower|upper|head.md3`, loads the whole three-part player
/// placed on its tags (SOURCES.md: "assimp … loads the whole three-part player"), so its
/// vertices are not this file's alone. Checked below: lower's own vertices are all among them.
fn is_player_part(path: &Path) -> bool {
    ["lower", "upper", "head"].iter().any(|p| path.file_stem().is_some_and(|s| s.eq_ignore_ascii_case(p)))
}

#[test]
fn every_corpus_model_opens() {
    for path in corpus_models() {
        let scene = formats::open(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scene.clips.is_empty(), "{}", path.display());
        let file = md3::read(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(scene.meshes.len(), file.surfaces.len());
        assert!(file.warnings.is_empty(), "{}: {:?}", path.display(), file.warnings);
    }
}

#[test]
fn models_without_surfaces_open_as_tags() {
    let Some(hand) = corpus_models().into_iter().find(|p| p.ends_with("blaster_hand.md3")) else { return };
    let scene = formats::open(&hand).unwrap();
    assert!(scene.meshes.is_empty());
    let names: Vec<&str> = scene.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["tag_weapon"]);
    assert_eq!(scene.clips[0].end, 14.0, "the tag moves over 15 frames");
    let flash = corpus().join("turtlearena-data/models/weapons2/rocketl/rocketl_flash.md3");
    let scene = formats::open(&flash).unwrap();
    assert!(scene.meshes.is_empty() && scene.nodes.is_empty());
}

#[test]
fn textures_follow_quake_3s_rules_and_skins_are_choices() {
    let casey = corpus().join("turtlearena-casey/models/players/casey/head.md3");
    if !casey.is_file() {
        eprintln!("SKIP: no Turtle Arena player in the corpus");
        return;
    }
    // head_default.skin names textures without an extension: the .png beside them.
    let scene = formats::open(&casey).unwrap();
    let choice = scene.choices.iter().find(|c| c.key == md3::CHOICE_SKIN).unwrap();
    assert_eq!(choice.options, ["default", "blue", "red"]);
    let hair = scene.meshes.iter().position(|m| m.name == "h_hair").unwrap();
    let material = scene.meshes[hair].submeshes[0].material.unwrap();
    let location = scene.material_image(material).and_then(|i| i.location()).unwrap();
    assert!(location.ends_with("casey/hair.png"), "{location}");
    // The red skin's hair.
    let red = formats::open_with(&casey, &[Pick { key: md3::CHOICE_SKIN.into(), option: 2 }]).unwrap();
    let location = red.material_image(material).and_then(|i| i.location()).unwrap();
    assert!(location.ends_with("casey/hair_red.png"), "{location}");
    assert!(red.warnings.is_empty(), "{:?}", red.warnings);

    // A bare shader name finds its .jpg; a double extension nobody ships is a warning.
    let blaster = formats::open(&corpus().join("tremulous/models/tremulous/weapons/blaster/blaster.md3")).unwrap();
    assert!(blaster.material_image(0).and_then(|i| i.location()).unwrap().ends_with("blaster.jpg"));
    let wagon = corpus().join("assimp-nonbsd/q3root/models/mapobjects/kt_kubalwagon/european_fnt_v2.md3");
    let wagon = formats::open(&wagon).unwrap();
    assert!(wagon.warnings.iter().any(|w| w.contains("textures/sfx/glass.tga.tga")), "{:?}", wagon.warnings);
    // `$(dir)` in car's skins is the model's folder; both skins are offered, default first.
    let car = formats::open(&corpus().join("turtlearena-data/models/mapobjects/car/car.md3")).unwrap();
    assert_eq!(car.choices[0].options, ["default", "red"]);
    assert!(car.material_image(0).and_then(|i| i.location()).unwrap().ends_with("car/cube1_auv.tga"));
}

#[test]
fn frame_zero_matches_assimp() {
    if Command::new("assimp").arg("version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "assimp must be installed in CI (.ci/run installs assimp-utils)");
        eprintln!("SKIP: assimp is not installed (apt-get install assimp-utils)");
        return;
    }
    let dir = temp_dir("md3-assimp-parity");
    let mut compared = 0;
    for (i, path) in corpus_models().iter().enumerate() {
        let file = md3::read(&std::fs::read(path).unwrap()).unwrap();
        let theirs_path = dir.join(format!("assimp{i}.obj"));
        let out = Command::new("assimp").arg("export").arg(path).arg(&theirs_path).output().unwrap();
        if file.surfaces.is_empty() {
            // assimp refuses these ("NUM_SURFACES is 0"); they open here as tags.
            assert!(!out.status.success(), "assimp now opens {}", path.display());
            continue;
        }
        assert!(out.status.success(), "assimp failed on {}", path.display());
        let theirs = obj_vertices(&std::fs::read_to_string(&theirs_path).unwrap());
        let ours_path = dir.join(format!("ours{i}.obj"));
        let out = Command::new(env!("CARGO_BIN_EXE_mdview"))
            .args(["export", path.to_str().unwrap(), "-o", ours_path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ours = obj_vertices(&std::fs::read_to_string(&ours_path).unwrap());
        // assimp lands Quake (x, y, z) at (x, z, -y) too (formats::quake_axes).
        if is_player_part(path) {
            // assimp's player is all three parts with upper and head moved onto their tags:
            // only the lower body sits where its own file puts it.
            if path.file_stem().is_some_and(|s| s == "lower") {
                covered(&ours, &theirs, 1e-4).unwrap_or_else(|e| panic!("{}: our vertex {e}", path.display()));
            }
            continue;
        }
        covered(&ours, &theirs, 1e-4).unwrap_or_else(|e| panic!("{}: our vertex {e}", path.display()));
        covered(&theirs, &ours, 1e-4).unwrap_or_else(|e| panic!("{}: assimp vertex {e}", path.display()));
        compared += 1;
    }
    if !corpus_models().is_empty() {
        assert!(compared >= 9, "only {compared} files compared");
    }
}

#[test]
fn damaged_bytes_give_errors_not_panics() {
    let mut inputs = vec![write(&sample(3))];
    inputs.extend(
        corpus_models()
            .iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 20_000))
            .map(|p| std::fs::read(p).unwrap()),
    );
    for good in inputs {
        for len in (0..good.len()).step_by((good.len() / 300).max(1)) {
            let _ = md3::decode(&good[..len]);
        }
        let mut state = 0x9e37_79b9_u32;
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let mut bad = good.clone();
            let at = state as usize % bad.len();
            bad[at] ^= (state >> 24) as u8 | 1;
            if let Ok(scene) = md3::decode(&bad) {
                let _ = mdview::scene::anim::Pose::at(&scene, scene.first_clip(), 0.5);
            }
        }
    }
}
