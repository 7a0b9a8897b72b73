//! Archive and texture performance targets, measured with criterion:
//! - listing a 2,000-entry archive (header, entry table, filename block, directory prefixes,
//!   case-insensitive lookup table): under 5 ms;
//! - decoding a 256x256 WCT with alpha (BILZ chunks, four inverse wavelets, YCbCr to RGB):
//!   under 2 ms;
//! - opening a model from inside a RefPack-compressed archive, with its sibling animations:
//!   at most 1.5x the same model opened as loose files. Measured warm (the archive's index is
//!   cached, as when stepping through it in the viewer) and cold (the archive read and indexed
//!   on every open).
//!
//! Run: `cargo bench --bench wad`

#[macro_use]
mod kept_heap;

use std::hint::black_box;

use criterion::{Criterion, criterion_group};
use mdview::formats::wad::{read_entry, read_index};
use mdview::formats::wct;
use mdview::writers::wad::{WadMember, write_wad};
use mdview::writers::wct::WctOptions;

/// 2,000 members in 40 directories, names like a real install's, each a few bytes.
fn big_archive() -> Vec<u8> {
    let members: Vec<WadMember> = (0..2000)
        .map(|i| WadMember::stored(format!("theme{:02}\\models\\object_{i:04}M{}.MD2", i % 40, i % 7), &[i as u8; 16]))
        .collect();
    write_wad(&members)
}

/// A 256x256 picture with smooth gradients and a cut-out alpha disc.
fn texture_256() -> Vec<u8> {
    let picture: Vec<u8> = (0..256 * 256u32)
        .flat_map(|i| {
            let (x, y) = (i % 256, i / 256);
            let d = (x as f32 - 128.0).hypot(y as f32 - 128.0);
            [x as u8, y as u8, ((x + y) / 2) as u8, if d < 100.0 { 255 } else { 0 }]
        })
        .collect();
    mdview::writers::wct::encode(&picture, 256, 256, WctOptions { alpha: true, ..Default::default() })
}

fn benches(c: &mut Criterion) {
    let archive = big_archive();
    let index = read_index(&archive).unwrap();
    assert_eq!(index.entries.len(), 2000);
    assert!(read_entry(&archive, index.find("theme07/models/object_1007M6.MD2").unwrap()).is_ok());
    c.bench_function("wad: list a 2,000-entry archive", |b| b.iter(|| read_index(black_box(&archive)).unwrap()));

    let texture = texture_256();
    let decoded = wct::decode(&texture).unwrap();
    assert!(decoded.has_alpha && decoded.width == 256);
    c.bench_function("wct: decode 256x256 with alpha", |b| b.iter(|| wct::decode(black_box(&texture)).unwrap()));

    let dir = mdview::demo::extract().unwrap();
    let loose = dir.join("island.MD2");
    let member = dir.join(mdview::demo::MAIN_MODEL);
    let (a, b) = (mdview::formats::open(&loose).unwrap(), mdview::formats::open(&member).unwrap());
    assert_eq!((a.meshes.len(), a.clips.len()), (b.meshes.len(), b.clips.len()));
    let mut group = c.benchmark_group("open island.MD2 with its animation");
    group.bench_function("loose file", |b| b.iter(|| mdview::formats::open(black_box(&loose)).unwrap()));
    group.bench_function("in park.wad, warm", |b| b.iter(|| mdview::formats::open(black_box(&member)).unwrap()));
    group.bench_function("in park.wad, cold", |b| {
        b.iter(|| {
            mdview::formats::vfs::clear_cache();
            mdview::formats::open(black_box(&member)).unwrap()
        })
    });
    group.finish();
}

criterion_group!(wad, benches);

main_with_kept_heap!(wad);
