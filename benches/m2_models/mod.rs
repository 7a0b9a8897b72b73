//! In-memory M2 records for performance measurements, shared by `benches/m2.rs` and
//! `examples/m2_timing.rs`: no character-sized model is in the corpus. [`encode`] writes them
//! back as `.m2` and `.skin` bytes, so that opening one can be timed from the file's bytes.

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
                translation: Track::from_curves(
                    INTERP_LINEAR,
                    None,
                    0,
                    (0..sequences)
                        .map(
                            |_| if b % 2 == 0 { curve(2, &|k| Vec3::splat(k as f32 * 0.01)) } else { Curve::default() },
                        )
                        .collect(),
                )
                .expect("a small track"),
                rotation: Track::from_curves(
                    INTERP_LINEAR,
                    None,
                    0,
                    (0..sequences)
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
                )
                .expect("a small track"),
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
                uv1: [0.0, 0.0],
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

/// `.m2` (v264) and `.skin` bytes holding `model` and `skin`: the header, sequences, bones with
/// their tracks, vertices, render flags and lookups; every other table empty. Only what
/// [`character_model`] uses is written: bone tracks have no global sequence, and rotation keys
/// are packed into the 16-bit form. Written for timing, checked by
/// `tests/m2_corpus.rs::encoded_character_decodes_to_its_records`.
pub fn encode(
    model: &mdview::formats::m2::model::M2Model,
    skin: &mdview::formats::m2::skin::Skin,
) -> (Vec<u8>, Vec<u8>) {
    use mdview::formats::m2::layout::*;
    use mdview::formats::m2::tracks::{self, Track};

    /// A byte buffer whose tables are appended and whose `{count, offset}` pairs are patched.
    struct Out(Vec<u8>);
    impl Out {
        fn put(&mut self, at: u64, bytes: &[u8]) {
            let at = at as usize;
            self.0[at..at + bytes.len()].copy_from_slice(bytes);
        }
        /// Appends `bytes` 4-aligned (packed, as real files are); returns their offset.
        fn append(&mut self, bytes: &[u8]) -> u32 {
            while !self.0.len().is_multiple_of(4) {
                self.0.push(0);
            }
            let at = self.0.len() as u32;
            self.0.extend_from_slice(bytes);
            at
        }
        /// Appends a table of `count` records and points the pair at `at` to it.
        fn table(&mut self, at: u64, count: usize, bytes: &[u8]) {
            let offset = if count == 0 { 0 } else { self.append(bytes) };
            self.put(at, &(count as u32).to_le_bytes());
            self.put(at + 4, &offset.to_le_bytes());
        }
    }
    fn track<T: Copy>(out: &mut Out, at: u64, track: &Track<T>, value: impl Fn(T) -> Vec<u8>) {
        out.put(at + TRACK_INTERPOLATION, &track.interpolation.to_le_bytes());
        out.put(at + TRACK_GLOBAL_SEQUENCE, &(-1i16).to_le_bytes());
        let (mut times, mut values) = (Vec::new(), Vec::new());
        for curve in track.curves() {
            let t: Vec<u8> = curve.keys.iter().flat_map(|k| (k.time as u32).to_le_bytes()).collect();
            let v: Vec<u8> = curve.keys.iter().flat_map(|k| value(k.value)).collect();
            let n = curve.keys.len() as u32;
            let (t, v) = if n == 0 { (0, 0) } else { (out.append(&t), out.append(&v)) };
            times.extend([n.to_le_bytes(), t.to_le_bytes()].concat());
            values.extend([n.to_le_bytes(), v.to_le_bytes()].concat());
        }
        let n = track.sequence_count();
        out.table(at + TRACK_TIMESTAMPS, n, &times);
        out.table(at + TRACK_VALUES, n, &values);
    }
    let vec3 = |v: Vec3| v.to_array().iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<u8>>();
    let packed = |q: Quat| {
        q.to_array().map(tracks::pack_quat_component).iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<u8>>()
    };
    let u16s = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();

    let mut m2 = Out(vec![0; HEADER_SIZE as usize]);
    m2.put(0, &MAGIC);
    m2.put(HDR_VERSION, &VERSION_WOTLK.to_le_bytes());
    m2.put(HDR_SKIN_PROFILE_COUNT, &1u32.to_le_bytes());
    let mut sequences = vec![0u8; model.sequences.len() * SEQUENCE_SIZE as usize];
    for (i, seq) in model.sequences.iter().enumerate() {
        let mut record = Out(vec![0; SEQUENCE_SIZE as usize]);
        record.put(SEQ_ID, &seq.id.to_le_bytes());
        record.put(SEQ_VARIATION, &seq.variation.to_le_bytes());
        record.put(SEQ_DURATION, &seq.duration_ms.to_le_bytes());
        record.put(SEQ_MOVE_SPEED, &seq.move_speed.to_le_bytes());
        record.put(SEQ_FLAGS, &seq.flags.to_le_bytes());
        record.put(SEQ_FREQUENCY, &seq.frequency.to_le_bytes());
        record.put(SEQ_NEXT_VARIATION, &seq.next_variation.to_le_bytes());
        record.put(SEQ_ALIAS_NEXT, &seq.alias_next.to_le_bytes());
        let at = i * SEQUENCE_SIZE as usize;
        sequences[at..at + SEQUENCE_SIZE as usize].copy_from_slice(&record.0);
    }
    m2.table(HDR_SEQUENCES, model.sequences.len(), &sequences);
    // Bone records first (their tracks' tables are appended after them), then patched.
    let bones_at = u64::from(m2.append(&vec![0; model.bones.len() * BONE_SIZE as usize]));
    m2.put(HDR_BONES, &(model.bones.len() as u32).to_le_bytes());
    m2.put(HDR_BONES + 4, &(bones_at as u32).to_le_bytes());
    for (i, bone) in model.bones.iter().enumerate() {
        let at = bones_at + i as u64 * BONE_SIZE;
        m2.put(at + BONE_KEY_ID, &bone.key_bone_id.to_le_bytes());
        m2.put(at + BONE_FLAGS, &bone.flags.to_le_bytes());
        m2.put(at + BONE_PARENT, &bone.parent.to_le_bytes());
        m2.put(at + BONE_SUBMESH, &bone.submesh.to_le_bytes());
        track(&mut m2, at + BONE_TRANSLATION, &bone.translation, vec3);
        track(&mut m2, at + BONE_ROTATION, &bone.rotation, packed);
        track(&mut m2, at + BONE_SCALE, &bone.scale, vec3);
        m2.put(at + BONE_PIVOT, &vec3(bone.pivot));
    }
    let vertices: Vec<u8> = model
        .vertices
        .iter()
        .flat_map(|v| {
            let mut record = Out(vec![0; VERTEX_SIZE as usize]);
            record.put(VTX_POSITION, &vec3(v.position));
            record.put(VTX_WEIGHTS, &v.weights);
            record.put(VTX_BONES, &v.bones);
            record.put(VTX_NORMAL, &vec3(v.normal));
            record.put(VTX_UV0, &[v.uv[0].to_le_bytes(), v.uv[1].to_le_bytes()].concat());
            record.0
        })
        .collect();
    m2.table(HDR_VERTICES, model.vertices.len(), &vertices);
    let render_flags: Vec<u8> =
        model.render_flags.iter().flat_map(|&(f, b)| [f.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    m2.table(HDR_RENDER_FLAGS, model.render_flags.len(), &render_flags);
    m2.table(HDR_TEXTURE_LOOKUP, model.texture_lookup.len(), &u16s(&model.texture_lookup));
    m2.table(HDR_TRANSPARENCY_LOOKUP, model.transparency_lookup.len(), &u16s(&model.transparency_lookup));

    let mut out = Out(vec![0; SKIN_HEADER_SIZE as usize]);
    out.put(0, &SKIN_MAGIC);
    out.table(SKIN_LOOKUP, skin.lookup.len(), &u16s(&skin.lookup));
    out.table(SKIN_INDICES, skin.indices.len(), &u16s(&skin.indices));
    let submeshes: Vec<u8> = skin
        .submeshes
        .iter()
        .flat_map(|s| {
            let mut record = Out(vec![0; SUBMESH_SIZE as usize]);
            record.put(SUB_ID, &s.id.to_le_bytes());
            record.put(SUB_LEVEL, &s.level.to_le_bytes());
            record.put(SUB_VERTEX_START, &s.vertex_start.to_le_bytes());
            record.put(SUB_VERTEX_COUNT, &s.vertex_count.to_le_bytes());
            record.put(SUB_INDEX_START, &(s.index_start as u16).to_le_bytes());
            record.put(SUB_INDEX_COUNT, &s.index_count.to_le_bytes());
            record.put(SUB_BONE_COUNT, &s.bone_count.to_le_bytes());
            record.put(SUB_CENTER, &vec3(Vec3::from_array(s.center)));
            record.0
        })
        .collect();
    out.table(SKIN_SUBMESHES, skin.submeshes.len(), &submeshes);
    let units: Vec<u8> = skin
        .units
        .iter()
        .flat_map(|u| {
            let mut record = Out(vec![0; UNIT_SIZE as usize]);
            record.put(UNIT_FLAGS, &[u.flags]);
            record.put(UNIT_PRIORITY, &u.priority.to_le_bytes());
            record.put(UNIT_SHADER, &u.shader_id.to_le_bytes());
            record.put(UNIT_SUBMESH, &u.submesh.to_le_bytes());
            record.put(UNIT_COLOR, &u.color.to_le_bytes());
            record.put(UNIT_MATERIAL, &u.render_flags.to_le_bytes());
            record.put(UNIT_LAYER, &u.layer.to_le_bytes());
            record.put(UNIT_TEXTURE_COUNT, &u.texture_count.to_le_bytes());
            record.put(UNIT_TEXTURE_COMBO, &u.texture_combo.to_le_bytes());
            record.put(UNIT_TEXCOORD_COMBO, &u.texcoord_combo.to_le_bytes());
            record.put(UNIT_WEIGHT_COMBO, &u.weight_combo.to_le_bytes());
            record.put(UNIT_TRANSFORM_COMBO, &u.transform_combo.to_le_bytes());
            record.0
        })
        .collect();
    out.table(SKIN_UNITS, skin.units.len(), &units);
    out.put(SKIN_BONE_COUNT_MAX, &skin.bone_count_max.to_le_bytes());
    (m2.0, out.0)
}
