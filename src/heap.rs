//! How the process's heap gives memory back to the kernel.
//!
//! glibc's defaults return the top of the heap as soon as 128 KiB lie free there, and give
//! each allocation of 128 KiB or more a mapping of its own that is unmapped when freed. A
//! decode allocates and frees a few hundred blocks, some that large, so opening one model
//! after another faulted the same pages in again each time: `cargo bench --bench m2` took
//! 60 µs for `tank.m2`, 47 µs with the heap kept.

/// Freed heap up to this size stays with the process for the next open.
const KEEP_FREED_BYTES: i32 = 64 << 20;
/// Allocations below this size come from the heap, not from a mapping of their own.
const OWN_MAPPING_FROM_BYTES: i32 = 32 << 20;

/// Keeps freed memory for reuse (see the module). Called first thing by the `mdview` binary,
/// and by the benchmarks so that they time what it runs. Does nothing on other C libraries.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets two of glibc's tuning numbers, under the allocator's own lock;
    // it touches no memory of ours. A refusal (return 0) leaves the defaults, which still work.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREED_BYTES);
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_MAPPING_FROM_BYTES);
    }
}
