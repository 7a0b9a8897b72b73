//! The mdview side of the peer benchmark (`benches/peers/peers.py`): decodes each file named
//! on the command line from memory, RUNS times, with the timer around the call only, exactly
//! as `benches/peers/assimp_import.cpp` times assimp. Prints "<path>\t<median µs>\t<min µs>".
//! The bytes are read once into a shared buffer (`SharedBytes`), as a viewer holds a file, and
//! decoded with `formats::decode_shared`, which keeps Quake II frames as a view of that buffer
//! rather than a copy; assimp likewise reads from the caller's buffer.
//!
//! Run: `cargo run --release --example peer_decode -- 200 FILE...`

use std::hint::black_box;
use std::time::Instant;

fn main() {
    // The heap as the `mdview` binary keeps it, so these timings are the program's.
    mdview::heap::keep_freed_memory();
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200).max(1);
    for path in args {
        let bytes: mdview::scene::SharedBytes = match std::fs::read(&path) {
            Ok(bytes) => std::sync::Arc::new(bytes),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let mut micros: Vec<f64> = Vec::with_capacity(runs);
        let mut ok = true;
        for _ in 0..runs {
            let started = Instant::now();
            let scene = mdview::formats::decode_shared(black_box(bytes.clone()));
            let took = started.elapsed();
            ok &= scene.is_ok();
            // Dropped outside the timed region, as the C++ side destroys its Importer outside it.
            drop(black_box(scene));
            micros.push(took.as_secs_f64() * 1e6);
        }
        micros.sort_by(f64::total_cmp);
        if ok {
            println!("{path}\t{:.2}\t{:.2}", micros[micros.len() / 2], micros[0]);
        } else {
            println!("{path}\tfailed\tfailed");
        }
    }
}
