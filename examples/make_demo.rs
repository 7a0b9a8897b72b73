//! Regenerates the built-in demo park under `assets/demo/` (`cargo run --example make_demo`).
//! The output is deterministic; `tests/demo.rs` checks the committed files against it.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join("demo");
    std::fs::create_dir_all(&dir)?;
    let files = mdview::demo::generate();
    for (name, data) in &files {
        let path = dir.join(name);
        let unchanged = std::fs::read(&path).is_ok_and(|old| old == *data);
        if !unchanged {
            std::fs::write(&path, data)?;
        }
        println!("{} {name} ({} bytes)", if unchanged { "kept " } else { "wrote" }, data.len());
    }
    for entry in std::fs::read_dir(&dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !files.iter().any(|(n, _)| *n == name) {
            println!("note: {name} is not generated; remove it or add it to mdview::demo");
        }
    }
    Ok(())
}
