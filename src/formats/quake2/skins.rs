//! Finds a Quake II skin on disk: the path as written (relative to the model's folder or any
//! folder above it, which is where a game folder would be), then its basename in the model's
//! folder with any of `.pcx`, `.png`, `.tga`, `.bmp`, all matched case-insensitively.

use std::path::{Path, PathBuf};

/// Image extensions a skin may have, in the order they are tried after the written one.
pub const SKIN_EXTENSIONS: [&str; 4] = ["pcx", "png", "tga", "bmp"];

/// The file for skin `name` of the model at `model`, if one exists.
pub fn resolve(model: &Path, name: &str) -> Option<PathBuf> {
    let folder = model.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let written = Path::new(name.trim());
    if written.is_absolute() && written.is_file() {
        return Some(written.to_path_buf());
    }
    for base in folder.ancestors() {
        if let Some(found) = find_case_insensitive(base, written) {
            return Some(found);
        }
    }
    let stem = written.file_stem()?.to_string_lossy().to_lowercase();
    let written_ext = written.extension().map(|e| e.to_string_lossy().to_lowercase());
    let mut candidates: Vec<(usize, PathBuf)> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_stem().is_some_and(|s| s.to_string_lossy().to_lowercase() == stem))
        .filter_map(|p| {
            let ext = p.extension()?.to_string_lossy().to_lowercase();
            let position = SKIN_EXTENSIONS.iter().position(|e| *e == ext)?;
            // The written extension first, then the usual order.
            let rank = if written_ext.as_deref() == Some(ext.as_str()) { 0 } else { 1 + position };
            Some((rank, p))
        })
        .collect();
    candidates.sort();
    candidates.into_iter().next().map(|(_, p)| p)
}

/// `relative` under `base`, matching each component case-insensitively.
fn find_case_insensitive(base: &Path, relative: &Path) -> Option<PathBuf> {
    let mut current = base.to_path_buf();
    for component in relative.components() {
        let wanted = component.as_os_str().to_string_lossy().to_lowercase();
        let exact = current.join(component);
        if exact.exists() {
            current = exact;
            continue;
        }
        current = std::fs::read_dir(&current)
            .ok()?
            .filter_map(|e| e.ok())
            .find(|e| e.file_name().to_string_lossy().to_lowercase() == wanted)?
            .path();
    }
    current.is_file().then_some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_written_path_and_basename_with_other_extension() {
        let dir = std::env::temp_dir().join(format!("mdview-skins-{}", std::process::id()));
        let sub = dir.join("models").join("tank");
        std::fs::create_dir_all(&sub).unwrap();
        let model = sub.join("tris.md2");
        std::fs::write(sub.join("Skin.PCX"), b"x").unwrap();
        std::fs::write(sub.join("other.png"), b"x").unwrap();
        // As written, from the game folder above the model.
        assert_eq!(resolve(&model, "models/tank/skin.pcx"), Some(sub.join("Skin.PCX")));
        // Basename with another extension.
        assert_eq!(resolve(&model, "players/x/other.pcx"), Some(sub.join("other.png")));
        assert_eq!(resolve(&model, "missing.pcx"), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
