//! Quake 3 players assembled from `lower`, `upper` and `head` (#46): parts hung on their
//! tags frame by frame as the game's `CG_PositionRotatedEntityOnTag` places them, the
//! `animation.cfg` clips with the cgame's `LEGS_` skip, legs and torso layers playing at once,
//! one skin choice for all three parts, a weapon on `tag_weapon`, and `info`/`export` of the
//! folder. Expected positions are worked out here with the game's row-vector arithmetic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use glam::Vec3;
use mdview::formats::md3::{self, Frame, Md3File, Surface, Tag, Vertex, player};
use mdview::formats::{self, Pick};
use mdview::scene::anim::Pose;
use mdview::scene::{LayerTime, Scene};
use mdview::writers::md3::write;

type Axes = [[f32; 3]; 3];
const IDENTITY: Axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Axes of a turn of `degrees` about Quake's `axis` (0 x, 1 y, 2 z), rows as the file stores them.
fn turn(axis: usize, degrees: f32) -> Axes {
    let (s, c) = degrees.to_radians().sin_cos();
    let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut m = IDENTITY;
    m[a][a] = c;
    m[a][b] = s;
    m[b][a] = -s;
    m[b][b] = c;
    m
}

/// `Σ v[i] · axes[i]` (how the game places a point in a frame of axes).
fn along(axes: &Axes, v: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0; 3];
    for (i, row) in axes.iter().enumerate() {
        for k in 0..3 {
            out[k] += v[i] * row[k];
        }
    }
    out
}

/// q_math.c's MatrixMultiply.
fn multiply(a: &Axes, b: &Axes) -> Axes {
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        out[i] = along(b, a[i]);
    }
    out
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Quake to scene axes, as the project maps them.
fn scene_axes(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[2], -v[1]]
}

/// Per-frame tags of one tag name.
struct TagTrack {
    name: &'static str,
    frames: Vec<([f32; 3], Axes)>,
}

/// A part: one triangle whose first vertex is `corner(frame)`, and tags per frame.
fn part(name: &str, frames: usize, corner: impl Fn(usize) -> [i16; 3], tags: &[TagTrack]) -> Md3File {
    let vertices =
        (0..frames).flat_map(|f| [corner(f), [64, 0, 0], [0, 64, 0]].map(|xyz| Vertex { xyz, normal: 0 })).collect();
    Md3File {
        name: name.into(),
        flags: 0,
        frames: (0..frames)
            .map(|f| Frame {
                bounds: [Vec3::ZERO, Vec3::ONE],
                local_origin: Vec3::ZERO,
                radius: 1.0,
                name: format!("f{f}"),
            })
            .collect(),
        tag_names: tags.iter().map(|t| t.name.to_string()).collect(),
        tags: (0..frames)
            .map(|f| {
                tags.iter()
                    .map(|t| Tag {
                        name: t.name.into(),
                        origin: Vec3::from_array(t.frames[f].0),
                        axes: t.frames[f].1.map(Vec3::from_array),
                    })
                    .collect()
            })
            .collect(),
        surfaces: vec![Surface {
            name: format!("{name}_body"),
            flags: 0,
            shaders: vec![(format!("models/players/test/{name}.tga"), 0)],
            triangles: vec![[0, 2, 1]],
            st: vec![[0.0, 0.0]; 3],
            vertex_count: 3,
            vertices,
            offset: 0,
        }],
        skin_count: 0,
        warnings: Vec::new(),
    }
}

/// lower: 4 frames (0 both, 1 walk, 2..3 idle), tag_torso turning per frame.
fn lower_torso_tag(frame: usize) -> ([f32; 3], Axes) {
    match frame {
        2 => ([2.0, 0.0, 10.0], turn(2, 90.0)),
        3 => ([2.0, 4.0, 12.0], multiply(&turn(0, 30.0), &turn(2, 90.0))),
        f => ([0.0, 0.0, 8.0 + f as f32], IDENTITY),
    }
}

/// upper: 6 frames (0 both, 1..3 torso, 4..5 stand), tag_head turning about y.
fn upper_head_tag(frame: usize) -> ([f32; 3], Axes) {
    ([1.0, 0.0, 6.0 + frame as f32], turn(1, 15.0 * frame as f32))
}

