//! WoW M2 performance targets, measured with criterion:
//! - decoding `tank.m2` plus `tank00.skin` into a scene: under 1 ms;
//! - CPU skinning of 5,000 vertices with 4 weights each over 100 bones: under 0.3 ms per frame
//!   on one core (the whole `Pose::evaluate`: bone tracks, joint matrices and skinning).
//!
//! - building the scene of a character-shaped model (a real one is 1.4 MB: 5,465 vertices,
//!   140 bones, 147 sequences; none is in the corpus, so [`character_model`] makes records of
//!   that shape in memory): the target for opening one is under 5 ms.
//!
//! Run: `cargo bench --bench m2` (the tank part skips when the corpus is absent).

use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use glam::{Mat4, Quat, Vec2, Vec3};
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

/// Records shaped like a WotLK character: 140 bones in chains of 10, 147 sequences of 1 s; every
/// bone has 4 rotation keys in every sequence and every other bone 2 translation keys (about
/// 1.3 MB of keys in the file); 5,465 vertices on 4 bones each; one submesh and unit.
fn character_model() -> (mdview::formats::m2::model::M2Model, mdview::formats::m2::skin::Skin) {
    use mdview::formats::m2::model::{Bone, M2Model, Sequence, Vertex};
    use mdview::formats::m2::skin::{Skin, SkinSubmesh, TextureUnit};
    use mdview::formats::m2::tracks::{INTERP_LINEAR, Track};
    let (bones, sequences, vertices) = (140usize, 147usize, 5465usize);
    let curve = |n: usize, f: &dyn Fn(usize) -> Vec3| {
        Curve::linear((0..n).map(|k| Key { time: k as f32 * 300.0, value: f(k) }).collect())
    };
    let model = M2Model {
        version: 264,
        sequences: (0..sequences)
            .map(|i| Sequence {
                id: i as u16,
                variation: 0,
                duration_ms: 1000,
                move_speed: 0.0,
                flags: 0x20,
                frequency: 0,
                next_variation: -1,
                alias_next: 0,
            })
            .collect(),
        anim_present: vec![None; sequences],
        bones: (0..bones)
            .map(|b| Bone {
                key_bone_id: -1,
                flags: 0,
                parent: if b % 10 == 0 { -1 } else { b as i16 - 1 },
                submesh: 0,
                translation: Track {
                    interpolation: INTERP_LINEAR,
                    global_sequence: None,
                    global_period: 0,
                    sequences: (0..sequences)
                        .map(
                            |_| if b % 2 == 0 { curve(2, &|k| Vec3::splat(k as f32 * 0.01)) } else { Curve::default() },
                        )
                        .collect(),
                },
                rotation: Track {
                    interpolation: INTERP_LINEAR,
                    global_sequence: None,
                    global_period: 0,
                    sequences: (0..sequences)
                        .map(|s| {
                            Curve::linear(
                                (0..4)
                                    .map(|k| Key {
                                        time: k as f32 * 300.0,
                                        value: Quat::from_rotation_z((k + s) as f32 * 0.01),
                                    })
                                    .collect(),
                            )
                        })
                        .collect(),
                },
                scale: Track::default(),
                pivot: Vec3::new(0.0, 0.0, b as f32 * 0.01),
            })
            .collect(),
        vertices: (0..vertices)
            .map(|i| Vertex {
                position: Vec3::new((i % 70) as f32 * 0.01, 0.0, (i / 70) as f32 * 0.02),
                weights: [64, 64, 64, 63],
                bones: [(i % bones) as u8, ((i + 7) % bones) as u8, ((i + 13) % bones) as u8, ((i + 29) % bones) as u8],
                normal: Vec3::Z,
                uv: [0.0, 0.0],
            })
            .collect(),
        render_flags: vec![(0, 0)],
        texture_lookup: vec![0],
        transparency_lookup: vec![0],
        ..M2Model::default()
    };
    let triangles = vertices / 3;
    let skin = Skin {
        lookup: (0..vertices as u16).collect(),
        indices: (0..(triangles * 3) as u16).collect(),
        submeshes: vec![SkinSubmesh {
            id: 0,
            level: 0,
            vertex_start: 0,
            vertex_count: vertices as u16,
            index_start: 0,
            index_count: (triangles * 3) as u16,
            bone_count: bones as u16,
            center: [0.0; 3],
            offset: 0,
        }],
        units: vec![TextureUnit {
            flags: 0,
            priority: 0,
            shader_id: 0,
            submesh: 0,
            color: -1,
            render_flags: 0,
            layer: 0,
            texture_count: 1,
            texture_combo: 0,
            texcoord_combo: 0,
            weight_combo: 0,
            transform_combo: 0,
            offset: 0,
        }],
        bone_count_max: 4,
    };
    (model, skin)
}

fn build_character(c: &mut Criterion) {
    let (model, skin) = character_model();
    // `build` moves each sequence's keys out of the decoded model, so every run gets a fresh
    // copy of it, made outside the timing (as decoding makes it); the scene is freed outside
    // the timing too: freeing the old model is not part of opening the new one.
    c.bench_function("m2 build character-shaped scene (140 bones, 147 sequences, 5465 vertices)", |b| {
        b.iter_batched_ref(
            || model.clone(),
            |model| {
                mdview::formats::m2::build::build(black_box(model), Some(&skin), &BuildOptions::default(), 1_400_000)
            },
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, decode_tank, skinning, build_character);
criterion_main!(benches);
