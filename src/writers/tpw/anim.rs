//! [`AnimFile`]: a whole TPW animation file (header, track table, animation block, then per
//! track its channel data), its tracks and channels, and the morph value packing.

use glam::Vec3;

use super::buf::*;
use crate::formats::tpw::layout::*;

/// One 20-byte rotation keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationKeySpec {
    pub frame: u16,
    /// Easing curve id into [`TrackSpec::easing`]; [`NO_EASING`] (0xFFFF) for none.
    pub curve: u16,
    /// x, y, z, w.
    pub quat: [f32; 4],
}

/// One 20-byte morph record: `channels.len()` channel ids keyed at `frames`, values entry-major
/// (`values[e * channels.len() + k]`, packed with [`pack_morph`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphRecordSpec {
    pub channels: Vec<u16>,
    pub frames: Vec<u16>,
    pub values: Vec<u32>,
}

/// A morph descriptor (0x2C bytes): flags byte, the track's quantisation box (centre at +0x14,
/// step at +0x20) and its records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphSpec {
    pub flags: u8,
    pub centre: [f32; 3],
    pub step: [f32; 3],
    pub records: Vec<MorphRecordSpec>,
}

/// Raw float vertex frames (bits 0x1000 + 0x4000): a 16-byte record, the index table (one u32
/// per target vertex) directly before whole frames of `per_frame` positions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawFramesSpec {
    pub index: Vec<u32>,
    pub per_frame: u32,
    pub positions: Vec<[f32; 3]>,
}

/// One UV entry: the keys of one UV slot, `(frame, [u, v])`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UvEntrySpec {
    pub keys: Vec<(u16, [f32; 2])>,
}

/// A position record: type word (0x12 Bezier, 0x18 straight), points and key frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionSpec {
    pub kind: u32,
    pub points: Vec<[f32; 3]>,
    pub frames: Vec<u16>,
}

/// A path-progress record: one percentage per frame from `start`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathProgressSpec {
    pub start: u32,
    pub values: Vec<f32>,
}

/// One 64-byte track descriptor and its channels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrackSpec {
    /// The index stored at +0x00; `None` writes its position in the table.
    pub index: Option<u32>,
    pub target: u16,
    /// The u16 at +0x16 when the track has no visibility channel (which owns it as its count).
    pub unrelated_16: u16,
    /// The frame value at +0x0C.
    pub frame_value: u32,
    /// OR'd into the computed flag word as given (e.g. 0x400 facing, or 0x40). A channel bit set
    /// here without its data leaves that slot 0: a deliberately broken track.
    pub extra_flags: u32,
    /// Empty means no rotation channel (bit 0x8, count at +0x10, pointer at +0x1C).
    pub rotation: Vec<RotationKeySpec>,
    /// Easing curves at +0x34, 8 bytes each; curve id k is record k.
    pub easing: Vec<[u8; 8]>,
    /// Bit 0x1000: a 0x2C-byte descriptor at +0x28 and 20-byte records.
    pub morph: Option<MorphSpec>,
    /// Bits 0x1000 + 0x4000: raw frames at +0x28.
    pub raw_frames: Option<RawFramesSpec>,
    /// Bit 0x10000: a 20-byte descriptor at +0x2C; index, value and frame tables contiguous.
    pub uv: Option<Vec<UvEntrySpec>>,
    /// Bit 0x1: a 16-byte record at +0x18.
    pub position: Option<PositionSpec>,
    /// Bits 0x80 + 0x100: count at +0x12, 16-byte keys at +0x20.
    pub scale: Option<Vec<(u16, [f32; 3])>>,
    /// Bit 0x200: a 16-byte record at +0x24, values after it.
    pub path_progress: Option<PathProgressSpec>,
    /// Bit 0x20000: count at +0x16, i16 entries at +0x30.
    pub visibility: Option<Vec<i16>>,
}

/// A whole animation file.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimFile {
    /// Header 0x04.
    pub version: u32,
    /// Header 0x08; the engine discards the animation unless it is 0xCB.
    pub anim_version: u32,
    /// Block +0x04 (0 in every game file) and +0x08: the clip spans their difference.
    pub first_frame: i32,
    pub last_frame: u32,
    /// Block +0x1A / +0x38: node indices hidden at clip start.
    pub hide_list: Vec<u16>,
    pub tracks: Vec<TrackSpec>,
    /// Leave 4 bytes between the track table and the block, so that
    /// `tableOffset + count * 64 == blockOffset` fails.
    pub break_identity: bool,
    /// Store 0 at header 0x98 (the block is still laid out).
    pub no_block: bool,
}

impl Default for AnimFile {
    fn default() -> Self {
        Self {
            version: MAX_VERSION,
            anim_version: ANIM_VERSION,
            first_frame: 0,
            last_frame: 0,
            hide_list: Vec::new(),
            tracks: Vec::new(),
            break_identity: false,
            no_block: false,
        }
    }
}

