//! Quake II `.md2` (magic `IDP2`, version 8): per-frame vertex animation with PCX skins.
//!
//! - Every frame decodes with `v[i] × scale[i] + translate[i]`, normals through the 162-entry
//!   table ([`normals`]), both mapped into scene axes by [`super::quake_axes`].
//! - Triangles carry separate vertex and texture-coordinate indices, so render vertices are
//!   the unique (vertex, st) pairs; `Mesh::vertex_source` points each back at its vertex.
//! - Frames group into clips by name minus trailing digits (`stand01`..`stand40` → `stand`),
//!   each a [`Channel::PackedFrames`] played at 10 fps.
//! - Skins resolve through the one resolver (`formats::assets`), and which one is drawn is a
//!   scene choice ([`skins`]); the OpenGL command list is parsed and
//!   validated, but nothing depends on it.

pub mod normals;
pub mod pcx;
pub mod skins;
pub mod writer;

use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};

use super::Pick;
use super::assets::{self, Asset, Assets, Folder};
use super::error::DecodeResult;
use super::frame_clips::{UNNAMED_CLIP, group_frames, name_runs};
use super::quake_axes::to_scene;
use super::reader::Reader;
use crate::scene::validate::any_not_finite;
use crate::scene::{
    Aabb, Channel, Clip, FormatKind, FrameTable, Material, Mesh, Node, NodeKind, PackedFrames, RawField, Scene,
    SceneKind, SharedBytes, Submesh,
};

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

fn read_header(r: &Reader, warnings: &mut Vec<String>) -> DecodeResult<Header> {
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

fn offset(value: i32) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn count(value: i32) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Everything but the frames, validated; the frame table is checked but not decoded. Texture
/// coordinates and triangles stay the file's records, read where they are used.
struct Layout<'a> {
    header: Header,
    skins: Vec<String>,
    st: &'a [[u8; 4]],
    triangles: &'a [[u8; 12]],
    frame_table: crate::formats::reader::Table,
    /// The commands, where asked for ([`read`]); decoding only counts them.
    gl_commands: Vec<(bool, u32)>,
    gl_command_count: usize,
    warnings: Vec<String>,
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

/// A frame's name bytes, scale, translate and packed vertices, checked.
fn frame_parts<'a>(
    r: &Reader<'a>,
    table: &crate::formats::reader::Table,
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

/// A texture coordinate record: (s, t) in skin pixels.
fn st_entry(&[s0, s1, t0, t1]: &[u8; 4]) -> [i16; 2] {
    [i16::from_le_bytes([s0, s1]), i16::from_le_bytes([t0, t1])]
}

/// A triangle record: (vertex indices, st indices), as stored (clockwise).
fn triangle_indices(&[x0, x1, y0, y1, z0, z1, s0, s1, t0, t1, u0, u1]: &[u8; 12]) -> ([u16; 3], [u16; 3]) {
    ([[x0, x1], [y0, y1], [z0, z1]].map(u16::from_le_bytes), [[s0, s1], [t0, t1], [u0, u1]].map(u16::from_le_bytes))
}

/// The highest vertex index and the highest texture coordinate index over the triangle
/// records, read unsigned (a negative index is then above every valid one). Four triangles are
/// 48 bytes, 24 little-endian shorts, of which shorts 0–2, 6–8, 12–14 and 18–20 are vertex
/// indices; a maximum per short position over every group compiles to a few vector operations
/// per four triangles, and the positions are combined once at the end.
fn highest_triangle_indices(tri_bytes: &[u8]) -> (u16, u16) {
    const GROUP_SHORTS: usize = 24;
    let (groups, rest) = tri_bytes.as_chunks::<{ 2 * GROUP_SHORTS }>();
    // By value in and out, so the maxima stay in registers.
    let highest = groups.iter().fold([0u16; GROUP_SHORTS], |mut highest, group| {
        // One unaligned 48-byte load as shorts; `from_le` is nothing on little-endian machines.
        let shorts: [u16; GROUP_SHORTS] = bytemuck::pod_read_unaligned(group);
        for (high, &short) in highest.iter_mut().zip(&shorts) {
            *high = (*high).max(u16::from_le(short));
        }
        highest
    });
    // Opaque to the optimiser, which would otherwise fold the combining below into the loop and
    // shuffle every group into place.
    let highest = std::hint::black_box(highest);
    let (triangles, _) = rest.as_chunks::<12>();
    let (mut xyz, mut st) = (0u16, 0u16);
    // Threes of shorts alternate: vertex indices, then texture coordinate indices.
    for (i, three) in highest.as_chunks::<3>().0.iter().enumerate() {
        let high = three.iter().fold(0u16, |high, &v| high.max(v));
        if i % 2 == 0 {
            xyz = xyz.max(high);
        } else {
            st = st.max(high);
        }
    }
    for (v, t) in triangles.iter().map(triangle_indices) {
        xyz = v.iter().fold(xyz, |high, &i| high.max(i));
        st = t.iter().fold(st, |high, &i| high.max(i));
    }
    (xyz, st)
}

/// Whether [`read_layout`] keeps the OpenGL commands or only checks and counts them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeepCommands {
    Yes,
    No,
}

fn read_layout<'a>(r: &Reader<'a>, keep: KeepCommands) -> DecodeResult<Layout<'a>> {
    let mut warnings = Vec::new();
    let h = read_header(r, &mut warnings)?;
    let num_xyz = count(h.num_xyz);
    let num_st = count(h.num_st);

    let skin_table = r.table(offset(h.ofs_skins), count(h.num_skins), SKIN_NAME_LEN, "skins")?;
    let skins = (0..skin_table.count)
        .map(|i| r.cstr(skin_table.record(i), SKIN_NAME_LEN, "skin name"))
        .collect::<DecodeResult<Vec<_>>>()?;

    let st_table = r.table(offset(h.ofs_st), num_st, 4, "texture coordinates")?;
    let st_bytes = r.bytes(st_table.offset, st_table.end() - st_table.offset, "texture coordinates")?;
    let (st, _) = st_bytes.as_chunks::<4>();

    let tri_table = r.table(offset(h.ofs_tris), count(h.num_tris), 12, "triangles")?;
    let tri_bytes = r.bytes(tri_table.offset, tri_table.end() - tri_table.offset, "triangles")?;
    // Indices are signed shorts: one below both the count and 32768 is valid. The highest index
    // of each kind is kept with no branch per triangle (the loop vectorises); only a file that
    // fails is searched for its first bad triangle.
    let xyz_limit = num_xyz.min(0x8000) as u16;
    let st_limit = num_st.min(0x8000) as u16;
    let (triangles, _) = tri_bytes.as_chunks::<12>();
    let (highest_xyz, highest_st) = highest_triangle_indices(tri_bytes);
    if highest_xyz >= xyz_limit || highest_st >= st_limit {
        for (i, (xyz, sts)) in triangles.iter().map(triangle_indices).enumerate() {
            let at = tri_table.record(i as u64);
            if let Some(&bad) = xyz.iter().find(|&&v| v >= xyz_limit) {
                return Err(r.invalid(
                    "triangle vertex index",
                    at,
                    format!("triangle {i} names vertex {} of {num_xyz}", bad as i16),
                ));
            }
            if let Some(&bad) = sts.iter().find(|&&v| v >= st_limit) {
                return Err(r.invalid(
                    "triangle texture coordinate index",
                    at + 6,
                    format!("triangle {i} names texture coordinate {} of {num_st}", bad as i16),
                ));
            }
        }
    }

    let frame_table = r.table(offset(h.ofs_frames), count(h.num_frames), count(h.frame_size), "frames")?;
    let mut gl_commands = Vec::new();
    let walked = match keep {
        KeepCommands::Yes => walk_gl_commands(r, &h, |is_strip, vertices| gl_commands.push((is_strip, vertices))),
        KeepCommands::No => walk_gl_commands(r, &h, |_, _| {}),
    };
    let gl_command_count = match walked {
        Ok(count) => count,
        Err(e) => {
            warnings.push(format!("OpenGL command list ignored: {e}"));
            gl_commands.clear();
            0
        }
    };
    Ok(Layout { header: h, skins, st, triangles, frame_table, gl_commands, gl_command_count, warnings })
}

