//! The scene of a decoded `.md3`: a mesh node per surface (rest pose frame 0), a tag node per
//! tag, a material per surface naming its first shader, and a clip per run of frame names in
//! which every surface plays its frames ([`Channel::VertexFrames`]) and every tag follows its
//! per-frame origin and axes, blended as `R_LerpTag` blends them ([`Channel::NodeFrames`]);
//! past a moving clip's end each carries its first frame again, which a loop blends into as
//! Quake II's loops do ([`Clip::loop_blend`]).

use glam::{Mat3, Mat4, Quat, Vec2, Vec3};

use super::{FRAMES_PER_SECOND, Md3File, Surface, Tag, VERSION};
use crate::formats::frame_clips::group_frames;
use crate::formats::quake_axes::{matrix_to_scene, to_scene};
use crate::scene::{
    Aabb, Channel, Clip, DetailRow, DetailSection, FormatKind, Key, Material, Mesh, Node, NodeKind, RawField, Scene,
    SceneKind, Submesh,
};

/// A tag's placement in scene axes: its axes (normalised, as `R_LerpTag` leaves them) and
/// origin as a rotation and a translation.
pub fn tag_in_scene(tag: &Tag) -> (Quat, Vec3) {
    let axes = tag.axes.map(|a| a.try_normalize().unwrap_or(Vec3::ZERO));
    let quake = Mat4::from_mat3(Mat3::from_cols(axes[0], axes[1], axes[2]));
    let scene = matrix_to_scene(quake);
    (Quat::from_mat3(&Mat3::from_mat4(scene)).normalize(), to_scene(tag.origin))
}

/// A tag as clips key it ([`Channel::NodeFrames`]): its axes and origin as stored, in scene
/// axes; the pose blends and re-normalises them between frames, as `R_LerpTag` does.
pub fn tag_matrix(tag: &Tag) -> Mat4 {
    let [x, y, z] = tag.axes;
    matrix_to_scene(Mat4::from_cols(x.extend(0.0), y.extend(0.0), z.extend(0.0), tag.origin.extend(1.0)))
}

/// Scene positions of one frame of a surface.
fn frame_positions(surface: &Surface, frame: usize) -> impl Iterator<Item = Vec3> + '_ {
    surface.frame(frame).iter().map(|v| to_scene(v.position()))
}

fn surface_mesh(surface: &Surface, index: usize) -> Mesh {
    let source_positions: Vec<Vec3> = frame_positions(surface, 0).collect();
    let normals = surface.frame(0).iter().map(|v| to_scene(v.unit_normal())).collect();
    // Quake 3 draws faces clockwise as seen from the front (it culls GL_FRONT); the scene's
    // fronts are counter-clockwise.
    let triangles = surface.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect::<Vec<_>>();
    Mesh {
        name: surface.name.clone(),
        node: Some(index),
        bounds: Aabb::from_points(&source_positions),
        vertex_source: (0..source_positions.len() as u32).collect(),
        source_positions,
        uvs: surface.st.iter().map(|&[s, t]| Vec2::new(s, t)).collect(),
        uvs1: Vec::new(),
        normals,
        submeshes: vec![Submesh {
            material: Some(index),
            first_triangle: 0,
            triangle_count: triangles.len() as u32,
            vertex_start: 0,
            vertex_end: surface.vertex_count.saturating_sub(1) as u32,
        }],
        triangles,
        skin: None,
        raw: vec![
            RawField::new("surface offset", surface.offset, surface.offset),
            RawField::new("flags", surface.offset + 68, surface.flags as u32 as u64),
            RawField::new("numShaders", surface.offset + 76, surface.shaders.len() as u64),
        ],
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    }
}

