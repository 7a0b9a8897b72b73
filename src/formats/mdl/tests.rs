//! Unit tests of the `.mdl` reader and scene on files made by the writer.

use glam::{Vec2, Vec3};

use super::*;
use crate::formats::Pick;
use crate::scene::anim::Pose as ScenePose;
use crate::writers::mdl::{sample, write};

#[test]
fn the_writer_round_trips_through_the_reader() {
    let file = sample();
    assert_eq!(read(&write(&file)).unwrap(), file);
}

#[test]
fn on_seam_vertices_of_back_facing_triangles_take_the_back_half_of_the_skin() {
    let scene = decode(&write(&sample())).unwrap();
    let mesh = &scene.meshes[0];
    // Vertex 1 twice: s = 1 on the front triangle, 1 + 4/2 on the back one; texel centres.
    assert_eq!(mesh.vertex_source, [0, 2, 1, 3, 1]);
    assert_eq!(mesh.uvs[2], Vec2::new(1.5 / 4.0, 0.25));
    assert_eq!(mesh.uvs[4], Vec2::new(3.5 / 4.0, 0.25));
    // Stored clockwise, drawn counter-clockwise.
    assert_eq!(mesh.triangles, [[0, 2, 1], [0, 4, 3]]);
}

#[test]
fn simple_frames_play_at_ten_per_second_and_groups_at_their_intervals() {
    let scene = decode(&write(&sample())).unwrap();
    let clips: Vec<(&str, f32, f32)> = scene.clips.iter().map(|c| (c.name.as_str(), c.start, c.end)).collect();
    // fly2 shows from the end of fly1's 0.1 s: one frame unit later.
    assert_eq!(clips, [("walk", 0.0, 1.0), ("fly", 2.0, 3.0)]);
    // scale 0.5, origin (-1, 0, 0): vertex 2 of walk2 is Quake (0, 1, 1), scene (0, 1, -1).
    let at = |clip: usize, time: f32| ScenePose::at(&scene, Some(clip), time).mesh_positions(&scene, 0)[1];
    assert!(at(0, 1.0).abs_diff_eq(Vec3::new(0.0, 1.0, -1.0), 1e-6));
    assert!(at(0, 0.5).abs_diff_eq(Vec3::new(0.0, 0.5, -1.0), 1e-6));
    assert!(at(1, 2.5).abs_diff_eq(Vec3::new(0.0, 2.5, -1.0), 1e-6));
}

#[test]
fn skins_are_palette_pictures_one_choice_per_skin() {
    let scene = decode(&write(&sample())).unwrap();
    let choice = &scene.choices[0];
    assert_eq!(choice.options.len(), 2, "{:?}", choice.options);
    assert!(choice.options[1].starts_with("skin 1 (group of 2"), "{:?}", choice.options);
    let grey = scene.images[1].load().unwrap();
    assert_eq!((grey.width, grey.height), (4, 2));
    assert_eq!(grey.rgba[..4], [235, 235, 235, 255], "palette entry 15");
    assert_eq!(scene.images[0].load().unwrap().rgba[4..8], [15, 15, 15, 255], "palette entry 1");
}

