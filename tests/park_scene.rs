//! A park built into one scene: where each placed item's geometry lands (hand-worked corners at
//! every quarter turn), the clip and time each plays, hidden nodes, one decode per model, and
//! the labelled boxes that stand in for what cannot be shown; over installs and saves the
//! park writers make.

use std::path::PathBuf;

use glam::{Mat4, Vec3};
use mdview::formats::park::open_park_scene;
use mdview::scene::{Playback, Scene, anim::Pose};
use mdview::writers::park::{
    ItemSpec, SaveSpec, fixture_install, fixture_save, object_slot, object_thing, playing, write_install, write_save,
};
use mdview::writers::tpw::{AnimFile, MaterialSpec, MeshFile, MeshSpec, PositionSpec, TrackSpec};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mdview-park-scene-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `install` and `save` under a fresh folder and opens the park as a scene.
fn open(name: &str, install: &mdview::writers::park::InstallSpec, save: &SaveSpec) -> Scene {
    let root = temp_dir(name);
    write_install(&root, install).unwrap();
    let path = root.join("data/levels/jungle/park.TPWS");
    std::fs::write(&path, write_save(save)).unwrap();
    open_park_scene(&path, None).unwrap()
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-3
}

/// World positions of the part named `name`'s meshes at scene clock `seconds`.
fn part_points(scene: &Scene, name: &str, seconds: f32) -> Vec<Vec3> {
    let part = scene.parts.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no part {name}"));
    let pose = Pose::at(scene, None, seconds);
    let mut out = Vec::new();
    for mesh in part.meshes.clone() {
        let world = pose.mesh_world(scene, mesh);
        let positions = pose.positions[mesh].clone().unwrap_or_else(|| scene.meshes[mesh].render_positions());
        out.extend(positions.iter().map(|p| world.transform_point3(*p)));
    }
    out
}

fn has_point(points: &[Vec3], want: Vec3) -> bool {
    points.iter().any(|p| close(*p, want))
}

/// The fixture ground's height in the middle of map cell (x, y): its heightfield rises 0.1 a
/// grid vertex each way (`fixture_height`: (x + y) · 0.1), and a cell's middle is the mean of
/// the corners on its cut, (x, y) and (x + 1, y + 1): (x + y + 1) · 0.1.
fn ground(x: u32, y: u32) -> f32 {
    (x + y + 1) as f32 * 0.1
}

/// `corners` raised by the ground under `cell`.
fn raised(corners: [[f32; 3]; 3], cell: [u32; 2]) -> [[f32; 3]; 3] {
    corners.map(|[x, y, z]| [x, y + ground(cell[0], cell[1]), z])
}

#[test]
fn floor_plates_land_on_hand_worked_corners_at_every_quarter_turn() {
    let scene = open("corners", &fixture_install(), &fixture_save());
    // Each item is a floor plate from (0,0,0) to (across·10, 0, down·10). The anchor cell's
    // middle is ((x + .5)·10, 0, (y + .5)·10); the root sits at middle + R(−5, 0, −5), and R
    // takes model (x, z) to (x cos a + z sin a, z cos a − x sin a).
    // Each stands on the ground at its anchor's middle.
    let cases: [(&str, [[f32; 3]; 3]); 4] = [
        // 0° at (40, 30), 4 × 4: corners (400, 300), (440, 300), (400, 340).
        ("monkey #20", raised([[400.0, 0.0, 300.0], [440.0, 0.0, 300.0], [400.0, 0.0, 340.0]], [40, 30])),
        // 90° at (50, 30), 3 × 3: root (500, 310); model x → −z, model z → +x.
        ("junspray #21", raised([[500.0, 0.0, 310.0], [500.0, 0.0, 280.0], [530.0, 0.0, 310.0]], [50, 30])),
        // 180° at (30, 30), 2 × 2: root (310, 310); x → −x, z → −z.
        ("hollrock #24", raised([[310.0, 0.0, 310.0], [290.0, 0.0, 310.0], [310.0, 0.0, 290.0]], [30, 30])),
        // 270° at (57, 19), 3 × 3: root (580, 190); x → +z, z → −x.
        ("fountain #23", raised([[580.0, 0.0, 190.0], [580.0, 0.0, 220.0], [550.0, 0.0, 190.0]], [57, 19])),
    ];
    for (name, corners) in cases {
        let points = part_points(&scene, name, 0.0);
        assert_eq!(points.len(), 4, "{name}: one quad");
        for corner in corners {
            assert!(has_point(&points, Vec3::from_array(corner)), "{name}: no vertex at {corner:?} in {points:?}");
        }
    }
}

