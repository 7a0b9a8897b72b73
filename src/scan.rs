//! `mdview scan DIR`: reads every model under a folder in parallel and tallies the corpus
//! tables the TPW spec was built from: mesh vs animation files, orphan animations, the track
//! table identity, tracks per channel bit, decoded vs skipped channels by reason, material flag
//! bits by use, and failures. Files are decoded once; animations bind against their base
//! model from the same pass, so no file is read twice.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::formats::tpw::anim::{AnimFile, BlockStatus};
use crate::formats::tpw::{self, TpwFile, TpwModel};
use crate::formats::{self, DecodeError};
use crate::scene::{AlphaMode, FormatKind};

/// Extensions that can hold a model; the content still decides the format.

#[derive(Debug, Default, Serialize)]
pub struct ChannelTally {
    pub decoded: u64,
    pub skipped: u64,
    /// Skip reasons with their numbers replaced by `#`, so like reasons group together.
    pub skipped_by_reason: BTreeMap<String, u64>,
}

#[derive(Debug, Default, Serialize)]
pub struct ScanReport {
    pub dir: String,
    pub files: u64,
    pub bytes: u64,
    pub by_format: BTreeMap<String, u64>,
    pub tpw_mesh_files: u64,
    pub tpw_animation_files: u64,
    /// Animation files with no base model beside them.
    pub animations_without_base: Vec<String>,
    pub identity_pass: u64,
    pub identity_fail: u64,
    /// Animation files whose block is missing or discarded (version, pointer 0).
    pub no_animation_block: u64,
    pub zero_track_files: u64,
    pub tracks: u64,
    /// Tracks carrying each channel flag bit (`0x8`, `0x1000`...).
    pub tracks_by_flag_bit: BTreeMap<String, u64>,
    pub tracks_with_slot_34: u64,
    pub rotation: ChannelTally,
    pub morph: ChannelTally,
    pub uv: ChannelTally,
    /// Animation files with at least one decoded channel that plays.
    pub files_with_playing_channel: u64,
    pub material_uses: u64,
    /// Material uses per flag bit.
    pub material_flag_bits: BTreeMap<String, u64>,
    /// Material uses per whole flag word.
    pub material_flag_values: BTreeMap<String, u64>,
    pub see_through_uses: u64,
    pub nodes: u64,
    pub sheared_nodes: u64,
    pub failed: Vec<FailedFile>,
    pub warnings: u64,
    pub elapsed_ms: f64,
}

#[derive(Debug, Serialize)]
pub struct FailedFile {
    pub path: String,
    pub error: String,
}

enum Decoded {
    Tpw(Box<TpwFile>),
    Other(FormatKind),
}

