//! `mdview info ARCHIVE.wad` and `mdview extract`: an archive's member listing (text or
//! JSON) and writing every member out, decompressed, with `.wct` textures optionally also as
//! PNG. One bad member never hides the others: failures are collected and reported, each as
//! one line in our own words (a dependency's error text never reaches the user as it is).

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow};
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

/// `text` on one line: line breaks and other control characters escaped (`\n`), so a name
/// or reason that holds one cannot split a message.
pub fn one_line(text: &str) -> String {
    text.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}

/// Our wording for an I/O failure: its kind, and the OS's error number where there is one.
pub fn io_reason(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(code) => format!("{} (os error {code})", error.kind()),
        None => error.kind().to_string(),
    }
}

/// Our wording for a failure of the `image` crate's PNG encoder.
fn png_reason(error: &image::ImageError) -> String {
    match error {
        image::ImageError::IoError(io) => io_reason(io),
        image::ImageError::Limits(_) => "the image is over the encoder's limits".into(),
        image::ImageError::Unsupported(_) => "the encoder does not support this image".into(),
        image::ImageError::Parameter(_) => "the encoder refused the image's size".into(),
        image::ImageError::Encoding(_) | image::ImageError::Decoding(_) => "the PNG encoder failed".into(),
    }
}

fn read_archive_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| anyhow!("wad: {}: cannot read the file: {}", one_line(&path.display().to_string()), io_reason(&e)))
}

/// Reads an archive from disk, with errors that name it.
pub fn open_archive(path: &Path) -> Result<WadArchive> {
    let data = read_archive_file(path)?;
    WadArchive::from_bytes(data)
        .map_err(|e| anyhow!("{}: {}", one_line(&path.display().to_string()), one_line(&e.to_string())))
}

/// As [`open_archive`], for `extract`: a member whose data runs past the end of a cut-off
/// archive is listed, and fails alone when it is written ([`WadArchive::salvaging`]).
pub fn open_archive_salvaging(path: &Path) -> Result<WadArchive> {
    let data = read_archive_file(path)?;
    WadArchive::salvaging(data)
        .map_err(|e| anyhow!("{}: {}", one_line(&path.display().to_string()), one_line(&e.to_string())))
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
            warnings: archive.index.warnings.iter().map(|w| one_line(w)).collect(),
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
            let path = one_line(&m.path);
            out.push_str(&format!("  {path:<width$}  {:>10}  {:>10}  {}\n", m.size, m.stored_size, m.compression));
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

impl ExtractReport {
    /// The closing line: `3 members written to out, 1 PNG` (singular where one).
    pub fn summary(&self, out_dir: &Path, png: bool) -> String {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let pngs = if png { format!(", {}", plural(self.pngs, "PNG", "PNGs")) } else { String::new() };
        let out = one_line(&out_dir.display().to_string());
        format!("{} written to {out}{pngs}", plural(self.written, "member", "members"))
    }
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
    let archive_name = one_line(&path.display().to_string());
    for entry in &archive.index.entries {
        let fail = |why: String| {
            let member = one_line(&entry.path);
            format!(
                "{archive_name}: entry {} ({member}) at offset {:#x}: {}",
                entry.index,
                entry.data_offset,
                one_line(&why)
            )
        };
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
        let written = match target.parent() {
            Some(parent) => std::fs::create_dir_all(parent).map_err(|e| ("creating", parent.to_path_buf(), e)),
            None => Ok(()),
        }
        .and_then(|()| std::fs::write(&target, &data).map_err(|e| ("writing", target.clone(), e)));
        if let Err((doing, at, e)) = written {
            report.failures.push(fail(format!("{doing} {}: {}", at.display(), io_reason(&e))));
            continue;
        }
        report.written += 1;
        let is_wct = Path::new(&entry.path).extension().is_some_and(|e| e.eq_ignore_ascii_case("wct"));
        if png && is_wct {
            match crate::formats::wct::decode(&data) {
                Ok(image) => {
                    let png_path = target.with_extension("png");
                    match image::save_buffer(&png_path, &image.rgba, image.width, image.height, image::ColorType::Rgba8)
                    {
                        Ok(()) => report.pngs += 1,
                        Err(e) => {
                            report.failures.push(fail(format!("writing {}: {}", png_path.display(), png_reason(&e))))
                        }
                    }
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
