//! Theme Park World animations: siblings, the track table, rotation / morph / UV channels,
//! target resolution, skip reasons, clip length, evaluation, `info`, `export` and `scan`.
//! Every expected number is computed by hand from the spec's rules (see the comments).

mod common;

use std::f32::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use mdview::formats::{self, tpw};
use mdview::scene::anim::Pose;
use mdview::scene::{Scene, SceneKind};
use mdview::writers::tpw::*;

const Q_IDENTITY: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const Q_Y90: [f32; 4] = [0.0, FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2];
const Q_Y_MINUS_90: [f32; 4] = [0.0, -FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2];
const Q_Y180: [f32; 4] = [0.0, 1.0, 0.0, 0.0];

/// Row-major, row-vector: a quarter turn about +Y (x -> -z, z -> x), then translate (0,0,5).
const DOOR_AUTHORED_90: [f32; 16] = [0., 0., -1., 0., 0., 1., 0., 0., 1., 0., 0., 0., 0., 0., 5., 1.];

fn door() -> Vec<[f32; 3]> {
    vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
}

/// gate.MD2: door0 at x=2, door1 at x=-2, a post, and door3 authored at 90 degrees.
fn gate() -> MeshFile {
    MeshFile {
        textures: vec![TextureSpec::opaque("wood.wct")],
        meshes: vec![
            simple_mesh("door01", None, t(2.0, 0.0, 0.0), door(), Some(0)),
            simple_mesh("door02", None, t(-2.0, 0.0, 0.0), door(), Some(0)),
            simple_mesh("post", None, ROW_IDENTITY, door(), Some(0)),
            simple_mesh("hatch", None, DOOR_AUTHORED_90, door(), Some(0)),
        ],
        ..Default::default()
    }
}

fn rotation(target: u16, keys: &[(u16, [f32; 4])]) -> TrackSpec {
    TrackSpec {
        target,
        rotation: keys.iter().map(|&(frame, quat)| RotationKeySpec { frame, curve: 0xFFFF, quat }).collect(),
        ..Default::default()
    }
}

/// M1 opens: door0 +90, door1 -90 (its +0x16 is non-zero, as on 595 real tracks), and the
/// hatch from its authored 90 to 180 degrees.
fn gate_m1() -> AnimFile {
    let mut door1 = rotation(1, &[(0, Q_IDENTITY), (30, Q_Y_MINUS_90)]);
    door1.unrelated_16 = 0x0102;
    AnimFile {
        last_frame: 30,
        tracks: vec![rotation(0, &[(0, Q_IDENTITY), (30, Q_Y90)]), door1, rotation(3, &[(0, Q_Y90), (30, Q_Y180)])],
        ..Default::default()
    }
}

/// M2 closes: the exact inverse of M1 for the two doors.
fn gate_m2() -> AnimFile {
    AnimFile {
        last_frame: 30,
        tracks: vec![rotation(0, &[(0, Q_Y90), (30, Q_IDENTITY)]), rotation(1, &[(0, Q_Y_MINUS_90), (30, Q_IDENTITY)])],
        ..Default::default()
    }
}

fn gate_dir(test: &str) -> PathBuf {
    let dir = temp_dir(test);
    write(&dir, "gate.MD2", &gate().to_bytes());
    write(&dir, "gateM1.MD2", &gate_m1().to_bytes());
    write(&dir, "gatem2.MD2", &gate_m2().to_bytes());
    dir
}

fn world(scene: &Scene, pose: &Pose, mesh: usize, vertex: usize) -> [f32; 3] {
    let p = pose.mesh_positions(scene, mesh)[vertex];
    pose.mesh_world(scene, mesh).transform_point3(p).to_array()
}

fn at(scene: &Scene, clip: &str, frame: f32) -> Pose {
    let clip = mdview::scene::resolve_clip(scene, clip).expect("clip exists");
    Pose::at(scene, Some(clip), frame)
}

#[test]
fn gate_doors_open_and_close() {
    let dir = gate_dir("gate");
    let scene = formats::open(&dir.join("gate.MD2")).unwrap();
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["M1", "M2"]);
    assert_eq!(scene.clips[0].length(), 30.0);

    // door0 vertex (1,0,0) at x=2: rest (3,0,0); a quarter turn about +Y sends x to -z.
    let s = FRAC_1_SQRT_2;
    let m1 = |f| at(&scene, "M1", f);
    assert!(approx(world(&scene, &m1(0.0), 0, 1), [3.0, 0.0, 0.0], 1e-6));
    assert!(approx(world(&scene, &m1(15.0), 0, 1), [2.0 + s, 0.0, -s], 1e-5), "slerp midpoint is 45 degrees");
    assert!(approx(world(&scene, &m1(30.0), 0, 1), [2.0, 0.0, -1.0], 1e-5));
    assert!(approx(world(&scene, &m1(99.0), 0, 1), [2.0, 0.0, -1.0], 1e-5), "clamped after the last key");
    // door1 turns the other way: (1,0,0) -> (0,0,1), at x=-2.
    assert!(approx(world(&scene, &m1(30.0), 1, 1), [-2.0, 0.0, 1.0], 1e-5));
    // The post has no track and stays put.
    assert!(approx(world(&scene, &m1(30.0), 2, 1), [1.0, 0.0, 0.0], 1e-6));

    let m2 = |f| at(&scene, "M2", f);
    assert!(approx(world(&scene, &m2(0.0), 0, 1), [2.0, 0.0, -1.0], 1e-5));
    assert!(approx(world(&scene, &m2(15.0), 0, 1), [2.0 + s, 0.0, -s], 1e-5));
    assert!(approx(world(&scene, &m2(30.0), 0, 1), [3.0, 0.0, 0.0], 1e-5));
}

#[test]
fn a_key_equal_to_the_authored_orientation_is_the_rest_pose() {
    let dir = gate_dir("gate-authored");
    let scene = formats::open(&dir.join("gate.MD2")).unwrap();
    let rest = Pose::rest(&scene);
    // Rest: (1,0,0) turned 90 degrees is (0,0,-1), then +5 in z.
    assert!(approx(world(&scene, &rest, 3, 1), [0.0, 0.0, 4.0], 1e-6));
    let start = at(&scene, "M1", 0.0);
    for v in 0..4 {
        assert!(approx(world(&scene, &start, 3, v), world(&scene, &rest, 3, v), 1e-6), "vertex {v}");
    }
    // The key is absolute: at 180 degrees (1,0,0) -> (-1,0,0), plus the authored translation.
    assert!(approx(world(&scene, &at(&scene, "M1", 30.0), 3, 1), [-1.0, 0.0, 5.0], 1e-5));
}

