//! The built-in demo park. No Theme Park World game files are public, so the project ships its own,
//! written by the TPW encoder ([`crate::writers::tpw`]) with procedural textures:
//!
//! - `island.MD2`: an island (grass and sand materials sharing the shoreline's source vertices),
//!   two transform-only nodes `l_tree1` (sheared) and `l_tree2`, each holding a palm trunk at
//!   (0, 0, 0) and its leaves at (0, 3.66, 0) like Jun_isle; the leaves are cut-out see-through.
//!   A ripple ring and the sea are blended see-through. `islandM1.MD2` scrolls both (UV only,
//!   two keys per slot over the declared 100 frames).
//! - `gate.MD2`: two doors (nodes 0 and 1), the stone frame (2) and a sign hanging from it (3).
//!   `gateC.MD2` builds it (role C: the frame rises on a Bezier position curve, the doors appear
//!   and scale up, the sign is hidden by the hide list and appears on the last frame, which is
//!   the finished gate). `gateM1.MD2` swings the doors a quarter turn about Y (+90 and -90
//!   degrees) over frames 0..30 with one eased segment (Advisorm1's curve 0) while the sign
//!   blinks (visibility); `gateM2.MD2` is the exact inverse.
//! - `fountain.MD2`: a basin and a water mesh. `fountainM1.MD2` has one track on the water with a
//!   vertex morph (an outward ripple quantised in the track's own box, which is not the mesh
//!   box; channel count = vertex count + 2 box corners) and a five-key UV flow.
//!
//! The same models and textures also ship as `park.wad` (models RefPack-compressed, textures as
//! `.wct`), which the viewer opens by default, as a real install would be browsed.
//!
//! [`generate`] builds every file deterministically (`cargo run --example make_demo` writes them
//! to `assets/demo/`); [`files`] is the committed copy embedded in the binary, and [`extract`]
//! writes it to a temp folder so the viewer and CLI can open it by path with its siblings.

use std::f32::consts::{PI, TAU};
use std::path::PathBuf;

use glam::{Vec2, Vec3};
use image::{ExtendedColorType, ImageEncoder, codecs::png::PngEncoder};

use crate::formats::tpw::layout::NO_EASING;
use crate::writers::tpw::{
    AnimFile, DummySpec, MaterialSpec, MeshFile, MeshSpec, MorphRecordSpec, MorphSpec, PositionSpec, RotationKeySpec,
    TextureSpec, TrackSpec, UvEntrySpec, morph_box, pack_morph, quat_y, rotation_y, scale, shear_y, then, translation,
};

/// The model to open first: inside the demo archive, as a real install keeps its models.
pub const MAIN_MODEL: &str = "park.wad/models/island.MD2";

/// The demo park as a TPW archive: the models (RefPack) under `models\`, the textures as
/// `.wct` (stored) under `textures\`.
pub const ARCHIVE: &str = "park.wad";

macro_rules! embed {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/", $name)))),*]
    };
}

static FILES: &[(&str, &[u8])] = embed!(
    "island.MD2",
    "islandM1.MD2",
    "gate.MD2",
    "gateC.MD2",
    "gateM1.MD2",
    "gateM2.MD2",
    "fountain.MD2",
    "fountainM1.MD2",
    "isle_grass.png",
    "isle_sand.png",
    "palm_bark.png",
    "palm_leaves.png",
    "isle_ripple.png",
    "sea_water.png",
    "gate_wood.png",
    "stone_blocks.png",
    "ftn_water.png",
    "park.wad",
);

/// Every demo file as committed under `assets/demo/`, by file name.
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    FILES
}

/// The folder [`extract`] writes to: `mdview-demo-<crate version>` under the OS temp dir.
pub fn folder() -> PathBuf {
    std::env::temp_dir().join(format!("mdview-demo-{}", env!("CARGO_PKG_VERSION")))
}

/// Writes the demo files to [`folder`] (rewriting any that differ, removing models that are not
/// part of the demo) and returns the folder. Each file is written under a unique temporary name
/// and renamed, so concurrent extractions never see a half-written file.
pub fn extract() -> std::io::Result<PathBuf> {
    let dir = folder();
    std::fs::create_dir_all(&dir)?;
    // A model left over from an older demo would be picked up as a sibling animation.
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let is_model = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"));
        if is_model && !files().iter().any(|(n, _)| *n == name) {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    for (name, data) in files() {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == *data) {
            continue;
        }
        let temp = dir.join(format!(".{name}.{}.{:?}.tmp", std::process::id(), std::thread::current().id()));
        std::fs::write(&temp, data)?;
        std::fs::rename(&temp, &path)?;
    }
    Ok(dir)
}