const HEAD_CORNER: [i16; 3] = [64, 128, 192]; // (1, 2, 3) units

/// `animation.cfg` with 6 BOTH lines, TORSO_GESTURE at 1 and LEGS_WALKCR at 6: skip 5.
const ANIMATION_CFG: &str = "sex m\nfootsteps boot\n\
    0 1 0 10 // BOTH_DEATH1\n0 1 0 10\n0 1 0 10\n0 1 0 10\n0 1 0 10\n0 1 0 10\n\
    1 2 0 10 // TORSO_GESTURE\n3 1 0 10\n3 1 0 10\n3 1 0 10\n3 1 0 10\n\
    4 2 2 10 // TORSO_STAND\n4 2 2 10\n\
    6 1 0 20 // LEGS_WALKCR\n6 1 0 20\n6 1 0 20\n6 1 0 20\n6 1 0 20\n6 1 0 20\n6 1 0 20\n6 1 0 20\n6 1 0 20\n\
    7 2 2 20 // LEGS_IDLE\n7 2 0 20\n7 -3 0 20 // LEGS_TURN, reversed\n";

fn write_player(dir: &Path) {
    let torso = TagTrack { name: "tag_torso", frames: (0..4).map(lower_torso_tag).collect() };
    let lower = part("lower", 4, |f| [0, 0, (64 * f) as i16], &[torso]);
    let head_tag = TagTrack { name: "tag_head", frames: (0..6).map(upper_head_tag).collect() };
    let weapon_tag =
        TagTrack { name: "tag_weapon", frames: (0..6).map(|f| ([5.0, -3.0, f as f32], turn(2, 45.0))).collect() };
    let upper = part("upper", 6, |f| [64 * f as i16, 0, 0], &[weapon_tag, head_tag]);
    let head_own = TagTrack { name: "tag_head", frames: vec![([0.0; 3], IDENTITY)] };
    let head = part("head", 1, |_| HEAD_CORNER, &[head_own]);
    for (name, file) in [("lower.md3", &lower), ("upper.md3", &upper), ("head.md3", &head)] {
        common::write(dir, name, &write(file));
    }
    common::write(dir, "animation.cfg", ANIMATION_CFG.as_bytes());
    for skin in ["default", "red"] {
        for name in ["lower", "upper", "head"] {
            let text = format!("{name}_body,models/players/test/{name}_{skin}.tga\ntag_torso,\n");
            common::write(dir, &format!("{name}_{skin}.skin"), text.as_bytes());
        }
    }
}

fn player_dir(name: &str) -> PathBuf {
    let dir = temp_dir(name).join("test");
    std::fs::create_dir_all(&dir).unwrap();
    write_player(&dir);
    dir
}

fn clip(scene: &Scene, name: &str) -> usize {
    scene.clips.iter().position(|c| c.name == name).unwrap_or_else(|| panic!("no clip {name}"))
}

/// World position of vertex 0 of the part's mesh under the pose.
fn corner_world(scene: &Scene, pose: &Pose, part: &str) -> [f32; 3] {
    let part = scene.parts.iter().find(|p| p.name == part).unwrap();
    let mesh = part.meshes.start;
    let local = pose.mesh_positions(scene, mesh)[0];
    pose.mesh_world(scene, mesh).transform_point3(local).to_array()
}

/// The game's head vertex at lower frame `l` and upper frame `u` (Quake axes): torso on
/// tag_torso, head on tag_head, each axis `tag × parent` (`CG_PositionRotatedEntityOnTag`).
fn game_head_corner(l: usize, u: usize) -> [f32; 3] {
    let (torso_origin, torso_axes) = lower_torso_tag(l);
    let (head_tag_origin, head_tag_axes) = upper_head_tag(u);
    let head_origin = add(torso_origin, along(&torso_axes, head_tag_origin));
    let head_axes = multiply(&head_tag_axes, &torso_axes);
    add(head_origin, along(&head_axes, HEAD_CORNER.map(|c| f32::from(c) / 64.0)))
}

