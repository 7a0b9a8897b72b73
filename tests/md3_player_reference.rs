//! An assembled Quake 3 player checked against a reference built the game's way, apart from
//! the project's code: the `.md3` bytes and `animation.cfg` read here, frames chosen as
//! `CG_ParseAnimationFile` and `CG_RunLerpFrame` choose them, tags blended and re-normalised as
//! `R_LerpTag` does, parts composed as `CG_PositionRotatedEntityOnTag` (the weapon as
//! `CG_AddPlayerWeapon`) composes them with the look angles at zero, and vertices blended as
//! `LerpMeshVertexes` blends them; all in f64. Each vertex of every part must match the
//! scene's pose within 1e-4 of the player's size, on a written player whose tags turn far
//! between frames (so that a slerp would miss the game's blend) and on the corpus player.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use glam::Vec3;
use mdview::formats;
use mdview::formats::md3::{self, Frame, Md3File, Surface, Tag, Vertex, player};
use mdview::scene::anim::Pose;
use mdview::scene::{Layer, LayerTime, Playback, Scene};

type V = [f64; 3];
type Axes = [V; 3];
const IDENTITY: Axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

// ---- The files, read here from their bytes (qfiles.h) ----

fn i32_at(d: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

fn f32_at(d: &[u8], at: usize) -> f64 {
    f64::from(f32::from_le_bytes(d[at..at + 4].try_into().unwrap()))
}

fn v3_at(d: &[u8], at: usize) -> V {
    [f32_at(d, at), f32_at(d, at + 4), f32_at(d, at + 8)]
}

struct RawTag {
    name: String,
    origin: V,
    axis: Axes,
}

struct RawMd3 {
    frames: usize,
    /// `tags[frame][i]`, md3Tag_t as stored.
    tags: Vec<Vec<RawTag>>,
    /// Per surface, `frames × verts` positions already scaled by MD3_XYZ_SCALE.
    surfaces: Vec<(usize, Vec<V>)>,
}

fn read_md3(d: &[u8]) -> RawMd3 {
    assert_eq!(&d[0..4], b"IDP3");
    let (frames, tags, surfaces) = (i32_at(d, 76) as usize, i32_at(d, 80) as usize, i32_at(d, 84) as usize);
    let ofs_tags = i32_at(d, 96) as usize;
    let tags = (0..frames)
        .map(|f| {
            (0..tags)
                .map(|t| {
                    let at = ofs_tags + 112 * (f * tags + t);
                    let name = d[at..at + 64].split(|&b| b == 0).next().unwrap();
                    RawTag {
                        name: String::from_utf8_lossy(name).into_owned(),
                        origin: v3_at(d, at + 64),
                        axis: [v3_at(d, at + 76), v3_at(d, at + 88), v3_at(d, at + 100)],
                    }
                })
                .collect()
        })
        .collect();
    let mut at = i32_at(d, 100) as usize;
    let mut out = Vec::new();
    for _ in 0..surfaces {
        let verts = i32_at(d, at + 80) as usize;
        let xyz = at + i32_at(d, at + 100) as usize;
        let positions = (0..frames * verts)
            .map(|i| {
                let v = xyz + 8 * i;
                let c = |k: usize| f64::from(i16::from_le_bytes([d[v + 2 * k], d[v + 2 * k + 1]])) / 64.0;
                [c(0), c(1), c(2)]
            })
            .collect();
        out.push((verts, positions));
        at += i32_at(d, at + 104) as usize;
    }
    RawMd3 { frames, tags, surfaces: out }
}

// ---- animation.cfg, as CG_ParseAnimationFile reads it ----

#[derive(Clone, Copy, Debug, Default)]
struct Anim {
    first: i64,
    count: i64,
    looping: i64,
    lerp_ms: i64,
    reversed: bool,
}

const NAMES: [&str; 31] = [
    "BOTH_DEATH1",
    "BOTH_DEAD1",
    "BOTH_DEATH2",
    "BOTH_DEAD2",
    "BOTH_DEATH3",
    "BOTH_DEAD3",
    "TORSO_GESTURE",
    "TORSO_ATTACK",
    "TORSO_ATTACK2",
    "TORSO_DROP",
    "TORSO_RAISE",
    "TORSO_STAND",
    "TORSO_STAND2",
    "LEGS_WALKCR",
    "LEGS_WALK",
    "LEGS_RUN",
    "LEGS_BACK",
    "LEGS_SWIM",
    "LEGS_JUMP",
    "LEGS_LAND",
    "LEGS_JUMPB",
    "LEGS_LANDB",
    "LEGS_IDLE",
    "LEGS_IDLECR",
    "LEGS_TURN",
    "TORSO_GETFLAG",
    "TORSO_GUARDBASE",
    "TORSO_PATROL",
    "TORSO_FOLLOWME",
    "TORSO_AFFIRMATIVE",
    "TORSO_NEGATIVE",
];

/// The animations by name. Keywords before the numbers: Quake 3's own (`sex`, `footsteps`,
/// `headoffset`, `fixedlegs`, `fixedtorso`) as the game reads them; any other skips its line,
/// as mods such as Turtle Arena read theirs.
fn parse_cfg(text: &str) -> Vec<(&'static str, Anim)> {
    let mut lines: Vec<Vec<String>> = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let mut words = Vec::new();
        let mut rest = line;
        loop {
            if in_block {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block = false;
                    }
                    None => break,
                }
            }
            let cut = [rest.find("//"), rest.find("/*")].into_iter().flatten().min();
            let (head, tail) = cut.map_or((rest, ""), |c| rest.split_at(c));
            words.extend(head.split_whitespace().map(str::to_string));
            match tail.strip_prefix("/*") {
                Some(after) => {
                    in_block = true;
                    rest = after;
                }
                None => break,
            }
        }
        lines.push(words);
    }
    let mut tokens: Vec<String> = Vec::new();
    let mut started = false;
    for words in lines {
        let mut i = 0;
        while i < words.len() {
            if started || words[i].starts_with(|c: char| c.is_ascii_digit()) {
                started = true;
                tokens.push(words[i].clone());
                i += 1;
                continue;
            }
            match words[i].to_ascii_lowercase().as_str() {
                "sex" | "footsteps" => i += 2,
                "headoffset" => i += 4,
                "fixedlegs" | "fixedtorso" => i += 1,
                _ => i = words.len(),
            }
        }
    }
    let atof = |t: &str| t.parse::<f64>().unwrap();
    let mut anims = [Anim::default(); 31];
    let mut skip = 0;
    for i in 0..31 {
        let Some(line) = tokens.get(4 * i..4 * i + 4) else {
            assert!(i >= 25, "animation.cfg stops at {}", NAMES[i]);
            anims[i] = Anim { reversed: false, ..anims[6] };
            continue;
        };
        let mut first: i64 = line[0].parse().unwrap();
        if i == 13 {
            skip = first - anims[6].first;
        }
        if (13..25).contains(&i) {
            first -= skip;
        }
        let count: i64 = line[1].parse().unwrap();
        let fps = match atof(&line[3]) {
            0.0 => 1.0,
            fps => fps,
        };
        anims[i] = Anim {
            first,
            count: count.abs(),
            looping: line[2].parse().unwrap(),
            lerp_ms: (1000.0 / fps) as i64,
            reversed: count < 0,
        };
    }
    NAMES.into_iter().zip(anims).collect()
}

