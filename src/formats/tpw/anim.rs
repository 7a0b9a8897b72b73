//! TPW animation files (mesh table offset 0): the animation block at 0x98, the 64-byte track
//! descriptors, and the three decoded channel kinds (rotation 0x8, vertex morph 0x1000, UV
//! scroll 0x10000). [`decode_anim`] reads the file into raw tracks without a base model;
//! [`bind`] resolves targets against a base model and produces a scene [`Clip`].
//!
//! A channel that fails validation costs only itself: the reason is recorded on its track
//! and the rest of the file still plays. Undecoded channel bits are listed, never fatal.

use glam::{Quat, Vec3};

use super::TpwModel;
use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use crate::scene::{Channel, Clip, Key, MorphBlock, TrackReport, UvRampEntry, math};

/// OpenTPW plays the game's animations at 25 authoring frames per second.
pub const FRAMES_PER_SECOND: f32 = 25.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationKey {
    pub frame: u16,
    pub flags: u16,
    pub quat: Quat,
}

/// One 20-byte morph record: `channels.len()` channels (source vertex ids) keyed at `frames`,
/// with packed values entry-major (`values[e * channels.len() + k]`).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphRecord {
    pub channels: Vec<u16>,
    pub frames: Vec<u16>,
    pub values: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UvEntry {
    pub first: u16,
    pub start: Vec<f32>,
    pub end: Vec<f32>,
    pub end_frame: u16,
}

/// A track as read from the file, before its target is resolved. Each decoded channel is
/// `None` when its flag bit is clear, `Some(Err(reason))` when it is set but unreadable.
#[derive(Debug, Clone)]
pub struct RawTrack {
    pub position: u32,
    pub stored_index: u32,
    pub flags: u32,
    pub frame_value: u32,
    pub target: u16,
    pub unrelated_16: u16,
    pub slots: Vec<(String, u32)>,
    pub rotation: Option<Result<Vec<RotationKey>, String>>,
    pub morph: Option<Result<Vec<MorphRecord>, String>>,
    pub uv: Option<Result<Vec<UvEntry>, String>>,
}

/// Whether the animation block could be read, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockStatus {
    #[default]
    Readable,
    /// The animation format version at 0x08 is not 0xCB; the engine discards the block.
    WrongVersion,
    /// The pointer at 0x98 is 0.
    NoBlock,
    /// The pointer at 0x98 lands outside the file.
    Unreadable,
    /// `tableOffset + trackCount*64 != blockOffset`.
    IdentityFailed,
}

/// A decoded animation file.
#[derive(Debug, Clone, Default)]
pub struct AnimFile {
    pub status: BlockStatus,
    pub block_offset: u32,
    pub last_frame: u32,
    pub rotation_key_sum: u16,
    pub track_count: u16,
    pub table_offset: u32,
    pub tracks: Vec<RawTrack>,
    pub warnings: Vec<String>,
}

impl AnimFile {
    /// The clip length in frames: the block's last frame, every rotation and morph key, and
    /// every UV end frame (so UV-only water animations still move).
    pub fn length(&self) -> u32 {
        let mut frames = self.last_frame;
        for track in &self.tracks {
            if let Some(Ok(keys)) = &track.rotation {
                frames = keys.iter().fold(frames, |m, k| m.max(u32::from(k.frame)));
            }
            if let Some(Ok(records)) = &track.morph {
                for record in records {
                    frames = record.frames.iter().fold(frames, |m, &f| m.max(u32::from(f)));
                }
            }
            if let Some(Ok(entries)) = &track.uv {
                frames = entries.iter().fold(frames, |m, e| m.max(u32::from(e.end_frame)));
            }
        }
        frames
    }
}

