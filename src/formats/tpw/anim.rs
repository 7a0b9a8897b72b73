//! TPW animation files (mesh table offset 0): the animation block at 0x98, the 64-byte track
//! descriptors, and every channel a flag bit owns (notes §9-§17): rotation 0x8 (with easing
//! curves at +0x34), position 0x1, scale 0x80+0x100, path progress 0x200 (facing 0x400),
//! vertex morph 0x1000 (raw float frames under 0x4000), UV 0x10000 and visibility 0x20000,
//! plus the block's hide list. [`decode_anim`] reads the file into raw tracks without a base
//! model; [`bind`] resolves targets against a base model and produces a scene [`Clip`].
//!
//! A channel that fails validation costs only itself: the reason is recorded on its track
//! and the rest of the file still plays. Undecoded channel bits are listed, never fatal.

use glam::{Quat, Vec2, Vec3};

use super::TpwModel;
use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use crate::scene::{Channel, Clip, Curve, EaseRamp, Interpolation, Key, MorphBlock, TrackReport, UvSlotKeys, math};

pub use super::layout::FRAMES_PER_SECOND;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationKey {
    pub frame: u16,
    /// Easing curve id ([`NO_EASING`] for none).
    pub curve: u16,
    pub quat: Quat,
}

/// A rotation track: its keys and, per key, the easing curve its id selects (resolved from the
/// +0x34 table; `None` for id 0xFFFF).
#[derive(Debug, Clone, PartialEq)]
pub struct RotationTrack {
    pub keys: Vec<RotationKey>,
    pub curves: Vec<Option<[u8; 8]>>,
}

/// One 20-byte morph record: `channels.len()` channels (source vertex ids) keyed at `frames`,
/// with packed values entry-major (`values[e * channels.len() + k]`).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphRecord {
    pub channels: Vec<u16>,
    pub frames: Vec<u16>,
    pub values: Vec<u32>,
}

/// A morph descriptor (notes §11): the track's own quantisation box and its records.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphTrack {
    pub flags: u8,
    pub centre: Vec3,
    pub step: Vec3,
    pub records: Vec<MorphRecord>,
}

/// Raw float vertex frames (0x1000 + 0x4000, notes §12): vertex `i` of frame `f` is
/// `positions[f * per_frame + index[i]]`. The file states no frame count: the frames read are
/// as many whole frames as the clip's span (+1) asks for and the file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RawFrames {
    pub index: Vec<u32>,
    pub per_frame: u32,
    pub positions: Vec<Vec3>,
}

impl RawFrames {
    pub fn frame_count(&self) -> usize {
        if self.per_frame == 0 { 0 } else { self.positions.len() / self.per_frame as usize }
    }
}

/// One UV entry (notes §13): UV slot `e` of the target, keyed `(frame, u, v)`.
#[derive(Debug, Clone, PartialEq)]
pub struct UvEntry {
    pub keys: Vec<(u16, Vec2)>,
}

/// A position record (archives note, notes §14): the type word, the curve points and key frames.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionTrack {
    pub kind: u32,
    pub points: Vec<Vec3>,
    pub frames: Vec<u16>,
}

/// A path-progress record (notes §16): one percentage per frame from `start`.
#[derive(Debug, Clone, PartialEq)]
pub struct PathProgress {
    pub start: u32,
    pub values: Vec<f32>,
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
    pub rotation: Option<Result<RotationTrack, String>>,
    pub morph: Option<Result<MorphTrack, String>>,
    pub raw_frames: Option<Result<RawFrames, String>>,
    pub uv: Option<Result<Vec<UvEntry>, String>>,
    pub position_curve: Option<Result<PositionTrack, String>>,
    pub scale: Option<Result<Vec<(u16, Vec3)>, String>>,
    pub path_progress: Option<Result<PathProgress, String>>,
    pub visibility: Option<Result<Vec<i16>, String>>,
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
    /// Block +0x04 and +0x08: the clip spans `last_frame - first_frame` frames (notes §20).
    pub first_frame: i32,
    pub last_frame: u32,
    pub rotation_key_sum: u16,
    pub track_count: u16,
    pub table_offset: u32,
    /// Node indices hidden when the clip starts (block +0x1A count, +0x38 list).
    pub hide_list: Vec<u16>,
    pub tracks: Vec<RawTrack>,
    pub warnings: Vec<String>,
}

