//! Reading an `.mdl` as stored, every count checked against the bytes that hold it before
//! anything sized by it is allocated.

use glam::Vec3;

use super::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

fn count(r: &Reader, at: u64, field: &str) -> DecodeResult<u32> {
    let value = r.i32(at, field)?;
    u32::try_from(value).map_err(|_| r.invalid(field, at, format!("is negative ({value})")))
}

fn vec3(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec3> {
    Ok(Vec3::from_array(r.f32s::<3>(at, field)?))
}

fn read_header(r: &Reader) -> DecodeResult<Header> {
    if r.bytes(0, 4, "ident")? != MAGIC {
        return Err(r.invalid("ident", 0, "not IDPO"));
    }
    let version = r.i32(4, "version")?;
    if version != VERSION {
        return Err(r.invalid("version", 4, format!("is {version}, not {VERSION}")));
    }
    let header = Header {
        scale: vec3(r, 8, "scale")?,
        origin: vec3(r, 20, "scale_origin")?,
        radius: r.f32(32, "boundingradius")?,
        eye: vec3(r, 36, "eyeposition")?,
        skin_count: count(r, 48, "numskins")?,
        skin_width: count(r, 52, "skinwidth")?,
        skin_height: count(r, 56, "skinheight")?,
        vertex_count: count(r, 60, "numverts")?,
        triangle_count: count(r, 64, "numtris")?,
        frame_count: count(r, 68, "numframes")?,
        synctype: r.i32(72, "synctype")?,
        flags: r.i32(76, "flags")?,
        size: r.f32(80, "size")?,
    };
    // Mod_LoadAliasModel refuses these.
    for (value, field, at) in [
        (header.vertex_count, "numverts", 60),
        (header.triangle_count, "numtris", 64),
        (header.frame_count, "numframes", 68),
    ] {
        if value == 0 {
            return Err(r.invalid(field, at, "is 0"));
        }
    }
    if !(header.scale.is_finite() && header.origin.is_finite()) {
        return Err(r.invalid("scale", 8, "is not finite"));
    }
    Ok(header)
}

/// Intervals as stored, each checked to be a finite time after the one before.
fn intervals(r: &Reader, at: u64, n: u64, field: &str, warnings: &mut Vec<String>) -> DecodeResult<Vec<f32>> {
    let table = r.table(at, n, 4, field)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        out.push(r.f32(table.record(i), field)?);
    }
    let mut last = 0.0;
    for v in &out {
        if !(v.is_finite() && *v > last) {
            warnings.push(format!("{field} at {at:#x}: {v} does not follow {last}; poses are spaced 0.1 s apart"));
            return Ok((1..=n).map(|i| i as f32 * 0.1).collect());
        }
        last = *v;
    }
    Ok(out)
}

fn read_pose(r: &Reader, at: u64, vertex_count: u64, field: &str) -> DecodeResult<(Pose, u64)> {
    let bounds = [r.u32(at, field)?.to_le_bytes(), r.u32(at + 4, field)?.to_le_bytes()];
    let name = r.cstr(at + 8, 16, &format!("{field}.name"))?;
    let records = r.bytes(at + POSE_HEADER_SIZE, vertex_count * 4, &format!("{field}.verts"))?;
    let vertices = records.as_chunks::<4>().0.to_vec();
    Ok((Pose { name, bounds, vertices }, at + POSE_HEADER_SIZE + vertex_count * 4))
}

