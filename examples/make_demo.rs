//! Regenerates the built-in demo under `assets/demo/` (`cargo run --example make_demo`): the
//! models, their textures and `park.wad`, and the park (its install under `data/levels/` and
//! its save `demo.TPWS`). The output is deterministic; `tests/demo.rs` checks the
//! committed files against it.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join("demo");
    std::fs::create_dir_all(&dir)?;
    let files: Vec<(String, Vec<u8>)> =
        mdview::demo::generate().into_iter().chain(mdview::demo::generate_park()).collect();
    let mut total = 0;
    for (name, data) in &files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let unchanged = std::fs::read(&path).is_ok_and(|old| old == *data);
        if !unchanged {
            std::fs::write(&path, data)?;
        }
        total += data.len();
        println!("{} {name} ({} bytes)", if unchanged { "kept " } else { "wrote" }, data.len());
    }
    println!("{} files, {total} bytes", files.len());
    for path in walk(&dir)? {
        let name = path.strip_prefix(&dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        if !files.iter().any(|(n, _)| *n == name) {
            println!("note: {name} is not generated; remove it or add it to mdview::demo");
        }
    }
    Ok(())
}

/// Every file under `dir`, depth first.
fn walk(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}
