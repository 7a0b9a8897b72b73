//! How the process's heap gives memory back to the kernel.
//!
//! glibc's defaults give the top of the heap back once a little lies free there (128 KiB at
//! first; glibc raises that bound as it goes), and put large blocks in mappings of their own
//! that are unmapped when freed. A decode allocates and frees a few hundred blocks, so opening
//! one model after another faulted the same pages in again each time: `cargo bench --bench m2`
//! took 60 µs for `tank.m2`, 47 µs with the heap kept. The cost is memory held for reuse: up
//! to `KEEP_FREED_BYTES` (64 MiB) free at the top of each of glibc's arenas (one per thread that
//! allocates, at most a few), as glibc's own rising bounds could also reach.
//!
//! # glibc kept, mimalloc measured (2026-12-05)
//!
//! mimalloc 0.1.52 (mimalloc v3) as the `#[global_allocator]` of the binary (B) against these
//! settings (A), on the same build otherwise, A and B alternating run by run. The machine has
//! 2 cores shared with other compiles (`uptime` load 4 to 9.7 throughout), so wall times
//! vary by up to 2x between runs; CPU times less. The models are 2,300 synthetic TPW models
//! (`cargo run --release --example synthetic_park -- DIR`) and the corpus.
//!
//! | pattern (runs of each) | A: glibc, these settings | B: mimalloc |
//! | --- | --- | --- |
//! | sheet, `mdview render DIR --sheet S.png` on lavapipe (5) | user+sys median 11.59 s (min 11.35), wall median 23.3 s; peak 821 MiB, 120–138 MiB at the end | median 12.41 s (min 11.24), wall median 26.9 s; peak 870–875 MiB, 242–856 MiB at the end (four runs of five over 750) |
//! | `mdview scan DIR` (3) | 0.38–0.57 s, 27 MiB peak | 0.38–0.42 s, 46 MiB peak |
//! | `mdview export DIR -o OUT` (8) | user+sys median 3.77 s (min 2.44), wall median 7.4 s; peak 13 MiB | median 3.02 s (min 1.92), wall median 6.3 s; peak 44–50 MiB |
//! | stepping the park, `cargo bench --bench heap -- DIR 1` (3) | median open 663–673 µs; 4.9 MiB held after | 596–602 µs; 22–23 MiB held after |
//! | stepping the corpus, `cargo bench --bench heap -- CORPUS 30` (3) | median open 171–177 µs; 6.9 MiB held after | 174–183 µs; 43–47 MiB held after |
//!
//! "At the end" is the last resident size sampled (every 10 ms) before the process exited;
//! "held after" is the bench's own, once the last scene is dropped. mimalloc is faster at a
//! batch export (a fifth less CPU) and at stepping through small synthetic models (a tenth), no
//! faster at the sheet or at stepping through real files, and holds 3 to 7 times the memory
//! afterwards (after a sheet, up to 856 MiB against 138). The viewer's own pattern is stepping
//! through real files in a long-lived process, so the win is not clear: glibc stays, and no
//! allocator crate is linked.

/// The top of the heap goes back to the kernel only once more than this lies free there.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
const KEEP_FREED_BYTES: i32 = 64 << 20;
/// Allocations below this size come from the heap, not from a mapping of their own (32 MiB is
/// the most glibc accepts on 64-bit targets).
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
const OWN_MAPPING_FROM_BYTES: i32 = 32 << 20;

/// The same settings as glibc tunables (the `GLIBC_TUNABLES` variable), for peer programs timed
/// beside mdview (`benches/export.rs`, `benches/peers/peers.py`), so both run on the same heap.
pub const GLIBC_TUNABLES: &str = "glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=33554432";

/// Keeps freed memory for reuse (see the module). Called first thing by the `mdview` binary,
/// and by the benchmarks so that they time what it runs. Does nothing on other C libraries.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets two of glibc's tuning numbers, under the allocator's own lock;
    // it touches no memory of ours. A refusal (return 0, as on 32-bit targets for the mapping
    // bound) leaves a fixed 128 KiB bound there: slower, never wrong.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREED_BYTES);
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_MAPPING_FROM_BYTES);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tunables_spell_the_same_settings() {
        let spelled = format!(
            "glibc.malloc.trim_threshold={}:glibc.malloc.mmap_threshold={}",
            super::KEEP_FREED_BYTES,
            super::OWN_MAPPING_FROM_BYTES
        );
        assert_eq!(spelled, super::GLIBC_TUNABLES);
    }
}