#[test]
fn rotation_keeps_authored_shear_scale_and_translation() {
    // A sheared, scaled node whose 3x3 is symmetric positive definite, so its polar factor U
    // is the identity: an identity key reproduces it, and a key q gives v -> (v turned by q)·A.
    let sheared_scaled = [2., 0.5, 0., 0., 0.5, 1., 0., 0., 0., 0., 3., 0., 1., 2., 3., 1.];
    let file =
        MeshFile { meshes: vec![simple_mesh("leaning", None, sheared_scaled, door(), None)], ..Default::default() };
    let dir = temp_dir("shear-rotation");
    write(&dir, "lean.MD2", &file.to_bytes());
    let anim =
        AnimFile { last_frame: 10, tracks: vec![rotation(0, &[(0, Q_IDENTITY), (10, Q_Y90)])], ..Default::default() };
    write(&dir, "leanM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("lean.MD2")).unwrap();
    assert!(mdview::scene::math::is_sheared(&scene.nodes[0].local));
    let rest = Pose::rest(&scene);
    let start = at(&scene, "M1", 0.0);
    for v in 0..4 {
        assert!(approx(world(&scene, &start, 0, v), world(&scene, &rest, 0, v), 1e-5));
    }
    // Vertex (1,0,0) turned 90 degrees about Y is (0,0,-1); times A's rows: -(0,0,3); plus (1,2,3).
    assert!(approx(world(&scene, &at(&scene, "M1", 10.0), 0, 1), [1.0, 2.0, 0.0], 1e-4));
    // The shear survives the turn: vertex (0,1,0) is on the axis and maps to row y + t.
    assert!(approx(world(&scene, &at(&scene, "M1", 10.0), 0, 3), [1.5, 3.0, 3.0], 1e-4));
}

#[test]
fn rotating_a_transform_only_node_carries_its_subtree() {
    let file = MeshFile {
        meshes: vec![
            simple_mesh("base", None, ROW_IDENTITY, door(), None),
            simple_mesh("seatA", Some(2), t(2.0, 0.0, 0.0), door(), None),
        ],
        dummies: vec![DummySpec {
            name: "arm".into(),
            parent: Some(0),
            matrix: t(0.0, 1.0, 0.0),
            ..Default::default()
        }],
        ..Default::default()
    };
    let dir = temp_dir("dummy-rotation");
    write(&dir, "ride.MD2", &file.to_bytes());
    let anim =
        AnimFile { last_frame: 10, tracks: vec![rotation(2, &[(0, Q_IDENTITY), (10, Q_Y90)])], ..Default::default() };
    write(&dir, "rideM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("ride.MD2")).unwrap();
    assert!(scene.clips[0].tracks[0].skipped.is_none());
    assert_eq!(scene.clips[0].tracks[0].target_name.as_deref(), Some("arm"));
    // seatA origin: (2,0,0) turned 90 degrees about the arm's origin -> (0,0,-2), then up 1.
    assert!(approx(world(&scene, &at(&scene, "M1", 10.0), 1, 0), [0.0, 1.0, -2.0], 1e-5));
    // seatA vertex (1,0,0): (3,0,0) -> (0,0,-3) -> (0,1,-3).
    assert!(approx(world(&scene, &at(&scene, "M1", 10.0), 1, 1), [0.0, 1.0, -3.0], 1e-5));
}

/// Packs three signed 10-bit fields.
fn fields(x: i32, y: i32, z: i32) -> u32 {
    morph_fields(x, y, z)
}

/// fountain.MD2: a basin and 4-vertex water whose mesh box is -1..1 on every axis. The morph
/// track has its own box, centre (0, 0.5, 0) and step (0.002, 0.001, 0.002), so a field f
/// decodes to centre + f * step; read in the mesh box (the old rule: centre 0, step 2/1023)
/// every value below would come out different. One track carries morph (two records),
/// multi-key UV and visibility; the block declares 100 frames, past the last key.
fn fountain() -> (MeshFile, AnimFile) {
    let water = MeshSpec {
        name: "water".into(),
        vertices: vec![[-1.0, 0.0, -1.0], [1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]],
        vertex_order: vec![0, 1, 2, 3],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        faces: vec![[0, 1, 2], [0, 2, 3]],
        materials: vec![MaterialSpec { texture: Some(0), start: 0, end: 3 }],
        bbox: Some(([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0])),
        ..Default::default()
    };
    let mesh = MeshFile {
        textures: vec![TextureSpec::see_through("water.wct")],
        meshes: vec![simple_mesh("basin", None, ROW_IDENTITY, door(), None), water],
        ..Default::default()
    };
    // Record A: vertices 0..2 keyed at frames 0 and 10; record B: vertex 3 and the two
    // box-corner channels (ids 4, 5) with a single rest key.
    let a = MorphRecordSpec {
        channels: vec![0, 1, 2],
        frames: vec![0, 10],
        values: vec![
            fields(0, 0, 0),
            fields(100, 0, -100),
            fields(200, 0, -200),
            fields(0, 300, 0),
            fields(100, 300, -100),
            fields(200, 300, -200),
        ],
    };
    let b = MorphRecordSpec {
        channels: vec![3, 4, 5],
        frames: vec![0],
        values: vec![fields(300, 0, -300), fields(0, 0, -300), fields(300, 0, 0)],
    };
    let morph = MorphSpec { flags: 0x01, centre: [0.0, 0.5, 0.0], step: [0.002, 0.001, 0.002], records: vec![a, b] };
    let still = |uv: [f32; 2]| UvEntrySpec { keys: vec![(0, uv), (100, uv)] };
    let track = TrackSpec {
        target: 1,
        morph: Some(morph),
        uv: Some(vec![
            UvEntrySpec { keys: vec![(0, [0.0, 0.0]), (40, [-1.0, 0.0]), (100, [-1.0, -2.0])] },
            UvEntrySpec { keys: vec![(0, [1.0, 0.0]), (50, [2.0, 0.0])] },
            still([1.0, 1.0]),
            still([0.0, 1.0]),
        ]),
        visibility: Some(vec![5, -12]),
        ..Default::default()
    };
    (mesh, AnimFile { last_frame: 100, tracks: vec![track], ..Default::default() })
}

#[test]
fn fountain_morphs_in_its_track_box_and_keys_every_uv_slot() {
    let dir = temp_dir("fountain");
    let (mesh, anim) = fountain();
    write(&dir, "fountain.MD2", &mesh.to_bytes());
    write(&dir, "fountainM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("fountain.MD2")).unwrap();
    let clip = &scene.clips[0];
    assert_eq!(clip.length(), 100.0, "the block's declared span, not the last key (10)");
    assert_eq!(clip.rate, 30.0, "the engine's rate");
    let track = &clip.tracks[0];
    assert_eq!(track.channels[..], ["morph", "uv", "visibility"]);
    assert_eq!(track.skipped, None);

    // centre + field * step, per axis.
    let p = |frame: f32, v: usize| at(&scene, "M1", frame).mesh_positions(&scene, 1)[v].to_array();
    assert!(approx(p(0.0, 1), [0.2, 0.5, -0.2], 1e-6), "{:?}", p(0.0, 1));
    assert!(approx(p(10.0, 2), [0.4, 0.8, -0.4], 1e-6));
    assert!(approx(p(5.0, 0), [0.0, 0.65, 0.0], 1e-6), "linear between keys");
    assert!(approx(p(5.0, 3), [0.6, 0.5, -0.6], 1e-6), "a single-key record holds");
    assert_eq!(at(&scene, "M1", 5.0).mesh_positions(&scene, 1).len(), 4, "box corners are not vertices");

    // Entry e writes UV slot e; keys blend linearly and hold outside.
    let uv = |frame: f32| at(&scene, "M1", frame).mesh_uvs(&scene, 1).to_vec();
    assert_eq!(uv(20.0)[0].to_array(), [-0.5, 0.0], "halfway from frame 0 to 40");
    assert_eq!(uv(70.0)[0].to_array(), [-1.0, -1.0], "halfway from frame 40 to 100");
    assert!(approx(uv(20.0)[1].extend(0.0).to_array(), [1.4, 0.0, 0.0], 1e-6), "1 + 20/50");
    assert_eq!(uv(80.0)[1].to_array(), [2.0, 0.0], "held after its last key");
    assert_eq!(uv(33.0)[2].to_array(), [1.0, 1.0]);

    // Visibility: untouched before the first entry, shown from 5, hidden from 12.
    let shown = |frame: f32| at(&scene, "M1", frame).visible[1];
    assert!(shown(3.0) && shown(7.0) && !shown(12.0) && !shown(99.0));
}

/// The engine lights a morphing mesh with its stored normals table, which morph never
/// rewrites (notes §7): the pose keeps the file's normals. A mesh without a table gets normals
/// recomputed from its moved faces.
#[test]
fn a_morphing_mesh_keeps_its_stored_normals() {
    let stored = [[0.0, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, -1.0]];
    let open = |normals: Option<Vec<[f32; 3]>>, name: &str| {
        let dir = temp_dir(name);
        let (mut mesh, anim) = fountain();
        mesh.meshes[1].normals = normals;
        write(&dir, "fountain.MD2", &mesh.to_bytes());
        write(&dir, "fountainM1.MD2", &anim.to_bytes());
        formats::open(&dir.join("fountain.MD2")).unwrap()
    };
    let unit: Vec<glam::Vec3> = stored.iter().map(|&n| glam::Vec3::from_array(n).normalize()).collect();

    let scene = open(Some(stored.to_vec()), "fountain-stored-normals");
    assert!(scene.meshes[1].keep_rest_normals);
    assert_eq!(scene.meshes[1].normals, unit);
    let pose = at(&scene, "M1", 5.0);
    assert!(pose.positions[1].is_some(), "the clip moves the water's vertices");
    assert_eq!(pose.mesh_normals(&scene, 1), unit, "the stored table, not normals of the moved faces");

    let scene = open(None, "fountain-computed-normals");
    assert!(!scene.meshes[1].keep_rest_normals);
    let pose = at(&scene, "M1", 5.0);
    let moved = pose.mesh_positions(&scene, 1);
    let recomputed = mdview::scene::compute_normals(&moved, &scene.meshes[1].triangles);
    assert_eq!(pose.mesh_normals(&scene, 1), recomputed);
    assert_ne!(recomputed, scene.meshes[1].normals, "the morph tilts the water's faces");
}

/// A node anchored to a face of its parent's mesh (id flags 0x40, notes §4) rides that face
/// while a morph moves the mesh: `lerp(lerp(c0, c1, u), c2, v) + n * offset`, with the
/// corners as stored and `n` the stored normal the face's first word names. At rest it keeps
/// its own place; an anchor on a node whose parent is not a mesh is a warning.
#[test]
fn an_anchored_node_rides_its_face_while_the_mesh_morphs() {
    let dir = temp_dir("fountain-anchor");
    let (mut mesh, anim) = fountain();
    // The water is placed at (0, 1, 2), so the anchored point must be in its space. Face 1
    // (0, 2, 3) names normal entry 2, tilted (1, 1, 0): not the face's own normal (straight up).
    mesh.meshes[1].matrix = t(0.0, 1.0, 2.0);
    mesh.meshes[1].normals = Some(vec![[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [2.0, 2.0, 0.0], [0.0, 1.0, 0.0]]);
    mesh.meshes[1].face_tags = vec![0, 2];
    mesh.dummies = vec![
        DummySpec { name: "spout".into(), parent: Some(1), matrix: t(0.3, 0.0, 0.0), ..Default::default() },
        DummySpec { name: "loose".into(), matrix: t(0.0, 9.0, 0.0), ..Default::default() },
        DummySpec { name: "emitter".into(), parent: Some(1), matrix: t(0.0, 0.0, 0.5), ..Default::default() },
    ];
    let anchor = FaceAnchorSpec { face: 1, u: 0.25, v: 0.5, offset: 0.1 };
    mesh.first_id_node = 2;
    mesh.node_ids = vec![
        NodeIdSpec { flags: 0x40, id: 7, anchor: Some(anchor) },
        NodeIdSpec { flags: 0x40, id: 8, anchor: Some(anchor) },
        // A particle emitter's usual flags share no bit with 0x40040: its pointer is not used.
        NodeIdSpec { flags: 0x111, id: 9, anchor: Some(anchor) },
    ];
    write(&dir, "fountain.MD2", &mesh.to_bytes());
    write(&dir, "fountainM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("fountain.MD2")).unwrap();
    assert_eq!(scene.nodes[2].name, "spout");
    assert!(scene.nodes[2].anchor.is_some());
    assert!(scene.nodes[3].anchor.is_none());
    assert!(scene.nodes[4].anchor.is_none(), "flags 0x111 do not meet 0x40040");
    let text = mdview::info::Summary::of(&scene).to_text();
    assert!(
        text.contains("2 spout  (transform-only, anchored to mesh 1 face (0, 2, 3) u 0.25 v 0.5 offset 0.1)"),
        "{text}"
    );
    assert!(
        scene.warnings.iter().any(|w| w.contains("loose: face anchor not used (the node has no parent)")),
        "{:?}",
        scene.warnings
    );

    let place = |pose: &Pose, node: usize| pose.world[node].w_axis.truncate().to_array();
    let rest = Pose::at(&scene, None, 0.0);
    assert_eq!(place(&rest, 2), [0.3, 1.0, 2.0], "at rest the node keeps its own matrix");
    // Frame 5: c0 = v0 (0, 0.65, 0), c1 = v2 (0.4, 0.65, -0.4), c2 = v3 (0.6, 0.5, -0.6).
    // A quarter of the way to c1 is (0.1, 0.65, -0.1); halfway on to c2 is (0.35, 0.575, -0.35);
    // plus 0.1 along (1, 1, 0) / sqrt 2; then the water's (0, 1, 2).
    let along = 0.1 * std::f32::consts::FRAC_1_SQRT_2;
    let posed = at(&scene, "M1", 5.0);
    let expected = [0.35 + along, 1.575 + along, 1.65];
    assert!(approx(place(&posed, 2), expected, 1e-5), "{:?} against {expected:?}", place(&posed, 2));
    assert_eq!(place(&posed, 3), [0.0, 9.0, 0.0], "an unused anchor leaves the node alone");
    assert_eq!(place(&posed, 4), [0.0, 1.0, 2.5], "so does one its flags turn off");
    // glTF bakes the ride as the node's translation (the round trip in gltf_export.rs checks
    // the values): the M1 animation moves the spout and the emitter stays put.
    let doc = mdview::export::gltf::build(&scene).unwrap();
    let node_named = |name: &str| doc.json["nodes"].as_array().unwrap().iter().position(|n| n["name"] == name);
    let moved: Vec<Option<usize>> = doc.json["animations"][0]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|ch| ch["target"]["path"] == "translation")
        .map(|ch| ch["target"]["node"].as_u64().map(|n| n as usize))
        .collect();
    assert!(moved.contains(&node_named("spout")), "{moved:?}");
    assert!(!moved.contains(&node_named("emitter")), "{moved:?}");
}

/// Raw vertex frames (0x4000, whose tracks always carry the morph bit) move anchored nodes as a
/// morph does: the rig's `flag` is posed by raw frames, and a node anchored to its first face
/// follows that face's corners.
#[test]
fn raw_vertex_frames_carry_anchored_nodes_too() {
    let dir = temp_dir("rig-anchor");
    let (mut rig, anim) = every_channel();
    rig.dummies.push(DummySpec { name: "pennant".into(), parent: Some(1), ..Default::default() });
    rig.first_id_node = 5;
    rig.node_ids =
        vec![NodeIdSpec { flags: 0x40, id: 1, anchor: Some(FaceAnchorSpec { face: 0, u: 0.5, v: 0.5, offset: 0.0 }) }];
    write(&dir, "rig.MD2", &rig.to_bytes());
    write(&dir, "rigM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("rig.MD2")).unwrap();
    let anchor = scene.nodes[5].anchor.as_deref().copied().expect("the pennant is anchored");
    for frame in [0.0, 20.0] {
        let pose = at(&scene, "M1", frame);
        let moved = pose.positions[1].clone().expect("raw frames move the flag");
        let corners = anchor.corners.map(|c| moved[c as usize]);
        // On the face in the flag's space (offset 0), then placed by the flag's node.
        let expected = pose.world[1].transform_point3(corners[0].lerp(corners[1], 0.5).lerp(corners[2], 0.5));
        let got = pose.world[5].w_axis.truncate();
        assert!(got.abs_diff_eq(expected, 1e-5), "frame {frame}: {got} against {expected}");
    }
    let (start, end) = (at(&scene, "M1", 0.0).world[5].w_axis, at(&scene, "M1", 20.0).world[5].w_axis);
    assert_ne!(start, end, "the pennant moves with the flag's frames");
}

#[test]
fn ratrace_morph_tracks_are_told_apart_by_target_alone() {
    let tri = || vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let mut meshes = Vec::new();
    for i in 0..4 {
        let mut m = simple_mesh(&format!("rat{i}"), None, ROW_IDENTITY, tri(), None);
        m.bbox = Some(([-1.0; 3], [1.0; 3]));
        meshes.push(m);
    }
    let tracks = (0..4u16)
        .map(|target| {
            let lift = 100 * (i32::from(target) + 1);
            TrackSpec {
                target,
                morph: Some(MorphSpec {
                    step: [2.0 / 1023.0; 3],
                    records: vec![MorphRecordSpec {
                        channels: vec![0, 1, 2, 3, 4],
                        frames: vec![0, 20],
                        values: [0, lift].iter().flat_map(|&y| (0..5).map(move |_| fields(0, y, 0))).collect(),
                    }],
                    ..Default::default()
                }),
                ..Default::default()
            }
        })
        .collect();
    let dir = temp_dir("ratrace");
    write(&dir, "ratrace.MD2", &MeshFile { meshes, ..Default::default() }.to_bytes());
    write(&dir, "ratraceM1.MD2", &AnimFile { last_frame: 20, tracks, ..Default::default() }.to_bytes());
    let scene = formats::open(&dir.join("ratrace.MD2")).unwrap();
    assert!(scene.clips[0].tracks.iter().all(|t| t.skipped.is_none()));
    let pose = at(&scene, "M1", 20.0);
    for mesh in 0..4 {
        let y = pose.mesh_positions(&scene, mesh)[1].y;
        let expected = 100.0 * (mesh as f32 + 1.0) * 2.0 / 1023.0;
        assert!((y - expected).abs() < 1e-6, "mesh {mesh}: {y} vs {expected}");
    }
}

#[test]
fn traps_are_skipped_with_reasons_while_the_rest_plays() {
    let dir = gate_dir("traps");
    let morph = |channels: u16| MorphRecordSpec {
        channels: (0..channels).collect(),
        frames: vec![0],
        values: vec![0; usize::from(channels)],
    };
    let short_index = TrackSpec {
        target: 0,
        raw_frames: Some(RawFramesSpec { index: vec![0, 1], per_frame: 2, positions: vec![[0.0; 3]; 2] }),
        ..Default::default()
    };
    let morph_of = |channels| MorphSpec { records: vec![morph(channels)], ..Default::default() };
    let mistargeted = TrackSpec { target: 1, morph: Some(morph_of(10)), ..Default::default() };
    let mut high16 = rotation(0, &[(0, Q_IDENTITY), (30, Q_Y90)]);
    high16.unrelated_16 = 0xABCD;
    let out_of_range = rotation(99, &[(0, Q_IDENTITY)]);
    let not_unit = rotation(1, &[(0, [0.0, 0.5, 0.0, 0.5])]);
    let not_ascending = rotation(1, &[(10, Q_IDENTITY), (10, Q_Y90)]);
    let traps = AnimFile {
        last_frame: 30,
        tracks: vec![short_index, mistargeted, high16, out_of_range, not_unit, not_ascending],
        ..Default::default()
    };
    write(&dir, "gateM3.MD2", &traps.to_bytes());
    let broken = AnimFile { break_identity: true, ..gate_m1() };
    write(&dir, "gateM4.MD2", &broken.to_bytes());

    let scene = formats::open(&dir.join("gate.MD2")).unwrap();
    let m3 = &scene.clips[mdview::scene::resolve_clip(&scene, "M3").unwrap()];
    let skipped: Vec<Option<&str>> = m3.tracks.iter().map(|t| t.skipped.as_deref()).collect();
    assert!(skipped[0].unwrap().contains("2 index entries for a 4-vertex mesh"), "{skipped:?}");
    assert!(skipped[1].unwrap().contains("+2 box corners"), "{skipped:?}");
    assert_eq!(skipped[2], None, "+0x16 is not part of the target: the track plays on node 0");
    assert_eq!(m3.tracks[2].target, 0);
    assert_eq!(m3.tracks[2].target_name.as_deref(), Some("door01"));
    assert!(skipped[3].unwrap().contains("outside"), "{skipped:?}");
    assert!(skipped[4].unwrap().contains("unit"), "{skipped:?}");
    assert!(skipped[5].unwrap().contains("ascend"), "{skipped:?}");
    // The one good track still turns door0.
    assert!(approx(world(&scene, &at(&scene, "M3", 30.0), 0, 1), [2.0, 0.0, -1.0], 1e-5));

    let m4 = &scene.clips[mdview::scene::resolve_clip(&scene, "M4").unwrap()];
    assert!(m4.tracks.is_empty());
    assert!(m4.warnings.iter().any(|w| w.contains("identity")), "{:?}", m4.warnings);
    // M1 is unaffected by its broken siblings.
    assert!(scene.clips[0].tracks.iter().all(|t| t.skipped.is_none()));
}

#[test]
fn siblings_follow_the_engines_role_probe() {
    let dir = gate_dir("siblings");
    // M1 and M2 exist, M3 does not: the engine never probes M10. A bare M is never opened
    // beside numbered M files; a bare C is (no numbered C); a P set belongs to Pgate.
    write(&dir, "GATEM10.md2", &gate_m1().to_bytes());
    write(&dir, "gateM.md2", &gate_m1().to_bytes());
    write(&dir, "gatec.md2", &gate_m1().to_bytes());
    write(&dir, "gatepostM1.MD2", &gate_m1().to_bytes());
    write(&dir, "PgateM1.MD2", &gate_m1().to_bytes());
    let scene = formats::open(&dir.join("gate.MD2")).unwrap();
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["C", "M1", "M2"]);
    assert_eq!(scene.kind, SceneKind::Mesh);
    assert_eq!(scene.default_clip, None);
}

#[test]
fn opening_an_animation_finds_its_base_and_selects_itself() {
    let dir = gate_dir("open-anim");
    let scene = formats::open(&dir.join("gatem2.MD2")).unwrap();
    assert_eq!(scene.kind, SceneKind::Animation);
    assert_eq!(scene.nodes.len(), 4, "the base model's nodes are there to pose");
    let clip = scene.default_clip.expect("the opened animation is selected");
    assert_eq!(scene.clips[clip].name, "M2");
}

/// §19: the engine takes numbered files up to the first gap, and a bare file only where none is
/// numbered. Opened directly, a file it never loads still plays (as its own clip, the default),
/// with a warning saying the game never shows it; opening the model leaves such files out.
#[test]
fn an_animation_the_engine_never_loads_plays_when_opened_with_a_warning() {
    let dir = gate_dir("never-loaded");
    write(&dir, "gateM.MD2", &gate_m2().to_bytes());
    write(&dir, "gateM4.MD2", &gate_m1().to_bytes());
    let model = formats::open(&dir.join("gate.MD2")).unwrap();
    assert_eq!(model.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["M1", "M2"]);
    assert!(model.warnings.iter().all(|w| !w.contains("never loads")), "{:?}", model.warnings);
    for (file, clip) in [("gateM.MD2", "M"), ("gateM4.MD2", "M4")] {
        let scene = formats::open(&dir.join(file)).unwrap();
        let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["M1", "M2", clip], "{file}");
        assert_eq!(scene.default_clip, Some(2), "{file}: the opened file plays");
        assert!(
            scene.warnings.iter().any(|w| w.starts_with(file) && w.contains("never loads")),
            "{file}: {:?}",
            scene.warnings
        );
    }
    // A file the engine loads opens without that warning.
    let scene = formats::open(&dir.join("gatem2.MD2")).unwrap();
    assert!(scene.warnings.iter().all(|w| !w.contains("never loads")), "{:?}", scene.warnings);
}

#[test]
fn animation_without_base_still_opens_with_a_message() {
    let dir = temp_dir("orphans");
    write(&dir, "SCALE.MD2", &gate_m1().to_bytes());
    write(&dir, "scatM1.md2", &gate_m1().to_bytes());
    for name in ["SCALE.MD2", "scatM1.md2"] {
        let scene = formats::open(&dir.join(name)).unwrap();
        assert_eq!(scene.kind, SceneKind::Animation);
        assert!(scene.nodes.is_empty());
        assert!(scene.warnings.iter().any(|w| w.contains("nothing to pose")), "{name}: {:?}", scene.warnings);
        assert_eq!(scene.clips[0].tracks.len(), 3, "tracks are still listed");
        assert!(scene.clips[0].tracks[0].skipped.as_deref().unwrap().contains("no base model"));
    }
}

#[test]
fn evaluation_with_no_clip_is_the_rest_pose_and_never_mutates_the_scene() {
    let dir = gate_dir("no-clip");
    let scene = formats::open(&dir.join("gate.MD2")).unwrap();
    let before: Vec<_> = scene.nodes.iter().map(|n| n.local).collect();
    let mut pose = Pose::default();
    pose.evaluate(&scene, Some(0), 17.0);
    pose.evaluate(&scene, None, 17.0);
    assert!(approx(world(&scene, &pose, 0, 1), [3.0, 0.0, 0.0], 1e-6));
    assert!(pose.positions.iter().all(Option::is_none));
    let after: Vec<_> = scene.nodes.iter().map(|n| n.local).collect();
    assert_eq!(before, after);
}

fn mdview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("run mdview")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn info_json_of_an_animation_lists_frames_and_tracks() {
    let dir = gate_dir("info-anim");
    let out = mdview(&["info", p(&dir.join("gateM1.MD2")), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["format"], "tpw-md2");
    assert_eq!(json["kind"], "animation");
    assert_eq!(json["frames"], 30.0);
    let tracks = json["tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), 3);
    assert_eq!(tracks[1]["index"], 1);
    assert_eq!(tracks[1]["target"], 1);
    assert_eq!(tracks[1]["channels"], serde_json::json!(["rotation"]));
    assert!(tracks[1]["skipped"].is_null());
    assert_eq!(json["nodes"].as_array().unwrap().len(), 4);
}

#[test]
fn export_poses_a_fractional_frame_of_a_named_animation() {
    let dir = gate_dir("export-anim");
    let base = dir.join("gate.MD2");
    // 12.5 of 30 frames of a quarter turn is 37.5 degrees.
    let angle = 37.5f32.to_radians();
    let expected = [2.0 + angle.cos(), 0.0, -angle.sin()];
    let anim_path = dir.join("gateM1.MD2");
    for anim in ["M1", "gateM1.MD2", "gatem1.md2", p(&anim_path)] {
        let out_path = dir.join("posed.obj");
        let out = mdview(&["export", p(&base), "--anim", anim, "--frame", "12.5", "-o", p(&out_path)]);
        assert!(out.status.success(), "--anim {anim}: {}", String::from_utf8_lossy(&out.stderr));
        let objects = obj_positions(&std::fs::read_to_string(&out_path).unwrap());
        assert!(approx(objects[0].1[1], expected, 1e-4), "--anim {anim}: {:?}", objects[0].1[1]);
    }
}

#[test]
fn a_clip_lasts_the_span_its_block_declares() {
    let dir = temp_dir("uv-only");
    let (mesh, mut anim) = fountain();
    let track = &mut anim.tracks[0];
    track.morph = None;
    track.visibility = None;
    write(&dir, "sea.MD2", &mesh.to_bytes());
    for (last, first, length) in [(0, 0, 0.0), (50, 0, 50.0), (50, 10, 40.0)] {
        anim.last_frame = last;
        anim.first_frame = first;
        write(&dir, "seaM1.MD2", &anim.to_bytes());
        let scene = formats::open(&dir.join("sea.MD2")).unwrap();
        assert_eq!(scene.clips[0].length(), length, "block +0x04 = {first}, +0x08 = {last}");
        assert_eq!(scene.clips[0].start, first as f32);
        // The keys still play wherever the timeline is put.
        assert_ne!(at(&scene, "M1", 50.0).mesh_uvs(&scene, 1)[0], at(&scene, "M1", 0.0).mesh_uvs(&scene, 1)[0]);
    }
}

#[test]
fn damaged_animations_bind_without_panicking() {
    let dir = gate_dir("anim-damage");
    let (mesh, anim) = fountain();
    let base = tpw::decode_model(&mesh.to_bytes()).unwrap();
    let gate_model = tpw::decode_model(&std::fs::read(dir.join("gate.MD2")).unwrap()).unwrap();
    for bytes in [anim.to_bytes(), gate_m1().to_bytes()] {
        for cut in 0..bytes.len() {
            if let Ok(tpw::TpwFile::Anim { anim, .. }) = tpw::decode_file(&bytes[..cut]) {
                for model in [&base, &gate_model] {
                    let clip = tpw::anim::bind(&anim, Some(model), "x", None);
                    let _ = clip.length();
                }
            }
        }
        let mut damaged = bytes.clone();
        for i in 0..damaged.len() {
            for bit in 0..8 {
                damaged[i] ^= 1 << bit;
                if let Ok(tpw::TpwFile::Anim { anim, .. }) = tpw::decode_file(&damaged) {
                    let mut scene = base.scene.clone();
                    scene.clips = vec![tpw::anim::bind(&anim, Some(&base), "x", None)];
                    let _ = Pose::at(&scene, Some(0), 5.0);
                }
                damaged[i] ^= 1 << bit;
            }
        }
    }
}

#[test]
fn scan_tallies_the_corpus_tables() {
    let dir = gate_dir("scan");
    let (mesh, anim) = fountain();
    write(&dir, "fountain.MD2", &mesh.to_bytes());
    write(&dir, "fountainM1.MD2", &anim.to_bytes());
    write(&dir, "SCALE.MD2", &gate_m1().to_bytes());
    write(&dir, "gateM4.MD2", &AnimFile { break_identity: true, ..gate_m1() }.to_bytes());
    write(&dir, "broken.MD2", b"\x46\x5D\xD1\x1C");
    // No tracks and a table offset that fails the identity, as the game's track-less clips.
    write(&dir, "gateE.MD2", &AnimFile { tracks: Vec::new(), break_identity: true, ..gate_m1() }.to_bytes());
    let report = mdview::scan::scan_dir(&dir).unwrap();
    assert_eq!(report.files, 9);
    assert_eq!(report.tpw_mesh_files, 2);
    assert_eq!(report.tpw_animation_files, 6);
    assert_eq!(report.animations_without_base.len(), 1);
    assert_eq!((report.identity_pass, report.identity_fail, report.zero_track_files), (4, 1, 1));
    assert_eq!(report.failed.len(), 1);
    assert_eq!(report.tracks_by_flag_bit.get("0x8"), Some(&(3 + 2 + 3)));
    assert_eq!(report.tracks_by_flag_bit.get("0x20000"), Some(&1));
    assert_eq!((report.morph.decoded, report.uv.decoded), (1, 1));
    assert_eq!(report.rotation.decoded, 3 + 2);
    assert_eq!(report.rotation.skipped, 3, "SCALE.MD2 has no base model");
    assert_eq!(report.material_flag_bits.get("0x02"), Some(&1));

    let out = mdview(&["scan", p(&dir), "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["tpw_animation_files"], 6);
    assert_eq!(json["zero_track_files"], 1);
}

fn rig_dir(test: &str) -> (PathBuf, Scene) {
    let dir = temp_dir(test);
    let (rig, anim) = every_channel();
    write(&dir, "rig.MD2", &rig.to_bytes());
    write(&dir, "rigM1.MD2", &anim.to_bytes());
    let scene = formats::open(&dir.join("rig.MD2")).unwrap();
    (dir, scene)
}

/// The easing of [`ADVISOR_CURVE`] for the even fraction `t`, computed from the notes' steps.
fn advisor_ease(t: f32) -> f32 {
    let c = ADVISOR_CURVE.map(|b| f32::from(b) / 255.0);
    let x = t * 8.999995;
    let s = x.trunc();
    let r = x - s;
    let (a, b) = match s as usize {
        0 => (0.0, c[0]),
        s @ 1..=7 => (c[s - 1], c[s]),
        _ => (c[7], 1.0),
    };
    a + (b - a) * r
}

#[test]
fn every_channel_plays_at_once_as_the_notes_say() {
    let (_dir, scene) = rig_dir("every-channel");
    let clip = &scene.clips[0];
    assert_eq!((clip.start, clip.end, clip.rate), (0.0, 30.0, 30.0));
    assert!(clip.tracks.iter().all(|t| t.skipped.is_none()), "{:?}", clip.tracks);
    assert_eq!(clip.tracks[0].channels[..], ["position", "rotation", "scale", "morph", "uv", "visibility", "easing"]);
    assert_eq!(clip.tracks[1].channels[..], ["path progress", "facing"]);
    assert_eq!(clip.tracks[3].channels[..], ["raw frames"]);
    let pose = |f: f32| at(&scene, "M1", f);

    // Frame 15 on the sheet: rotation eased from 0.5 to (141 + 35 r) / 255 of 90 degrees,
    // scale (1.5, 1, 0.75), position 1/4 of the way from (0,0,0) at 10 to (0,4,0) at 30, morph
    // y 3/4 of the way from 0 to 1. Source vertex 1 at (1, 0, 0): x = 7.5 + (2 - 15) * 0.5 = 1.
    let theta = advisor_ease(0.5) * std::f32::consts::FRAC_PI_2;
    assert!((advisor_ease(0.5) - 0.62157).abs() < 1e-4);
    let p15 = pose(15.0);
    let local = p15.mesh_positions(&scene, 0)[1];
    assert!(approx(local.to_array(), [1.0, 0.75, 0.0], 1e-5), "{local}");
    let expected = [1.5 * theta.cos(), 0.75 + 1.0, -1.5 * theta.sin()];
    assert!(approx(world(&scene, &p15, 0, 1), expected, 1e-4), "{:?} vs {expected:?}", world(&scene, &p15, 0, 1));
    assert!(!p15.visible[0], "entry -12 hides from frame 12");

    // Frame 5: before the position's first key the authored (5, 0, 0) stays; the rotation is at
    // fraction 1/6, in the ramp's second step (32 -> 66).
    let p5 = pose(5.0);
    assert!(approx(p5.locals[0].w_axis.truncate().to_array(), [5.0, 0.0, 0.0], 1e-6));
    let scale_x = 1.0 + 5.0 / 30.0;
    let x_axis = p5.locals[0].x_axis.truncate();
    assert!((x_axis.length() - scale_x).abs() < 1e-5);
    let angle = (-x_axis.z).atan2(x_axis.x);
    assert!((angle - advisor_ease(1.0 / 6.0) * std::f32::consts::FRAC_PI_2).abs() < 1e-4, "{angle}");
    assert!(p5.visible[0] && pose(26.0).visible[0], "shown from 5, hidden 12, shown 25");

    // UVs: slot 0 (0, 0) is (1, 0) at 10 and (1, 2) at 30; slot 17 is (1/16, 1/16) at rest.
    let uv20 = pose(20.0).mesh_uvs(&scene, 0).to_vec();
    assert!(approx(uv20[0].extend(0.0).to_array(), [1.0, 1.0, 0.0], 1e-6));
    let uv5 = pose(5.0).mesh_uvs(&scene, 0).to_vec();
    assert!(approx(uv5[17].extend(0.0).to_array(), [0.0625 + 0.5, 0.0625, 0.0], 1e-6));

    // The cart: frame 9 is 30 % of a 2-segment straight path: segment 0 at 0.6, (6, 0, 0),
    // heading +X, so its +Z turns to +X and +X to Y x Z = -Z.
    let cart = pose(9.0).locals[4];
    assert!(approx(cart.w_axis.truncate().to_array(), [6.0, 0.0, 0.0], 1e-4));
    assert!(approx(cart.z_axis.truncate().to_array(), [1.0, 0.0, 0.0], 1e-5));
    assert!(approx(cart.x_axis.truncate().to_array(), [0.0, 0.0, -1.0], 1e-5));
    // Frame 15: 50 % is the corner (10, 0, 0), now heading +Z.
    let cart = pose(15.0).locals[4];
    assert!(approx(cart.w_axis.truncate().to_array(), [10.0, 0.0, 0.0], 1e-4));
    assert!(approx(cart.z_axis.truncate().to_array(), [0.0, 0.0, 1.0], 1e-5));
    // Frame 29.5: 99 and 3 are 96 apart, so the blend goes 99 -> 103 the short way: 101 wraps to
    // 1 %, x = 0.02, at (0.2, 0, 0). Frame 30: 3 % at (0.6, 0, 0).
    assert!(approx(pose(29.5).locals[4].w_axis.truncate().to_array(), [0.2, 0.0, 0.0], 1e-3));
    assert!(approx(pose(30.0).locals[4].w_axis.truncate().to_array(), [0.6, 0.0, 0.0], 1e-4));
    // Outside the values' window the cart is left as authored.
    assert_eq!(pose(31.0).locals[4], scene.nodes[4].local);

    // The flag's raw frames: vertex i of frame f is positions[4 f + index[i]], index [3, 2, 1, 0];
    // blended between frames 10 and 11.
    let flag = pose(10.5).mesh_positions(&scene, 1);
    assert!(approx(flag[0].to_array(), [3.0, 1.05, 0.0], 1e-5), "{flag:?}");
    assert!(approx(flag[3].to_array(), [0.0, 1.05, 0.0], 1e-5));

    // The lid: hidden by the hide list at the start, shown by its entry 20.
    assert!(!pose(0.0).visible[2] && !pose(19.0).visible[2] && pose(20.0).visible[2]);
    // Hiding does not cascade: the flag (under the cart) is shown while nothing hides it.
    assert!(pose(15.0).visible[1]);
}

#[test]
fn the_mesh_box_reading_would_put_the_sheet_elsewhere() {
    // The old rule decoded morph values into the mesh box: centre midway, step = extent / 1023.
    // The sheet's mesh box is flat in y (0..0), so under it every y field decodes to 0; the
    // track box lifts the sheet to y = 2 + (-100) * 0.01 = 1 at frame 20.
    let (_dir, scene) = rig_dir("mesh-box");
    let lifted = at(&scene, "M1", 20.0).mesh_positions(&scene, 0);
    assert!(lifted.iter().all(|p| (p.y - 1.0).abs() < 1e-5), "{:?}", &lifted[..4]);
    // And x: vertex 1 (field 2 - 15 = -13) is 7.5 - 13 * 0.5 = 1 in the track box, but
    // 7.5 - 13 * 15 / 1023 = 7.31 in the mesh box.
    assert!((lifted[1].x - 1.0).abs() < 1e-5);
}

#[test]
fn scan_reports_the_notes_tallies() {
    let dir = temp_dir("scan-notes");
    let (rig, anim) = every_channel();
    write(&dir, "rig.MD2", &rig.to_bytes());
    write(&dir, "rigM1.MD2", &anim.to_bytes());
    write(&dir, "rigc.MD2", &AnimFile { last_frame: 5, ..Default::default() }.to_bytes());
    let (mesh, fountain_anim) = fountain();
    write(&dir, "fountain.MD2", &mesh.to_bytes());
    write(&dir, "fountainM1.MD2", &fountain_anim.to_bytes());
    let coaster = MeshFile {
        flags: 0x5,
        meshes: vec![simple_mesh("rail", None, ROW_IDENTITY, door(), None)],
        ..Default::default()
    };
    write(&dir, "coaster.MD2", &coaster.to_bytes());
    // Two anchors in use (the 0x111 records' are not): the island's lies far from its node's
    // own place at rest; the second island's node sits on its anchored point, (0.125, 0.625, 0)
    // on the face plus 0.3 along (0, 1, 1) / sqrt 2. And one terrain model.
    write(&dir, "island.MD2", &anchored_island().0.to_bytes());
    let mut on_its_face = anchored_island().0;
    on_its_face.dummies[0].matrix = t(0.125, 0.837, 0.212);
    write(&dir, "isle2.MD2", &on_its_face.to_bytes());
    write(&dir, "base.MD2", &terrain().to_bytes());
    let report = mdview::scan::scan_dir(&dir).unwrap();
    assert_eq!((report.face_anchors, report.face_anchors_at_rest, report.heightfields), (2, 1, 1));
    // rigM1: one track of each node channel on a base; fountainM1 adds visibility.
    for (kind, tally) in [
        ("position", &report.position),
        ("scale", &report.scale),
        ("path", &report.path_progress),
        ("raw frames", &report.raw_frames),
    ] {
        assert_eq!((tally.decoded, tally.skipped), (1, 0), "{kind}");
    }
    assert_eq!(report.visibility.decoded, 2 + 1);
    assert_eq!((report.eased_rotation_tracks, report.eased_keys, report.clips_with_easing), (1, 1, 1));
    assert_eq!(report.eased_keys_non_monotonic, 0, "Advisorm1's curve rises");
    assert_eq!(report.additive_models, 1);
    assert_eq!((report.models_with_paths, report.paths), (1, 1));
    assert_eq!(report.animations_by_role.get("M"), Some(&2));
    assert_eq!(report.animations_by_role.get("C"), Some(&1));
    assert_eq!(report.bare_role_files, 1);
    assert_eq!((report.blocks_with_hide_list, report.hide_list_entries), (1, 1));
    // The sheet's 256 entries have 3 keys each; the fountain's first entry has 3.
    assert_eq!((report.uv_multi_key_entries, report.uv_multi_key_tracks, report.uv_most_keys), (257, 2, 3));
    let b = &report.morph_box;
    assert_eq!((b.tracks, b.same_as_mesh_box), (2, 0));
    // The sheet's first key is its rest pose in the track box only; the fountain's is neither.
    assert_eq!((b.first_key_at_rest_track_box, b.first_key_at_rest_mesh_box, b.first_key_at_rest_both), (1, 0, 0));
    assert_eq!(b.corners_match_extremes, 2);
    let text = report.to_text();
    assert!(text.contains("eased rotation tracks") && text.contains("box = mesh box"), "{text}");
    assert!(text.contains("face anchors") && text.contains("heightfields"), "{text}");
}

#[test]
fn additive_models_compose_rotation_and_add_position() {
    let quarter = |radians: f32| {
        let (s, c) = (radians.sin(), radians.cos());
        [c, 0., -s, 0., 0., 1., 0., 0., s, 0., c, 0., 1., 2., 3., 1.]
    };
    let anim = AnimFile {
        last_frame: 10,
        tracks: vec![TrackSpec {
            target: 0,
            rotation: vec![RotationKeySpec { frame: 0, curve: 0xFFFF, quat: Q_Y90 }],
            position: Some(PositionSpec { kind: 0x18, points: vec![[0.0, 1.0, 0.0]], frames: vec![0] }),
            ..Default::default()
        }],
        ..Default::default()
    };
    for (flags, expected) in [(0x5, [0.0, 3.0, 3.0]), (0x1, [0.0, 1.0, -1.0])] {
        let dir = temp_dir(&format!("additive-{flags}"));
        let model = MeshFile {
            flags,
            meshes: vec![simple_mesh("rail", None, quarter(std::f32::consts::FRAC_PI_2), door(), None)],
            ..Default::default()
        };
        write(&dir, "rail.MD2", &model.to_bytes());
        write(&dir, "railM1.MD2", &anim.to_bytes());
        let scene = formats::open(&dir.join("rail.MD2")).unwrap();
        // Additive: authored 90 then key 90 = 180 degrees, (1,0,0) -> (-1,0,0), plus (1,2,3) +
        // (0,1,0). Replacing: the key's 90 degrees, (1,0,0) -> (0,0,-1), at (0,1,0).
        let got = world(&scene, &at(&scene, "M1", 5.0), 0, 1);
        assert!(approx(got, expected, 1e-5), "flags {flags:#x}: {got:?}");
    }
}

#[test]
fn export_and_info_carry_every_channel() {
    let (dir, scene) = rig_dir("every-export");
    let out_path = dir.join("posed.obj");
    let out = mdview(&["export", p(&dir.join("rig.MD2")), "--anim", "M1", "--frame", "10.5", "-o", p(&out_path)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let objects = obj_positions(&std::fs::read_to_string(&out_path).unwrap());
    // The flag rides the cart: frame 10.5 is 35 % of the path, x = 0.7 on segment 0, at (7, 0, 0)
    // facing +X, so the flag's local (3, 1.05, 0) lands at (7, 1.05, -3).
    let flag = objects.iter().find(|(name, _)| name.contains("flag")).expect("flag exported");
    assert!(approx(flag.1[0], [7.0, 1.05, -3.0], 1e-3), "{:?}", flag.1[0]);
    // The lid is hidden at 10.5 (hide list, shown only from 20), so it is not exported.
    assert!(!objects.iter().any(|(name, _)| name.contains("lid")), "{objects:?}");

    let out = mdview(&["info", p(&dir.join("rigM1.MD2")), "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["frames"], 30.0);
    let tracks = json["tracks"].as_array().unwrap();
    assert!(tracks.iter().all(|t| t["skipped"].is_null()), "{tracks:?}");
    assert_eq!(scene.clips[0].tracks.len(), tracks.len());
}
