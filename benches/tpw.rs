//! TPW performance targets, measured with criterion:
//! - decode of a large synthetic model (30 meshes, 20,000 vertices, a 30-node tree):
//!   under 2 ms and at least 200 MB/s;
//! - evaluation of the heaviest fixture clip, every channel kind at once (31 nodes, a
//!   3,561-channel morph, eased rotation, scale, position, visibility, multi-key UV, raw frames,
//!   path progress): under 50 µs per frame;
//! - `scan` of 2,300 files of about 50 KB each: under 1 s warm.
//!
//! Run: `cargo bench --bench tpw`

#[macro_use]
mod kept_heap;

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group};
use mdview::formats::tpw;
use mdview::scene::anim::Pose;
use mdview::writers::tpw::*;

/// A grid mesh of about `vertices` vertices, with a vertex-order table that duplicates the
/// seam column (as UV seams do in real art).
fn grid_mesh(name: &str, parent: Option<usize>, matrix: [f32; 16], vertices: usize) -> MeshSpec {
    let side = (vertices as f32).sqrt().ceil() as usize;
    let rows = vertices.div_ceil(side);
    let verts: Vec<[f32; 3]> = (0..vertices)
        .map(|i| {
            let (x, z) = ((i % side) as f32, (i / side) as f32);
            [x, (x * 0.3).sin() + (z * 0.2).cos(), z]
        })
        .collect();
    let mut order: Vec<u16> = (0..vertices as u16).collect();
    order.extend((0..rows).map(|r| (r * side) as u16).filter(|&v| usize::from(v) < vertices));
    let uvs = order
        .iter()
        .map(|&v| [f32::from(v % side as u16) / side as f32, f32::from(v / side as u16) / rows as f32])
        .collect();
    let mut faces = Vec::new();
    for r in 0..rows.saturating_sub(1) {
        for c in 0..side - 1 {
            let a = r * side + c;
            let (b, d, e) = (a + 1, a + side, a + side + 1);
            if e < vertices {
                faces.push([a as u16, b as u16, e as u16]);
                faces.push([a as u16, e as u16, d as u16]);
            }
        }
    }
    let end = order.len() as u16 - 1;
    MeshSpec {
        name: name.into(),
        parent,
        matrix,
        vertices: verts,
        vertex_order: order,
        uvs,
        faces,
        materials: vec![
            MaterialSpec { texture: Some(0), start: 0, end: end / 2 },
            MaterialSpec { texture: Some(1), start: end / 2 + 1, end },
        ],
        ..Default::default()
    }
}

/// 30 meshes, 20,010 vertices, each mesh the child of the previous one or of the root.
fn large_model() -> MeshFile {
    let meshes = (0..30)
        .map(|i| {
            let parent = if i == 0 { None } else { Some(i / 2) };
            grid_mesh(&format!("mesh{i:02}"), parent, translation(i as f32, 0.0, 0.0), 667)
        })
        .collect();
    MeshFile {
        textures: vec![TextureSpec::opaque("ground.wct"), TextureSpec::see_through("leaves.wct")],
        meshes,
        ..Default::default()
    }
}

