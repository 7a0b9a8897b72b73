//! A Quake `.mdl` encoder for fixtures and fuzz seeds: writes an [`MdlFile`] (as
//! [`mdl::read`] gives it) back in Quake's layout, trailing bytes
//! included.

use glam::Vec3;

use super::le::{count, f32s, i32s};
use crate::formats::mdl::{self, Frame, Header, MdlFile, Pose, Skin, StVert, Triangle};

fn pose(out: &mut Vec<u8>, pose: &Pose) {
    out.extend(pose.bounds.iter().flatten());
    let mut name = [0u8; 16];
    for (slot, b) in name.iter_mut().zip(pose.name.bytes().take(15)) {
        *slot = b;
    }
    out.extend(name);
    out.extend(pose.vertices.iter().flatten());
}

/// The file's bytes (the header's counts are written from the lists).
pub fn write(file: &MdlFile) -> Vec<u8> {
    let h = &file.header;
    let mut out = Vec::new();
    out.extend(mdl::MAGIC);
    i32s(&mut out, &[mdl::VERSION]);
    f32s(&mut out, &h.scale.to_array());
    f32s(&mut out, &h.origin.to_array());
    f32s(&mut out, &[h.radius]);
    f32s(&mut out, &h.eye.to_array());
    let vertex_count = file.st.len();
    i32s(&mut out, &[count(file.skins.len()), h.skin_width as i32, h.skin_height as i32, count(vertex_count)]);
    i32s(&mut out, &[count(file.triangles.len()), count(file.frames.len()), h.synctype, h.flags]);
    f32s(&mut out, &[h.size]);
    for skin in &file.skins {
        match skin {
            Skin::Single(picture) => {
                i32s(&mut out, &[0]);
                out.extend(picture);
            }
            Skin::Group { intervals, pictures } => {
                i32s(&mut out, &[1, count(pictures.len())]);
                f32s(&mut out, intervals);
                pictures.iter().for_each(|p| out.extend(p));
            }
        }
    }
    for st in &file.st {
        i32s(&mut out, &[i32::from(st.on_seam) * 0x20, st.s, st.t]);
    }
    for t in &file.triangles {
        i32s(&mut out, &[i32::from(t.faces_front)]);
        i32s(&mut out, &t.vertices.map(|v| v as i32));
    }
    for frame in &file.frames {
        match frame {
            Frame::Single(p) => {
                i32s(&mut out, &[0]);
                pose(&mut out, p);
            }
            Frame::Group { bounds, intervals, poses } => {
                i32s(&mut out, &[1, count(poses.len())]);
                out.extend(bounds.iter().flatten());
                f32s(&mut out, intervals);
                poses.iter().for_each(|p| pose(&mut out, p));
            }
        }
    }
    out.extend(&file.trailing);
    out
}

/// A small model for tests and seeds: a 4×2 skin (a single one and a group of two), a quad of
/// two triangles whose vertex 1 sits on the seam and whose second triangle faces back, two
/// simple frames `walk1`, `walk2` in which vertex 2 rises one unit per frame, then a frame
/// group of two poses at 0.1 and 0.3 s.
pub fn sample() -> MdlFile {
    let pose = |name: &str, z: u8| Pose {
        name: name.into(),
        bounds: [[0, 0, 0, 0], [4, 4, 4, 0]],
        vertices: vec![[0, 0, 0, 5], [2, 0, 0, 5], [2, 2, z, 5], [0, 2, 0, 5]],
    };
    MdlFile {
        header: Header {
            scale: Vec3::splat(0.5),
            origin: Vec3::new(-1.0, 0.0, 0.0),
            radius: 2.0,
            eye: Vec3::ZERO,
            skin_count: 2,
            skin_width: 4,
            skin_height: 2,
            vertex_count: 4,
            triangle_count: 2,
            frame_count: 3,
            synctype: 0,
            flags: 8,
            size: 1.0,
        },
        skins: vec![
            Skin::Single((0..8).collect()),
            Skin::Group { intervals: vec![0.1, 0.2], pictures: vec![vec![15; 8], vec![251; 8]] },
        ],
        st: vec![
            StVert { on_seam: false, s: 0, t: 0 },
            StVert { on_seam: true, s: 1, t: 0 },
            StVert { on_seam: false, s: 1, t: 1 },
            StVert { on_seam: false, s: 0, t: 1 },
        ],
        triangles: vec![
            Triangle { faces_front: true, vertices: [0, 2, 1] },
            Triangle { faces_front: false, vertices: [0, 3, 1] },
        ],
        frames: vec![
            Frame::Single(pose("walk1", 0)),
            Frame::Single(pose("walk2", 2)),
            Frame::Group {
                bounds: [[0; 4], [4; 4]],
                intervals: vec![0.1, 0.3],
                poses: vec![pose("fly1", 4), pose("fly2", 6)],
            },
        ],
        trailing: Vec::new(),
        warnings: Vec::new(),
    }
}
