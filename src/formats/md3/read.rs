//! Reading an `.md3` as stored: the header, frames, tags and every surface, each offset and
//! count checked against the bytes before anything is read or allocated.

use glam::Vec3;

use super::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

/// A count from the file: non-negative, else an error naming the field.
fn count(r: &Reader, offset: u64, field: &str) -> DecodeResult<u64> {
    let value = r.i32(offset, field)?;
    u64::try_from(value).map_err(|_| r.invalid(field, offset, format!("is negative ({value})")))
}

/// An offset from the file relative to `base`: non-negative, else an error naming the field.
fn offset_from(r: &Reader, base: u64, at: u64, field: &str) -> DecodeResult<u64> {
    let value = r.i32(at, field)?;
    let relative = u64::try_from(value).map_err(|_| r.invalid(field, at, format!("is negative ({value})")))?;
    base.checked_add(relative).ok_or_else(|| r.invalid(field, at, "overflows"))
}

fn vec3(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec3> {
    Ok(Vec3::from_array(r.f32s::<3>(at, field)?))
}

fn over_limit(warnings: &mut Vec<String>, what: &str, value: u64, limit: u64) {
    if value > limit {
        warnings.push(format!("{value} {what}, more than the engine's {limit}: Quake 3 would refuse this file"));
    }
}

/// Reads and validates every part of the file.
pub fn read(data: &[u8]) -> DecodeResult<Md3File> {
    let r = Reader::new(data, FORMAT);
    let ident = r.bytes(0, 4, "ident")?;
    if ident != MAGIC {
        return Err(r.invalid("ident", 0, "not IDP3"));
    }
    let version = r.i32(4, "version")?;
    if version != VERSION {
        return Err(r.invalid("version", 4, format!("is {version}, not {VERSION}")));
    }
    let name = r.cstr(8, NAME_LEN, "name")?;
    let flags = r.i32(72, "flags")?;
    let frame_count = count(&r, 76, "numFrames")?;
    let tag_count = count(&r, 80, "numTags")?;
    let surface_count = count(&r, 84, "numSurfaces")?;
    let skin_count = r.i32(88, "numSkins")?;
    let ofs_frames = offset_from(&r, 0, 92, "ofsFrames")?;
    let ofs_tags = offset_from(&r, 0, 96, "ofsTags")?;
    let ofs_surfaces = offset_from(&r, 0, 100, "ofsSurfaces")?;
    let ofs_end = r.i32(104, "ofsEnd")?;
    let mut warnings = Vec::new();
    if frame_count == 0 {
        return Err(r.invalid("numFrames", 76, "is 0: a model needs at least one frame"));
    }
    over_limit(&mut warnings, "frames", frame_count, MAX_FRAMES);
    over_limit(&mut warnings, "tags", tag_count, MAX_TAGS);
    over_limit(&mut warnings, "surfaces", surface_count, MAX_SURFACES);
    if i64::from(ofs_end) != data.len() as i64 {
        warnings.push(format!("ofsEnd is {ofs_end} but the file has {} bytes", data.len()));
    }

    let frame_table = r.table(ofs_frames, frame_count, FRAME_SIZE, "frames")?;
    let mut frames = Vec::with_capacity(frame_count as usize);
    for f in 0..frame_count {
        let at = frame_table.record(f);
        let field = |part: &str| format!("frame[{f}].{part}");
        frames.push(Frame {
            bounds: [vec3(&r, at, &field("bounds"))?, vec3(&r, at + 12, &field("bounds"))?],
            local_origin: vec3(&r, at + 24, &field("localOrigin"))?,
            radius: r.f32(at + 36, &field("radius"))?,
            name: r.cstr(at + 40, FRAME_NAME_LEN, &field("name"))?,
        });
    }

    let tags_per_file = frame_count.checked_mul(tag_count).ok_or_else(|| r.invalid("numTags", 80, "overflows"))?;
    let tag_table = r.table(ofs_tags, tags_per_file, TAG_SIZE, "tags")?;
    let mut tags = Vec::with_capacity(frame_count as usize);
    for f in 0..frame_count {
        let mut frame_tags = Vec::with_capacity(tag_count as usize);
        for t in 0..tag_count {
            let at = tag_table.record(f * tag_count + t);
            let field = |part: &str| format!("tag[{f}][{t}].{part}");
            frame_tags.push(Tag {
                name: r.cstr(at, NAME_LEN, &field("name"))?,
                origin: vec3(&r, at + 64, &field("origin"))?,
                axes: [
                    vec3(&r, at + 76, &field("axis"))?,
                    vec3(&r, at + 88, &field("axis"))?,
                    vec3(&r, at + 100, &field("axis"))?,
                ],
            });
        }
        tags.push(frame_tags);
    }
    let tag_names: Vec<String> = tags.first().map(|t| t.iter().map(|t| t.name.clone()).collect()).unwrap_or_default();
    if tags.iter().any(|frame| frame.iter().map(|t| &t.name).ne(tag_names.iter())) {
        warnings.push("tag names differ between frames; tags follow the order of frame 0".into());
    }

    // Each surface header is at least 108 bytes, so the count is checked against the bytes left.
    r.table(ofs_surfaces, surface_count, SURFACE_HEADER_SIZE, "surfaces")?;
    let mut surfaces = Vec::with_capacity(surface_count as usize);
    let mut at = ofs_surfaces;
    for s in 0..surface_count {
        let surface =
            read_surface(&r, at, frame_count, &mut warnings).map_err(|e| e.within(&format!("surface[{s}]")))?;
        let next = offset_from(&r, at, at + 104, &format!("surface[{s}].ofsEnd"))?;
        if next <= at {
            return Err(r.invalid(format!("surface[{s}].ofsEnd"), at + 104, "does not move past the surface"));
        }
        surfaces.push(surface);
        at = next;
    }
    Ok(Md3File { name, flags, frames, tag_names, tags, surfaces, skin_count, warnings })
}

fn read_surface(r: &Reader, at: u64, frame_count: u64, warnings: &mut Vec<String>) -> DecodeResult<Surface> {
    let ident = r.bytes(at, 4, "ident")?;
    if ident != MAGIC {
        return Err(r.invalid("ident", at, "not IDP3"));
    }
    let name = r.cstr(at + 4, NAME_LEN, "name")?;
    let flags = r.i32(at + 68, "flags")?;
    let surface_frames = count(r, at + 72, "numFrames")?;
    let shader_count = count(r, at + 76, "numShaders")?;
    let vertex_count = count(r, at + 80, "numVerts")?;
    let triangle_count = count(r, at + 84, "numTriangles")?;
    let ofs_triangles = offset_from(r, at, at + 88, "ofsTriangles")?;
    let ofs_shaders = offset_from(r, at, at + 92, "ofsShaders")?;
    let ofs_st = offset_from(r, at, at + 96, "ofsSt")?;
    let ofs_vertices = offset_from(r, at, at + 100, "ofsXyzNormals")?;
    if surface_frames < frame_count {
        return Err(r.invalid(
            "numFrames",
            at + 72,
            format!("is {surface_frames}, fewer than the model's {frame_count}"),
        ));
    }
    if surface_frames > frame_count {
        warnings.push(format!(
            "surface {name}: {surface_frames} frames, more than the model's {frame_count}; the rest are unused"
        ));
    }
    over_limit(warnings, &format!("vertices in surface {name}"), vertex_count, MAX_VERTS);
    over_limit(warnings, &format!("triangles in surface {name}"), triangle_count, MAX_TRIANGLES);
    over_limit(warnings, &format!("shaders in surface {name}"), shader_count, MAX_SHADERS);

    let shader_table = r.table(ofs_shaders, shader_count, SHADER_SIZE, "shaders")?;
    let mut shaders = Vec::with_capacity(shader_count as usize);
    for i in 0..shader_count {
        let at = shader_table.record(i);
        shaders.push((r.cstr(at, NAME_LEN, &format!("shader[{i}].name"))?, r.i32(at + 64, "shaderIndex")?));
    }

    let triangle_table = r.table(ofs_triangles, triangle_count, TRIANGLE_SIZE, "triangles")?;
    let mut triangles = Vec::with_capacity(triangle_count as usize);
    for i in 0..triangle_count {
        let at = triangle_table.record(i);
        let mut corners = [0u32; 3];
        for (k, corner) in corners.iter_mut().enumerate() {
            let offset = at + 4 * k as u64;
            let index = r.i32(offset, "triangle index")?;
            *corner = u32::try_from(index).ok().filter(|&v| u64::from(v) < vertex_count).ok_or_else(|| {
                r.invalid(
                    format!("triangle[{i}]"),
                    offset,
                    format!("index {index} is not below numVerts {vertex_count}"),
                )
            })?;
        }
        triangles.push(corners);
    }

    let st_table = r.table(ofs_st, vertex_count, ST_SIZE, "st")?;
    let mut st = Vec::with_capacity(vertex_count as usize);
    for i in 0..vertex_count {
        st.push(r.f32s::<2>(st_table.record(i), "st")?);
    }

    let all = frame_count.checked_mul(vertex_count).ok_or_else(|| r.invalid("numVerts", at + 80, "overflows"))?;
    let vertex_table = r.table(ofs_vertices, all, VERTEX_SIZE, "xyzNormals")?;
    let bytes = r.bytes(vertex_table.offset, all * VERTEX_SIZE, "xyzNormals")?;
    let vertices = bytes
        .as_chunks::<8>()
        .0
        .iter()
        .map(|v| Vertex {
            xyz: [i16::from_le_bytes([v[0], v[1]]), i16::from_le_bytes([v[2], v[3]]), i16::from_le_bytes([v[4], v[5]])],
            normal: u16::from_le_bytes([v[6], v[7]]),
        })
        .collect();
    Ok(Surface { name, flags, shaders, triangles, st, vertex_count: vertex_count as usize, vertices, offset: at })
}
