//! Renderer benchmarks (run with `cargo bench --bench render`; they need a wgpu adapter, a
//! software one such as lavapipe included):
//!
//! - `render_process/20k_vertices_1280x720`: the whole `mdview render` process, from start to
//!   PNG written, on a generated 20,000-vertex TPW model. Target: under 1.5 s on lavapipe.
//! - `prepare/fountain_animated`: CPU time of [`Renderer::prepare`] per frame for the demo
//!   fountain while its morph + UV animation plays (camera, placements, morphed positions with
//!   recomputed normals, animated UVs). Target: under 0.2 ms.
//! - `prepare/fountain_evaluate_and_prepare`: the same plus evaluating the pose.

#[macro_use]
mod kept_heap;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use mdview::render::offscreen::HeadlessGpu;
use mdview::render::{Camera, ViewParams};
use mdview::scene::anim::Pose;
use mdview::writers::tpw::{MaterialSpec, MeshFile, MeshSpec, TextureSpec};

/// A wavy 150x134 grid (20,100 vertices, 39,454 triangles) with one texture, written as TPW.
fn write_20k_model(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("bench dir");
    let (columns, rows) = (150u16, 134u16);
    let mut vertices = Vec::new();
    let mut uvs = Vec::new();
    for row in 0..rows {
        for column in 0..columns {
            let (u, v) = (f32::from(column) / f32::from(columns - 1), f32::from(row) / f32::from(rows - 1));
            let height = (u * 12.0).sin() * (v * 9.0).cos() * 0.6;
            vertices.push([u * 20.0 - 10.0, height, v * 18.0 - 9.0]);
            uvs.push([u * 4.0, v * 4.0]);
        }
    }
    let mut faces = Vec::new();
    for row in 0..rows - 1 {
        for column in 0..columns - 1 {
            let a = row * columns + column;
            let (b, c, d) = (a + 1, a + columns, a + columns + 1);
            // Stored winding is the reverse of counter-clockwise (see the writer's doc).
            faces.push([a, b, c]);
            faces.push([b, d, c]);
        }
    }
    let count = vertices.len() as u16;
    let file = MeshFile {
        textures: vec![TextureSpec::opaque("bench_tile")],
        meshes: vec![MeshSpec {
            name: "terrain".into(),
            vertex_order: (0..count).collect(),
            vertices,
            uvs,
            faces,
            materials: vec![MaterialSpec { texture: Some(0), start: 0, end: count - 1 }],
            ..MeshSpec::default()
        }],
        ..MeshFile::default()
    };
    let path = dir.join("terrain.MD2");
    std::fs::write(&path, file.to_bytes()).expect("writing model");
    mdview::render::textures::fallback_tile().save(dir.join("bench_tile.png")).expect("writing texture");
    path
}

fn render_process(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("mdview-bench-render-{}", std::process::id()));
    let model = write_20k_model(&dir);
    let output = dir.join("shot.png");
    let binary = env!("CARGO_BIN_EXE_mdview");
    let mut group = c.benchmark_group("render_process");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("20k_vertices_1280x720", |b| {
        b.iter(|| {
            let status = Command::new(binary)
                .args(["render", &model.to_string_lossy(), "-o", &output.to_string_lossy(), "--size", "1280x720"])
                .status()
                .expect("running mdview");
            assert!(status.success(), "mdview render failed");
        })
    });
    group.finish();
    std::fs::remove_dir_all(&dir).ok();
}

fn prepare(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/fountain.MD2");
    let scene = mdview::formats::open(&path).expect("opening the demo fountain");
    let clip = mdview::scene::resolve_clip(&scene, "M1").expect("fountain has M1");
    let (start, end) = (scene.clips[clip].start, scene.clips[clip].end);
    let gpu = match HeadlessGpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("SKIPPED prepare benches: {e:#}");
            return;
        }
    };
    let mut renderer = gpu.renderer();
    renderer.load_scene(&scene);
    let view = ViewParams::new([1280, 720], Camera::framing(&scene.bounds(), 30.0, 20.0, 16.0 / 9.0));
    let mut pose = Pose::rest(&scene);
    let times: Vec<f32> = (0..64).map(|i| start + (end - start) * i as f32 / 63.0).collect();

    let mut group = c.benchmark_group("prepare");
    // Only prepare is timed; each frame is then submitted (untimed) so queued writes drain.
    group.bench_function("fountain_animated", |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for i in 0..iterations {
                pose.evaluate(&scene, Some(clip), times[i as usize % times.len()]);
                let started = Instant::now();
                renderer.prepare(&scene, &pose, &view);
                spent += started.elapsed();
                renderer.submit();
                if i % 16 == 15 {
                    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                }
            }
            spent
        })
    });
    group.bench_function("fountain_evaluate_and_prepare", |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for i in 0..iterations {
                let started = Instant::now();
                pose.evaluate(&scene, Some(clip), times[i as usize % times.len()]);
                renderer.prepare(&scene, &pose, &view);
                spent += started.elapsed();
                renderer.submit();
                if i % 16 == 15 {
                    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                }
            }
            spent
        })
    });
    group.finish();
}

criterion_group!(benches, render_process, prepare);

main_with_kept_heap!(benches);