#[test]
fn the_head_follows_both_tags_frame_by_frame_with_the_legs_skip() {
    let dir = player_dir("player-tags");
    let scene = formats::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["lower", "upper", "head"]);
    let (idle, stand) = (clip(&scene, "LEGS_IDLE"), clip(&scene, "TORSO_STAND"));
    // LEGS_IDLE is `7 2 2`: 7 - skip 5 = lower frames 2 and 3; TORSO_STAND upper frames 4, 5.
    for (legs_key, lower_frame) in [(0, 2), (1, 3)] {
        for (torso_key, upper_frame) in [(0, 4), (1, 5)] {
            let mut pose = Pose::default();
            let layers = [
                LayerTime { clip: idle, time: legs_key as f32, looping: true },
                LayerTime { clip: stand, time: torso_key as f32, looping: true },
            ];
            pose.evaluate_layers(&scene, &layers);
            let got = corner_world(&scene, &pose, "head");
            let want = scene_axes(game_head_corner(lower_frame, upper_frame));
            assert!(approx(got, want, 1e-4), "legs {lower_frame} torso {upper_frame}: {got:?} vs {want:?}");
            // Upper's own vertex moves with its frame and rides tag_torso.
            let (origin, axes) = lower_torso_tag(lower_frame);
            let upper_want = scene_axes(add(origin, along(&axes, [upper_frame as f32, 0.0, 0.0])));
            assert!(approx(corner_world(&scene, &pose, "upper"), upper_want, 1e-4));
            assert!(approx(corner_world(&scene, &pose, "lower"), scene_axes([0.0, 0.0, lower_frame as f32]), 1e-5));
        }
    }
    // Halfway between two tag frames turned about one axis, the game's lerped and
    // re-normalised axes are the half turn: TORSO_STAND between upper frames 4 and 5.
    let mut pose = Pose::default();
    let layers =
        [LayerTime { clip: idle, time: 0.0, looping: true }, LayerTime { clip: stand, time: 0.5, looping: true }];
    pose.evaluate_layers(&scene, &layers);
    let (torso_origin, torso_axes) = lower_torso_tag(2);
    let head_tag = ([1.0, 0.0, 10.5], turn(1, 67.5));
    let head_origin = add(torso_origin, along(&torso_axes, head_tag.0));
    let want = add(head_origin, along(&multiply(&head_tag.1, &torso_axes), [1.0, 2.0, 3.0]));
    assert!(approx(corner_world(&scene, &pose, "head"), scene_axes(want), 1e-4));
}

