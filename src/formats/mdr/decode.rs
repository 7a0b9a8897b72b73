//! Reads an `.mdr` file into its records ([`MdrModel`]), in Quake axes and as stored: the
//! header, every frame (plain or compressed, decompressed here so nothing downstream sees the
//! packed form), every LOD with its surfaces, and the tags.
//!
//! The engine trusts the file almost completely; this reader trusts none of it:
//! - every count is non-negative, and every table is checked against the bytes that hold it
//!   before anything is allocated from its count;
//! - everything lies inside the MDR object (`ofsEnd`), which lies inside the file;
//! - every weight's and tag's bone index is below `numBones`, and every triangle index below
//!   its surface's vertex count;
//! - the LOD chain may not revisit an LOD, each surface must end after its own header, and the
//!   surfaces of all LODs together may not describe more bytes than the object holds, so a
//!   looping or overlapping chain costs at most one pass over the file.

use std::collections::HashSet;

use glam::{Vec2, Vec3};

use super::FORMAT;
use super::layout::*;
use crate::formats::error::{DecodeError, DecodeResult, ErrorKind};
use crate::formats::reader::{Reader, le_u16};

/// A bone matrix as the engine holds it: `f32[3][4]`, row-major, translation in column 3,
/// mapping bone space to model space (`model = M · offset`).
pub type BoneMatrix = [[f32; 4]; 3];

/// A decoded file, in Quake axes.
#[derive(Debug, Clone, PartialEq)]
pub struct MdrModel {
    pub name: String,
    pub version: i32,
    /// Whether the frames were stored compressed (negative `ofsFrames`).
    pub compressed: bool,
    pub bone_count: u32,
    pub frames: Vec<Frame>,
    pub lods: Vec<Lod>,
    pub tags: Vec<Tag>,
    /// Header fields as stored, for `info`.
    pub header: Header,
    /// Non-fatal oddities.
    pub warnings: Vec<String>,
}

/// The header's offsets and counts as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub num_frames: i32,
    pub num_bones: i32,
    pub ofs_frames: i32,
    pub num_lods: i32,
    pub ofs_lods: i32,
    pub num_tags: i32,
    pub ofs_tags: i32,
    pub ofs_end: i32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Empty for compressed frames, which have no name.
    pub name: String,
    pub bounds_min: Vec3,
    pub bounds_max: Vec3,
    pub local_origin: Vec3,
    pub radius: f32,
    /// One per bone.
    pub bones: Vec<BoneMatrix>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    /// File offset of the LOD record.
    pub offset: u64,
    pub surfaces: Vec<Surface>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// File offset of the surface record.
    pub offset: u64,
    pub ident: i32,
    pub name: String,
    pub shader: String,
    pub shader_index: i32,
    pub ofs_header: i32,
    pub bone_ref_count: i32,
    pub vertices: Vec<Vertex>,
    /// All vertices' weights; vertex `v` owns `weights[v.first_weight ..][.. v.weight_count]`.
    pub weights: Vec<Weight>,
    /// Vertex indices as stored: clockwise, all below `vertices.len()`.
    pub triangles: Vec<[u32; 3]>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub normal: Vec3,
    /// `s, t` with the origin at the image's top left.
    pub tex_coords: Vec2,
    pub first_weight: u32,
    pub weight_count: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight {
    /// Below the model's bone count.
    pub bone: u32,
    pub weight: f32,
    /// The vertex position in the bone's space.
    pub offset: Vec3,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    pub name: String,
    /// Below the model's bone count.
    pub bone: u32,
}

/// Decodes the 12 u16 of a compressed bone into a 3x4 matrix as `MC_UnCompress` does: values
/// 0..3 are the translation column, 3..12 the rotation rows, each biased by 32768.
pub fn uncompress_bone(values: &[u16; COMP_BONE_VALUES]) -> BoneMatrix {
    let unbias = |u: u16| f32::from(u) - COMP_BIAS;
    let mut m = [[0.0; 4]; 3];
    let (translation, rotation) = values.split_at(3);
    for ((row, &t), stored) in m.iter_mut().zip(translation).zip(rotation.chunks_exact(3)) {
        for (cell, &u) in row.iter_mut().zip(stored) {
            *cell = unbias(u) * COMP_ROTATION_STEP;
        }
        row[3] = unbias(t) * COMP_TRANSLATION_STEP;
    }
    m
}