/// Reads the animation block and every track. Structural problems of the block make a file
/// with no readable animation (a warning), never an error: the header itself already decoded.
pub fn decode_anim(r: &Reader) -> DecodeResult<AnimFile> {
    let mut file = AnimFile::default();
    let anim_version = r.u32(HDR_ANIM_VERSION, "animation format version")?;
    let block = r.u32(HDR_ANIM_BLOCK, "animation block offset")?;
    file.block_offset = block;
    if anim_version != ANIM_VERSION {
        file.warnings.push(format!(
            "animation format version at 0x08 is {anim_version:#x}, not {ANIM_VERSION:#x}; the engine discards the animation"
        ));
        file.status = BlockStatus::WrongVersion;
        return Ok(file);
    }
    if block == 0 {
        file.warnings.push("no animation block (pointer at 0x98 is 0)".into());
        file.status = BlockStatus::NoBlock;
        return Ok(file);
    }
    let block = u64::from(block);
    if let Err(e) = r.bytes(block, ANIM_BLOCK_SIZE, "animation block") {
        file.warnings.push(format!("animation block unreadable: {e}; no animation"));
        file.status = BlockStatus::Unreadable;
        return Ok(file);
    }
    file.last_frame = r.u32(block + ANIM_LAST_FRAME, "last frame")?;
    file.rotation_key_sum = r.u16(block + ANIM_ROTATION_KEY_SUM, "rotation key sum")?;
    file.track_count = r.u16(block + ANIM_TRACK_COUNT, "track count")?;
    file.table_offset = r.u32(block + ANIM_TRACK_TABLE, "track table offset")?;
    let table_end = u64::from(file.table_offset) + u64::from(file.track_count) * TRACK_SIZE;
    if table_end != block {
        file.warnings.push(format!(
            "track table fails the identity check: table {:#x} + {} tracks x 64 = {table_end:#x}, but the animation block is at {block:#x}; no readable animation",
            file.table_offset, file.track_count
        ));
        file.status = BlockStatus::IdentityFailed;
        return Ok(file);
    }
    let table = r.table(u64::from(file.table_offset), u64::from(file.track_count), TRACK_SIZE, "track table")?;
    for position in 0..u64::from(file.track_count) {
        let track = read_track(r, table.record(position), position as u32)?;
        if track.stored_index != track.position {
            file.warnings.push(format!(
                "track {}: stores index {}, expected {}",
                track.position, track.stored_index, track.position
            ));
        }
        file.tracks.push(track);
    }
    let key_sum: u32 =
        file.tracks.iter().filter_map(|t| t.rotation.as_ref()?.as_ref().ok()).map(|k| k.len() as u32).sum();
    if key_sum != u32::from(file.rotation_key_sum) {
        file.warnings.push(format!(
            "rotation key sum in the block is {}, the tracks hold {key_sum} readable keys",
            file.rotation_key_sum
        ));
    }
    Ok(file)
}

const SLOTS: [(&str, u64); 8] = [
    ("+0x18", TRACK_SLOT_POSITION),
    ("+0x1C", TRACK_SLOT_ROTATION),
    ("+0x20", TRACK_SLOT_20),
    ("+0x24", TRACK_SLOT_24),
    ("+0x28", TRACK_SLOT_MORPH),
    ("+0x2C", TRACK_SLOT_UV),
    ("+0x30", TRACK_SLOT_VISIBILITY),
    ("+0x34", TRACK_SLOT_34),
];

fn read_track(r: &Reader, at: u64, position: u32) -> DecodeResult<RawTrack> {
    let what = format!("track[{position}]");
    let field = |f: &str| format!("{what}.{f}");
    let flags = r.u32(at + TRACK_FLAGS, &field("flags"))?;
    let mut slots = Vec::with_capacity(SLOTS.len());
    for (name, offset) in SLOTS {
        slots.push((name.to_string(), r.u32(at + offset, &field("slot"))?));
    }
    let slot = |offset: u64| r.u32(at + offset, "slot").map(u64::from);
    let rotation = if flags & CH_ROTATION != 0 {
        let count = r.u16(at + TRACK_ROTATION_COUNT, &field("rotation key count"))?;
        Some(read_rotation(r, slot(TRACK_SLOT_ROTATION)?, count))
    } else {
        None
    };
    let morph = if flags & CH_MORPH != 0 {
        Some(if flags & CH_MORPH_REDIRECT != 0 {
            Err("flag 0x4000 redirects the +0x28 slot to a different structure; morph not read".to_string())
        } else {
            read_morph(r, slot(TRACK_SLOT_MORPH)?)
        })
    } else {
        None
    };
    let uv = if flags & CH_UV != 0 { Some(read_uv(r, slot(TRACK_SLOT_UV)?)) } else { None };
    Ok(RawTrack {
        position,
        stored_index: r.u32(at + TRACK_INDEX, &field("index"))?,
        flags,
        frame_value: r.u32(at + TRACK_FRAME_VALUE, &field("frame value"))?,
        // The target is a u16; the u16 after it is unrelated (non-zero on many real tracks).
        target: r.u16(at + TRACK_TARGET, &field("target"))?,
        unrelated_16: r.u16(at + TRACK_UNRELATED_16, &field("+0x16"))?,
        slots,
        rotation,
        morph,
        uv,
    })
}