#[test]
fn what_cannot_be_shown_stands_as_a_labelled_box_and_the_rest_is_unaffected() {
    let scene = open("stand-ins", &fixture_install(), &fixture_save());
    let stand_in = |name: &str| scene.parts.iter().find(|p| p.name == name).and_then(|p| p.stand_in.clone());
    assert!(stand_in("dinokart #26").unwrap().contains("track ride"));
    assert!(stand_in("coaster1 #27").unwrap().contains("coaster"));
    assert!(stand_in("item 1299 #29").unwrap().contains("1299"));
    assert!(stand_in("nomodel #28").is_some());
    assert!(stand_in("monkey #20").is_none());
    // The dinokart's box covers its 3 × 3 footprint from its anchor (20, 20) at 0°, 5 high, on
    // the ground.
    let points = part_points(&scene, "dinokart #26", 0.0);
    let h = ground(20, 20);
    assert!(has_point(&points, Vec3::new(200.0, h, 200.0)) && has_point(&points, Vec3::new(230.0, h + 5.0, 230.0)));
    // The bus is fixed: drawn as authored, at the origin.
    let bus = part_points(&scene, "bus #25", 0.0);
    assert!(has_point(&bus, Vec3::ZERO) && has_point(&bus, Vec3::new(10.0, 0.0, 10.0)));
    // Groups follow the id's kind digits.
    let group = |name: &str| scene.parts.iter().find(|p| p.name == name).map(|p| p.group.clone());
    assert_eq!(group("monkey #20").as_deref(), Some("rides"));
    assert_eq!(group("bus #25").as_deref(), Some("fixed"));
    assert_eq!(group("junspray #21").as_deref(), Some("sideshows"));
}

/// A swing: a floor plate (node 0) and an arm (node 1, a child) that its `I1` clip moves in a
/// straight line from x = 0 to x = 30 over frames 0 to 30.
fn swing_item() -> ItemSpec {
    let quad = |name: &str, parent: Option<usize>, size: f32| MeshSpec {
        name: name.into(),
        parent,
        matrix: Mat4::IDENTITY.to_cols_array(),
        vertices: vec![[0.0, 0.0, 0.0], [size, 0.0, 0.0], [size, 0.0, size], [0.0, 0.0, size]],
        vertex_order: vec![0, 1, 2, 3],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        faces: vec![[0, 1, 2], [0, 2, 3]],
        materials: vec![MaterialSpec { texture: None, start: 0, end: 3 }],
        ..MeshSpec::default()
    };
    let model = MeshFile { meshes: vec![quad("plate", None, 20.0), quad("arm", Some(0), 2.0)], ..MeshFile::default() };
    let track = TrackSpec {
        target: 1,
        frame_value: 30,
        position: Some(PositionSpec {
            kind: 0x18,
            points: vec![[0.0, 0.0, 0.0], [30.0, 0.0, 0.0]],
            frames: vec![0, 30],
        }),
        ..TrackSpec::default()
    };
    let clip = AnimFile { last_frame: 30, tracks: vec![track], ..AnimFile::default() };
    let built = AnimFile { last_frame: 10, ..AnimFile::default() };
    ItemSpec {
        theme: "jungle".into(),
        folder: "rides".into(),
        stem: "swing".into(),
        sam: "Info.Id 1120\nInfo.NumSimultAnims 1\nInfo.Shape\n---\n**\n**\n---\n".into(),
        model: None,
        extra: vec![
            ("swing.md2".into(), model.to_bytes()),
            ("swingI1.md2".into(), clip.to_bytes()),
            ("swingC.md2".into(), built.to_bytes()),
        ],
    }
}

