//! Quake II `.md2`: the spec's formula on hand-made bytes, limits, clips, skins and PCX, every
//! corpus file, and frame-0 parity with Debian's assimp (run when `assimp` is installed).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use mdview::formats::quake2;
use mdview::formats::{self, quake_axes};
use mdview::scene::anim::Pose;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md2")
}

fn corpus_models() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(corpus()) else {
        eprintln!("SKIP: no Quake II corpus at {}", corpus().display());
        return out;
    };
    for dir in dirs.flatten() {
        for file in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            let p = file.path();
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"))
                && !p.ends_with("malformed_zero_numvertices.md2")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_spec_worked_example_decodes_exactly() {
    let file = quake2::read(&quake2_fixture().to_bytes()).unwrap();
    // 64 × 0.5 − 32 = 0, 192 × 0.5 − 32 = 64, 32 × 0.5 − 16 = 0 (Quake axes).
    assert_eq!(file.frames[0].positions[0].to_array(), [0.0, 64.0, 0.0]);
    assert_eq!(file.frames[0].normal_indices[0], 5);
    // Every frame follows v × scale + translate exactly.
    for (f, spec) in quake2_fixture().frames.iter().enumerate() {
        for (v, packed) in spec.vertices.iter().enumerate() {
            let expected: [f32; 3] = std::array::from_fn(|k| f32::from(packed[k]) * spec.scale[k] + spec.translate[k]);
            assert_eq!(file.frames[f].positions[v].to_array(), expected, "frame {f} vertex {v}");
        }
    }
    let scene = quake2::decode(&quake2_fixture().to_bytes()).unwrap();
    // In scene axes (x, z, -y): (0, 0, -64); normal 5 = Quake up = scene +Y.
    assert_eq!(scene.meshes[0].source_positions[0].to_array(), [0.0, 0.0, -64.0]);
    let first_render_vertex = scene.meshes[0].vertex_source.iter().position(|&s| s == 0).unwrap();
    assert_eq!(scene.meshes[0].normals[first_render_vertex].to_array(), [0.0, 1.0, 0.0]);
}

#[test]
fn render_vertices_are_unique_vertex_st_pairs() {
    let scene = quake2::decode(&quake2_fixture().to_bytes()).unwrap();
    let mesh = &scene.meshes[0];
    // Pairs: (0,0) (1,1) (2,2) (0,3) (3,0) → five render vertices, vertex 0 twice.
    assert_eq!(mesh.vertex_source.len(), 5);
    assert_eq!(mesh.vertex_source.iter().filter(|&&s| s == 0).count(), 2);
    // st / skin size, v measured from the top.
    let uv_of = |source: u32, u: f32, v: f32| {
        mesh.vertex_source.iter().zip(&mesh.uvs).any(|(&s, uv)| s == source && uv.x == u && uv.y == v)
    };
    assert!(uv_of(2, 1.0, 1.0) && uv_of(0, 0.5, 0.5) && uv_of(3, 0.0, 0.0));
    // Stored clockwise (0,1,2) becomes (0,2,1).
    assert_eq!(mesh.triangles[0], [0, 2, 1]);
}

#[test]
fn frames_group_into_clips_and_play_at_ten_fps() {
    let scene = quake2::decode(&quake2_fixture().to_bytes()).unwrap();
    let clips: Vec<(&str, f32, f32, f32)> =
        scene.clips.iter().map(|c| (c.name.as_str(), c.start, c.end, c.rate)).collect();
    assert_eq!(clips, [("stand", 0.0, 1.0, 10.0), ("run", 2.0, 2.0, 10.0)]);
    // Halfway between stand01 and stand02, vertex 1: (0,0,0)·0.5 − t and (1,2,3)·0.25 − t.
    let pose = Pose::at(&scene, Some(0), 0.5);
    let source1 = scene.meshes[0].vertex_source.iter().position(|&s| s == 1).unwrap();
    let q = glam::Vec3::new((-32.0 + (0.25 - 32.0)) / 2.0, (-32.0 + (0.5 - 32.0)) / 2.0, (-16.0 + (0.75 - 16.0)) / 2.0);
    let expected = quake_axes::to_scene(q);
    assert!(pose.mesh_positions(&scene, 0)[source1].abs_diff_eq(expected, 1e-6));
}

#[test]
fn engine_limits_are_typed_errors() {
    let bytes = quake2_fixture().to_bytes();
    let set = |at: usize, value: i32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        quake2::decode(&b).unwrap_err()
    };
    assert_eq!(set(4, 7).field, "version");
    assert_eq!(set(12, 481).field, "skinheight");
    assert_eq!(set(24, 0).field, "num_xyz");
    assert_eq!(set(24, 2049).field, "num_xyz");
    assert_eq!(set(28, 0).field, "num_st");
    assert_eq!(set(32, 4097).field, "num_tris");
    assert_eq!(set(40, 513).field, "num_frames");
    assert_eq!(set(20, 33).field, "num_skins");
    assert_eq!(set(16, 39).field, "framesize");
    assert_eq!(set(64, bytes.len() as i32 + 1).field, "ofs_end");
    assert_eq!(set(56, -4).field, "ofs_frames");
    let err = set(20, -1);
    assert_eq!((err.format, err.offset), ("quake2-md2", 20));
}

