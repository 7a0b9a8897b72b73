//! Small hand-made models and skins the builder's unit tests share.

use glam::Vec3;

use crate::formats::m2::model::{Bone, M2Model, Sequence};
use crate::formats::m2::skin::Skin;
use crate::formats::m2::tracks::Track;
use crate::scene::{Curve, Key};

/// A 100 ms sequence stored in the file (flag 0x20), its own alias.
pub(super) fn sequence_100ms(id: u16) -> Sequence {
    Sequence {
        id,
        variation: 0,
        duration_ms: 100,
        move_speed: 0.0,
        flags: 0x20,
        frequency: 0,
        next_variation: -1,
        alias_next: id,
    }
}

/// One bone whose translation is a two-key track on global sequence 0 (200 ms: x from 0 to
/// 20 units; bone keys are held in scene axes), in a model with one 100 ms sequence.
pub(super) fn model_with_a_global_track() -> M2Model {
    let keys = vec![Key { time: 0.0, value: Vec3::ZERO }, Key { time: 200.0, value: Vec3::new(20.0, 0.0, 0.0) }];
    let translation =
        Track::from_curves(crate::formats::m2::tracks::INTERP_LINEAR, Some(0), 200, vec![Curve::linear(keys)]).unwrap();
    M2Model {
        version: 264,
        global_periods: vec![200],
        sequences: vec![sequence_100ms(0)],
        anim_present: vec![None],
        bones: vec![Bone {
            key_bone_id: -1,
            flags: 0,
            parent: -1,
            submesh: 0,
            translation,
            rotation: Track::default(),
            scale: Track::default(),
            pivot: Vec3::ZERO,
        }],
        ..M2Model::default()
    }
}

/// A skin of one submesh, one triangle over vertices 0 to 2, drawn by `units`.
pub(super) fn one_triangle_skin(units: Vec<crate::formats::m2::skin::TextureUnit>) -> Skin {
    Skin {
        lookup: vec![0, 1, 2],
        indices: vec![0, 1, 2],
        submeshes: vec![crate::formats::m2::skin::SkinSubmesh {
            id: 0,
            level: 0,
            vertex_start: 0,
            vertex_count: 3,
            index_start: 0,
            index_count: 3,
            bone_count: 0,
            center: [0.0; 3],
            offset: 0,
        }],
        units,
        bone_count_max: 0,
    }
}
