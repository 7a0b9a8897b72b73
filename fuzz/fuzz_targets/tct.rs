//! Fuzz target `tct`: see `mdview::fuzzing` for what one input goes through.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mdview_fuzz::run("tct", data));