impl TrackSpec {
    /// The flag word written at +0x04: one bit per channel carried, plus `extra_flags`.
    pub fn flags(&self) -> u32 {
        let mut flags = self.extra_flags;
        let mut set = |present: bool, bits: u32| {
            if present {
                flags |= bits;
            }
        };
        set(!self.rotation.is_empty(), CH_ROTATION);
        set(self.morph.is_some(), CH_MORPH);
        set(self.raw_frames.is_some(), CH_MORPH | CH_RAW_FRAMES);
        set(self.uv.is_some(), CH_UV);
        set(self.position.is_some(), CH_POSITION);
        set(self.scale.is_some(), CH_SCALE);
        set(self.path_progress.is_some(), CH_PATH);
        set(self.visibility.is_some(), CH_VISIBILITY);
        flags
    }
}

impl AnimFile {
    /// The structural rules a spec must follow for its file to lay out as the spec says.
    pub fn validate(&self) -> Result<(), String> {
        let limit = usize::from(u16::MAX);
        if self.tracks.len() > limit || self.hide_list.len() > limit {
            return Err(format!("{} tracks or the hide list do not fit a u16 count", self.tracks.len()));
        }
        let key_sum: usize = self.tracks.iter().map(|t| t.rotation.len()).sum();
        if key_sum > limit {
            return Err(format!("{key_sum} rotation keys do not fit the block's u16 sum"));
        }
        for (i, track) in self.tracks.iter().enumerate() {
            if track.morph.is_some() && track.raw_frames.is_some() {
                return Err(format!("track {i}: morph and raw frames share the +0x28 slot"));
            }
            for record in track.morph.iter().flat_map(|m| &m.records) {
                if record.channels.len() > limit || record.frames.len() > limit {
                    return Err(format!("track {i}: a morph record's counts do not fit u16"));
                }
                if record.values.len() != record.channels.len() * record.frames.len() {
                    return Err(format!(
                        "track {i}: a morph record has {} values for {} channels x {} frames",
                        record.values.len(),
                        record.channels.len(),
                        record.frames.len()
                    ));
                }
            }
            if track.morph.as_ref().is_some_and(|m| m.records.len() > limit) {
                return Err(format!("track {i}: too many morph records for the descriptor's u16"));
            }
            if track.uv.iter().flatten().any(|e| e.keys.len() > limit) {
                return Err(format!("track {i}: a UV entry has more keys than a u16 holds"));
            }
            if let Some(position) = &track.position {
                let keys = position.frames.len();
                let points = if position.kind & PATH_BEZIER != 0 { 3 * keys.saturating_sub(1) + 1 } else { keys };
                if keys == 0 || keys > limit || position.points.len() != points {
                    return Err(format!(
                        "track {i}: position type {:#x} with {keys} keys needs {points} points",
                        position.kind
                    ));
                }
            }
            if track.scale.as_ref().is_some_and(|k| k.len() > limit)
                || track.visibility.as_ref().is_some_and(|v| v.len() > limit)
            {
                return Err(format!("track {i}: scale keys or visibility entries do not fit a u16 count"));
            }
            if track.rotation.iter().any(|k| k.curve != NO_EASING && usize::from(k.curve) >= track.easing.len()) {
                return Err(format!("track {i}: a rotation key names a curve past the {} written", track.easing.len()));
            }
        }
        Ok(())
    }

    /// Encodes the file. Structural mistakes in the spec are caught by `debug_assert!` (see
    /// [`AnimFile::validate`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let checked = self.validate();
        debug_assert!(checked.is_ok(), "invalid TPW animation spec: {checked:?}");

        let mut buf = Buf::with_header();
        buf.u32(HDR_VERSION, self.version);
        buf.u32(HDR_ANIM_VERSION, self.anim_version);
        // Header 0x70 stays 0: that is what makes this an animation file.
        let table = buf.reserve(self.tracks.len() as u64 * TRACK_SIZE);
        if self.break_identity {
            buf.reserve(ALIGN);
        }
        let block = buf.reserve(ANIM_BLOCK_SIZE);
        buf.offset(HDR_ANIM_BLOCK, if self.no_block { 0 } else { block });
        let key_sum: usize = self.tracks.iter().map(|t| t.rotation.len()).sum();
        buf.put(block + ANIM_FIRST_FRAME, &self.first_frame.to_le_bytes());
        buf.u32(block + ANIM_LAST_FRAME, self.last_frame);
        buf.u16(block + ANIM_ROTATION_KEY_SUM, to_u16(key_sum));
        buf.u16(block + ANIM_TRACK_COUNT, to_u16(self.tracks.len()));
        buf.offset(block + ANIM_TRACK_TABLE, table);
        if !self.hide_list.is_empty() {
            let list = buf.append(&u16s(&self.hide_list));
            buf.u16(block + ANIM_HIDE_COUNT, to_u16(self.hide_list.len()));
            buf.offset(block + ANIM_HIDE_LIST, list);
        }

