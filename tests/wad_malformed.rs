//! The damage sweep for archives and textures: the demo's `park.wad` and WCT files in each
//! coding, truncated at every byte (strided for large files) and with bits and words damaged,
//! must read to Ok or a typed error, quickly, without panicking. What survives is used: every
//! member of a damaged archive is read out, and models inside it are decoded.

use std::time::{Duration, Instant};

use mdview::formats::wad::{read_entry, read_index};
use mdview::formats::wct::{self, ChunkCoding};
use mdview::writers::wct::WctOptions;

const LIMIT: Duration = Duration::from_secs(2);

fn park_wad() -> Vec<u8> {
    mdview::demo::files().iter().find(|(n, _)| *n == "park.wad").map(|(_, d)| d.to_vec()).expect("park.wad")
}

/// Truncations: every byte of small files, else the first 4 KiB and ~1,500 spread cuts.
fn cut_points(len: usize) -> Vec<usize> {
    if len <= 16 * 1024 {
        return (0..len).collect();
    }
    let stride = (len / 1500).max(1);
    (0..4096).chain((4096..len).step_by(stride)).collect()
}

/// Every damaged variant of `bytes`, with a label.
fn variants(bytes: &[u8], mut run: impl FnMut(&str, &[u8])) {
    for cut in cut_points(bytes.len()) {
        run(&format!("cut at {cut}"), &bytes[..cut]);
    }
    let mut offsets: Vec<usize> = (0..bytes.len().min(512)).collect();
    offsets.extend((512..bytes.len()).step_by((bytes.len() / 400).max(1)));
    let mut damaged = bytes.to_vec();
    for (i, &offset) in offsets.iter().enumerate() {
        for bit in [i % 8, 7 - i % 8] {
            damaged[offset] ^= 1 << bit;
            run(&format!("bit {bit} at {offset:#x}"), &damaged);
            damaged[offset] ^= 1 << bit;
        }
    }
    for offset in (0..bytes.len().min(512)).step_by(2) {
        for value in [0xFFFFu16, 0x8000, 0] {
            let mut d = bytes.to_vec();
            let end = (offset + 2).min(bytes.len());
            d[offset..end].copy_from_slice(&value.to_le_bytes()[..end - offset]);
            run(&format!("u16 {value:#x} at {offset:#x}"), &d);
        }
    }
}

#[test]
fn damaged_archives_fail_cleanly_and_keep_their_good_members() {
    let good = park_wad();
    let members = read_index(&good).unwrap().entries.len();
    let mut survived_with_members = 0;
    let mut count = 0usize;
    variants(&good, |label, data| {
        count += 1;
        let started = Instant::now();
        if let Ok(index) = read_index(data) {
            let mut readable = 0;
            for entry in &index.entries {
                if let Ok(bytes) = read_entry(data, entry) {
                    readable += 1;
                    // Every 8th variant also decodes what came out.
                    if count.is_multiple_of(8) {
                        if entry.path.ends_with(".wct") {
                            let _ = wct::decode(&bytes);
                        } else {
                            let _ = mdview::formats::decode_bytes(&bytes);
                        }
                    }
                }
            }
            if readable == members {
                survived_with_members += 1;
            }
        }
        assert!(started.elapsed() < LIMIT, "{label}: took {:?}", started.elapsed());
    });
    // Damage to one member's bytes leaves the others readable (most flips land in data).
    assert!(survived_with_members > 0);
}

fn texture_fixtures() -> Vec<(String, Vec<u8>)> {
    let picture: Vec<u8> =
        (0..24 * 20).flat_map(|i: u32| [(i * 7) as u8, (i * 3) as u8, 90, (i % 255) as u8]).collect();
    let mut out = Vec::new();
    for (name, coding, alpha, full_scale) in [
        ("bilz alpha", ChunkCoding::Bilz, true, true),
        ("lzss alpha", ChunkCoding::Lzss, true, true),
        ("lzss half scale", ChunkCoding::Lzss, false, false),
        ("raw", ChunkCoding::Raw, false, true),
    ] {
        let options = WctOptions { coding, alpha, full_scale, ..Default::default() };
        out.push((name.to_string(), mdview::writers::wct::encode(&picture, 24, 20, options)));
    }
    // And the demo's own textures, as the archive holds them.
    let wad = park_wad();
    let index = read_index(&wad).unwrap();
    for entry in
        index.entries.iter().filter(|e| e.path.ends_with("palm_leaves.wct") || e.path.ends_with("isle_sand.wct"))
    {
        out.push((entry.path.clone(), read_entry(&wad, entry).unwrap()));
    }
    out
}

#[test]
fn damaged_textures_fail_cleanly() {
    for (name, good) in texture_fixtures() {
        let image = wct::decode(&good).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize);
        variants(&good, |label, data| {
            let started = Instant::now();
            if let Ok(image) = wct::decode(data) {
                assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize, "{name} {label}");
            }
            assert!(started.elapsed() < LIMIT, "{name} {label}: took {:?}", started.elapsed());
        });
    }
}
