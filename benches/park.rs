//! Park benchmarks (#45), on a synthetic park of 520 placed items over 60 distinct models on
//! the full 128 × 128 map (`mdview::writers::park_synthetic`, written into a temp folder once
//! per run):
//!
//! - `park/open`: opening the save as one scene (`mdview::formats::open`), every model decoded
//!   once, in parallel. Target: under 1 s.
//! - `park/pose`: evaluating every item's pose for one frame (`Pose::evaluate` of all layers,
//!   into a reused pose). Target: under 4 ms.
//! - `park/draw_1920x1080`: drawing one frame offscreen and waiting for the GPU, where an
//!   adapter exists (lavapipe is a CPU rasteriser: the figure is reported, not targeted).
//! - `park/prepare`: the CPU half of that frame ([`mdview::render::Renderer::prepare`]).
//! - `park_unshared/…`: the same two with the scene's copy marks cleared, so every mesh has
//!   buffers of its own and a draw of its own: what instancing saves.
//!
//! Run: `cargo bench --bench park`. With `MDVIEW_PARK_OUT=DIR` set it only writes the park
//! under DIR (the save is `DIR/data/levels/jungle/synthetic.TPWS`), for timing the viewer on it.

#[macro_use]
mod kept_heap;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use mdview::render::offscreen::HeadlessGpu;
use mdview::render::{Camera, ViewParams};
use mdview::scene::Scene;
use mdview::scene::anim::Pose;

/// Distinct item models and placements of the benchmark park.
const MODELS: usize = 60;
const PLACED: usize = 520;

fn write_park() -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("mdview-bench-park-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let save = mdview::writers::park_synthetic::write_synthetic_park(&root, MODELS, PLACED).expect("writing the park");
    (root, save)
}

fn open_park(save: &std::path::Path) -> Scene {
    let scene = mdview::formats::open(save).expect("opening the park");
    let placed = scene.parts.iter().filter(|p| p.group != "ground").count();
    assert!(placed >= 500, "the park places {placed} items");
    scene
}

fn park(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("MDVIEW_PARK_OUT") {
        let save = mdview::writers::park_synthetic::write_synthetic_park(std::path::Path::new(&dir), MODELS, PLACED)
            .expect("writing the park");
        eprintln!("wrote {}", save.display());
        return;
    }
    let (root, save) = write_park();
    let scene = open_park(&save);
    eprintln!(
        "park: {} parts, {} meshes ({} copies), {} nodes, {} layers, {} images",
        scene.parts.len(),
        scene.meshes.len(),
        scene.mesh_copies.iter().flatten().count(),
        scene.nodes.len(),
        scene.layers.len(),
        scene.images.len()
    );

    let mut group = c.benchmark_group("park");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.bench_function("open", |b| b.iter(|| black_box(mdview::formats::open(&save).expect("opening"))));
    group.finish();

    let mut group = c.benchmark_group("park");
    let mut pose = Pose::at(&scene, None, 0.0);
    let mut second = 0u32;
    group.bench_function("pose", |b| {
        b.iter(|| {
            // A new time each frame, a thirtieth of a second on.
            second = second.wrapping_add(1);
            pose.evaluate(&scene, None, (second % 3000) as f32 / 30.0);
            black_box(&pose);
        })
    });
    group.finish();

    draw(c, "park", &scene);
    let mut unshared = scene.clone();
    unshared.mesh_copies.clear();
    draw(c, "park_unshared", &unshared);
    std::fs::remove_dir_all(&root).ok();
}

fn draw(c: &mut Criterion, name: &str, scene: &Scene) {
    let gpu = match HeadlessGpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("SKIPPED park draw benches: {e:#}");
            return;
        }
    };
    eprintln!("park draw on {}", gpu.adapter_name());
    let mut renderer = gpu.renderer();
    let started = Instant::now();
    renderer.load_scene(scene);
    eprintln!("{name} load_scene: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
    let size = [1920, 1080];
    let camera = Camera::framing(&scene.bounds(), 30.0, 35.0, size[0] as f32 / size[1] as f32);
    let view = ViewParams::new(size, camera);
    let mut pose = Pose::at(scene, None, 0.0);
    renderer.prepare(scene, &pose, &view);
    eprintln!("{name} frame: {:?}", renderer.draw_stats());
    let mut frame = 0u32;

    let mut group = c.benchmark_group(name);
    group.bench_function("prepare", |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for i in 0..iterations {
                frame = frame.wrapping_add(1);
                pose.evaluate(scene, None, (frame % 3000) as f32 / 30.0);
                let started = Instant::now();
                renderer.prepare(scene, &pose, &view);
                spent += started.elapsed();
                renderer.submit();
                if i % 8 == 7 {
                    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                }
            }
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            spent
        })
    });
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("draw_1920x1080", |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            pose.evaluate(scene, None, (frame % 3000) as f32 / 30.0);
            renderer.draw(scene, &pose, &view);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        })
    });
    group.finish();
}

criterion_group!(benches, park);

main_with_kept_heap!(benches);