#[test]
fn clips_follow_animation_cfg_and_two_layers_play_at_once() {
    let dir = player_dir("player-clips");
    let scene = formats::open(&dir).unwrap();
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 25, "{names:?}");
    assert_eq!(names[0], "BOTH_DEATH1");
    assert_eq!(names[24], "LEGS_TURN");
    // LEGS_TURN `7 -3`: lower frames 2, 3, 4 played backwards; frame 4 is past the file's 4.
    let turn = &scene.clips[clip(&scene, "LEGS_TURN")];
    assert_eq!(turn.length(), 2.0);
    assert!(turn.warnings.iter().any(|w| w.contains("frame 4")), "{:?}", turn.warnings);
    // A loop of all its frames returns to the first: one key more than its frames.
    assert_eq!(scene.clips[clip(&scene, "LEGS_IDLE")].length(), 2.0);
    assert_eq!(scene.clips[clip(&scene, "LEGS_IDLE")].rate, 20.0);
    assert_eq!(scene.clips[clip(&scene, "LEGS_IDLECR")].length(), 1.0);
    let [legs, torso] = [&scene.layers[0], &scene.layers[1]];
    assert_eq!((legs.name.as_str(), torso.name.as_str()), ("legs", "torso"));
    assert_eq!(legs.clip, Some(clip(&scene, "LEGS_IDLE")));
    assert_eq!(torso.clip, Some(clip(&scene, "TORSO_STAND")));
    assert!(legs.choices.contains(&clip(&scene, "BOTH_DEAD1")) && !legs.choices.contains(&clip(&scene, "TORSO_STAND")));
    assert!(torso.choices.contains(&clip(&scene, "BOTH_DEAD1")) && !torso.choices.contains(&clip(&scene, "LEGS_IDLE")));
    // Without a clip the scene plays both layers: at 0.05 s legs are one frame (20 fps) into
    // LEGS_IDLE, torso half a frame (10 fps) into TORSO_STAND.
    let mut pose = Pose::default();
    pose.evaluate(&scene, None, 0.05);
    assert!(approx(corner_world(&scene, &pose, "lower"), scene_axes([0.0, 0.0, 3.0]), 1e-4));
    let (origin, axes) = lower_torso_tag(3);
    let want = scene_axes(add(origin, along(&axes, [4.5, 0.0, 0.0])));
    assert!(approx(corner_world(&scene, &pose, "upper"), want, 1e-4));
    // A torso clip played alone leaves the legs where LEGS_IDLE starts (lower frame 2, tag
    // turned), not in the file's frame 0.
    let alone = Pose::at(&scene, Some(clip(&scene, "TORSO_GESTURE")), 1.0);
    assert!(approx(corner_world(&scene, &alone, "lower"), scene_axes([0.0, 0.0, 2.0]), 1e-5));
    let (origin, axes) = lower_torso_tag(2);
    let want = scene_axes(add(origin, along(&axes, [2.0, 0.0, 0.0])));
    assert!(approx(corner_world(&scene, &alone, "upper"), want, 1e-4));
    // A TORSO_ clip moves the upper body only; a BOTH_ clip both.
    let gesture = &scene.clips[clip(&scene, "TORSO_GESTURE")];
    let upper = &scene.parts[1];
    assert!(gesture.channels.iter().all(|c| match c {
        mdview::scene::Channel::VertexFrames { mesh, .. } => upper.meshes.contains(mesh),
        other => other.moved_node().is_some_and(|n| upper.nodes.contains(&n)),
    }));
    let both = &scene.clips[clip(&scene, "BOTH_DEATH1")];
    let meshes: Vec<usize> = both
        .channels
        .iter()
        .filter_map(|c| match c {
            mdview::scene::Channel::VertexFrames { mesh, .. } => Some(*mesh),
            _ => None,
        })
        .collect();
    assert_eq!(meshes, [scene.parts[0].meshes.start, scene.parts[1].meshes.start]);
}

#[test]
fn one_skin_choice_switches_all_three_parts() {
    let dir = player_dir("player-skins");
    let material_textures = |scene: &Scene| -> Vec<String> {
        scene.materials.iter().map(|m| m.texture.clone().unwrap_or_default()).collect()
    };
    let scene = formats::open(&dir).unwrap();
    let choice = scene.choices.iter().find(|c| c.key == md3::CHOICE_SKIN).unwrap();
    assert_eq!(choice.options, ["default", "red"]);
    assert_eq!(choice.available, [true, true]);
    assert!(material_textures(&scene).iter().all(|t| t.ends_with("_default.tga")), "{:?}", material_textures(&scene));
    let red = formats::open_with(&dir, &[Pick { key: md3::CHOICE_SKIN.into(), option: 1 }]).unwrap();
    let textures = material_textures(&red);
    assert_eq!(textures.len(), 3);
    assert!(textures.iter().all(|t| t.ends_with("_red.tga")), "{textures:?}");
    // Opening a part alone still shows that part alone.
    let lower = formats::open(&dir.join("lower.md3")).unwrap();
    assert!(lower.parts.is_empty() && lower.layers.is_empty());
    assert_eq!(lower.meshes.len(), 1);
}

