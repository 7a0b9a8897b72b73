//! The frame block: each frame's scale, translate and name read in passes of their own, the
//! clips the names make, and the check of every normal index; the packed vertices are not
//! copied but kept as a view of the file ([`SceneFrames`]).

use glam::Vec3;

use super::frame_names::{clip_key, clip_masks, name_lengths, set_frame_names};
use super::layout::{Layout, count};
use super::normal_scan::{any_normal_past_table, frame_records, has_normal_past_table};
use super::{FRAME_HEADER_SIZE, normals};
use crate::formats::error::DecodeResult;
use crate::formats::quake_axes::to_scene;
use crate::formats::reader::{Reader, Table};
use crate::scene::FrameTable;
use crate::scene::validate::any_not_finite;

/// Frames kept as stored (4 bytes per vertex) in the file's own bytes, with scale and
/// translate mapped into scene axes: Quake (x, y, z)·s + t lands at scene
/// (x·sx + tx, z·sz + tz, −(y·sy + ty)), so scene x, y, z read packed bytes 0, 2, 1 with scale
/// (sx, sz, −sy) and translate (tx, tz, −ty).
pub(super) struct SceneFrames {
    /// Times, transforms and names of every frame, shared by the clips.
    pub table: FrameTable,
    /// Byte offset of frame 0's packed records in the file, and from one frame's to the next.
    pub first_record: usize,
    pub frame_stride: usize,
    pub vertex_count: usize,
    /// Runs of frames in one clip, `(first, last, length of the clip's name)`, found from the
    /// name fields as words; `None` where a name had to be rewritten (not UTF-8), and clips
    /// then group from the names as text
    /// ([`group_frames`](crate::formats::frame_clips::group_frames)). Runs index the names as stored, so
    /// `None` whenever they were not kept so.
    pub clip_runs: Option<Vec<(usize, usize, usize)>>,
}

/// Packed-byte lanes feeding scene x, y and z (see [`SceneFrames`]).
pub(super) const SCENE_LANES: [u8; 3] = [0, 2, 1];

/// The anorms table in scene axes, built once per process and shared by every decoded model.
pub(super) static SCENE_NORMALS: std::sync::LazyLock<Vec<Vec3>> =
    std::sync::LazyLock::new(|| normals::NORMALS.iter().map(|&n| to_scene(Vec3::from_array(n))).collect());

/// A frame's name bytes, scale, translate and packed vertices, checked.
pub(super) fn frame_parts<'a>(
    r: &Reader<'a>,
    table: &Table,
    f: u64,
    num_xyz: u64,
) -> DecodeResult<(&'a [u8], Vec3, Vec3, &'a [u8])> {
    let at = table.record(f);
    let [sx, sy, sz, tx, ty, tz] = r.f32s::<6>(at, "frame scale and translate")?;
    let (scale, translate) = (Vec3::new(sx, sy, sz), Vec3::new(tx, ty, tz));
    if !scale.is_finite() || !translate.is_finite() {
        return Err(r.invalid("frame scale", at, format!("frame {f} has a non-finite scale or translate")));
    }
    // The 16-byte name up to its NUL, as stored.
    let field = r.bytes(at + 24, 16, "frame name")?;
    let name = field.split(|&b| b == 0).next().unwrap_or(&[]);
    let verts = r.bytes(at + FRAME_HEADER_SIZE, 4 * num_xyz, "frame vertices")?;
    Ok((name, scale, translate, verts))
}