/// Every model-like file under `dir`, recursively, sorted.
pub fn model_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if formats::is_model_file(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A file's size and decoded content, or why it failed.
type DecodedFile = Result<(u64, Decoded), String>;

fn decode_path(path: &Path) -> DecodedFile {
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let size = data.len() as u64;
    let kind = formats::detect(&data).map_err(|e: DecodeError| e.to_string())?;
    let decoded = match kind {
        FormatKind::TpwMd2 => Decoded::Tpw(Box::new(tpw::decode_file(&data).map_err(|e| e.to_string())?)),
        other => {
            // Other formats are counted and checked by a full decode.
            formats::decode_bytes(&data).map_err(|e| e.to_string())?;
            Decoded::Other(other)
        }
    };
    Ok((size, decoded))
}

/// Replaces each run of digits (and hex literals) by `#`, so reasons group by kind.
fn reason_class(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            if c == '0' && chars.peek() == Some(&'x') {
                chars.next();
                while chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    chars.next();
                }
            }
            while chars.peek().is_some_and(|c| c.is_ascii_digit() || *c == '.') {
                chars.next();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

/// Scans `dir` (see the module doc).
pub fn scan_dir(dir: &Path) -> std::io::Result<ScanReport> {
    let started = Instant::now();
    let files = model_files(dir)?;
    let files_for_groups = files.clone();
    let results: Vec<(PathBuf, DecodedFile)> = files.into_par_iter().map(|p| (p.clone(), decode_path(&p))).collect();
    let mut report = ScanReport { dir: dir.display().to_string(), ..Default::default() };

    // Each animation's base model, grouped as the viewer groups a folder.
    let base_of: HashMap<PathBuf, PathBuf> = formats::group_models(files_for_groups)
        .into_iter()
        .flat_map(|group| group.animations.into_iter().map(move |anim| (anim, group.model.clone())))
        .collect();
    // Decoded base models by path, for binding animations without re-reading.
    let mut models: HashMap<&PathBuf, &TpwModel> = HashMap::new();
    let mut animations: Vec<(&PathBuf, &AnimFile)> = Vec::new();
    for (path, result) in &results {
        report.files += 1;
        match result {
            Err(error) => report.failed.push(FailedFile { path: path.display().to_string(), error: error.clone() }),
            Ok((size, decoded)) => {
                report.bytes += size;
                let format = match decoded {
                    Decoded::Tpw(_) => FormatKind::TpwMd2,
                    Decoded::Other(k) => *k,
                };
                *report.by_format.entry(format.id().to_string()).or_default() += 1;
                let tpw = match decoded {
                    Decoded::Tpw(file) => Some(file.as_ref()),
                    Decoded::Other(_) => None,
                };
                match tpw {
                    Some(TpwFile::Mesh(model)) => {
                        report.tpw_mesh_files += 1;
                        tally_mesh(&mut report, model);
                        models.insert(path, model);
                    }
                    Some(TpwFile::Anim { anim, .. }) => {
                        report.tpw_animation_files += 1;
                        animations.push((path, anim));
                    }
                    None => {}
                }
            }
        }
    }

    let bound: Vec<_> = animations
        .par_iter()
        .map(|(path, anim)| {
            let base = base_of.get(*path).and_then(|model| models.get(model)).copied();
            let clip = tpw::anim::bind(anim, base, "scan", None);
            (*path, *anim, base.is_some(), clip)
        })
        .collect();
    for (path, anim, has_base, clip) in bound {
        if !has_base {
            report.animations_without_base.push(path.display().to_string());
        }
        tally_animation(&mut report, anim, has_base, &clip);
    }
    report.animations_without_base.sort();
    report.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(report)
}

fn tally_mesh(report: &mut ScanReport, model: &TpwModel) {
    let scene = &model.scene;
    report.warnings += scene.warnings.len() as u64;
    report.nodes += scene.nodes.len() as u64;
    report.sheared_nodes += scene.nodes.iter().filter(|n| crate::scene::math::is_sheared(&n.local)).count() as u64;
    for material in scene.materials.iter().filter(|m| m.texture.is_some()) {
        report.material_uses += 1;
        *report.material_flag_values.entry(format!("{:#04x}", material.flags)).or_default() += 1;
        for bit in (0..32).map(|b| 1u32 << b).filter(|b| material.flags & b != 0) {
            *report.material_flag_bits.entry(format!("{bit:#04x}")).or_default() += 1;
        }
        if material.alpha != AlphaMode::Opaque {
            report.see_through_uses += 1;
        }
    }
}

fn tally_animation(report: &mut ScanReport, anim: &AnimFile, has_base: bool, clip: &crate::scene::Clip) {
    report.warnings += anim.warnings.len() as u64;
    match anim.status {
        BlockStatus::Readable => report.identity_pass += 1,
        BlockStatus::IdentityFailed => report.identity_fail += 1,
        BlockStatus::NoBlock | BlockStatus::Unreadable | BlockStatus::WrongVersion => report.no_animation_block += 1,
    }
    if anim.status == BlockStatus::Readable && anim.track_count == 0 {
        report.zero_track_files += 1;
    }
    let mut playing = false;
    for (track, bound) in anim.tracks.iter().zip(&clip.tracks) {
        report.tracks += 1;
        for bit in (0..32).map(|b| 1u32 << b).filter(|b| track.flags & b != 0) {
            *report.tracks_by_flag_bit.entry(format!("{bit:#x}")).or_default() += 1;
        }
        if track.slots.iter().any(|(n, v)| n == "+0x34" && *v != 0) {
            report.tracks_with_slot_34 += 1;
        }
        let kinds = [
            ("rotation", track.rotation.is_some(), &mut report.rotation),
            ("morph", track.morph.is_some(), &mut report.morph),
            ("uv", track.uv.is_some(), &mut report.uv),
        ];
        for (kind, present, tally) in kinds {
            if !present {
                continue;
            }
            let prefix = format!("{kind}: ");
            match bound.reasons.iter().find(|r| r.starts_with(&prefix)) {
                Some(reason) => {
                    tally.skipped += 1;
                    *tally.skipped_by_reason.entry(reason_class(reason)).or_default() += 1;
                }
                None if has_base => {
                    tally.decoded += 1;
                    playing = true;
                }
                None => {
                    tally.skipped += 1;
                    *tally.skipped_by_reason.entry(format!("{kind}: no base model")).or_default() += 1;
                }
            }
        }
    }
    if playing {
        report.files_with_playing_channel += 1;
    }
}

impl ScanReport {
    /// The tables as text.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Scanned {}: {} files, {} bytes in {:.1} ms",
            self.dir, self.files, self.bytes, self.elapsed_ms
        );
        let _ = writeln!(out, "\nFiles by format:");
        for (format, n) in &self.by_format {
            let _ = writeln!(out, "  {format:<14} {n:>7}");
        }
        let _ = writeln!(out, "  {:<14} {:>7}", "failed", self.failed.len());
        let _ = writeln!(out, "\nTPW files:");
        let rows = [
            ("mesh files", self.tpw_mesh_files),
            ("animation files", self.tpw_animation_files),
            ("  without a base model", self.animations_without_base.len() as u64),
            ("  track table identity pass", self.identity_pass),
            ("  track table identity fail", self.identity_fail),
            ("  no animation block", self.no_animation_block),
            ("  zero tracks", self.zero_track_files),
            ("  with a playing channel", self.files_with_playing_channel),
            ("nodes", self.nodes),
            ("  sheared", self.sheared_nodes),
            ("warnings", self.warnings),
        ];
        for (label, n) in rows {
            let _ = writeln!(out, "  {label:<30} {n:>7}");
        }
        let _ = writeln!(out, "\nTracks per channel flag bit ({} tracks):", self.tracks);
        let mut bits: Vec<_> = self.tracks_by_flag_bit.iter().collect();
        bits.sort_by_key(|(bit, _)| u32::from_str_radix(bit.trim_start_matches("0x"), 16).unwrap_or(u32::MAX));
        for (bit, n) in bits {
            let _ = writeln!(out, "  {bit:<10} {n:>7}");
        }
        let _ = writeln!(out, "  {:<10} {:>7}", "+0x34 ptr", self.tracks_with_slot_34);
        let _ = writeln!(out, "\nChannels decoded vs skipped:");
        for (kind, tally) in [("rotation", &self.rotation), ("morph", &self.morph), ("uv", &self.uv)] {
            let _ = writeln!(out, "  {kind:<9} decoded {:>7}  skipped {:>7}", tally.decoded, tally.skipped);
            for (reason, n) in &tally.skipped_by_reason {
                let _ = writeln!(out, "      {n:>7}  {reason}");
            }
        }
        let _ = writeln!(
            out,
            "\nMaterial flag bits ({} textured material uses, {} see-through):",
            self.material_uses, self.see_through_uses
        );
        for (bit, n) in &self.material_flag_bits {
            let _ = writeln!(out, "  {bit:<6} {n:>7}");
        }
        let _ = writeln!(out, "  distinct flag words: {}", self.material_flag_values.len());
        if !self.animations_without_base.is_empty() {
            let _ = writeln!(out, "\nAnimations without a base model:");
            for p in &self.animations_without_base {
                let _ = writeln!(out, "  {p}");
            }
        }
        if !self.failed.is_empty() {
            let _ = writeln!(out, "\nFailed files:");
            for f in &self.failed {
                let _ = writeln!(out, "  {}: {}", f.path, f.error);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_group_by_shape() {
        assert_eq!(
            reason_class("morph: mistargeted: 18 channels, but target mesh 2 has 8 vertices"),
            "morph: mistargeted: # channels, but target mesh # has # vertices"
        );
        assert_eq!(reason_class("key at 0x1f4 is 1.25"), "key at # is #");
    }
}