impl AnimFile {
    /// The clip length in frames, as the block declares it: last frame minus first frame
    /// (never taken from the keys; notes §20).
    pub fn length(&self) -> u32 {
        i64::from(self.last_frame).saturating_sub(i64::from(self.first_frame)).clamp(0, i64::from(u32::MAX)) as u32
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
    file.first_frame = r.i32(block + ANIM_FIRST_FRAME, "first frame")?;
    file.last_frame = r.u32(block + ANIM_LAST_FRAME, "last frame")?;
    let hide_count = u64::from(r.u16(block + ANIM_HIDE_COUNT, "hide-list count")?);
    let hide_at = u64::from(r.u32(block + ANIM_HIDE_LIST, "hide-list offset")?);
    if hide_count > 0 {
        match r.table(hide_at, hide_count, 2, "hide list") {
            Ok(table) => {
                file.hide_list =
                    (0..hide_count).filter_map(|i| r.u16(table.record(i), "hide-list entry").ok()).collect()
            }
            Err(e) => file.warnings.push(format!("hide list unreadable ({e}); nothing hidden at clip start")),
        }
    }
    file.rotation_key_sum = r.u16(block + ANIM_ROTATION_KEY_SUM, "rotation key sum")?;
    file.track_count = r.u16(block + ANIM_TRACK_COUNT, "track count")?;
    file.table_offset = r.u32(block + ANIM_TRACK_TABLE, "track table offset")?;
    if file.track_count == 0 {
        // A clip with no tracks is valid, with its frame span and hide list (notes §19). The
        // table identity holds for every file with tracks; the game's 89 without fail it, as
        // their table offset points nowhere in particular (notes §8), so it is not checked.
        if file.rotation_key_sum != 0 {
            file.warnings
                .push(format!("rotation key sum in the block is {}, but there are no tracks", file.rotation_key_sum));
        }
        return Ok(file);
    }
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
    let span = file.length();
    for position in 0..u64::from(file.track_count) {
        let track = read_track(r, table.record(position), position as u32, span)?;
        if track.stored_index != track.position {
            file.warnings.push(format!(
                "track {}: stores index {}, expected {}",
                track.position, track.stored_index, track.position
            ));
        }
        file.tracks.push(track);
    }
    let key_sum: u32 =
        file.tracks.iter().filter_map(|t| t.rotation.as_ref()?.as_ref().ok()).map(|k| k.keys.len() as u32).sum();
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

type Channel_<T> = Option<Result<T, String>>;

fn read_track(r: &Reader, at: u64, position: u32, span: u32) -> DecodeResult<RawTrack> {
    let what = format!("track[{position}]");
    let field = |f: &str| format!("{what}.{f}");
    let flags = r.u32(at + TRACK_FLAGS, &field("flags"))?;
    let mut slots = Vec::with_capacity(SLOTS.len());
    for (name, offset) in SLOTS {
        slots.push((name.to_string(), r.u32(at + offset, &field("slot"))?));
    }
    let slot = |offset: u64| r.u32(at + offset, "slot").map(u64::from);
    let when = |bits: u32| flags & bits == bits;
    let rotation = if when(CH_ROTATION) {
        let count = r.u16(at + TRACK_ROTATION_COUNT, &field("rotation key count"))?;
        Some(read_rotation(r, slot(TRACK_SLOT_ROTATION)?, count, slot(TRACK_SLOT_EASING)?))
    } else {
        None
    };
    let (morph, raw_frames): (Channel_<MorphTrack>, Channel_<RawFrames>) = if !when(CH_MORPH) {
        (None, None)
    } else if when(CH_RAW_FRAMES) {
        (None, Some(read_raw_frames(r, slot(TRACK_SLOT_MORPH)?, span)))
    } else {
        (Some(read_morph(r, slot(TRACK_SLOT_MORPH)?)), None)
    };
    let uv = when(CH_UV).then(|| slot(TRACK_SLOT_UV)).transpose()?.map(|d| read_uv(r, d));
    let position_curve = when(CH_POSITION).then(|| slot(TRACK_SLOT_POSITION)).transpose()?.map(|d| read_position(r, d));
    let scale = if when(CH_SCALE) {
        let count = r.u16(at + TRACK_SCALE_COUNT, &field("scale key count"))?;
        Some(read_scale(r, slot(TRACK_SLOT_SCALE)?, count))
    } else {
        None
    };
    let path_progress = when(CH_PATH).then(|| slot(TRACK_SLOT_PATH)).transpose()?.map(|d| read_path_progress(r, d));
    let visibility = if when(CH_VISIBILITY) {
        let count = r.u16(at + TRACK_VISIBILITY_COUNT, &field("visibility entry count"))?;
        Some(read_visibility(r, slot(TRACK_SLOT_VISIBILITY)?, count))
    } else {
        None
    };
    Ok(RawTrack {
        position,
        stored_index: r.u32(at + TRACK_INDEX, &field("index"))?,
        flags,
        frame_value: r.u32(at + TRACK_FRAME_VALUE, &field("frame value"))?,
        target: r.u16(at + TRACK_TARGET, &field("target"))?,
        unrelated_16: r.u16(at + TRACK_UNRELATED_16, &field("+0x16"))?,
        slots,
        rotation,
        morph,
        raw_frames,
        uv,
        position_curve,
        scale,
        path_progress,
        visibility,
    })
}

fn text(e: crate::formats::DecodeError) -> String {
    e.to_string()
}

fn read_rotation(r: &Reader, offset: u64, count: u16, easing: u64) -> Result<RotationTrack, String> {
    if count == 0 {
        return Err("rotation flag set but the key count is 0".into());
    }
    if offset == 0 {
        return Err("rotation flag set but the key pointer is 0".into());
    }
    let table = r.table(offset, u64::from(count), ROTATION_KEY_SIZE, "rotation keys").map_err(text)?;
    let mut keys = Vec::with_capacity(usize::from(count));
    let mut curves = Vec::with_capacity(usize::from(count));
    for i in 0..u64::from(count) {
        let at = table.record(i);
        let frame = r.u16(at, "rotation key frame").map_err(text)?;
        let curve = r.u16(at + 2, "rotation key curve id").map_err(text)?;
        let [x, y, z, w] = r.f32s::<4>(at + 4, "rotation key quaternion").map_err(text)?;
        let quat = Quat::from_xyzw(x, y, z, w);
        if !quat.is_finite() || (quat.length() - 1.0).abs() > 0.01 {
            return Err(format!("rotation key {i} at {at:#x} is not a unit quaternion (length {:.4})", quat.length()));
        }
        if let Some(prev) = keys.last().map(|k: &RotationKey| k.frame)
            && frame <= prev
        {
            return Err(format!("rotation key {i} at {at:#x}: frame {frame} does not ascend past {prev}"));
        }
        // Curves are indexed by id, never by the key's position (notes §10).
        let ramp = if curve == NO_EASING {
            None
        } else if easing == 0 {
            return Err(format!("rotation key {i} names easing curve {curve} but the +0x34 table pointer is 0"));
        } else {
            let at = easing + u64::from(curve) * EASING_RECORD_SIZE;
            let bytes = r.bytes(at, EASING_RECORD_SIZE, "easing curve").map_err(text)?;
            let mut ramp = [0u8; 8];
            ramp.copy_from_slice(bytes.get(..8).ok_or("easing curve short")?);
            Some(ramp)
        };
        keys.push(RotationKey { frame, curve, quat });
        curves.push(ramp);
    }
    Ok(RotationTrack { keys, curves })
}

fn read_morph(r: &Reader, descriptor: u64) -> Result<MorphTrack, String> {
    if descriptor == 0 {
        return Err("morph flag set but the descriptor pointer is 0".into());
    }
    let e = text;
    r.bytes(descriptor, MORPH_DESCRIPTOR_SIZE, "morph descriptor").map_err(e)?;
    let flags = r.u8(descriptor, "morph flags").map_err(e)?;
    let centre = Vec3::from_array(r.f32s::<3>(descriptor + MORPH_CENTRE, "morph box centre").map_err(e)?);
    let step = Vec3::from_array(r.f32s::<3>(descriptor + MORPH_STEP, "morph box step").map_err(e)?);
    if !centre.is_finite() || !step.is_finite() {
        return Err(format!("morph box at {descriptor:#x} is not finite"));
    }
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
    Ok(MorphTrack { flags, centre, step, records })
}

fn read_raw_frames(r: &Reader, record: u64, span: u32) -> Result<RawFrames, String> {
    if record == 0 {
        return Err("raw-frame bits set but the +0x28 pointer is 0".into());
    }
    let e = text;
    r.bytes(record, RAW_FRAMES_RECORD_SIZE, "raw vertex frames record").map_err(e)?;
    let index_at = u64::from(r.u32(record, "raw frames index table").map_err(e)?);
    let per_frame = r.u32(record + 4, "raw frames vertices per frame").map_err(e)?;
    let positions_at = u64::from(r.u32(record + 8, "raw frames positions").map_err(e)?);
    if per_frame == 0 {
        return Err("raw vertex frames hold 0 vertices per frame".into());
    }
    // The index table holds one u32 per target vertex and sits directly before the positions.
    let index_count = positions_at.checked_sub(index_at).ok_or("index table does not sit before the positions")? / 4;
    let index_table = r.table(index_at, index_count, 4, "raw frames index table").map_err(e)?;
    let index = (0..index_count)
        .map(|i| r.u32(index_table.record(i), "raw frames index"))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(e)?;
    if let Some(bad) = index.iter().find(|&&i| i >= per_frame) {
        return Err(format!("index {bad} is past the {per_frame} vertices of a frame"));
    }
    let frame_bytes = u64::from(per_frame) * 12;
    let available = r.len().saturating_sub(positions_at) / frame_bytes;
    let frames = available.min(u64::from(span) + 1);
    if frames == 0 {
        return Err("no whole frame of positions fits in the file".into());
    }
    let table = r.table(positions_at, frames * u64::from(per_frame), 12, "raw frame positions").map_err(e)?;
    let mut positions = (0..table.count)
        .map(|i| r.f32s::<3>(table.record(i), "raw frame position").map(Vec3::from_array))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(e)?;
    // With no stated frame count, bytes past the last frame may be other data: keep the whole
    // frames before the first that is not finite.
    let finite_frames = positions.chunks(per_frame as usize).take_while(|f| f.iter().all(|p| p.is_finite())).count();
    if finite_frames == 0 {
        return Err("the first raw frame is not finite".into());
    }
    positions.truncate(finite_frames * per_frame as usize);
    Ok(RawFrames { index, per_frame, positions })
}

fn read_position(r: &Reader, record: u64) -> Result<PositionTrack, String> {
    if record == 0 {
        return Err("position flag set but the +0x18 pointer is 0".into());
    }
    let e = text;
    r.bytes(record, POSITION_RECORD_SIZE, "position record").map_err(e)?;
    let kind = r.u32(record, "position type").map_err(e)?;
    let point_count = u64::from(r.u16(record + 4, "position point count").map_err(e)?);
    let key_count = u64::from(r.u16(record + 6, "position key count").map_err(e)?);
    let points_at = u64::from(r.u32(record + 8, "position points").map_err(e)?);
    let keys_at = u64::from(r.u32(record + 12, "position keys").map_err(e)?);
    if key_count == 0 {
        return Err("position record has no keys".into());
    }
    let expected = if kind & PATH_BEZIER != 0 { 3 * (key_count - 1) + 1 } else { key_count };
    if point_count != expected {
        return Err(format!(
            "type {kind:#x} with {key_count} keys needs {expected} points, the record has {point_count}"
        ));
    }
    let points_table = r.table(points_at, point_count, 12, "position points").map_err(e)?;
    let keys_table = r.table(keys_at, key_count, POSITION_KEY_SIZE, "position keys").map_err(e)?;
    let points = (0..point_count)
        .map(|i| r.f32s::<3>(points_table.record(i), "position point").map(Vec3::from_array))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(e)?;
    if points.iter().any(|p| !p.is_finite()) {
        return Err("a position point is not finite".into());
    }
    let frames = (0..key_count)
        .map(|i| r.u16(keys_table.record(i), "position key frame"))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(e)?;
    // Frames may repeat (zero-length segments) but never go back.
    if frames.windows(2).any(|w| matches!(w, [a, b] if b < a)) {
        return Err("position key frames go backwards".into());
    }
    Ok(PositionTrack { kind, points, frames })
}

fn read_scale(r: &Reader, keys_at: u64, count: u16) -> Result<Vec<(u16, Vec3)>, String> {
    if count == 0 || keys_at == 0 {
        return Err("scale bits set but the key count or the +0x20 pointer is 0".into());
    }
    let table = r.table(keys_at, u64::from(count), SCALE_KEY_SIZE, "scale keys").map_err(text)?;
    let mut keys: Vec<(u16, Vec3)> = Vec::with_capacity(usize::from(count));
    for i in 0..u64::from(count) {
        let at = table.record(i);
        let frame = r.u16(at, "scale key frame").map_err(text)?;
        let value = Vec3::from_array(r.f32s::<3>(at + 4, "scale key").map_err(text)?);
        if !value.is_finite() {
            return Err(format!("scale key {i} at {at:#x} is not finite"));
        }
        if keys.last().is_some_and(|&(prev, _)| frame <= prev) {
            return Err(format!("scale key {i} at {at:#x}: frame {frame} does not ascend"));
        }
        keys.push((frame, value));
    }
    Ok(keys)
}

fn read_path_progress(r: &Reader, record: u64) -> Result<PathProgress, String> {
    if record == 0 {
        return Err("path-progress flag set but the +0x24 pointer is 0".into());
    }
    let e = text;
    r.bytes(record, PATH_PROGRESS_RECORD_SIZE, "path-progress record").map_err(e)?;
    let start = r.u32(record, "path-progress start frame").map_err(e)?;
    let count = u64::from(r.u32(record + 4, "path-progress value count").map_err(e)?);
    let values_at = u64::from(r.u32(record + 12, "path-progress values").map_err(e)?);
    let table = r.table(values_at, count, 4, "path-progress values").map_err(e)?;
    let values = (0..count)
        .map(|i| r.f32(table.record(i), "path-progress value"))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(e)?;
    if values.iter().any(|v| !v.is_finite()) {
        return Err("a path-progress value is not finite".into());
    }
    Ok(PathProgress { start, values })
}

fn read_visibility(r: &Reader, entries_at: u64, count: u16) -> Result<Vec<i16>, String> {
    if entries_at == 0 {
        return Err("visibility flag set but the +0x30 pointer is 0".into());
    }
    let table = r.table(entries_at, u64::from(count), 2, "visibility entries").map_err(text)?;
    (0..u64::from(count))
        .map(|i| r.i16(table.record(i), "visibility entry"))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(text)
}

fn read_uv(r: &Reader, descriptor: u64) -> Result<Vec<UvEntry>, String> {
    if descriptor == 0 {
        return Err("UV flag set but the descriptor pointer is 0".into());
    }
    let e = text;
    r.bytes(descriptor, UV_DESCRIPTOR_SIZE, "UV descriptor").map_err(e)?;
    let n = u64::from(r.u32(descriptor + UV_ENTRY_COUNT, "UV entry count").map_err(e)?);
    let index_at = u64::from(r.u32(descriptor + UV_INDEX_TABLE, "UV index table").map_err(e)?);
    let c = u64::from(r.u32(descriptor + UV_KEY_COUNT, "UV key count").map_err(e)?);
    let frames_at = u64::from(r.u32(descriptor + UV_FRAME_TABLE, "UV frame table").map_err(e)?);
    let values_at = u64::from(r.u32(descriptor + UV_VALUE_TABLE, "UV value table").map_err(e)?);
    let contiguous = index_at.checked_add(n.saturating_mul(4)) == Some(values_at)
        && values_at.checked_add(c.saturating_mul(8)) == Some(frames_at);
    if !contiguous {
        return Err(format!(
            "UV tables are not contiguous: index {index_at:#x} + 4x{n} should reach values {values_at:#x}, which + 8x{c} should reach frames {frames_at:#x}"
        ));
    }
    let index = r.table(index_at, n, 4, "UV index table").map_err(e)?;
    let values = r.table(values_at, c, 8, "UV value table").map_err(e)?;
    let frames = r.table(frames_at, c, 2, "UV frame table").map_err(e)?;
    let mut entries = Vec::with_capacity(n as usize);
    let mut consumed = 0u64;
    for i in 0..n {
        let first = u64::from(r.u16(index.record(i), "UV first key").map_err(e)?);
        let count = u64::from(r.u16(index.record(i) + 2, "UV key count").map_err(e)?);
        if first != consumed || first + count > c {
            return Err(format!("UV entry {i}: keys {first}..{} are not the next run of the {c} keys", first + count));
        }
        if count == 0 {
            return Err(format!("UV entry {i} has no keys"));
        }
        let mut keys: Vec<(u16, Vec2)> = Vec::with_capacity(count as usize);
        for k in first..first + count {
            let frame = r.u16(frames.record(k), "UV key frame").map_err(e)?;
            let [u, v] = r.f32s::<2>(values.record(k), "UV key value").map_err(e)?;
            if !(u.is_finite() && v.is_finite()) {
                return Err(format!("UV entry {i}: key {k} is not finite"));
            }
            if keys.last().is_some_and(|&(prev, _)| frame <= prev) {
                return Err(format!("UV entry {i}: frames do not strictly ascend at key {k}"));
            }
            keys.push((frame, Vec2::new(u, v)));
        }
        consumed += count;
        entries.push(UvEntry { keys });
    }
    if consumed != c {
        return Err(format!("UV key counts sum to {consumed}, not the stated total {c}"));
    }
    Ok(entries)
}

/// Decodes one signed 10-bit morph field at `shift`: `centre + field * step` (notes §11).
pub fn morph_component(raw: u32, shift: u32, centre: f32, step: f32) -> f32 {
    let field = ((raw >> shift) & 0x3FF) as i32;
    let signed = if field >= 512 { field - 1024 } else { field };
    centre + signed as f32 * step
}

/// Decodes a packed morph value (X bits 0-9, Y 10-19, Z 20-29) in the track's box.
pub fn morph_position(raw: u32, centre: Vec3, step: Vec3) -> Vec3 {
    Vec3::new(
        morph_component(raw, 0, centre.x, step.x),
        morph_component(raw, 10, centre.y, step.y),
        morph_component(raw, 20, centre.z, step.z),
    )
}

/// The channel names a track's flag word lists: decoded kinds by name, others by flag bit.
pub fn channel_names(flags: u32, slot_34: u32) -> Vec<String> {
    let mut names = Vec::new();
    let has = |bits: u32| flags & bits == bits;
    for bit in (0..32).map(|b| 1u32 << b).filter(|b| flags & b != 0) {
        match bit {
            CH_ROTATION => names.push("rotation".to_string()),
            CH_POSITION => names.push("position".to_string()),
            0x80 | 0x100 if has(CH_SCALE) => {
                if bit == 0x80 {
                    names.push("scale".to_string());
                }
            }
            CH_PATH => names.push("path progress".to_string()),
            CH_PATH_FACING if has(CH_PATH) => names.push("facing".to_string()),
            CH_MORPH if has(CH_RAW_FRAMES) => names.push("raw frames".to_string()),
            CH_MORPH => names.push("morph".to_string()),
            CH_RAW_FRAMES if has(CH_MORPH) => {} // the modifier named with 0x1000 above
            CH_UV => names.push("uv".to_string()),
            CH_VISIBILITY => names.push("visibility".to_string()),
            other => names.push(format!("{other:#x}")),
        }
    }
    if slot_34 != 0 {
        names.push(if has(CH_ROTATION) { "easing".to_string() } else { "+0x34".to_string() });
    }
    names
}

/// Resolves each track's target against `model` (if any) and turns decoded channels into
/// scene channels; everything that cannot play is reported on its track with the reason.
/// The clip runs over the block's declared span at 30 frames per second, and starts by
/// hiding the nodes of its hide list (notes §18: visibility tracks may show them again).
/// The viewer evaluates every clip from the loaded state, which is what the engine's clip
/// start restores of the outgoing clip (transforms, vertices, UVs, and the hidden flag of the
/// nodes it named), so nothing carries over from one clip to the next.
pub fn bind(file: &AnimFile, model: Option<&TpwModel>, name: &str, source: Option<&std::path::Path>) -> Clip {
    let mut clip = Clip {
        name: name.to_string(),
        source: source.map(|p| p.to_path_buf()),
        start: file.first_frame as f32,
        end: file.first_frame as f32 + file.length() as f32,
        rate: FRAMES_PER_SECOND,
        channels: Vec::new(),
        tracks: Vec::new(),
        warnings: file.warnings.clone(),
    };
    if let Some(model) = model {
        let nodes = model.scene.nodes.len();
        for &node in &file.hide_list {
            if usize::from(node) < nodes {
                clip.channels.push(Channel::NodeVisibility {
                    node: usize::from(node),
                    keys: vec![Key { time: clip.start, value: false }],
                });
            } else {
                clip.warnings.push(format!("hide list names node {node}, but the model has {nodes}; ignored"));
            }
        }
    }
    for track in &file.tracks {
        let slot_34 = track.slots.iter().find(|(n, _)| n == "+0x34").map(|(_, v)| *v).unwrap_or(0);
        let mut report = TrackReport {
            index: track.position,
            target: u32::from(track.target),
            target_name: None,
            channels: channel_names(track.flags, slot_34).into_iter().map(Into::into).collect(),
            flags: track.flags,
            slots: track.slots.clone(),
            key_counts: key_counts(track).into_iter().map(|(kind, n)| (kind.into(), n)).collect(),
            reasons: Vec::new(),
            skipped: None,
        };
        let mut reasons = Vec::new();
        let mut played = 0;
        match model {
            None => reasons.push("no base model to pose".to_string()),
            Some(model) => {
                let target = usize::from(track.target);
                report.target_name = model.scene.nodes.get(target).map(|n| n.name.as_str().into());
                let mut bound = Bound { channels: &mut clip.channels, reasons: &mut reasons, played: &mut played };
                bind_track(track, model, &mut bound);
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
    if let Some(Ok(rotation)) = &track.rotation {
        counts.push(("rotation keys".into(), rotation.keys.len() as u32));
        let eased = rotation.curves.iter().filter(|c| c.is_some()).count() as u32;
        if eased > 0 {
            counts.push(("eased keys".into(), eased));
        }
    }
    if let Some(Ok(morph)) = &track.morph {
        counts.push(("morph records".into(), morph.records.len() as u32));
        counts.push(("morph channels".into(), morph.records.iter().map(|r| r.channels.len() as u32).sum()));
        counts.push(("morph keys".into(), morph.records.iter().map(|r| r.frames.len() as u32).sum()));
    }
    if let Some(Ok(frames)) = &track.raw_frames {
        counts.push(("raw frames".into(), frames.frame_count() as u32));
    }
    if let Some(Ok(entries)) = &track.uv {
        counts.push(("uv entries".into(), entries.len() as u32));
        counts.push(("uv keys".into(), entries.iter().map(|e| e.keys.len() as u32).sum()));
    }
    if let Some(Ok(position)) = &track.position_curve {
        counts.push(("position keys".into(), position.frames.len() as u32));
    }
    if let Some(Ok(keys)) = &track.scale {
        counts.push(("scale keys".into(), keys.len() as u32));
    }
    if let Some(Ok(progress)) = &track.path_progress {
        counts.push(("path values".into(), progress.values.len() as u32));
    }
    if let Some(Ok(entries)) = &track.visibility {
        counts.push(("visibility entries".into(), entries.len() as u32));
    }
    counts
}

/// Where one track's bound channels, reasons and played count go.
struct Bound<'a> {
    channels: &'a mut Vec<Channel>,
    reasons: &'a mut Vec<String>,
    played: &'a mut u32,
}

impl Bound<'_> {
    /// Records a channel's outcome: its scene channel, or why it cannot play.
    fn push(&mut self, kind: &str, outcome: Result<Channel, String>) {
        match outcome {
            Ok(channel) => {
                self.channels.push(channel);
                *self.played += 1;
            }
            Err(reason) => self.reasons.push(format!("{kind}: {reason}")),
        }
    }
}

/// Binds a track's channels in the engine's order within a track (notes: rotation at
/// `0x00471d53`, scale `0x00471d8d`, path `0x00471f77`, position `0x0047205d`), then
/// visibility, vertices and UVs.
fn bind_track(track: &RawTrack, model: &TpwModel, out: &mut Bound) {
    let scene = &model.scene;
    let target = usize::from(track.target);
    let node_count = scene.nodes.len();
    let node_target = || {
        if target < node_count {
            Ok(target)
        } else {
            Err(format!("target {target} is outside the model's {node_count} nodes"))
        }
    };
    if let Some(rotation) = &track.rotation {
        let outcome = rotation.clone().and_then(|rotation| Ok(rotation_channel(&rotation, node_target()?, model)));
        out.push("rotation", outcome);
    }
    if let Some(scale) = &track.scale {
        let outcome = scale.clone().and_then(|keys| {
            Ok(Channel::NodeAxisScale {
                node: node_target()?,
                keys: keys.iter().map(|&(frame, value)| Key { time: f32::from(frame), value }).collect(),
            })
        });
        out.push("scale", outcome);
    }
    if let Some(progress) = &track.path_progress {
        let outcome = progress.clone().and_then(|p| path_channel(&p, node_target()?, track.flags, model));
        out.push("path progress", outcome);
    }
    if let Some(position) = &track.position_curve {
        let outcome = position.clone().and_then(|p| {
            Ok(Channel::NodePosition { node: node_target()?, curve: position_curve(&p), additive: model.additive })
        });
        out.push("position", outcome);
    }
    if let Some(visibility) = &track.visibility {
        let outcome = visibility
            .clone()
            .and_then(|entries| Ok(Channel::NodeVisibility { node: node_target()?, keys: visibility_keys(&entries) }));
        out.push("visibility", outcome);
    }
    // Morph, raw frames and UV need a mesh: a target at or past the mesh count is a
    // transform-only node.
    let mesh_count = model.meshes.len();
    let mesh_target = || {
        (target < mesh_count)
            .then(|| scene.nodes.get(target).and_then(|n| n.mesh))
            .flatten()
            .ok_or_else(|| format!("target {target} is not one of the model's {mesh_count} meshes"))
    };
    if let Some(morph) = &track.morph {
        let outcome = morph.as_ref().map_err(Clone::clone).and_then(|m| bind_morph(m, model, target, mesh_target()?));
        out.push("morph", outcome);
    }
    if let Some(frames) = &track.raw_frames {
        let outcome =
            frames.as_ref().map_err(Clone::clone).and_then(|f| bind_raw_frames(f, model, target, mesh_target()?));
        out.push("raw frames", outcome);
    }
    if let Some(uv) = &track.uv {
        let outcome = uv.as_ref().map_err(Clone::clone).and_then(|entries| {
            let mesh = mesh_target()?;
            let slots = model.meshes.get(target).map(|f| f.order_length as usize).unwrap_or(0);
            if entries.len() > slots {
                return Err(format!("{} entries, but the mesh has {slots} UV slots", entries.len()));
            }
            Ok(Channel::UvKeys {
                mesh,
                slots: (0u32..)
                    .zip(entries)
                    .map(|(slot, e)| UvSlotKeys {
                        slot,
                        keys: e.keys.iter().map(|&(frame, value)| Key { time: f32::from(frame), value }).collect(),
                    })
                    .collect(),
            })
        });
        out.push("uv", outcome);
    }
}

/// A rotation track as a scene channel: keys replace the node's authored local rotation, or
/// under the model's additive bit compose with it (no authored rotation is taken out).
fn rotation_channel(rotation: &RotationTrack, node: usize, model: &TpwModel) -> Channel {
    let local = model.scene.nodes.get(node).map(|n| n.local).unwrap_or_default();
    let authored_inverse =
        if model.additive { glam::Mat4::IDENTITY } else { math::authored_orientation_inverse(&local) };
    let keys: Vec<Key<Quat>> =
        rotation.keys.iter().map(|k| Key { time: f32::from(k.frame), value: k.quat.normalize() }).collect();
    if rotation.curves.iter().all(Option::is_none) {
        return Channel::NodeRotation { node, authored_inverse, keys };
    }
    let ease = rotation.curves.iter().map(|c| c.map(EaseRamp)).collect();
    Channel::NodeRotationEased { node, authored_inverse, keys, ease }
}

/// A position record as a curve: Bezier segments use points `3s..=3s+3`, so key `s` sits at
/// point `3s` with out-tangent `3s+1` and in-tangent `3s-1`; straight lines key every point.
/// The unused Catmull-Rom type becomes Hermite with tangents `(p[i+1] - p[i-1]) / 2`.
pub fn position_curve(position: &PositionTrack) -> Curve<Vec3> {
    let point = |i: usize| position.points.get(i).copied().unwrap_or(Vec3::ZERO);
    let time = |i: usize| position.frames.get(i).map(|&f| f32::from(f)).unwrap_or(0.0);
    let count = position.frames.len();
    match super::mesh::path_kind(position.kind) {
        crate::scene::PathKind::Bezier => Curve {
            keys: (0..count).map(|i| Key { time: time(i), value: point(3 * i) }).collect(),
            interpolation: Interpolation::Bezier,
            tangents: (0..count)
                .map(|i| {
                    let here = point(3 * i);
                    let incoming = if i == 0 { here } else { point(3 * i - 1) };
                    let outgoing = if i + 1 == count { here } else { point(3 * i + 1) };
                    [incoming, outgoing]
                })
                .collect(),
        },
        crate::scene::PathKind::Straight => {
            Curve::linear((0..count).map(|i| Key { time: time(i), value: point(i) }).collect())
        }
        crate::scene::PathKind::CatmullRom => Curve {
            keys: (0..count).map(|i| Key { time: time(i), value: point(i) }).collect(),
            interpolation: Interpolation::Hermite,
            tangents: (0..count)
                .map(|i| {
                    let tangent = (point((i + 1).min(count - 1)) - point(i.saturating_sub(1))) * 0.5;
                    [tangent, tangent]
                })
                .collect(),
        },
    }
}

/// Visibility entries as switch keys. The engine walks the entries from the end and the first
/// with `|e| <= frame` decides (`e >= 1` shows, else hides); that is, at each frame the entry
/// with the highest index among those reached. Sorting by `|e|` while carrying the highest index
/// seen gives the same answer as keys, even for lists out of frame order.
pub fn visibility_keys(entries: &[i16]) -> Vec<Key<bool>> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries.get(i).map(|e| e.unsigned_abs()).unwrap_or(0));
    let mut keys: Vec<Key<bool>> = Vec::with_capacity(entries.len());
    let mut deciding: Option<usize> = None;
    for i in order {
        let Some(&entry) = entries.get(i) else { continue };
        deciding = Some(deciding.map_or(i, |d| d.max(i)));
        let value = deciding.and_then(|d| entries.get(d)).is_some_and(|&e| e >= 1);
        let time = f32::from(entry.unsigned_abs());
        match keys.last_mut() {
            Some(last) if last.time == time => last.value = value,
            _ => keys.push(Key { time, value }),
        }
    }
    keys
}

fn path_channel(progress: &PathProgress, node: usize, flags: u32, model: &TpwModel) -> Result<Channel, String> {
    let scene = &model.scene;
    let parent = scene.nodes.get(node).and_then(|n| n.parent).ok_or("the target has no parent, so no path node")?;
    let index = model
        .path_nodes
        .get(parent)
        .copied()
        .flatten()
        .ok_or_else(|| format!("the target's parent (node {parent}) is not a path node (flag 0x8)"))?;
    let path = match model.paths.get(usize::from(index)) {
        Some(Ok(path)) => path.clone(),
        Some(Err(reason)) => return Err(reason.clone()),
        None => return Err(format!("path node names path {index}, but the model has {} paths", model.paths.len())),
    };
    if path.segments() == 0 {
        return Err(format!("path {index} has {} points, too few for one segment", path.points.len()));
    }
    Ok(Channel::NodePathProgress {
        node,
        path,
        start: progress.start as f32,
        values: progress.values.clone(),
        face_along: flags & CH_PATH_FACING != 0,
        additive: model.additive,
    })
}

fn bind_morph(morph: &MorphTrack, model: &TpwModel, target: usize, mesh: usize) -> Result<Channel, String> {
    let facts = model.meshes.get(target).ok_or("target has no mesh record")?;
    let channel_count: u64 = morph.records.iter().map(|r| r.channels.len() as u64).sum();
    let expected = u64::from(facts.vertex_count) + 2;
    if channel_count != expected {
        return Err(format!(
            "{channel_count} channels, but target mesh {target} has {} vertices (+2 box corners expected = {expected})",
            facts.vertex_count
        ));
    }
    let mut blocks = Vec::with_capacity(morph.records.len());
    for record in &morph.records {
        let width = record.channels.len();
        // Keep the channels that are vertices; the two trailing box corners are not.
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
                positions.push(morph_position(raw, morph.centre, morph.step));
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

fn bind_raw_frames(frames: &RawFrames, model: &TpwModel, target: usize, mesh: usize) -> Result<Channel, String> {
    let facts = model.meshes.get(target).ok_or("target has no mesh record")?;
    let vertex_count = facts.vertex_count as usize;
    if frames.index.len() < vertex_count {
        return Err(format!("{} index entries for a {vertex_count}-vertex mesh", frames.index.len()));
    }
    let per_frame = frames.per_frame as usize;
    let frame_count = frames.frame_count();
    let mut positions = Vec::with_capacity(frame_count * vertex_count);
    for f in 0..frame_count {
        for &index in frames.index.iter().take(vertex_count) {
            positions.push(frames.positions.get(f * per_frame + index as usize).copied().unwrap_or(Vec3::ZERO));
        }
    }
    Ok(Channel::VertexFrames {
        mesh,
        times: (0..frame_count).map(|f| f as f32).collect(),
        vertex_count,
        positions,
        additive: model.additive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morph_fields_decode_as_centre_plus_field_times_step() {
        // X = -512, Y = 511, Z = 0: centre - 512 step, centre + 511 step, centre.
        let raw = (0x200u32) | (0x1FF << 10);
        assert_eq!(morph_component(raw, 0, 3.0, 0.5), 3.0 - 256.0);
        assert_eq!(morph_component(raw, 10, 3.0, 0.5), 3.0 + 255.5);
        assert_eq!(morph_component(raw, 20, 3.0, 0.5), 3.0);
    }

    #[test]
    fn channel_names_cover_every_owned_bit() {
        let flags =
            CH_ROTATION | CH_MORPH | CH_UV | CH_VISIBILITY | CH_POSITION | CH_SCALE | CH_PATH | CH_PATH_FACING | 0x40;
        let names = channel_names(flags, 5);
        assert_eq!(
            names,
            ["position", "rotation", "0x40", "scale", "path progress", "facing", "morph", "uv", "visibility", "easing"]
        );
        assert_eq!(channel_names(CH_MORPH | CH_RAW_FRAMES, 0), ["raw frames"]);
        // Half a scale pair is not a scale channel.
        assert_eq!(channel_names(0x80, 0), ["0x80"]);
    }

    #[test]
    fn visibility_walks_from_the_end() {
        // Advisorm10's eyelids: 0, 40, -44, 180, -184: hidden from 0, shown 40, hidden 44 ...
        let keys = visibility_keys(&[0, 40, -44, 180, -184]);
        let at = |f: f32| keys.iter().rev().find(|k| k.time <= f).map(|k| k.value);
        assert_eq!(at(0.0), Some(false));
        assert_eq!(at(41.0), Some(true));
        assert_eq!(at(44.0), Some(false));
        assert_eq!(at(200.0), Some(false));
        // Out of order: [10, -5]. At frame 12 both qualify; walking from the end, -5 decides.
        let keys = visibility_keys(&[10, -5]);
        let at = |f: f32| keys.iter().rev().find(|k| k.time <= f).map(|k| k.value);
        assert_eq!(at(4.0), None);
        assert_eq!(at(7.0), Some(false));
        assert_eq!(at(12.0), Some(false));
    }

    #[test]
    fn bezier_positions_take_three_points_a_key() {
        let p = |x: f32| Vec3::new(x, 0.0, 0.0);
        let track =
            PositionTrack { kind: 0x12, points: (0..7).map(|i| p(i as f32)).collect(), frames: vec![0, 10, 20] };
        let curve = position_curve(&track);
        assert_eq!(curve.keys.iter().map(|k| k.value.x).collect::<Vec<_>>(), [0.0, 3.0, 6.0]);
        assert_eq!(curve.tangents[1], [p(2.0), p(4.0)]);
    }
}
