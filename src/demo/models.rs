//! The demo's three models and their clips, as they ship loose and in `park.wad`: the island
//! (sheared palm dummies, see-through water scrolled by `islandM1`), the gate (built by `gateC`,
//! doors swung eased by `gateM1`/`gateM2` while the sign blinks) and the fountain (a water
//! morph in its own box and a five-key UV flow).

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};

use super::geometry::{Builder, cuboid, lathe, ring, round, snap, snap_all, turn_y};
use crate::formats::tpw::layout::NO_EASING;
use crate::writers::tpw::{
    AnimFile, DummySpec, MeshFile, MeshSpec, MorphRecordSpec, MorphSpec, PositionSpec, RotationKeySpec, TextureSpec,
    TrackSpec, UvEntrySpec, morph_box, pack_morph, quat_y, scale, shear_y, then, translation,
};

// ---------------------------------------------------------------------------------------------
// Island

pub(super) const GRASS: usize = 0;
pub(super) const SAND: usize = 1;
pub(super) const BARK: usize = 2;
pub(super) const LEAVES: usize = 3;
pub(super) const RIPPLE: usize = 4;
pub(super) const SEA: usize = 5;

/// The island's shoreline is not a circle.
pub(super) fn shore(angle: f32) -> f32 {
    1.0 + 0.07 * (3.0 * angle).sin() + 0.04 * (5.0 * angle + 1.0).sin()
}

pub(super) const ISLAND_SEGMENTS: usize = 32;

pub(super) fn island_mesh() -> MeshSpec {
    let mut b = Builder::default();
    let n = ISLAND_SEGMENTS;
    // Grass: a gentle dome; sand: the beach falling below the sea at y = 0.
    let grass_profile = [(0.0, 1.35), (2.5, 1.3), (5.0, 1.15), (7.0, 0.95), (8.2, 0.75)];
    let sand_profile = [(9.6, 0.35), (11.0, -0.1), (12.2, -0.7), (12.8, -1.2)];
    let grass: Vec<Vec<u16>> = grass_profile.iter().map(|&(r, y)| ring(&mut b, r, y, n, &shore)).collect();
    let sand: Vec<Vec<u16>> = sand_profile.iter().map(|&(r, y)| ring(&mut b, r, y, n, &shore)).collect();
    let bottom = ring(&mut b, 0.0, -1.2, n, &round);

    let planar = |scale: f32| move |_: usize, _: usize, p: Vec3| Vec2::new(p.x, p.z) / scale;
    b.material(GRASS);
    let rings: Vec<&[u16]> = grass.iter().rev().map(Vec::as_slice).collect();
    lathe(&mut b, &rings, false, &planar(4.0));
    // The sand shares the grass edge's source vertices through new final vertices.
    b.material(SAND);
    let shoreline = grass.last().map(Vec::as_slice).unwrap_or(&[]);
    let mut rings: Vec<&[u16]> = sand.iter().rev().map(Vec::as_slice).collect();
    rings.push(shoreline);
    lathe(&mut b, &rings, false, &planar(3.0));
    let seabed = sand.last().map(Vec::as_slice).unwrap_or(&[]);
    lathe(&mut b, &[&bottom, seabed], false, &planar(3.0));
    b.finish("island", None, crate::writers::tpw::IDENTITY)
}

pub(super) fn trunk_mesh(name: &str, parent: usize) -> MeshSpec {
    let mut b = Builder::default();
    let n = 8;
    let heights = [-0.2, 0.55, 1.3, 2.05, 2.8, 3.5, 3.75];
    let rings: Vec<Vec<u16>> = heights
        .iter()
        .enumerate()
        .map(|(i, &y)| {
            let taper = 0.32 - 0.12 * (y / 3.75);
            let bulge = if i % 2 == 1 { 0.03 } else { 0.0 };
            ring(&mut b, taper + bulge, y, n, &round)
        })
        .collect();
    let top = ring(&mut b, 0.0, 3.85, n, &round);
    b.material(BARK);
    let wall: Vec<&[u16]> = rings.iter().map(Vec::as_slice).collect();
    lathe(&mut b, &wall, true, &|_, j, p| Vec2::new(j as f32 / n as f32, -p.y / 1.5));
    let rim = rings.last().map(Vec::as_slice).unwrap_or(&[]);
    lathe(&mut b, &[rim, &top], false, &|_, _, p| Vec2::new(p.x, p.z) + Vec2::splat(0.5));
    b.finish(name, Some(parent), crate::writers::tpw::IDENTITY)
}