#[test]
fn a_weapon_hangs_on_tag_weapon_as_the_game_holds_it() {
    let dir = player_dir("player-weapon");
    let mut scene = formats::open(&dir).unwrap();
    let weapon = md3::decode(&write(&mdview::writers::md3::sample(1))).unwrap();
    let part = player::attach_weapon(&mut scene, weapon).unwrap();
    assert_eq!(scene.parts[part].group, "weapon");
    scene.validate().unwrap();
    let (idle, stand) = (clip(&scene, "LEGS_IDLE"), clip(&scene, "TORSO_STAND"));
    let mut pose = Pose::default();
    let layers =
        [LayerTime { clip: idle, time: 1.0, looping: true }, LayerTime { clip: stand, time: 1.0, looping: true }];
    pose.evaluate_layers(&scene, &layers);
    // The sample's corner (1, 0, 0) in its frame 0... its vertex 1 is (1, 0, 0) units.
    let mesh = scene.parts[part].meshes.start;
    let got = pose.mesh_world(&scene, mesh).transform_point3(pose.mesh_positions(&scene, mesh)[0]).to_array();
    // Vertex 0 is the origin: the weapon's origin is the tag's, placed by torso (frame 3).
    let (torso_origin, torso_axes) = lower_torso_tag(3);
    let want = add(torso_origin, along(&torso_axes, [5.0, -3.0, 5.0]));
    assert!(approx(got, scene_axes(want), 1e-4), "{got:?} vs {want:?}");
    // A player without a torso cannot hold one.
    let lower = formats::open(&dir.join("lower.md3")).unwrap();
    assert!(player::attach_weapon(&mut lower.clone(), lower).is_err());
}

fn mdview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("run mdview")
}

#[test]
fn info_and_export_take_the_player_folder() {
    let dir = player_dir("player-cli");
    let info = mdview(&["info", dir.to_str().unwrap()]);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("LEGS_IDLE") && text.contains("tag_head"), "{text}");
    // --timing times one file's decoding: for a player folder it says so and still answers.
    let timed = mdview(&["info", "--timing", dir.to_str().unwrap()]);
    assert!(timed.status.success(), "{}", String::from_utf8_lossy(&timed.stderr));
    assert!(String::from_utf8_lossy(&timed.stderr).contains("player folder"));
    // To a file: the player, every clip, in one glTF.
    let out = dir.parent().unwrap().join("player.glb");
    let export = mdview(&["export", dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    assert_eq!(json["animations"].as_array().map(Vec::len), Some(25));
    assert_eq!(json["meshes"].as_array().map(Vec::len), Some(3));
    // With a weapon in its hand: one mesh more.
    let weapon = common::write(dir.parent().unwrap(), "gun.md3", &write(&mdview::writers::md3::sample(1)));
    let armed = dir.parent().unwrap().join("armed.glb");
    let args = ["export", dir.to_str().unwrap(), "-o", armed.to_str().unwrap(), "--weapon", weapon.to_str().unwrap()];
    let export = mdview(&args);
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let bytes = std::fs::read(&armed).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    assert_eq!(json["meshes"].as_array().map(Vec::len), Some(4));
    // To a folder: each model on its own, as for any folder.
    let batch = dir.parent().unwrap().join("batch");
    let export = mdview(&["export", dir.to_str().unwrap(), "-o", batch.to_str().unwrap()]);
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let written = std::fs::read_dir(&batch).unwrap().count();
    assert!(written >= 3, "{written} files in the batch output");
}

#[test]
fn the_corpus_player_assembles_with_its_head_above_its_legs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md3/turtlearena-casey/models/players/casey");
    if !dir.is_dir() {
        eprintln!("SKIP: no Quake 3 player in the corpus at {}", dir.display());
        return;
    }
    let scene = formats::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let tag = |part: usize, name: &str| {
        scene.parts[part].nodes.clone().find(|&n| scene.nodes[n].name == name).unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(scene.nodes[scene.parts[1].root].parent, Some(tag(0, "tag_torso")));
    assert_eq!(scene.nodes[scene.parts[2].root].parent, Some(tag(1, "tag_head")));
    assert_eq!(scene.choices[0].options, ["default", "blue", "red"]);
    let pose = {
        let mut pose = Pose::default();
        pose.evaluate(&scene, None, 0.0);
        pose
    };
    let height = |part: usize| {
        let range = scene.parts[part].meshes.clone();
        let points: Vec<f32> = range
            .flat_map(|m| {
                let world = pose.mesh_world(&scene, m);
                pose.mesh_positions(&scene, m).into_iter().map(move |p| world.transform_point3(p).y)
            })
            .collect();
        points.iter().sum::<f32>() / points.len() as f32
    };
    assert!(height(2) > height(1) && height(1) > height(0), "{} {} {}", height(0), height(1), height(2));
}

#[test]
fn without_animation_cfg_each_part_plays_its_own_frames() {
    let dir = player_dir("player-no-cfg");
    std::fs::remove_file(dir.join("animation.cfg")).unwrap();
    let scene = formats::open(&dir).unwrap();
    assert!(scene.layers.is_empty());
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["lower frames", "upper frames", "head frames"]);
    assert!(scene.warnings.iter().any(|w| w.contains("no animation.cfg")), "{:?}", scene.warnings);
    // A damaged cfg is said, and the parts still open.
    common::write(&dir, "animation.cfg", b"0 1 0 10\n");
    let scene = formats::open(&dir).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("BOTH_DEAD1")), "{:?}", scene.warnings);
}

