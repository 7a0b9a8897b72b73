//! Quake II decode speed against assimp, measured in the same run: every corpus model decoded
//! with all of its frames, and expanded into per-frame render-vertex buffers (what the GPU
//! receives), next to the "import took" time `assimp info` prints for frame 0 only.
//!
//! Run: `cargo bench --bench quake2` (the assimp column needs `assimp-utils`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use mdview::formats::quake2;
use mdview::scene::{Channel, expand_positions};

fn corpus_models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md2");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten().map(|f| f.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2")))
        .filter(|p| !p.ends_with("malformed_zero_numvertices.md2"))
        .collect();
    out.sort();
    out
}

/// Every frame decoded into the scene: its 4-byte packed vertices (a GPU-ready vertex format,
/// Uint8x4) with scale and translate mapped into scene axes.
fn decode_only(bytes: &[u8]) -> usize {
    quake2::decode(bytes).map(|s| s.clips.len()).unwrap_or(0)
}

/// Decode plus every frame unpacked to f32 and expanded to render vertices (one buffer per
/// frame), the CPU path the viewer takes for the two frames it blends.
fn decode_all_frames(bytes: &[u8]) -> usize {
    let Ok(scene) = quake2::decode(bytes) else { return 0 };
    let mesh = &scene.meshes[0];
    let mut floats = 0;
    for clip in &scene.clips {
        for channel in &clip.channels {
            if let Channel::PackedFrames(packed) = channel {
                for f in 0..packed.transforms.len() {
                    let buffer = expand_positions(&packed.unpack(f), &mesh.vertex_source);
                    floats += black_box(buffer).len() * 3;
                }
            }
        }
    }
    floats
}

/// assimp's own "import took approx. X seconds", in milliseconds.
fn assimp_import_ms(path: &Path, raw: bool) -> Option<f64> {
    let mut cmd = Command::new("assimp");
    cmd.arg("info").arg(path);
    if raw {
        cmd.arg("-r");
    }
    let out = cmd.output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("import took"))?;
    let seconds: f64 = line.split_whitespace().find_map(|w| w.parse().ok())?;
    Some(seconds * 1000.0)
}

fn quake2_vs_assimp(c: &mut Criterion) {
    let models = corpus_models();
    if models.is_empty() {
        eprintln!("SKIP: no Quake II corpus beside the project");
        return;
    }
    println!(
        "{:<28} {:>10} {:>12} {:>12} {:>12} {:>8}",
        "file", "decode ms", "+expand ms", "assimp ms", "assimp -r ms", "ratio"
    );
    for path in &models {
        let bytes = std::fs::read(path).expect("read corpus file");
        // A quick in-run figure for the table; criterion below gives the careful one.
        let runs = 200;
        let time = |f: &dyn Fn(&[u8]) -> usize| {
            let started = Instant::now();
            for _ in 0..runs {
                black_box(f(&bytes));
            }
            started.elapsed().as_secs_f64() * 1000.0 / f64::from(runs)
        };
        let ours = time(&decode_only);
        let expanded = time(&decode_all_frames);
        let theirs = assimp_import_ms(path, false);
        let theirs_raw = assimp_import_ms(path, true);
        let name = format!(
            "{}/{}",
            path.parent().and_then(|p| p.file_name()).unwrap_or_default().to_string_lossy(),
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3}"));
        let ratio = theirs.map_or("n/a".to_string(), |t| format!("{:.0}x", t / ours));
        println!("{name:<28} {ours:>10.4} {expanded:>12.4} {:>12} {:>12} {ratio:>8}", show(theirs), show(theirs_raw));
    }
    let all: Vec<Vec<u8>> = models.iter().map(|p| std::fs::read(p).expect("read")).collect();
    c.bench_function("quake2 decode all frames, all 13 corpus models", |b| {
        b.iter(|| all.iter().map(|bytes| decode_only(bytes)).sum::<usize>())
    });
}

criterion_group!(benches, quake2_vs_assimp);
criterion_main!(benches);