#[test]
fn the_malformed_corpus_file_gives_a_clear_error() {
    let path = corpus().join("assimp/malformed_zero_numvertices.md2");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("SKIP: {} not present", path.display());
        return;
    };
    let err = formats::decode_bytes(&bytes).unwrap_err();
    assert_eq!(err.field, "num_xyz");
    assert!(err.to_string().contains("quake2-md2"));
}

#[test]
fn every_corpus_model_opens_with_clips() {
    let models = corpus_models();
    for path in &models {
        let scene = formats::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(scene.format.id(), "quake2-md2");
        assert!(!scene.clips.is_empty(), "{}", path.display());
        let frames: f32 = scene.clips.iter().map(|c| c.end - c.start + 1.0).sum();
        let header_frames = std::fs::read(path).map(|b| i32::from_le_bytes(b[40..44].try_into().unwrap())).unwrap();
        assert_eq!(frames as i32, header_frames, "{}: every frame is in exactly one clip", path.display());
    }
    if !models.is_empty() {
        assert_eq!(models.len(), 13, "13 valid models in the corpus (plus the malformed one)");
    }
}

#[test]
fn hunter_skins_resolve_and_two_are_missing() {
    let path = corpus().join("hunter/tris.md2");
    if !path.exists() {
        eprintln!("SKIP: hunter not in the corpus");
        return;
    }
    let scene = formats::open(&path).unwrap();
    // Five skins of its own, then the weapon's (see the weapon test).
    assert_eq!(scene.materials.len(), 6);
    let location = |material: usize| scene.material_image(material).and_then(|image| image.location());
    let resolved = (0..5).filter(|&m| location(m).is_some()).count();
    assert_eq!(resolved, 3);
    let missing: Vec<&str> = scene.warnings.iter().map(String::as_str).filter(|w| w.contains("not found")).collect();
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(missing.iter().any(|w| w.contains("ctf_b.pcx")) && missing.iter().any(|w| w.contains("ctf_r.pcx")));
    // Every resolved PCX skin of the model itself decodes (the weapon's is 64x64).
    for m in 0..5 {
        if let Some(p) = location(m) {
            let img = quake2::pcx::decode(&std::fs::read(p).unwrap()).unwrap();
            assert_eq!(img.dimensions(), (256, 256));
        }
    }
}

#[test]
fn every_corpus_pcx_decodes() {
    for dir in ["hunter", "bug"] {
        let Ok(entries) = std::fs::read_dir(corpus().join(dir)) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pcx")) {
                let img =
                    quake2::pcx::decode(&std::fs::read(&p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(img.width() > 0 && img.height() > 0);
            }
        }
    }
}

#[test]
fn a_skinless_model_finds_an_image_named_like_it() {
    let path = corpus().join("assimp/sydney.md2");
    if !path.exists() {
        return;
    }
    let scene = formats::open(&path).unwrap();
    let location = scene.material_image(0).and_then(|image| image.location());
    assert!(location.as_ref().is_some_and(|p| p.ends_with("sydney.bmp")), "{location:?}");
}