/// `R_LerpTag`: origin and each axis lerped, each axis then normalised.
fn game_lerp_tag(a: &Tag, b: &Tag, f: f32) -> ([f32; 3], Axes) {
    let lerp = |x: Vec3, y: Vec3| x * (1.0 - f) + y * f;
    let axes = [0, 1, 2].map(|i| lerp(a.axes[i], b.axes[i]).normalize().to_array());
    (lerp(a.origin, b.origin).to_array(), axes)
}

/// Between frames tags blend as `R_LerpTag` blends them (each axis lerped, then made unit
/// length): the corpus player's head follows the game's placement over its three torso clips
/// that swing, on frames and between them (slerped tags were 0.057 units off).
#[test]
fn between_frames_the_corpus_head_follows_the_games_lerped_tags() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md3/turtlearena-casey/models/players/casey");
    if !dir.is_dir() {
        eprintln!("SKIP: no Quake 3 player in the corpus at {}", dir.display());
        return;
    }
    let scene = formats::open(&dir).unwrap();
    let read = |name: &str| md3::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
    let (lower, upper, head) = (read("lower.md3"), read("upper.md3"), read("head.md3"));
    let tag = |file: &Md3File, frame: usize, name: &str| {
        let t = file.tag_names.iter().position(|n| n == name).unwrap();
        file.tags[frame][t].clone()
    };
    // LEGS_IDLE is `42 1` in the file: lower frame 42 - 30 = 12; TORSO_GESTURE upper 3..=12.
    let torso = tag(&lower, 12, "tag_torso");
    let torso_axes = torso.axes.map(|a| a.to_array());
    let idle = clip(&scene, "LEGS_IDLE");
    let head_mesh = scene.parts[2].meshes.start;
    let mut worst = 0.0f32;
    // TORSO_GESTURE, TORSO_ATTACK and TORSO_ATTACK2: upper frames 3..=12, 13..=22, 23..=28.
    for (name, first, count) in [("TORSO_GESTURE", 3, 10), ("TORSO_ATTACK", 13, 10), ("TORSO_ATTACK2", 23, 6)] {
        let torso_clip = clip(&scene, name);
        for key in 0..count - 1 {
            for f in [0.0, 0.25, 0.5, 0.75] {
                let (a, b) = (tag(&upper, first + key, "tag_head"), tag(&upper, first + key + 1, "tag_head"));
                let (origin, axes) = game_lerp_tag(&a, &b, f);
                let head_origin = add(torso.origin.to_array(), along(&torso_axes, origin));
                let head_axes = multiply(&axes, &torso_axes);
                let mut pose = Pose::default();
                let layers = [
                    LayerTime { clip: idle, time: 0.0, looping: false },
                    LayerTime { clip: torso_clip, time: key as f32 + f, looping: false },
                ];
                pose.evaluate_layers(&scene, &layers);
                let world = pose.mesh_world(&scene, head_mesh);
                let got = pose.mesh_positions(&scene, head_mesh);
                for (v, p) in head.surfaces[0].frame(0).iter().zip(&got) {
                    let want = scene_axes(add(head_origin, along(&head_axes, v.position().to_array())));
                    let off = Vec3::from_array(want).distance(world.transform_point3(*p));
                    if f == 0.0 {
                        assert!(off < 1e-3, "{name} key {key}: {off} off at a whole frame");
                    }
                    worst = worst.max(off);
                }
            }
        }
    }
    assert!(worst < 1e-4, "head vertices between frames: {worst} units from the game's lerped tags");
}