/// A count field: a non-negative i32.
fn count(r: &Reader, at: u64, field: &str) -> DecodeResult<u64> {
    let value = r.i32(at, field)?;
    u64::try_from(value).map_err(|_| r.invalid(field, at, format!("negative count {value}")))
}

/// `base + relative`, where the stored offset is signed; the result must not precede the file.
fn offset_from(r: &Reader, base: u64, relative: i32, field: &str, at: u64) -> DecodeResult<u64> {
    base.checked_add_signed(i64::from(relative)).ok_or_else(|| {
        r.invalid(field, at, format!("offset {relative} from {base:#x} points before the start of the file"))
    })
}

fn finite<const N: usize>(r: &Reader, values: [f32; N], field: &str, at: u64) -> DecodeResult<[f32; N]> {
    if values.iter().all(|v| v.is_finite()) { Ok(values) } else { Err(r.invalid(field, at, "NaN or infinite value")) }
}

/// Decodes a whole file into its records.
pub fn parse(data: &[u8]) -> DecodeResult<MdrModel> {
    let file = Reader::new(data, FORMAT);
    let magic = file.bytes(HDR_IDENT, 4, "ident")?;
    if magic != MAGIC {
        return Err(file.invalid("ident", HDR_IDENT, "not a Quake 3 MDR file (ident is not RDM5)"));
    }
    let version = file.i32(HDR_VERSION, "version")?;
    if version != VERSION {
        return Err(DecodeError::unsupported(
            FORMAT,
            "version",
            HDR_VERSION,
            format!("version {version}; the engine loads only version {VERSION}"),
        ));
    }
    let ofs_end = file.i32(HDR_OFS_END, "ofsEnd")?;
    let object_len = match u64::try_from(ofs_end) {
        Ok(end) if end > file.len() => {
            return Err(file.invalid(
                "ofsEnd",
                HDR_OFS_END,
                format!("the header declares {end} bytes but the file holds only {}", file.len()),
            ));
        }
        Ok(end) if end >= HEADER_SIZE => end,
        _ => {
            return Err(file.invalid("ofsEnd", HDR_OFS_END, format!("{ofs_end} is shorter than the 104-byte header")));
        }
    };
    // Everything the model describes must lie inside the MDR object.
    let object = Reader::new(file.bytes(0, object_len, "MDR object")?, FORMAT);
    let mut model = parse_object(&object).map_err(|e| explain_object_end(e, object_len, file.len()))?;
    if object_len < file.len() {
        model.warnings.push(format!("{} bytes after ofsEnd ({object_len}) are ignored", file.len() - object_len));
    }
    Ok(model)
}

/// Reads past the object end are reported as such, not as a short file.
fn explain_object_end(error: DecodeError, object_len: u64, file_len: u64) -> DecodeError {
    match error.kind {
        ErrorKind::OutOfBounds { needed, len } if len == object_len && object_len < file_len => DecodeError {
            kind: ErrorKind::Invalid(format!("needs {needed} bytes, past the MDR object's end (ofsEnd {object_len})")),
            ..error
        },
        _ => error,
    }
}