/// 25 meshes + 6 dummies = 31 nodes; mesh 0 has 3,559 vertices so its morph has 3,561 channels.
/// Every channel kind plays at once: the morph (in its own box), eased rotation, scale, Bezier
/// position and visibility on the 4 joints, five-key UVs on part 1 (47 slots), raw vertex frames
/// on part 2, and path progress with facing on `rider` along the closed Bezier path of `rail`.
fn heavy_animated() -> (MeshFile, AnimFile) {
    let mut meshes = vec![grid_mesh("body", None, IDENTITY, 3559)];
    meshes
        .extend((1..25).map(|i| grid_mesh(&format!("part{i}"), Some(25 + i % 4), translation(0.0, i as f32, 0.0), 40)));
    let mut dummies: Vec<DummySpec> = (0..4)
        .map(|i| DummySpec {
            name: format!("joint{i}"),
            parent: Some(0),
            matrix: translation(i as f32, 0.0, 0.0),
            ..Default::default()
        })
        .collect();
    dummies.push(DummySpec { name: "rail".into(), parent: Some(0), path: Some(0), ..Default::default() });
    dummies.push(DummySpec { name: "rider".into(), parent: Some(29), ..Default::default() });
    let ring: Vec<[f32; 3]> = (0..12)
        .map(|k| {
            let a = k as f32 * std::f32::consts::TAU / 12.0;
            [10.0 * a.cos(), 0.0, 10.0 * a.sin()]
        })
        .collect();
    let model = MeshFile {
        textures: vec![TextureSpec::opaque("a.wct"), TextureSpec::opaque("b.wct")],
        meshes,
        dummies,
        paths: vec![PathSpec { kind: 0x3, points: ring }],
        ..Default::default()
    };
    let (centre, step) = morph_box([-1.0, -2.0, -1.0], [60.0, 3.0, 60.0]);
    // 3,561 channels in 12 records of 5 keyframes each.
    let channels: Vec<u16> = (0..3561).collect();
    let records = channels
        .chunks(300)
        .map(|ids| MorphRecordSpec {
            channels: ids.to_vec(),
            frames: vec![0, 25, 50, 75, 100],
            values: (0..5)
                .flat_map(|e| {
                    ids.iter()
                        .map(move |&k| pack_morph([f32::from(k % 60), e as f32 * 0.5, f32::from(k / 60)], centre, step))
                })
                .collect(),
        })
        .collect();
    let morph = MorphSpec { flags: 1, centre, step, records };
    let mut tracks = vec![TrackSpec { target: 0, morph: Some(morph), ..Default::default() }];
    tracks.extend((25..29).map(|target| {
        TrackSpec {
            target,
            rotation: (0..11)
                .map(|k| RotationKeySpec {
                    frame: k * 10,
                    curve: if k < 10 { k % 3 } else { 0xFFFF },
                    quat: quat_y(f32::from(k) * 0.3),
                })
                .collect(),
            easing: vec![
                [32, 66, 105, 141, 176, 208, 233, 249],
                [0, 0, 40, 90, 160, 220, 250, 255],
                [200, 120, 60, 20, 40, 90, 180, 240],
            ],
            scale: Some((0..=4).map(|k| (k * 25, [1.0 + f32::from(k) * 0.1, 1.0, 1.0])).collect()),
            position: Some(PositionSpec {
                kind: 0x12,
                points: (0..=12).map(|p| [p as f32, (p as f32 * 0.5).sin(), 0.0]).collect(),
                frames: vec![0, 25, 50, 75, 100],
            }),
            visibility: Some(vec![0, 10, -40, 60, -80, 90]),
            ..Default::default()
        }
    }));
    tracks.push(TrackSpec {
        target: 1,
        uv: Some(
            (0..46)
                .map(|slot| UvEntrySpec {
                    keys: (0..5u16)
                        .map(|k| (k * 25, [slot as f32 * 0.01 + f32::from(k), f32::from(k) * 0.3]))
                        .collect(),
                })
                .collect(),
        ),
        ..Default::default()
    });
    tracks.push(TrackSpec {
        target: 30,
        extra_flags: 0x400,
        path_progress: Some(PathProgressSpec { start: 0, values: (0..=100).map(|f| f as f32 * 1.7).collect() }),
        ..Default::default()
    });
    // Last, so that its 101 frames end the file (the file states no frame count).
    tracks.push(TrackSpec {
        target: 2,
        raw_frames: Some(RawFramesSpec {
            index: (0..40).rev().collect(),
            per_frame: 40,
            positions: (0..101).flat_map(|f| (0..40).map(move |k| [k as f32, f as f32 * 0.01, 0.0])).collect(),
        }),
        ..Default::default()
    });
    (model, AnimFile { last_frame: 100, hide_list: vec![3, 4], tracks, ..Default::default() })
}

