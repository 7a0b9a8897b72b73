//! `mdview scan DIR`: reads every model under a folder in parallel and tallies the corpus
//! tables the TPW spec was built from: mesh vs animation files, orphan animations, the track
//! table identity, tracks per channel bit, decoded vs skipped channels (every kind) by reason,
//! eased rotation, additive models, paths, role letters, hide lists, multi-key UV entries, the
//! morph-box statistics of `tpw-engine-notes.md` §11 (so a real install can be compared with the
//! game counts it gives), material flag bits by use, and failures. Files are decoded once; animations bind against their base
//! model from the same pass, so no file is read twice.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::formats::tpw::anim::{AnimFile, BlockStatus};
use crate::formats::tpw::{self, TpwFile, TpwModel, siblings};
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
    /// Animation files with a readable block and no tracks: valid clips with no table to
    /// check, counted apart from `identity_pass` (the identity holds for files with tracks).
    pub zero_track_files: u64,
    pub tracks: u64,
    /// Tracks carrying each channel flag bit (`0x8`, `0x1000`...).
    pub tracks_by_flag_bit: BTreeMap<String, u64>,
    pub tracks_with_slot_34: u64,
    pub rotation: ChannelTally,
    pub morph: ChannelTally,
    pub uv: ChannelTally,
    pub position: ChannelTally,
    pub scale: ChannelTally,
    pub path_progress: ChannelTally,
    pub visibility: ChannelTally,
    pub raw_frames: ChannelTally,
    /// Rotation tracks with at least one key naming an easing curve (game: 1,759 of 3,022
    /// under `levels/`), their eased keys (12,428 game-wide), the curves among those keys that
    /// are not monotonic (2,797), and clips with an eased key (457 of 1,166 under `levels/`).
    pub eased_rotation_tracks: u64,
    pub eased_keys: u64,
    pub eased_keys_non_monotonic: u64,
    pub clips_with_easing: u64,
    /// Base models with header bit 0x4 (game: 25, all coaster parts).
    pub additive_models: u64,
    /// Models with a path table, and their paths (game: 24 models, 27 paths).
    pub models_with_paths: u64,
    pub paths: u64,
    /// Animation files per role letter (`C D I L S M E U W B R O`), `?` for none; bare files
    /// (`<stem><role>.md2`) counted apart; files of a `P`-prefixed set apart too.
    pub animations_by_role: BTreeMap<String, u64>,
    pub bare_role_files: u64,
    pub p_prefixed_animations: u64,
    /// Blocks with a hide list, and their entries (game: 874 of 1,278 blocks, 13,159 entries).
    pub blocks_with_hide_list: u64,
    pub hide_list_entries: u64,
    /// UV entries with more than two keys, tracks holding one, and the most keys in one entry
    /// (game: 4,391 entries in 289 of 690 tracks, up to 106).
    pub uv_multi_key_entries: u64,
    pub uv_multi_key_tracks: u64,
    pub uv_most_keys: u64,
    pub morph_box: MorphBoxTally,
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
    /// Nodes with a face anchor in use (flags meeting 0x40040; game: 248), and those whose
    /// anchored point at rest lies within 0.05 of the node's own place (247; notes §4).
    pub face_anchors: u64,
    pub face_anchors_at_rest: u64,
    /// Models whose heightfield block became ground (game: 5 terrain models; notes §6).
    pub heightfields: u64,
    pub failed: Vec<FailedFile>,
    pub warnings: u64,
    pub elapsed_ms: f64,
}