fn parse_object(r: &Reader) -> DecodeResult<MdrModel> {
    let header = Header {
        num_frames: r.i32(HDR_NUM_FRAMES, "numFrames")?,
        num_bones: r.i32(HDR_NUM_BONES, "numBones")?,
        ofs_frames: r.i32(HDR_OFS_FRAMES, "ofsFrames")?,
        num_lods: r.i32(HDR_NUM_LODS, "numLODs")?,
        ofs_lods: r.i32(HDR_OFS_LODS, "ofsLODs")?,
        num_tags: r.i32(HDR_NUM_TAGS, "numTags")?,
        ofs_tags: r.i32(HDR_OFS_TAGS, "ofsTags")?,
        ofs_end: r.i32(HDR_OFS_END, "ofsEnd")?,
    };
    let mut warnings = Vec::new();
    let name = r.cstr(HDR_NAME, NAME_LEN, "name")?;
    let frame_count = count(r, HDR_NUM_FRAMES, "numFrames")?;
    let bone_count = count(r, HDR_NUM_BONES, "numBones")?;
    let lod_count = count(r, HDR_NUM_LODS, "numLODs")?;
    let tag_count = count(r, HDR_NUM_TAGS, "numTags")?;
    if frame_count == 0 {
        return Err(r.invalid(
            "numFrames",
            HDR_NUM_FRAMES,
            "no frames: vertices are stored relative to bones, so nothing can be placed",
        ));
    }
    if bone_count > ENGINE_MAX_BONES {
        warnings.push(format!("{bone_count} bones; the engine renders at most {ENGINE_MAX_BONES}"));
    }

    let compressed = header.ofs_frames < 0;
    let frames = read_frames(r, header.ofs_frames, frame_count, bone_count)?;
    let mut lods = Vec::new();
    let ofs_lods = offset_from(r, 0, header.ofs_lods, "ofsLODs", HDR_OFS_LODS)?;
    read_lods(r, ofs_lods, lod_count, bone_count, &mut lods, &mut warnings)?;
    if lods.is_empty() {
        warnings.push("no LODs: the model has nothing to draw".into());
    }
    let ofs_tags = offset_from(r, 0, header.ofs_tags, "ofsTags", HDR_OFS_TAGS)?;
    let tags = read_tags(r, ofs_tags, tag_count, bone_count)?;

    Ok(MdrModel {
        name,
        version: VERSION,
        compressed,
        // numBones fits an i32, so it fits a u32.
        bone_count: u32::try_from(bone_count).unwrap_or(u32::MAX),
        frames,
        lods,
        tags,
        header,
        warnings,
    })
}

fn read_frames(r: &Reader, ofs_frames: i32, frame_count: u64, bone_count: u64) -> DecodeResult<Vec<Frame>> {
    let compressed = ofs_frames < 0;
    let start = u64::from(ofs_frames.unsigned_abs());
    let (header_size, bone_size) =
        if compressed { (COMP_FRAME_HEADER_SIZE, COMP_BONE_SIZE) } else { (FRAME_HEADER_SIZE, BONE_SIZE) };
    let frame_size = bone_count
        .checked_mul(bone_size)
        .and_then(|b| b.checked_add(header_size))
        .ok_or_else(|| r.error("frames", start, ErrorKind::Overflow))?;
    let table = r.table(start, frame_count, frame_size, "frames")?;
    let mut frames = Vec::with_capacity(usize::try_from(frame_count).unwrap_or(0));
    for index in 0..frame_count {
        let at = table.record(index);
        let frame =
            read_frame(r, at, compressed, bone_count, header_size).map_err(|e| e.within(&format!("frame[{index}]")))?;
        frames.push(frame);
    }
    Ok(frames)
}

fn read_frame(r: &Reader, at: u64, compressed: bool, bone_count: u64, header_size: u64) -> DecodeResult<Frame> {
    let vec3 = |offset: u64, field: &str| r.f32s::<3>(at + offset, field).map(Vec3::from_array);
    let name = if compressed { String::new() } else { r.cstr(at + FRAME_NAME, FRAME_NAME_LEN, "name")? };
    let bones_at = at + header_size;
    // The frame was checked to fit, so the bone count fits in memory as well as in the file.
    let mut bones = Vec::with_capacity(usize::try_from(bone_count).unwrap_or(0));
    for bone in 0..bone_count {
        if compressed {
            let bone_at = bones_at + bone * COMP_BONE_SIZE;
            let bytes = r.bytes(bone_at, COMP_BONE_SIZE, "compressed bone")?;
            let mut values = [0u16; COMP_BONE_VALUES];
            for (k, value) in values.iter_mut().enumerate() {
                *value = le_u16(bytes, k * 2).unwrap_or(0);
            }
            bones.push(uncompress_bone(&values));
        } else {
            let bone_at = bones_at + bone * BONE_SIZE;
            let m = r.f32s::<12>(bone_at, "bone").and_then(|m| finite(r, m, "bone", bone_at));
            let m = m.map_err(|e| DecodeError { field: format!("bone[{bone}]"), ..e })?;
            let mut matrix = [[0.0; 4]; 3];
            for (row, stored) in matrix.iter_mut().zip(m.chunks_exact(4)) {
                row.copy_from_slice(stored);
            }
            bones.push(matrix);
        }
    }
    Ok(Frame {
        name,
        bounds_min: vec3(FRAME_BOUNDS_MIN, "bounds min")?,
        bounds_max: vec3(FRAME_BOUNDS_MAX, "bounds max")?,
        local_origin: vec3(FRAME_LOCAL_ORIGIN, "local origin")?,
        radius: r.f32(at + FRAME_RADIUS, "radius")?,
        bones,
    })
}

