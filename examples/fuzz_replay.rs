//! Replays inputs through one fuzz target's entry point in a plain release build, with the
//! targets' allocation limit, and prints the time each took: for looking into a finding
//! (`fuzz/artifacts/<target>/...`) without the fuzzer's instrumentation.
//!
//! Run: `cargo run --release --example fuzz_replay -- TARGET FILE...`

use std::time::Instant;

use mdview::fuzzing::{CountingAllocator, run_checked};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(target) = args.next() else {
        eprintln!("usage: fuzz_replay TARGET FILE...");
        std::process::exit(2);
    };
    let mut failed = false;
    for path in args {
        let data = match std::fs::read(&path) {
            Ok(data) => data,
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
                continue;
            }
        };
        let started = Instant::now();
        let outcome = run_checked(&target, &data);
        let took = started.elapsed();
        match outcome {
            Ok(()) => println!("{path}: ok in {took:.2?}"),
            Err(e) => {
                println!("{path}: FAILED in {took:.2?}: {e}");
                failed = true;
            }
        }
    }
    std::process::exit(i32::from(failed));
}
