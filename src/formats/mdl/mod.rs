//! Quake `.mdl` (magic `IDPO`, version 6): 8-bit skins in the Quake palette and per-frame
//! vertex animation, simple frames and frame groups.
//!
//! Layout (Quake's `modelgen.h`, read as quakespasm's `Mod_LoadAliasModel` does): an 84-byte
//! header (scale, origin, radius, eye position, counts, sync type, flags, size); the skins, each
//! a type word then `skinwidth × skinheight` palette indices, or for a skin group (type 1) a
//! count, that many intervals and that many pictures; `numverts` texture vertices (on-seam flag,
//! s, t); `numtris` triangles (faces-front flag, three vertex indices); `numframes` frames, each a
//! type word then one pose (simple, type 0) or a group: a count, bounds, that many intervals and
//! that many poses. A pose is bounds, a 16-byte name and 4 bytes per vertex (x, y, z packed
//! against the header's scale and origin, and an index into the 162 normals Quake II shares).
//!
//! [`read`] gives the file as stored; [`decode`] the scene (`assemble`), its skins decoded
//! with the standard palette; [`open`] looks for the game's palette ([`palette`]).

mod assemble;
pub mod palette;
mod read;

use std::path::Path;

use glam::Vec3;

use super::Pick;
use super::assets::{self, Assets};
use super::error::DecodeResult;
use crate::scene::Scene;

pub use self::read::read;

pub const FORMAT: &str = "quake1-mdl";
pub const MAGIC: [u8; 4] = *b"IDPO";
pub const VERSION: i32 = 6;
pub const HEADER_SIZE: u64 = 84;
pub const ST_SIZE: u64 = 12;
pub const TRIANGLE_SIZE: u64 = 16;
pub const POSE_HEADER_SIZE: u64 = 24;
/// Simple frames play at 10 per second, as Quake's monsters step them (0.1 s think).
pub const FRAMES_PER_SECOND: f32 = 10.0;
/// Key of the skin choice: one option per skin, a skin group one option whose pictures cycle.
pub const CHOICE_SKIN: &str = "skin";
/// The entity effects of the header's flags word (Quake's `EF_` model flags), bit by bit.
pub const FLAG_NAMES: [&str; 8] =
    ["EF_ROCKET", "EF_GRENADE", "EF_GIB", "EF_ROTATE", "EF_TRACER", "EF_ZOMGIB", "EF_TRACER2", "EF_TRACER3"];

/// The header's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub scale: Vec3,
    pub origin: Vec3,
    pub radius: f32,
    pub eye: Vec3,
    pub skin_count: u32,
    pub skin_width: u32,
    pub skin_height: u32,
    pub vertex_count: u32,
    pub triangle_count: u32,
    pub frame_count: u32,
    pub synctype: i32,
    pub flags: i32,
    pub size: f32,
}

/// One skin: a picture, or a group of pictures shown in turn (intervals are end times in
/// seconds, as stored).
#[derive(Debug, Clone, PartialEq)]
pub enum Skin {
    Single(Vec<u8>),
    Group { intervals: Vec<f32>, pictures: Vec<Vec<u8>> },
}

/// A texture vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StVert {
    pub on_seam: bool,
    pub s: i32,
    pub t: i32,
}

/// A triangle: vertex indices as stored (clockwise) and whether it faces front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triangle {
    pub faces_front: bool,
    pub vertices: [u32; 3],
}

/// One pose: its name, bounds and packed vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    pub name: String,
    pub bounds: [[u8; 4]; 2],
    pub vertices: Vec<[u8; 4]>,
}

/// One entry of the frame list.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Single(Pose),
    /// Poses shown in turn; intervals are end times in seconds, as stored.
    Group {
        bounds: [[u8; 4]; 2],
        intervals: Vec<f32>,
        poses: Vec<Pose>,
    },
}

/// The file as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct MdlFile {
    pub header: Header,
    pub skins: Vec<Skin>,
    pub st: Vec<StVert>,
    pub triangles: Vec<Triangle>,
    pub frames: Vec<Frame>,
    /// Bytes after the last frame (a QME block, say), which the engine ignores.
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

impl Header {
    /// The names of the flags set.
    pub fn flag_names(&self) -> Vec<&'static str> {
        FLAG_NAMES.iter().enumerate().filter(|(bit, _)| self.flags & (1 << bit) != 0).map(|(_, n)| *n).collect()
    }
}

/// Decodes a Quake model into the scene, its skins in the standard Quake palette.
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    let file = read(data)?;
    Ok(assemble::build_scene(file, palette::standard(), "the standard Quake palette", &[]))
}

/// Opens a Quake model with the game's palette when one is found above it ([`palette`]).
pub fn open(path: &Path, data: &[u8], assets: &mut Assets, picks: &[Pick]) -> DecodeResult<Scene> {
    let file = read(data)?;
    let (colours, source) = match palette::find(&assets::model_folder(path), assets) {
        Some((colours, location)) => (colours, location),
        None => (palette::standard(), "the standard Quake palette".to_string()),
    };
    Ok(assemble::build_scene(file, colours, &source, picks))
}

#[cfg(test)]
mod tests;