/// Follows the LOD chain. A chain that comes back to an LOD it has read is a warning, and the
/// LODs read before it are kept.
fn read_lods(
    r: &Reader,
    first: u64,
    lod_count: u64,
    bone_count: u64,
    lods: &mut Vec<Lod>,
    warnings: &mut Vec<String>,
) -> DecodeResult<()> {
    let mut at = first;
    let mut visited = HashSet::new();
    // Bytes of surface data read so far, over all LODs; it may not exceed the object.
    let mut budget = Budget { used: 0, limit: r.len() };
    for index in 0..lod_count {
        if !visited.insert(at) {
            let back_to = lods.iter().position(|l| l.offset == at).unwrap_or(0);
            warnings.push(format!(
                "the LOD chain loops back to LOD {back_to} (offset {at:#x}) after {index} of {lod_count} LODs; \
                 the rest are ignored"
            ));
            break;
        }
        let what = format!("lod[{index}]");
        let lod = read_lod(r, at, bone_count, &mut budget, warnings).map_err(|e| e.within(&what))?;
        lods.push(lod);
        if index + 1 < lod_count {
            let ofs_end = r.i32(at + LOD_OFS_END, "ofsEnd").map_err(|e| e.within(&what))?;
            at = offset_from(r, at, ofs_end, "ofsEnd", at + LOD_OFS_END).map_err(|e| e.within(&what))?;
        }
    }
    Ok(())
}

struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    fn spend(&mut self, r: &Reader, bytes: u64, field: &str, at: u64) -> DecodeResult<()> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(r.invalid(
                field,
                at,
                format!(
                    "the LODs' surfaces describe more than the object's {} bytes: surfaces overlap or loop",
                    self.limit
                ),
            ));
        }
        Ok(())
    }
}

fn read_lod(
    r: &Reader,
    at: u64,
    bone_count: u64,
    budget: &mut Budget,
    warnings: &mut Vec<String>,
) -> DecodeResult<Lod> {
    r.bytes(at, LOD_SIZE, "LOD record")?;
    let surface_count = count(r, at + LOD_NUM_SURFACES, "numSurfaces")?;
    let ofs_surfaces = r.i32(at + LOD_OFS_SURFACES, "ofsSurfaces")?;
    let mut surface_at = offset_from(r, at, ofs_surfaces, "ofsSurfaces", at + LOD_OFS_SURFACES)?;
    let mut surfaces = Vec::new();
    for index in 0..surface_count {
        let what = format!("surface[{index}]");
        let (surface, ofs_end) =
            read_surface(r, surface_at, bone_count, budget, warnings).map_err(|e| e.within(&what))?;
        surfaces.push(surface);
        surface_at = surface_at.checked_add(ofs_end).ok_or_else(|| r.error(what, surface_at, ErrorKind::Overflow))?;
    }
    Ok(Lod { offset: at, surfaces })
}

