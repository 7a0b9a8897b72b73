//! Unit tests of the `.mdl` reader and scene on files made by the writer.

use glam::{Vec2, Vec3};

use super::*;
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
fn skins_are_palette_pictures_and_every_group_picture_is_a_choice() {
    let scene = decode(&write(&sample())).unwrap();
    let choice = &scene.choices[0];
    assert_eq!(choice.options.len(), 3);
    assert!(choice.options[2].starts_with("skin 1 picture 1"), "{:?}", choice.options);
    let grey = scene.images[1].load().unwrap();
    assert_eq!((grey.width, grey.height), (4, 2));
    assert_eq!(grey.rgba[..4], [235, 235, 235, 255], "palette entry 15");
    assert_eq!(scene.images[0].load().unwrap().rgba[4..8], [15, 15, 15, 255], "palette entry 1");
    assert!(scene.warnings.iter().any(|w| w.contains("EF_ROTATE")), "{:?}", scene.warnings);
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
