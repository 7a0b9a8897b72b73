//! Quake 3 `.md3` (magic `IDP3`, version 15): per-frame vertex animation of several surfaces,
//! with tags (attachment points) that move per frame.
//!
//! Layout (ioquake3 `qcommon/qfiles.h`): a 108-byte header; `numFrames` frames of 56 bytes
//! (bounds, local origin, radius, name); `numFrames × numTags` tags of 112 bytes, frame by frame
//! (name, origin, three axes); `numSurfaces` surfaces, each starting with its own `IDP3`
//! header whose offsets count from the surface's start and whose `ofsEnd` leads to the next.
//! A surface holds shaders (64-byte names), triangles (3 × i32), texture coordinates (2 × f32)
//! and `numFrames × numVerts` vertices: 3 × i16 in 1/64 units and a 16-bit normal, latitude in
//! the high byte and longitude in the low, each 256ths of a turn (`tr_model.c`).
//!
//! [`read`] gives the file as stored, in Quake axes; [`decode`] the scene (`assemble`);
//! [`open`] adds the textures by Quake 3's rules and the `.skin` files beside the model
//! (`textures`).

mod assemble;
pub mod player;
mod textures;

use glam::Vec3;

use super::error::DecodeResult;
use crate::scene::Scene;

pub use self::textures::{CHOICE_SKIN, open};

pub const FORMAT: &str = "quake3-md3";
pub const MAGIC: [u8; 4] = *b"IDP3";
pub const VERSION: i32 = 15;
pub const HEADER_SIZE: u64 = 108;
pub const FRAME_SIZE: u64 = 56;
pub const TAG_SIZE: u64 = 112;
pub const SURFACE_HEADER_SIZE: u64 = 108;
pub const SHADER_SIZE: u64 = 68;
pub const TRIANGLE_SIZE: u64 = 12;
pub const ST_SIZE: u64 = 8;
pub const VERTEX_SIZE: u64 = 8;
pub const NAME_LEN: u64 = 64;
pub const FRAME_NAME_LEN: u64 = 16;
/// Positions are stored in 1/64 units (`MD3_XYZ_SCALE`).
pub const XYZ_SCALE: f32 = 1.0 / 64.0;
/// The engine's limits (`qfiles.h`); a file past them loads here with a warning, as the game
/// would refuse it.
pub const MAX_FRAMES: u64 = 1024;
pub const MAX_TAGS: u64 = 16;
pub const MAX_SURFACES: u64 = 32;
pub const MAX_VERTS: u64 = 4096;
pub const MAX_TRIANGLES: u64 = 8192;
pub const MAX_SHADERS: u64 = 256;
/// Frames play at this rate where nothing says otherwise (an `animation.cfg` does for players).
pub const FRAMES_PER_SECOND: f32 = 10.0;

/// One frame's header.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub bounds: [Vec3; 2],
    pub local_origin: Vec3,
    pub radius: f32,
    pub name: String,
}

/// One tag in one frame: its origin and axes (forward, left, up) in the model's space.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    pub name: String,
    pub origin: Vec3,
    pub axes: [Vec3; 3],
}

/// One stored vertex: position in 1/64 units and the packed lat/long normal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vertex {
    pub xyz: [i16; 3],
    pub normal: u16,
}

impl Vertex {
    /// The position in Quake units and axes.
    #[inline]
    pub fn position(&self) -> Vec3 {
        // Element by element rather than `xyz.map`, which is left uninlined in the hot loop
        // over every frame's vertices.
        let [x, y, z] = self.xyz;
        Vec3::new(f32::from(x), f32::from(y), f32::from(z)) * XYZ_SCALE
    }

    /// The unit normal in Quake axes: latitude in the high byte, longitude in the low, as
    /// `R_LoadMD3` unpacks them.
    pub fn unit_normal(&self) -> Vec3 {
        let turn = std::f32::consts::TAU / 256.0;
        let lat = f32::from((self.normal >> 8) as u8) * turn;
        let lng = f32::from((self.normal & 0xff) as u8) * turn;
        Vec3::new(lat.cos() * lng.sin(), lat.sin() * lng.sin(), lng.cos())
    }
}

/// One surface as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    pub name: String,
    pub flags: i32,
    /// Shader names and their (run-time) indices.
    pub shaders: Vec<(String, i32)>,
    pub triangles: Vec<[u32; 3]>,
    pub st: Vec<[f32; 2]>,
    pub vertex_count: usize,
    /// `frames × vertex_count` vertices, frame by frame.
    pub vertices: Vec<Vertex>,
    /// Absolute offset of the surface header.
    pub offset: u64,
}

impl Surface {
    /// The vertices of frame `frame`.
    pub fn frame(&self, frame: usize) -> &[Vertex] {
        let start = frame.saturating_mul(self.vertex_count);
        self.vertices.get(start..start.saturating_add(self.vertex_count)).unwrap_or(&[])
    }
}

/// The file as stored, in Quake's axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Md3File {
    pub name: String,
    pub flags: i32,
    pub frames: Vec<Frame>,
    /// Tag names, in the order of frame 0.
    pub tag_names: Vec<String>,
    /// `tags[frame][tag]`.
    pub tags: Vec<Vec<Tag>>,
    pub surfaces: Vec<Surface>,
    pub skin_count: i32,
    pub warnings: Vec<String>,
}

mod read;
pub use self::read::read;

/// Decodes a Quake 3 model into the scene (textures unresolved; see [`open`]).
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    let file = read(data)?;
    Ok(assemble::build_scene(&file))
}

#[cfg(test)]
mod tests;