/// A player model that names no skin (`num_skins = 0`) offers the images in its folder: the
/// one named like the folder first, then the others alphabetically, never the icon nor the
/// weapon's skin. Picking the other one reopens the model drawing with it.
#[test]
fn a_player_model_without_skins_offers_its_folder_images() {
    let root = temp_dir("q2-folder-skins");
    let path = quake2_player_folder(&root);
    let scene = formats::open(&path).unwrap();
    assert_eq!(scene.raw.iter().find(|r| r.name == "num_skins").map(|r| r.value), Some(0));
    let skin = scene.choices.iter().find(|c| c.key == quake2::skins::CHOICE_SKIN).expect("a skin choice");
    assert_eq!(skin.options, ["x.pcx", "other.pcx"]);
    assert_eq!(skin.available, [true, true]);
    assert_eq!(skin.selected, Some(0));
    let weapon = scene.choices.iter().find(|c| c.key == quake2::skins::CHOICE_WEAPON_SKIN).expect("weapon skin");
    assert_eq!(weapon.options, ["weapon.pcx"]);
    let drawn = |scene: &mdview::scene::Scene, mesh: usize| {
        let material = scene.meshes[mesh].submeshes[0].material.unwrap();
        scene.material_image(material).and_then(|image| image.location()).unwrap_or_default()
    };
    assert!(drawn(&scene, 0).ends_with("x.pcx"), "{}", drawn(&scene, 0));
    assert!(drawn(&scene, 1).ends_with("weapon.pcx"), "{}", drawn(&scene, 1));
    // The pixels are the skin's: the flat colour written into x.pcx.
    let material = scene.meshes[0].submeshes[0].material.unwrap();
    let pixels = scene.material_image(material).unwrap().load().unwrap();
    assert_eq!((pixels.width, pixels.height), (8, 8));
    assert_eq!(pixels.rgba[..4], [X_SKIN[0], X_SKIN[1], X_SKIN[2], 255]);
    assert!(scene.warnings.iter().all(|w| !w.contains("not found")), "{:?}", scene.warnings);

    let picked = formats::open_with(&path, &[formats::Pick { key: "skin".into(), option: 1 }]).unwrap();
    assert!(drawn(&picked, 0).ends_with("other.pcx"), "{}", drawn(&picked, 0));
    assert_eq!(picked.choices[0].selected, Some(1));

    // `info` lists them as folder skins, with the file each resolved to.
    let out = Command::new(env!("CARGO_BIN_EXE_mdview")).args(["info", path.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("folder skin 0: x.pcx: ") && text.contains("folder skin 1: other.pcx: "), "{text}");
    assert!(text.contains("Skin (skin): *x.pcx, other.pcx"), "{text}");
    // `export` copies the skin the faces draw with beside the MTL as PNG, and names it there;
    // the other skin, which no face uses, stays where it is.
    let export = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mdview"))
            .args(["export", path.to_str().unwrap(), "-o", root.join("x.obj").to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(root.join("x.mtl")).unwrap()
    };
    let mtl = export(&[]);
    assert!(mtl.contains("map_Kd x_x.png\n"), "{mtl}");
    assert!(!root.join("x_other.png").exists());
    let copy = image::open(root.join("x_x.png")).unwrap().to_rgba8();
    assert_eq!(copy.get_pixel(0, 0).0, [X_SKIN[0], X_SKIN[1], X_SKIN[2], 255]);
    // Left in place: the MTL names the file the skin resolved to.
    let mtl = export(&["--no-textures"]);
    assert!(mtl.contains(&format!("map_Kd {}", root.join("x").join("x.pcx").display())), "{mtl}");
    std::fs::remove_dir_all(&root).ok();
}

/// The damage sweep over the folder-skin fixture: the skin truncated at every byte and with
/// each byte's high bit flipped still opens the model, and loading the skin gives pixels of the
/// stated size or an error, never a panic.
#[test]
fn damaged_folder_skins_open_and_load_without_panicking() {
    let root = temp_dir("q2-folder-skins-damage");
    let path = quake2_player_folder(&root);
    let skin = root.join("x").join("x.pcx");
    let good = std::fs::read(&skin).unwrap();
    let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|len| good[..len].to_vec()).collect();
    variants.extend((0..good.len()).map(|i| {
        let mut flipped = good.clone();
        flipped[i] ^= 0x80;
        flipped
    }));
    // Every variant through the one image decoder the scene's images load with...
    for bytes in &variants {
        if let Ok(image) = formats::assets::decode_image(bytes, "x.pcx", "x.pcx".into()) {
            assert_eq!(image.rgba.len() as u64, u64::from(image.width) * u64::from(image.height) * 4);
        }
    }
    // ...and a few through the whole open and load path.
    for bytes in variants.iter().step_by(97) {
        std::fs::write(&skin, bytes).unwrap();
        let scene = formats::open(&path).unwrap();
        let material = scene.meshes[0].submeshes[0].material.unwrap();
        let _ = scene.material_image(material).unwrap().load();
    }
    std::fs::remove_dir_all(&root).ok();
}

/// A skin path with backslashes (as `players\drfreak\weapon.pcx` is stored) resolves from the
/// folder above, the same file whether `info` or the renderer asks.
#[test]
fn backslash_skin_paths_resolve() {
    let root = temp_dir("q2-backslash");
    let dir = root.join("players").join("drfreak");
    std::fs::create_dir_all(&dir).unwrap();
    write(&dir, "Weapon.PCX", &flat_pcx(WEAPON_SKIN));
    let path = write(&dir, "w.md2", &quake2_quad(0, &["players\\drfreak\\weapon.pcx"]).to_bytes());
    let scene = formats::open(&path).unwrap();
    let location = scene.material_image(0).and_then(|image| image.location());
    assert_eq!(location.map(PathBuf::from), Some(dir.join("Weapon.PCX")));
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn frame_zero_matches_assimp() {
    if Command::new("assimp").arg("version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "assimp must be installed in CI (.ci/run installs assimp-utils)");
        eprintln!("SKIP: assimp is not installed (apt-get install assimp-utils)");
        return;
    }
    let dir = temp_dir("assimp-parity");
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
        // Only the model itself: a player model's weapon.md2 is attached as a second object.
        let objects = obj_positions(&std::fs::read_to_string(&ours_path).unwrap());
        let ours = objects.into_iter().find(|(name, _)| name == "model").map(|(_, v)| v).unwrap_or_default();
        // assimp's importer lands Quake (x, y, z) at (x, z, -y), our one documented mapping
        // (formats::quake_axes), so positions compare directly.
        covered(&theirs, &ours, 1e-4).unwrap_or_else(|e| panic!("{}: assimp vertex {e}", path.display()));
        covered(&ours, &theirs, 1e-4).unwrap_or_else(|e| panic!("{}: our vertex {e}", path.display()));
    }
}

#[test]
fn a_player_model_shows_its_weapon_on_the_same_frames() {
    let path = corpus().join("hunter/tris.md2");
    if !path.exists() {
        eprintln!("SKIP: hunter not in the corpus");
        return;
    }
    let scene = formats::open(&path).unwrap();
    assert_eq!(scene.nodes[1].name, "weapon");
    assert_eq!(scene.meshes[1].source_positions.len(), 20);
    let weapon_skin = scene.material_image(5).and_then(|image| image.location());
    assert!(weapon_skin.as_ref().is_some_and(|p| p.ends_with("weapon.pcx")), "{weapon_skin:?}");
    assert!(scene.clips.iter().all(|c| c.channels.len() == 2), "every clip poses the weapon too");
    // At frame 40 (run) the weapon follows its own frame 40.
    let run = mdview::scene::resolve_clip(&scene, "run").unwrap();
    let weapon_alone = quake2::decode(&std::fs::read(corpus().join("hunter/weapon.md2")).unwrap()).unwrap();
    let alone_run = mdview::scene::resolve_clip(&weapon_alone, "run").unwrap();
    let with = Pose::at(&scene, Some(run), 42.0).mesh_positions(&scene, 1);
    let alone = Pose::at(&weapon_alone, Some(alone_run), 42.0).mesh_positions(&weapon_alone, 0);
    assert_eq!(with, alone);

    // bug's weapon has 173 frames against the model's 198: a warning, not an error.
    let bug = corpus().join("bug/tris.MD2");
    if bug.exists() {
        let scene = formats::open(&bug).unwrap();
        assert_eq!(scene.nodes.len(), 2);
        assert!(scene.warnings.iter().any(|w| w.contains("weapon.md2 has 173 frames")), "{:?}", scene.warnings);
    }
}
