//! WAD tests against an archive laid out by hand from the spec, byte by byte.

use super::*;
use crate::writers::wad::{WadMember, write_wad};

/// `abcabcabcabc` as RefPack, by hand: header `10 FB 00 00 0C`; a short command
/// `0b000_110_11` (offset high bits 0, copy 6+3 = 9, 3 literals) with offset byte 2 (+1 = 3),
/// its literals `abc`; then a stop code with no literals.
const HAND_REFPACK: [u8; 11] = [0x10, 0xFB, 0x00, 0x00, 0x0C, 0x1B, 0x02, b'a', b'b', b'c', 0xFC];

fn u32s(out: &mut Vec<u8>, values: &[u32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Three entries: `readme.txt` stored at the root, `models\gate.MD2` RefPack, and
/// `gateM1.MD2` stored, which inherits `models`. Names at 208 (88 + 3 × 40), data at 246.
pub(super) fn hand_archive() -> Vec<u8> {
    let mut out = b"DWFB".to_vec();
    u32s(&mut out, &[2]);
    out.resize(72, 0);
    u32s(&mut out, &[3, 208, 38, 0]);
    u32s(&mut out, &[0, 208, 11, 246, 3, 0, 3, 0, 0, 0]);
    u32s(&mut out, &[0, 219, 16, 249, 11, 4, 12, 0, 0, 0]);
    u32s(&mut out, &[0, 235, 11, 260, 3, 0, 3, 0, 0, 0]);
    assert_eq!(out.len(), 208);
    out.extend_from_slice(b"readme.txt\0models\\gate.MD2\0gateM1.MD2\0");
    assert_eq!(out.len(), 246);
    out.extend_from_slice(b"hi!");
    out.extend_from_slice(&HAND_REFPACK);
    out.extend_from_slice(b"xyz");
    out
}

#[test]
fn reads_the_hand_laid_archive() {
    let data = hand_archive();
    let index = read_index(&data).unwrap();
    assert!(index.warnings.is_empty(), "{:?}", index.warnings);
    let paths: Vec<&str> = index.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["readme.txt", "models/gate.MD2", "models/gateM1.MD2"]);
    let gate = index.find("MODELS\\GATE.md2").unwrap();
    assert_eq!((gate.data_offset, gate.stored_size, gate.size), (249, 11, 12));
    assert_eq!(gate.compression, Compression::RefPack);
    assert_eq!(read_entry(&data, gate).unwrap(), b"abcabcabcabc");
    assert_eq!(read_entry(&data, index.find("readme.txt").unwrap()).unwrap(), b"hi!");
    assert_eq!(read_entry(&data, index.find("models/gatem1.md2").unwrap()).unwrap(), b"xyz");
}

#[test]
fn lists_directories_like_a_folder() {
    let data = hand_archive();
    let index = read_index(&data).unwrap();
    let (dirs, files) = index.list_dir("");
    assert_eq!(dirs, ["models"]);
    assert_eq!(files.iter().map(|e| e.name()).collect::<Vec<_>>(), ["readme.txt"]);
    let (dirs, files) = index.list_dir("Models");
    assert!(dirs.is_empty());
    assert_eq!(files.iter().map(|e| e.name()).collect::<Vec<_>>(), ["gate.MD2", "gateM1.MD2"]);
    assert!(index.has_dir("models") && !index.has_dir("textures"));
}

#[test]
fn writer_reproduces_the_hand_laid_bytes() {
    let members = [
        WadMember::stored("models/gate.MD2", b""),
        WadMember::stored("readme.txt", b"hi!"),
        WadMember::stored("models/gateM1.MD2", b"xyz"),
    ];
    let mut members = members.to_vec();
    if let Some(gate) = members.first_mut() {
        *gate = WadMember { stored: HAND_REFPACK.to_vec(), compression_type: 4, size: 12, ..gate.clone() };
    }
    assert_eq!(write_wad(&members), hand_archive());
}

#[test]
fn crate_compressed_members_round_trip() {
    let text: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 ^ (i / 7) as u8).collect();
    let data = write_wad(&[WadMember::compressed("textures/a.wct", &text), WadMember::stored("b.txt", b"plain")]);
    let index = read_index(&data).unwrap();
    let entry = index.find("textures/a.wct").unwrap();
    assert!(entry.stored_size < entry.size);
    assert_eq!(read_entry(&data, entry).unwrap(), text);
}