/// Drooping fronds, each a double-sided strip (front and back faces on their own final vertices,
/// sharing source vertices), textured with the cut-out leaf.
pub(super) fn leaves_mesh(name: &str, parent: usize, turn: f32) -> MeshSpec {
    let mut b = Builder::default();
    b.material(LEAVES);
    let fronds = 7;
    let steps = 5;
    for k in 0..fronds {
        let angle = TAU * k as f32 / fronds as f32 + 0.35 * (k % 2) as f32;
        let length = 2.3 + 0.3 * ((k * 3) % 4) as f32 / 3.0;
        let dir = Vec3::new(angle.cos(), 0.0, angle.sin());
        let side = Vec3::new(-dir.z, 0.0, dir.x);
        let mut left = Vec::new();
        let mut right = Vec::new();
        for i in 0..steps {
            let s = i as f32 / (steps - 1) as f32;
            let spine = dir * (length * s) + Vec3::Y * (0.35 * s - 1.25 * s * s + 0.1);
            let half = 0.5 * (1.0 - 0.55 * s) + 0.05;
            // A shallow V: the frond's edges sit a little above its rib.
            let lift = Vec3::Y * (0.12 * half);
            left.push(b.source(spine + side * half + lift));
            right.push(b.source(spine - side * half + lift));
        }
        for (facing, _) in [(Vec3::Y, "front"), (-Vec3::Y, "back")] {
            let rows: Vec<(u16, u16)> = (0..steps)
                .map(|i| {
                    let v = 1.0 - i as f32 / (steps - 1) as f32;
                    let l = left.get(i).copied().unwrap_or(0);
                    let r = right.get(i).copied().unwrap_or(0);
                    (b.vertex(l, Vec2::new(0.0, v)), b.vertex(r, Vec2::new(1.0, v)))
                })
                .collect();
            for pair in rows.windows(2) {
                let [(l0, r0), (l1, r1)] = pair else { continue };
                b.quad_facing([*l0, *r0, *r1, *l1], facing);
            }
        }
    }
    b.finish(name, Some(parent), then(&turn_y(turn), &translation(0.0, 3.66, 0.0)))
}

pub(super) fn ripple_rows() -> [(f32, f32); 3] {
    // (radius, v): outside to inside, so the ring faces up.
    [(13.6, 1.0), (12.0, 0.45), (10.4, 0.0)]
}

pub(super) fn ripple_mesh(parent: usize) -> MeshSpec {
    let mut b = Builder::default();
    let rows = ripple_rows();
    let rings: Vec<Vec<u16>> = rows.iter().map(|&(r, _)| ring(&mut b, r, 0.06, ISLAND_SEGMENTS, &shore)).collect();
    b.material(RIPPLE);
    let refs: Vec<&[u16]> = rings.iter().map(Vec::as_slice).collect();
    let repeats = 8.0;
    lathe(&mut b, &refs, true, &|i, j, _| {
        let v = rows.get(i).map_or(0.0, |r| r.1);
        Vec2::new(repeats * j as f32 / ISLAND_SEGMENTS as f32, v)
    });
    b.finish("ripples", Some(parent), crate::writers::tpw::IDENTITY)
}

pub(super) fn sea_mesh(parent: usize) -> MeshSpec {
    let mut b = Builder::default();
    let rings: Vec<Vec<u16>> =
        [40.0, 26.0, 16.0, 10.0].iter().map(|&r| ring(&mut b, r, 0.0, ISLAND_SEGMENTS, &round)).collect();
    b.material(SEA);
    let refs: Vec<&[u16]> = rings.iter().map(Vec::as_slice).collect();
    lathe(&mut b, &refs, false, &|_, _, p| Vec2::new(p.x, p.z) / 5.0);
    b.finish("sea", Some(parent), crate::writers::tpw::IDENTITY)
}

/// Mesh indices of the island's nodes.
pub(super) const ISLAND_RIPPLES: usize = 5;
pub(super) const ISLAND_SEA: usize = 6;

