//! Quake 3 MDR performance target, measured with criterion: CPU skinning of 10,000 vertices with
//! 4 weights each, under 0.5 ms per frame on one core.
//!
//! - `mdr skin 10k×4`: `skin_positions_and_normals` alone (positions and normals);
//! - `mdr pose 10k×4`: a whole `Pose::evaluate` between two frames of a decoded file: bone
//!   blending, skinning, renormalised normals and the copy to render vertices;
//! - `mdr decode 10k×4`: decoding that file.
//!
//! Run: `cargo bench --bench mdr`

#[macro_use]
mod kept_heap;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group};
use glam::{Mat4, Vec3};
use mdview::formats::{self};
use mdview::scene::anim::{Pose, skin_positions_and_normals};
use mdview::writers::mdr::{FrameSpec, LodSpec, MdrFile, SurfaceSpec, VertexSpec, WeightSpec};

const VERTICES: usize = 10_000;
const WEIGHTS: usize = 4;
const BONES: usize = 32;

/// A 100x100 grid, each vertex weighted to 4 neighbouring bones of 32, two frames apart by a
/// turn and a shift of every bone.
fn heavy_file() -> Vec<u8> {
    let side = (VERTICES as f32).sqrt() as usize;
    let vertices = (0..VERTICES)
        .map(|i| {
            let (x, y) = ((i % side) as f32, (i / side) as f32);
            let weights = (0..WEIGHTS)
                .map(|k| WeightSpec {
                    bone: ((i / 7 + k * 5) % BONES) as i32,
                    weight: [0.4, 0.3, 0.2, 0.1][k],
                    offset: [x - k as f32, y + k as f32, (x * 0.1).sin()],
                })
                .collect();
            VertexSpec { normal: [0.0, 0.0, 1.0], tex_coords: [x / side as f32, y / side as f32], weights }
        })
        .collect();
    let triangles = (0..side - 1)
        .flat_map(|r| (0..side - 1).map(move |c| (r * side + c) as i32))
        .flat_map(|a| [[a, a + side as i32, a + 1], [a + 1, a + side as i32, a + side as i32 + 1]])
        .collect();
    let surface = SurfaceSpec { name: "grid".into(), shader: "grid".into(), vertices, triangles, ..Default::default() };
    let frame = |f: usize| FrameSpec {
        name: format!("move{f}"),
        bones: (0..BONES)
            .map(|b| {
                let (s, c) = (0.01 * (b + f * 3) as f32).sin_cos();
                [[c, -s, 0.0, b as f32], [s, c, 0.0, f as f32], [0.0, 0.0, 1.0, 0.5 * b as f32]]
            })
            .collect(),
    };
    MdrFile {
        name: "bench".into(),
        bone_count: BONES,
        frames: vec![frame(0), frame(1)],
        lods: vec![LodSpec { surfaces: vec![surface] }],
        ..Default::default()
    }
    .to_bytes()
}

fn skinning(c: &mut Criterion) {
    let bytes = heavy_file();
    let scene = formats::decode_bytes(&bytes).expect("bench file decodes");
    let skin = scene.meshes[0].skin.clone().expect("skinned");
    assert_eq!((skin.ranges.len(), skin.influences.len()), (VERTICES, VERTICES * WEIGHTS));
    let joints: Vec<Mat4> = scene.skeletons[0].rest_pose.clone();
    let mut positions = vec![Vec3::ZERO; VERTICES];
    let mut normals = vec![Vec3::ZERO; VERTICES];

    let mut group = c.benchmark_group("mdr");
    group.throughput(Throughput::Elements(VERTICES as u64));
    group.bench_function("skin 10k×4", |b| {
        b.iter(|| {
            skin_positions_and_normals(black_box(&skin), black_box(&joints), &mut positions, &mut normals);
            black_box(&positions);
        })
    });
    let mut pose = Pose::default();
    group.bench_function("pose 10k×4", |b| {
        b.iter(|| {
            pose.evaluate(black_box(&scene), Some(0), black_box(0.5));
            black_box(&pose.positions);
        })
    });
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode 10k×4", |b| {
        b.iter(|| formats::decode_bytes(black_box(&bytes)).map(|s| s.meshes.len()))
    });
    group.finish();
}

criterion_group!(benches, skinning);

main_with_kept_heap!(benches);