/// The frame `CG_RunLerpFrame` shows `f` frames into an animation.
fn frame_at(anim: &Anim, mut f: i64) -> i64 {
    if f >= anim.count {
        f -= anim.count;
        if anim.looping > 0 {
            f = f % anim.looping + anim.count - anim.looping;
        } else {
            f = anim.count - 1;
        }
    }
    if anim.reversed { anim.first + anim.count - 1 - f } else { anim.first + f }
}

/// `(oldframe, frame, backlerp)` `time` frames into the animation (`time` in frameLerps).
fn lerp_frame(anim: &Anim, time: f64) -> (usize, usize, f64) {
    let k = time.floor() as i64;
    let frac = time - k as f64;
    (frame_at(anim, k) as usize, frame_at(anim, k + 1) as usize, 1.0 - frac)
}

// ---- The game's arithmetic ----

fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(a: V, s: f64) -> V {
    a.map(|x| x * s)
}

/// `Σ v[i] · axis[i]`.
fn along(axis: &Axes, v: V) -> V {
    (0..3).fold([0.0; 3], |acc, i| add(acc, scale(axis[i], v[i])))
}

/// q_math.c's MatrixMultiply: `out[i][j] = Σ a[i][k] · b[k][j]`.
fn multiply(a: &Axes, b: &Axes) -> Axes {
    [along(b, a[0]), along(b, a[1]), along(b, a[2])]
}

