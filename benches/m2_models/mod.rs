//! In-memory M2 records for performance measurements, shared by `benches/m2.rs` and
//! `examples/m2_timing.rs`: no character-sized model is in the corpus, and there is no M2 writer.

use glam::{Quat, Vec3};
use mdview::scene::{Curve, Key};

/// Records shaped like a WotLK character: 140 bones in chains of 10, 147 sequences of 1 s; every
/// bone has 4 rotation keys in every sequence and every other bone 2 translation keys (about
/// 1.3 MB of keys in the file); 5,465 vertices on 4 bones each; one submesh and unit.
pub fn character_model() -> (mdview::formats::m2::model::M2Model, mdview::formats::m2::skin::Skin) {
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
        units: vec![TextureUnit { color: -1, texture_count: 1, ..TextureUnit::default() }],
        bone_count_max: 4,
    };
    (model, skin)
}
