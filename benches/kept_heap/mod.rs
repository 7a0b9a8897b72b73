//! The `main` every benchmark here ends with: criterion's own (`criterion_main!`), with the heap
//! set first as the `mdview` binary keeps it, so that the timings are the program's. criterion
//! has no hook that runs before its groups, hence this macro instead of `criterion_main!`.

/// A `main` that keeps the heap ([`mdview::heap::keep_freed_memory`]), runs the criterion
/// `groups` and prints criterion's summary.
macro_rules! main_with_kept_heap {
    ($($group:path),+ $(,)?) => {
        fn main() {
            mdview::heap::keep_freed_memory();
            $($group();)+
            criterion::Criterion::default().configure_from_args().final_summary();
        }
    };
}