/// Reads the frame block: every frame's scale and translate (in scene axes, each checked to be
/// finite), its name and the clip runs the names make, and a warning for each frame naming a
/// normal past the table. The packed vertices stay in the file's bytes.
#[inline]
pub(super) fn decode_frames(r: &Reader, layout: &Layout, warnings: &mut Vec<String>) -> DecodeResult<SceneFrames> {
    let table = &layout.frame_table;
    let count_frames = table.count as usize;
    let vertex_count = count(layout.header.num_xyz) as usize;
    let frame_stride = usize::try_from(table.stride).unwrap_or(usize::MAX);
    // The whole frame block as one checked slice, cut into frames. Each frame is at least its
    // 40-byte header and its vertices (framesize >= 40 + 4 × verts was checked with the header,
    // and the table against the file), so only a non-finite scale or translate fails, and
    // `frame_parts` names it; `complete` and the error after that loop are a safeguard only.
    // The frames are read in passes of their own: the numbers, then the names, each a simple
    // loop over fixed-size fields.
    let block = r.bytes(table.offset, table.end().saturating_sub(table.offset), "frames")?;
    let stride = frame_stride.max(1);
    let complete = stride >= FRAME_HEADER_SIZE as usize && block.len() / stride >= count_frames;
    let headers = || block.chunks_exact(stride).take(count_frames).map(|frame| frame.first_chunk().unwrap_or(&[0; 40]));
    let transform_of = |header: &[u8; FRAME_HEADER_SIZE as usize]| {
        let numbers: [u32; 6] = bytemuck::pod_read_unaligned(header.first_chunk::<24>().unwrap_or(&[0; 24]));
        numbers.map(|n| f32::from_bits(u32::from_le(n)))
    };
    // Checked as they are read, with no branch per frame.
    let mut any_non_finite = false;
    let transforms = headers()
        .map(|header| {
            let numbers = transform_of(header);
            any_non_finite |= any_not_finite(&numbers);
            let [sx, sy, sz, tx, ty, tz] = numbers;
            (to_scene(Vec3::new(sx, sy, sz)), to_scene(Vec3::new(tx, ty, tz)))
        })
        .collect();
    if !complete || any_non_finite {
        for f in 0..table.count {
            frame_parts(r, table, f, vertex_count as u64)?;
        }
        return Err(r.invalid("frame scale", table.offset, "a frame could not be read"));
    }
    let times = (0..count_frames).map(|f| f as f32).collect();

    // Names gather as bytes and are checked as UTF-8 once, after the loop.
    let masks = clip_masks();
    let mut name_bytes: Vec<u8> = Vec::with_capacity(count_frames * 16);
    let mut runs: Vec<(usize, usize, usize)> = Vec::with_capacity(32);
    let mut run_key = None;
    let name_ranges = headers()
        .enumerate()
        .map(|(f, header)| {
            let field = header.last_chunk::<16>().unwrap_or(&[0; 16]);
            let start = name_bytes.len();
            // The whole field is one fixed-size copy, cut back to the name before its NUL.
            let (length, kept) = name_lengths(field);
            name_bytes.extend_from_slice(field);
            name_bytes.truncate(start + length);
            let key = clip_key(field, (length, kept), &masks);
            match runs.last_mut() {
                Some(run) if run_key == Some(key) => run.1 = f,
                _ => runs.push((f, f, key.1)),
            }
            run_key = Some(key);
            (start as u32, name_bytes.len() as u32)
        })
        .collect();
    let mut out = SceneFrames {
        table: FrameTable { times, transforms, name_text: String::new(), name_ranges },
        first_record: usize::try_from(table.offset.saturating_add(FRAME_HEADER_SIZE)).unwrap_or(usize::MAX),
        frame_stride,
        vertex_count,
        clip_runs: None,
    };
    let names_as_stored = set_frame_names(&mut out.table, name_bytes);
    out.clip_runs = names_as_stored.then_some(runs);
    let vertex_bytes = vertex_count.saturating_mul(4);
    if any_normal_past_table(block, out.frame_stride, count_frames, vertex_bytes) {
        for (f, frame) in block.chunks_exact(out.frame_stride.max(1)).take(count_frames).enumerate() {
            if frame_records(frame, vertex_bytes).is_some_and(has_normal_past_table) {
                let name = out.table.name(f).unwrap_or("");
                warnings.push(format!("frame {f} ({name}): a normal index is past the 162-entry table; using up"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::super::test_fixtures::small_spec;

    /// A NaN or infinite scale or translate in any frame, at any of the six numbers, is an
    /// error naming that frame, and the frames before it do not hide it.
    #[test]
    fn a_non_finite_scale_or_translate_names_its_frame() {
        let mut spec = small_spec();
        spec.frames.push(spec.frames[0].clone());
        for frame in 0..spec.frames.len() {
            for number in 0..6 {
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut spec = spec.clone();
                    let fields = &mut spec.frames[frame];
                    if number < 3 {
                        fields.scale[number] = bad
                    } else {
                        fields.translate[number - 3] = bad
                    }
                    let error = decode(&spec.to_bytes()).expect_err("a non-finite frame number fails").to_string();
                    assert!(error.contains(&format!("frame {frame} has a non-finite")), "{error}");
                }
            }
        }
        // Finite extremes decode.
        spec.frames[1].scale = [f32::MAX, f32::MIN_POSITIVE, -0.0];
        assert!(decode(&spec.to_bytes()).is_ok());
    }
}
