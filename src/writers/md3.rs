//! A Quake 3 `.md3` encoder for fixtures and fuzz seeds: writes an [`Md3File`] (as
//! [`md3::read`] gives it) back in id's layout: header, frames, tags
//! frame by frame, then each surface with its shaders, triangles, texture coordinates and
//! vertices.

use super::le::{count, f32s, i32s};
use crate::formats::md3::{self, Md3File, Surface};

fn name(out: &mut Vec<u8>, text: &str, len: usize) {
    let mut field = vec![0u8; len];
    for (slot, b) in field.iter_mut().zip(text.bytes().take(len - 1)) {
        *slot = b;
    }
    out.extend(field);
}

fn surface_bytes(surface: &Surface, frame_count: usize) -> Vec<u8> {
    let header = md3::SURFACE_HEADER_SIZE as usize;
    let ofs_shaders = header;
    let ofs_triangles = ofs_shaders + surface.shaders.len() * md3::SHADER_SIZE as usize;
    let ofs_st = ofs_triangles + surface.triangles.len() * md3::TRIANGLE_SIZE as usize;
    let ofs_vertices = ofs_st + surface.st.len() * md3::ST_SIZE as usize;
    let ofs_end = ofs_vertices + surface.vertices.len() * md3::VERTEX_SIZE as usize;
    let mut out = Vec::with_capacity(ofs_end);
    out.extend(md3::MAGIC);
    name(&mut out, &surface.name, 64);
    i32s(&mut out, &[surface.flags, count(frame_count), count(surface.shaders.len()), count(surface.vertex_count)]);
    i32s(&mut out, &[count(surface.triangles.len()), count(ofs_triangles), count(ofs_shaders), count(ofs_st)]);
    i32s(&mut out, &[count(ofs_vertices), count(ofs_end)]);
    for (shader, index) in &surface.shaders {
        name(&mut out, shader, 64);
        i32s(&mut out, &[*index]);
    }
    for t in &surface.triangles {
        i32s(&mut out, &t.map(|i| i32::try_from(i).unwrap_or(i32::MAX)));
    }
    for st in &surface.st {
        f32s(&mut out, st);
    }
    for v in &surface.vertices {
        for c in v.xyz {
            out.extend(c.to_le_bytes());
        }
        out.extend(v.normal.to_le_bytes());
    }
    out
}

/// The file's bytes.
pub fn write(file: &Md3File) -> Vec<u8> {
    let frames = file.frames.len();
    let tags = file.tag_names.len();
    let ofs_frames = md3::HEADER_SIZE as usize;
    let ofs_tags = ofs_frames + frames * md3::FRAME_SIZE as usize;
    let ofs_surfaces = ofs_tags + frames * tags * md3::TAG_SIZE as usize;
    let surfaces: Vec<Vec<u8>> = file.surfaces.iter().map(|s| surface_bytes(s, frames)).collect();
    let ofs_end = ofs_surfaces + surfaces.iter().map(Vec::len).sum::<usize>();
    let mut out = Vec::with_capacity(ofs_end);
    out.extend(md3::MAGIC);
    i32s(&mut out, &[md3::VERSION]);
    name(&mut out, &file.name, 64);
    i32s(&mut out, &[file.flags, count(frames), count(tags), count(surfaces.len()), file.skin_count]);
    i32s(&mut out, &[count(ofs_frames), count(ofs_tags), count(ofs_surfaces), count(ofs_end)]);
    for f in &file.frames {
        f32s(&mut out, &f.bounds[0].to_array());
        f32s(&mut out, &f.bounds[1].to_array());
        f32s(&mut out, &f.local_origin.to_array());
        f32s(&mut out, &[f.radius]);
        name(&mut out, &f.name, 16);
    }
    for frame in 0..frames {
        for (t, tag_name) in file.tag_names.iter().enumerate() {
            let tag = file.tags.get(frame).and_then(|f| f.get(t));
            name(&mut out, tag_name, 64);
            let origin = tag.map_or([0.0; 3], |t| t.origin.to_array());
            f32s(&mut out, &origin);
            let axes =
                tag.map_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], |t| t.axes.map(|a| a.to_array()));
            for axis in axes {
                f32s(&mut out, &axis);
            }
        }
    }
    for s in surfaces {
        out.extend(s);
    }
    out
}

/// A small model for tests and seeds: one square surface of two triangles, `frames` frames in
/// which its far edge rises one unit per frame, and a `tag_flash` that climbs with it.
pub fn sample(frames: usize) -> Md3File {
    use glam::Vec3;
    let frame_list = (0..frames)
        .map(|f| md3::Frame {
            bounds: [Vec3::ZERO, Vec3::new(1.0, 1.0, f as f32)],
            local_origin: Vec3::ZERO,
            radius: 1.5,
            name: format!("wave{f}"),
        })
        .collect();
    let tags = (0..frames)
        .map(|f| {
            vec![md3::Tag {
                name: "tag_flash".into(),
                origin: Vec3::new(1.0, 0.0, f as f32),
                axes: [Vec3::X, Vec3::Y, Vec3::Z],
            }]
        })
        .collect();
    let vertices = (0..frames)
        .flat_map(|f| {
            let up = i16::try_from(f * 64).unwrap_or(i16::MAX);
            // Normal: latitude 0, longitude 0 is +Z.
            [[0, 0, 0], [64, 0, up], [64, 64, up], [0, 64, 0]].map(|xyz| md3::Vertex { xyz, normal: 0 })
        })
        .collect();
    Md3File {
        name: "sample".into(),
        flags: 0,
        frames: frame_list,
        tag_names: vec!["tag_flash".into()],
        tags,
        surfaces: vec![Surface {
            name: "square".into(),
            flags: 0,
            shaders: vec![("models/sample/square.tga".into(), 0)],
            // Clockwise seen from +Z, as Quake 3 stores front faces.
            triangles: vec![[0, 2, 1], [0, 3, 2]],
            st: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            vertex_count: 4,
            vertices,
            offset: 0,
        }],
        skin_count: 0,
        warnings: Vec::new(),
    }
}