/// Walks the command list to its zero word, checking every count and vertex index, and hands
/// each command (is a strip, vertex count) to `visit`; returns how many there were. The list
/// is fetched once as a checked slice of words. Vertex indices are checked with no branch per
/// command: the walk keeps the highest index seen (a negative one reads as a huge unsigned
/// one), and only a list that fails is walked again for its first bad command. So `visit` may
/// see commands of a list that then fails; the caller drops them.
fn walk_gl_commands(r: &Reader, h: &Header, mut visit: impl FnMut(bool, u32)) -> Result<usize, String> {
    let word_count = count(h.num_glcmds);
    if word_count == 0 {
        return Ok(0);
    }
    let bytes =
        r.bytes(offset(h.ofs_glcmds), word_count.saturating_mul(4), "OpenGL commands").map_err(|e| e.to_string())?;
    let (words, _) = bytes.as_chunks::<4>();
    let limit = u32::try_from(h.num_xyz).unwrap_or(0);
    let mut commands = 0usize;
    let mut highest = 0u32;
    let mut rest = words;
    let problem = loop {
        let Some((&first, after)) = rest.split_first() else {
            break format!("no terminating zero within {word_count} words");
        };
        let n = i32::from_le_bytes(first);
        if n == 0 {
            break String::new();
        }
        let Some((body, next)) = command_body(n, after) else {
            break format!("command at word {} runs past the list", words.len() - rest.len());
        };
        // Each vertex is three words: s, t and the vertex index.
        highest = highest_index(body, highest);
        rest = next;
        visit(n > 0, n.unsigned_abs());
        commands += 1;
    };
    // A bad index comes before whatever ended the walk, so it is the first problem.
    if highest >= limit {
        return Err(first_bad_command(words, h.num_xyz));
    }
    if problem.is_empty() { Ok(commands) } else { Err(problem) }
}

/// The highest vertex index among a command's vertices and `highest`, four vertices a step:
/// fewer loop instructions per vertex than one at a time, for commands of a few vertices each.
fn highest_index(body: &[[Word; 3]], highest: u32) -> u32 {
    let index = |&[_, _, index]: &[Word; 3]| u32::from_le_bytes(index);
    let (fours, rest) = body.as_chunks::<4>();
    let highest =
        fours.iter().fold(highest, |high, [a, b, c, d]| high.max(index(a).max(index(b)).max(index(c).max(index(d)))));
    rest.iter().fold(highest, |high, vertex| high.max(index(vertex)))
}

/// One little-endian word of the command list.
type Word = [u8; 4];

/// The vertices of a command of `n` (its sign says strip or fan) from the words after its
/// count, and the words after them; `None` when they run past the list.
fn command_body(n: i32, after: &[Word]) -> Option<(&[[Word; 3]], &[Word])> {
    let body_words = usize::try_from(n.unsigned_abs()).ok()?.checked_mul(3).filter(|&w| w <= after.len())?;
    let (body, next) = after.split_at(body_words);
    Some((body.as_chunks::<3>().0, next))
}

/// Names the first command with a vertex index outside `0..num_xyz`, walking commands already
/// known to fit the list.
fn first_bad_command(words: &[Word], num_xyz: i32) -> String {
    let mut rest = words;
    while let Some((&first, after)) = rest.split_first() {
        let n = i32::from_le_bytes(first);
        let Some((body, next)) = command_body(n, after).filter(|_| n != 0) else { break };
        let bad = body.iter().map(|&[_, _, index]| i32::from_le_bytes(index)).find(|&i| i < 0 || i >= num_xyz);
        if let Some(index) = bad {
            return format!("command at word {} names vertex {index}", words.len() - rest.len());
        }
        rest = next;
    }
    // Unreachable: the first walk saw a bad index among these commands.
    debug_assert!(false, "no bad command found again");
    "a command names a vertex past the model".to_string()
}

/// Frames kept as stored (4 bytes per vertex) in the file's own bytes, with scale and
/// translate mapped into scene axes: Quake (x, y, z)·s + t lands at scene
/// (x·sx + tx, z·sz + tz, −(y·sy + ty)), so scene x, y, z read packed bytes 0, 2, 1 with scale
/// (sx, sz, −sy) and translate (tx, tz, −ty).
struct SceneFrames {
    /// Times, transforms and names of every frame, shared by the clips.
    table: FrameTable,
    /// Byte offset of frame 0's packed records in the file, and from one frame's to the next.
    first_record: usize,
    frame_stride: usize,
    vertex_count: usize,
    /// Runs of frames in one clip, `(first, last, length of the clip's name)`, found from the
    /// name fields as words; `None` where a name had to be rewritten (not UTF-8), and clips
    /// then group from the names as text ([`group_frames`]). Runs index the names as stored, so
    /// `None` whenever they were not kept so.
    clip_runs: Option<Vec<(usize, usize, usize)>>,
}

/// Packed-byte lanes feeding scene x, y and z (see [`SceneFrames`]).
const SCENE_LANES: [u8; 3] = [0, 2, 1];

/// The anorms table in scene axes, built once per process and shared by every decoded model.
static SCENE_NORMALS: std::sync::LazyLock<Vec<Vec3>> =
    std::sync::LazyLock::new(|| normals::NORMALS.iter().map(|&n| to_scene(Vec3::from_array(n))).collect());

/// Bytes folded per step of the normal scan: four 16-byte vectors, or two 32-byte ones with AVX2.
const SCAN_WIDTH: usize = 64;

/// The first normal index past the 162-entry table.
const FIRST_BAD_NORMAL: u8 = normals::NORMALS.len() as u8;

