//! Fuzz target `md3`: see `mdview::fuzzing` for what one input goes through.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mdview_fuzz::run("md3", data));
