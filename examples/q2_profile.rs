//! Decodes one Quake II model many times, for profiling (`perf record`, `valgrind
//! --tool=callgrind`): from a slice (`quake2::decode`, which copies it), with `shared` first
//! from a shared buffer as the peer benchmark does (`formats::decode_shared`), or with `open`
//! first as a whole `formats::open` from the path.
fn main() {
    // The heap as the `mdview` binary keeps it, so these timings are the program's.
    mdview::heap::keep_freed_memory();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().filter(|a| *a == "open" || *a == "shared").cloned();
    if mode.is_some() {
        args.remove(0);
    }
    let path = args.first().expect("[open|shared] a .md2 path").clone();
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(20000);
    let bytes = std::fs::read(&path).expect("read");
    let shared: Option<mdview::scene::SharedBytes> =
        (mode.as_deref() == Some("shared")).then(|| std::sync::Arc::new(bytes.clone()));
    let mut n = 0;
    for _ in 0..runs {
        n += if mode.as_deref() == Some("open") {
            mdview::formats::open(std::path::Path::new(&path)).map(|s| s.clips.len()).unwrap_or(0)
        } else if let Some(shared) = &shared {
            mdview::formats::decode_shared(std::hint::black_box(shared.clone())).map(|s| s.clips.len()).unwrap_or(0)
        } else {
            mdview::formats::quake2::decode(std::hint::black_box(&bytes)).map(|s| s.clips.len()).unwrap_or(0)
        };
    }
    println!("{n}");
}
