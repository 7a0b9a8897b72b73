//! The built-in demo park (what `cargo run` opens): the save and install the demo ships open as
//! one scene with every item placed, posed and textured, and the park holds what it was made
//! to show: every quarter turn, a path, a queue, an item held on a clip, looping ones, a
//! missing WAD as a labelled box, and a hidden node.

use glam::Vec3;
use mdview::formats::park::{open_park, open_park_scene};
use mdview::scene::{Playback, anim::Pose};

fn demo_save() -> std::path::PathBuf {
    mdview::demo::extract().expect("demo extracts").join(mdview::demo::PARK_SAVE)
}

#[test]
fn the_demo_park_opens_with_every_item_placed_posed_and_textured() {
    let path = demo_save();
    let park = open_park(&path, None).unwrap();
    assert!(park.install.is_some(), "the install above the save is found");
    assert_eq!(park.theme.as_deref(), Some("jungle"));
    assert!(park.items.len() >= 12, "about a dozen items: {}", park.items.len());
    let angles: std::collections::BTreeSet<u32> = park.items.iter().map(|i| i.angle).collect();
    assert_eq!(angles.into_iter().collect::<Vec<_>>(), [0, 90, 180, 270]);
    // Paths (tile set 1) and a queue (tile set 2) whose every cell names its piece's slot.
    assert!(park.paths.len() >= 10, "{} path cells", park.paths.len());
    assert!(!park.queues.is_empty());
    for queue in &park.queues {
        assert!(queue.piece.is_some() && queue.slot.is_some(), "{queue:?}");
    }
    assert_eq!(park.unnamed_slots, 0);
    // Only the missing item cannot be shown.
    assert_eq!(park.unshown.len(), 1, "{:?}", park.unshown);
    assert!(park.unshown[0].reason.contains("no item WAD"), "{:?}", park.unshown);

    let scene = open_park_scene(&path, None).unwrap();
    // One part an item (the ground, when the install has one, is a part of its own).
    let items: Vec<&mdview::scene::Part> = scene.parts.iter().filter(|p| p.group != "ground").collect();
    assert_eq!(items.len(), park.items.len());
    let groups: std::collections::BTreeSet<&str> = items.iter().map(|p| p.group.as_str()).collect();
    for group in ["rides", "shops", "sideshows", "features"] {
        assert!(groups.contains(group), "no {group} in {groups:?}");
    }
    // The only warning is the missing item's: the ground, its path art and queue pieces are found.
    assert!(scene.warnings.iter().all(|w| w.contains("1250")), "{:?}", scene.warnings);
    assert!(scene.parts.iter().any(|p| p.group == "ground"), "the park stands on its ground");
    let stand_ins: Vec<(&str, &str)> =
        scene.parts.iter().filter_map(|p| Some((p.name.as_str(), p.stand_in.as_deref()?))).collect();
    assert_eq!(stand_ins.len(), 1, "{stand_ins:?}");
    assert!(stand_ins[0].0.contains("1250") && stand_ins[0].1.contains("1250"), "{stand_ins:?}");
    // Looping clips, one held on its last frame by the save (the gate's doors, open), and the
    // idle items as built (their construction clip's last frame).
    let playback = |p: Playback| scene.layers.iter().filter(|l| l.playback == p).count();
    assert!(playback(Playback::Loop) >= 3, "{} looping", playback(Playback::Loop));
    assert!(playback(Playback::HoldLast) >= 2, "{} held", playback(Playback::HoldLast));
    let gate = scene.layers.iter().find(|l| l.name.starts_with("gate #")).expect("the gate plays");
    assert_eq!((gate.playback, gate.name.ends_with("M1")), (Playback::HoldLast, true), "{}", gate.name);
    // The hidden node is one kiosk's sign, and the other kiosk's sign shows.
    assert_eq!(scene.hidden_nodes.len(), 1);
    let hidden = scene.hidden_nodes[0];
    assert_eq!(scene.nodes[hidden].name, "sign");
    let kiosks: Vec<&mdview::scene::Part> = scene.parts.iter().filter(|p| p.name.starts_with("kiosk #")).collect();
    assert_eq!(kiosks.len(), 2);
    let pose = Pose::at(&scene, None, 0.0);
    let signs: Vec<bool> = kiosks
        .iter()
        .map(|k| {
            let sign = k.nodes.clone().find(|&n| scene.nodes[n].name == "sign").unwrap();
            pose.visible[sign]
        })
        .collect();
    assert_eq!(signs.iter().filter(|v| **v).count(), 1, "{signs:?}");
    // Every material of a shown item is textured from its WAD.
    for part in items.iter().filter(|p| p.stand_in.is_none()) {
        for material in part.materials.clone() {
            let m = &scene.materials[material];
            assert!(m.texture.is_some() && m.image.is_some(), "{}: material {} untextured", part.name, m.name);
        }
    }
}

#[test]
fn the_turning_carousel_turns_and_stands_on_its_footprint() {
    let scene = open_park_scene(&demo_save(), None).unwrap();
    let carousel = scene.parts.iter().find(|p| p.name == "carousel #21").expect("the looping carousel");
    let horses = carousel.meshes.clone().find(|&m| scene.meshes[m].name.ends_with("horses")).unwrap();
    let at = |seconds: f32| {
        let pose = Pose::at(&scene, None, seconds);
        pose.mesh_world(&scene, horses).transform_point3(Vec3::new(9.0, 2.4, 0.0))
    };
    // Anchored at (17, 6) at 0° on the flat: the middle of its 3 × 3 footprint is (185, 0, 75);
    // a horse rides 9 units out, so it stays 9 from the middle while it moves.
    let middle = Vec3::new(185.0, 2.4, 75.0);
    let (a, b) = (at(0.0), at(1.0));
    assert!(((a - middle).length() - 9.0).abs() < 1e-2, "{a}");
    assert!(((b - middle).length() - 9.0).abs() < 1e-2, "{b}");
    assert!((a - b).length() > 5.0, "a quarter turn a second moves the horse: {a} {b}");
}
