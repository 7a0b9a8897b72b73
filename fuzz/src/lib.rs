//! What every fuzz target shares: the library's counting allocator, and [`run`], which sends
//! one input through `mdview::fuzzing`'s entry point of that name and makes a finding of any
//! run whose peak heap went past the allocation limit.

#[global_allocator]
static ALLOCATOR: mdview::fuzzing::CountingAllocator = mdview::fuzzing::CountingAllocator;

pub fn run(name: &str, data: &[u8]) {
    if let Err(excess) = mdview::fuzzing::run_checked(name, data) {
        panic!("{excess}");
    }
}
