//! The MDR demo model: `assets/mdr/arm.mdr` must be exactly what `writers::mdr::demo_arm()` writes
//! (set `MDVIEW_REGENERATE=1` to rewrite it), and it must decode into two clips, two LODs and a
//! tag that follows the hand.

use std::path::PathBuf;

use glam::Vec3;
use mdview::formats;
use mdview::scene::anim::Pose;
use mdview::writers::mdr::demo_arm;

fn demo_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/mdr/arm.mdr")
}

#[test]
fn committed_demo_is_what_the_encoder_writes() {
    let bytes = demo_arm();
    let path = demo_path();
    if std::env::var_os("MDVIEW_REGENERATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with MDVIEW_REGENERATE=1 to write it", path.display()));
    assert!(committed == bytes, "{} differs from demo_arm(); run with MDVIEW_REGENERATE=1", path.display());
}

#[test]
fn demo_has_two_clips_two_lods_and_a_moving_tag() {
    let scene = formats::decode_bytes(&demo_arm()).unwrap();
    let clips: Vec<(&str, f32, f32)> = scene.clips.iter().map(|c| (c.name.as_str(), c.start, c.end)).collect();
    assert_eq!(clips, [("bend", 0.0, 19.0), ("wave", 20.0, 35.0)]);
    assert_eq!(scene.lods.len(), 2);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let tag = scene.nodes.iter().position(|n| n.name == "tag_forearm").unwrap();
    let rest = Pose::rest(&scene).world[tag].transform_point3(Vec3::ZERO);
    let bent = Pose::at(&scene, Some(0), 9.5).world[tag].transform_point3(Vec3::ZERO);
    assert!(rest.distance(bent) > 1.0, "the elbow lifts: {rest} -> {bent}");
    // The tip ring (the last four vertices) rides the forearm rigidly: each corner stays
    // |(10, ±1, ±1)| from the forearm's origin, where its tag sits.
    let pose = Pose::at(&scene, Some(1), 27.0);
    let hand = pose.world[tag].transform_point3(Vec3::ZERO);
    let positions = pose.mesh_positions(&scene, 0);
    for p in &positions[positions.len() - 4..] {
        assert!((p.distance(hand) - 102f32.sqrt()).abs() < 1e-4, "{p} is {} from {hand}", p.distance(hand));
    }
}