fn normalize(v: V) -> V {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if length == 0.0 { v } else { scale(v, 1.0 / length) }
}

/// R_LerpTag: `frac` of the way from `start` to `end`, each axis normalised; a missing tag is
/// the identity at the origin; frames past the model's last read its last (R_GetTag).
fn lerp_tag(model: &RawMd3, name: &str, start: usize, end: usize, frac: f64) -> (V, Axes) {
    let get = |f: usize| model.tags.get(f.min(model.frames - 1))?.iter().find(|t| t.name == name);
    let (Some(a), Some(b)) = (get(start), get(end)) else { return ([0.0; 3], IDENTITY) };
    let lerp = |x: V, y: V| add(scale(x, 1.0 - frac), scale(y, frac));
    let axis = [0, 1, 2].map(|i| normalize(lerp(a.axis[i], b.axis[i])));
    (lerp(a.origin, b.origin), axis)
}

/// A refEntity_t's placement and frames.
#[derive(Clone, Copy)]
struct Entity {
    origin: V,
    axis: Axes,
    oldframe: usize,
    frame: usize,
    backlerp: f64,
}

/// CG_PositionRotatedEntityOnTag with the entity's own axes the identity (angles at zero).
fn on_tag(entity: &mut Entity, parent: &Entity, parent_model: &RawMd3, tag: &str) {
    let (origin, axis) = lerp_tag(parent_model, tag, parent.oldframe, parent.frame, 1.0 - parent.backlerp);
    entity.origin = add(parent.origin, along(&parent.axis, origin));
    entity.axis = multiply(&multiply(&IDENTITY, &axis), &parent.axis);
}

/// LerpMeshVertexes, then the entity's placement: every vertex of every surface in world space.
fn world_vertices(model: &RawMd3, e: &Entity) -> Vec<Vec<V>> {
    model
        .surfaces
        .iter()
        .map(|(verts, xyz)| {
            (0..*verts)
                .map(|v| {
                    let old = xyz[e.oldframe * verts + v];
                    let new = xyz[e.frame * verts + v];
                    let local = add(scale(old, e.backlerp), scale(new, 1.0 - e.backlerp));
                    add(e.origin, along(&e.axis, local))
                })
                .collect()
        })
        .collect()
}

struct Reference {
    models: [RawMd3; 3],
    anims: Vec<(&'static str, Anim)>,
}

impl Reference {
    fn load(dir: &Path) -> Reference {
        let read = |name: &str| read_md3(&std::fs::read(dir.join(name)).unwrap());
        let cfg = std::fs::read_to_string(dir.join("animation.cfg")).unwrap();
        Reference { models: [read("lower.md3"), read("upper.md3"), read("head.md3")], anims: parse_cfg(&cfg) }
    }

    fn anim(&self, name: &str) -> Anim {
        self.anims.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// legs, torso and head as CG_Player places them, legs `legs_time` and torso `torso_time`
    /// frameLerps into their animations.
    fn entities(&self, (legs, legs_time): (&str, f64), (torso, torso_time): (&str, f64)) -> [Entity; 3] {
        let (oldframe, frame, backlerp) = lerp_frame(&self.anim(legs), legs_time);
        let lower = Entity { origin: [0.0; 3], axis: IDENTITY, oldframe, frame, backlerp };
        let (oldframe, frame, backlerp) = lerp_frame(&self.anim(torso), torso_time);
        let mut upper = Entity { origin: [0.0; 3], axis: IDENTITY, oldframe, frame, backlerp };
        on_tag(&mut upper, &lower, &self.models[0], "tag_torso");
        let mut head = Entity { origin: [0.0; 3], axis: IDENTITY, oldframe: 0, frame: 0, backlerp: 0.0 };
        on_tag(&mut head, &upper, &self.models[1], "tag_head");
        [lower, upper, head]
    }

    /// The size of the player at rest: the largest extent of its frame-0 vertices.
    fn size(&self) -> f64 {
        let points: Vec<V> =
            self.models.iter().flat_map(|m| m.surfaces.iter().flat_map(|(v, xyz)| xyz[..*v].to_vec())).collect();
        (0..3)
            .map(|k| {
                let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p[k]), h.max(p[k])));
                hi - lo
            })
            .fold(0.0, f64::max)
    }
}

