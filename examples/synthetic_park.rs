//! Writes a synthetic park of generated TPW models for contact-sheet figures:
//! `cargo run --release --example synthetic_park -- DIR [COUNT]` (2,300 by default, about the
//! number of models in a TPW install), with the demo textures beside them.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: synthetic_park DIR [COUNT]");
        std::process::exit(2);
    };
    let count = args.next().and_then(|c| c.to_str()?.parse().ok()).unwrap_or(2300);
    std::fs::create_dir_all(&dir)?;
    for (name, data) in mdview::demo::synthetic_park(count) {
        std::fs::write(dir.join(name), data)?;
    }
    for (name, data) in mdview::demo::files().iter().filter(|(n, _)| n.ends_with(".png")) {
        std::fs::write(dir.join(name), data)?;
    }
    println!("wrote {count} models to {}", dir.display());
    Ok(())
}