/// Where a tag turns about more than one axis between frames, the game's per-axis lerp is not
/// a rotation, and the scene follows it (fixture: tag_torso turns 30 degrees about x between
/// lower frames 2 and 3; a slerp was 0.025 units off).
#[test]
fn between_frames_a_tag_turning_about_two_axes_follows_the_games_lerp() {
    let dir = player_dir("player-lerp");
    let scene = formats::open(&dir).unwrap();
    let (idle, stand) = (clip(&scene, "LEGS_IDLE"), clip(&scene, "TORSO_STAND"));
    let as_tag = |(origin, axes): ([f32; 3], Axes)| Tag {
        name: "tag_torso".into(),
        origin: Vec3::from_array(origin),
        axes: axes.map(Vec3::from_array),
    };
    let mut worst = 0.0f32;
    for f in [0.25, 0.5, 0.75] {
        let (torso_origin, torso_axes) = game_lerp_tag(&as_tag(lower_torso_tag(2)), &as_tag(lower_torso_tag(3)), f);
        let (head_tag_origin, head_tag_axes) = upper_head_tag(4);
        let head_origin = add(torso_origin, along(&torso_axes, head_tag_origin));
        let want = add(head_origin, along(&multiply(&head_tag_axes, &torso_axes), [1.0, 2.0, 3.0]));
        let mut pose = Pose::default();
        let layers =
            [LayerTime { clip: idle, time: f, looping: true }, LayerTime { clip: stand, time: 0.0, looping: true }];
        pose.evaluate_layers(&scene, &layers);
        let got = Vec3::from_array(corner_world(&scene, &pose, "head"));
        worst = worst.max(got.distance(Vec3::from_array(scene_axes(want))));
    }
    assert!(worst < 1e-4, "30-degree tag turn: head {worst} units from the game's lerped tag");
}

/// A layer switched to another clip plays it as the game does: looping where its
/// `loopFrames` is above 0, else once and held; a partial loop (`loopFrames` < frames)
/// replays only its tail after the first pass (`CG_RunLerpFrame`).
#[test]
fn switched_clips_loop_or_play_once_as_animation_cfg_says() {
    use mdview::scene::Playback;
    let dir = player_dir("player-loops");
    // LEGS_IDLE `7 2 1 20`: two frames, the last one looping.
    let cfg = ANIMATION_CFG.replace("7 2 2 20 // LEGS_IDLE", "7 2 1 20 // LEGS_IDLE");
    common::write(&dir, "animation.cfg", cfg.as_bytes());
    let scene = formats::open(&dir).unwrap();
    let mut legs = scene.layers[0].clone();
    assert_eq!((legs.playback, legs.loop_start), (Playback::Loop, Some(1.0)));
    assert_eq!(legs.choices.len(), legs.choice_loops.len());
    // Keys 0 1 | 1 (key 2 is frame 1 again): after the first pass it stays within 1..2.
    let times: Vec<f32> = [0.05, 0.1, 0.125, 0.2].iter().map(|&s| legs.time_at(&scene, s).unwrap()).collect();
    assert_eq!(times, [1.0, 1.0, 1.5, 1.0]);
    // BOTH_DEATH1 (`loopFrames` 0) plays once from the moment it is chosen, and holds.
    assert!(legs.choose(&scene, clip(&scene, "BOTH_DEATH1"), 3.0));
    assert_eq!((legs.playback, legs.loop_start), (Playback::Once, None));
    assert_eq!(legs.time_at(&scene, 3.0), Some(0.0));
    assert_eq!(legs.time_at(&scene, 9.0), Some(scene.clips[clip(&scene, "BOTH_DEATH1")].end));
    // TORSO_STAND (`4 2 2`) loops whole.
    let mut torso = scene.layers[1].clone();
    assert!(torso.choose(&scene, clip(&scene, "TORSO_GESTURE"), 0.0));
    assert_eq!(torso.playback, Playback::Once);
    assert!(torso.choose(&scene, clip(&scene, "TORSO_STAND"), 0.0));
    assert_eq!((torso.playback, torso.loop_start), (Playback::Loop, Some(0.0)));
}