/// One surface and its `ofsEnd` (where the next surface starts, relative to this one).
fn read_surface(
    r: &Reader,
    at: u64,
    bone_count: u64,
    budget: &mut Budget,
    warnings: &mut Vec<String>,
) -> DecodeResult<(Surface, u64)> {
    r.bytes(at, SURFACE_SIZE, "surface record")?;
    budget.spend(r, SURFACE_SIZE, "surface record", at)?;
    let name = r.cstr(at + SURF_NAME, NAME_LEN, "name")?;
    let shader = r.cstr(at + SURF_SHADER, NAME_LEN, "shader")?;
    let vertex_count = count(r, at + SURF_NUM_VERTS, "numVerts")?;
    let triangle_count = count(r, at + SURF_NUM_TRIANGLES, "numTriangles")?;
    let ofs_end_at = at + SURF_OFS_END;
    let ofs_end = r.i32(ofs_end_at, "ofsEnd")?;
    // A surface ends after its own header, so the chain always moves forward.
    let ofs_end = u64::try_from(ofs_end)
        .ok()
        .filter(|&end| end >= SURFACE_SIZE)
        .ok_or_else(|| r.invalid("ofsEnd", ofs_end_at, format!("{ofs_end} ends inside the 168-byte surface header")))?;
    let label = if name.is_empty() { format!("surface at {at:#x}") } else { format!("surface {name}") };
    if vertex_count >= ENGINE_MAX_SURFACE_VERTICES {
        warnings.push(format!(
            "{label}: {vertex_count} vertices; the engine refuses surfaces with {ENGINE_MAX_SURFACE_VERTICES} or more"
        ));
    }
    if triangle_count.saturating_mul(3) >= ENGINE_MAX_SURFACE_INDICES {
        warnings.push(format!(
            "{label}: {triangle_count} triangles; the engine refuses surfaces with {} or more",
            ENGINE_MAX_SURFACE_INDICES / 3
        ));
    }

    let ofs_verts = r.i32(at + SURF_OFS_VERTS, "ofsVerts")?;
    let verts_at = offset_from(r, at, ofs_verts, "ofsVerts", at + SURF_OFS_VERTS)?;
    let (vertices, weights) = read_vertices(r, verts_at, vertex_count, bone_count, budget)?;
    if weights.is_empty() && !vertices.is_empty() {
        warnings.push(format!("{label}: no vertex has a weight, so every vertex sits at the origin"));
    } else if vertices.iter().any(|v| v.weight_count == 0) {
        warnings.push(format!("{label}: some vertices have no weights and sit at the origin"));
    }
    let unbalanced = vertices
        .iter()
        .filter_map(|v| weights.get(v.first_weight as usize..)?.get(..v.weight_count as usize))
        .filter(|own| !own.is_empty() && (own.iter().map(|w| w.weight).sum::<f32>() - 1.0).abs() > 1e-3)
        .count();
    if unbalanced > 0 {
        warnings.push(format!("{label}: {unbalanced} vertices have weights that do not sum to 1"));
    }

    let ofs_triangles = r.i32(at + SURF_OFS_TRIANGLES, "ofsTriangles")?;
    let tris_at = offset_from(r, at, ofs_triangles, "ofsTriangles", at + SURF_OFS_TRIANGLES)?;
    let table = r.table(tris_at, triangle_count, TRIANGLE_SIZE, "triangles")?;
    budget.spend(r, table.end() - table.offset, "triangles", tris_at)?;
    let mut triangles = Vec::with_capacity(usize::try_from(triangle_count).unwrap_or(0));
    for index in 0..triangle_count {
        let tri_at = table.record(index);
        let mut triangle = [0u32; 3];
        for (corner, slot) in triangle.iter_mut().enumerate() {
            let corner_at = tri_at + corner as u64 * 4;
            let stored = r.i32(corner_at, "triangle")?;
            *slot = u32::try_from(stored).ok().filter(|&v| u64::from(v) < vertex_count).ok_or_else(|| {
                r.invalid(
                    format!("triangle[{index}]"),
                    corner_at,
                    format!("vertex index {stored} is not below numVerts {vertex_count}"),
                )
            })?;
        }
        triangles.push(triangle);
    }

    let surface = Surface {
        offset: at,
        ident: r.i32(at + SURF_IDENT, "ident")?,
        name,
        shader,
        shader_index: r.i32(at + SURF_SHADER_INDEX, "shaderIndex")?,
        ofs_header: r.i32(at + SURF_OFS_HEADER, "ofsHeader")?,
        bone_ref_count: r.i32(at + SURF_NUM_BONE_REFS, "numBoneReferences")?,
        vertices,
        weights,
        triangles,
    };
    Ok((surface, ofs_end))
}

