//! Minimum and median times of the M2 performance targets, for comparing two builds by
//! alternating their binaries (this VM's timings swing between levels from one process to
//! the next, so a single criterion run cannot separate small changes):
//! - `tank`: `decode_with_skin` of `tank.m2` + `tank00.skin` from memory (skipped when the
//!   corpus is absent);
//! - `character`: the scene build of the character-shaped records of `benches/m2_models`
//!   (140 bones, 147 sequences, 5,465 vertices), as `cargo bench --bench m2` times it (each
//!   scene freed outside the timing).
//!
//! - `character file`: the same records written as `.m2` + `.skin` bytes (`m2_models::encode`;
//!   2.3 MB, heavier than the real 1.4 MB file) and opened from them: decode and build.
//!
//! Prints "<name>\t<min>\t<median>" (µs for tank, ms for the character).
//! Run: `cargo run --release --example m2_timing -- [TANK_RUNS] [CHARACTER_RUNS] [FILE_RUNS]`
//! (`FILE_RUNS` defaults to `CHARACTER_RUNS`; a run count of 0 leaves that measurement out,
//! so that a profiler sees one path alone).

#[path = "../benches/m2_models/mod.rs"]
mod m2_models;

use std::hint::black_box;
use std::time::Instant;

use mdview::formats::m2::{BuildOptions, build, decode_with_skin};

/// (minimum, median) of `runs` timings of opening `m2` + `skin` from memory; each scene is
/// freed outside the timing.
fn time_open(runs: usize, m2: &[u8], skin: &[u8], options: &BuildOptions) -> (f64, f64) {
    min_and_median(runs, || {
        let started = Instant::now();
        let scene = decode_with_skin(black_box(m2), black_box(skin), options);
        let took = started.elapsed().as_secs_f64();
        drop(black_box(scene));
        took
    })
}

/// (minimum, median) of `runs` timings in seconds, each from `run`.
fn min_and_median(runs: usize, mut run: impl FnMut() -> f64) -> (f64, f64) {
    let mut times: Vec<f64> = (0..runs.max(1)).map(|_| run()).collect();
    times.sort_by(f64::total_cmp);
    (times.first().copied().unwrap_or(0.0), times.get(times.len() / 2).copied().unwrap_or(0.0))
}

fn main() {
    // The heap as the `mdview` binary keeps it, so these timings are the program's.
    mdview::heap::keep_freed_memory();
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let tank_runs = args.next().flatten().unwrap_or(2000);
    let character_runs = args.next().flatten().unwrap_or(30);
    let file_runs = args.next().flatten().unwrap_or(character_runs);
    let options = BuildOptions::default();

    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/m2/tank"));
    match (std::fs::read(dir.join("tank.m2")), std::fs::read(dir.join("tank00.skin"))) {
        _ if tank_runs == 0 => {}
        (Ok(m2), Ok(skin)) => {
            let (min, median) = time_open(tank_runs, &m2, &skin, &options);
            println!("tank µs\t{:.1}\t{:.1}", min * 1e6, median * 1e6);
        }
        _ => eprintln!("SKIP tank: corpus files absent under {}", dir.display()),
    }

    let (model, skin) = m2_models::character_model();
    if character_runs > 0 {
        let (min, median) = min_and_median(character_runs, || {
            let started = Instant::now();
            let scene = build::build(black_box(&model), Some(&skin), &options, 1_400_000);
            let took = started.elapsed().as_secs_f64();
            drop(black_box(scene));
            took
        });
        println!("character ms\t{:.2}\t{:.2}", min * 1e3, median * 1e3);
    }

    // The same records written as files and opened from their bytes: decode and build.
    if file_runs > 0 {
        let (m2, skin) = m2_models::encode(&model, &skin);
        let (min, median) = time_open(file_runs, &m2, &skin, &options);
        println!("character file ms\t{:.2}\t{:.2}", min * 1e3, median * 1e3);
    }
}