/// Quake to scene axes (x, z, -y), as the project maps them.
fn to_scene(v: V) -> V {
    [v[0], v[2], -v[1]]
}

/// The worst distance between the pose's vertices of `part` (per surface mesh, in order) and
/// `want` (Quake axes).
fn worst_gap(scene: &Scene, pose: &Pose, part: &str, want: &[Vec<V>]) -> f64 {
    let part = scene.parts.iter().find(|p| p.name == part).unwrap_or_else(|| panic!("no part {part}"));
    assert_eq!(part.meshes.len(), want.len(), "{}: one mesh per surface", part.name);
    let mut worst: f64 = 0.0;
    for (mesh, surface) in part.meshes.clone().zip(want) {
        let world = pose.mesh_world(scene, mesh);
        let sources = &scene.meshes[mesh].vertex_source;
        for (render, local) in pose.mesh_positions(scene, mesh).into_iter().enumerate() {
            let got = world.transform_point3(local).to_array().map(f64::from);
            let expected = to_scene(surface[sources[render] as usize]);
            let gap = (0..3).map(|k| (got[k] - expected[k]).abs()).fold(0.0, f64::max);
            worst = worst.max(gap);
        }
    }
    worst
}

fn clip(scene: &Scene, name: &str) -> usize {
    scene.clips.iter().position(|c| c.name == name).unwrap_or_else(|| panic!("no clip {name}"))
}

/// Poses the scene with the legs and torso clips at their times and compares every part.
fn check(scene: &Scene, reference: &Reference, legs: (&str, f64), torso: (&str, f64)) {
    let tolerance = 1e-4 * reference.size();
    // The clip time a layer started `time` frames ago stands at (looping or held).
    let layer = |(name, time): (&str, f64)| {
        let looping = reference.anim(name).looping > 0;
        let mut layer = Layer::looping(name, clip(scene, name), time as f32);
        layer.playback = if looping { Playback::Loop } else { Playback::Once };
        LayerTime { clip: clip(scene, name), time: layer.time_at(scene, 0.0).unwrap(), looping }
    };
    let mut pose = Pose::default();
    pose.evaluate_layers(scene, &[layer(legs), layer(torso)]);
    let entities = reference.entities(legs, torso);
    for ((name, model), entity) in ["lower", "upper", "head"].into_iter().zip(&reference.models).zip(&entities) {
        let gap = worst_gap(scene, &pose, name, &world_vertices(model, entity));
        assert!(gap <= tolerance, "{name} at legs {legs:?} torso {torso:?}: off by {gap} (tolerance {tolerance})");
    }
}

// ---- A written player whose tags turn far between frames ----

/// A turn of `degrees` about Quake's `axis` (0 x, 1 y, 2 z), rows as md3Tag_t stores them.
fn turn(axis: usize, degrees: f64) -> Axes {
    let (s, c) = degrees.to_radians().sin_cos();
    let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut m = IDENTITY;
    m[a][a] = c;
    m[a][b] = s;
    m[b][a] = -s;
    m[b][b] = c;
    m
}

/// A tag whose axes turn about a different axis each frame, by 35° to 80°.
fn wild_tag(name: &str, frame: usize, seed: usize) -> Tag {
    let k = frame + seed;
    let axes = multiply(&turn(k % 3, 35.0 + 9.0 * k as f64), &turn((k + 1) % 3, -20.0 - 15.0 * (k % 4) as f64));
    Tag {
        name: name.into(),
        origin: Vec3::new(1.0 + k as f32, -2.0 + 0.5 * k as f32, 10.0 + (k % 3) as f32),
        axes: axes.map(|a| Vec3::from_array(a.map(|x| x as f32))),
    }
}

