//! Unit tests of the `.md3` reader and scene on files made by the writer.

use glam::Vec3;

use super::*;
use crate::formats::error::ErrorKind;
use crate::scene::anim::Pose;
use crate::writers::md3::{sample, write};

#[test]
fn the_writer_round_trips_through_the_reader() {
    let mut file = sample(3);
    let bytes = write(&file);
    let mut read_back = read(&bytes).unwrap();
    assert_eq!(read_back.surfaces[0].offset, HEADER_SIZE + 3 * FRAME_SIZE + 3 * TAG_SIZE);
    read_back.surfaces[0].offset = 0;
    file.warnings.clear();
    assert_eq!(read_back, file);
}

#[test]
fn normals_unpack_latitude_high_and_longitude_low() {
    let normal = |lat: u16, lng: u16| Vertex { xyz: [0; 3], normal: (lat << 8) | lng }.unit_normal();
    assert!(normal(0, 0).abs_diff_eq(Vec3::Z, 1e-6));
    assert!(normal(0, 64).abs_diff_eq(Vec3::X, 1e-6));
    assert!(normal(64, 64).abs_diff_eq(Vec3::Y, 1e-6));
    assert!(normal(0, 128).abs_diff_eq(-Vec3::Z, 1e-6));
    assert_eq!(Vertex { xyz: [64, -32, 640], normal: 0 }.position(), Vec3::new(1.0, -0.5, 10.0));
}

#[test]
fn the_scene_plays_frames_and_moves_tags_with_them() {
    let scene = decode(&write(&sample(3))).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    let mesh = &scene.meshes[0];
    // Quake (x, y, z) lands at (x, z, -y); faces turn counter-clockwise.
    assert_eq!(mesh.source_positions[2], Vec3::new(1.0, 0.0, -1.0));
    assert_eq!(mesh.triangles, [[0, 1, 2], [0, 2, 3]]);
    assert!(mesh.normals[0].abs_diff_eq(Vec3::Y, 1e-6));
    let clip = &scene.clips[0];
    assert_eq!((clip.name.as_str(), clip.start, clip.end, clip.rate), ("wave", 0.0, 2.0, FRAMES_PER_SECOND));
    let pose = Pose::at(&scene, Some(0), 1.5);
    assert!(pose.mesh_positions(&scene, 0)[1].abs_diff_eq(Vec3::new(1.0, 1.5, 0.0), 1e-5));
    let tag = scene.nodes.iter().position(|n| n.name == "tag_flash").unwrap();
    assert!(pose.world[tag].transform_point3(Vec3::ZERO).abs_diff_eq(Vec3::new(1.0, 1.5, 0.0), 1e-5));
}

/// As Quake II's: a looping clip of 3 frames loops in 3, its last frame blending back into its
/// first, surfaces and tags alike; played once, past the end holds the last frame.
#[test]
fn a_looping_clip_blends_its_last_frame_back_into_its_first() {
    let scene = decode(&write(&sample(3))).unwrap();
    let clip = &scene.clips[0];
    assert_eq!((clip.length(), clip.loop_blend()), (2.0, 1.0), "3 frames loop in 3");
    let tag = scene.nodes.iter().position(|n| n.name == "tag_flash").unwrap();
    let at = |time: f32, looping: bool| {
        let mut pose = Pose::default();
        pose.looping = looping;
        pose.evaluate(&scene, Some(0), time);
        (pose.mesh_positions(&scene, 0)[1], pose.world[tag].transform_point3(Vec3::ZERO))
    };
    // Halfway from frame 2 (y 2) back to frame 0 (y 0).
    let (vertex, tag_origin) = at(2.5, true);
    assert!(vertex.abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-5), "{vertex}");
    assert!(tag_origin.abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-5), "{tag_origin}");
    let (vertex, tag_origin) = at(2.5, false);
    assert!(vertex.abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-5), "not looping, past the end holds: {vertex}");
    assert!(tag_origin.abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-5), "{tag_origin}");
    // A single frame has nothing to blend back from.
    let still = decode(&write(&sample(1))).unwrap();
    assert_eq!(still.clips[0].loop_blend(), 0.0);
}

#[test]
fn a_model_of_tags_alone_opens_as_tags() {
    let mut file = sample(2);
    file.surfaces.clear();
    let scene = decode(&write(&file)).unwrap();
    assert!(scene.meshes.is_empty());
    assert_eq!(scene.nodes.len(), 1);
    let pose = Pose::at(&scene, Some(0), 1.0);
    assert!(pose.world[0].transform_point3(Vec3::ZERO).abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-5));
}

#[test]
fn bad_fields_name_themselves_and_their_offset() {
    let good = write(&sample(1));
    let mut bad_version = good.clone();
    bad_version[4] = 14;
    let err = read(&bad_version).unwrap_err();
    assert_eq!((err.field.as_str(), err.offset), ("version", 4));

    // The first triangle's second index, past numVerts.
    let triangles = (HEADER_SIZE + FRAME_SIZE + TAG_SIZE + SURFACE_HEADER_SIZE + SHADER_SIZE) as usize;
    let mut bad_index = good.clone();
    bad_index[triangles + 4] = 9;
    let err = read(&bad_index).unwrap_err();
    assert_eq!((err.field.as_str(), err.offset), ("surface[0].triangle[0]", triangles as u64 + 4));
    assert!(err.to_string().contains("quake3-md3"), "{err}");

    let mut negative = good.clone();
    negative[84..88].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(read(&negative).unwrap_err().field, "numSurfaces");

    let mut huge = good;
    huge[76..80].copy_from_slice(&i32::MAX.to_le_bytes());
    let err = read(&huge).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::OutOfBounds { .. } | ErrorKind::Overflow), "{err}");
}

#[test]
fn every_truncation_is_an_error_never_a_panic() {
    let good = write(&sample(2));
    for len in 0..good.len() {
        assert!(decode(good.get(..len).unwrap()).is_err(), "{len} bytes decoded");
    }
}

#[test]
fn three_decimals_are_written_as_format_writes_them() {
    let values = [0.0, -0.0, 0.0625, -0.0625, 0.0005, 0.0015, -103.422, 138.797, 1e9, -2.5e-4, 182.466_f32, 0.1];
    for v in values.into_iter().chain((-300..300).map(|i| i as f32 / 64.0)) {
        assert_eq!(assemble::Milli(v).to_string(), format!("{v:.3}"), "{v}");
    }
    assert_eq!(assemble::Milli(f32::NAN).to_string(), "NaN");
}