        for (position, track) in (0u32..).zip(&self.tracks) {
            write_track(&mut buf, table + u64::from(position) * TRACK_SIZE, position, track);
        }
        buf.finish()
    }
}

fn write_track(buf: &mut Buf, at: u64, position: u32, track: &TrackSpec) {
    buf.u32(at + TRACK_INDEX, track.index.unwrap_or(position));
    buf.u32(at + TRACK_FLAGS, track.flags());
    buf.u32(at + TRACK_FRAME_VALUE, track.frame_value);
    buf.u16(at + TRACK_ROTATION_COUNT, to_u16(track.rotation.len()));
    buf.u16(at + TRACK_TARGET, track.target);
    buf.u16(at + TRACK_UNRELATED_16, track.unrelated_16);

    if !track.rotation.is_empty() {
        let keys = buf.reserve(track.rotation.len() as u64 * ROTATION_KEY_SIZE);
        for (i, key) in (0u64..).zip(&track.rotation) {
            let rec = keys + i * ROTATION_KEY_SIZE;
            buf.u16(rec, key.frame);
            buf.u16(rec + 2, key.curve);
            buf.f32s(rec + 4, &key.quat);
        }
        buf.offset(at + TRACK_SLOT_ROTATION, keys);
    }
    if !track.easing.is_empty() {
        let curves = buf.append(&track.easing.concat());
        buf.offset(at + TRACK_SLOT_EASING, curves);
    }

    if let Some(morph) = &track.morph {
        let descriptor = buf.reserve(MORPH_DESCRIPTOR_SIZE);
        let table = buf.reserve(morph.records.len() as u64 * MORPH_RECORD_SIZE);
        buf.put(descriptor, &[morph.flags]);
        buf.u16(descriptor + MORPH_RECORD_COUNT, to_u16(morph.records.len()));
        buf.offset(descriptor + MORPH_RECORD_TABLE, table);
        buf.f32s(descriptor + MORPH_CENTRE, &morph.centre);
        buf.f32s(descriptor + MORPH_STEP, &morph.step);
        for (i, record) in (0u64..).zip(&morph.records) {
            let rec = table + i * MORPH_RECORD_SIZE;
            // Each array starts on a 4-byte boundary: the channel ids and the frames are padded.
            let channels = buf.append(&u16s(&record.channels));
            let frames = buf.append(&u16s(&record.frames));
            let values = buf.append(&u32s(&record.values));
            buf.u16(rec, to_u16(record.frames.len()));
            buf.u16(rec + 2, to_u16(record.channels.len()));
            buf.offset(rec + 4, channels);
            buf.offset(rec + 8, frames);
            buf.offset(rec + 12, values);
        }
        buf.offset(at + TRACK_SLOT_MORPH, descriptor);
    }

    if let Some(frames) = &track.raw_frames {
        let record = buf.reserve(RAW_FRAMES_RECORD_SIZE);
        let index = buf.append(&u32s(&frames.index));
        let positions =
            buf.append(&frames.positions.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        buf.offset(record, index);
        buf.u32(record + 4, frames.per_frame);
        buf.offset(record + 8, positions);
        buf.offset(at + TRACK_SLOT_MORPH, record);
    }

    if let Some(entries) = &track.uv {
        let n = entries.len() as u64;
        let c: usize = entries.iter().map(|e| e.keys.len()).sum();
        let descriptor = buf.reserve(UV_DESCRIPTOR_SIZE);
        // Index (n x 4), value (c x 8) and frame (c x 2) tables, contiguous in that order.
        let index = buf.reserve(n * 4);
        let values = buf.reserve(c as u64 * 8);
        let frames = buf.reserve(c as u64 * 2);
        buf.u32(descriptor + UV_ENTRY_COUNT, to_u32(n));
        buf.offset(descriptor + UV_INDEX_TABLE, index);
        buf.u32(descriptor + UV_KEY_COUNT, to_u32(c as u64));
        buf.offset(descriptor + UV_FRAME_TABLE, frames);
        buf.offset(descriptor + UV_VALUE_TABLE, values);
        let mut first = 0u64;
        for (i, entry) in (0u64..).zip(entries) {
            buf.u16(index + 4 * i, to_u16(first as usize));
            buf.u16(index + 4 * i + 2, to_u16(entry.keys.len()));
            for (k, (frame, uv)) in (first..).zip(&entry.keys) {
                buf.f32s(values + 8 * k, uv);
                buf.u16(frames + 2 * k, *frame);
            }
            first += entry.keys.len() as u64;
        }
        buf.offset(at + TRACK_SLOT_UV, descriptor);
    }

    if let Some(position) = &track.position {
        let record = buf.reserve(POSITION_RECORD_SIZE);
        let points = buf.append(&position.points.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        let keys: Vec<u16> = position.frames.iter().flat_map(|&f| [f, 0]).collect();
        let keys = buf.append(&u16s(&keys));
        buf.u32(record, position.kind);
        buf.u16(record + 4, to_u16(position.points.len()));
        buf.u16(record + 6, to_u16(position.frames.len()));
        buf.offset(record + 8, points);
        buf.offset(record + 12, keys);
        buf.offset(at + TRACK_SLOT_POSITION, record);
    }

    if let Some(keys) = &track.scale {
        let table = buf.reserve(keys.len() as u64 * SCALE_KEY_SIZE);
        for (i, (frame, value)) in (0u64..).zip(keys) {
            buf.u16(table + i * SCALE_KEY_SIZE, *frame);
            buf.f32s(table + i * SCALE_KEY_SIZE + 4, value);
        }
        buf.u16(at + TRACK_SCALE_COUNT, to_u16(keys.len()));
        buf.offset(at + TRACK_SLOT_SCALE, table);
    }

    if let Some(progress) = &track.path_progress {
        // The values follow the record directly, as in all 71 game tracks.
        let record = buf.reserve(PATH_PROGRESS_RECORD_SIZE + progress.values.len() as u64 * 4);
        buf.u32(record, progress.start);
        buf.u32(record + 4, to_u32(progress.values.len() as u64));
        buf.offset(record + 12, record + PATH_PROGRESS_RECORD_SIZE);
        buf.f32s(record + PATH_PROGRESS_RECORD_SIZE, &progress.values);
        buf.offset(at + TRACK_SLOT_PATH, record);
    }

    if let Some(entries) = &track.visibility {
        let list: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
        let list = if list.is_empty() { buf.reserve(ALIGN) } else { buf.append(&list) };
        buf.u16(at + TRACK_VISIBILITY_COUNT, to_u16(entries.len()));
        buf.offset(at + TRACK_SLOT_VISIBILITY, list);
    }
}

/// Packs a position into the three signed 10-bit fields of a morph value (X bits 0-9, Y 10-19,
/// Z 20-29) in a track's box: the inverse of `centre + field * step`, rounded and clamped to
/// -512..=511. A zero step packs 0.
pub fn pack_morph(pos: [f32; 3], centre: [f32; 3], step: [f32; 3]) -> u32 {
    let fields = pos.iter().zip(centre.iter().zip(&step)).map(|(&p, (&c, &s))| {
        let field = if s != 0.0 && s.is_finite() && p.is_finite() {
            ((p - c) / s).round().clamp(-512.0, 511.0) as i32
        } else {
            0
        };
        (field as u32) & 0x3FF
    });
    fields.zip([0u32, 10, 20]).fold(0, |raw, (field, shift)| raw | (field << shift))
}

/// A box (centre, step) whose 10-bit fields span `min..=max`: centre midway, step =
/// extent / 1023 (the writer's choice; the notes say nothing of how the game's tools chose).
pub fn morph_box(min: [f32; 3], max: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let (min, max) = (Vec3::from_array(min), Vec3::from_array(max));
    (((min + max) * 0.5).to_array(), ((max - min) / 1023.0).to_array())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;
    use crate::formats::reader::Reader;
    use crate::formats::tpw::layout::*;
    use crate::formats::tpw::{FORMAT, anim, decode};
    use glam::{Quat, Vec2, Vec3};

    #[test]
    fn every_stored_offset_is_four_byte_aligned() {
        // Odd lengths everywhere: names, vertex counts, order lengths, face counts, arrays.
        let mut a = numbered_mesh("abcde", 5);
        a.materials = vec![MaterialSpec { texture: Some(2), start: 0, end: 4 }];
        let b = MeshSpec { parent: Some(2), ..numbered_mesh("xy", 3) };
        let file = MeshFile {
            textures: vec![TextureSpec::opaque("t"), TextureSpec::opaque("tex"), TextureSpec::see_through("texture9")],
            meshes: vec![a, b],
            dummies: vec![DummySpec { name: "dum".into(), parent: Some(0), ..DummySpec::default() }],
            ..MeshFile::default()
        };
        let bytes = file.to_bytes();
        let mut offsets = vec![u32_at(&bytes, 0x50), u32_at(&bytes, 0x54), u32_at(&bytes, 0x70), u32_at(&bytes, 0x74)];
        let frame_data = u32_at(&bytes, 0x54) as usize;
        offsets.extend((0..3).map(|i| u32_at(&bytes, frame_data + 16 * i + 0x0C)));
        let (meshes, dummies) = (u32_at(&bytes, 0x70) as usize, u32_at(&bytes, 0x74) as usize);
        for rec in [meshes, meshes + 0xA0, dummies] {
            offsets.extend([0x04, 0x08, 0x0C, 0x54].map(|k| u32_at(&bytes, rec + k)));
        }
        for rec in [meshes, meshes + 0xA0] {
            offsets.extend([0x60, 0x68, 0x6C, 0x70, 0x94].map(|k| u32_at(&bytes, rec + k)));
        }
        offsets.push(u32_at(&bytes, u32_at(&bytes, meshes + 0x6C) as usize));
        assert!(offsets.iter().all(|o| o % 4 == 0), "{offsets:x?}");
        assert_eq!(bytes.len() % 4, 0);
        assert!(decode(&bytes).unwrap().warnings.is_empty());

        let anim = AnimFile {
            hide_list: vec![1, 2, 3],
            tracks: vec![
                TrackSpec {
                    rotation: vec![RotationKeySpec { curve: 0, ..key(0, 0.0) }, key(3, 0.0)],
                    easing: vec![[1, 2, 3, 4, 5, 6, 7, 8]],
                    morph: Some(MorphSpec {
                        records: vec![
                            MorphRecordSpec { channels: vec![0], frames: vec![0, 1, 2], values: vec![0; 3] },
                            MorphRecordSpec { channels: vec![1, 2, 3], frames: vec![5], values: vec![0; 3] },
                        ],
                        ..MorphSpec::default()
                    }),
                    uv: Some(vec![UvEntrySpec { keys: vec![(0, [0.0, 0.0]), (1, [1.0, 0.0]), (7, [0.5, 0.5])] }]),
                    position: Some(PositionSpec { kind: 0x18, points: vec![[1.0; 3]], frames: vec![3] }),
                    scale: Some(vec![(1, [1.0; 3])]),
                    path_progress: Some(PathProgressSpec { start: 0, values: vec![1.0, 2.0, 3.0] }),
                    visibility: Some(vec![1, -2, 3]),
                    ..TrackSpec::default()
                },
                TrackSpec {
                    raw_frames: Some(RawFramesSpec {
                        index: vec![0, 2, 1],
                        per_frame: 3,
                        positions: vec![[0.5; 3]; 3],
                    }),
                    ..TrackSpec::default()
                },
            ],
            ..AnimFile::default()
        };
        let bytes = anim.to_bytes();
        let block = u32_at(&bytes, 0x98) as usize;
        let mut offsets = vec![block as u32, u32_at(&bytes, block + 0x38)];
        for t in [0xB4, 0xF4] {
            offsets.extend([0x18, 0x1C, 0x20, 0x24, 0x28, 0x2C, 0x30, 0x34].map(|k| u32_at(&bytes, t + k)));
        }
        let records = u32_at(&bytes, u32_at(&bytes, 0xB4 + 0x28) as usize + 0x0C) as usize;
        offsets.push(records as u32);
        for i in 0..2 {
            offsets.extend([4, 8, 12].map(|k| u32_at(&bytes, records + 20 * i + k)));
        }
        let uv = u32_at(&bytes, 0xB4 + 0x2C) as usize;
        offsets.extend([4, 12, 16].map(|k| u32_at(&bytes, uv + k)));
        let position = u32_at(&bytes, 0xB4 + 0x18) as usize;
        offsets.extend([8, 12].map(|k| u32_at(&bytes, position + k)));
        offsets.push(u32_at(&bytes, u32_at(&bytes, 0xB4 + 0x24) as usize + 12));
        let raw = u32_at(&bytes, 0xF4 + 0x28) as usize;
        offsets.extend([0, 8].map(|k| u32_at(&bytes, raw + k)));
        assert!(offsets.iter().all(|o| o % 4 == 0), "{offsets:x?}");
        let decoded = anim::decode_anim(&Reader::new(&bytes, FORMAT)).unwrap();
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        let track = &decoded.tracks[0];
        assert!(matches!(track.morph, Some(Ok(_))));
        for ok in [
            track.rotation.as_ref().map(|r| r.is_ok()),
            track.uv.as_ref().map(|r| r.is_ok()),
            track.position_curve.as_ref().map(|r| r.is_ok()),
            track.scale.as_ref().map(|r| r.is_ok()),
            track.path_progress.as_ref().map(|r| r.is_ok()),
            track.visibility.as_ref().map(|r| r.is_ok()),
            decoded.tracks[1].raw_frames.as_ref().map(|r| r.is_ok()),
        ] {
            assert_eq!(ok, Some(true), "{track:?}");
        }
    }

    #[test]
    fn track_table_ends_where_the_block_starts() {
        let file = AnimFile {
            last_frame: 30,
            tracks: vec![
                TrackSpec { target: 0, rotation: vec![key(0, 0.0), key(30, 1.0)], ..TrackSpec::default() },
                TrackSpec {
                    target: 1,
                    rotation: vec![key(0, 0.0), key(15, 0.5), key(30, -1.0)],
                    ..TrackSpec::default()
                },
            ],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        assert_eq!(u32_at(&b, 0x70), 0, "animation files have no mesh table");
        // Table at 0xB4, 2 x 64 bytes, so the block is at 0x134.
        assert_eq!(u32_at(&b, 0x98), 0x134);
        assert_eq!(u32_at(&b, 0x134 + 0x2C), 0xB4);
        assert_eq!(u32_at(&b, 0x134 + 0x08), 30);
        assert_eq!((u16_at(&b, 0x134 + 0x10), u16_at(&b, 0x134 + 0x12)), (5, 2));
        // Rotation keys follow the 72-byte block: track 0's at 0x17C, track 1's at 0x1A4.
        assert_eq!((u32_at(&b, 0xB4), u32_at(&b, 0xB4 + 4), u16_at(&b, 0xB4 + 0x10)), (0, 0x8, 2));
        assert_eq!(u32_at(&b, 0xB4 + 0x1C), 0x17C);
        assert_eq!(u32_at(&b, 0xF4), 1);
        assert_eq!(u16_at(&b, 0xF4 + 0x14), 1);
        assert_eq!(u32_at(&b, 0xF4 + 0x1C), 0x1A4);
        assert_eq!(u16_at(&b, 0x1A4 + 20), 15);
        assert_eq!(f32_at(&b, 0x1A4 + 20 + 8), (0.25f32).sin());

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::Readable);
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        let rotation = decoded.tracks[1].rotation.clone().unwrap().unwrap();
        assert_eq!(rotation.keys.iter().map(|k| k.frame).collect::<Vec<_>>(), [0, 15, 30]);
        assert!(rotation.keys[2].quat.abs_diff_eq(Quat::from_rotation_y(-1.0), 1e-6));
        assert_eq!(rotation.curves, [None; 3]);

        let broken = AnimFile { break_identity: true, ..file.clone() }.to_bytes();
        assert_eq!(u32_at(&broken, 0x98), 0x138);
        assert_eq!(u32_at(&broken, 0x138 + 0x2C), 0xB4);
        let decoded = anim::decode_anim(&Reader::new(&broken, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::IdentityFailed);
        assert!(decoded.tracks.is_empty());

        // With no tracks there is no table to check: the game's track-less clips fail the
        // identity, and are valid clips with their span and hide list all the same.
        let empty = AnimFile { tracks: Vec::new(), hide_list: vec![2], break_identity: true, ..file.clone() };
        let bytes = empty.to_bytes();
        let block = u32_at(&bytes, 0x98) as usize;
        assert_ne!(u32_at(&bytes, block + 0x2C) as usize, block, "the fixture breaks the identity");
        let decoded = anim::decode_anim(&Reader::new(&bytes, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::Readable);
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        assert_eq!((decoded.track_count, decoded.length(), decoded.hide_list.clone()), (0, 30, vec![2]));
        // Even a table offset past the end of the file is no error then.
        let mut far = bytes.clone();
        far[block + 0x2C..block + 0x30].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(anim::decode_anim(&Reader::new(&far, FORMAT)).unwrap().status, anim::BlockStatus::Readable);

        let none = AnimFile { no_block: true, ..file }.to_bytes();
        assert_eq!(u32_at(&none, 0x98), 0);
        assert!(anim::decode_anim(&Reader::new(&none, FORMAT)).unwrap().tracks.is_empty());
    }

    #[test]
    fn morph_arrays_are_padded_to_four_bytes() {
        let file = AnimFile {
            tracks: vec![TrackSpec {
                morph: Some(MorphSpec {
                    flags: 0x03,
                    centre: [1.0, 2.0, 3.0],
                    step: [0.5, 0.25, 0.125],
                    records: vec![
                        MorphRecordSpec { channels: vec![0, 1, 2], frames: vec![0, 10], values: (1..=6).collect() },
                        MorphRecordSpec { channels: vec![3, 4], frames: vec![0], values: vec![7, 8] },
                    ],
                }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Table 0xB4..0xF4, block 0xF4..0x13C, descriptor 0x13C..0x168 (0x2C), records 0x168..0x190.
        let track = 0xB4;
        assert_eq!(u32_at(&b, track + 4), 0x1000);
        assert_eq!(u32_at(&b, track + 0x28), 0x13C);
        assert_eq!((b[0x13C], u16_at(&b, 0x13C + 2)), (0x03, 2));
        assert_eq!(u32_at(&b, 0x13C + 0x0C), 0x168);
        assert_eq!([0x14, 0x18, 0x1C].map(|k| f32_at(&b, 0x13C + k)), [1.0, 2.0, 3.0]);
        assert_eq!([0x20, 0x24, 0x28].map(|k| f32_at(&b, 0x13C + k)), [0.5, 0.25, 0.125]);
        // Record 0: 3 channel ids (6 bytes, padded to 8: gap 2b + 2), 2 frames (4 bytes: gap 2a).
        let rec = |i: usize| [0, 2].map(|k| u16_at(&b, 0x168 + 20 * i + k));
        let ptrs = |i: usize| [4, 8, 12].map(|k| u32_at(&b, 0x168 + 20 * i + k));
        assert_eq!(rec(0), [2, 3]);
        assert_eq!(ptrs(0), [0x190, 0x198, 0x19C]);
        assert_eq!(&b[0x190..0x198], &[0, 0, 1, 0, 2, 0, 0, 0]);
        assert_eq!(u32_at(&b, 0x19C + 4 * 5), 6);
        // Record 1: 2 channel ids (4 bytes: gap 2b), 1 frame (2 bytes, padded to 4: gap 2a + 2).
        assert_eq!(rec(1), [1, 2]);
        assert_eq!(ptrs(1), [0x1B4, 0x1B8, 0x1BC]);
        assert_eq!(b.len(), 0x1C4);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let morph = decoded.tracks[0].morph.clone().unwrap().unwrap();
        assert_eq!((morph.flags, morph.centre, morph.step), (3, Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 0.25, 0.125)));
        assert_eq!(morph.records[0].channels, [0, 1, 2]);
        assert_eq!(morph.records[0].frames, [0, 10]);
        assert_eq!(morph.records[0].values, [1, 2, 3, 4, 5, 6]);
        assert_eq!(morph.records[1].values, [7, 8]);
    }

    #[test]
    fn uv_runs_pack_index_then_values_then_frames() {
        let file = AnimFile {
            last_frame: 100,
            tracks: vec![TrackSpec {
                uv: Some(vec![
                    UvEntrySpec { keys: vec![(0, [0.0, 0.5]), (40, [-1.0, -0.5]), (100, [-2.0, -1.0])] },
                    UvEntrySpec { keys: vec![(0, [0.25, 0.0]), (50, [1.25, 0.0])] },
                ]),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Descriptor 0x13C; index 0x150 (2 x 4), values 0x158 (5 x 8), frames 0x180 (5 x 2).
        assert_eq!(u32_at(&b, 0xB4 + 4), 0x10000);
        assert_eq!(u32_at(&b, 0xB4 + 0x2C), 0x13C);
        assert_eq!([0, 4, 8, 12, 16].map(|k| u32_at(&b, 0x13C + k)), [2, 0x150, 5, 0x180, 0x158]);
        assert_eq!(&b[0x150..0x158], &[0, 0, 3, 0, 3, 0, 2, 0]);
        assert_eq!([0, 4, 8, 12, 16, 20].map(|k| f32_at(&b, 0x158 + k)), [0.0, 0.5, -1.0, -0.5, -2.0, -1.0]);
        assert_eq!((f32_at(&b, 0x170), f32_at(&b, 0x178)), (0.25, 1.25));
        assert_eq!([0, 2, 4, 6, 8].map(|k| u16_at(&b, 0x180 + k)), [0, 40, 100, 0, 50]);
        assert_eq!(b.len(), 0x18C);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let entries = decoded.tracks[0].uv.clone().unwrap().unwrap();
        assert_eq!(entries[0].keys[1], (40, Vec2::new(-1.0, -0.5)));
        assert_eq!(entries[1].keys, [(0, Vec2::new(0.25, 0.0)), (50, Vec2::new(1.25, 0.0))]);
        assert_eq!(decoded.length(), 100);
    }

    #[test]
    fn node_channels_fill_their_own_slots() {
        let file = AnimFile {
            tracks: vec![TrackSpec {
                index: Some(9),
                target: 3,
                frame_value: 42,
                extra_flags: CH_PATH_FACING,
                rotation: vec![RotationKeySpec { curve: 0, ..key(0, 0.0) }, key(10, 1.0)],
                easing: vec![[32, 66, 105, 141, 176, 208, 233, 249]],
                position: Some(PositionSpec {
                    kind: 0x18,
                    points: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                    frames: vec![0, 10],
                }),
                scale: Some(vec![(5, [1.0, 2.0, 3.0])]),
                path_progress: Some(PathProgressSpec { start: 0, values: vec![10.0, 20.0] }),
                visibility: Some(vec![0, -7, 12]),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        let t = 0xB4;
        assert_eq!(u32_at(&b, t), 9);
        assert_eq!(u32_at(&b, t + 4), 0x8 | 0x1 | 0x180 | 0x200 | 0x400 | 0x20000);
        assert_eq!(u32_at(&b, t + 0x0C), 42);
        // Counts: rotation +0x10, scale +0x12, target +0x14, visibility +0x16.
        assert_eq!([0x10, 0x12, 0x14, 0x16].map(|k| u16_at(&b, t + k)), [2, 1, 3, 3]);
        // After the block (0xF4..0x13C): rotation keys 0x13C (40), curves 0x164 (8), position
        // record 0x16C (16), its points 0x17C (24) and keys 0x194 (8), scale keys 0x19C (16),
        // path record 0x1AC with values at 0x1BC (8), visibility 0x1C4 (6, padded to 8).
        assert_eq!(
            [0x18, 0x1C, 0x20, 0x24, 0x28, 0x2C, 0x30, 0x34].map(|k| u32_at(&b, t + k)),
            [0x16C, 0x13C, 0x19C, 0x1AC, 0, 0, 0x1C4, 0x164]
        );
        assert_eq!((u16_at(&b, 0x13C + 2), u16_at(&b, 0x13C + 22)), (0, 0xFFFF));
        assert_eq!(&b[0x164..0x16C], &[32, 66, 105, 141, 176, 208, 233, 249]);
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x16C + k)), [0x18, 0x0002_0002, 0x17C, 0x194]);
        assert_eq!(f32_at(&b, 0x17C + 12), 4.0);
        assert_eq!([0, 2, 4, 6].map(|k| u16_at(&b, 0x194 + k)), [0, 0, 10, 0]);
        assert_eq!((u16_at(&b, 0x19C), f32_at(&b, 0x19C + 8)), (5, 2.0));
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x1AC + k)), [0, 2, 0, 0x1BC]);
        assert_eq!((f32_at(&b, 0x1BC), f32_at(&b, 0x1C0)), (10.0, 20.0));
        assert_eq!(&b[0x1C4..0x1CC], &[0, 0, 0xF9, 0xFF, 12, 0, 0, 0]);
        assert_eq!(b.len(), 0x1CC);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let track = &decoded.tracks[0];
        assert_eq!((track.stored_index, track.target, track.frame_value), (9, 3, 42));
        let rotation = track.rotation.clone().unwrap().unwrap();
        assert_eq!(rotation.curves, [Some([32, 66, 105, 141, 176, 208, 233, 249]), None]);
        let position = track.position_curve.clone().unwrap().unwrap();
        assert_eq!((position.kind, position.frames.as_slice()), (0x18, &[0u16, 10][..]));
        assert_eq!(track.scale.clone().unwrap().unwrap(), [(5, Vec3::new(1.0, 2.0, 3.0))]);
        assert_eq!(track.path_progress.clone().unwrap().unwrap().values, [10.0, 20.0]);
        assert_eq!(track.visibility.clone().unwrap().unwrap(), [0, -7, 12]);
        assert!(track.morph.is_none() && track.uv.is_none() && track.raw_frames.is_none());
        assert_eq!(decoded.warnings, ["track 0: stores index 9, expected 0"]);
    }

    #[test]
    fn raw_frames_and_the_hide_list() {
        let file = AnimFile {
            last_frame: 1,
            hide_list: vec![2, 5, 7],
            tracks: vec![TrackSpec {
                raw_frames: Some(RawFramesSpec {
                    index: vec![1, 0],
                    per_frame: 2,
                    positions: vec![[1.0; 3], [2.0; 3], [3.0; 3], [4.0; 3]],
                }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Block 0xF4; hide list 0x13C (6 bytes, padded to 8); record 0x144; index 0x154 (8);
        // positions 0x15C (48).
        assert_eq!((u16_at(&b, 0xF4 + 0x1A), u32_at(&b, 0xF4 + 0x38)), (3, 0x13C));
        assert_eq!([0, 2, 4].map(|k| u16_at(&b, 0x13C + k)), [2, 5, 7]);
        assert_eq!((u32_at(&b, 0xB4 + 4), u32_at(&b, 0xB4 + 0x28)), (0x5000, 0x144));
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x144 + k)), [0x154, 2, 0x15C, 0]);
        assert_eq!((u32_at(&b, 0x154), u32_at(&b, 0x158)), (1, 0));
        assert_eq!(f32_at(&b, 0x15C + 36), 4.0);
        assert_eq!(b.len(), 0x18C);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        assert_eq!(decoded.hide_list, [2, 5, 7]);
        let frames = decoded.tracks[0].raw_frames.clone().unwrap().unwrap();
        assert_eq!((frames.index.as_slice(), frames.per_frame, frames.frame_count()), (&[1u32, 0][..], 2, 2));
        assert!(decoded.tracks[0].morph.is_none());
    }

    #[test]
    fn morph_values_pack_as_the_inverse_of_the_spec_decode() {
        let (centre, step) = ([3.0, 0.5, 20.0], [0.01, 0.001, 0.02]);
        for p in [[3.0, 0.5, 20.0], [-2.0, 0.0, 10.0], [8.0, 1.0, 30.0], [0.123, 0.77, 29.0]] {
            let raw = pack_morph(p, centre, step);
            assert_eq!(raw >> 30, 0);
            let back = anim::morph_position(raw, Vec3::from_array(centre), Vec3::from_array(step));
            for axis in 0..3 {
                let inside = (p[axis] - centre[axis]).abs() <= 511.0 * step[axis];
                if inside {
                    assert!((back[axis] - p[axis]).abs() <= step[axis] * 0.5 + 1e-5, "{p:?} -> {back:?}");
                }
            }
        }
        // The centre is 0 on every axis; past the box clamps to -512 / 511.
        assert_eq!(pack_morph(centre, centre, step), 0);
        assert_eq!(pack_morph([-100.0, 100.0, 20.0], centre, step), 0x200 | 0x1FF << 10);
        // A zero step has nothing to quantise into.
        assert_eq!(pack_morph([1.0, 1.0, 1.0], [0.0; 3], [0.0; 3]), 0);
        // The box spanning min..max: centre midway, step a 1023th of the extent.
        assert_eq!(
            morph_box([-2.0, 0.0, 10.0], [8.0, 1.023, 30.0]),
            ([3.0, 0.5115, 20.0], [10.0 / 1023.0, 0.001, 20.0 / 1023.0])
        );
    }
}