fn read_rotation(r: &Reader, offset: u64, count: u16) -> Result<Vec<RotationKey>, String> {
    if count == 0 {
        return Err("rotation flag set but the key count is 0".into());
    }
    if offset == 0 {
        return Err("rotation flag set but the key pointer is 0".into());
    }
    let table = r.table(offset, u64::from(count), ROTATION_KEY_SIZE, "rotation keys").map_err(|e| e.to_string())?;
    let mut keys = Vec::with_capacity(usize::from(count));
    for i in 0..u64::from(count) {
        let at = table.record(i);
        let frame = r.u16(at, "rotation key frame").map_err(|e| e.to_string())?;
        let flags = r.u16(at + 2, "rotation key flags").map_err(|e| e.to_string())?;
        let [x, y, z, w] = r.f32s::<4>(at + 4, "rotation key quaternion").map_err(|e| e.to_string())?;
        let quat = Quat::from_xyzw(x, y, z, w);
        if !quat.is_finite() || (quat.length() - 1.0).abs() > 0.01 {
            return Err(format!("rotation key {i} at {at:#x} is not a unit quaternion (length {:.4})", quat.length()));
        }
        if let Some(prev) = keys.last().map(|k: &RotationKey| k.frame)
            && frame <= prev
        {
            return Err(format!("rotation key {i} at {at:#x}: frame {frame} does not ascend past {prev}"));
        }
        keys.push(RotationKey { frame, flags, quat });
    }
    Ok(keys)
}

fn read_morph(r: &Reader, descriptor: u64) -> Result<Vec<MorphRecord>, String> {
    if descriptor == 0 {
        return Err("morph flag set but the descriptor pointer is 0".into());
    }
    let e = |e: crate::formats::DecodeError| e.to_string();
    r.bytes(descriptor, MORPH_DESCRIPTOR_SIZE, "morph descriptor").map_err(e)?;
    let count = r.u16(descriptor + MORPH_RECORD_COUNT, "morph record count").map_err(e)?;
    let table_offset = u64::from(r.u32(descriptor + MORPH_RECORD_TABLE, "morph record table").map_err(e)?);
    let table = r.table(table_offset, u64::from(count), MORPH_RECORD_SIZE, "morph record table").map_err(e)?;
    let mut records = Vec::with_capacity(usize::from(count));
    for i in 0..u64::from(count) {
        let at = table.record(i);
        let keys = u64::from(r.u16(at, "morph keyframe count").map_err(e)?);
        let channels = u64::from(r.u16(at + 2, "morph channel count").map_err(e)?);
        let channel_offset = u64::from(r.u32(at + 4, "morph channel ids").map_err(e)?);
        let frame_offset = u64::from(r.u32(at + 8, "morph frame indices").map_err(e)?);
        let value_offset = u64::from(r.u32(at + 12, "morph values").map_err(e)?);
        // Each array is padded to 4 bytes, so either gap is legal.
        let gap_ok = |from: u64, to: u64, n: u64| to.checked_sub(from).is_some_and(|g| g == 2 * n || g == 2 * n + 2);
        if !gap_ok(channel_offset, frame_offset, channels) || !gap_ok(frame_offset, value_offset, keys) {
            return Err(format!(
                "morph record {i} at {at:#x}: arrays at {channel_offset:#x}/{frame_offset:#x}/{value_offset:#x} are not laid out as {channels} channel ids then {keys} frames"
            ));
        }
        let value_count = keys.checked_mul(channels).ok_or("morph value count overflows")?;
        r.table(channel_offset, channels, 2, "morph channel ids").map_err(e)?;
        r.table(frame_offset, keys, 2, "morph frame indices").map_err(e)?;
        r.table(value_offset, value_count, 4, "morph values").map_err(e)?;
        let ids = (0..channels)
            .map(|k| r.u16(channel_offset + 2 * k, "morph channel id"))
            .collect::<DecodeResult<Vec<_>>>()
            .map_err(e)?;
        let frames = (0..keys)
            .map(|k| r.u16(frame_offset + 2 * k, "morph frame"))
            .collect::<DecodeResult<Vec<_>>>()
            .map_err(e)?;
        if frames.windows(2).any(|w| matches!(w, [a, b] if b < a)) {
            return Err(format!("morph record {i} at {at:#x}: frame indices do not ascend"));
        }
        let values = (0..value_count)
            .map(|k| r.u32(value_offset + 4 * k, "morph value"))
            .collect::<DecodeResult<Vec<_>>>()
            .map_err(e)?;
        records.push(MorphRecord { channels: ids, frames, values });
    }
    Ok(records)
}

