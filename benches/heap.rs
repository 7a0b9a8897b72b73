//! Folder stepping, the heap's heaviest pattern in the viewer: every model under a folder
//! opened one after another in one process, with its images decoded, as the viewer's loader
//! does when a user steps through a folder, and the scene dropped before the next. Prints the
//! rounds' total and per-open median in µs, and the process's resident memory after them, so
//! that heap settings (`mdview::heap`) can be compared on the same files.
//!
//! Run: `cargo bench --bench heap -- DIR [ROUNDS]` (3 rounds by default).

use std::time::Instant;

use rayon::prelude::*;

fn main() {
    // The heap as the `mdview` binary keeps it, so these timings are the program's.
    mdview::heap::keep_freed_memory();
    // `cargo bench` passes `--bench`; the folder is the first argument that is not a flag.
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let Some(dir) = args.next() else {
        eprintln!("usage: cargo bench --bench heap -- DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let files = mdview::scan::model_files(std::path::Path::new(&dir)).unwrap_or_else(|e| {
        eprintln!("{dir}: {e}");
        std::process::exit(1);
    });
    let mut micros = Vec::with_capacity(files.len() * rounds);
    let mut failed = 0usize;
    let started = Instant::now();
    for _ in 0..rounds {
        for path in &files {
            let opened = Instant::now();
            match mdview::formats::open(path) {
                Ok(scene) => {
                    scene.images.par_iter().for_each(|image| {
                        let _ = image.load();
                    });
                    micros.push(opened.elapsed().as_secs_f64() * 1e6);
                    drop(std::hint::black_box(scene));
                }
                Err(_) => failed += 1,
            }
        }
    }
    let total = started.elapsed();
    micros.sort_by(f64::total_cmp);
    let median = micros.get(micros.len() / 2).copied().unwrap_or(0.0);
    println!(
        "{} opens ({failed} failed) of {} files in {rounds} rounds: {:.1} ms, median open {median:.1} µs, RSS after {} KiB",
        micros.len(),
        files.len(),
        total.as_secs_f64() * 1e3,
        resident_kib().map_or("?".into(), |k| k.to_string()),
    );
}

/// The process's resident set size now, from `/proc/self/status` (Linux only).
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