/// Reads and validates the whole file.
pub fn read(data: &[u8]) -> DecodeResult<MdlFile> {
    let r = Reader::new(data, FORMAT);
    let header = read_header(&r)?;
    let mut warnings = Vec::new();
    let picture = u64::from(header.skin_width) * u64::from(header.skin_height);
    if header.skin_width % 4 != 0 {
        warnings.push(format!("skinwidth {} is not a multiple of 4, which Quake requires", header.skin_width));
    }
    let mut at = HEADER_SIZE;
    // Each skin is at least its type word and one picture: the count is checked before the list.
    r.table(at, u64::from(header.skin_count), 4 + picture, "skins")?;
    let mut skins = Vec::with_capacity(header.skin_count as usize);
    for s in 0..header.skin_count {
        let field = format!("skin[{s}]");
        let kind = r.i32(at, &format!("{field}.type"))?;
        at += 4;
        if kind == 0 {
            skins.push(Skin::Single(r.bytes(at, picture, &field)?.to_vec()));
            at += picture;
            continue;
        }
        let n = u64::from(count(&r, at, &format!("{field}.numskins"))?);
        if n == 0 {
            return Err(r.invalid(format!("{field}.numskins"), at, "a skin group of no pictures"));
        }
        let times = intervals(&r, at + 4, n, &format!("{field}.intervals"), &mut warnings)?;
        at += 4 + 4 * n;
        let table = r.table(at, n, picture, &field)?;
        let pictures = (0..n)
            .map(|i| r.bytes(table.record(i), picture, &field).map(<[u8]>::to_vec))
            .collect::<DecodeResult<_>>()?;
        at = table.end();
        skins.push(Skin::Group { intervals: times, pictures });
    }

    let vertex_count = u64::from(header.vertex_count);
    let st_table = r.table(at, vertex_count, ST_SIZE, "stverts")?;
    let mut st = Vec::with_capacity(header.vertex_count as usize);
    for i in 0..vertex_count {
        let o = st_table.record(i);
        st.push(StVert { on_seam: r.i32(o, "onseam")? != 0, s: r.i32(o + 4, "s")?, t: r.i32(o + 8, "t")? });
    }
    at = st_table.end();

    let tri_table = r.table(at, u64::from(header.triangle_count), TRIANGLE_SIZE, "triangles")?;
    let mut triangles = Vec::with_capacity(header.triangle_count as usize);
    for i in 0..u64::from(header.triangle_count) {
        let o = tri_table.record(i);
        let faces_front = r.i32(o, "facesfront")? != 0;
        let mut vertices = [0u32; 3];
        for (k, v) in vertices.iter_mut().enumerate() {
            let field_at = o + 4 + 4 * k as u64;
            let index = r.i32(field_at, "vertindex")?;
            *v = u32::try_from(index).ok().filter(|&v| v < header.vertex_count).ok_or_else(|| {
                r.invalid(
                    format!("triangle[{i}].vertindex"),
                    field_at,
                    format!("{index} is not below numverts {vertex_count}"),
                )
            })?;
        }
        triangles.push(Triangle { faces_front, vertices });
    }
    at = tri_table.end();

    let pose_size = POSE_HEADER_SIZE + 4 * vertex_count;
    // Each frame is at least its type word and one pose.
    r.table(at, u64::from(header.frame_count), 4 + pose_size, "frames")?;
    let mut frames = Vec::with_capacity(header.frame_count as usize);
    for f in 0..header.frame_count {
        let field = format!("frame[{f}]");
        let kind = r.i32(at, &format!("{field}.type"))?;
        at += 4;
        if kind == 0 {
            let (pose, next) = read_pose(&r, at, vertex_count, &field)?;
            frames.push(Frame::Single(pose));
            at = next;
            continue;
        }
        let n = u64::from(count(&r, at, &format!("{field}.numframes"))?);
        if n == 0 {
            return Err(r.invalid(format!("{field}.numframes"), at, "a frame group of no poses"));
        }
        let bounds = [r.u32(at + 4, &field)?.to_le_bytes(), r.u32(at + 8, &field)?.to_le_bytes()];
        let times = intervals(&r, at + 12, n, &format!("{field}.intervals"), &mut warnings)?;
        at += 12 + 4 * n;
        r.table(at, n, pose_size, &field)?;
        let mut poses = Vec::with_capacity(n as usize);
        for p in 0..n {
            let (pose, next) = read_pose(&r, at, vertex_count, &format!("{field}.pose[{p}]"))?;
            poses.push(pose);
            at = next;
        }
        frames.push(Frame::Group { bounds, intervals: times, poses });
    }
    let trailing = r.bytes(at, r.len().saturating_sub(at), "trailing")?.to_vec();
    if !trailing.is_empty() {
        let what =
            if trailing.starts_with(b"QME") { " (a Quake Model Editor block, which engines ignore)" } else { "" };
        warnings.push(format!("{} bytes after the last frame{what}", trailing.len()));
    }
    Ok(MdlFile { header, skins, st, triangles, frames, trailing, warnings })
}