#[test]
fn a_skin_group_cycles_its_pictures_by_their_intervals_whatever_clip_plays() {
    let mut file = sample();
    // Skin 1, the group of two (until 0.1 s and 0.2 s), worn.
    let scene = assemble::build_scene(
        read(&write(&file)).unwrap(),
        palette::standard(),
        "test",
        &[Pick { key: CHOICE_SKIN.into(), option: 1 }],
    );
    let group = &scene.materials[1];
    assert_eq!(group.image, Some(1), "the first picture stands for the group when still");
    let cycle = group.image_cycle.as_ref().expect("a cycle");
    assert_eq!(cycle.images, [1, 2]);
    // On the global clock in frame units (10 per second): 1 and 2 frames.
    assert!(cycle.ends.iter().zip([1.0, 2.0]).all(|(a, b)| (a - b).abs() < 1e-5), "{:?}", cycle.ends);
    assert_eq!(scene.meshes[0].submeshes[0].material, Some(1));
    let shown = |clip: Option<usize>, global_secs: f32| {
        let mut pose = ScenePose::default();
        pose.global_time = Some(global_secs * FRAMES_PER_SECOND);
        pose.evaluate(&scene, clip, 0.0);
        pose.material_images[1]
    };
    assert_eq!(shown(Some(0), 0.05), Some(1));
    assert_eq!(shown(Some(0), 0.15), Some(2));
    assert_eq!(shown(Some(1), 0.25), Some(1), "0.25 s is 0.05 s into the second round");
    assert_eq!(shown(None, 0.15), Some(2), "the rest pose cycles too");
    assert!(scene.moves_on_global_clock());
    let rows = &scene.details.iter().find(|d| d.title == "MDL skins").expect("a skins table").rows;
    assert_eq!(rows.len(), 2);
    // A single skin holds still.
    file.skins.truncate(1);
    file.header.skin_count = 1;
    file.header.flags = 0;
    let still = decode(&write(&file)).unwrap();
    assert!(still.materials.iter().all(|m| m.image_cycle.is_none()));
    assert!(!still.moves_on_global_clock());
}

#[test]
fn ef_rotate_items_spin_at_the_games_100_degrees_a_second() {
    let scene = decode(&write(&sample())).unwrap();
    assert_eq!(sample().header.flag_names(), ["EF_ROTATE"]);
    assert_eq!(scene.spin_degrees_per_sec, Some(100.0));
    let cells = |r: &crate::scene::DetailRow| r.cells().map(|(_, v)| v.to_string()).collect::<Vec<_>>();
    let rows: Vec<Vec<String>> = scene.details[0].rows.iter().map(cells).collect();
    assert!(rows.contains(&vec!["flags".to_string(), "EF_ROTATE".to_string()]), "{rows:?}");
    assert!(rows.iter().any(|r| r[0] == "spin" && r[1].starts_with("100 degrees a second")), "{rows:?}");
    // A quarter turn about up takes scene +X to -Z (counter-clockwise seen from above, as
    // Quake's yaw grows).
    let mut pose = ScenePose::rest(&scene);
    let before = pose.mesh_world(&scene, 0).transform_point3(Vec3::X);
    pose.turn_about_up(90f32.to_radians());
    let after = pose.mesh_world(&scene, 0).transform_point3(Vec3::X);
    assert!(before.abs_diff_eq(Vec3::X, 1e-6));
    assert!(after.abs_diff_eq(Vec3::NEG_Z, 1e-6), "{after}");
}

#[test]
fn trailing_bytes_open_with_a_note() {
    let mut file = sample();
    file.trailing = b"QMEX and more".to_vec();
    let read_back = read(&write(&file)).unwrap();
    assert_eq!(read_back.trailing, file.trailing);
    assert!(read_back.warnings.iter().any(|w| w.contains("13 bytes") && w.contains("Quake Model Editor")));
}

#[test]
fn bad_fields_name_themselves_and_their_offset() {
    let good = write(&sample());
    let mut bad = good.clone();
    bad[4] = 7;
    let err = read(&bad).unwrap_err();
    assert_eq!((err.field.as_str(), err.offset), ("version", 4));
    // The first triangle's first vertex index, past numverts.
    let skins = 4 + 8 + 4 + 4 + 8 + 16;
    let triangles = (HEADER_SIZE as usize) + skins + 4 * 12;
    let mut bad = good.clone();
    bad[triangles + 4] = 4;
    let err = read(&bad).unwrap_err();
    assert_eq!((err.field.as_str(), err.offset), ("triangle[0].vertindex", triangles as u64 + 4));
    assert!(err.to_string().starts_with("quake1-mdl"), "{err}");
    let mut bad = good;
    bad[48..52].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(read(&bad).is_err());
}

#[test]
fn every_truncation_is_an_error_never_a_panic() {
    let good = write(&sample());
    for len in 0..good.len() {
        assert!(decode(good.get(..len).unwrap()).is_err(), "{len} bytes decoded");
    }
}
