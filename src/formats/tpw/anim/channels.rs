//! Reading each channel's records from the file: rotation keys with their easing curves,
//! vertex morphs and raw float frames, position curves, scale keys, path progress,
//! visibility entries and UV keys, plus decoding packed morph values. Each reader checks its
//! own offsets and counts and returns its failure as text, so a bad channel costs only itself.

use glam::{Quat, Vec2, Vec3};

use super::{MorphRecord, MorphTrack, PathProgress, PositionTrack, RawFrames, RotationKey, RotationTrack, UvEntry};
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use crate::formats::tpw::layout::*;

fn text(e: crate::formats::DecodeError) -> String {
    e.to_string()
}

pub(super) fn read_rotation(r: &Reader, offset: u64, count: u16, easing: u64) -> Result<RotationTrack, String> {
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

pub(super) fn read_morph(r: &Reader, descriptor: u64) -> Result<MorphTrack, String> {
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

pub(super) fn read_raw_frames(r: &Reader, record: u64, span: u32) -> Result<RawFrames, String> {
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

pub(super) fn read_position(r: &Reader, record: u64) -> Result<PositionTrack, String> {
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

pub(super) fn read_scale(r: &Reader, keys_at: u64, count: u16) -> Result<Vec<(u16, Vec3)>, String> {
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

pub(super) fn read_path_progress(r: &Reader, record: u64) -> Result<PathProgress, String> {
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

pub(super) fn read_visibility(r: &Reader, entries_at: u64, count: u16) -> Result<Vec<i16>, String> {
    if entries_at == 0 {
        return Err("visibility flag set but the +0x30 pointer is 0".into());
    }
    let table = r.table(entries_at, u64::from(count), 2, "visibility entries").map_err(text)?;
    (0..u64::from(count))
        .map(|i| r.i16(table.record(i), "visibility entry"))
        .collect::<DecodeResult<Vec<_>>>()
        .map_err(text)
}

pub(super) fn read_uv(r: &Reader, descriptor: u64) -> Result<Vec<UvEntry>, String> {
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
#[inline]
pub fn morph_component(raw: u32, shift: u32, centre: f32, step: f32) -> f32 {
    let field = ((raw >> shift) & 0x3FF) as i32;
    let signed = if field >= 512 { field - 1024 } else { field };
    centre + signed as f32 * step
}

/// Decodes a packed morph value (X bits 0-9, Y 10-19, Z 20-29) in the track's box.
#[inline]
pub fn morph_position(raw: u32, centre: Vec3, step: Vec3) -> Vec3 {
    Vec3::new(
        morph_component(raw, 0, centre.x, step.x),
        morph_component(raw, 10, centre.y, step.y),
        morph_component(raw, 20, centre.z, step.z),
    )
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
}