/// Whether any frame of the frame block (`count` frames of `stride` bytes, each a 40-byte
/// header then `vertex_bytes` of packed vertices) names a normal past the table. One pass over
/// every whole frame keeps the highest byte at each of 64 positions (two sets of them, one by
/// address and one from a record boundary: [`normal_scan`]); only normal bytes reach every
/// fourth position of each set, which is checked once at the end. With AVX2 (checked at run
/// time) the same code folds 32 bytes per instruction instead of 16.
fn any_normal_past_table(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if cpu_avx2::get() {
        // SAFETY: the CPU has AVX2 and the OS keeps its registers, checked just above.
        return unsafe { normal_scan_avx2(block, stride, count, vertex_bytes) };
    }
    normal_scan(block, stride, count, vertex_bytes)
}

// AVX2 asked with two CPUID instructions. `is_x86_feature_detected!` runs about nine on its first
// call, and each one traps to the hypervisor on a virtual machine (7 µs apiece on the one measured),
// so that first call took 60 µs, three times hunter's whole decode, in every `mdview` process
// that opened a Quake II model.
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpu_avx2, "avx2");

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn normal_scan_avx2(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    normal_scan(block, stride, count, vertex_bytes)
}

#[inline(always)]
fn normal_scan(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    // The records of every frame sit at the same place within 4 bytes only when the stride is
    // a multiple of 4, as in every known file. Otherwise, and for frames of a few steps each (a
    // weapon's, where the extra loads below cost more than they save), each frame is folded
    // from its own first record.
    if !stride.is_multiple_of(4) || vertex_bytes < 4 * SCAN_WIDTH {
        return unaligned_normal_scan(block, stride, count, vertex_bytes);
    }
    // Loads at addresses that are multiples of 64, as a load across a cache line costs two. A
    // frame's records are folded as the whole 64-byte blocks that start at such addresses,
    // where a byte sits in the position its address gives modulo 64, so that the normal bytes
    // of every frame share the same 16 positions; and where bytes lie before the first block or
    // after the last, as the records' first or last 64 bytes, folded apart, where the positions
    // count from a record boundary as in [`unaligned_normal_scan`].
    let mut aligned = [0u8; SCAN_WIDTH];
    let mut edges = [0u8; SCAN_WIDTH];
    // Whole frames only, as in [`unaligned_normal_scan`] and the per-frame search after it.
    for frame in block.chunks_exact(stride.max(1)).take(count) {
        let Some(records) = frame_records(frame, vertex_bytes) else { continue };
        // At least 256 bytes (checked above), so both are there.
        let (Some(first), Some(last)) = (records.first_chunk::<SCAN_WIDTH>(), records.last_chunk::<SCAN_WIDTH>())
        else {
            continue;
        };
        let skipped = (SCAN_WIDTH - records.as_ptr() as usize % SCAN_WIDTH) % SCAN_WIDTH;
        let (steps, left) = records.get(skipped..).unwrap_or(&[]).as_chunks::<SCAN_WIDTH>();
        if skipped > 0 {
            edges = fold_scan_step(edges, first);
        }
        if !left.is_empty() {
            edges = fold_scan_step(edges, last);
        }
        // Two steps per turn, for fewer loop instructions per byte.
        let (pairs, rest) = steps.as_chunks::<2>();
        aligned = pairs.iter().fold(aligned, |highest, [one, two]| fold_scan_step(fold_scan_step(highest, one), two));
        if let Some(step) = rest.first() {
            aligned = fold_scan_step(aligned, step);
        }
    }
    // Opaque to the optimiser: knowing that only every fourth position is read below, it would
    // otherwise gather normal bytes one at a time instead of folding whole vectors.
    let (aligned, edges) = std::hint::black_box((aligned, edges));
    // Every frame's records start 40 bytes after a multiple of the stride, itself a multiple of 4.
    let aligned_normal = (block.as_ptr() as usize).wrapping_add(FRAME_HEADER_SIZE as usize + 3) % 4;
    aligned.iter().skip(aligned_normal).step_by(4).any(|&byte| byte >= FIRST_BAD_NORMAL)
        || edges.iter().skip(3).step_by(4).any(|&byte| byte >= FIRST_BAD_NORMAL)
}

/// The highest of `highest` and `bytes`, position by position.
#[inline(always)]
fn fold_scan_step(mut highest: [u8; SCAN_WIDTH], bytes: &[u8; SCAN_WIDTH]) -> [u8; SCAN_WIDTH] {
    for (high, &byte) in highest.iter_mut().zip(bytes) {
        *high = (*high).max(byte);
    }
    highest
}

/// [`normal_scan`] for a stride that is not a multiple of 4 and for frames of under 256 bytes of
/// records: each frame folded from its own first record, so that positions 3, 7, … 63 only
/// ever see normal bytes.
#[inline(always)]
fn unaligned_normal_scan(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    let mut highest = [0u8; SCAN_WIDTH];
    let mut short_bad = false;
    for frame in block.chunks_exact(stride.max(1)).take(count) {
        let Some(records) = frame_records(frame, vertex_bytes) else { continue };
        let (steps, _) = records.as_chunks::<SCAN_WIDTH>();
        highest = steps.iter().fold(highest, fold_scan_step);
        // The last 64 bytes once more instead of a tail loop: they start on a record boundary
        // (the length is a multiple of 4), so their positions line up, and a maximum does not
        // mind bytes seen twice.
        match records.last_chunk::<SCAN_WIDTH>() {
            Some(last) => highest = fold_scan_step(highest, last),
            None => short_bad |= has_normal_past_table(records),
        }
    }
    // Opaque to the optimiser, as in [`normal_scan`].
    let highest = std::hint::black_box(highest);
    short_bad || highest.chunks_exact(4).any(|lanes| lanes.get(3) >= Some(&FIRST_BAD_NORMAL))
}

/// A frame's packed vertices: `vertex_bytes` after its 40-byte header.
fn frame_records(frame: &[u8], vertex_bytes: usize) -> Option<&[u8]> {
    let header = FRAME_HEADER_SIZE as usize;
    frame.get(header..header.saturating_add(vertex_bytes))
}

/// Whether one frame's packed vertices (4-byte records, normal index in byte 3) name a normal
/// past the table; run per frame only once [`any_normal_past_table`] found one.
fn has_normal_past_table(records: &[u8]) -> bool {
    records.chunks_exact(4).any(|record| record.get(3) >= Some(&FIRST_BAD_NORMAL))
}

