//! The built-in demo park: the committed files are what the generator writes, every model opens
//! cleanly with its animations, and each file shows what it was made to show.

use std::path::PathBuf;

use glam::{Quat, Vec3};
use mdview::formats::reader::Reader;
use mdview::formats::tpw::{FORMAT, anim};
use mdview::scene::{AlphaMode, Channel, NodeKind, Scene, math::is_sheared};

fn committed(name: &str) -> &'static [u8] {
    mdview::demo::files().iter().find(|(n, _)| *n == name).map(|(_, d)| *d).unwrap_or_else(|| panic!("{name}"))
}

fn rgba(png: &[u8]) -> image::RgbaImage {
    image::load_from_memory_with_format(png, image::ImageFormat::Png).unwrap().to_rgba8()
}

/// Every file under `dir`, as `/`-separated paths relative to `root`.
fn files_under(root: &std::path::Path, dir: &std::path::Path) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(root, &path));
        } else {
            out.insert(path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
    out
}

#[test]
fn committed_assets_are_what_make_demo_generates() {
    let generated: Vec<(String, Vec<u8>)> =
        mdview::demo::generate().into_iter().chain(mdview::demo::generate_park()).collect();
    let names: Vec<&str> = generated.iter().map(|(n, _)| n.as_str()).collect();
    let embedded: Vec<&str> = mdview::demo::files().iter().chain(mdview::demo::park_files()).map(|(n, _)| *n).collect();
    assert_eq!(names, embedded, "the embedded list and the generator disagree");
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo"));
    let on_disk = files_under(root, root);
    assert_eq!(on_disk, names.iter().map(|n| n.to_string()).collect(), "assets/demo holds other files");
    let stale = "assets/demo is stale: run `cargo run --example make_demo`";
    for (name, data) in &generated {
        let old = mdview::demo::files()
            .iter()
            .chain(mdview::demo::park_files())
            .find(|(n, _)| n == name)
            .map(|(_, d)| *d)
            .unwrap();
        if name.ends_with(".png") {
            // Pixels, not bytes: a newer PNG encoder may compress the same image differently.
            let (a, b) = (rgba(old), rgba(data));
            assert_eq!(a.dimensions(), b.dimensions(), "{name}: {stale}");
            assert!(a.as_raw() == b.as_raw(), "{name}: pixels differ; {stale}");
        } else {
            assert!(old == data.as_slice(), "{name}: bytes differ; {stale}");
        }
    }
}

fn open(name: &str) -> Scene {
    let dir = mdview::demo::extract().unwrap();
    mdview::formats::open(&dir.join(name)).unwrap()
}

#[test]
fn every_demo_model_opens_without_warnings() {
    let dir: PathBuf = mdview::demo::extract().unwrap();
    for (name, data) in mdview::demo::files() {
        let path = dir.join(name);
        assert_eq!(std::fs::read(&path).unwrap(), *data, "{name} extracted");
        if !name.ends_with(".MD2") {
            continue;
        }
        let scene = mdview::formats::open(&path).unwrap();
        assert!(scene.warnings.is_empty(), "{name}: {:?}", scene.warnings);
        assert!(!scene.meshes.is_empty(), "{name}: an animation opens with its base model");
        for clip in &scene.clips {
            assert!(clip.warnings.is_empty(), "{name} {}: {:?}", clip.name, clip.warnings);
            for track in &clip.tracks {
                assert_eq!(track.skipped, None, "{name} {} track {}", clip.name, track.index);
            }
            // Counted by hand from src/demo.rs: the fountain's one track carries morph and UV;
            // gate C has two doors with scale and visibility, the frame's position, the sign's
            // visibility and one hide-list entry.
            let expected = match (name.get(..4), clip.name.as_str()) {
                (Some("foun"), _) => 2,
                (Some("gate"), "C") => 2 * 2 + 1 + 1 + 1,
                _ => clip.tracks.len(),
            };
            assert_eq!(clip.channels.len(), expected, "{name} {}", clip.name);
        }
        for material in &scene.materials {
            let texture = material.texture.as_deref().unwrap_or_else(|| panic!("{name}: untextured material"));
            assert!(dir.join(format!("{texture}.png")).is_file(), "{name}: no {texture}.png");
        }
    }
}

#[test]
fn island_has_sheared_dummy_palms_and_see_through_water() {
    let scene = open("island.MD2");
    let node = |name: &str| scene.nodes.iter().position(|n| n.name == name).unwrap();
    let (tree1, tree2) = (node("l_tree1"), node("l_tree2"));
    assert_eq!(scene.nodes[tree1].kind, NodeKind::Transform);
    assert!(is_sheared(&scene.nodes[tree1].local));
    assert!(!is_sheared(&scene.nodes[tree2].local));
    for tree in [tree1, tree2] {
        let children = &scene.nodes[tree].children;
        assert_eq!(children.len(), 2);
        assert_eq!(scene.nodes[tree].parent, Some(0));
        assert_eq!(scene.nodes[children[0]].local.w_axis.truncate(), Vec3::ZERO);
        assert_eq!(scene.nodes[children[1]].local.w_axis.truncate(), Vec3::new(0.0, 3.66, 0.0));
    }
    let material = |texture: &str| scene.materials.iter().find(|m| m.texture.as_deref() == Some(texture)).unwrap();
    for texture in ["palm_leaves", "isle_ripple", "sea_water"] {
        assert_eq!(material(texture).alpha, AlphaMode::SeeThrough, "{texture}");
        assert_eq!(material(texture).flags, 0x03);
    }
    assert_eq!(material("isle_grass").alpha, AlphaMode::Opaque);
    // Cut-out leaves: hard alpha only; the water: a real gradient.
    let alphas = |texture: &str| {
        let set: std::collections::BTreeSet<u8> =
            rgba(committed(&format!("{texture}.png"))).pixels().map(|p| p.0[3]).collect();
        set
    };
    assert_eq!(alphas("palm_leaves").into_iter().collect::<Vec<_>>(), [0, 255]);
    assert!(alphas("isle_ripple").len() > 32);
    assert!(alphas("sea_water").len() > 32);
    // The island's grass and sand share the shoreline's source vertices.
    let island = &scene.meshes[0];
    assert_eq!(island.submeshes.len(), 2);
    assert!(island.vertex_source.len() > island.source_positions.len());

    // islandM1 scrolls both water meshes over the 100 frames its block declares.
    let clip = &scene.clips[0];
    assert_eq!(clip.name, "M1");
    assert_eq!(clip.end, 100.0);
    let raw = anim::decode_anim(&Reader::new(committed("islandM1.MD2"), FORMAT)).unwrap();
    assert_eq!(raw.last_frame, 100);
    let scrolled: Vec<usize> = clip
        .channels
        .iter()
        .map(|c| match c {
            Channel::UvKeys { mesh, .. } => *mesh,
            other => panic!("{other:?}"),
        })
        .collect();
    let names: Vec<&str> = scrolled.iter().map(|&m| scene.meshes[m].name.as_str()).collect();
    assert_eq!(names, ["ripples", "sea"]);
}

fn rotation_keys(scene: &Scene, clip: usize, node: usize) -> Vec<(f32, Quat)> {
    scene.clips[clip]
        .channels
        .iter()
        .find_map(|c| match c {
            Channel::NodeRotationEased { node: n, keys, .. } if *n == node => {
                Some(keys.iter().map(|k| (k.time, k.value)).collect())
            }
            _ => None,
        })
        .unwrap()
}

#[test]
fn gate_is_built_then_its_doors_swing_eased_while_the_sign_blinks() {
    let scene = open("gate.MD2");
    assert_eq!(scene.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["C", "M1", "M2"]);
    let quarter = std::f32::consts::FRAC_PI_2;
    for (door, sign) in [(0, 1.0), (1, -1.0)] {
        assert!(scene.nodes[door].name.starts_with("door"));
        let open = rotation_keys(&scene, 1, door);
        let shut = rotation_keys(&scene, 2, door);
        assert_eq!((open.first().unwrap().0, open.last().unwrap().0), (0.0, 30.0));
        assert!(open[0].1.abs_diff_eq(Quat::IDENTITY, 1e-4));
        assert!(open.last().unwrap().1.abs_diff_eq(Quat::from_rotation_y(sign * quarter), 1e-3));
        // M2 is M1 played backwards.
        for ((t_open, q_open), (t_shut, q_shut)) in open.iter().zip(shut.iter().rev()) {
            assert_eq!(*t_open, 30.0 - t_shut);
            assert_eq!(q_open, q_shut);
        }
    }
    // Eased by Advisorm1's curve 0: at frame 15 the even fraction 0.5 becomes
    // (141 + 35 * r) / 255 with r = 4.4999976 - 4, so the door has turned 55.94 degrees, not 45.
    let eased = (141.0 + 35.0 * (0.5 * 8.999_995f32 - 4.0)) / 255.0;
    let pose = mdview::scene::anim::Pose::at(&scene, Some(1), 15.0);
    let turned = Quat::from_mat4(&pose.locals[0]).angle_between(Quat::IDENTITY);
    assert!((turned - eased * quarter).abs() < 1e-3, "{} vs {}", turned.to_degrees(), (eased * quarter).to_degrees());
    // Both doors open towards -Z.
    let pose = mdview::scene::anim::Pose::at(&scene, Some(1), 30.0);
    for door in [0, 1] {
        let far = pose.world[door].transform_point3(Vec3::new(if door == 0 { 1.8 } else { -1.8 }, 1.0, 0.0));
        assert!(far.z < -1.5, "door {door} at {far}");
    }
    // The sign blinks: entries 0, 4, -10, 16, -22, 28.
    let sign = scene.nodes.iter().position(|n| n.name == "gate_sign").unwrap();
    let shown: Vec<bool> = [0.0, 5.0, 11.0, 17.0, 23.0, 29.0]
        .iter()
        .map(|&f| mdview::scene::anim::Pose::at(&scene, Some(1), f).visible[sign])
        .collect();
    assert_eq!(shown, [false, true, false, true, false, true]);
    // Construction: the sign starts hidden (hide list), the doors grow in, and the last frame is
    // the finished gate, the rest pose.
    let build = |f: f32| mdview::scene::anim::Pose::at(&scene, Some(0), f);
    assert!(!build(0.0).visible[sign] && !build(30.0).visible[0]);
    assert!(build(0.0).world[2].w_axis.y < -4.0, "the frame starts underground");
    let built = build(scene.clips[0].end);
    let rest = mdview::scene::anim::Pose::rest(&scene);
    for node in 0..scene.nodes.len() {
        assert!(built.visible[node], "node {node} shown when built");
        assert!(built.world[node].abs_diff_eq(rest.world[node], 1e-5), "node {node}");
    }
}

#[test]
fn fountain_water_morphs_in_its_own_box_and_flows_with_five_uv_keys() {
    let scene = open("fountain.MD2");
    let water = scene.meshes.iter().position(|m| m.name == "water").unwrap();
    let vertex_count = scene.meshes[water].source_positions.len();
    let raw = anim::decode_anim(&Reader::new(committed("fountainM1.MD2"), FORMAT)).unwrap();
    assert_eq!(raw.tracks.len(), 1);
    let track = &raw.tracks[0];
    assert_eq!(track.flags, 0x1000 | 0x10000);
    let morph = track.morph.clone().unwrap().unwrap();
    let channels: usize = morph.records.iter().map(|r| r.channels.len()).sum();
    assert_eq!(channels, vertex_count + 2);
    assert!(morph.records[0].frames.len() >= 5);
    // The track box spans the wave, which the mesh's rest box does not.
    assert!(morph.step.y * 1023.0 > scene.meshes[water].bounds.size().y + 0.01);
    let uv = track.uv.clone().unwrap().unwrap();
    assert_eq!(uv.len(), scene.meshes[water].vertex_source.len());
    assert!(uv.iter().all(|e| e.keys.len() == 5));

    let clip = &scene.clips[0];
    let kinds: Vec<&str> = clip
        .channels
        .iter()
        .map(|c| match c {
            Channel::VertexMorph { mesh, .. } if *mesh == water => "morph",
            Channel::UvKeys { mesh, .. } if *mesh == water => "uv",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["morph", "uv"]);
    // The water moves between keyframes but the rim stays put.
    let rest = mdview::scene::anim::Pose::at(&scene, Some(0), 0.0).mesh_positions(&scene, water);
    let later = mdview::scene::anim::Pose::at(&scene, Some(0), 8.0).mesh_positions(&scene, water);
    let moved = rest.iter().zip(&later).filter(|(a, b)| (a.y - b.y).abs() > 0.01).count();
    assert!(moved > rest.len() / 3, "{moved} of {} moved", rest.len());
    let rim_radius = rest.iter().map(|p| p.x.hypot(p.z)).fold(0.0, f32::max);
    for (a, b) in rest.iter().zip(&later) {
        if a.x.hypot(a.z) > rim_radius - 0.01 {
            assert!((a.y - b.y).abs() < 0.01);
        }
    }
}
