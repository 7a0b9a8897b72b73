//! TPW animation files sit beside their model as `<base>M<n>.MD2`. This finds a model's
//! animations (case-insensitively, sorted by `n` numerically) and an animation's base model.

use std::path::{Path, PathBuf};

/// Splits a file stem like `gateM12` into (`gate`, 12). Case-insensitive `M`.
pub fn split_anim_stem(stem: &str) -> Option<(&str, u32)> {
    let digits_start = stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (head, digits) = stem.split_at(digits_start);
    let number = digits.parse::<u32>().ok()?;
    let base = head.strip_suffix(['M', 'm'])?;
    (!base.is_empty()).then_some((base, number))
}

fn is_md2(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"))
}

fn stem(path: &Path) -> Option<String> {
    path.file_stem().map(|s| s.to_string_lossy().into_owned())
}

fn folder_files(path: &Path) -> Vec<PathBuf> {
    let folder = crate::formats::assets::Assets::new().folder(&crate::formats::assets::model_folder(path));
    folder.files().filter_map(|asset| asset.path()).filter(|p| is_md2(p)).collect()
}

/// The animation files of the model at `base`, sorted by their number (M2 before M10).
pub fn animations_of(base: &Path) -> Vec<PathBuf> {
    let Some(base_stem) = stem(base) else { return Vec::new() };
    animations_in(&folder_files(base), &base_stem)
}

/// Among `files`, the animations of the base stem, sorted numerically.
pub fn animations_in(files: &[PathBuf], base_stem: &str) -> Vec<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = files
        .iter()
        .filter_map(|p| {
            let s = stem(p)?;
            let (b, n) = split_anim_stem(&s)?;
            b.eq_ignore_ascii_case(base_stem).then(|| (n, p.clone()))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, p)| p).collect()
}

/// The base model beside an animation file, matched case-insensitively.
pub fn base_model(anim: &Path) -> Option<PathBuf> {
    let anim_stem = stem(anim)?;
    let (base, _) = split_anim_stem(&anim_stem)?;
    let mut candidates: Vec<PathBuf> =
        folder_files(anim).into_iter().filter(|p| stem(p).is_some_and(|s| s.eq_ignore_ascii_case(base))).collect();
    candidates.sort();
    candidates.into_iter().next()
}

/// The clip name for an animation file: its `M<n>` suffix when it has a base, else its stem.
pub fn clip_name(anim: &Path, base: Option<&Path>) -> String {
    let anim_stem = stem(anim).unwrap_or_default();
    match (split_anim_stem(&anim_stem), base) {
        (Some((_, n)), Some(_)) => format!("M{n}"),
        _ => anim_stem,
    }
}

/// Whether two paths name the same file (by canonical path, falling back to the name).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_suffixes_case_insensitively() {
        assert_eq!(split_anim_stem("gateM1"), Some(("gate", 1)));
        assert_eq!(split_anim_stem("droidm2"), Some(("droid", 2)));
        assert_eq!(split_anim_stem("Advisorm14"), Some(("Advisor", 14)));
        assert_eq!(split_anim_stem("gate"), None);
        assert_eq!(split_anim_stem("M1"), None);
        assert_eq!(split_anim_stem("SCALE"), None);
    }

    #[test]
    fn sorts_numerically_and_matches_case_insensitively() {
        let files: Vec<PathBuf> =
            ["GATEm10.md2", "gateM2.MD2", "gate.MD2", "gatem1.MD2", "gatepostM1.MD2", "other.md2"]
                .iter()
                .map(PathBuf::from)
                .collect();
        let found = animations_in(&files, "gate");
        let names: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(names, ["gatem1.MD2", "gateM2.MD2", "GATEm10.md2"]);
    }
}
