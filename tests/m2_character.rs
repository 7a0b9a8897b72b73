//! The character-shaped M2 records of `benches/m2_models` and their encoder: the bytes that
//! `examples/m2_timing` opens must decode to the records they were written from, or its
//! "character file" timing measures something else.

#[path = "../benches/m2_models/mod.rs"]
mod m2_models;

use mdview::formats::m2::{self, axes};

#[test]
fn encoded_character_decodes_to_its_records() {
    let (model, skin) = m2_models::character_model();
    let (m2_bytes, skin_bytes) = m2_models::encode(&model, &skin);
    let decoded = m2::model::decode(&m2_bytes, &[]).expect("the encoded character decodes");
    assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
    assert_eq!(decoded.version, 264);
    assert_eq!(decoded.sequences, model.sequences);
    assert_eq!(decoded.vertices, model.vertices);
    assert_eq!(decoded.render_flags, model.render_flags);
    assert_eq!(decoded.texture_lookup, model.texture_lookup);
    assert_eq!(decoded.transparency_lookup, model.transparency_lookup);
    assert_eq!(decoded.bones.len(), model.bones.len());
    for (b, (got, want)) in decoded.bones.iter().zip(&model.bones).enumerate() {
        assert_eq!(
            (got.key_bone_id, got.flags, got.parent, got.submesh, got.pivot),
            (want.key_bone_id, want.flags, want.parent, want.submesh, want.pivot),
            "bone {b}"
        );
        // Bone keys come back in scene axes; rotations through the 16-bit packing.
        let (t, r, s) = (&got.translation, &got.rotation, &got.scale);
        assert_eq!(t.sequence_count(), want.translation.sequence_count(), "bone {b}");
        for (g, w) in t.curves().zip(want.translation.curves()) {
            let expected: Vec<_> = w.keys.iter().map(|k| (k.time, axes::position(k.value))).collect();
            assert_eq!(g.keys.iter().map(|k| (k.time, k.value)).collect::<Vec<_>>(), expected, "bone {b}");
        }
        assert_eq!(r.sequence_count(), want.rotation.sequence_count(), "bone {b}");
        for (g, w) in r.curves().zip(want.rotation.curves()) {
            assert_eq!(g.keys.len(), w.keys.len(), "bone {b}");
            for (gk, wk) in g.keys.iter().zip(&w.keys) {
                assert_eq!(gk.time, wk.time);
                assert!(gk.value.abs_diff_eq(axes::rotation(wk.value), 1e-4), "bone {b}: {gk:?} {wk:?}");
            }
        }
        assert!(!s.is_animated() && want.scale.sequence_count() == 0, "bone {b}");
    }
    let mut decoded_skin = m2::skin::decode(&skin_bytes).expect("the encoded skin decodes");
    // Record offsets are where the encoder put them; everything else must match.
    decoded_skin.submeshes.iter_mut().for_each(|s| s.offset = 0);
    decoded_skin.units.iter_mut().for_each(|u| u.offset = 0);
    assert_eq!(decoded_skin, skin);
    let scene = m2::decode_with_skin(&m2_bytes, &skin_bytes, &Default::default()).unwrap();
    assert_eq!((scene.clips.len(), scene.meshes.len()), (147, 1));
    assert!(scene.clips.iter().all(|c| c.tracks.len() == 140), "every bone plays in every clip");
}

/// `info --timing` times decoding alone from the bytes an open decodes, read ahead: for an M2
/// that includes the skin profile the open takes, so the decode has the open's geometry (the
/// `.m2` alone has none).
#[test]
fn decode_inputs_hold_the_skin_the_open_takes() {
    let (model, skin) = m2_models::character_model();
    let (m2_bytes, skin_bytes) = m2_models::encode(&model, &skin);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mdview-test-decode-inputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let path = dir.join("Character.m2");
    std::fs::write(&path, &m2_bytes).expect("write .m2");
    std::fs::write(dir.join("Character00.skin"), &skin_bytes).expect("write .skin");

    let opened = mdview::formats::open(&path).expect("opens");
    let inputs = mdview::formats::read_decode_inputs(&path).expect("reads");
    let decoded = mdview::formats::decode_inputs(&inputs).expect("decodes");
    let shape = |scene: &mdview::scene::Scene| {
        scene.meshes.iter().map(|m| (m.source_positions.len(), m.triangles.len())).collect::<Vec<_>>()
    };
    assert!(!opened.meshes.is_empty());
    assert_eq!(shape(&decoded), shape(&opened));
    assert!(mdview::formats::decode_bytes(&m2_bytes).expect("decodes alone").meshes.is_empty());
}