fn read_uv(r: &Reader, descriptor: u64) -> Result<Vec<UvEntry>, String> {
    if descriptor == 0 {
        return Err("UV flag set but the descriptor pointer is 0".into());
    }
    let e = |e: crate::formats::DecodeError| e.to_string();
    r.bytes(descriptor, UV_DESCRIPTOR_SIZE, "UV descriptor").map_err(e)?;
    let n = u64::from(r.u32(descriptor, "UV entry count").map_err(e)?);
    let index_offset = u64::from(r.u32(descriptor + 4, "UV index table").map_err(e)?);
    let c = u64::from(r.u32(descriptor + 8, "UV component count").map_err(e)?);
    let duration_offset = u64::from(r.u32(descriptor + 12, "UV duration table").map_err(e)?);
    let value_offset = u64::from(r.u32(descriptor + 16, "UV value table").map_err(e)?);
    if index_offset.checked_add(n * 4) != Some(value_offset) || value_offset.checked_add(c * 8) != Some(duration_offset)
    {
        return Err(format!(
            "UV tables are not contiguous: index {index_offset:#x} + 4x{n} should reach values {value_offset:#x}, which + 8x{c} should reach durations {duration_offset:#x}"
        ));
    }
    r.table(index_offset, n, 4, "UV index table").map_err(e)?;
    r.table(value_offset, c, 8, "UV value table").map_err(e)?;
    r.table(duration_offset, n, 4, "UV duration table").map_err(e)?;
    let mut entries = Vec::with_capacity(n as usize);
    let mut consumed = 0u64;
    for i in 0..n {
        let first = r.u16(index_offset + 4 * i, "UV first component").map_err(e)?;
        let count = u64::from(r.u16(index_offset + 4 * i + 2, "UV component count").map_err(e)?);
        if consumed + count > c {
            return Err(format!("UV entry {i}: component counts exceed the stated total {c}"));
        }
        let base = value_offset + consumed * 8;
        let start = (0..count).map(|k| r.f32(base + 4 * k, "UV start")).collect::<DecodeResult<Vec<_>>>().map_err(e)?;
        let end =
            (0..count).map(|k| r.f32(base + 4 * (count + k), "UV end")).collect::<DecodeResult<Vec<_>>>().map_err(e)?;
        if start.iter().chain(&end).any(|v| !v.is_finite()) {
            return Err(format!("UV entry {i}: value is not finite"));
        }
        let end_frame = (r.u32(duration_offset + 4 * i, "UV duration").map_err(e)? >> 16) as u16;
        consumed += count;
        entries.push(UvEntry { first, start, end, end_frame });
    }
    if consumed != c {
        return Err(format!("UV component counts sum to {consumed}, not the stated total {c}"));
    }
    Ok(entries)
}

/// Decodes one packed 10-bit morph field onto `[min, max]`: -512 is the minimum, 511 the maximum.
pub fn morph_component(raw: u32, shift: u32, min: f32, max: f32) -> f32 {
    let field = ((raw >> shift) & 0x3FF) as i32;
    let signed = if field >= 512 { field - 1024 } else { field };
    let centre = (min + max) * 0.5;
    centre + signed as f32 * (max - min) / 1023.0
}

pub fn morph_position(raw: u32, min: Vec3, max: Vec3) -> Vec3 {
    Vec3::new(
        morph_component(raw, 0, min.x, max.x),
        morph_component(raw, 10, min.y, max.y),
        morph_component(raw, 20, min.z, max.z),
    )
}

