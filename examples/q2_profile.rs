//! Decodes (or, with `open` first, opens) one Quake II model many times, for profiling
//! (`perf record`, `valgrind --tool=callgrind`).
fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let open = args.first().is_some_and(|a| a == "open");
    if open {
        args.remove(0);
    }
    let path = args.first().expect("[open] a .md2 path").clone();
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(20000);
    let bytes = std::fs::read(&path).expect("read");
    let mut n = 0;
    for _ in 0..runs {
        n += if open {
            mdview::formats::open(std::path::Path::new(&path)).map(|s| s.clips.len()).unwrap_or(0)
        } else {
            mdview::formats::quake2::decode(std::hint::black_box(&bytes)).map(|s| s.clips.len()).unwrap_or(0)
        };
    }
    println!("{n}");
}
