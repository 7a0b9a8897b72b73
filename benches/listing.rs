//! Listing a whole game folder as the viewer's tree and `render DIR --sheet` do
//! (`formats::listing`), measured with criterion. Target: a folder of 10,000 files in 500
//! sub-folders lists in under 200 ms, and its first folder is there in a few milliseconds (the
//! viewer shows the tree while the rest is listed).
//!
//! The folder is laid out like an install: `models/<kind>/<name>/` (25 kinds of 20 models),
//! each with 20 files: a TPW model and four animations of it, a Quake II model and its weapon,
//! an M2 and its `.skin`, and textures and notes that are not models.
//!
//! Run: `cargo bench --bench listing`

#[macro_use]
mod kept_heap;

use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group};
use mdview::formats::listing;

const KINDS: usize = 25;
const PER_KIND: usize = 20;
const FILES: [&str; 20] = [
    "gate.md2",
    "gateM1.md2",
    "gateM2.md2",
    "gateC1.md2",
    "gateI1.md2",
    "tris.md2",
    "weapon.md2",
    "unit.m2",
    "unit00.skin",
    "unit01.skin",
    "skin.pcx",
    "skin_i.pcx",
    "weapon.pcx",
    "unitskin.blp",
    "gate_wood.wct",
    "gate_stone.wct",
    "readme.txt",
    "animation.cfg",
    "sounds.txt",
    "notes.txt",
];

/// Writes the 10,000-file tree under a fresh temporary folder.
fn write_install() -> PathBuf {
    let root = std::env::temp_dir().join(format!("mdview-bench-listing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // The animations are TPW animation files: grouping reads their headers.
    let clip = mdview::writers::tpw::AnimFile { last_frame: 20, ..Default::default() }.to_bytes();
    for kind in 0..KINDS {
        for model in 0..PER_KIND {
            let dir = root.join("models").join(format!("kind{kind:02}")).join(format!("model{model:02}"));
            std::fs::create_dir_all(&dir).expect("bench folder");
            for name in FILES {
                let animation = name.starts_with("gate") && name.ends_with("1.md2") || name.ends_with("M2.md2");
                std::fs::write(dir.join(name), if animation { &clip[..] } else { b"x" }).expect("bench file");
            }
        }
    }
    root
}

fn count_files(root: &Path) -> usize {
    let mut count = 0;
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("listed").flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(entry.path());
            } else {
                count += 1;
            }
        }
    }
    count
}

fn benches(c: &mut Criterion) {
    let root = write_install();
    assert_eq!(count_files(&root), KINDS * PER_KIND * FILES.len(), "10,000 files");
    let folders = listing::list(&root).expect("listing");
    assert_eq!(folders.len(), KINDS * PER_KIND, "500 folders with models");
    // gate with its four animations, tris, weapon and unit: four models per folder.
    assert_eq!(folders.iter().map(|f| f.models.len()).sum::<usize>(), KINDS * PER_KIND * 4);

    c.bench_function("list 10,000 files in 500 folders", |b| {
        b.iter(|| black_box(listing::list(&root).expect("listing")))
    });
    c.bench_function("first folder of 10,000 files", |b| {
        b.iter(|| {
            let mut first = None;
            listing::walk(&root, |folder| {
                first = Some(folder);
                ControlFlow::Break(())
            })
            .expect("listing");
            black_box(first)
        })
    });
    std::fs::remove_dir_all(&root).ok();
}

criterion_group!(listing_group, benches);
main_with_kept_heap!(listing_group);