/// Builds every demo file, in the order of [`files`].
pub fn generate() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        ("island.MD2".to_string(), island().to_bytes()),
        ("islandM1.MD2".to_string(), island_m1().to_bytes()),
        ("gate.MD2".to_string(), gate().to_bytes()),
        ("gateC.MD2".to_string(), gate_construction().to_bytes()),
        ("gateM1.MD2".to_string(), gate_swing(false).to_bytes()),
        ("gateM2.MD2".to_string(), gate_swing(true).to_bytes()),
        ("fountain.MD2".to_string(), fountain().to_bytes()),
        ("fountainM1.MD2".to_string(), fountain_m1().to_bytes()),
    ];
    for texture in TEXTURES {
        out.push((format!("{}.png", texture.name), (texture.paint)()));
    }
    let archive = park_wad(&out);
    out.push((ARCHIVE.to_string(), archive));
    out
}

/// The archive of the demo: each model RefPack-compressed under `models/`, each PNG texture
/// encoded as `.wct` (BILZ chunks, alpha where the PNG has it) under `textures/`.
fn park_wad(loose: &[(String, Vec<u8>)]) -> Vec<u8> {
    use crate::writers::wad::{WadMember, write_wad};
    use crate::writers::wct::{WctOptions, encode};
    let mut members = Vec::new();
    for (name, data) in loose {
        if name.ends_with(".MD2") {
            members.push(WadMember::compressed(format!("models/{name}"), data));
        } else if let Some(stem) = name.strip_suffix(".png") {
            let Ok(image) = image::load_from_memory_with_format(data, image::ImageFormat::Png) else { continue };
            let alpha = image.color().has_alpha();
            let rgba = image.to_rgba8();
            let options = WctOptions { alpha, ..WctOptions::default() };
            let wct = encode(rgba.as_raw(), rgba.width(), rgba.height(), options);
            members.push(WadMember::stored(format!("textures/{stem}.wct"), &wct));
        }
    }
    write_wad(&members)
}

// ---------------------------------------------------------------------------------------------
// Geometry

/// Floats that come out of `sin`/`cos` are snapped to 1/4096, so a last-bit difference in a
/// platform's maths library cannot change the committed bytes. (Translations stay exact.)
fn snap(x: f32) -> f32 {
    (x * 4096.0).round() / 4096.0
}

/// A rotation about Y with snapped elements (see [`snap`]).
fn turn_y(radians: f32) -> [f32; 16] {
    snap_all(rotation_y(radians))
}

fn snap_all<const N: usize>(values: [f32; N]) -> [f32; N] {
    values.map(snap)
}

/// Builds one mesh: source vertices, then final vertices grouped by material, then faces.
#[derive(Default)]
struct Builder {
    sources: Vec<Vec3>,
    order: Vec<u16>,
    uvs: Vec<[f32; 2]>,
    faces: Vec<[u16; 3]>,
    materials: Vec<MaterialSpec>,
    group: Option<(usize, usize)>,
}

impl Builder {
    fn source(&mut self, p: Vec3) -> u16 {
        self.sources.push(Vec3::from_array(snap_all(p.to_array())));
        (self.sources.len() - 1) as u16
    }

    /// Starts a material: every final vertex from here on belongs to it.
    fn material(&mut self, texture: usize) {
        self.close_material();
        self.group = Some((texture, self.order.len()));
    }

    fn close_material(&mut self) {
        if let Some((texture, start)) = self.group.take()
            && self.order.len() > start
        {
            self.materials.push(MaterialSpec {
                texture: Some(texture),
                start: start as u16,
                end: (self.order.len() - 1) as u16,
            });
        }
    }

    fn vertex(&mut self, source: u16, uv: Vec2) -> u16 {
        self.order.push(source);
        self.uvs.push(snap_all(uv.to_array()));
        (self.order.len() - 1) as u16
    }

    fn source_of(&self, vertex: u16) -> u16 {
        self.order.get(usize::from(vertex)).copied().unwrap_or(0)
    }

    fn position(&self, vertex: u16) -> Vec3 {
        self.sources.get(usize::from(self.source_of(vertex))).copied().unwrap_or(Vec3::ZERO)
    }