/// Morph tracks against their target mesh (notes §11): the track's own box (centre, step) vs
/// the mesh box read the old way (centre midway, step = extent / 1023).
#[derive(Debug, Default, Serialize)]
pub struct MorphBoxTally {
    /// Morph tracks bound to a mesh.
    pub tracks: u64,
    /// Tracks whose box matches the mesh box: centre and step within 0.01 of a track step on
    /// every axis (game: 51 of 1,734).
    pub same_as_mesh_box: u64,
    /// Tracks whose first key puts every vertex within 1.5 steps of the rest pose, with the
    /// track box (game: 676) and with the mesh box (119); both (105).
    pub first_key_at_rest_track_box: u64,
    pub first_key_at_rest_mesh_box: u64,
    pub first_key_at_rest_both: u64,
    /// Tracks whose two trailing channels lie within 3 steps of the first key's vertex extremes
    /// (game: all 1,734).
    pub corners_match_extremes: u64,
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

/// Every model-like file under `dir`, recursively, sorted; `.wad` archives are walked like
/// folders, so their members come back as paths through the archive. An archive that cannot
/// be read is listed itself, so the scan reports why.
pub fn model_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if formats::vfs::is_archive_folder(dir) {
        archive_models(dir, &mut out);
        out.sort();
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if formats::is_model_file(&path) {
                out.push(path);
            } else if formats::wad::path::has_wad_extension(&path) {
                match formats::vfs::archive(&path) {
                    Ok(_) => archive_models(&path, &mut out),
                    Err(_) => out.push(path),
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The model members of an archive, through every directory inside it.
fn archive_models(archive: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![archive.to_path_buf()];
    while let Some(dir) = stack.pop() {
        out.extend(formats::vfs::list_files(&dir).into_iter().filter(|p| formats::is_model_file(p)));
        stack.extend(formats::vfs::list_dirs(&dir));
    }
}

/// A file's size and decoded content, or why it failed.
type DecodedFile = Result<(u64, Decoded), String>;

fn decode_path(path: &Path) -> DecodedFile {
    if formats::wad::path::has_wad_extension(path) {
        // Listed itself only when it cannot be read as an archive: say why.
        return Err(formats::vfs::archive(path).err().map_or_else(|| "archive".to_string(), |e| e.to_string()));
    }
    let data = formats::vfs::read(path).map_err(|e| e.to_string())?;
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
                        report.additive_models += u64::from(model.additive);
                        report.models_with_paths += u64::from(!model.paths.is_empty());
                        report.paths += model.paths.len() as u64;
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
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let split = siblings::split_role_stem(&stem);
            let base = base_of.get(*path).and_then(|model| models.get(model)).copied();
            let clip = tpw::anim::bind(anim, base, "scan", None);
            let role = split.filter(|_| base.is_some()).map(|s| {
                let p_set = s.base.starts_with(['p', 'P']);
                (s.role, s.number.is_none(), p_set)
            });
            (*path, *anim, base, role, clip)
        })
        .collect();
    for (path, anim, base, role, clip) in bound {
        if base.is_none() {
            report.animations_without_base.push(path.display().to_string());
        }
        let (letter, bare, p_set) = role.map_or(('?', false, false), |r| r);
        *report.animations_by_role.entry(letter.to_string()).or_default() += 1;
        report.bare_role_files += u64::from(bare);
        report.p_prefixed_animations += u64::from(p_set);
        tally_animation(&mut report, anim, base, &clip);
    }
    report.animations_without_base.sort();
    report.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(report)
}

/// How near its own place an anchored point at rest counts as "at rest" (notes §4).
const ANCHOR_AT_REST: f32 = 0.05;

fn tally_mesh(report: &mut ScanReport, model: &TpwModel) {
    let scene = &model.scene;
    report.warnings += scene.warnings.len() as u64;
    report.nodes += scene.nodes.len() as u64;
    report.sheared_nodes += scene.nodes.iter().filter(|n| crate::scene::math::is_sheared(&n.local)).count() as u64;
    for node in &scene.nodes {
        let Some(anchor) = node.anchor.as_deref() else { continue };
        report.face_anchors += 1;
        let at_rest = scene.meshes.get(anchor.mesh).and_then(|m| anchor.point_on(&m.source_positions));
        if at_rest.is_some_and(|point| point.distance(node.local.w_axis.truncate()) <= ANCHOR_AT_REST) {
            report.face_anchors_at_rest += 1;
        }
    }
    report.heightfields += u64::from(model.heightfield.is_some());
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

fn tally_animation(report: &mut ScanReport, anim: &AnimFile, base: Option<&TpwModel>, clip: &crate::scene::Clip) {
    let has_base = base.is_some();
    report.warnings += anim.warnings.len() as u64;
    if !anim.hide_list.is_empty() {
        report.blocks_with_hide_list += 1;
        report.hide_list_entries += anim.hide_list.len() as u64;
    }
    let mut eased_clip = false;
    for track in &anim.tracks {
        if let Some(Ok(rotation)) = &track.rotation {
            let eased: Vec<&[u8; 8]> = rotation.curves.iter().flatten().collect();
            if !eased.is_empty() {
                report.eased_rotation_tracks += 1;
                eased_clip = true;
            }
            report.eased_keys += eased.len() as u64;
            report.eased_keys_non_monotonic +=
                eased.iter().filter(|c| c.windows(2).any(|w| w[1] < w[0])).count() as u64;
        }
        if let Some(Ok(entries)) = &track.uv {
            let long = entries.iter().filter(|e| e.keys.len() > 2).count() as u64;
            report.uv_multi_key_entries += long;
            report.uv_multi_key_tracks += u64::from(long > 0);
            report.uv_most_keys = entries.iter().map(|e| e.keys.len() as u64).fold(report.uv_most_keys, u64::max);
        }
        if let (Some(Ok(morph)), Some(model)) = (&track.morph, base) {
            tally_morph_box(&mut report.morph_box, morph, model, usize::from(track.target));
        }
    }
    report.clips_with_easing += u64::from(eased_clip);
    // The identity holds for files with tracks; a file with none has no table to check.
    match anim.status {
        BlockStatus::Readable if anim.track_count == 0 => report.zero_track_files += 1,
        BlockStatus::Readable => report.identity_pass += 1,
        BlockStatus::IdentityFailed => report.identity_fail += 1,
        BlockStatus::NoBlock | BlockStatus::Unreadable | BlockStatus::WrongVersion => report.no_animation_block += 1,
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
            ("position", track.position_curve.is_some(), &mut report.position),
            ("scale", track.scale.is_some(), &mut report.scale),
            ("path progress", track.path_progress.is_some(), &mut report.path_progress),
            ("visibility", track.visibility.is_some(), &mut report.visibility),
            ("raw frames", track.raw_frames.is_some(), &mut report.raw_frames),
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

/// Adds one morph track to the box statistics (see [`MorphBoxTally`]).
fn tally_morph_box(tally: &mut MorphBoxTally, morph: &tpw::anim::MorphTrack, model: &TpwModel, target: usize) {
    use glam::Vec3;
    let (Some(facts), Some(mesh)) = (
        model.meshes.get(target),
        model.scene.nodes.get(target).and_then(|n| n.mesh).and_then(|m| model.scene.meshes.get(m)),
    ) else {
        return;
    };
    tally.tracks += 1;
    let mesh_centre = (facts.bbox_min + facts.bbox_max) * 0.5;
    let mesh_step = (facts.bbox_max - facts.bbox_min) / 1023.0;
    let tolerance = morph.step.abs() * 0.01;
    let close = |a: Vec3, b: Vec3| (a - b).abs().cmple(tolerance).all();
    if close(morph.centre, mesh_centre) && close(morph.step, mesh_step) {
        tally.same_as_mesh_box += 1;
    }
    let vertex_count = facts.vertex_count;
    // Every vertex channel of each record's first key, decoded both ways, against the rest pose.
    let at_rest = |centre: Vec3, step: Vec3| {
        morph.records.iter().all(|record| {
            record.channels.iter().enumerate().filter(|&(_, &id)| u32::from(id) < vertex_count).all(|(k, &id)| {
                let raw = record.values.get(k).copied().unwrap_or(0);
                let rest = mesh.source_positions.get(usize::from(id)).copied().unwrap_or(Vec3::ZERO);
                let decoded = tpw::anim::morph_position(raw, centre, step);
                (decoded - rest).abs().cmple(step.abs() * 1.5 + Vec3::splat(1e-6)).all()
            })
        })
    };
    let (track_box, mesh_box) = (at_rest(morph.centre, morph.step), at_rest(mesh_centre, mesh_step));
    tally.first_key_at_rest_track_box += u64::from(track_box);
    tally.first_key_at_rest_mesh_box += u64::from(mesh_box);
    tally.first_key_at_rest_both += u64::from(track_box && mesh_box);
    // The trailing channels (ids past the vertices) against the first key's vertex extremes.
    let first_key: Vec<(u16, Vec3)> = morph
        .records
        .iter()
        .flat_map(|r| {
            r.channels
                .iter()
                .zip(&r.values)
                .map(|(&id, &raw)| (id, tpw::anim::morph_position(raw, morph.centre, morph.step)))
        })
        .collect();
    let vertices = first_key.iter().filter(|(id, _)| u32::from(*id) < vertex_count).map(|(_, p)| *p);
    let (lo, hi) = vertices.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)));
    let corners: Vec<Vec3> =
        first_key.iter().filter(|(id, _)| u32::from(*id) >= vertex_count).map(|(_, p)| *p).collect();
    let near = |a: Vec3, b: Vec3| (a - b).abs().cmple(morph.step.abs() * 3.0 + Vec3::splat(1e-6)).all();
    if let [min, max] = corners.as_slice()
        && near(*min, lo)
        && near(*max, hi)
    {
        tally.corners_match_extremes += 1;
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
            ("  zero tracks (no table to check)", self.zero_track_files),
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
        let kinds = [
            ("rotation", &self.rotation),
            ("morph", &self.morph),
            ("uv", &self.uv),
            ("position", &self.position),
            ("scale", &self.scale),
            ("path", &self.path_progress),
            ("visibility", &self.visibility),
            ("raw frames", &self.raw_frames),
        ];
        for (kind, tally) in kinds {
            let _ = writeln!(out, "  {kind:<9} decoded {:>7}  skipped {:>7}", tally.decoded, tally.skipped);
            for (reason, n) in &tally.skipped_by_reason {
                let _ = writeln!(out, "      {n:>7}  {reason}");
            }
        }
        let _ = writeln!(out, "\nEngine notes' tallies (game counts in `tpw-engine-notes.md`):");
        let b = &self.morph_box;
        let rows = [
            ("eased rotation tracks", self.eased_rotation_tracks),
            ("  eased keys", self.eased_keys),
            ("  of which curves dip", self.eased_keys_non_monotonic),
            ("clips with easing", self.clips_with_easing),
            ("additive models (0x30 bit 0x4)", self.additive_models),
            ("face anchors", self.face_anchors),
            ("  within 0.05 of their node", self.face_anchors_at_rest),
            ("heightfields", self.heightfields),
            ("models with paths", self.models_with_paths),
            ("  paths", self.paths),
            ("bare role files", self.bare_role_files),
            ("P-set animation files", self.p_prefixed_animations),
            ("blocks with a hide list", self.blocks_with_hide_list),
            ("  hide-list entries", self.hide_list_entries),
            ("UV entries with > 2 keys", self.uv_multi_key_entries),
            ("  in tracks", self.uv_multi_key_tracks),
            ("  most keys in one entry", self.uv_most_keys),
            ("morph tracks on a mesh", b.tracks),
            ("  box = mesh box", b.same_as_mesh_box),
            ("  1st key at rest, track box", b.first_key_at_rest_track_box),
            ("  1st key at rest, mesh box", b.first_key_at_rest_mesh_box),
            ("  1st key at rest, both", b.first_key_at_rest_both),
            ("  corners = key extremes", b.corners_match_extremes),
        ];
        for (label, n) in rows {
            let _ = writeln!(out, "  {label:<30} {n:>7}");
        }
        let roles: Vec<String> = self.animations_by_role.iter().map(|(r, n)| format!("{r}:{n}")).collect();
        let _ = writeln!(out, "  animation files by role: {}", roles.join(" "));
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
