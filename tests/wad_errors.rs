//! What a user reads when an archive is damaged: `mdview extract` and `mdview info` on a WAD
//! cut short, with flipped bytes in its header, entry table, filename block and RefPack data,
//! must never panic, and every line they print is one line: an `error:` naming the entry
//! and an offset, a `warning:`, or the closing count. Dependencies' own error text (the
//! `refpack` crate's runs over two lines) never shows through.

mod common;

use std::process::Command;

use mdview::formats::wad::{layout, read_index};
use mdview::writers::wad::{WadMember, write_wad};
use mdview::writers::wct::{WctOptions, encode};

fn mdview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("run mdview")
}

fn demo(name: &str) -> Vec<u8> {
    mdview::demo::files().iter().find(|(n, _)| *n == name).map(|(_, d)| d.to_vec()).unwrap()
}

fn archive() -> Vec<u8> {
    let pixels: Vec<u8> = (0..16 * 16).flat_map(|i: u32| [(i % 256) as u8, 40, 90, 255]).collect();
    write_wad(&[
        WadMember::compressed("models/gate.MD2", &demo("gate.MD2")),
        WadMember::stored("models/gateM2.MD2", &demo("gateM2.MD2")),
        WadMember::compressed("stexture/wood.wct", &encode(&pixels, 16, 16, WctOptions::default())),
        WadMember::stored("stexture/tile.wct", &encode(&pixels, 16, 16, WctOptions::default())),
    ])
}

/// Checks one run's stderr: no panic, and each line one of the shapes a user should see.
fn check_output(label: &str, command: &str, out: &std::process::Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{label}: {command} exited {:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{label}: {command}: {stderr}");
    for line in stderr.lines() {
        let member_count = line.contains("written to") || line.ends_with("failed");
        assert!(
            line.starts_with("error: ") || line.starts_with("warning: ") || member_count,
            "{label}: {command}: a line that is not a message of its own (a broken line?): {line:?}\n{stderr}"
        );
        if line.starts_with("error: ") && !member_count {
            assert!(line.contains("offset 0x"), "{label}: {command}: error without an offset: {line}");
            let names_entry = line.contains("entry");
            let header_field =
                ["magic", "version", "file count", "filename block", "entry table"].iter().any(|f| line.contains(f));
            assert!(names_entry || header_field, "{label}: {command}: error naming no entry: {line}");
        }
    }
}

#[test]
fn damaged_archives_give_one_line_errors_naming_entry_and_offset() {
    let good = archive();
    let index = read_index(&good).unwrap();
    let dir = common::temp_dir("wad-errors");
    let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
    // Truncations: inside the header, the table, the names and every member's data.
    let mut cuts: Vec<usize> = vec![0, 3, 8, 20, 30, 40, 60, 90, good.len() - 1];
    for entry in &index.entries {
        let start = entry.data_offset as usize;
        cuts.extend([start, start + 2, start + 5, start + 9, start + entry.stored_size as usize / 2]);
    }
    for cut in cuts.into_iter().filter(|&c| c < good.len()) {
        variants.push((format!("cut at {cut}"), good[..cut].to_vec()));
    }
    // Flipped bytes: the header and entry table byte by byte, the filename block, and the
    // start of every member's data (RefPack headers and first commands).
    let table_end = (layout::ENTRY_TABLE + layout::ENTRY_SIZE * index.entries.len() as u64) as usize;
    let mut flips: Vec<usize> = (0..table_end).collect();
    let names_start = index.entries.iter().map(|e| e.data_offset as usize + e.stored_size as usize).max().unwrap();
    flips.extend((names_start.min(good.len())..good.len()).step_by(3));
    for entry in &index.entries {
        let start = entry.data_offset as usize;
        flips.extend(start..start + 24);
        flips.push(start + entry.stored_size as usize / 2);
    }
    for at in flips.into_iter().filter(|&a| a < good.len()) {
        for mask in [0xFF, 0x80] {
            let mut bad = good.clone();
            bad[at] ^= mask;
            variants.push((format!("byte {at:#x} ^ {mask:#x}"), bad));
        }
    }
    // The damage the issue reports: a RefPack copy reaching before the start of the output.
    let gate = index.find("models/gate.MD2").unwrap();
    let mut far_copy = good.clone();
    far_copy[gate.data_offset as usize + 5..gate.data_offset as usize + 7].copy_from_slice(&[0x00, 0x09]);
    variants.push(("refpack copy before the start".into(), far_copy));

    let wad = dir.join("damaged.wad");
    let out_dir = dir.join("out");
    let mut refpack_lines = 0;
    for (label, data) in &variants {
        std::fs::write(&wad, data).unwrap();
        let info = mdview(&["info", wad.to_str().unwrap()]);
        check_output(label, "info", &info);
        let extract = mdview(&["extract", wad.to_str().unwrap(), "-o", out_dir.to_str().unwrap(), "--png"]);
        check_output(label, "extract", &extract);
        refpack_lines +=
            String::from_utf8_lossy(&extract.stderr).lines().filter(|l| l.contains("refpack stream")).count();
    }
    assert!(refpack_lines > 0, "no variant reached a RefPack failure");
}

#[test]
fn the_closing_count_says_member_or_members() {
    let dir = common::temp_dir("wad-count");
    let wad = dir.join("one.wad");
    std::fs::write(&wad, write_wad(&[WadMember::stored("a.MD2", &demo("gate.MD2"))])).unwrap();
    let out = mdview(&["extract", wad.to_str().unwrap(), "-o", dir.join("out").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("1 member written to"), "{stderr}");
    let wad = dir.join("two.wad");
    let members = [WadMember::stored("a.MD2", b"a"), WadMember::stored("b.MD2", b"b")];
    std::fs::write(&wad, write_wad(&members)).unwrap();
    let out = mdview(&["extract", wad.to_str().unwrap(), "-o", dir.join("out2").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 members written to"));
}
