//! How the process's heap gives memory back to the kernel.
//!
//! glibc's defaults give the top of the heap back once a little lies free there (128 KiB at
//! first; glibc raises that bound as it goes), and put large blocks in mappings of their own
//! that are unmapped when freed. A decode allocates and frees a few hundred blocks, so opening
//! one model after another faulted the same pages in again each time: `cargo bench --bench m2`
//! took 60 µs for `tank.m2`, 47 µs with the heap kept. The cost is memory held for reuse: up
//! to `KEEP_FREED_BYTES` (64 MiB) free at the top of each of glibc's arenas (one per thread that
//! allocates, at most a few), as glibc's own rising bounds could also reach.

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
