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
    assert_eq!(key.spin_degrees_per_sec, Some(100.0), "flags 8, EF_ROTATE: it spins");
    // Other flags are listed by name (lavaball: flags 1, EF_ROCKET), and do not spin.
    let lavaball = formats::open(&corpus().join("blockquake/copper1.1_lavaball.mdl")).unwrap();
    let flags = lavaball.details[0].rows.iter().find_map(|row| {
        let cells: Vec<(&str, &str)> = row.cells().collect();
        (cells.first() == Some(&("field", "flags"))).then(|| cells.get(1).map(|c| c.1.to_string()))
    });
    assert_eq!(flags, Some(Some("EF_ROCKET".to_string())));
    assert_eq!(lavaball.spin_degrees_per_sec, None);
}

/// Every triangle corner of every corpus model samples its texture vertex's texel centre, an
/// on-seam vertex of a back-facing triangle `skinwidth / 2` further right (`s + skinwidth / 2`,
/// modelgen.h); the corpus holds such corners, so the rule is exercised on real files.
#[test]
fn on_seam_corners_of_back_facing_triangles_sample_the_back_half_in_the_corpus() {
    let mut back_seam_corners = 0;
    for path in corpus_models() {
        let file = mdl::read(&std::fs::read(&path).unwrap()).unwrap();
        let scene = mdl::decode(&std::fs::read(&path).unwrap()).unwrap();
        let mesh = &scene.meshes[0];
        let (w, h) = (file.header.skin_width as f32, file.header.skin_height as f32);
        assert_eq!(mesh.triangles.len(), file.triangles.len());
        for (stored, drawn) in file.triangles.iter().zip(&mesh.triangles) {
            // Stored clockwise, drawn counter-clockwise: corners 0, 2, 1.
            for (vertex, corner) in [stored.vertices[0], stored.vertices[2], stored.vertices[1]].into_iter().zip(drawn)
            {
                let st = file.st[vertex as usize];
                let back = st.on_seam && !stored.faces_front;
                back_seam_corners += usize::from(back);
                let s = st.s as f32 + if back { w / 2.0 } else { 0.0 };
                let expected = glam::Vec2::new((s + 0.5) / w, (st.t as f32 + 0.5) / h);
                let uv = mesh.uvs[*corner as usize];
                assert!(uv.abs_diff_eq(expected, 1e-6), "{}: vertex {vertex}: {uv} not {expected}", path.display());
                assert_eq!(mesh.vertex_source[*corner as usize], vertex);
            }
        }
    }
    if !corpus_models().is_empty() {
        assert!(back_seam_corners > 0, "no corpus triangle has an on-seam corner facing back");
    }
}

/// The trailing QME blocks are as long as SOURCES.md says, and each opens with a note.
#[test]
fn trailing_blocks_match_the_corpus_notes() {
    let expected = [
        ("assimp-nonbsd/steg.mdl", 7293),
        ("assimp-nonbsd/tekmechbot.MDL", 371_719),
        ("lightrp/rp_money.mdl", 2063),
        ("blockquake/vanilla1.1_flame.mdl", 126_915),
    ];
    for (name, bytes) in expected {
        let path = corpus().join(name);
        if !path.is_file() {
            eprintln!("SKIP: {} is not in the corpus", path.display());
            continue;
        }
        let file = mdl::read(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(file.trailing.len(), bytes, "{name}");
        assert!(file.trailing.starts_with(b"QMEX"), "{name}");
        let scene = formats::open(&path).unwrap();
        let note = format!("{bytes} bytes after the last frame (a Quake Model Editor block");
        assert!(scene.warnings.iter().any(|w| w.starts_with(&note)), "{name}: {:?}", scene.warnings);
    }
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

/// An `EF_ROTATE` item spins in the viewer at the game's 100° a second, even on a single frame,
/// and a skin group cycles there: the clock runs with nothing else to play.
#[cfg(feature = "viewer")]
#[test]
fn the_viewer_spins_ef_rotate_items_and_cycles_skin_groups() {
    let mut file = sample();
    file.frames.truncate(1);
    file.header.frame_count = 1;
    let mut scene = mdl::decode(&write(&file)).expect("decodes");
    scene.meshes[0].submeshes[0].material = Some(1);
    let summary = mdview::info::Summary::of(&scene);
    let mut doc = mdview::app::state::Document::new("item.mdl".into(), scene, summary);
    assert!(doc.timeline.playing, "a still clip of a spinning item keeps the clock running");
    let x_axis =
        |doc: &mdview::app::state::Document| doc.pose.mesh_world(&doc.scene, 0).transform_vector3(glam::Vec3::X);
    assert!(x_axis(&doc).abs_diff_eq(glam::Vec3::X, 1e-5));
    doc.timeline.advance(0.15);
    doc.update_pose();
    // 0.15 s: 15° about up, and the group's second picture (it ends at 0.2 s).
    let turned = glam::Quat::from_rotation_y(15f32.to_radians()) * glam::Vec3::X;
    assert!(x_axis(&doc).abs_diff_eq(turned, 1e-4), "{}", x_axis(&doc));
    assert_eq!(doc.pose.material_images[1], Some(2));
}

/// The renderer draws the picture a skin group's cycle is at.
#[cfg(feature = "viewer")]
#[test]
fn the_renderer_draws_the_skin_group_picture_of_the_moment() {
    use mdview::render::offscreen::{OffscreenRenderer, RenderOptions};
    let mut scene = mdl::decode(&write(&sample())).expect("decodes");
    scene.meshes[0].submeshes[0].material = Some(1);
    for material in &mut scene.materials {
        (material.two_sided, material.unlit) = (true, true);
    }
    let mut renderer = match OffscreenRenderer::new(&scene) {
        Ok(r) => r,
        Err(e) if std::env::var_os("CI").is_none() => return eprintln!("SKIP: no wgpu adapter ({e:#})"),
        Err(e) => panic!("CI is set but no wgpu adapter was found: {e:#}"),
    };
    let view = RenderOptions::framed(&scene, [64, 64], 30.0, 60.0).view;
    let mut centre_at = |secs: f32| {
        let mut pose = mdview::scene::anim::Pose::default();
        pose.global_time = Some(secs * mdl::FRAMES_PER_SECOND);
        pose.evaluate(&scene, None, 0.0);
        *renderer.render(&scene, &pose, &view).expect("renders").get_pixel(32, 32)
    };
    let (first, second, first_again) = (centre_at(0.05), centre_at(0.15), centre_at(0.25));
    assert_ne!(first, second, "the picture changes at 0.1 s");
    assert_eq!(first, first_again, "and comes round again after 0.2 s");
    // The first picture is palette entry 15, a light grey.
    assert!(first.0[..3].iter().all(|&c| c > 200), "{first:?}");
}

/// glTF cannot swap images: a skin group exports its first picture, with a note that says so.
#[test]
fn gltf_export_notes_a_skin_group_and_keeps_its_first_picture() {
    let scene = mdl::decode(&write(&sample())).expect("decodes");
    let doc = mdview::export::gltf::build(&scene).expect("exports");
    let note = doc.notes.iter().find(|n| n.contains("cycles through 2 images"));
    assert!(note.is_some_and(|n| n.contains("material 1") && n.contains("first")), "{:?}", doc.notes);
    assert_eq!(doc.json["materials"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc.json["images"].as_array().map(Vec::len), Some(2), "skin 0 and the group's first picture");
}