/// The channel names a track's flag word lists: decoded kinds by name, others by flag bit.
pub fn channel_names(flags: u32, slot_34: u32) -> Vec<String> {
    let mut names = Vec::new();
    for bit in (0..32).map(|b| 1u32 << b).filter(|b| flags & b != 0) {
        match bit {
            CH_ROTATION => names.push("rotation".to_string()),
            CH_MORPH => names.push("morph".to_string()),
            CH_UV => names.push("uv".to_string()),
            CH_MORPH_REDIRECT => {} // a modifier of morph, not a channel
            other => names.push(format!("{other:#x}")),
        }
    }
    if slot_34 != 0 {
        names.push("+0x34".to_string());
    }
    names
}

/// Resolves each track's target against `model` (if any) and turns decoded channels into
/// scene channels; everything that cannot play is reported on its track with the reason.
pub fn bind(file: &AnimFile, model: Option<&TpwModel>, name: &str, source: Option<&std::path::Path>) -> Clip {
    let mut clip = Clip {
        name: name.to_string(),
        source: source.map(|p| p.to_path_buf()),
        start: 0.0,
        end: file.length() as f32,
        rate: FRAMES_PER_SECOND,
        channels: Vec::new(),
        tracks: Vec::new(),
        warnings: file.warnings.clone(),
    };
    for track in &file.tracks {
        let slot_34 = track.slots.iter().find(|(n, _)| n == "+0x34").map(|(_, v)| *v).unwrap_or(0);
        let mut report = TrackReport {
            index: track.position,
            target: u32::from(track.target),
            target_name: None,
            channels: channel_names(track.flags, slot_34),
            flags: track.flags,
            slots: track.slots.clone(),
            key_counts: key_counts(track),
            reasons: Vec::new(),
            skipped: None,
        };
        let mut reasons = Vec::new();
        let mut played = 0;
        match model {
            None => reasons.push("no base model to pose".to_string()),
            Some(model) => {
                let target = usize::from(track.target);
                report.target_name = model.scene.nodes.get(target).map(|n| n.name.clone());
                bind_track(track, model, &mut clip.channels, &mut reasons, &mut played);
            }
        }
        if played == 0 && reasons.is_empty() {
            let listed =
                if report.channels.is_empty() { "no channel flags".to_string() } else { report.channels.join(", ") };
            reasons.push(format!("no decoded channel to play (carries {listed})"));
        }
        if !reasons.is_empty() {
            report.skipped = Some(reasons.join("; "));
        }
        report.reasons = reasons;
        clip.tracks.push(report);
    }
    clip
}

fn key_counts(track: &RawTrack) -> Vec<(String, u32)> {
    let mut counts = Vec::new();
    if let Some(Ok(keys)) = &track.rotation {
        counts.push(("rotation keys".into(), keys.len() as u32));
    }
    if let Some(Ok(records)) = &track.morph {
        counts.push(("morph records".into(), records.len() as u32));
        counts.push(("morph channels".into(), records.iter().map(|r| r.channels.len() as u32).sum()));
        counts.push(("morph keys".into(), records.iter().map(|r| r.frames.len() as u32).sum()));
    }
    if let Some(Ok(entries)) = &track.uv {
        counts.push(("uv entries".into(), entries.len() as u32));
    }
    counts
}