#[test]
fn refpack_that_overruns_its_declared_size_is_an_error() {
    // The same stream declaring 11 bytes: the entry table agrees, the stream writes 12.
    let mut data = hand_archive();
    data[88 + 40 + 24] = 11; // entry 1's decompressed size
    data[249 + 4] = 11; // the stream's own size
    let index = read_index(&data).unwrap();
    let err = read_entry(&data, index.find("models/gate.MD2").unwrap()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("entry[1] models/gate.MD2") && text.contains("overruns"), "{text}");
}

#[test]
fn damage_gets_one_line_errors_naming_entry_and_offset() {
    let good = hand_archive();
    // Entry 2's data runs past the end.
    let mut past_end = good.clone();
    past_end[88 + 80 + 16] = 200;
    let err = read_index(&past_end).unwrap_err();
    assert_eq!(err.field, "entry[2].data");
    assert_eq!(err.offset, 260);
    // A directory that climbs out of the archive.
    let mut cyclic = good.clone();
    cyclic[219..225].copy_from_slice(b"..\\..\\");
    let err = read_index(&cyclic).unwrap_err();
    assert!(err.to_string().contains("cycle"), "{err}");
    assert_eq!(err.offset, 219);
    // A truncated header.
    let err = read_index(&good[..70]).unwrap_err();
    assert_eq!(err.field, "file count");
    // A bad stream: the stop code turned into a long command reading past the end.
    let mut bad_stream = good.clone();
    bad_stream[259] = 0xC0;
    let index = read_index(&bad_stream).unwrap();
    let err = read_entry(&bad_stream, index.find("models/gate.MD2").unwrap()).unwrap_err();
    assert!(err.to_string().starts_with("wad: entry[1] models/gate.MD2: refpack stream at offset"), "{err}");
    assert!(!err.to_string().contains('\n'));
}

#[test]
fn a_file_that_is_also_a_directory_is_refused() {
    let data = write_wad(&[WadMember::stored("models", b"x"), WadMember::stored("models/a.MD2", b"y")]);
    let err = read_index(&data).unwrap_err();
    assert!(err.to_string().contains("also a file"), "{err}");
}

#[test]
fn every_truncation_and_bit_flip_fails_cleanly() {
    let good = hand_archive();
    for len in 0..good.len() {
        if let Ok(index) = read_index(&good[..len]) {
            for entry in &index.entries {
                let _ = read_entry(&good[..len], entry);
            }
        }
    }
    for at in 0..good.len() {
        for bit in 0..8 {
            let mut bad = good.clone();
            bad[at] ^= 1 << bit;
            if let Ok(index) = read_index(&bad) {
                for entry in &index.entries {
                    let _ = read_entry(&bad, entry);
                }
            }
        }
    }
}

/// The game's stored entries state a decompressed size of 0: their size is what the archive
/// holds, with no warning. A stored entry that states another non-zero size still warns.
#[test]
fn a_stored_entry_stating_size_zero_is_its_stored_size() {
    let zero = WadMember { size: 0, ..WadMember::stored("models/gateM1.MD2", b"xyz") };
    let odd = WadMember { size: 7, ..WadMember::stored("readme.txt", b"hi!") };
    let data = write_wad(&[zero, odd]);
    let index = read_index(&data).unwrap();
    let gate = index.entries.iter().find(|e| e.name() == "gateM1.MD2").unwrap();
    assert_eq!((gate.stored_size, gate.size), (3, 3));
    assert_eq!(read_entry(&data, gate).unwrap(), b"xyz");
    let readme = index.entries.iter().find(|e| e.name() == "readme.txt").unwrap();
    assert_eq!(readme.size, 7);
    assert_eq!(index.warnings.len(), 1, "{:?}", index.warnings);
    assert!(index.warnings[0].contains("readme.txt") && index.warnings[0].contains("sizes differ"));
}
