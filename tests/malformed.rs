//! The damage sweep: every fixture and every corpus file, truncated at every byte (strided for
//! large files) and with bits flipped across the file, must decode to Ok or a typed error,
//! quickly, without panicking; what decodes must also pose and export without panicking.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use mdview::formats;
use mdview::scene::anim::Pose;

/// No single decode of a damaged file may take longer than this.
const DECODE_LIMIT: Duration = Duration::from_secs(2);

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        ("island".to_string(), island().to_bytes()),
        ("island with anchors".to_string(), anchored_island().0.to_bytes()),
    ];
    out.push(("terrain".to_string(), terrain().to_bytes()));
    out.extend(anim_fixtures());
    // The built-in demo's model files (its PNG textures are not models).
    out.extend(mdview::demo::generate().into_iter().filter(|(name, _)| {
        let lower = name.to_lowercase();
        [".md2", ".mdr", ".m2", ".skin"].iter().any(|ext| lower.ends_with(ext))
    }));
    out.push(("quake2 writer".to_string(), quake2_fixture()));
    out.push(("mdr arm".to_string(), mdview::writers::mdr::arm(false).to_bytes()));
    out.push(("mdr arm compressed".to_string(), mdview::writers::mdr::arm(true).to_bytes()));
    out
}

/// Animation fixtures from the animation tests' builders: the rig and its every-channel clip.
fn anim_fixtures() -> Vec<(String, Vec<u8>)> {
    let (rig, anim) = every_channel();
    let (_, morph) = anchored_island();
    vec![
        ("rig".to_string(), rig.to_bytes()),
        ("every channel".to_string(), anim.to_bytes()),
        ("island morph".to_string(), morph.to_bytes()),
    ]
}

/// A small Quake II model from the fixture writer: two frames, a skin, two triangles.
fn quake2_fixture() -> Vec<u8> {
    use mdview::writers::quake2::*;
    let frame = |name: &str| FrameSpec {
        name: name.into(),
        scale: [0.5, 0.25, 1.0],
        translate: [-8.0, 3.0, 0.5],
        vertices: vec![[1, 2, 3, 4], [200, 0, 9, 161], [7, 255, 3, 0], [9, 9, 9, 9]],
    };
    Md2Spec {
        skin_width: 32,
        skin_height: 16,
        skins: vec!["models/a/skin.pcx".into()],
        st: vec![[0, 0], [32, 0], [32, 16]],
        triangles: vec![([0, 1, 2], [0, 1, 2]), ([0, 2, 3], [2, 1, 0])],
        frames: vec![frame("run1"), frame("run2")],
    }
    .to_bytes()
}

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| ["md2", "mdr", "m2", "skin"].iter().any(|x| e.eq_ignore_ascii_case(x)))
            {
                out.push(path);
            }
        }
    }
    if out.is_empty() {
        eprintln!("SKIP corpus part of the damage sweep: no model files under {}", root.display());
    }
    out.sort();
    out
}

/// Decodes `bytes`; anything that decodes is posed and summarised (and, for every `export_every`
/// variant, exported; to glTF every `gltf` one), to prove the downstream code copes with whatever the decoder let through.
fn exercise(label: &str, bytes: &[u8], export: bool, gltf: bool) {
    let started = Instant::now();
    let result = formats::decode_bytes(bytes);
    let elapsed = started.elapsed();
    assert!(elapsed < DECODE_LIMIT, "{label}: decode took {elapsed:?}");
    if let Ok(scene) = result {
        let mut pose = Pose::default();
        for clip in 0..scene.clips.len().min(2) {
            let (start, end) = scene.clips.get(clip).map_or((0.0, 0.0), |c| (c.start, c.end));
            for time in [start, (start + end) * 0.5 + 0.25, 1e9] {
                pose.evaluate(&scene, Some(clip), time);
            }
        }
        if export {
            let _ = mdview::export::obj::to_obj(&scene, &pose, "x.mtl");
            if gltf {
                // Every clip of the whole file: heavier than OBJ, so on fewer variants.
                let _ = mdview::export::gltf::build(&scene);
            }
        }
        let _ = mdview::info::Summary::of(&scene).to_text();
    }
}

/// Truncation lengths: every byte for small files, else every byte of the first 4 KiB and
/// about 1,500 evenly spread cuts after it.
fn cut_points(len: usize) -> Vec<usize> {
    if len <= 16 * 1024 {
        return (0..len).collect();
    }
    let stride = (len / 1500).max(1);
    (0..4096).chain((4096..len).step_by(stride)).collect()
}

fn sweep(label: &str, bytes: &[u8]) {
    let mut variant = 0usize;
    let mut run = |what: String, data: &[u8]| {
        variant += 1;
        // glTF builds every clip of the file, seconds each for big corpus models in this
        // profile, so it runs on the fixtures' variants only.
        exercise(&what, data, variant.is_multiple_of(16), bytes.len() <= 16 * 1024 && variant.is_multiple_of(8));
    };
    for cut in cut_points(bytes.len()) {
        run(format!("{label} cut at {cut}"), &bytes[..cut]);
    }
    // Bit flips at a spread of offsets: every byte of the first 256 (headers), then ~300 more.
    let mut offsets: Vec<usize> = (0..bytes.len().min(256)).collect();
    offsets.extend((256..bytes.len()).step_by((bytes.len() / 300).max(1)));
    let mut damaged = bytes.to_vec();
    for (i, &offset) in offsets.iter().enumerate() {
        for bit in [i % 8, 7 - i % 8] {
            damaged[offset] ^= 1 << bit;
            run(format!("{label} bit {bit} at {offset:#x}"), &damaged);
            damaged[offset] ^= 1 << bit;
        }
    }
    // Whole words set to extremes at every aligned offset of the header region.
    for offset in (0..bytes.len().min(256)).step_by(2) {
        for value in [0xFFFFu16, 0x8000, 0] {
            let mut d = bytes.to_vec();
            d[offset..(offset + 2).min(bytes.len())]
                .copy_from_slice(&value.to_le_bytes()[..(bytes.len() - offset).min(2)]);
            run(format!("{label} u16 {value:#x} at {offset:#x}"), &d);
        }
    }
}

#[test]
fn fixtures_survive_truncation_and_bit_flips() {
    for (name, bytes) in fixtures() {
        sweep(&name, &bytes);
    }
}

#[test]
fn corpus_survives_truncation_and_bit_flips() {
    for path in corpus_files() {
        let bytes = std::fs::read(&path).expect("read corpus file");
        sweep(&path.display().to_string(), &bytes);
    }
}