    /// A counter-clockwise front face. The file stores the reverse winding, so it is written
    /// as (a, c, b). Faces with two corners on one source vertex are dropped.
    fn tri(&mut self, a: u16, b: u16, c: u16) {
        let [sa, sb, sc] = [a, b, c].map(|v| self.source_of(v));
        if sa != sb && sb != sc && sa != sc {
            self.faces.push([a, c, b]);
        }
    }

    /// A quad (corners in cyclic order) facing whichever way has a positive dot with `facing`.
    fn quad_facing(&mut self, [a, b, c, d]: [u16; 4], facing: Vec3) {
        let [pa, pb, pc] = [a, b, c].map(|v| self.position(v));
        if (pb - pa).cross(pc - pa).dot(facing) >= 0.0 {
            self.tri(a, b, c);
            self.tri(a, c, d);
        } else {
            self.tri(a, c, b);
            self.tri(a, d, c);
        }
    }

    fn finish(mut self, name: &str, parent: Option<usize>, matrix: [f32; 16]) -> MeshSpec {
        self.close_material();
        MeshSpec {
            name: name.to_string(),
            parent,
            matrix,
            vertices: self.sources.iter().map(|p| p.to_array()).collect(),
            vertex_order: self.order,
            uvs: self.uvs,
            faces: self.faces,
            materials: self.materials,
            ..MeshSpec::default()
        }
    }
}

/// A ring of `segments` source vertices at height `y` (one vertex when `radius` is 0), vertex
/// `j` at angle `TAU * j / segments` from +X towards +Z, its radius scaled by `wobble(angle)`.
fn ring(b: &mut Builder, radius: f32, y: f32, segments: usize, wobble: &dyn Fn(f32) -> f32) -> Vec<u16> {
    if radius == 0.0 {
        return vec![b.source(Vec3::new(0.0, y, 0.0))];
    }
    (0..segments)
        .map(|j| {
            let angle = TAU * j as f32 / segments as f32;
            let r = radius * wobble(angle);
            b.source(Vec3::new(r * angle.cos(), y, r * angle.sin()))
        })
        .collect()
}

fn round(_: f32) -> f32 {
    1.0
}

/// A surface of revolution through `rings` (source rings, in profile order) in the current
/// material. It faces to the right of the profile in the (radius, height) plane: rings listed
/// bottom to top face outwards, outside to centre face up, centre to outside face down.
/// With `seam`, each ring gets `segments + 1` final vertices so U can wrap; without it the
/// final vertices close the loop. `uv(ring, column, position)` gives each final vertex's UV.
fn lathe(b: &mut Builder, rings: &[&[u16]], seam: bool, uv: &dyn Fn(usize, usize, Vec3) -> Vec2) {
    let segments = rings.iter().map(|r| r.len()).max().unwrap_or(1);
    let mut finals: Vec<Vec<u16>> = Vec::new();
    for (i, sources) in rings.iter().enumerate() {
        let columns = if sources.len() == 1 && !seam { 1 } else { segments + usize::from(seam) };
        let row = (0..columns)
            .map(|j| {
                let source = sources.get(if sources.len() == 1 { 0 } else { j % segments }).copied().unwrap_or(0);
                let p = b.sources.get(usize::from(source)).copied().unwrap_or(Vec3::ZERO);
                b.vertex(source, uv(i, j, p))
            })
            .collect();
        finals.push(row);
    }
    let at = |row: &Vec<u16>, j: usize| -> u16 {
        let index = if row.len() == 1 {
            0
        } else if seam {
            j
        } else {
            j % row.len()
        };
        row.get(index).copied().unwrap_or(0)
    };
    for pair in finals.windows(2) {
        let [lower, upper] = pair else { continue };
        for j in 0..segments {
            let (a, bb, c, d) = (at(lower, j), at(lower, j + 1), at(upper, j + 1), at(upper, j));
            // Normal = profile tangent x angle tangent: right of the profile direction.
            b.tri(a, d, c);
            b.tri(a, c, bb);
        }
    }
}

