//! Decodes one Quake II model many times, for profiling (`perf record`).
fn main() {
    let path = std::env::args().nth(1).expect("a .md2 path");
    let bytes = std::fs::read(path).expect("read");
    let mut n = 0;
    for _ in 0..20000 {
        n += mdview::formats::quake2::decode(std::hint::black_box(&bytes)).map(|s| s.clips.len()).unwrap_or(0);
    }
    println!("{n}");
}
