//! The demo park's items: each a model authored as the game authors items (its footprint's
//! corner at the model origin, under a root node whose own translation the park replaces), its
//! clips by role (`C` builds it; `M1` and `I1` loop), and the textures it names. The gate, the
//! fountain and the island are the demo's own models wrapped that way; the carousel, the kiosk,
//! the hoopla stall and the palm are made here.

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};

use super::geometry::{Builder, cuboid, lathe, ring, round, snap_all};
use super::models::{
    fountain, fountain_m1, gate, gate_construction, gate_swing, island, island_m1, leaves_mesh, trunk_mesh,
};
use crate::formats::tpw::layout::NO_EASING;
use crate::writers::tpw::{
    AnimFile, DummySpec, IDENTITY, MeshFile, PositionSpec, RotationKeySpec, TextureSpec, TrackSpec, quat_y, scale,
    then, translation,
};

/// World units per map cell.
const CELL: f32 = 10.0;

/// One item of the demo install.
pub(super) struct Item {
    /// `rides`, `shops`, `sideshow` or `features`.
    pub folder: &'static str,
    pub stem: &'static str,
    pub id: u32,
    pub title: &'static str,
    /// Footprint cells across and down.
    pub shape: [u32; 2],
    pub model: MeshFile,
    /// Clips by role name (`C`, `M1`, `I1`): written as `<stem><role>.md2`.
    pub clips: Vec<(&'static str, AnimFile)>,
}

impl Item {
    /// The texture names the model's materials use.
    pub fn textures(&self) -> Vec<String> {
        self.model.textures.iter().map(|t| t.name.clone()).collect()
    }
}

/// Every item of the demo install.
pub(super) fn items() -> Vec<Item> {
    vec![carousel(), kiosk(), hoopla(), park_gate(), park_fountain(), isle(), palm()]
}

/// Puts `file` under a root dummy (left at the identity, since the park replaces its
/// translation) and an offset dummy carrying `offset` (where the old origin lands in the
/// footprint, and the model's scale). Meshes keep their indices, so the clips still apply.
fn wrapped(mut file: MeshFile, stem: &str, offset: [f32; 16]) -> MeshFile {
    let root = file.meshes.len() + file.dummies.len();
    let holder = root + 1;
    for mesh in file.meshes.iter_mut().filter(|m| m.parent.is_none()) {
        mesh.parent = Some(holder);
    }
    for dummy in file.dummies.iter_mut().filter(|d| d.parent.is_none()) {
        dummy.parent = Some(holder);
    }
    file.dummies.push(DummySpec { name: format!("{stem}_root"), ..DummySpec::default() });
    file.dummies.push(DummySpec {
        name: format!("{stem}_footprint"),
        parent: Some(root),
        matrix: offset,
        ..DummySpec::default()
    });
    file
}

/// The offset that scales a model by `s` and puts its origin in the middle of a footprint
/// `across` × `down` cells.
fn centred(across: u32, down: u32, s: f32) -> [f32; 16] {
    then(&scale(s, s, s), &translation(across as f32 * CELL / 2.0, 0.0, down as f32 * CELL / 2.0))
}

/// The demo gate, doubled in size, spanning one cell: built by `C`, its doors swung by `M1`/`M2`.
fn park_gate() -> Item {
    Item {
        folder: "features",
        stem: "gate",
        id: 1401,
        title: "Park Gate",
        shape: [1, 1],
        model: wrapped(gate(), "gate", centred(1, 1, 1.75)),
        clips: vec![("C", gate_construction()), ("M1", gate_swing(false)), ("M2", gate_swing(true))],
    }
}

/// The demo fountain over two cells, its water rippling in `M1`.
fn park_fountain() -> Item {
    Item {
        folder: "features",
        stem: "fountain",
        id: 1402,
        title: "Fountain",
        shape: [2, 2],
        model: wrapped(fountain(), "fountain", centred(2, 2, 2.6)),
        clips: vec![("M1", fountain_m1())],
    }
}

/// The demo island with its palms, its shore and sea scrolling in `M1`.
fn isle() -> Item {
    Item {
        folder: "features",
        stem: "isle",
        id: 1403,
        title: "Palm Island",
        shape: [3, 3],
        model: wrapped(island(), "isle", centred(3, 3, 0.75)),
        clips: vec![("M1", island_m1())],
    }
}

// ---------------------------------------------------------------------------------------------
// Carousel: a 3 × 3 ride whose canopy, horses and column turn about the middle in `M1`.

const CAROUSEL_STONE: usize = 0;
const CAROUSEL_WOOD: usize = 1;
const CAROUSEL_CANOPY: usize = 2;
/// Node indices: four meshes, then the root, the middle and the turning rotor.
const CAROUSEL_CANOPY_NODE: u16 = 1;
const CAROUSEL_HORSES_NODE: u16 = 2;
const CAROUSEL_MIDDLE: usize = 5;
const CAROUSEL_ROTOR: usize = 6;
const CAROUSEL_CANOPY_Y: f32 = 6.0;
/// One turn of `M1`, in frames (4 s at 30 a second).
const CAROUSEL_TURN: u16 = 120;

fn carousel() -> Item {
    let n = 24;
    // The platform: a low stone drum 12 across.
    let mut b = Builder::default();
    b.material(CAROUSEL_STONE);
    let (edge_low, edge_high, middle) =
        (ring(&mut b, 12.0, 0.0, n, &round), ring(&mut b, 12.0, 0.8, n, &round), ring(&mut b, 0.0, 0.8, n, &round));
    lathe(&mut b, &[&edge_low, &edge_high], true, &|_, j, p| Vec2::new(8.0 * j as f32 / n as f32, -p.y));
    lathe(&mut b, &[&edge_high, &middle], false, &|_, _, p| Vec2::new(p.x, p.z) / 4.0);
    let platform = b.finish("platform", Some(CAROUSEL_MIDDLE), IDENTITY);

    // The canopy: a striped cone with a skirt, its apex above the column.
    let mut b = Builder::default();
    b.material(CAROUSEL_CANOPY);
    let skirt_low = ring(&mut b, 12.5, -1.0, n, &round);
    let skirt_high = ring(&mut b, 12.5, 0.0, n, &round);
    let apex = ring(&mut b, 0.0, 3.2, n, &round);
    lathe(&mut b, &[&skirt_low, &skirt_high], true, &|_, j, p| Vec2::new(j as f32 / n as f32 * 3.0, -p.y));
    lathe(&mut b, &[&skirt_high, &apex], true, &|i, j, _| Vec2::new(j as f32 / n as f32 * 3.0, i as f32));
    let canopy = b.finish("canopy", Some(CAROUSEL_ROTOR), translation(0.0, CAROUSEL_CANOPY_Y, 0.0));

    // Six horses on poles, round the rim.
    let mut b = Builder::default();
    b.material(CAROUSEL_WOOD);
    for k in 0..6 {
        let angle = TAU * k as f32 / 6.0;
        let (dir, side) = (Vec3::new(angle.cos(), 0.0, angle.sin()), Vec3::new(-angle.sin(), 0.0, angle.cos()));
        let at = dir * 9.0;
        let lift = if k % 2 == 0 { 0.0 } else { 0.6 };
        cuboid(&mut b, at - Vec3::new(0.12, -0.8, 0.12), at + Vec3::new(0.12, CAROUSEL_CANOPY_Y, 0.12), 0.5);
        // The body lies along the direction of travel: a box along `side`, snapped square.
        let body = at + Vec3::Y * (2.4 + lift);
        let half = (side * 1.3 + dir * 0.35).abs().max(Vec3::splat(0.35));
        cuboid(&mut b, body - half.with_y(0.5), body + half.with_y(0.5), 0.5);
        let head = body + side * 1.2 + Vec3::Y * 0.9;
        cuboid(&mut b, head - Vec3::splat(0.35), head + Vec3::splat(0.35), 0.5);
    }
    let horses = b.finish("horses", Some(CAROUSEL_ROTOR), IDENTITY);

    // The middle column, mirror-panelled in stone.
    let mut b = Builder::default();
    b.material(CAROUSEL_STONE);
    let column: Vec<Vec<u16>> =
        [0.8, CAROUSEL_CANOPY_Y + 1.0].iter().map(|&y| ring(&mut b, 1.6, y, 8, &round)).collect();
    let refs: Vec<&[u16]> = column.iter().map(Vec::as_slice).collect();
    lathe(&mut b, &refs, true, &|_, j, p| Vec2::new(j as f32 / 4.0, -p.y / 3.0));
    let column_mesh = b.finish("column", Some(CAROUSEL_ROTOR), IDENTITY);

    let model = MeshFile {
        textures: vec![
            TextureSpec::opaque("stone_blocks"),
            TextureSpec::opaque("gate_wood"),
            TextureSpec::opaque("canopy_stripes"),
        ],
        meshes: vec![platform, canopy, horses, column_mesh],
        dummies: vec![
            DummySpec { name: "carousel_root".into(), ..DummySpec::default() },
            DummySpec {
                name: "carousel_middle".into(),
                parent: Some(4),
                matrix: translation(15.0, 0.0, 15.0),
                ..DummySpec::default()
            },
            DummySpec { name: "carousel_rotor".into(), parent: Some(CAROUSEL_MIDDLE), ..DummySpec::default() },
        ],
        ..MeshFile::default()
    };
    Item {
        folder: "rides",
        stem: "carousel",
        id: 1101,
        title: "Jungle Carousel",
        shape: [3, 3],
        model,
        clips: vec![("C", carousel_construction()), ("M1", carousel_turn())],
    }
}

/// Built: the canopy comes down from high above over frames 0..40 and the horses grow in by 50.
fn carousel_construction() -> AnimFile {
    let canopy = TrackSpec {
        target: CAROUSEL_CANOPY_NODE,
        frame_value: 50,
        position: Some(PositionSpec {
            kind: 0x18,
            points: vec![[0.0, CAROUSEL_CANOPY_Y + 14.0, 0.0], [0.0, CAROUSEL_CANOPY_Y, 0.0]],
            frames: vec![0, 40],
        }),
        ..TrackSpec::default()
    };
    let horses = TrackSpec {
        target: CAROUSEL_HORSES_NODE,
        frame_value: 50,
        scale: Some(vec![(30, [0.05, 0.05, 0.05]), (50, [1.0, 1.0, 1.0])]),
        visibility: Some(vec![30]),
        ..TrackSpec::default()
    };
    AnimFile {
        last_frame: 50,
        hide_list: vec![CAROUSEL_HORSES_NODE],
        tracks: vec![canopy, horses],
        ..AnimFile::default()
    }
}

/// The rotor turns once about Y, a key every quarter turn.
fn carousel_turn() -> AnimFile {
    AnimFile {
        last_frame: u32::from(CAROUSEL_TURN),
        tracks: vec![quarter_turns(CAROUSEL_ROTOR as u16, CAROUSEL_TURN)],
        ..AnimFile::default()
    }
}

/// A track turning `target` once about Y over `frames`, linear, keyed each quarter turn.
fn quarter_turns(target: u16, frames: u16) -> TrackSpec {
    TrackSpec {
        target,
        frame_value: u32::from(frames),
        rotation: (0..=4u16)
            .map(|k| RotationKeySpec {
                frame: frames * k / 4,
                curve: NO_EASING,
                quat: snap_all(quat_y(f32::from(k) * PI / 2.0)),
            })
            .collect(),
        ..TrackSpec::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Kiosk: a one-cell shop with a striped roof and a sign on top (the sign is the node a saved
// node flag word can hide).

const KIOSK_WOOD: usize = 0;
const KIOSK_CANOPY: usize = 1;
const KIOSK_ROOF: u16 = 1;
const KIOSK_SIGN: u16 = 2;
/// The node index of the kiosk's sign, for the save's node flag words.
pub(super) const KIOSK_SIGN_NODE: usize = KIOSK_SIGN as usize;
const KIOSK_MIDDLE: usize = 4;
const KIOSK_ROOF_Y: f32 = 4.2;

fn kiosk() -> Item {
    let mut b = Builder::default();
    b.material(KIOSK_WOOD);
    cuboid(&mut b, Vec3::new(-3.2, 0.0, -2.0), Vec3::new(3.2, 1.6, 2.0), 0.4);
    for (x, z) in [(-3.0, -1.8), (3.0, -1.8), (-3.0, 1.8), (3.0, 1.8)] {
        cuboid(&mut b, Vec3::new(x - 0.15, 1.6, z - 0.15), Vec3::new(x + 0.15, KIOSK_ROOF_Y, z + 0.15), 0.4);
    }
    let counter = b.finish("counter", Some(KIOSK_MIDDLE), IDENTITY);

    let mut b = Builder::default();
    b.material(KIOSK_CANOPY);
    cuboid(&mut b, Vec3::new(-3.8, 0.0, -2.6), Vec3::new(3.8, 0.5, 2.6), 0.25);
    let roof = b.finish("roof", Some(KIOSK_MIDDLE), translation(0.0, KIOSK_ROOF_Y, 0.0));

    let mut b = Builder::default();
    b.material(KIOSK_WOOD);
    cuboid(&mut b, Vec3::new(-2.0, 0.0, -0.1), Vec3::new(2.0, 1.3, 0.1), 0.5);
    let sign = b.finish("sign", Some(usize::from(KIOSK_ROOF)), translation(0.0, 0.5, 0.0));

    let model = MeshFile {
        textures: vec![TextureSpec::opaque("gate_wood"), TextureSpec::opaque("canopy_stripes")],
        meshes: vec![counter, roof, sign],
        dummies: vec![
            DummySpec { name: "kiosk_root".into(), ..DummySpec::default() },
            DummySpec {
                name: "kiosk_middle".into(),
                parent: Some(3),
                matrix: translation(5.0, 0.0, 5.0),
                ..DummySpec::default()
            },
        ],
        ..MeshFile::default()
    };
    // Built: the roof drops onto the posts, then the sign appears.
    let roof_drop = TrackSpec {
        target: KIOSK_ROOF,
        frame_value: 30,
        position: Some(PositionSpec {
            kind: 0x18,
            points: vec![[0.0, KIOSK_ROOF_Y + 8.0, 0.0], [0.0, KIOSK_ROOF_Y, 0.0]],
            frames: vec![0, 24],
        }),
        ..TrackSpec::default()
    };
    let sign_shows =
        TrackSpec { target: KIOSK_SIGN, frame_value: 30, visibility: Some(vec![30]), ..TrackSpec::default() };
    let built = AnimFile {
        last_frame: 30,
        hide_list: vec![KIOSK_SIGN],
        tracks: vec![roof_drop, sign_shows],
        ..AnimFile::default()
    };
    Item {
        folder: "shops",
        stem: "kiosk",
        id: 1201,
        title: "Banana Kiosk",
        shape: [1, 1],
        model,
        clips: vec![("C", built)],
    }
}

// ---------------------------------------------------------------------------------------------
// Hoopla: a two-cell sideshow, a booth with three pegs and a prize drum that spins in `I1`.

const HOOPLA_WOOD: usize = 0;
const HOOPLA_CANOPY: usize = 1;
const HOOPLA_DRUM: u16 = 1;
const HOOPLA_MIDDLE: usize = 3;

fn hoopla() -> Item {
    let mut b = Builder::default();
    b.material(HOOPLA_WOOD);
    cuboid(&mut b, Vec3::new(-8.0, 0.0, -3.0), Vec3::new(8.0, 0.4, 3.0), 0.3);
    for x in [-4.0, 0.0, 4.0] {
        cuboid(&mut b, Vec3::new(x - 0.2, 0.4, -0.2), Vec3::new(x + 0.2, 2.0, 0.2), 0.5);
    }
    b.material(HOOPLA_CANOPY);
    cuboid(&mut b, Vec3::new(-8.0, 0.4, 2.6), Vec3::new(8.0, 5.0, 3.0), 0.2);
    let booth = b.finish("booth", Some(HOOPLA_MIDDLE), IDENTITY);

    let mut b = Builder::default();
    let n = 12;
    let rings: Vec<Vec<u16>> =
        [(0.0, 0.0), (1.4, 0.0), (1.4, 1.2), (0.0, 1.2)].iter().map(|&(r, y)| ring(&mut b, r, y, n, &round)).collect();
    b.material(HOOPLA_CANOPY);
    let [bottom, low, high, top] = [&rings[0], &rings[1], &rings[2], &rings[3]];
    lathe(&mut b, &[bottom.as_slice(), low], false, &|_, _, p| Vec2::new(p.x, p.z) / 3.0);
    lathe(&mut b, &[low.as_slice(), high], true, &|_, j, p| Vec2::new(j as f32 / n as f32, -p.y));
    lathe(&mut b, &[high.as_slice(), top], false, &|_, _, p| Vec2::new(p.x, p.z) / 3.0);
    let drum = b.finish("prize_drum", Some(HOOPLA_MIDDLE), translation(6.2, 5.0, 2.2));

    let model = MeshFile {
        textures: vec![TextureSpec::opaque("gate_wood"), TextureSpec::opaque("canopy_stripes")],
        meshes: vec![booth, drum],
        dummies: vec![
            DummySpec { name: "hoopla_root".into(), ..DummySpec::default() },
            DummySpec {
                name: "hoopla_middle".into(),
                parent: Some(2),
                matrix: translation(10.0, 0.0, 5.0),
                ..DummySpec::default()
            },
        ],
        ..MeshFile::default()
    };
    let built = AnimFile {
        last_frame: 20,
        tracks: vec![TrackSpec {
            target: HOOPLA_DRUM,
            frame_value: 20,
            scale: Some(vec![(0, [0.05, 0.05, 0.05]), (20, [1.0, 1.0, 1.0])]),
            ..TrackSpec::default()
        }],
        ..AnimFile::default()
    };
    let spin = AnimFile { last_frame: 60, tracks: vec![quarter_turns(HOOPLA_DRUM, 60)], ..AnimFile::default() };
    Item {
        folder: "sideshow",
        stem: "hoopla",
        id: 1301,
        title: "Hoopla",
        shape: [2, 1],
        model,
        clips: vec![("C", built), ("I1", spin)],
    }
}

// ---------------------------------------------------------------------------------------------
// Palm: a one-cell tree feature from the island's palm; it grows in `C` and sways in `I1`.

const PALM_TRUNK: u16 = 0;
const PALM_LEAVES: u16 = 1;
const PALM_MIDDLE: usize = 3;

fn palm() -> Item {
    let mut trunk = trunk_mesh("palm_trunk", PALM_MIDDLE);
    let mut leaves = leaves_mesh("palm_leaves", PALM_MIDDLE, 0.0);
    // The island's meshes name its textures 2 (bark) and 3 (leaves); the palm has only those two.
    for material in trunk.materials.iter_mut().chain(leaves.materials.iter_mut()) {
        material.texture = material.texture.map(|t| t.saturating_sub(2));
    }
    let model = MeshFile {
        textures: vec![TextureSpec::opaque("palm_bark"), TextureSpec::see_through("palm_leaves")],
        meshes: vec![trunk, leaves],
        dummies: vec![
            DummySpec { name: "palm_root".into(), ..DummySpec::default() },
            DummySpec {
                name: "palm_middle".into(),
                parent: Some(2),
                matrix: centred(1, 1, 1.6),
                ..DummySpec::default()
            },
        ],
        ..MeshFile::default()
    };
    let grow = AnimFile {
        last_frame: 40,
        hide_list: vec![PALM_LEAVES],
        tracks: vec![
            TrackSpec {
                target: PALM_TRUNK,
                frame_value: 40,
                scale: Some(vec![(0, [1.0, 0.05, 1.0]), (24, [1.0, 1.0, 1.0])]),
                ..TrackSpec::default()
            },
            TrackSpec {
                target: PALM_LEAVES,
                frame_value: 40,
                scale: Some(vec![(24, [0.05, 0.05, 0.05]), (40, [1.0, 1.0, 1.0])]),
                visibility: Some(vec![24]),
                ..TrackSpec::default()
            },
        ],
        ..AnimFile::default()
    };
    // The fronds sway a little either way and back.
    let sway = AnimFile {
        last_frame: 90,
        tracks: vec![TrackSpec {
            target: PALM_LEAVES,
            frame_value: 90,
            rotation: [(0, 0.0), (30, 0.12), (60, -0.12), (90, 0.0)]
                .iter()
                .map(|&(frame, angle)| RotationKeySpec { frame, curve: NO_EASING, quat: snap_all(quat_y(angle)) })
                .collect(),
            ..TrackSpec::default()
        }],
        ..AnimFile::default()
    };
    Item {
        folder: "features",
        stem: "palm",
        id: 1404,
        title: "Palm Tree",
        shape: [1, 1],
        model,
        clips: vec![("C", grow), ("I1", sway)],
    }
}
