//! Quake II `.md2` (magic `IDP2`, version 8): per-frame vertex animation with PCX skins.
//!
//! - Every frame decodes with `v[i] × scale[i] + translate[i]`, normals through the 162-entry
//!   table ([`normals`]), both mapped into scene axes by [`super::quake_axes`].
//! - Triangles carry separate vertex and texture-coordinate indices, so render vertices are
//!   the unique (vertex, st) pairs; `Mesh::vertex_source` points each back at its vertex.
//! - Frames group into clips by name minus trailing digits (`stand01`..`stand40` → `stand`),
//!   each a [`Channel::PackedFrames`](crate::scene::Channel::PackedFrames) played at 10 fps.
//! - Skins resolve through the one resolver (`formats::assets`), and which one is drawn is a
//!   scene choice ([`skins`]); the OpenGL command list is parsed and
//!   validated, but nothing depends on it.
//!
//! This module holds the format's constants, the file as stored ([`read`]) and the decode entry
//! points. A decode runs, in order: `header` and `layout` (every part but the frames, checked;
//! `gl_commands` walks the command list), `frames` (the frame block, with `frame_names` and
//! `normal_scan` for its two hot passes), then `assemble` (the scene, whose mesh vertices come
//! from `render_vertices`); `open` adds the skins and weapon beside the file. The functions
//! these modules call in one another, once per decode or per frame, are `#[inline]`, so that
//! the release build inlines them into the decode as it did when they were one file.

pub mod normals;
pub mod pcx;
pub mod skins;

mod assemble;
mod frame_names;
mod frames;
mod gl_commands;
mod header;
mod layout;
mod normal_scan;
mod open;
mod render_vertices;
#[cfg(test)]
mod test_fixtures;

use std::sync::Arc;

use glam::Vec3;

use self::assemble::build_scene;
use self::frames::{decode_frames, frame_parts};
use self::layout::{KeepCommands, count, read_layout, st_entry, triangle_indices};
use super::error::DecodeResult;
use super::reader::Reader;
use crate::scene::{Scene, SharedBytes};

pub use self::header::Header;
pub use self::open::open;

pub const FORMAT: &str = "quake2-md2";
pub const MAGIC: [u8; 4] = *b"IDP2";
pub const VERSION: i32 = 8;
pub const HEADER_SIZE: u64 = 68;
pub const MAX_SKIN_HEIGHT: i32 = 480;
pub const MAX_VERTS: i32 = 2048;
pub const MAX_TRIANGLES: i32 = 4096;
pub const MAX_FRAMES: i32 = 512;
pub const MAX_SKINS: i32 = 32;
pub const SKIN_NAME_LEN: u64 = 64;
pub const FRAME_HEADER_SIZE: u64 = 40;
/// Quake II plays model animations at 10 frames per second.
pub const FRAMES_PER_SECOND: f32 = 10.0;

/// One decoded frame in Quake axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub name: String,
    pub scale: Vec3,
    pub translate: Vec3,
    pub positions: Vec<Vec3>,
    pub normal_indices: Vec<u8>,
}

/// The file as stored, in Quake's own axes (for tests, `info` and tools).
#[derive(Debug, Clone, PartialEq)]
pub struct Md2File {
    pub header: Header,
    pub skins: Vec<String>,
    pub st: Vec<[i16; 2]>,
    /// (vertex indices, st indices) per triangle, as stored (clockwise).
    pub triangles: Vec<([u16; 3], [u16; 3])>,
    pub frames: Vec<Frame>,
    /// Commands parsed from the OpenGL list: (is_strip, vertex count).
    pub gl_commands: Vec<(bool, u32)>,
    pub warnings: Vec<String>,
}

/// Reads and validates every part of the file, frames in Quake's axes.
pub fn read(data: &[u8]) -> DecodeResult<Md2File> {
    let r = Reader::new(data, FORMAT);
    let layout = read_layout(&r, KeepCommands::Yes)?;
    let mut warnings = layout.warnings;
    let mut frames = Vec::with_capacity(layout.frame_table.count as usize);
    for f in 0..layout.frame_table.count {
        let (name, scale, translate, verts) = frame_parts(&r, &layout.frame_table, f, count(layout.header.num_xyz))?;
        let positions = verts
            .chunks_exact(4)
            .map(|v| Vec3::from_array([0, 1, 2].map(|k| f32::from(v.get(k).copied().unwrap_or(0)))) * scale + translate)
            .collect();
        let name = String::from_utf8_lossy(name);
        let normal_indices: Vec<u8> = verts.chunks_exact(4).map(|v| v.get(3).copied().unwrap_or(0)).collect();
        if let Some(bad) = normal_indices.iter().find(|&&n| usize::from(n) >= normals::NORMALS.len()) {
            warnings.push(format!("frame {f} ({name}): normal index {bad} is past the 162-entry table; using up"));
        }
        frames.push(Frame { name: name.into_owned(), scale, translate, positions, normal_indices });
    }
    Ok(Md2File {
        header: layout.header,
        skins: layout.skins,
        st: layout.st.iter().map(st_entry).collect(),
        triangles: layout.triangles.iter().map(triangle_indices).collect(),
        frames,
        gl_commands: layout.gl_commands,
        warnings,
    })
}

/// Decodes a Quake II model into the scene (skins unresolved; see [`open`]). The frames stay in
/// one shared copy of `data`; [`decode_shared`] takes bytes the caller already shares.
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    decode_shared(Arc::new(data.to_vec()))
}

/// As [`decode`], keeping the frames as a validated view of `data` itself (no copy).
pub fn decode_shared(data: SharedBytes) -> DecodeResult<Scene> {
    let r = Reader::new(&data, FORMAT);
    let mut layout = read_layout(&r, KeepCommands::No)?;
    let mut warnings = std::mem::take(&mut layout.warnings);
    let frames = decode_frames(&r, &layout, &mut warnings)?;
    let skins = std::mem::take(&mut layout.skins);
    let mut scene = build_scene(&layout, skins, frames, data.clone());
    scene.warnings = warnings;
    Ok(scene)
}