/// A part of `frames` frames: two surfaces whose vertices move per frame, and its tags.
fn part(name: &str, frames: usize, tags: &[&str], seed: usize) -> Md3File {
    let surface = |s: usize| {
        let vertices = (0..frames)
            .flat_map(|f| {
                (0..4).map(move |v| {
                    let c = |k: usize| ((((f + 3 * v + 5 * k + seed + s) * 37) % 97) as i16 - 48) * 16;
                    Vertex { xyz: [c(0), c(1), c(2) + 256], normal: 0 }
                })
            })
            .collect();
        Surface {
            name: format!("{name}_{s}"),
            flags: 0,
            shaders: vec![(format!("models/players/ref/{name}.tga"), 0)],
            triangles: vec![[0, 2, 1], [0, 3, 2]],
            st: vec![[0.0, 0.0]; 4],
            vertex_count: 4,
            vertices,
            offset: 0,
        }
    };
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
        tag_names: tags.iter().map(|t| t.to_string()).collect(),
        tags: (0..frames)
            .map(|f| tags.iter().enumerate().map(|(i, t)| wild_tag(t, f, seed + 7 * i)).collect())
            .collect(),
        surfaces: vec![surface(0), surface(1)],
        skin_count: 0,
        warnings: Vec::new(),
    }
}

/// 6 BOTH lines (frames 0..2), torso from 3 (TORSO_GESTURE) to 8, legs from 9 in the file's
/// numbering: skip 9 - 3 = 6, so lower.md3 holds BOTH frames 0..2 then legs 3..7. A reversed
/// legs walk, a partly looping run, 15 fps (66 ms a frame).
const CFG: &str = "// reference player\nsex f\nheadoffset 0 0 0\nfootsteps boot\n\
    0 3 0 20 // BOTH_DEATH1\n2 1 0 20\n0 3 0 20\n2 1 0 20\n0 3 0 20\n2 1 0 20\n\
    3 4 0 15 // TORSO_GESTURE\n3 4 4 15\n5 2 0 15\n7 1 0 15\n7 1 0 15\n\
    7 2 2 15 // TORSO_STAND\n7 2 0 15\n\
    9 2 0 15 // LEGS_WALKCR\n9 -4 0 15 // LEGS_WALK, reversed\n9 5 3 15 // LEGS_RUN, the last 3 loop\n\
    9 5 0 15\n9 1 0 15\n9 1 0 15\n9 1 0 15\n9 1 0 15\n9 1 0 15\n\
    10 4 4 15 // LEGS_IDLE\n9 1 0 15\n9 2 0 15 // LEGS_TURN\n";

fn write_player(dir: &Path) {
    let files = [
        ("lower.md3", part("lower", 8, &["tag_torso"], 0)),
        ("upper.md3", part("upper", 9, &["tag_weapon", "tag_head", "tag_torso"], 3)),
        ("head.md3", part("head", 1, &["tag_head"], 5)),
    ];
    for (name, file) in &files {
        common::write(dir, name, &mdview::writers::md3::write(file));
    }
    common::write(dir, "animation.cfg", CFG.as_bytes());
}

fn written_player(name: &str) -> PathBuf {
    let dir = temp_dir(name).join("ref");
    std::fs::create_dir_all(&dir).unwrap();
    write_player(&dir);
    dir
}

#[test]
fn a_written_player_matches_the_games_arithmetic_on_frames_and_between_them() {
    let dir = written_player("player-reference");
    let scene = formats::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let reference = Reference::load(&dir);
    // The legs skip: LEGS_IDLE `10` is lower frame 4.
    assert_eq!(reference.anim("LEGS_IDLE").first, 4);
    let times = [0.0, 0.25, 0.5, 0.8, 1.0, 1.5, 2.75, 3.4, 4.6, 6.3];
    let pairs = [
        ("LEGS_IDLE", "TORSO_STAND"),
        ("LEGS_WALK", "TORSO_GESTURE"),
        ("LEGS_RUN", "TORSO_ATTACK"),
        ("BOTH_DEATH1", "BOTH_DEATH1"),
        ("LEGS_TURN", "TORSO_ATTACK2"),
    ];
    for (legs, torso) in pairs {
        for (i, &t) in times.iter().enumerate() {
            let looping = |name: &str| reference.anim(name).looping;
            let count = |name: &str| reference.anim(name).count;
            // A layer loops all of its clip; the game loops only the last loopFrames, which
            // differ after the first pass (see the report), so partial loops stay in it.
            let inside = |name: &str, t: f64| looping(name) == count(name) || t < count(name) as f64;
            // A BOTH_ clip drives both parts whichever layer plays it, so the game's case is
            // the one checked: the same BOTH_ animation on both, started together.
            let u = if legs == torso { t } else { times[(i + 3) % times.len()] };
            if inside(legs, t) && inside(torso, u) {
                check(&scene, &reference, (legs, t), (torso, u));
            }
        }
    }
}