pub(super) fn island() -> MeshFile {
    // Nodes: meshes 0..7, then the dummies l_tree1 = 7 and l_tree2 = 8.
    let (tree1, tree2) = (7, 8);
    let meshes = vec![
        island_mesh(),
        trunk_mesh("palm_trunk1", tree1),
        leaves_mesh("palm_leaves1", tree1, 0.0),
        trunk_mesh("palm_trunk2", tree2),
        leaves_mesh("palm_leaves2", tree2, 0.4),
        ripple_mesh(0),
        sea_mesh(0),
    ];
    let dummies = vec![
        // Sheared: the palm leans, and a TRS could not say so.
        DummySpec {
            name: "l_tree1".into(),
            parent: Some(0),
            matrix: then(&shear_y(0.22, 0.08), &translation(-4.6, 1.1, 2.8)),
            ..DummySpec::default()
        },
        DummySpec {
            name: "l_tree2".into(),
            parent: Some(0),
            matrix: then(&then(&scale(0.9, 0.9, 0.9), &turn_y(0.9)), &translation(3.6, 1.12, -3.4)),
            ..DummySpec::default()
        },
    ];
    MeshFile {
        textures: vec![
            TextureSpec::opaque("isle_grass"),
            TextureSpec::opaque("isle_sand"),
            TextureSpec::opaque("palm_bark"),
            TextureSpec::see_through("palm_leaves"),
            TextureSpec::see_through("isle_ripple"),
            TextureSpec::see_through("sea_water"),
        ],
        meshes,
        dummies,
        ..MeshFile::default()
    }
}

/// Every UV slot of `mesh` keyed at frame 0 (its own UV) and at `end_frame` (moved by `delta`):
/// two keys per entry, like most game UV tracks.
pub(super) fn uv_scroll(mesh: &MeshSpec, delta: [f32; 2], end_frame: u16) -> Vec<UvEntrySpec> {
    mesh.uvs
        .iter()
        .map(|uv| UvEntrySpec { keys: vec![(0, *uv), (end_frame, [snap(uv[0] + delta[0]), snap(uv[1] + delta[1])])] })
        .collect()
}

