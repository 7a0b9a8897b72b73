//! Entry points shared by the coverage-guided fuzz targets (`fuzz/`) and the regression replay
//! (`tests/regressions.rs`): one function per decoder entry point. Each decodes the input and,
//! when it decodes, poses every clip at its start, middle and end and writes OBJ and glTF to memory, so
//! that a fuzzer reaches the code a user's file reaches. A decode error is a normal outcome;
//! only a panic, a hang or an allocation past [`allocation_limit`] is a failure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::export::{gltf, obj};
use crate::formats::{self, m2, md3, mdl, mdr, quake2, tpw, wad, wct};
use crate::scene::Scene;
use crate::scene::anim::Pose;

/// The most a decode of `input_len` bytes may allocate in total: the decoders' own budget
/// ([`crate::formats::reader::allocation_budget`]), which the fuzz targets measure every decode
/// against with a counting allocator.
pub fn allocation_limit(input_len: usize) -> usize {
    crate::formats::reader::allocation_budget(input_len)
}

/// A global allocator that counts live heap bytes and their peak, so that a fuzz target or the
/// regression replay can hold a run to [`allocation_limit`]: install it with
/// `#[global_allocator] static A: CountingAllocator = CountingAllocator;` and call [`run_checked`].
pub struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed).saturating_add(by);
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call forwards to the system allocator unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let out = unsafe { System.realloc(ptr, layout, new_size) };
        if !out.is_null() {
            match new_size.checked_sub(layout.size()) {
                Some(more) => grew(more),
                None => {
                    LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
                }
            }
        }
        out
    }
}

/// Runs `data` through the entry point `name` and reports an error when the heap it held at
/// its peak went past [`allocation_limit`] of the input. Meaningful only in a process whose
/// global allocator is [`CountingAllocator`] (elsewhere the peak reads 0).
pub fn run_checked(name: &str, data: &[u8]) -> Result<(), String> {
    let target = TARGETS.iter().find(|t| t.name == name).ok_or_else(|| format!("no fuzz entry point named {name}"))?;
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    (target.run)(data);
    let used = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    let limit = allocation_limit(data.len());
    if used > limit {
        return Err(format!("{name}: {used} bytes live at peak for a {}-byte input (limit {limit})", data.len()));
    }
    Ok(())
}

/// One fuzzable entry point: its name (also the fuzz target's and the regression folder's) and
/// the function that runs one input through it.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every entry point, in the order the fuzz crate lists them.
pub const TARGETS: &[Target] = &[
    Target { name: "tpw_mesh", run: tpw_mesh },
    Target { name: "tpw_anim", run: tpw_anim },
    Target { name: "quake2", run: quake2_md2 },
    Target { name: "mdr", run: quake3_mdr },
    Target { name: "md3", run: quake3_md3 },
    Target { name: "mdl", run: quake1_mdl },
    Target { name: "m2_skin", run: m2_with_skin },
    Target { name: "blp", run: blp },
    Target { name: "pcx", run: pcx },
    Target { name: "wad", run: wad_archive },
    Target { name: "wct", run: wct_texture },
    Target { name: "park_save", run: park_save },
    Target { name: "sam", run: sam_text },
    Target { name: "tct", run: tct_text },
];

/// A TPW mesh file (or an animation file on its own).
pub fn tpw_mesh(data: &[u8]) {
    if let Ok(scene) = tpw::decode(data) {
        exercise(scene);
    }
}

/// A TPW animation file bound to a fixed mesh ([`anim_base_mesh`]), so that binding reaches
/// every channel kind.
pub fn tpw_anim(data: &[u8]) {
    let Ok(mut model) = tpw::decode_model(&anim_base_mesh()) else { return };
    if let Ok(tpw::TpwFile::Anim { anim, .. }) = tpw::decode_file(data) {
        let clip = tpw::anim::bind(&anim, Some(&model), "fuzz", None);
        model.scene.clips.push(clip);
        exercise(model.scene);
    }
}