/// Variable-size vertex records (24 bytes + 20 per weight), one after another.
fn read_vertices(
    r: &Reader,
    start: u64,
    vertex_count: u64,
    bone_count: u64,
    budget: &mut Budget,
) -> DecodeResult<(Vec<Vertex>, Vec<Weight>)> {
    // Each vertex is at least its 24-byte header: check that much before allocating.
    r.table(start, vertex_count, VERTEX_HEADER_SIZE, "vertices")?;
    let mut vertices = Vec::with_capacity(usize::try_from(vertex_count).unwrap_or(0));
    let mut weights = Vec::new();
    let mut at = start;
    for index in 0..vertex_count {
        let (vertex, end) =
            read_vertex(r, at, bone_count, &mut weights).map_err(|e| e.within(&format!("vertex[{index}]")))?;
        budget.spend(r, end - at, "vertices", at)?;
        vertices.push(vertex);
        at = end;
    }
    Ok((vertices, weights))
}

/// One vertex record at `at`, its weights appended to `weights`; returns it and where it ends.
/// Field names are static here and the caller adds the vertex index, so the hot path formats
/// nothing.
fn read_vertex(r: &Reader, at: u64, bone_count: u64, weights: &mut Vec<Weight>) -> DecodeResult<(Vertex, u64)> {
    let normal = finite(r, r.f32s::<3>(at + VERT_NORMAL, "normal")?, "normal", at + VERT_NORMAL)?;
    let tex_at = at + VERT_TEX_COORDS;
    let tex = finite(r, r.f32s::<2>(tex_at, "texCoords")?, "texCoords", tex_at)?;
    let weight_count = count(r, at + VERT_NUM_WEIGHTS, "numWeights")?;
    let table = r.table(at + VERTEX_HEADER_SIZE, weight_count, WEIGHT_SIZE, "weights")?;
    let first_weight = u32::try_from(weights.len()).map_err(|_| r.error("weights", at, ErrorKind::Overflow))?;
    for w in 0..weight_count {
        let weight = read_weight(r, table.record(w), bone_count).map_err(|e| e.within(&format!("weight[{w}]")))?;
        weights.push(weight);
    }
    let vertex = Vertex {
        normal: Vec3::from_array(normal),
        tex_coords: Vec2::from_array(tex),
        first_weight,
        weight_count: u32::try_from(weight_count).unwrap_or(u32::MAX),
    };
    Ok((vertex, table.end()))
}

fn read_weight(r: &Reader, at: u64, bone_count: u64) -> DecodeResult<Weight> {
    let bone = r.i32(at + WEIGHT_BONE, "boneIndex")?;
    let bone = u32::try_from(bone).ok().filter(|&b| u64::from(b) < bone_count).ok_or_else(|| {
        r.invalid("boneIndex", at + WEIGHT_BONE, format!("bone index {bone} is not below numBones {bone_count}"))
    })?;
    let value_at = at + WEIGHT_VALUE;
    let [weight] = finite(r, [r.f32(value_at, "boneWeight")?], "boneWeight", value_at)?;
    let offset_at = at + WEIGHT_OFFSET;
    let offset = finite(r, r.f32s::<3>(offset_at, "offset")?, "offset", offset_at)?;
    Ok(Weight { bone, weight, offset: Vec3::from_array(offset) })
}

fn read_tags(r: &Reader, start: u64, tag_count: u64, bone_count: u64) -> DecodeResult<Vec<Tag>> {
    let table = r.table(start, tag_count, TAG_SIZE, "tags")?;
    let mut tags = Vec::with_capacity(usize::try_from(tag_count).unwrap_or(0));
    for index in 0..tag_count {
        let at = table.record(index);
        let field = |name: &str| format!("tag[{index}].{name}");
        let bone = r.i32(at + TAG_BONE, &field("boneIndex"))?;
        let bone = u32::try_from(bone).ok().filter(|&b| u64::from(b) < bone_count).ok_or_else(|| {
            r.invalid(
                field("boneIndex"),
                at + TAG_BONE,
                format!("bone index {bone} is not below numBones {bone_count}"),
            )
        })?;
        tags.push(Tag { name: r.cstr(at + TAG_NAME, TAG_NAME_LEN, &field("name"))?, bone });
    }
    Ok(tags)
}
