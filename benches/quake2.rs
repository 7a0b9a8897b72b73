//! Quake II decode speed, with criterion: every frame of a model decoded into the scene (its
//! packed records kept as a view of the file's bytes), per corpus model and for the whole
//! corpus, and for hunter the CPU path the viewer takes on top (every frame unpacked and
//! expanded to render vertices). The comparison with assimp, like for like and in one run, is
//! `python3 benches/peers/peers.py`; never compare these figures with `assimp info`'s cold
//! "import took".
//!
//! Run: `cargo bench --bench quake2 -- --warm-up-time 1 --measurement-time 3`

#[macro_use]
mod kept_heap;

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group};
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
                for f in 0..packed.frames.len() {
                    let buffer = expand_positions(&packed.unpack(f), &mesh.vertex_source);
                    floats += black_box(buffer).len() * 3;
                }
            }
        }
    }
    floats
}

fn label(path: &Path) -> String {
    format!(
        "{}/{}",
        path.parent().and_then(|p| p.file_name()).unwrap_or_default().to_string_lossy(),
        path.file_name().unwrap_or_default().to_string_lossy()
    )
}

fn quake2_decode(c: &mut Criterion) {
    let models = corpus_models();
    if models.is_empty() {
        eprintln!("SKIP: no Quake II corpus beside the project");
        return;
    }
    let all: Vec<(PathBuf, Vec<u8>)> = models.iter().map(|p| (p.clone(), std::fs::read(p).expect("read"))).collect();
    let mut group = c.benchmark_group("quake2_decode");
    for (path, bytes) in &all {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(label(path), |b| b.iter(|| decode_only(black_box(bytes))));
    }
    group.finish();
    if let Some((_, hunter)) = all.iter().find(|(p, _)| label(p) == "hunter/tris.md2") {
        c.bench_function("quake2 hunter decode + every frame expanded", |b| {
            b.iter(|| decode_all_frames(black_box(hunter)))
        });
    }
    c.bench_function(&format!("quake2 decode all frames, all {} corpus models", all.len()), |b| {
        b.iter(|| all.iter().map(|(_, bytes)| decode_only(bytes)).sum::<usize>())
    });
}

criterion_group!(benches, quake2_decode);

main_with_kept_heap!(benches);