/// The mesh every fuzzed animation binds to: three meshes of eight vertices each in a chain, a
/// transform-only path node under them and its follower: targets for every channel kind.
pub fn anim_base_mesh() -> Vec<u8> {
    use crate::writers::tpw::{DummySpec, MaterialSpec, MeshFile, MeshSpec, PathSpec};
    const IDENTITY: [f32; 16] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    let mesh = |index: usize| {
        let vertices: Vec<[f32; 3]> =
            (0..8u8).map(|i| [f32::from(i & 1), f32::from((i >> 1) & 1), f32::from(i >> 2)]).collect();
        MeshSpec {
            name: format!("part{index}"),
            parent: index.checked_sub(1),
            matrix: [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., index as f32, 0., 1.],
            uvs: (0..8u8).map(|i| [f32::from(i) * 0.125, 0.5]).collect(),
            vertex_order: (0..8).collect(),
            faces: (0..6).map(|i| [0, i + 1, i + 2]).collect(),
            materials: vec![MaterialSpec { texture: None, start: 0, end: 7 }],
            vertices,
            ..Default::default()
        }
    };
    // The pivot is a path node (path 0) and the rider follows it, so path progress binds too.
    let pivot = DummySpec { name: "pivot".into(), parent: Some(2), matrix: IDENTITY, flags: 0, path: Some(0) };
    let rider = DummySpec { name: "rider".into(), parent: Some(3), matrix: IDENTITY, flags: 0, path: None };
    let path = PathSpec { kind: 0x3, points: (0..6u8).map(|i| [f32::from(i), 0.0, f32::from(i % 2)]).collect() };
    MeshFile {
        meshes: (0..3).map(mesh).collect(),
        dummies: vec![pivot, rider],
        paths: vec![path],
        ..Default::default()
    }
    .to_bytes()
}

pub fn quake2_md2(data: &[u8]) {
    if let Ok(scene) = quake2::decode(data) {
        exercise(scene);
    }
}

pub fn quake3_mdr(data: &[u8]) {
    if let Ok(scene) = mdr::decode(data) {
        exercise(scene);
    }
}

pub fn quake3_md3(data: &[u8]) {
    if let Ok(scene) = md3::decode(data) {
        exercise(scene);
    }
}

/// A Quake `.mdl`; its skins are decoded too, as drawing it would.
pub fn quake1_mdl(data: &[u8]) {
    if let Ok(scene) = mdl::decode(data) {
        for image in &scene.images {
            let _ = image.load();
        }
        exercise(scene);
    }
}

/// A `.m2` and one `.skin`: the first four bytes (little-endian) give the length of the `.m2`
/// part, the rest after it is the `.skin`; without a usable split the whole input is the `.m2`.
pub fn m2_with_skin(data: &[u8]) {
    let (model, skin) = split_m2_skin(data);
    let scene = match skin {
        Some(skin) => m2::decode_with_skin(model, skin, &m2::build::BuildOptions::default()),
        None => m2::decode(model),
    };
    if let Ok(scene) = scene {
        exercise(scene);
    }
}

