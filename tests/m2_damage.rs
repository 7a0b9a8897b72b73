//! The M2 part of the damage sweep that `tests/malformed.rs` cannot do through
//! `formats::decode_bytes` (which sees one file, so a .m2 without its .skin): each corpus .skin
//! is truncated and bit-flipped and decoded together with its intact .m2, and each .m2 is
//! damaged and decoded together with its intact .skin. Everything must end in Ok or a typed
//! error, quickly; what decodes is posed, exported and summarised.

use std::path::Path;
use std::time::{Duration, Instant};

use mdview::formats::m2::{BuildOptions, decode_with_skin};
use mdview::scene::anim::Pose;

const DECODE_LIMIT: Duration = Duration::from_secs(2);

const PAIRS: [(&str, &str); 3] = [
    ("rabbit/Rabbit.m2", "rabbit/Rabbit00.skin"),
    ("tank/tank.m2", "tank/tank00.skin"),
    ("cata_v272_axe/axe_1h_blacksmithing_d_01.m2", "cata_v272_axe/axe_1h_blacksmithing_d_0100.skin"),
];

fn read(rel: &str) -> Option<Vec<u8>> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/m2")).join(rel);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("SKIP: corpus file {} is absent", path.display());
            None
        }
    }
}

fn exercise(label: &str, m2: &[u8], skin: &[u8]) {
    let started = Instant::now();
    let result = decode_with_skin(m2, skin, &BuildOptions { replaceable_texture: Some("x.blp".into()) });
    assert!(started.elapsed() < DECODE_LIMIT, "{label}: decode took {:?}", started.elapsed());
    match result {
        Ok(scene) => {
            // One posed export per decode keeps the sweep to seconds; the clip varies with the damage.
            let clip = (!scene.clips.is_empty()).then(|| m2.len() % scene.clips.len());
            let pose = Pose::at(&scene, clip, 333.0);
            let _ = mdview::export::obj::to_obj(&scene, &pose, "x.mtl");
            let _ = mdview::info::Summary::of(&scene).to_text();
        }
        Err(e) => assert!(e.format == "wow-m2" || e.format == "wow-skin", "{label}: {e}"),
    }
}

/// Cuts (every byte of the first 256, then ~300 spread cuts) and bit flips.
fn damaged(bytes: &[u8], mut each: impl FnMut(String, &[u8])) {
    let stride = (bytes.len() / 300).max(1);
    for cut in (0..bytes.len().min(256)).chain((256..bytes.len()).step_by(stride)) {
        each(format!("cut at {cut}"), &bytes[..cut]);
    }
    let mut d = bytes.to_vec();
    let offsets: Vec<usize> = (0..bytes.len().min(256)).chain((256..bytes.len()).step_by(stride)).collect();
    for (i, &at) in offsets.iter().enumerate() {
        for bit in [i % 8, 7 - i % 8] {
            d[at] ^= 1 << bit;
            each(format!("bit {bit} at {at:#x}"), &d);
            d[at] ^= 1 << bit;
        }
    }
}

#[test]
fn damaged_skins_with_intact_models() {
    for (m2, skin) in PAIRS {
        let (Some(m2_bytes), Some(skin_bytes)) = (read(m2), read(skin)) else { return };
        exercise(skin, &m2_bytes, &skin_bytes);
        damaged(&skin_bytes, |label, d| exercise(&format!("{skin} {label}"), &m2_bytes, d));
    }
}

#[test]
fn damaged_models_with_intact_skins() {
    for (m2, skin) in PAIRS {
        let (Some(m2_bytes), Some(skin_bytes)) = (read(m2), read(skin)) else { return };
        damaged(&m2_bytes, |label, d| exercise(&format!("{m2} {label}"), d, &skin_bytes));
    }
}

/// A vertex lookup pointing past the model's vertices drops triangles with a warning; a texture
/// unit naming a missing submesh is ignored with a warning.
#[test]
fn bad_indices_are_local_damage() {
    let (Some(m2), Some(mut skin)) = (read("rabbit/Rabbit.m2"), read("rabbit/Rabbit00.skin")) else { return };
    let lookup_at = u32::from_le_bytes(skin[8..12].try_into().unwrap()) as usize;
    skin[lookup_at..lookup_at + 2].copy_from_slice(&60000u16.to_le_bytes());
    let unit_at = u32::from_le_bytes(skin[0x28..0x2C].try_into().unwrap()) as usize;
    skin[unit_at + 4..unit_at + 6].copy_from_slice(&9u16.to_le_bytes());
    let scene = decode_with_skin(&m2, &skin, &BuildOptions::default()).unwrap();
    assert!(scene.meshes[0].triangles.len() < 107);
    assert!(scene.warnings.iter().any(|w| w.contains("out of range")), "{:?}", scene.warnings);
    assert!(scene.warnings.iter().any(|w| w.contains("submesh 9 does not exist")), "{:?}", scene.warnings);
    assert!(scene.materials.is_empty());
}

/// The rabbit with its Run sequence (index 1) moved out to an .anim file: the sequence flag
/// 0x20 cleared, so its track arrays resolve in the .anim, which is a copy of the .m2 (the
/// offsets then land on the same keys). The .anim is damaged; the .m2 and .skin stay intact.
#[test]
fn damaged_anim_files_with_intact_models() {
    use mdview::formats::m2::{build, model, skin};
    let (Some(mut m2), Some(skin_bytes)) = (read("rabbit/Rabbit.m2"), read("rabbit/Rabbit00.skin")) else { return };
    let anim = m2.clone();
    let flags_at = u32::from_le_bytes(m2[0x20..0x24].try_into().unwrap()) as usize + 64 + 0x0C;
    m2[flags_at] &= !0x20;
    let skin = skin::decode(&skin_bytes).unwrap();
    let decode = |label: &str, anim: &[u8]| {
        let started = Instant::now();
        let result = model::decode(&m2, &[None, Some(anim)]);
        assert!(started.elapsed() < DECODE_LIMIT, "{label}: decode took {:?}", started.elapsed());
        match result {
            Ok(decoded) => {
                let scene = build::build(&decoded, Some(&skin), &BuildOptions::default(), m2.len() as u64);
                let pose = Pose::at(&scene, Some(1), 500.0);
                assert!(pose.positions.iter().flatten().flatten().all(|p| p.is_finite()), "{label}");
            }
            Err(e) => panic!("{label}: a damaged .anim is local damage, not an error: {e}"),
        }
    };
    decode("intact", &anim);
    damaged(&anim, |label, d| decode(&format!("Rabbit0005-00.anim {label}"), d));
}