#[test]
fn layers_run_on_the_games_frame_time() {
    let dir = written_player("player-reference-clock");
    let mut scene = formats::open(&dir).unwrap();
    let reference = Reference::load(&dir);
    scene.layers[0].clip = Some(clip(&scene, "LEGS_IDLE"));
    scene.layers[1].clip = Some(clip(&scene, "TORSO_GESTURE"));
    // TORSO_GESTURE does not loop: it runs once and holds its last frame.
    scene.layers[1].playback = Playback::Once;
    for seconds in [0.0f32, 0.05, 0.1, 0.19, 0.23, 0.4, 0.61] {
        let mut pose = Pose::default();
        pose.evaluate_layers(&scene, &scene.layer_times(seconds));
        // frameLerp is whole milliseconds: 1000 / 15 = 66 ms a frame.
        let frames = |name: &str| f64::from(seconds) * 1000.0 / reference.anim(name).lerp_ms as f64;
        let entities =
            reference.entities(("LEGS_IDLE", frames("LEGS_IDLE")), ("TORSO_GESTURE", frames("TORSO_GESTURE")));
        for ((name, model), entity) in ["lower", "upper", "head"].into_iter().zip(&reference.models).zip(&entities) {
            let gap = worst_gap(&scene, &pose, name, &world_vertices(model, entity));
            assert!(gap <= 1e-4 * reference.size(), "{name} at {seconds} s: off by {gap}");
        }
    }
}

#[test]
fn a_weapon_sits_where_cg_add_player_weapon_puts_it() {
    let dir = written_player("player-reference-weapon");
    let mut scene = formats::open(&dir).unwrap();
    let reference = Reference::load(&dir);
    let gun_file = part("gun", 3, &["tag_flash"], 11);
    let gun_bytes = mdview::writers::md3::write(&gun_file);
    let gun = read_md3(&gun_bytes);
    let at = player::attach_weapon(&mut scene, md3::decode(&gun_bytes).unwrap()).unwrap();
    scene.validate().unwrap();
    for (legs, torso) in [(0.0, 0.0), (1.3, 2.6), (2.5, 0.75)] {
        let mut pose = Pose::default();
        let layers = [
            LayerTime { clip: clip(&scene, "LEGS_IDLE"), time: legs as f32, looping: true },
            LayerTime { clip: clip(&scene, "TORSO_GESTURE"), time: torso as f32, looping: false },
        ];
        pose.evaluate_layers(&scene, &layers);
        let [_, upper, _] = reference.entities(("LEGS_IDLE", legs), ("TORSO_GESTURE", torso));
        // CG_AddPlayerWeapon: the gun's axes are the tag's times the torso's; its frame is 0.
        let mut gun_entity = Entity { origin: [0.0; 3], axis: IDENTITY, oldframe: 0, frame: 0, backlerp: 0.0 };
        on_tag(&mut gun_entity, &upper, &reference.models[1], "tag_weapon");
        let name = scene.parts[at].name.clone();
        let gap = worst_gap(&scene, &pose, &name, &world_vertices(&gun, &gun_entity));
        assert!(gap <= 1e-4 * reference.size(), "gun at legs {legs} torso {torso}: off by {gap}");
    }
}

#[test]
fn the_corpus_player_matches_the_games_arithmetic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md3/turtlearena-casey/models/players/casey");
    if !dir.is_dir() {
        eprintln!("SKIP: no Quake 3 player in the corpus at {}", dir.display());
        return;
    }
    let scene = formats::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let reference = Reference::load(&dir);
    // casey: TORSO_GESTURE at 3, LEGS_WALKCR at 33: skip 30.
    assert_eq!(reference.anim("LEGS_WALKCR").first, 3);
    let legs: Vec<&str> = NAMES[..25].iter().copied().filter(|n| !n.starts_with("TORSO_")).collect();
    for (i, legs) in legs.into_iter().enumerate() {
        let torso = ["TORSO_GESTURE", "TORSO_ATTACK", "TORSO_ATTACK2"][i % 3];
        for t in [0.0, 1.0, 2.5, 4.25, 5.7] {
            check(&scene, &reference, (legs, 0.0), (torso, t));
        }
    }
}