/// Three swings: one looping its clip 500 ms in at speed 2, one with its arm hidden and
/// nothing playing, and one held on the last frame, at 0°, 90° and 180°.
fn swing_park() -> (mdview::writers::park::InstallSpec, SaveSpec) {
    let mut install = fixture_install();
    install.items.push(swing_item());
    let mut save = SaveSpec { header: fixture_save().header, ..SaveSpec::default() };
    save.header.first_object = 40;
    let placements: [(u32, [u8; 2], u32); 3] = [(40, [20, 60], 0), (41, [30, 60], 90), (42, [40, 60], 180)];
    for (n, (id, cell, angle)) in placements.into_iter().enumerate() {
        let mut thing = object_thing(id, 1120, cell, angle, n as u32 + 1);
        if let Some(object) = thing.object.as_mut() {
            object.next = if id < 42 { id as u16 + 1 } else { 0 };
        }
        save.things.push(thing);
    }
    let mut hidden = object_slot(1120, [29, 59], [2, 2], 90, vec![mdview::writers::park::idle_channel()]);
    hidden.node_flags = vec![0, 0x1];
    save.slots = vec![
        Some(object_slot(1120, [19, 59], [2, 2], 0, vec![playing(2, 0, 500, 0x1, 2.0)])),
        Some(hidden),
        Some(object_slot(1120, [41, 61], [2, 2], 180, vec![playing(2, 0, 100, 0x4, 1.0)])),
    ];
    (install, save)
}

#[test]
fn each_item_plays_its_own_clip_at_the_saved_time_with_its_hidden_nodes() {
    let (install, save) = swing_park();
    let scene = open("swings", &install, &save);
    // The swing model is decoded once: the second and third copies' meshes repeat the first's.
    let first = scene.parts.iter().find(|p| p.name == "swing #40").unwrap().meshes.clone();
    let second = scene.parts.iter().find(|p| p.name == "swing #41").unwrap().meshes.clone();
    assert_eq!(second.clone().map(|m| scene.geometry_source(m)).collect::<Vec<_>>(), first.collect::<Vec<_>>());
    // Three layers: I1 looping from frame 15 at twice the rate, the hidden one's construction
    // clip held on its last frame (it plays nothing), and I1 held on its last frame.
    let items: Vec<_> =
        scene.layers.iter().filter(|l| l.part.is_some_and(|p| scene.parts[p].group != "ground")).collect();
    let playback: Vec<(Playback, f32, f32)> = items.iter().map(|l| (l.playback, l.start, l.speed)).collect();
    assert_eq!(
        playback,
        [(Playback::Loop, 15.0, 2.0), (Playback::HoldLast, 10.0, 1.0), (Playback::HoldLast, 0.0 + 3.0, 1.0)]
    );

    // The arm (the part's second mesh) at the anchor's root plus its clip's x.
    let arm = |name: &str, seconds: f32| {
        let part = scene.parts.iter().find(|p| p.name == name).unwrap();
        let pose = Pose::at(&scene, None, seconds);
        let mesh = part.meshes.start + 1;
        let node = scene.meshes[mesh].node.unwrap();
        (pose.visible[node], pose.mesh_world(&scene, mesh).transform_point3(Vec3::ZERO))
    };
    // #40 at (20, 60), 0°: root (200, h, 600); frame 15 at clock 0, 21 at 0.1 s (twice 30 a
    // second), and at 0.25 s frame 30 wraps to 0.
    let h = ground(20, 60);
    assert!(close(arm("swing #40", 0.0).1, Vec3::new(215.0, h, 600.0)), "{:?}", arm("swing #40", 0.0));
    assert!(close(arm("swing #40", 0.1).1, Vec3::new(221.0, h, 600.0)), "{:?}", arm("swing #40", 0.1));
    assert!(close(arm("swing #40", 0.25).1, Vec3::new(200.0, h, 600.0)), "{:?}", arm("swing #40", 0.25));
    // #41's node flag word hides its arm whatever plays.
    assert!(!arm("swing #41", 0.0).0 && arm("swing #40", 0.0).0);
    // #42 at (40, 60), 180°: root (410, h, 610); held at x = 30, which turns to −x.
    for t in [0.0, 1.0] {
        assert!(close(arm("swing #42", t).1, Vec3::new(380.0, ground(40, 60), 610.0)), "{:?}", arm("swing #42", t));
    }
}

