//! The 68-byte Quake II header: its 17 integers, checked against the engine's limits and the
//! file's length before anything else is read.

use super::{FRAME_HEADER_SIZE, MAGIC, MAX_FRAMES, MAX_SKIN_HEIGHT, MAX_SKINS, MAX_TRIANGLES, MAX_VERTS, VERSION};
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

/// The 17 header integers, validated against the engine's limits and the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub skin_width: i32,
    pub skin_height: i32,
    pub frame_size: i32,
    pub num_skins: i32,
    pub num_xyz: i32,
    pub num_st: i32,
    pub num_tris: i32,
    pub num_glcmds: i32,
    pub num_frames: i32,
    pub ofs_skins: i32,
    pub ofs_st: i32,
    pub ofs_tris: i32,
    pub ofs_frames: i32,
    pub ofs_glcmds: i32,
    pub ofs_end: i32,
}

/// Reads the header, failing on a value the game would refuse; an `ofs_end` short of the file
/// and a skin size of 0 are warnings.
#[inline]
pub(super) fn read_header(r: &Reader, warnings: &mut Vec<String>) -> DecodeResult<Header> {
    let magic = r.bytes(0, 4, "ident")?;
    if magic != MAGIC {
        return Err(r.invalid("ident", 0, "not IDP2"));
    }
    let int = |i: u64, name: &str| r.i32(4 * i, name);
    let version = int(1, "version")?;
    if version != VERSION {
        return Err(r.invalid("version", 4, format!("{version}; the game accepts only 8")));
    }
    let h = Header {
        skin_width: int(2, "skinwidth")?,
        skin_height: int(3, "skinheight")?,
        frame_size: int(4, "framesize")?,
        num_skins: int(5, "num_skins")?,
        num_xyz: int(6, "num_xyz")?,
        num_st: int(7, "num_st")?,
        num_tris: int(8, "num_tris")?,
        num_glcmds: int(9, "num_glcmds")?,
        num_frames: int(10, "num_frames")?,
        ofs_skins: int(11, "ofs_skins")?,
        ofs_st: int(12, "ofs_st")?,
        ofs_tris: int(13, "ofs_tris")?,
        ofs_frames: int(14, "ofs_frames")?,
        ofs_glcmds: int(15, "ofs_glcmds")?,
        ofs_end: int(16, "ofs_end")?,
    };
    let limit = |value: i32, min: i32, max: i32, name: &str, at: u64| {
        if value < min || value > max {
            Err(r.invalid(name, at, format!("{value} is outside the engine's limits {min}..={max}")))
        } else {
            Ok(())
        }
    };
    limit(h.skin_height, 0, MAX_SKIN_HEIGHT, "skinheight", 12)?;
    limit(h.skin_width, 0, i32::from(u16::MAX), "skinwidth", 8)?;
    limit(h.num_skins, 0, MAX_SKINS, "num_skins", 20)?;
    limit(h.num_xyz, 1, MAX_VERTS, "num_xyz", 24)?;
    limit(h.num_st, 1, i32::MAX, "num_st", 28)?;
    limit(h.num_tris, 1, MAX_TRIANGLES, "num_tris", 32)?;
    limit(h.num_glcmds, 0, i32::MAX, "num_glcmds", 36)?;
    limit(h.num_frames, 1, MAX_FRAMES, "num_frames", 40)?;
    let min_frame = FRAME_HEADER_SIZE as i32 + 4 * h.num_xyz;
    if h.frame_size < min_frame {
        return Err(r.invalid(
            "framesize",
            16,
            format!("{} is less than 40 + 4 × {} vertices", h.frame_size, h.num_xyz),
        ));
    }
    for (value, name, at) in [
        (h.ofs_skins, "ofs_skins", 44),
        (h.ofs_st, "ofs_st", 48),
        (h.ofs_tris, "ofs_tris", 52),
        (h.ofs_frames, "ofs_frames", 56),
        (h.ofs_glcmds, "ofs_glcmds", 60),
        (h.ofs_end, "ofs_end", 64),
    ] {
        if value < 0 {
            return Err(r.invalid(name, at, format!("negative offset {value}")));
        }
    }
    if i64::from(h.ofs_end) > r.len() as i64 {
        return Err(r.invalid("ofs_end", 64, format!("{} is past the end of the {}-byte file", h.ofs_end, r.len())));
    }
    if i64::from(h.ofs_end) != r.len() as i64 {
        warnings.push(format!("ofs_end is {} but the file has {} bytes", h.ofs_end, r.len()));
    }
    if h.skin_width == 0 || h.skin_height == 0 {
        warnings.push(format!(
            "skin size {}x{}: texture coordinates cannot be scaled; using 1",
            h.skin_width, h.skin_height
        ));
    }
    Ok(h)
}
