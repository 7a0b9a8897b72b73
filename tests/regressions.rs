//! Replays every input that ever failed a fuzz target (`tests/regressions/<target>/`), under the
//! same allocation limit and the same 2 s budget the fuzzer gives one input, so that a plain
//! `cargo test` on stable keeps checking every fixed crash.

use std::path::Path;
use std::time::{Duration, Instant};

use mdview::fuzzing::{CountingAllocator, TARGETS, run_checked};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const PER_INPUT: Duration = Duration::from_secs(2);

#[test]
fn every_kept_fuzz_finding_stays_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut replayed = 0;
    let mut failures = Vec::new();
    for target in TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target.name)) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let data = std::fs::read(&path).expect("regression file reads");
            let start = Instant::now();
            if let Err(e) = run_checked(target.name, &data) {
                failures.push(format!("{}: {e}", path.display()));
            }
            if start.elapsed() > PER_INPUT {
                failures.push(format!("{}: took {:?}", path.display(), start.elapsed()));
            }
            replayed += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("replayed {replayed} kept fuzz findings");
}

/// The folder of each target exists, so that a finding has one obvious place to go.
#[test]
fn each_target_has_a_regression_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    for target in TARGETS {
        assert!(root.join(target.name).is_dir(), "tests/regressions/{} is missing", target.name);
    }
}
