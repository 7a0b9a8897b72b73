//! `mdview info ARCHIVE.wad` and `mdview extract`: an archive's member listing (text or
//! JSON) and writing every member out, decompressed, with `.wct` textures optionally also as
//! PNG. One bad member never hides the others: failures are collected and reported.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde::Serialize;

use crate::formats::wad::{WadArchive, read_entry};

/// One member as `info` lists it.
#[derive(Debug, Serialize)]
pub struct MemberRow {
    pub path: String,
    pub size: u64,
    pub stored_size: u64,
    pub compression: String,
}

/// An archive's members, in table order, with its warnings.
#[derive(Debug, Serialize)]
pub struct ArchiveListing {
    pub archive: String,
    pub version: u32,
    pub members: Vec<MemberRow>,
    pub warnings: Vec<String>,
}

/// Reads an archive from disk, with errors that name it.
pub fn open_archive(path: &Path) -> Result<WadArchive> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    WadArchive::from_bytes(data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// As [`open_archive`], for `extract`: a member whose data runs past the end of a cut-off
/// archive is listed, and fails alone when it is written ([`WadArchive::salvaging`]).
pub fn open_archive_salvaging(path: &Path) -> Result<WadArchive> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    WadArchive::salvaging(data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

impl ArchiveListing {
    pub fn of(path: &Path, archive: &WadArchive) -> Self {
        let members = archive
            .index
            .entries
            .iter()
            .map(|e| MemberRow {
                path: e.path.clone(),
                size: e.size,
                stored_size: e.stored_size,
                compression: e.compression.label(),
            })
            .collect();
        Self {
            archive: path.display().to_string(),
            version: archive.index.version,
            members,
            warnings: archive.index.warnings.clone(),
        }
    }

    pub fn to_text(&self) -> String {
        let total: u64 = self.members.iter().map(|m| m.size).sum();
        let stored: u64 = self.members.iter().map(|m| m.stored_size).sum();
        let mut out = format!(
            "{}: WAD archive (DWFB version {}), {} members, {total} bytes ({stored} stored)\n",
            self.archive,
            self.version,
            self.members.len()
        );
        let width = self.members.iter().map(|m| m.path.len()).max().unwrap_or(4).max(4);
        out.push_str(&format!("  {:<width$}  {:>10}  {:>10}  compression\n", "name", "size", "stored"));
        for m in &self.members {
            out.push_str(&format!("  {:<width$}  {:>10}  {:>10}  {}\n", m.path, m.size, m.stored_size, m.compression));
        }
        for w in &self.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        out
    }
}

/// What `extract` did.
#[derive(Debug, Default)]
pub struct ExtractReport {
    pub written: usize,
    pub pngs: usize,
    /// One line per member that failed: the archive, the entry and why.
    pub failures: Vec<String>,
}

/// `member` under `out_dir`, refusing anything but plain names (the reader already refuses
/// `..`; this keeps a writer safe on its own).
fn destination(out_dir: &Path, member: &str) -> Option<PathBuf> {
    let relative = Path::new(member);
    relative.components().all(|c| matches!(c, Component::Normal(_))).then(|| out_dir.join(relative))
}

/// Writes every member of `archive` under `out_dir`, directories kept; with `png`, each
/// `.wct` is also decoded and written as `<name>.png` beside it.
pub fn extract(path: &Path, archive: &WadArchive, out_dir: &Path, png: bool) -> Result<ExtractReport> {
    let mut report = ExtractReport::default();
    for entry in &archive.index.entries {
        let fail = |why: String| format!("{}: entry {} ({}): {why}", path.display(), entry.index, entry.path);
        let Some(target) = destination(out_dir, &entry.path) else {
            report.failures.push(fail("not a plain relative path".into()));
            continue;
        };
        let data = match read_entry(&archive.data, entry) {
            Ok(d) => d,
            Err(e) => {
                report.failures.push(fail(e.to_string()));
                continue;
            }
        };
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, &data).with_context(|| format!("writing {}", target.display()))?;
        report.written += 1;
        let is_wct = Path::new(&entry.path).extension().is_some_and(|e| e.eq_ignore_ascii_case("wct"));
        if png && is_wct {
            match crate::formats::wct::decode(&data) {
                Ok(image) => {
                    let png_path = target.with_extension("png");
                    image::save_buffer(&png_path, &image.rgba, image.width, image.height, image::ColorType::Rgba8)
                        .with_context(|| format!("writing {}", png_path.display()))?;
                    report.pngs += 1;
                }
                Err(e) => report.failures.push(fail(e.to_string())),
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_stay_inside_the_output_folder() {
        let out = Path::new("/tmp/out");
        assert_eq!(destination(out, "models/a.MD2"), Some(PathBuf::from("/tmp/out/models/a.MD2")));
        assert_eq!(destination(out, "../x"), None);
        assert_eq!(destination(out, "/etc/x"), None);
    }
}