fn decode_frames(r: &Reader, layout: &Layout, warnings: &mut Vec<String>) -> DecodeResult<SceneFrames> {
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

/// A 16-byte name field's length up to its first NUL (16 when it has none), and how much of
/// that name its clip keeps ([`super::frame_clips::clip_length`]: the name minus trailing
/// digits, all of it when all are digits), from two per-byte masks ([`field_masks`]), with no
/// loop and no branch per byte.
fn name_lengths(field: &[u8; 16]) -> (usize, usize) {
    let (nul, digit) = field_masks(field);
    let length = (nul | 1 << 16).trailing_zeros();
    let in_name = (1u32 << length) - 1;
    let not_digits = !digit & in_name;
    let kept = if not_digits == 0 { length } else { u32::BITS - not_digits.leading_zeros() };
    (length as usize, kept as usize)
}

/// Bit `i` set where byte `i` of the field is NUL, and where it is an ASCII digit: a compare
/// each and one gather of the lanes' top bits (SSE2, part of every x86-64 processor). The
/// byte-at-a-time loops this replaces were most of the names pass.
#[cfg(target_arch = "x86_64")]
fn field_masks(field: &[u8; 16]) -> (u32, u32) {
    // SAFETY: SSE2 is part of the x86-64 baseline, so every processor this runs on has it.
    unsafe { field_masks_sse2(field) }
}

/// [`field_masks`] in SSE2 instructions; a `target_feature` function, so callers vouch for SSE2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn field_masks_sse2(field: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8,
    };
    let bytes: __m128i = bytemuck::cast(*field);
    let nul = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128()));
    // A digit is 0x30..=0x39: at most 9 once 0x30 is taken away (wrapping), read unsigned.
    let past_zero_char = _mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8));
    let digit = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(past_zero_char, _mm_set1_epi8(9)), past_zero_char));
    (nul as u32 & 0xFFFF, digit as u32 & 0xFFFF)
}