/// An axis-aligned box in the current material, each face with its own final vertices and
/// planar UVs (`uv_scale` texture repeats per unit).
fn cuboid(b: &mut Builder, min: Vec3, max: Vec3, uv_scale: f32) {
    let corner = |x: usize, y: usize, z: usize| {
        Vec3::new(
            if x == 1 { max.x } else { min.x },
            if y == 1 { max.y } else { min.y },
            if z == 1 { max.z } else { min.z },
        )
    };
    let mut sources = [0u16; 8];
    for (i, s) in sources.iter_mut().enumerate() {
        *s = b.source(corner(i & 1, (i >> 1) & 1, (i >> 2) & 1));
    }
    for axis in 0..3 {
        let (ua, va) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2 {
            let corners = [(0, 0), (1, 0), (1, 1), (0, 1)].map(|(u, v)| {
                let mut bits = [0usize; 3];
                bits[axis] = side;
                bits[ua] = u;
                bits[va] = v;
                let index = bits[0] | (bits[1] << 1) | (bits[2] << 2);
                let source = sources[index];
                let p = corner(bits[0], bits[1], bits[2]);
                b.vertex(source, Vec2::new(p[ua], -p[va]) * uv_scale)
            });
            let mut facing = Vec3::ZERO;
            facing[axis] = if side == 1 { 1.0 } else { -1.0 };
            b.quad_facing(corners, facing);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Island

const GRASS: usize = 0;
const SAND: usize = 1;
const BARK: usize = 2;
const LEAVES: usize = 3;
const RIPPLE: usize = 4;
const SEA: usize = 5;

/// The island's shoreline is not a circle.
fn shore(angle: f32) -> f32 {
    1.0 + 0.07 * (3.0 * angle).sin() + 0.04 * (5.0 * angle + 1.0).sin()
}

const ISLAND_SEGMENTS: usize = 32;

fn island_mesh() -> MeshSpec {
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

fn trunk_mesh(name: &str, parent: usize) -> MeshSpec {
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
fn leaves_mesh(name: &str, parent: usize, turn: f32) -> MeshSpec {
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

fn ripple_rows() -> [(f32, f32); 3] {
    // (radius, v): outside to inside, so the ring faces up.
    [(13.6, 1.0), (12.0, 0.45), (10.4, 0.0)]
}

fn ripple_mesh(parent: usize) -> MeshSpec {
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

fn sea_mesh(parent: usize) -> MeshSpec {
    let mut b = Builder::default();
    let rings: Vec<Vec<u16>> =
        [40.0, 26.0, 16.0, 10.0].iter().map(|&r| ring(&mut b, r, 0.0, ISLAND_SEGMENTS, &round)).collect();
    b.material(SEA);
    let refs: Vec<&[u16]> = rings.iter().map(Vec::as_slice).collect();
    lathe(&mut b, &refs, false, &|_, _, p| Vec2::new(p.x, p.z) / 5.0);
    b.finish("sea", Some(parent), crate::writers::tpw::IDENTITY)
}

/// Mesh indices of the island's nodes.
const ISLAND_RIPPLES: usize = 5;
const ISLAND_SEA: usize = 6;

fn island() -> MeshFile {
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
fn uv_scroll(mesh: &MeshSpec, delta: [f32; 2], end_frame: u16) -> Vec<UvEntrySpec> {
    mesh.uvs
        .iter()
        .map(|uv| UvEntrySpec { keys: vec![(0, *uv), (end_frame, [snap(uv[0] + delta[0]), snap(uv[1] + delta[1])])] })
        .collect()
}

fn island_m1() -> AnimFile {
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

const WOOD: usize = 0;
const STONE: usize = 1;

/// A door hinged at its node's origin, reaching `+width` along X (or `-width` when `mirror`).
fn door_mesh(name: &str, mirror: bool, hinge_x: f32) -> MeshSpec {
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

fn gate_frame_mesh() -> MeshSpec {
    let mut b = Builder::default();
    b.material(STONE);
    cuboid(&mut b, Vec3::new(-2.5, 0.0, -0.25), Vec3::new(-2.0, 3.6, 0.25), 0.6);
    cuboid(&mut b, Vec3::new(2.0, 0.0, -0.25), Vec3::new(2.5, 3.6, 0.25), 0.6);
    cuboid(&mut b, Vec3::new(-2.75, 3.6, -0.32), Vec3::new(2.75, 4.1, 0.32), 0.6);
    b.finish("gate_frame", None, crate::writers::tpw::IDENTITY)
}

/// The sign hanging under the lintel, a child of the frame.
fn gate_sign_mesh() -> MeshSpec {
    let mut b = Builder::default();
    b.material(WOOD);
    cuboid(&mut b, Vec3::new(-0.9, -0.55, -0.05), Vec3::new(0.9, 0.0, 0.05), 0.9);
    b.finish("gate_sign", Some(GATE_FRAME), translation(0.0, 3.6, 0.4))
}

const GATE_FRAME: usize = 2;
const GATE_SIGN: usize = 3;

fn gate() -> MeshFile {
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
const DOOR_EASING: [u8; 8] = [32, 66, 105, 141, 176, 208, 233, 249];

/// The sign blinks: hidden from 0, shown 4, hidden 10, shown 16, hidden 22, shown 28 (frames).
const SIGN_BLINK: [i16; 6] = [0, 4, -10, 16, -22, 28];

/// How the gate is built (role C; its last frame is the finished gate): the frame rises out of
/// the ground along a Bezier over frames 0..40, the doors appear at 40 and grow to full size by
/// 60, and the sign (hidden at clip start by the hide list) appears at 60.
fn gate_construction() -> AnimFile {
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
fn gate_swing(reverse: bool) -> AnimFile {
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

const FTN_STONE: usize = 0;
const FTN_WATER: usize = 1;
const WATER_Y: f32 = 0.62;
const WATER_RADIUS: f32 = 2.6;
const WATER_RINGS: usize = 6;
const WATER_SEGMENTS: usize = 24;
const WAVE_HEIGHT: f32 = 0.06;
const WAVE_LENGTH: f32 = 1.3;
const WAVE_PERIOD: f32 = 32.0;
const FOUNTAIN_FRAMES: u16 = 64;

fn fountain_basin() -> MeshSpec {
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
fn water_height(r: f32, frame: f32) -> f32 {
    let falloff = 1.0 - r / WATER_RADIUS;
    WATER_Y + WAVE_HEIGHT * falloff * (TAU * (r / WAVE_LENGTH - frame / WAVE_PERIOD)).sin()
}

fn water_radius(ring: usize) -> f32 {
    WATER_RADIUS * ring as f32 / WATER_RINGS as f32
}

/// Source vertices: the centre, then rings outwards; the last ring (the rim) never moves.
fn water_positions(frame: f32) -> Vec<Vec3> {
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

fn water_bbox() -> ([f32; 3], [f32; 3]) {
    // Covers the whole wave, not just the rest pose: the morph track's box.
    ([-WATER_RADIUS, WATER_Y - WAVE_HEIGHT, -WATER_RADIUS], [WATER_RADIUS, WATER_Y + WAVE_HEIGHT, WATER_RADIUS])
}

fn fountain_water() -> MeshSpec {
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

fn fountain() -> MeshFile {
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
fn water_morph() -> MorphSpec {
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
fn water_uv(mesh: &MeshSpec) -> Vec<UvEntrySpec> {
    let steps = [(0u16, 0.0f32), (16, 0.5), (32, 1.1), (48, 1.75), (FOUNTAIN_FRAMES, 2.0)];
    mesh.uvs
        .iter()
        .map(|uv| UvEntrySpec { keys: steps.iter().map(|&(frame, dv)| (frame, [uv[0], snap(uv[1] - dv)])).collect() })
        .collect()
}

fn fountain_m1() -> AnimFile {
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

// ---------------------------------------------------------------------------------------------
// Textures: small, procedural, tileable.

struct Texture {
    name: &'static str,
    paint: fn() -> Vec<u8>,
}

const TEXTURES: [Texture; 9] = [
    Texture { name: "isle_grass", paint: grass_png },
    Texture { name: "isle_sand", paint: sand_png },
    Texture { name: "palm_bark", paint: bark_png },
    Texture { name: "palm_leaves", paint: leaves_png },
    Texture { name: "isle_ripple", paint: ripple_png },
    Texture { name: "sea_water", paint: sea_png },
    Texture { name: "gate_wood", paint: wood_png },
    Texture { name: "stone_blocks", paint: stone_png },
    Texture { name: "ftn_water", paint: fountain_water_png },
];

fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h =
        (x as u32).wrapping_mul(0x8DA6_B343) ^ (y as u32).wrapping_mul(0xD816_3841) ^ seed.wrapping_mul(0xCB1A_B31F);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5BD1_E995);
    h ^= h >> 15;
    (h & 0xFF_FFFF) as f32 / 16_777_216.0
}

/// Value noise on a lattice of `period` cells per texture, wrapping so the texture tiles.
fn noise(u: f32, v: f32, period: i32, seed: u32) -> f32 {
    let (x, y) = (u * period as f32, v * period as f32);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (smooth(fx), smooth(fy));
    let cell = |dx: i32, dy: i32| hash((x0 as i32 + dx).rem_euclid(period), (y0 as i32 + dy).rem_euclid(period), seed);
    let top = cell(0, 0) + (cell(1, 0) - cell(0, 0)) * sx;
    let bottom = cell(0, 1) + (cell(1, 1) - cell(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Four octaves of [`noise`], 0..1.
fn fbm(u: f32, v: f32, period: i32, seed: u32) -> f32 {
    let mut sum = 0.0;
    let mut weight = 0.5;
    let mut total = 0.0;
    for octave in 0..4 {
        sum += weight * noise(u, v, period << octave, seed + octave as u32);
        total += weight;
        weight *= 0.5;
    }
    sum / total
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

fn byte(x: f32) -> u8 {
    x.round().clamp(0.0, 255.0) as u8
}

/// Paints a `size` square texture; `texel(u, v)` gives RGBA with channels 0..255.
fn paint(size: u32, alpha: bool, texel: impl Fn(f32, f32) -> [f32; 4]) -> Vec<u8> {
    let mut pixels = Vec::new();
    for y in 0..size {
        for x in 0..size {
            let rgba = texel((x as f32 + 0.5) / size as f32, (y as f32 + 0.5) / size as f32);
            let channels = if alpha { 4 } else { 3 };
            pixels.extend(rgba.iter().take(channels).map(|&c| byte(c)));
        }
    }
    let mut out = Vec::new();
    let color = if alpha { ExtendedColorType::Rgba8 } else { ExtendedColorType::Rgb8 };
    PngEncoder::new(&mut out).write_image(&pixels, size, size, color).expect("encoding a PNG into memory");
    out
}

fn opaque(rgb: [f32; 3]) -> [f32; 4] {
    [rgb[0], rgb[1], rgb[2], 255.0]
}

fn grass_png() -> Vec<u8> {
    paint(128, false, |u, v| {
        let patches = fbm(u, v, 4, 11);
        let blades = noise(u, v, 64, 12);
        let base = mix([62.0, 118.0, 44.0], [118.0, 150.0, 62.0], (patches - 0.35).clamp(0.0, 1.0) * 1.6);
        opaque(mix(base, [40.0, 88.0, 30.0], blades * 0.45))
    })
}

fn sand_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let grain = noise(u, v, 32, 21);
        let ripples = 0.5 + 0.5 * (TAU * (4.0 * v + 0.6 * fbm(u, v, 4, 22))).sin();
        let base = mix([206.0, 182.0, 132.0], [232.0, 214.0, 168.0], grain);
        opaque(mix(base, [190.0, 164.0, 116.0], ripples * 0.25))
    })
}

fn bark_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let fibres = noise(u, v * 0.25, 16, 31);
        let band = (v * 4.0).fract();
        let ring = if band < 0.12 { 1.0 - band / 0.12 } else { 0.0 };
        let base = mix([112.0, 82.0, 52.0], [146.0, 112.0, 74.0], fibres);
        opaque(mix(base, [62.0, 44.0, 28.0], ring * 0.8))
    })
}

/// A palm frond along V (base at v = 1, tip at v = 0) with hard 0/255 alpha: a rib down the
/// middle and slanted leaflets inside a leaf-shaped outline.
fn leaves_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let along = 1.0 - v;
        let d = (u - 0.5).abs();
        let outline = 0.48 * (PI * along.clamp(0.0, 1.0)).sin().powf(0.6);
        let rib = d < 0.035 && along > 0.02 && along < 0.97;
        let leaflet = (along * 9.0 + d * 6.0).fract() < 0.7;
        let inside = rib || (leaflet && d < outline && d > 0.02);
        let shade = fbm(u, v, 4, 41);
        let colour = if rib {
            [150.0, 170.0, 70.0]
        } else {
            mix([38.0, 104.0, 34.0], [96.0, 162.0, 58.0], (1.0 - d * 2.0) * 0.6 + shade * 0.4)
        };
        [colour[0], colour[1], colour[2], if inside { 255.0 } else { 0.0 }]
    })
}

/// Shore foam: white, alpha a smooth gradient from the inner edge (v = 0) outwards, with soft
/// crests; tiles along U, which is the direction it scrolls.
fn ripple_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let fade_in = (v / 0.08).clamp(0.0, 1.0);
        let fade_out = (1.0 - v).clamp(0.0, 1.0).powf(1.3);
        let crest = 0.5 + 0.5 * (TAU * (3.0 * v + 0.12 * (TAU * 2.0 * u).sin())).sin();
        let alpha = 255.0 * fade_in * fade_out * (0.35 + 0.65 * crest);
        [236.0, 246.0, 250.0, alpha]
    })
}

fn sea_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let waves = fbm(u, v, 4, 51);
        let crest = (0.5 + 0.5 * (TAU * (u + v + 0.5 * waves)).sin()).powf(3.0);
        let colour = mix([22.0, 88.0, 140.0], [92.0, 170.0, 204.0], waves * 0.6 + crest * 0.4);
        [colour[0], colour[1], colour[2], 140.0 + 90.0 * (0.5 * waves + 0.5 * crest)]
    })
}

fn wood_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let plank = (u * 4.0).floor();
        let across = (u * 4.0).fract();
        let tone = hash(plank as i32, 0, 61);
        let grain = 0.5 + 0.5 * (TAU * (across * 3.0 + 2.0 * fbm(u, v, 4, 62))).sin();
        let base = mix([118.0, 78.0, 42.0], [158.0, 108.0, 62.0], tone * 0.6 + grain * 0.4);
        let gap = if !(0.05..=0.95).contains(&across) { 0.7 } else { 0.0 };
        opaque(mix(base, [44.0, 30.0, 18.0], gap))
    })
}

fn stone_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let row = (v * 4.0).floor();
        let offset = if row as i32 % 2 == 1 { 0.25 } else { 0.0 };
        let column = ((u + offset) * 2.0).floor();
        let (fu, fv) = (((u + offset) * 2.0).fract(), (v * 4.0).fract());
        let mortar = !(0.04..=0.96).contains(&fu) || !(0.07..=0.93).contains(&fv);
        let tone = hash(column as i32 % 2, row as i32, 71);
        let grit = fbm(u, v, 8, 72);
        let base = mix([128.0, 124.0, 116.0], [176.0, 170.0, 158.0], tone * 0.5 + grit * 0.5);
        opaque(if mortar { [92.0, 88.0, 82.0] } else { base })
    })
}

