//! WoW M2 performance targets, measured with criterion:
//! - decoding `tank.m2` plus `tank00.skin` into a scene: under 1 ms;
//! - CPU skinning of 5,000 vertices with 4 weights each over 100 bones: under 0.3 ms per frame
//!   on one core (the whole `Pose::evaluate`: bone tracks, joint matrices and skinning).
//!
//! - building the scene of a character-shaped model (a real one is 1.4 MB: 5,465 vertices,
//!   140 bones, 147 sequences; none is in the corpus, so [`character_model`] makes records of
//!   that shape in memory): the target for opening one is under 5 ms;
//! - opening those records from the `.m2` + `.skin` bytes that `m2_models::encode` writes
//!   (decode and build; the synthetic file is 2.3 MB, heavier than the real 1.4 MB).
//!
//! Run: `cargo bench --bench m2` (the tank part skips when the corpus is absent).

#[macro_use]
mod kept_heap;

mod m2_models;

use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group};
use glam::{Mat4, Quat, Vec2, Vec3};
use m2_models::character_model;
use mdview::formats::m2::{BuildOptions, decode_with_skin};
use mdview::scene::anim::Pose;
use mdview::scene::{
    Aabb, Channel, Clip, Curve, FormatKind, Influence, Joint, JointTracks, Key, Mesh, Node, NodeKind, Scene, SceneKind,
    Skeleton, SkinWeights, Submesh,
};

fn decode_tank(c: &mut Criterion) {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/m2/tank"));
    let (Ok(m2), Ok(skin)) = (std::fs::read(dir.join("tank.m2")), std::fs::read(dir.join("tank00.skin"))) else {
        eprintln!("SKIP: tank corpus files absent under {}", dir.display());
        return;
    };
    c.bench_function("m2 decode tank.m2 + tank00.skin", |b| {
        b.iter(|| decode_with_skin(black_box(&m2), black_box(&skin), &BuildOptions::default()).map(|s| s.meshes.len()))
    });
}

/// 100 bones in a chain, each with 10 rotation and translation keys; 5,000 vertices with four
/// influences each on different bones.
fn skinning_scene() -> Scene {
    let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
    let bones: usize = 100;
    let joints = (0..bones)
        .map(|i| Joint {
            name: format!("b{i}"),
            parent: i.checked_sub(1),
            pivot: Vec3::new(0.0, i as f32 * 0.1, 0.0),
            billboard: false,
        })
        .collect();
    scene.skeletons.push(Skeleton { name: "s".into(), joints, ..Default::default() });
    let tracks = (0..bones)
        .map(|joint| JointTracks {
            joint,
            rotation: Curve::linear(
                (0..10)
                    .map(|k| Key {
                        time: k as f32 * 100.0,
                        value: Quat::from_rotation_z(k as f32 * 0.01 * joint as f32),
                    })
                    .collect(),
            ),
            translation: Curve::linear(
                (0..10).map(|k| Key { time: k as f32 * 100.0, value: Vec3::splat(k as f32 * 0.001) }).collect(),
            ),
            ..Default::default()
        })
        .collect();
    scene.clips.push(Clip {
        name: "c".into(),
        source: None,
        start: 0.0,
        end: 1000.0,
        rate: 1000.0,
        channels: vec![Channel::BoneTracks { skeleton: 0, joints: tracks }],
        tracks: Vec::new(),
        warnings: Vec::new(),
    });
    let n = 5000u32;
    let positions: Vec<Vec3> = (0..n).map(|i| Vec3::new((i % 70) as f32 * 0.01, (i / 70) as f32 * 0.14, 0.0)).collect();
    let mut influences = Vec::new();
    let mut ranges = Vec::new();
    for (i, p) in positions.iter().enumerate() {
        ranges.push((influences.len() as u32, 4));
        for k in 0..4u32 {
            influences.push(Influence {
                joint: (i as u32 / 50 + k * 7) % bones as u32,
                weight: 0.25,
                offset: *p,
                normal: Vec3::Z,
            });
        }
    }
    let triangles: Vec<[u32; 3]> = (0..n - 2).step_by(3).map(|i| [i, i + 1, i + 2]).collect();
    let mut node = Node::new("m", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(0);
    scene.nodes.push(node);
    scene.meshes.push(Mesh {
        name: "m".into(),
        node: Some(0),
        bounds: Aabb::from_points(&positions),
        vertex_source: (0..n).collect(),
        uvs: vec![Vec2::ZERO; n as usize],
        uvs1: Vec::new(),
        normals: vec![Vec3::Z; n as usize],
        submeshes: vec![Submesh {
            material: None,
            first_triangle: 0,
            triangle_count: triangles.len() as u32,
            vertex_start: 0,
            vertex_end: n - 1,
        }],
        triangles,
        source_positions: positions,
        skin: Some(SkinWeights { skeleton: 0, ranges, influences }),
        raw: Vec::new(),
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    });
    scene
}

fn skinning(c: &mut Criterion) {
    let scene = skinning_scene();
    let mut pose = Pose::default();
    let mut t = 0.0f32;
    c.bench_function("m2 skin 5000 vertices x 4 weights, 100 bones (Pose::evaluate)", |b| {
        b.iter(|| {
            t = (t + 16.7) % 1000.0;
            pose.evaluate(black_box(&scene), Some(0), t);
            black_box(pose.positions.first().map(|p| p.as_ref().map(Vec::len)));
        })
    });
}

fn build_character(c: &mut Criterion) {
    let (model, skin) = character_model();
    // The scene is freed outside the timing: freeing the old model is not part of opening
    // the new one.
    c.bench_function("m2 build character-shaped scene (140 bones, 147 sequences, 5465 vertices)", |b| {
        b.iter_with_large_drop(|| {
            mdview::formats::m2::build::build(black_box(&model), Some(&skin), &BuildOptions::default(), 1_400_000)
        })
    });
}

/// The same records written as `.m2` + `.skin` bytes and opened from them (decode and build),
/// as opening a real character file is.
fn open_character_file(c: &mut Criterion) {
    let (model, skin) = character_model();
    let (m2, skin) = m2_models::encode(&model, &skin);
    c.bench_function("m2 open character-shaped file (2.3 MB .m2 + .skin)", |b| {
        b.iter_batched(
            || (),
            |()| decode_with_skin(black_box(&m2), black_box(&skin), &BuildOptions::default()),
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, decode_tank, skinning, build_character, open_character_file);

main_with_kept_heap!(benches);