/// [`field_masks`] a byte at a time, for other processors (and as the tests' reference).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn field_masks_by_byte(field: &[u8; 16]) -> (u32, u32) {
    field.iter().enumerate().fold((0, 0), |(nul, digit), (i, &b)| {
        (nul | u32::from(b == 0) << i, digit | u32::from(b.is_ascii_digit()) << i)
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn field_masks(field: &[u8; 16]) -> (u32, u32) {
    field_masks_by_byte(field)
}

/// `masks[n]` keeps the low `n` bytes of a 16-byte word, for [`clip_key`]: a table look-up
/// instead of a 128-bit shift by a variable amount, which was most of that function's cost.
fn clip_masks() -> [u128; 17] {
    std::array::from_fn(|kept| u128::MAX.checked_shr(128 - 8 * kept as u32).unwrap_or(0))
}

/// The clip of a frame whose name field is `field`, its name `length` bytes long of which the
/// clip keeps `kept` ([`name_lengths`]), as a key that compares whole in one word: the clip's
/// name as [`group_frames`] finds it ([`UNNAMED_CLIP`] when the name is empty) masked out of
/// the field, and its length. `masks` is [`clip_masks`].
fn clip_key(field: &[u8; 16], (length, kept): (usize, usize), masks: &[u128; 17]) -> (u128, usize) {
    let (bytes, kept) = match length {
        0 => {
            let mut unnamed = [0u8; 16];
            unnamed.iter_mut().zip(UNNAMED_CLIP.as_bytes()).for_each(|(to, &from)| *to = from);
            (unnamed, UNNAMED_CLIP.len().min(16))
        }
        _ => (*field, kept),
    };
    let mask = masks.get(kept).copied().unwrap_or(u128::MAX);
    (u128::from_le_bytes(bytes) & mask, kept)
}

/// Stores the frame names gathered as bytes: one UTF-8 check over all of them, as names are
/// ASCII in practice. Joined names can be valid where one alone is not (`a\xC3` + `\xA9`), so
/// the joined text also needs every name to start and end on a character boundary; otherwise
/// each name is made valid on its own (lossy).
/// Returns whether the names were kept as stored.
fn set_frame_names(table: &mut FrameTable, name_bytes: Vec<u8>) -> bool {
    // In ASCII text, the usual case, every place is a character boundary.
    let whole_names = |text: &String| {
        text.is_ascii()
            || table
                .name_ranges
                .iter()
                .all(|&(a, b)| text.is_char_boundary(a as usize) && text.is_char_boundary(b as usize))
    };
    match String::from_utf8(name_bytes) {
        Ok(text) if whole_names(&text) => {
            table.name_text = text;
            true
        }
        not_whole => {
            let bytes = not_whole.map_or_else(|e| e.into_bytes(), String::into_bytes);
            let mut text = String::with_capacity(bytes.len());
            for range in &mut table.name_ranges {
                let name = bytes.get(range.0 as usize..range.1 as usize).unwrap_or(&[]);
                let start = text.len() as u32;
                text.push_str(&String::from_utf8_lossy(name));
                *range = (start, text.len() as u32);
            }
            table.name_text = text;
            false
        }
    }
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

/// No render vertex yet in a vertex's chain.
const NO_PAIR: u32 = u32::MAX;

/// Builds the scene: one mesh node, render vertices from unique (vertex, st) pairs, a material
/// per skin (the first one used), and one clip per frame group (frames shared, not copied).
fn build_scene(layout: &Layout, skins: Vec<String>, frames: SceneFrames, bytes: SharedBytes) -> Scene {
    let h = &layout.header;
    let mut scene = Scene::new(FormatKind::Quake2Md2, SceneKind::Mesh);
    scene.version = VERSION as u32;
    // A reciprocal, multiplied per render vertex: a division per vertex was a tenth of decode.
    let texel = Vec2::ONE / Vec2::new(h.skin_width.max(1) as f32, h.skin_height.max(1) as f32);

    // Render vertices are unique (vertex, st) pairs. Flat arrays, no hashing and no allocation
    // per vertex: `first_pair[key]` starts a chain of the render vertices sharing one key, and
    // `pairs` holds each one's (vertex, st) and the next in its chain, side by side (one
    // allocation, and a chain step reads one place). The key is the more
    // numerous of vertex and st, so chains stay short: most files have more st entries than
    // vertices (a seam duplicates st), and an st entry then belongs to one vertex; some
    // exporters share few st entries among many vertices, and there a vertex has few.
    let keyed_by_st = layout.st.len() >= count(h.num_xyz) as usize;
    // A pair is one word, vertex in the low half and st in the high half, so a chain compares
    // whole pairs; the key is the half at `key_shift`.
    let key_shift = if keyed_by_st { 16 } else { 0 };
    // Each chain's head holds its newest pair beside its index, so the usual case (a key with
    // one pair) is answered by one load rather than two dependent ones. No pair is NO_PAIR
    // (both halves are below 0x8000), so an empty head never matches.
    let mut first_pair = vec![[NO_PAIR, NO_PAIR]; layout.st.len().max(count(h.num_xyz) as usize)];
    let corners = layout.triangles.len() * 3;
    let mut pairs: Vec<[u32; 2]> = Vec::with_capacity(corners);
    let mut triangles = Vec::with_capacity(layout.triangles.len());
    for (xyz, st) in layout.triangles.iter().map(triangle_indices) {
        let mut corner = [0u32; 3];
        for (slot, (&v, &t)) in corner.iter_mut().zip(xyz.iter().zip(&st)) {
            let pair = u32::from(v) | u32::from(t) << 16;
            let key = (pair >> key_shift) & 0xFFFF;
            let Some(head) = first_pair.get_mut(key as usize) else { continue };
            let [head_pair, head_at] = *head;
            if head_pair == pair {
                *slot = head_at;
                continue;
            }
            let mut at = head_at;
            while let Some(&[seen, next]) = pairs.get(at as usize)
                && seen != pair
            {
                at = next;
            }
            if at == NO_PAIR {
                at = pairs.len() as u32;
                pairs.push([pair, head_at]);
                *head = [pair, at];
            }
            *slot = at;
        }
        // Stored clockwise: swap two corners for a counter-clockwise front face.
        let [a, b, c] = corner;
        triangles.push([a, c, b]);
    }
    // Each render vertex's source vertex and texture coordinate, in passes of their own.
    let vertex_source: Vec<u32> = pairs.iter().map(|&[pair, _]| pair & 0xFFFF).collect();
    let uvs: Vec<Vec2> = pairs
        .iter()
        .map(|&[pair, _]| {
            let [s, t] = layout.st.get((pair >> 16) as usize).map_or([0, 0], st_entry);
            Vec2::new(f32::from(s), f32::from(t)) * texel
        })
        .collect();

    let table = Arc::new(frames.table);
    let template = PackedFrames {
        lanes: SCENE_LANES,
        normal_table: SCENE_NORMALS.as_slice(),
        records: bytes,
        first: frames.first_record,
        frame_stride: frames.frame_stride,
        vertex_count: frames.vertex_count,
        table: table.clone(),
        frames: 0..table.times.len(),
        mesh: 0,
        wraps: true,
    };
    // The rest pose is frame 0, unpacked once.
    let source_positions = template.unpack(0);
    let rest_normals = match template.records_at(0) {
        Some(first) => {
            vertex_source.iter().map(|&s| first.get(s as usize).map_or(Vec3::Y, |&p| template.normal(p))).collect()
        }
        None => Vec::new(),
    };

    scene.materials.reserve_exact(skins.len().max(1));
    for (i, skin) in skins.into_iter().enumerate() {
        let mut m = Material::new(format!("skin {i}"));
        m.texture = Some(skin);
        scene.materials.push(m);
    }
    if scene.materials.is_empty() {
        scene.materials.push(Material::new("no skin"));
    }
    // The file states no range: the skin covers every render vertex.
    let last_vertex = uvs.len().saturating_sub(1) as u32;
    let mesh = Mesh {
        name: "model".into(),
        node: Some(0),
        bounds: Aabb::from_points(&source_positions),
        source_positions,
        vertex_source,
        uvs,
        uvs1: Vec::new(),
        normals: rest_normals,
        submeshes: vec![Submesh {
            material: Some(0),
            first_triangle: 0,
            triangle_count: triangles.len() as u32,
            vertex_start: 0,
            vertex_end: last_vertex,
        }],
        triangles,
        skin: None,
        raw: vec![
            RawField::new("skinwidth", 8, h.skin_width as u64),
            RawField::new("skinheight", 12, h.skin_height as u64),
            RawField::new("framesize", 16, h.frame_size as u64),
            RawField::new("num_st", 28, h.num_st as u64),
            RawField::new("num_glcmds", 36, h.num_glcmds as u64),
        ],
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    };
    let mut node = Node::new("model", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(0);
    scene.nodes.push(node);
    scene.meshes.push(mesh);

    let groups = match &frames.clip_runs {
        Some(runs) => name_runs(runs.iter().map(|&(first, last, length)| {
            // The names are as stored (or there would be no runs), so the clip's bytes open the
            // first frame's name; an empty name is the unnamed clip.
            let clip = match table.name_ranges.get(first) {
                Some(&(start, end)) if start < end => {
                    let clip = table.name_text.get(start as usize..start as usize + length);
                    debug_assert!(clip.is_some(), "a clip run outside its frame's name");
                    clip.unwrap_or("")
                }
                _ => UNNAMED_CLIP,
            };
            (clip, first, last)
        })),
        None => group_frames((0..table.name_ranges.len()).map(|f| table.name(f).unwrap_or(""))),
    };
    scene.clips.reserve_exact(groups.len());
    for (name, first, last) in groups {
        scene.clips.push(Clip {
            name,
            source: None,
            start: first as f32,
            end: last as f32,
            rate: FRAMES_PER_SECOND,
            // Room for the weapon's channel ([`attach_weapon`]), so a player model's open does not
            // grow every clip's list.
            channels: {
                let mut channels = Vec::with_capacity(2);
                channels.push(Channel::PackedFrames(PackedFrames { frames: first..last + 1, ..template.clone() }));
                channels
            },
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
    }
    scene.raw = vec![
        RawField::new("num_skins", 20, h.num_skins as u64),
        RawField::new("num_frames", 40, h.num_frames as u64),
        RawField::new("gl commands parsed", u64::try_from(h.ofs_glcmds).unwrap_or(0), layout.gl_command_count as u64),
    ];
    scene
}

/// Opens a model with its skins resolved beside it (see [`skins`]). A player model
/// (`tris.md2`) with a `weapon.md2` beside it gets the weapon as a second mesh node, `weapon`,
/// posed by the same clips and frames. Which skin each draws with is a [`Scene::choices`]
/// entry ([`skins::CHOICE_SKIN`], [`skins::CHOICE_WEAPON_SKIN`]) that `picks` may change.
pub fn open(path: &Path, data: SharedBytes, assets: &mut Assets, picks: &[Pick]) -> DecodeResult<Scene> {
    let mut scene = decode_shared(data)?;
    let folder = assets.folder(&assets::model_folder(path));
    let weapon = weapon_beside(path, &folder).map(|asset| {
        let decoded =
            asset.read_shared().map_err(|e| e.to_string()).and_then(|d| decode_shared(d).map_err(|e| e.to_string()));
        (asset, decoded)
    });
    // The images the weapon names are its own, never a skin of the player.
    let weapon_skins: Vec<String> = match &weapon {
        Some((_, Ok(w))) => {
            let named: Vec<String> =
                w.materials.iter().filter_map(|m| m.texture.as_deref()).map(skins::base_name).collect();
            // A weapon that names none is drawn with the image named like it.
            if named.is_empty() { vec!["weapon".to_string()] } else { named }
        }
        _ => Vec::new(),
    };
    skins::choose(path, &mut scene, assets, &skins::Role::Model { weapon_skins }, picks);
    match weapon {
        Some((asset, Ok(mut weapon))) => {
            skins::choose(&asset.path().unwrap_or_default(), &mut weapon, assets, &skins::Role::Weapon, picks);
            attach_weapon(&mut scene, weapon);
        }
        Some((_, Err(e))) => scene.warnings.push(format!("weapon.md2 beside the model not shown: {e}")),
        None => {}
    }
    Ok(scene)
}

/// `weapon.md2` (any case) beside a `tris.md2`.
fn weapon_beside(path: &Path, folder: &Folder) -> Option<Asset> {
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    if stem != "tris" {
        return None;
    }
    folder.file("weapon.md2")
}

/// Adds the weapon as node/mesh `weapon`, with a frame channel in every clip whose frames the
/// weapon also has. A weapon that fails to decode or is shorter becomes a warning.
fn attach_weapon(scene: &mut Scene, mut weapon: Scene) {
    let (Some(mut mesh), Some(mut node)) = (weapon.meshes.pop(), weapon.nodes.pop()) else { return };
    let mesh_index = scene.meshes.len();
    let material_base = scene.materials.len();
    for sub in mesh.submeshes.iter_mut() {
        sub.material = sub.material.map(|m| m + material_base);
    }
    mesh.name = "weapon".into();
    mesh.node = Some(scene.nodes.len());
    node.name = "weapon".into();
    node.mesh = Some(mesh_index);
    scene.nodes.push(node);
    scene.meshes.push(mesh);
    scene.materials.extend(weapon.materials.into_iter().map(|mut m| {
        m.name = format!("weapon {}", m.name);
        m
    }));
    scene.warnings.extend(weapon.warnings.into_iter().map(|w| format!("weapon: {w}")));
    scene.choices.extend(weapon.choices);
    // The weapon's frames in file order, whatever its own clips are called: one shared table.
    let Some(template) = weapon.clips.into_iter().flat_map(|clip| clip.channels).find_map(|channel| match channel {
        Channel::PackedFrames(packed) => Some(packed),
        _ => None,
    }) else {
        return;
    };
    let weapon_frames = template.table.times.len();
    let mut short = false;
    for clip in scene.clips.iter_mut() {
        let (first, last) = (clip.start as usize, clip.end as usize);
        if last < weapon_frames {
            clip.channels.push(Channel::PackedFrames(PackedFrames {
                mesh: mesh_index,
                frames: first..last + 1,
                ..template.clone()
            }));
        } else {
            short = true;
        }
    }
    if short {
        scene.warnings.push(format!(
            "weapon.md2 has {weapon_frames} frames, fewer than the model; it holds still in the clips it lacks"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Render vertices are exactly the unique (vertex, st) pairs, in first-use order, whether
    /// the chains are keyed by st (more st entries than vertices) or by vertex (fewer).
    #[test]
    fn render_vertices_are_the_unique_pairs_with_either_chain_key() {
        for (vertices, sts) in [(4usize, 9usize), (9, 2), (5, 5)] {
            let mut triangles = Vec::new();
            for i in 0..24usize {
                let v = [i % vertices, (i * 7 + 1) % vertices, (i * 5 + 2) % vertices].map(|x| x as i16);
                let t = [(i * 3) % sts, (i + 1) % sts, (i * 11 + 3) % sts].map(|x| x as i16);
                triangles.push((v, t));
            }
            let spec = writer::Md2Spec {
                skin_width: 64,
                skin_height: 64,
                skins: Vec::new(),
                st: (0..sts).map(|k| [k as i16, 2 * k as i16]).collect(),
                triangles: triangles.clone(),
                frames: vec![writer::FrameSpec {
                    name: "frame1".into(),
                    scale: [1.0; 3],
                    translate: [0.0; 3],
                    vertices: (0..vertices).map(|k| [k as u8, 0, 0, 0]).collect(),
                }],
            };
            let scene = decode(&spec.to_bytes()).expect("decodes");
            let mesh = &scene.meshes[0];
            let mut expected: Vec<(u32, u16)> = Vec::new();
            for (v, t) in &triangles {
                for (&v, &t) in v.iter().zip(t) {
                    if !expected.contains(&(v as u32, t as u16)) {
                        expected.push((v as u32, t as u16));
                    }
                }
            }
            assert_eq!(mesh.vertex_source, expected.iter().map(|p| p.0).collect::<Vec<_>>(), "{vertices}/{sts}");
            // The one skin covers every render vertex.
            let range = (mesh.submeshes[0].vertex_start, mesh.submeshes[0].vertex_end);
            assert_eq!(range, (0, expected.len() as u32 - 1), "{vertices}/{sts}");
            let texel = |t: u16| glam::Vec2::new(f32::from(t) / 64.0, f32::from(2 * t) / 64.0);
            assert_eq!(mesh.uvs, expected.iter().map(|p| texel(p.1)).collect::<Vec<_>>(), "{vertices}/{sts}");
            for ((tri, (v, t)), n) in mesh.triangles.iter().zip(&triangles).zip(0..) {
                // Stored clockwise, decoded counter-clockwise: corners 0, 2, 1.
                for (corner, k) in tri.iter().zip([0, 2, 1]) {
                    let at = *corner as usize;
                    assert_eq!((mesh.vertex_source[at], mesh.uvs[at]), (v[k] as u32, texel(t[k] as u16)), "tri {n}");
                }
            }
        }
    }

    /// A looping clip blends its last frame back into its first over one more frame, as the
    /// engine loops it: halfway through that frame the model is halfway between the two.
    #[test]
    fn a_clip_loops_back_to_its_first_frame_over_one_more_frame() {
        let mut spec = small_spec();
        let moved = |x: u8| writer::FrameSpec {
            name: "run3".into(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices: vec![[x, 0, 0, 1], [9, 0, 0, 2], [0, 9, 0, 3]],
        };
        spec.frames.push(moved(20));
        let scene = decode(&spec.to_bytes()).expect("decodes");
        let clip = &scene.clips[0];
        assert_eq!((clip.length(), clip.loop_blend()), (2.0, 1.0), "3 frames loop in 3");
        let x_at = |time: f32, looping: bool| {
            let mut pose = crate::scene::anim::Pose::default();
            pose.looping = looping;
            pose.evaluate(&scene, Some(0), time);
            pose.mesh_positions(&scene, 0)[0].x
        };
        assert_eq!(x_at(2.0, true), 20.0, "the last frame");
        assert_eq!(x_at(2.5, true), 10.0, "halfway back to the first");
        assert_eq!(x_at(3.0, true), 0.0, "the blend ends on the first frame");
        assert_eq!(x_at(3.5, true), 20.0, "past the blend the clip holds its last frame");
        assert_eq!(x_at(2.5, false), 20.0, "not looping, past the end holds the last frame");
    }

    /// A small valid model: 3 vertices, 4 st entries, 2 triangles, 2 frames.
    fn small_spec() -> writer::Md2Spec {
        let frame = |name: &str| writer::FrameSpec {
            name: name.into(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices: vec![[0, 0, 0, 1], [9, 0, 0, 2], [0, 9, 0, 3]],
        };
        writer::Md2Spec {
            skin_width: 8,
            skin_height: 8,
            skins: vec!["a.pcx".into()],
            st: vec![[0, 0], [8, 0], [0, 8], [8, 8]],
            triangles: vec![([0, 1, 2], [0, 1, 2]), ([2, 1, 0], [3, 1, 0])],
            frames: vec![frame("run1"), frame("run2")],
        }
    }

    /// Every frame's name, from the frame table the clips share.
    fn frame_names(scene: &Scene) -> Vec<Option<&str>> {
        let Channel::PackedFrames(packed) = &scene.clips[0].channels[0] else { panic!("packed frames") };
        (0..packed.table.name_ranges.len()).map(|f| packed.table.name(f)).collect()
    }

    fn error_text(bytes: &[u8]) -> String {
        decode(bytes).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    }

    /// The first bad triangle in file order is named, its vertex index checked before its st.
    #[test]
    fn a_bad_triangle_index_names_the_first_bad_triangle() {
        let mut spec = small_spec();
        spec.triangles[1].1[2] = 4;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 1 names texture coordinate 4 of 4"), "{text}");
        spec.triangles[1].0[0] = -1;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 1 names vertex -1 of 3"), "{text}");
        spec.triangles[0].0[1] = 3;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 0 names vertex 3 of 3"), "{text}");
    }

    #[test]
    fn a_name_ends_at_its_first_nul_and_its_clip_at_its_trailing_digits() {
        let reference = |field: &[u8; 16]| {
            let length = field.iter().position(|&b| b == 0).unwrap_or(16);
            (length, super::super::frame_clips::clip_length(&field[..length]))
        };
        for len in 0..=16 {
            for fill in [0u8, 1, b'7', 0x80, 0xFF] {
                let mut field = [fill; 16];
                field[..len].copy_from_slice(&b"stand01_abcdef12"[..len]);
                if len < 16 {
                    field[len] = 0;
                }
                assert_eq!(name_lengths(&field), reference(&field), "{len} bytes, then {fill:#x}");
            }
        }
        // Every byte value at every place, after a name of digits, of letters, and of both.
        for base in [*b"0123456789012345", *b"abcdefghijklmnop", *b"run12\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"]
        {
            for at in 0..16 {
                for value in 0..=255u8 {
                    let mut field = base;
                    field[at] = value;
                    assert_eq!(field_masks(&field), field_masks_by_byte(&field), "{field:?}");
                    assert_eq!(name_lengths(&field), reference(&field), "{field:?}");
                }
            }
        }
        assert_eq!(name_lengths(b"stand01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (7, 5));
        assert_eq!(name_lengths(b"1234\x0056\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (4, 4));
        assert_eq!(name_lengths(b"a\x00b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (1, 1));
        assert_eq!(name_lengths(&[b'9'; 16]), (16, 16));
    }

    #[test]
    fn the_highest_indices_match_a_plain_loop_at_every_position_and_length() {
        for triangles in [0usize, 1, 3, 4, 5, 8, 9, 13] {
            for marked in 0..triangles * 6 {
                for value in [1u16, 0x7FFF, 0x8000, 0xFFFF] {
                    // Small distinct values everywhere, and `value` at one short.
                    let mut shorts: Vec<u16> = (0..triangles * 6).map(|i| (i % 5) as u16).collect();
                    shorts[marked] = value;
                    let bytes: Vec<u8> = shorts.iter().flat_map(|s| s.to_le_bytes()).collect();
                    let plain = |kind: usize| {
                        shorts.iter().enumerate().filter(|(i, _)| (i % 6 < 3) == (kind == 0)).map(|(_, &s)| s).max()
                    };
                    let expected = (plain(0).unwrap_or(0), plain(1).unwrap_or(0));
                    assert_eq!(highest_triangle_indices(&bytes), expected, "{triangles} triangles, short {marked}");
                }
            }
        }
    }

    /// A broken command list is ignored with a warning that says where and why; the model
    /// still decodes.
    #[test]
    fn a_broken_command_list_is_a_warning_naming_the_command() {
        let spec = small_spec();
        let bytes = spec.to_bytes();
        let ofs_glcmds = i32::from_le_bytes(bytes[60..64].try_into().unwrap()) as usize;
        let warning_for = |patch: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = bytes.clone();
            patch(&mut bytes);
            let scene = decode(&bytes).expect("the model decodes without its command list");
            scene.warnings.iter().find(|w| w.starts_with("OpenGL command list ignored")).cloned().unwrap_or_default()
        };
        let word = |bytes: &mut Vec<u8>, index: usize, value: i32| {
            bytes[ofs_glcmds + 4 * index..ofs_glcmds + 4 * index + 4].copy_from_slice(&value.to_le_bytes())
        };
        // Two fans of three vertices (words 0..=9 and 10..=19), then the zero word.
        assert_eq!(warning_for(&|_| ()), "");
        let text = warning_for(&|b| word(b, 16, 3));
        assert!(text.ends_with("command at word 10 names vertex 3"), "{text}");
        let text = warning_for(&|b| word(b, 3, -2));
        assert!(text.ends_with("command at word 0 names vertex -2"), "{text}");
        let text = warning_for(&|b| word(b, 10, 4));
        assert!(text.ends_with("command at word 10 runs past the list"), "{text}");
        let text = warning_for(&|b| word(b, 10, i32::MIN));
        assert!(text.ends_with("command at word 10 runs past the list"), "{text}");
        let text = warning_for(&|b| word(b, 20, 1));
        assert!(text.ends_with("command at word 20 runs past the list"), "{text}");
        // The first problem in list order is named, whichever kind it is.
        let text = warning_for(&|b| {
            word(b, 16, -1);
            word(b, 20, 1)
        });
        assert!(text.ends_with("command at word 10 names vertex -1"), "{text}");
        let text = warning_for(&|b| {
            word(b, 3, 7);
            word(b, 16, 9)
        });
        assert!(text.ends_with("command at word 0 names vertex 7"), "{text}");
        // num_glcmds one short: the list ends after the second fan, before its zero word.
        let text = warning_for(&|b| b[36..40].copy_from_slice(&20i32.to_le_bytes()));
        assert!(text.ends_with("no terminating zero within 20 words"), "{text}");
        // Decoding counts the commands that `read` lists, and counts none of a broken list.
        let parsed = |bytes: &[u8]| {
            let raw = decode(bytes).unwrap().raw;
            raw.iter().find(|f| f.name == "gl commands parsed").map(|f| f.value)
        };
        assert_eq!(read(&bytes).unwrap().gl_commands, [(false, 3), (false, 3)]);
        assert_eq!(parsed(&bytes), Some(2));
        let mut broken = bytes.clone();
        word(&mut broken, 16, 3);
        assert!(read(&broken).unwrap().gl_commands.is_empty());
        assert_eq!(parsed(&broken), Some(0));
    }

    /// The four-at-a-time highest command index matches a plain fold at every length and
    /// every position of the highest one, including indices that read as negative.
    #[test]
    fn the_highest_command_index_matches_a_plain_fold() {
        for length in 0..11 {
            for at in 0..length.max(1) {
                for high in [7u32, 0x8000_0000, u32::MAX] {
                    let body: Vec<[Word; 3]> = (0..length)
                        .map(|v| {
                            let index = if v == at { high } else { v as u32 % 5 };
                            [[9; 4], [0xFF; 4], index.to_le_bytes()]
                        })
                        .collect();
                    let plain = body.iter().fold(2, |h: u32, v| h.max(u32::from_le_bytes(v[2])));
                    assert_eq!(highest_index(&body, 2), plain, "length {length}, at {at}");
                }
            }
        }
    }

    #[test]
    fn clip_masks_keep_the_low_bytes() {
        let masks = clip_masks();
        for (kept, &mask) in masks.iter().enumerate() {
            let bytes = mask.to_le_bytes();
            assert!(bytes[..kept].iter().all(|&b| b == 0xFF) && bytes[kept..].iter().all(|&b| b == 0), "{kept}");
        }
    }

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

    /// Frame names are checked as UTF-8 together; a name that is not valid is made valid on its
    /// own and the others keep their text and place.
    #[test]
    fn a_frame_name_that_is_not_utf8_is_replaced_alone() {
        let mut spec = small_spec();
        spec.frames.push(spec.frames[0].clone());
        spec.frames[2].name = "walk1".into();
        let mut bytes = spec.to_bytes();
        let ofs_frames = i32::from_le_bytes(bytes[56..60].try_into().unwrap()) as usize;
        let frame_size = i32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        bytes[ofs_frames + frame_size + 24 + 1] = 0xFF;
        let scene = decode(&bytes).expect("decodes");
        let names = frame_names(&scene);
        assert_eq!(names, [Some("run1"), Some("r\u{FFFD}n2"), Some("walk1")]);
        let clips: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(clips, ["run", "r\u{FFFD}n", "walk"]);

        // Two names invalid alone but valid joined ("a\xC3" + "\xA9" reads "aé") stay apart.
        let mut spec = small_spec();
        spec.frames[0].name = "a?".into();
        spec.frames[1].name = "?".into();
        let mut bytes = spec.to_bytes();
        bytes[ofs_frames + 24 + 1] = 0xC3;
        bytes[ofs_frames + frame_size + 24] = 0xA9;
        let scene = decode(&bytes).expect("decodes");
        let names = frame_names(&scene);
        assert_eq!(names, [Some("a\u{FFFD}"), Some("\u{FFFD}")]);
    }

    /// Clips found from the name fields as words are the clips [`group_frames`] finds from the
    /// names as text, for names that trip each rule: trailing digits, all digits, empty names
    /// and a name spelled like the unnamed clip, a name filling all 16 bytes, a clip name that
    /// comes back, multi-byte characters.
    #[test]
    fn clips_from_name_words_match_clips_from_names() {
        let lists: [&[&str]; 8] = [
            &["stand01", "stand02", "run1", "stand03", "stand04"],
            &["", "", "all", "all7", "", "x"],
            &["123", "124", "124", "a1b2", "a1b3", "a1b"],
            &["abcdefghijklmnop", "abcdefghijklmnop", "abcdefghijklmno1", "abcdefghijklmno2"],
            &["abcdefghijklmno", "abcdefghijklmno9", "abcdefghijklmn99"],
            &["dé1", "dé2", "dé", "d", "é", "é1"],
            &["run", "run1", "run", "walk", "run2"],
            &["0", "", "1", "00", "a0", "a"],
        ];
        for names in lists {
            let mut spec = small_spec();
            let template = spec.frames[0].clone();
            spec.frames =
                names.iter().map(|&name| writer::FrameSpec { name: name.into(), ..template.clone() }).collect();
            let mut bytes = spec.to_bytes();
            // The writer ends every name with a NUL; a name of 16 bytes fills its field instead.
            let ofs_frames = i32::from_le_bytes(bytes[56..60].try_into().unwrap()) as usize;
            let frame_size = i32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
            for (f, name) in names.iter().enumerate().filter(|(_, name)| name.len() == 16) {
                let at = ofs_frames + f * frame_size + 24;
                bytes[at..at + 16].copy_from_slice(name.as_bytes());
            }
            let scene = decode(&bytes).expect("decodes");
            let stored = frame_names(&scene);
            assert_eq!(stored, names.iter().map(|&n| Some(n)).collect::<Vec<_>>());
            let expected = group_frames(names.iter().copied());
            let clips: Vec<(String, usize, usize)> =
                scene.clips.iter().map(|c| (c.name.clone(), c.start as usize, c.end as usize)).collect();
            assert_eq!(clips, expected, "{names:?}");
        }
    }

    /// The two-query AVX2 check says what the standard library's full detection says.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_check_agrees_with_the_standard_library() {
        assert_eq!(cpu_avx2::get(), std::arch::is_x86_feature_detected!("avx2"));
    }

    /// Every build of the scan sees the normal byte of every record, wherever it falls (in an
    /// aligned 64-byte block, a frame's first or last 64 bytes, or a short frame), and never a
    /// header, position or padding byte, wherever the block lies within a 64-byte line.
    #[test]
    fn the_normal_scan_reads_only_normal_bytes() {
        type Scan = fn(&[u8], usize, usize, usize) -> bool;
        let scans: [(&str, Scan); 3] = [
            // AVX2 where the CPU has it.
            ("dispatched", any_normal_past_table),
            ("baseline", normal_scan),
            ("per frame", unaligned_normal_scan),
        ];
        // Up to 63 vertices (under 256 bytes of records) take the per-frame fold; 64 and more
        // the aligned one.
        for vertices in [0usize, 1, 3, 4, 5, 15, 16, 17, 20, 33, 63, 64, 100, 393] {
            // A stride of records only; one with two padding bytes, which puts each frame's
            // records at another place within 4 bytes; and one of 24, which with 64 vertices
            // makes the stride 5 × 64, so that at offset 24 every frame's records start and end
            // on a multiple of 64 and no edge is folded.
            for padding in [0usize, 2, 24] {
                let stride = 40 + vertices * 4 + padding;
                // The block at several places within a 64-byte line, by address, as a file's
                // frames can be.
                for (frames, offset) in
                    [1usize, 3].into_iter().flat_map(|f| [0usize, 1, 2, 3, 24, 29, 62].map(|o| (f, o)))
                {
                    // Headers and padding whose bytes are all past the table, as a float's sign can be.
                    let mut buffer = vec![255u8; SCAN_WIDTH + stride * frames];
                    let shift = (offset + SCAN_WIDTH - buffer.as_ptr() as usize % SCAN_WIDTH) % SCAN_WIDTH;
                    let block_len = stride * frames;
                    for frame in buffer[shift..shift + block_len].chunks_exact_mut(stride) {
                        for (v, record) in frame[40..40 + vertices * 4].chunks_exact_mut(4).enumerate() {
                            // Position bytes are all past the table; normals are in range, one the last.
                            let normal = if v == vertices / 2 { 161 } else { (v % 7) as u8 };
                            record.copy_from_slice(&[255, 254, 162, normal]);
                        }
                    }
                    for (scan, any_bad) in scans {
                        let case =
                            format!("{scan}: {vertices} vertices, stride {stride}, {frames} frames, at {offset}");
                        let block = &buffer[shift..shift + block_len];
                        assert_eq!(block.as_ptr() as usize % SCAN_WIDTH, offset, "{case}");
                        assert!(!any_bad(block, stride, frames, vertices * 4), "{case}");
                        for at in (0..frames).flat_map(|f| (0..vertices).map(move |v| f * stride + 40 + v * 4 + 3)) {
                            let kept = buffer[shift + at];
                            for bad in [162, 255] {
                                buffer[shift + at] = bad;
                                let block = &buffer[shift..shift + block_len];
                                assert!(any_bad(block, stride, frames, vertices * 4), "{case}, byte {at}");
                                let frame = &block[at / stride * stride + 40..][..vertices * 4];
                                assert!(has_normal_past_table(frame), "{case}, byte {at}");
                            }
                            buffer[shift + at] = kept;
                        }
                    }
                }
            }
        }
    }
}