/// Joins a `.m2` and a `.skin` into one fuzz input (see [`m2_with_skin`]).
pub fn join_m2_skin(model: &[u8], skin: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + model.len() + skin.len());
    out.extend_from_slice(&u32::try_from(model.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(model);
    out.extend_from_slice(skin);
    out
}

fn split_m2_skin(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    let Some((head, rest)) = data.split_first_chunk::<4>() else { return (data, None) };
    let len = u32::from_le_bytes(*head) as usize;
    match (rest.get(..len), rest.get(len..)) {
        (Some(model), Some(skin)) => (model, Some(skin)),
        _ => (data, None),
    }
}

pub fn blp(data: &[u8]) {
    let _ = m2::blp::decode(data);
}

pub fn pcx(data: &[u8]) {
    let _ = quake2::pcx::decode(data);
}

/// A `.wad` archive: its index, then every member as extraction reads it; members that decode
/// as textures or models go on through their decoders as an open from the archive would.
pub fn wad_archive(data: &[u8]) {
    let Ok(index) = wad::read_index(data) else { return };
    for entry in &index.entries {
        let Ok(bytes) = wad::read_entry(data, entry) else { continue };
        if wct::looks_like_wct(&bytes) {
            let _ = wct::decode(&bytes);
        } else if let Ok(scene) = formats::decode_bytes(&bytes) {
            exercise(scene);
        }
    }
}

pub fn wct_texture(data: &[u8]) {
    let _ = wct::decode(data);
}

/// A park save, or (without the container's magic) the inflated payload alone, so that the
/// fuzzer reaches the module walk without making zlib streams; read with the fixture install's
/// channel counts, assembled into a park, summarised as `info` prints it, and built into a
/// scene that must validate and pose.
pub fn park_save(data: &[u8]) {
    use crate::formats::park;
    static CATALOGUE: std::sync::OnceLock<park::Catalogue> = std::sync::OnceLock::new();
    let catalogue = CATALOGUE.get_or_init(crate::writers::park::fixture_catalogue);
    let counts = |id| catalogue.channel_count(id);
    let save =
        if park::is_save(data) { park::read_save_with(data, &counts) } else { park::read_payload(data, &counts) };
    if let Ok(save) = save {
        let assembled = park::Park::assemble(save, catalogue, None);
        let _ = crate::info::ParkSummary::of(&assembled).to_text();
        // Built into a scene (no install: a placeholder ground and boxes), which must be sound.
        let mut scene = park::park_scene(&assembled);
        if let Err(violation) = scene.validate() {
            panic!("park scene unsound: {} {}", violation.location, violation.problem);
        }
        let _ = crate::scene::anim::Pose::at(&scene, None, 0.5);
    }
}

/// `.sam` text: parsed, laid over a category, its shape read and its catalogue entry made.
pub fn sam_text(data: &[u8]) {
    use crate::formats::park::catalogue::{ItemKind, entry_from_sam};
    use crate::formats::park::sam::{Sam, parse_shape};
    let item = Sam::parse(&String::from_utf8_lossy(data));
    let category = Sam::parse("Info.NumSimultAnims 1\nInfo.Shape\n---\n*\n---\n");
    if let Some(block) = item.block("Info.Shape") {
        let _ = parse_shape(block);
    }
    let _ = entry_from_sam(&item, &category, "jungle", ItemKind::Ride, "item.wad".into(), "item");
}

/// A theme's `.tct` text: parsed, every PathTex row looked up and named as its `.wct`.
pub fn tct_text(data: &[u8]) {
    use crate::formats::park::ground::tct::{PATH_SECTION, TextureTable, wct_name};
    let table = TextureTable::parse(data);
    for index in 0..32 {
        if let Some(name) = table.row(PATH_SECTION, index) {
            let _ = wct_name(name);
        }
    }
}

/// What a user's open does with a decoded file: validate the scene (as `formats::open_with`
/// does), then pose every clip at three times and export it: OBJ of one pose, and glTF (GLB)
/// with every clip.
fn exercise(mut scene: Scene) {
    if scene.validate().is_err() {
        return;
    }
    let scene = &scene;
    let mut pose = Pose::default();
    for (index, clip) in scene.clips.iter().enumerate() {
        for time in [clip.start, (clip.start + clip.end) * 0.5, clip.end] {
            pose.evaluate(scene, Some(index), time);
        }
    }
    pose.evaluate(scene, None, 0.0);
    let _ = obj::to_obj(scene, &pose, "fuzz.mtl");
    if let Ok(document) = gltf::build(scene) {
        let _ = gltf::to_glb(&document);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m2_split_round_trips() {
        let joined = join_m2_skin(b"MD20abc", b"SKINxy");
        assert_eq!(split_m2_skin(&joined), (&b"MD20abc"[..], Some(&b"SKINxy"[..])));
        assert_eq!(split_m2_skin(b"MD2"), (&b"MD2"[..], None));
        // A declared length past the end keeps the whole input as the model.
        assert_eq!(split_m2_skin(&[9, 0, 0, 0, 1]), (&[9, 0, 0, 0, 1][..], None));
    }

    #[test]
    fn every_target_survives_empty_and_garbage_input() {
        for target in TARGETS {
            (target.run)(&[]);
            (target.run)(&[0xFF; 64]);
        }
    }

    #[test]
    fn limit_grows_with_the_input() {
        assert!(allocation_limit(1000) > allocation_limit(10));
        assert_eq!(allocation_limit(usize::MAX), usize::MAX);
    }
}