fn fountain_water_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let caustic = fbm(u, v, 4, 81);
        let lines = (1.0 - (2.0 * (caustic * 6.0).fract() - 1.0).abs()).powf(4.0);
        let colour = mix([92.0, 168.0, 204.0], [214.0, 240.0, 250.0], lines * 0.8);
        [colour[0], colour[1], colour[2], 120.0 + 80.0 * caustic + 40.0 * lines]
    })
}

// ---------------------------------------------------------------------------------------------
// A synthetic park: many small models for contact sheets and their benchmarks

/// `count` small TPW models named `synth_0000.MD2`, … : each a stack of one to four boxes
/// whose sizes, offsets and turn follow from its index (a fixed hash, so the set is the same
/// on every run), textured with the demo's `stone_blocks` and `gate_wood` (write
/// [`files`] beside them for the textures to resolve). A TPW install holds about 2,300 models.
pub fn synthetic_park(count: usize) -> Vec<(String, Vec<u8>)> {
    (0..count).map(|i| (format!("synth_{i:04}.MD2"), synthetic_model(i).to_bytes())).collect()
}

fn synthetic_model(index: usize) -> MeshFile {
    // SplitMix64 steps: well-spread values from consecutive indices.
    let mut state = (index as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut b = Builder::default();
    let boxes = 1 + (next() * 4.0) as usize;
    let mut floor = 0.0;
    for level in 0..boxes {
        b.material(level % 2);
        let half = Vec3::new(0.3 + next() * 1.2, 0.0, 0.3 + next() * 1.2);
        let height = 0.2 + next() * 1.5;
        let shift = Vec3::new(next() - 0.5, 0.0, next() - 0.5) * 0.6;
        let min = Vec3::new(-half.x, floor, -half.z) + shift;
        let max = Vec3::new(half.x, floor + height, half.z) + shift;
        cuboid(&mut b, min, max, 0.5);
        floor += height;
    }
    MeshFile {
        textures: vec![TextureSpec::opaque("stone_blocks"), TextureSpec::opaque("gate_wood")],
        meshes: vec![b.finish("stack", None, turn_y(next() * PI))],
        ..MeshFile::default()
    }
}