#[test]
fn a_park_exports_as_its_save_has_it_with_repeated_models_sharing_meshes() {
    let (install, save) = swing_park();
    let scene = open("swings-gltf", &install, &save);
    let still = scene.frozen(&Pose::at(&scene, None, 0.0));
    assert!(still.clips.is_empty() && still.layers.is_empty());
    // The still scene at rest is the park at clock 0: #40's arm at frame 15.
    let rest = Pose::rest(&still);
    let part = still.parts.iter().find(|p| p.name == "swing #40").unwrap();
    let arm = part.meshes.start + 1;
    let h = ground(20, 60);
    assert!(close(rest.mesh_world(&still, arm).transform_point3(Vec3::ZERO), Vec3::new(215.0, h, 600.0)));
    // #41's hidden arm is left out: five swing meshes of six remain.
    let swing_meshes =
        still.parts.iter().filter(|p| p.name.starts_with("swing")).map(|p| p.meshes.len()).sum::<usize>();
    assert_eq!(swing_meshes, 5);
    let doc = mdview::export::gltf::build(&still).unwrap();
    let meshes = doc.json["meshes"].as_array().unwrap();
    let nodes = doc.json["nodes"].as_array().unwrap();
    let named =
        |prefix: &str| meshes.iter().filter(|m| m["name"].as_str().is_some_and(|n| n.starts_with(prefix))).count();
    // The three plates are one glTF mesh, carried by three nodes; the two arms, one more.
    assert_eq!(named("swing #40/"), 2, "the first swing writes its plate and arm");
    assert_eq!(named("swing #41/") + named("swing #42/"), 0, "repeats share the first swing's meshes");
    let plate = meshes.iter().position(|m| m["name"] == "swing #40/plate").unwrap();
    assert_eq!(nodes.iter().filter(|n| n["mesh"].as_u64() == Some(plate as u64)).count(), 3);
}

#[test]
fn one_item_taken_alone_stands_and_plays_as_in_the_park() {
    let (install, save) = swing_park();
    let scene = open("swings-alone", &install, &save);
    let index = scene.parts.iter().position(|p| p.name == "swing #40").unwrap();
    let mut alone = scene.part_alone(index).unwrap();
    alone.validate().unwrap();
    assert_eq!((alone.parts.len(), alone.meshes.len(), alone.layers.len()), (1, 2, 1));
    let whole = part_points(&scene, "swing #40", 0.1);
    let own = part_points(&alone, "swing #40", 0.1);
    assert_eq!(whole.len(), own.len());
    for (a, b) in whole.iter().zip(&own) {
        assert!(close(*a, *b), "{a} against {b}");
    }
    // The hidden arm stays hidden alone.
    let hidden = scene.parts.iter().position(|p| p.name == "swing #41").unwrap();
    assert_eq!(scene.part_alone(hidden).unwrap().hidden_nodes.len(), 1);
    assert!(scene.part_alone(scene.parts.len()).is_none());
}

#[test]
fn info_lists_an_assembled_scene_by_part_and_layer() {
    let (install, save) = swing_park();
    let scene = open("swings-info", &install, &save);
    let summary = mdview::info::Summary::of(&scene);
    assert_eq!(summary.parts.len(), scene.parts.len());
    assert_eq!(summary.layers.len(), scene.layers.len());
    let text = summary.to_text();
    assert!(text.contains("Parts (") && text.contains("swing #40 [rides]"), "{text}");
    assert!(text.contains("swing #40: I1: swing #40: I1 from 15 at 2x, Loop"), "{text}");
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["layers"][0]["playback"], "loop");
}