pub(super) fn island_m1() -> AnimFile {
    let model = island();
    let track = |target: usize, delta: [f32; 2]| TrackSpec {
        target: target as u16,
        frame_value: 100,
        uv: model.meshes.get(target).map(|m| uv_scroll(m, delta, 100)),
        ..TrackSpec::default()
    };
    AnimFile {
        last_frame: 100,
        tracks: vec![track(ISLAND_RIPPLES, [-1.0, 0.0]), track(ISLAND_SEA, [-1.0, -1.0])],
        ..AnimFile::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Gate

pub(super) const WOOD: usize = 0;
pub(super) const STONE: usize = 1;

/// A door hinged at its node's origin, reaching `+width` along X (or `-width` when `mirror`).
pub(super) fn door_mesh(name: &str, mirror: bool, hinge_x: f32) -> MeshSpec {
    let mut b = Builder::default();
    b.material(WOOD);
    let sign = if mirror { -1.0 } else { 1.0 };
    let span = |a: f32, c: f32| (sign * a).min(sign * c)..=(sign * a).max(sign * c);
    let x = span(0.04, 1.88);
    cuboid(&mut b, Vec3::new(*x.start(), 0.1, -0.07), Vec3::new(*x.end(), 3.0, 0.07), 0.5);
    // Two braces on each face.
    for y in [0.55, 2.35] {
        let bx = span(0.12, 1.8);
        cuboid(&mut b, Vec3::new(*bx.start(), y, 0.07), Vec3::new(*bx.end(), y + 0.22, 0.12), 0.5);
        cuboid(&mut b, Vec3::new(*bx.start(), y, -0.12), Vec3::new(*bx.end(), y + 0.22, -0.07), 0.5);
    }
    b.finish(name, None, translation(hinge_x, 0.0, 0.0))
}

pub(super) fn gate_frame_mesh() -> MeshSpec {
    let mut b = Builder::default();
    b.material(STONE);
    cuboid(&mut b, Vec3::new(-2.5, 0.0, -0.25), Vec3::new(-2.0, 3.6, 0.25), 0.6);
    cuboid(&mut b, Vec3::new(2.0, 0.0, -0.25), Vec3::new(2.5, 3.6, 0.25), 0.6);
    cuboid(&mut b, Vec3::new(-2.75, 3.6, -0.32), Vec3::new(2.75, 4.1, 0.32), 0.6);
    b.finish("gate_frame", None, crate::writers::tpw::IDENTITY)
}

/// The sign hanging under the lintel, a child of the frame.
pub(super) fn gate_sign_mesh() -> MeshSpec {
    let mut b = Builder::default();
    b.material(WOOD);
    cuboid(&mut b, Vec3::new(-0.9, -0.55, -0.05), Vec3::new(0.9, 0.0, 0.05), 0.9);
    b.finish("gate_sign", Some(GATE_FRAME), translation(0.0, 3.6, 0.4))
}

pub(super) const GATE_FRAME: usize = 2;
pub(super) const GATE_SIGN: usize = 3;

pub(super) fn gate() -> MeshFile {
    MeshFile {
        textures: vec![TextureSpec::opaque("gate_wood"), TextureSpec::opaque("stone_blocks")],
        meshes: vec![
            door_mesh("door_left", false, -1.95),
            door_mesh("door_right", true, 1.95),
            gate_frame_mesh(),
            gate_sign_mesh(),
        ],
        ..MeshFile::default()
    }
}

/// Advisorm1's easing curve 0 (notes §10): a slow start and a soft landing.
pub(super) const DOOR_EASING: [u8; 8] = [32, 66, 105, 141, 176, 208, 233, 249];

/// The sign blinks: hidden from 0, shown 4, hidden 10, shown 16, hidden 22, shown 28 (frames).
pub(super) const SIGN_BLINK: [i16; 6] = [0, 4, -10, 16, -22, 28];

/// How the gate is built (role C; its last frame is the finished gate): the frame rises out of
/// the ground along a Bezier over frames 0..40, the doors appear at 40 and grow to full size by
/// 60, and the sign (hidden at clip start by the hide list) appears at 60.
pub(super) fn gate_construction() -> AnimFile {
    let door = |target: u16| TrackSpec {
        target,
        frame_value: 60,
        scale: Some(vec![(40, [0.05, 0.05, 0.05]), (60, [1.0, 1.0, 1.0])]),
        visibility: Some(vec![0, 40]),
        ..TrackSpec::default()
    };
    let frame = TrackSpec {
        target: GATE_FRAME as u16,
        frame_value: 60,
        // Bezier, 2 keys: 3 * (2 - 1) + 1 = 4 points; the inner two overshoot a little.
        position: Some(PositionSpec {
            kind: 0x12,
            points: vec![[0.0, -4.2, 0.0], [0.0, -1.5, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 0.0]],
            frames: vec![0, 40],
        }),
        ..TrackSpec::default()
    };
    let sign =
        TrackSpec { target: GATE_SIGN as u16, frame_value: 60, visibility: Some(vec![60]), ..TrackSpec::default() };
    AnimFile {
        last_frame: 60,
        hide_list: vec![GATE_SIGN as u16],
        tracks: vec![door(0), door(1), frame, sign],
        ..AnimFile::default()
    }
}

/// The doors' swing: two keys, shut at 0 and a quarter turn open at 30, the first carrying
/// easing curve 0 ([`DOOR_EASING`]) so the doors start slowly and land softly (`reverse`: open
/// to shut). Door 0 turns +90 degrees, door 1 -90; both open towards -Z. The sign blinks.
pub(super) fn gate_swing(reverse: bool) -> AnimFile {
    let (from, to) = if reverse { (1.0, 0.0) } else { (0.0, 1.0) };
    let track = |target: u16, sign: f32| TrackSpec {
        target,
        frame_value: 30,
        rotation: vec![
            RotationKeySpec { frame: 0, curve: 0, quat: snap_all(quat_y(sign * from * PI / 2.0)) },
            RotationKeySpec { frame: 30, curve: NO_EASING, quat: snap_all(quat_y(sign * to * PI / 2.0)) },
        ],
        easing: vec![DOOR_EASING],
        ..TrackSpec::default()
    };
    let blink = TrackSpec {
        target: GATE_SIGN as u16,
        frame_value: 30,
        visibility: Some(SIGN_BLINK.to_vec()),
        ..TrackSpec::default()
    };
    AnimFile { last_frame: 30, tracks: vec![track(0, 1.0), track(1, -1.0), blink], ..AnimFile::default() }
}

// ---------------------------------------------------------------------------------------------
// Fountain

pub(super) const FTN_STONE: usize = 0;
pub(super) const FTN_WATER: usize = 1;
pub(super) const WATER_Y: f32 = 0.62;
pub(super) const WATER_RADIUS: f32 = 2.6;
pub(super) const WATER_RINGS: usize = 6;
pub(super) const WATER_SEGMENTS: usize = 24;
pub(super) const WAVE_HEIGHT: f32 = 0.06;
pub(super) const WAVE_LENGTH: f32 = 1.3;
pub(super) const WAVE_PERIOD: f32 = 32.0;
pub(super) const FOUNTAIN_FRAMES: u16 = 64;

pub(super) fn fountain_basin() -> MeshSpec {
    let mut b = Builder::default();
    let n = WATER_SEGMENTS;
    let mut at = |r: f32, y: f32| ring(&mut b, r, y, n, &round);
    // The basin: outer wall, rim, inner wall, floor; the pillar with a small bowl on top.
    let outer = [at(3.0, 0.0), at(3.0, 0.8)];
    let inner = [at(2.6, 0.8), at(2.6, 0.15)];
    let floor = at(0.0, 0.15);
    let pillar = [at(0.3, 0.15), at(0.3, 1.5), at(0.75, 1.8), at(0.6, 1.8), at(0.6, 1.7)];
    let bowl = at(0.0, 1.7);
    b.material(FTN_STONE);
    let wall_uv = |_: usize, j: usize, p: Vec3| Vec2::new(6.0 * j as f32 / n as f32, -p.y);
    let flat_uv = |_: usize, _: usize, p: Vec3| Vec2::new(p.x, p.z) / 1.5;
    let [o0, o1] = &outer;
    let [i0, i1] = &inner;
    lathe(&mut b, &[o0, o1], true, &wall_uv);
    lathe(&mut b, &[o1, i0], false, &flat_uv);
    lathe(&mut b, &[i0, i1], true, &wall_uv);
    lathe(&mut b, &[i1, &floor], false, &flat_uv);
    let [p0, p1, p2, p3, p4] = &pillar;
    lathe(&mut b, &[p0, p1], true, &|_, j, p| Vec2::new(2.0 * j as f32 / n as f32, -p.y));
    lathe(&mut b, &[p1, p2], true, &|_, j, p| Vec2::new(2.0 * j as f32 / n as f32, -p.y));
    lathe(&mut b, &[p2, p3], false, &flat_uv);
    lathe(&mut b, &[p3, p4], true, &|_, j, p| Vec2::new(2.0 * j as f32 / n as f32, -p.y));
    lathe(&mut b, &[p4, &bowl], false, &flat_uv);
    b.finish("basin", None, crate::writers::tpw::IDENTITY)
}

/// The water's height at radius `r` and frame `frame`: waves running outwards from the pillar,
/// fading to nothing at the basin wall.
pub(super) fn water_height(r: f32, frame: f32) -> f32 {
    let falloff = 1.0 - r / WATER_RADIUS;
    WATER_Y + WAVE_HEIGHT * falloff * (TAU * (r / WAVE_LENGTH - frame / WAVE_PERIOD)).sin()
}

pub(super) fn water_radius(ring: usize) -> f32 {
    WATER_RADIUS * ring as f32 / WATER_RINGS as f32
}

/// Source vertices: the centre, then rings outwards; the last ring (the rim) never moves.
pub(super) fn water_positions(frame: f32) -> Vec<Vec3> {
    let mut out = vec![Vec3::new(0.0, water_height(0.0, frame), 0.0)];
    for k in 1..=WATER_RINGS {
        let r = water_radius(k);
        for j in 0..WATER_SEGMENTS {
            let angle = TAU * j as f32 / WATER_SEGMENTS as f32;
            out.push(Vec3::new(r * angle.cos(), water_height(r, frame), r * angle.sin()));
        }
    }
    out.into_iter().map(|p| Vec3::from_array(snap_all(p.to_array()))).collect()
}

pub(super) fn water_bbox() -> ([f32; 3], [f32; 3]) {
    // Covers the whole wave, not just the rest pose: the morph track's box.
    ([-WATER_RADIUS, WATER_Y - WAVE_HEIGHT, -WATER_RADIUS], [WATER_RADIUS, WATER_Y + WAVE_HEIGHT, WATER_RADIUS])
}

pub(super) fn fountain_water() -> MeshSpec {
    let mut b = Builder::default();
    let positions = water_positions(0.0);
    let sources: Vec<u16> = positions.iter().map(|&p| b.source(p)).collect();
    let centre = sources.get(..1).unwrap_or(&[]);
    let rings: Vec<&[u16]> = (1..=WATER_RINGS)
        .rev()
        .filter_map(|k| sources.get(1 + (k - 1) * WATER_SEGMENTS..1 + k * WATER_SEGMENTS))
        .chain([centre])
        .collect();
    b.material(FTN_WATER);
    lathe(&mut b, &rings, false, &|_, _, p| Vec2::new(p.x, p.z) / WATER_RADIUS);
    // The mesh box is the rest pose's own (the writer's default); the morph has its own box.
    b.finish("water", None, crate::writers::tpw::IDENTITY)
}

pub(super) fn fountain() -> MeshFile {
    MeshFile {
        textures: vec![TextureSpec::opaque("stone_blocks"), TextureSpec::see_through("ftn_water")],
        meshes: vec![fountain_basin(), fountain_water()],
        ..MeshFile::default()
    }
}

/// The water's ripple as vertex morph: every moving vertex keyed every 4 frames in one record;
/// the still rim and the two trailing box-corner channels in a second record holding a single
/// rest keyframe, as the game stores channels that do not move. Values quantise into the
/// track's own box (the wave's extent), not the mesh box.
pub(super) fn water_morph() -> MorphSpec {
    let (min, max) = water_bbox();
    let (centre, step) = morph_box(min, max);
    let vertex_count = water_positions(0.0).len();
    let moving = vertex_count - WATER_SEGMENTS;
    let frames: Vec<u16> = (0..=FOUNTAIN_FRAMES).step_by(4).collect();
    let mut values = Vec::new();
    for &frame in &frames {
        let pose = water_positions(f32::from(frame));
        values.extend(pose.iter().take(moving).map(|p| pack_morph(p.to_array(), centre, step)));
    }
    let moving_record = MorphRecordSpec { channels: (0..moving as u16).collect(), frames, values };
    let rest = water_positions(0.0);
    let corners = [pack_morph(min, centre, step), pack_morph(max, centre, step)];
    let still_record = MorphRecordSpec {
        channels: (moving as u16..vertex_count as u16 + 2).collect(),
        frames: vec![0],
        values: rest.iter().skip(moving).map(|p| pack_morph(p.to_array(), centre, step)).chain(corners).collect(),
    };
    MorphSpec { flags: 0x01, centre, step, records: vec![moving_record, still_record] }
}

/// The water's UVs flow inwards unevenly: five keys per slot like `fountainm.md2`, v moving
/// by 0.5, 0.6, 0.65, 0.25 of a repeat over frames 0, 16, 32, 48, 64.
pub(super) fn water_uv(mesh: &MeshSpec) -> Vec<UvEntrySpec> {
    let steps = [(0u16, 0.0f32), (16, 0.5), (32, 1.1), (48, 1.75), (FOUNTAIN_FRAMES, 2.0)];
    mesh.uvs
        .iter()
        .map(|uv| UvEntrySpec { keys: steps.iter().map(|&(frame, dv)| (frame, [uv[0], snap(uv[1] - dv)])).collect() })
        .collect()
}

pub(super) fn fountain_m1() -> AnimFile {
    let water = fountain_water();
    AnimFile {
        last_frame: u32::from(FOUNTAIN_FRAMES),
        tracks: vec![TrackSpec {
            target: 1,
            frame_value: u32::from(FOUNTAIN_FRAMES),
            morph: Some(water_morph()),
            uv: Some(water_uv(&water)),
            ..TrackSpec::default()
        }],
        ..AnimFile::default()
    }
}