fn bind_track(
    track: &RawTrack,
    model: &TpwModel,
    channels: &mut Vec<Channel>,
    reasons: &mut Vec<String>,
    played: &mut u32,
) {
    let scene = &model.scene;
    let target = usize::from(track.target);
    let node_count = scene.nodes.len();
    let mesh_count = model.meshes.len();
    if let Some(rotation) = &track.rotation {
        match rotation {
            Err(reason) => reasons.push(format!("rotation: {reason}")),
            Ok(_) if target >= node_count => {
                reasons.push(format!("rotation: target {target} is outside the model's {node_count} nodes"))
            }
            Ok(keys) => {
                let local = scene.nodes.get(target).map(|n| n.local).unwrap_or_default();
                channels.push(Channel::NodeRotation {
                    node: target,
                    authored_inverse: math::authored_orientation_inverse(&local),
                    keys: keys.iter().map(|k| Key { time: f32::from(k.frame), value: k.quat.normalize() }).collect(),
                });
                *played += 1;
            }
        }
    }
    // Morph and UV need a mesh: a target at or past the mesh count is a transform-only node.
    let mesh_target = (target < mesh_count).then(|| scene.nodes.get(target).and_then(|n| n.mesh)).flatten();
    if let Some(morph) = &track.morph {
        match (morph, mesh_target) {
            (Err(reason), _) => reasons.push(format!("morph: {reason}")),
            (Ok(_), None) => {
                reasons.push(format!("morph: target {target} is not one of the model's {mesh_count} meshes"))
            }
            (Ok(records), Some(mesh)) => match bind_morph(records, model, target, mesh) {
                Ok(channel) => {
                    channels.push(channel);
                    *played += 1;
                }
                Err(reason) => reasons.push(format!("morph: {reason}")),
            },
        }
    }
    if let Some(uv) = &track.uv {
        match (uv, mesh_target) {
            (Err(reason), _) => reasons.push(format!("uv: {reason}")),
            (Ok(_), None) => reasons.push(format!("uv: target {target} is not one of the model's {mesh_count} meshes")),
            (Ok(entries), Some(mesh)) => {
                let components = model.meshes.get(target).map(|f| u64::from(f.order_length) * 2).unwrap_or(0);
                let outside = entries.iter().find(|e| u64::from(e.first) + e.start.len() as u64 > components);
                match outside {
                    Some(e) => reasons.push(format!(
                        "uv: entry covers components {}..{} but the mesh has {components} UV components",
                        e.first,
                        u64::from(e.first) + e.start.len() as u64
                    )),
                    None => {
                        channels.push(Channel::UvRamp {
                            mesh,
                            entries: entries
                                .iter()
                                .map(|e| UvRampEntry {
                                    first: u32::from(e.first),
                                    start: e.start.clone(),
                                    end: e.end.clone(),
                                    end_time: f32::from(e.end_frame),
                                })
                                .collect(),
                        });
                        *played += 1;
                    }
                }
            }
        }
    }
}

fn bind_morph(records: &[MorphRecord], model: &TpwModel, target: usize, mesh: usize) -> Result<Channel, String> {
    let facts = model.meshes.get(target).ok_or("target has no mesh record")?;
    let channel_count: u64 = records.iter().map(|r| r.channels.len() as u64).sum();
    let expected = u64::from(facts.vertex_count) + 2;
    if channel_count != expected {
        return Err(format!(
            "mistargeted: {channel_count} channels, but target mesh {target} has {} vertices (+2 expected = {expected})",
            facts.vertex_count
        ));
    }
    let mut blocks = Vec::with_capacity(records.len());
    for record in records {
        let width = record.channels.len();
        // Keep the channels that are vertices; the two trailing extras are not.
        let kept: Vec<(usize, u32)> = record
            .channels
            .iter()
            .enumerate()
            .filter(|&(_, &id)| u32::from(id) < facts.vertex_count)
            .map(|(k, &id)| (k, u32::from(id)))
            .collect();
        let mut positions = Vec::with_capacity(kept.len() * record.frames.len());
        for e in 0..record.frames.len() {
            for &(k, _) in &kept {
                let raw = record.values.get(e * width + k).copied().unwrap_or(0);
                positions.push(morph_position(raw, facts.bbox_min, facts.bbox_max));
            }
        }
        blocks.push(MorphBlock {
            times: record.frames.iter().map(|&f| f32::from(f)).collect(),
            vertices: kept.into_iter().map(|(_, id)| id).collect(),
            positions,
        });
    }
    Ok(Channel::VertexMorph { mesh, blocks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morph_fields_map_onto_the_box() {
        // -512 → min, 511 → max, 0 → centre (each axis independently).
        let raw = (0x200u32) | (0x1FF << 10);
        assert!((morph_component(raw, 0, -2.0, 8.0) - (3.0 - 512.0 * 10.0 / 1023.0)).abs() < 1e-5);
        assert!((morph_component(raw, 10, -2.0, 8.0) - (3.0 + 511.0 * 10.0 / 1023.0)).abs() < 1e-5);
        assert_eq!(morph_component(raw, 20, -2.0, 8.0), 3.0);
    }

    #[test]
    fn channel_names_list_undecoded_bits() {
        let names = channel_names(CH_ROTATION | CH_MORPH | CH_MORPH_REDIRECT | CH_UV | CH_VISIBILITY | 0x1 | 0x180, 5);
        assert_eq!(names, ["0x1", "rotation", "0x80", "0x100", "morph", "uv", "0x20000", "+0x34"]);
    }
}
