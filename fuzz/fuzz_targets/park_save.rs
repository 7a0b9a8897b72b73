//! Fuzz target `park_save`: see `mdview::fuzzing` for what one input goes through.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mdview_fuzz::run("park_save", data));