/// Measured twice: with the normals table at 0x64 that real files carry (engine notes §7), and
/// without it, where the decoder computes smooth normals from the faces instead.
fn decode(c: &mut Criterion) {
    let mut stored = large_model();
    for mesh in &mut stored.meshes {
        let positions: Vec<glam::Vec3> =
            mesh.vertex_order.iter().map(|&v| glam::Vec3::from_array(mesh.vertices[usize::from(v)])).collect();
        let triangles: Vec<[u32; 3]> = mesh.faces.iter().map(|f| [f[0], f[2], f[1]].map(u32::from)).collect();
        let normals = mdview::scene::compute_normals(&positions, &triangles);
        mesh.normals = Some(normals.iter().map(|n| n.to_array()).collect());
    }
    let mut group = c.benchmark_group("tpw_decode");
    for (label, model) in [("stored normals", stored), ("normals computed", large_model())] {
        let bytes = model.to_bytes();
        let decoded = tpw::decode(&bytes).expect("decodes");
        assert!(decoded.meshes.iter().map(|m| m.vertex_source.len()).sum::<usize>() > 20_000);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("30 meshes, 20k vertices, {label} ({} KB)", bytes.len() / 1024), |b| {
            b.iter(|| tpw::decode(black_box(&bytes)).map(|s| s.meshes.len()))
        });
    }
    group.finish();
}

fn evaluate(c: &mut Criterion) {
    let (model, anim) = heavy_animated();
    let dir = std::env::temp_dir().join(format!("mdview-bench-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("heavy.MD2"), model.to_bytes()).expect("write");
    std::fs::write(dir.join("heavyM1.MD2"), anim.to_bytes()).expect("write");
    let scene = mdview::formats::open(&dir.join("heavy.MD2")).expect("open");
    assert!(scene.clips[0].tracks.iter().all(|t| t.skipped.is_none()), "{:?}", scene.clips[0].tracks);
    let mut pose = Pose::default();
    let mut frame = 0.0f32;
    let kinds: std::collections::BTreeSet<&str> = scene.clips[0].channels.iter().map(|c| c.kind_name()).collect();
    assert_eq!(kinds.len(), 8, "every TPW channel kind plays: {kinds:?}");
    c.bench_function("tpw_evaluate 31 nodes, every channel (3561-channel morph)", |b| {
        b.iter(|| {
            frame = (frame + 0.37) % 100.0;
            pose.evaluate(black_box(&scene), Some(0), frame);
            pose.world.len()
        })
    });
    let _ = std::fs::remove_dir_all(dir);
}

/// 2,300 files of about 50 KB: 1,150 models and an animation for each.
fn scan_folder() -> PathBuf {
    let dir = std::env::temp_dir().join("mdview-bench-scan-2300-v2");
    if dir.join("done").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let model = MeshFile {
        textures: vec![TextureSpec::opaque("t.wct")],
        meshes: (0..8)
            .map(|i| grid_mesh(&format!("m{i}"), if i == 0 { None } else { Some(0) }, IDENTITY, 200))
            .collect(),
        ..Default::default()
    }
    .to_bytes();
    let records = MorphSpec {
        flags: 1,
        centre: [0.0; 3],
        step: [0.01; 3],
        records: vec![MorphRecordSpec {
            channels: (0..202).collect(),
            frames: (0..40).map(|f| f * 5).collect(),
            values: (0..40 * 202).map(|i| i as u32 * 7919).collect(),
        }],
    };
    let anim = AnimFile {
        last_frame: 200,
        tracks: vec![
            TrackSpec { target: 0, morph: Some(records), ..Default::default() },
            TrackSpec {
                target: 1,
                rotation: (0..20)
                    .map(|k| RotationKeySpec { frame: k * 10, curve: 0xFFFF, quat: quat_y(f32::from(k)) })
                    .collect(),
                ..Default::default()
            },
        ],
        ..Default::default()
    }
    .to_bytes();
    for i in 0..1150 {
        std::fs::write(dir.join(format!("ride{i}.MD2")), &model).expect("write");
        std::fs::write(dir.join(format!("ride{i}M1.MD2")), &anim).expect("write");
    }
    std::fs::write(dir.join("done"), format!("model {} bytes, anim {} bytes", model.len(), anim.len())).expect("write");
    dir
}

fn scan(c: &mut Criterion) {
    let dir = scan_folder();
    let mut group = c.benchmark_group("tpw_scan");
    group.sample_size(10);
    group.bench_function("2300 files", |b| b.iter(|| mdview::scan::scan_dir(black_box(&dir)).map(|r| r.files)));
    group.finish();
}

criterion_group!(benches, decode, evaluate, scan);

main_with_kept_heap!(benches);