/// Builds the scene of a file read by [`super::read`].
pub fn build_scene(file: &Md3File) -> Scene {
    let mut scene = Scene::new(FormatKind::Quake3Md3, SceneKind::Mesh);
    scene.version = VERSION as u32;
    scene.warnings = file.warnings.clone();
    for (index, surface) in file.surfaces.iter().enumerate() {
        let mut node = Node::new(surface.name.clone(), NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(index);
        scene.nodes.push(node);
        scene.meshes.push(surface_mesh(surface, index));
        let mut material = Material::new(surface.name.clone());
        material.texture = surface.shaders.first().map(|(name, _)| name.clone()).filter(|n| !n.trim().is_empty());
        scene.materials.push(material);
    }
    let first_tag_node = scene.nodes.len();
    for (t, name) in file.tag_names.iter().enumerate() {
        let rest = file.tags.first().and_then(|frame| frame.get(t)).map(tag_in_scene);
        let (rotation, origin) = rest.unwrap_or((Quat::IDENTITY, Vec3::ZERO));
        scene.nodes.push(Node::new(name.clone(), NodeKind::Tag, Mat4::from_rotation_translation(rotation, origin)));
    }

    for (name, first, last) in group_frames(file.frames.iter().map(|f| f.name.as_str())) {
        // The frames shown, then (for a clip that moves) the first again one frame past the end:
        // the frame a loop returns to (`Clip::carries_return_frame`).
        let return_frame = (last > first).then_some(first);
        let shown: Vec<usize> = (first..=last).chain(return_frame).collect();
        let times: Vec<f32> = (first..=last + usize::from(return_frame.is_some())).map(|f| f as f32).collect();
        let mut channels = Vec::with_capacity(file.surfaces.len() + 2 * file.tag_names.len());
        for (mesh, surface) in file.surfaces.iter().enumerate() {
            // Sized up front: collecting a flat_map would regrow (and copy) the buffer many times.
            let mut positions = Vec::with_capacity(shown.len() * surface.vertex_count);
            for &f in &shown {
                positions.extend(frame_positions(surface, f));
            }
            channels.push(Channel::VertexFrames {
                mesh,
                times: times.clone(),
                vertex_count: surface.vertex_count,
                positions,
                additive: false,
            });
        }
        for t in 0..file.tag_names.len() {
            let keys = shown
                .iter()
                .zip(&times)
                .filter_map(|(&f, &time)| Some(Key { time, value: tag_matrix(file.tags.get(f)?.get(t)?) }))
                .collect();
            channels.push(Channel::NodeFrames { node: first_tag_node + t, keys });
        }
        scene.clips.push(Clip {
            name,
            source: None,
            start: first as f32,
            end: last as f32,
            rate: FRAMES_PER_SECOND,
            channels,
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
    }
    scene.raw = vec![
        RawField::new("flags", 72, file.flags as u32 as u64),
        RawField::new("numFrames", 76, file.frames.len() as u64),
        RawField::new("numTags", 80, file.tag_names.len() as u64),
        RawField::new("numSurfaces", 84, file.surfaces.len() as u64),
        RawField::new("numSkins", 88, file.skin_count as u32 as u64),
    ];
    scene.details = details(file);
    scene
}

/// A number with three decimals, as `{:.3}` writes it (ties to even, the sign kept), through
/// integer formatting: `{:.3}` formats exactly and costs a fifth of a large file's decode.
pub(super) struct Milli(pub(super) f32);

impl std::fmt::Display for Milli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // An f32 times 1000 is exact in an f64, so rounding it rounds the decimal expansion.
        let thousandths = (f64::from(self.0) * 1000.0).round_ties_even();
        if !self.0.is_finite() || thousandths.abs() >= 1e15 {
            return write!(f, "{:.3}", self.0);
        }
        let whole = thousandths.abs() as u64;
        let sign = if self.0.is_sign_negative() { "-" } else { "" };
        write!(f, "{sign}{}.{:03}", whole / 1000, whole % 1000)
    }
}

/// The frames, tags and surfaces as tables for `info` and the panel.
fn details(file: &Md3File) -> Vec<DetailSection> {
    let v = |v: Vec3| format!("{} {} {}", Milli(v.x), Milli(v.y), Milli(v.z));
    let frames = file
        .frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            DetailRow::default()
                .with("frame", i)
                .with("name", &f.name)
                .with("min", v(f.bounds[0]))
                .with("max", v(f.bounds[1]))
                .with("origin", v(f.local_origin))
                .with("radius", Milli(f.radius))
        })
        .collect();
    let tags = file
        .tag_names
        .iter()
        .enumerate()
        .filter_map(|(t, name)| {
            let tag = file.tags.first()?.get(t)?;
            Some(DetailRow::default().with("tag", name).with("origin (frame 0)", v(tag.origin)))
        })
        .collect();
    let surfaces = file
        .surfaces
        .iter()
        .map(|s| {
            let shaders: Vec<&str> = s.shaders.iter().map(|(n, _)| n.as_str()).collect();
            DetailRow::default()
                .with("surface", &s.name)
                .with("vertices", s.vertex_count)
                .with("triangles", s.triangles.len())
                .with("shaders", shaders.join(", "))
        })
        .collect();
    vec![
        DetailSection { title: "MD3 frames".into(), rows: frames },
        DetailSection { title: "MD3 tags".into(), rows: tags },
        DetailSection { title: "MD3 surfaces".into(), rows: surfaces },
    ]
}
