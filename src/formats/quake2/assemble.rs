//! The scene of a decoded model: one mesh node whose rest pose is frame 0, a material per skin
//! named in the file, and a clip per run of frame names, each playing a view of the frames.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};

use super::frames::{SCENE_LANES, SCENE_NORMALS, SceneFrames};
use super::layout::{Layout, count};
use super::render_vertices::{RenderVertices, render_vertices};
use super::{FRAMES_PER_SECOND, VERSION};
use crate::formats::frame_clips::{UNNAMED_CLIP, group_frames, name_runs};
use crate::scene::{
    Aabb, Channel, Clip, FormatKind, Material, Mesh, Node, NodeKind, PackedFrames, RawField, Scene, SceneKind,
    SharedBytes, Submesh,
};

/// Builds the scene: one mesh node, render vertices from unique (vertex, st) pairs, a material
/// per skin (the first one used), and one clip per frame group (frames shared, not copied).
#[inline]
pub(super) fn build_scene(layout: &Layout, skins: Vec<String>, frames: SceneFrames, bytes: SharedBytes) -> Scene {
    let h = &layout.header;
    let mut scene = Scene::new(FormatKind::Quake2Md2, SceneKind::Mesh);
    scene.version = VERSION as u32;
    // A reciprocal, multiplied per render vertex: a division per vertex was a tenth of decode.
    let texel = Vec2::ONE / Vec2::new(h.skin_width.max(1) as f32, h.skin_height.max(1) as f32);

    let RenderVertices { vertex_source, uvs, triangles } =
        render_vertices(layout.st, layout.triangles, count(h.num_xyz) as usize, texel);

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
            // Room for the weapon's channel (`open::attach_weapon`), so a player model's open
            // does not grow every clip's list.
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

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::super::test_fixtures::small_spec;
    use crate::writers::quake2 as writer;

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
}
