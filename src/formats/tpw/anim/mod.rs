//! TPW animation files (mesh table offset 0): the animation block at 0x98, the 64-byte track
//! descriptors, and every channel a flag bit owns (notes §9-§17): rotation 0x8 (with easing
//! curves at +0x34), position 0x1, scale 0x80+0x100, path progress 0x200 (facing 0x400),
//! vertex morph 0x1000 (raw float frames under 0x4000), UV 0x10000 and visibility 0x20000,
//! plus the block's hide list. [`decode_anim`] reads the file into raw tracks without a base
//! model; [`bind()`] resolves targets against a base model and produces a scene
//! [`Clip`](crate::scene::Clip).
//!
//! A channel that fails validation costs only itself: the reason is recorded on its track
//! and the rest of the file still plays. Undecoded channel bits are listed, never fatal.
//!
//! The parts: this module holds the raw track types and walks the block and the track table;
//! `channels` reads each channel's records from the file; `bind` turns them into a clip.

mod bind;
mod channels;

use glam::{Quat, Vec2, Vec3};

use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use channels::{
    read_morph, read_path_progress, read_position, read_raw_frames, read_rotation, read_scale, read_uv, read_visibility,
};

pub use super::layout::FRAMES_PER_SECOND;
pub use bind::{bind, channel_names, position_curve, visibility_keys};
pub use channels::{morph_component, morph_position};

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
