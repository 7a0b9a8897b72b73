//! Maps decoded MDR records ([`MdrModel`]) onto the format-neutral scene:
//!
//! - **Axes.** Bone matrices, weight offsets and normals go from Quake axes to scene axes through
//!   [`crate::formats::quake_axes`] and nowhere else. A bone matrix `M` becomes `S·M·Sᵀ` and an
//!   offset `o` becomes `S·o`, so `S·(M·o)` is what skinning yields; both are linear, so blending
//!   converted frames equals converting blended ones.
//! - **Bones.** One [`Skeleton`] with a joint per bone (MDR bones have no names and no
//!   hierarchy: every frame stores model-space matrices). Frame 0 is its rest pose.
//! - **Surfaces.** Every surface of every LOD is a skinned [`Mesh`] on its own node, under a
//!   transform-only node per LOD; [`Scene::lods`] lists them and the pose shows one level. The
//!   mesh's stored positions and normals are frame 0, skinned; triangles are reversed from the
//!   file's clockwise to the scene's counter-clockwise. One material per distinct shader path,
//!   the path kept as the texture name for the renderer to resolve.
//! - **Tags.** A [`NodeKind::Tag`] node per tag that follows its bone, with an identity offset,
//!   so its world matrix is the bone's (the engine's tag axes are the bone matrix's columns).
//! - **Clips.** Named frames are grouped as Quake II groups them (the name minus trailing
//!   digits, consecutive frames); compressed or unnamed frames make one clip. Each clip is one
//!   [`Channel::BoneFrames`] at 15 frames per second, its times the file's frame numbers.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::decode::{BoneMatrix, MdrModel, Surface};
use super::layout::*;
use crate::formats::quake_axes::{self, matrix_to_scene};
use crate::scene::anim::skin_positions_and_normals;
use crate::scene::{
    Aabb, Channel, Clip, DetailRow, DetailSection, FormatKind, Influence, Joint, LodLevel, Material, Mesh, Node,
    NodeKind, RawField, Scene, SceneKind, Skeleton, SkinWeights, Submesh,
};

/// The engine animates MDR models at whatever rate the game asks; this is the viewer's default.
pub const FRAMES_PER_SECOND: f32 = 15.0;
/// The clip name of a file whose frames have no names (compressed frames never do).
pub use crate::formats::frame_clips::{UNNAMED_CLIP, clip_of, group_frames};

/// A file bone matrix (row-major, translation in column 3) as a scene-space `Mat4`.
pub fn bone_to_scene(m: &BoneMatrix) -> Mat4 {
    let [r0, r1, r2] = m;
    let quake = Mat4::from_cols(
        Vec4::new(r0[0], r1[0], r2[0], 0.0),
        Vec4::new(r0[1], r1[1], r2[1], 0.0),
        Vec4::new(r0[2], r1[2], r2[2], 0.0),
        Vec4::new(r0[3], r1[3], r2[3], 1.0),
    );
    matrix_to_scene(quake)
}

/// Builds the scene for a decoded model.
pub fn to_scene(model: &MdrModel) -> Scene {
    let mut scene = Scene::new(FormatKind::Quake3Mdr, SceneKind::Mesh);
    scene.version = u32::try_from(model.version).unwrap_or(0);
    scene.warnings = model.warnings.clone();
    scene.raw = header_raw(model);

    let frames: Vec<Vec<Mat4>> = model.frames.iter().map(|f| f.bones.iter().map(bone_to_scene).collect()).collect();
    let rest = frames.first().cloned().unwrap_or_default();
    scene.skeletons.push(Skeleton {
        name: "bones".into(),
        joints: (0..model.bone_count)
            .map(|i| Joint { name: format!("bone {i}"), parent: None, pivot: Vec3::ZERO, billboard: false })
            .collect(),
        rest_pose: rest.clone(),
    });

    for (level, lod) in model.lods.iter().enumerate() {
        let group = scene.nodes.len();
        let mut group_node = Node::new(format!("LOD {level}"), NodeKind::Transform, Mat4::IDENTITY);
        group_node.raw.push(RawField::new("LOD record", lod.offset, lod.surfaces.len() as u64));
        scene.nodes.push(group_node);
        let mut meshes = Vec::new();
        for surface in &lod.surfaces {
            let material = material_for(&mut scene.materials, &surface.shader);
            let mesh_index = scene.meshes.len();
            let node_index = scene.nodes.len();
            let name = if surface.name.is_empty() { format!("surface {mesh_index}") } else { surface.name.clone() };
            let mut node = Node::new(name.clone(), NodeKind::Mesh, Mat4::IDENTITY);
            node.parent = Some(group);
            node.mesh = Some(mesh_index);
            scene.nodes.push(node);
            if let Some(g) = scene.nodes.get_mut(group) {
                g.children.push(node_index);
            }
            scene.meshes.push(surface_mesh(surface, name, node_index, material, &rest));
            meshes.push(mesh_index);
        }
        scene.lods.push(LodLevel { name: format!("LOD {level}"), node: Some(group), meshes });
    }

    for tag in &model.tags {
        let mut node = Node::new(tag.name.clone(), NodeKind::Tag, Mat4::IDENTITY);
        node.joint = Some((0, tag.bone as usize));
        node.raw.push(RawField::new("bone index", 0, u64::from(tag.bone)));
        scene.nodes.push(node);
    }

    let names: Vec<&str> = model.frames.iter().map(|f| f.name.as_str()).collect();
    let groups = if model.compressed || names.iter().all(|n| n.is_empty()) {
        vec![(UNNAMED_CLIP.to_string(), 0, frames.len().saturating_sub(1))]
    } else {
        group_frames(names)
    };
    // The groups cover the frames in order, so each clip takes the next run of them.
    let mut remaining = frames.into_iter();
    for (name, first, last) in groups {
        let frames: Vec<Vec<Mat4>> = remaining.by_ref().take(last - first + 1).collect();
        scene.clips.push(Clip {
            name,
            source: None,
            start: first as f32,
            end: last as f32,
            rate: FRAMES_PER_SECOND,
            channels: vec![Channel::BoneFrames {
                skeleton: 0,
                times: (first..=last).map(|f| f as f32).collect(),
                frames,
            }],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
    }

    scene.details = details(model);
    scene
}

/// The material index for a shader path, shared by every surface that names it.
fn material_for(materials: &mut Vec<Material>, shader: &str) -> usize {
    if let Some(existing) = materials.iter().position(|m| m.name == shader) {
        return existing;
    }
    let mut material = Material::new(shader);
    material.texture = (!shader.is_empty()).then(|| shader.to_string());
    materials.push(material);
    materials.len() - 1
}

fn surface_mesh(surface: &Surface, name: String, node: usize, material: usize, rest: &[Mat4]) -> Mesh {
    let vertex_count = surface.vertices.len();
    let mut skin = SkinWeights { skeleton: 0, ranges: Vec::with_capacity(vertex_count), influences: Vec::new() };
    skin.influences.reserve(surface.weights.len());
    for vertex in &surface.vertices {
        let start = skin.influences.len() as u32;
        let normal = quake_axes::to_scene(vertex.normal);
        let own = surface
            .weights
            .get(vertex.first_weight as usize..)
            .and_then(|w| w.get(..vertex.weight_count as usize))
            .unwrap_or(&[]);
        skin.influences.extend(own.iter().map(|w| Influence {
            joint: w.bone,
            weight: w.weight,
            offset: quake_axes::to_scene(w.offset),
            normal,
        }));
        skin.ranges.push((start, own.len() as u32));
    }
    let mut positions = vec![Vec3::ZERO; vertex_count];
    let mut normals = vec![Vec3::ZERO; vertex_count];
    skin_positions_and_normals(&skin, rest, &mut positions, &mut normals);
    let normals = normals.into_iter().map(|n| n.try_normalize().unwrap_or(Vec3::Y)).collect();
    let triangle_count = surface.triangles.len() as u32;
    Mesh {
        name,
        node: Some(node),
        bounds: Aabb::from_points(&positions),
        source_positions: positions,
        vertex_source: (0..vertex_count as u32).collect(),
        uvs: surface.vertices.iter().map(|v| Vec2::new(v.tex_coords.x, v.tex_coords.y)).collect(),
        uvs1: Vec::new(),
        normals,
        // Clockwise in the file, counter-clockwise in the scene.
        triangles: surface.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect(),
        submeshes: vec![Submesh {
            material: Some(material),
            first_triangle: 0,
            triangle_count,
            vertex_start: 0,
            vertex_end: (vertex_count as u32).saturating_sub(1),
        }],
        skin: Some(skin),
        raw: vec![
            RawField::new("ident", surface.offset + SURF_IDENT, surface.ident as u32 as u64),
            RawField::new("shaderIndex", surface.offset + SURF_SHADER_INDEX, surface.shader_index as u32 as u64),
            RawField::new("ofsHeader", surface.offset + SURF_OFS_HEADER, surface.ofs_header as u32 as u64),
            RawField::new(
                "numBoneReferences",
                surface.offset + SURF_NUM_BONE_REFS,
                surface.bone_ref_count as u32 as u64,
            ),
        ],
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    }
}

fn header_raw(model: &MdrModel) -> Vec<RawField> {
    let h = &model.header;
    [
        ("numFrames", HDR_NUM_FRAMES, h.num_frames),
        ("numBones", HDR_NUM_BONES, h.num_bones),
        ("ofsFrames", HDR_OFS_FRAMES, h.ofs_frames),
        ("numLODs", HDR_NUM_LODS, h.num_lods),
        ("ofsLODs", HDR_OFS_LODS, h.ofs_lods),
        ("numTags", HDR_NUM_TAGS, h.num_tags),
        ("ofsTags", HDR_OFS_TAGS, h.ofs_tags),
        ("ofsEnd", HDR_OFS_END, h.ofs_end),
    ]
    .into_iter()
    // Stored as the raw 32-bit pattern, so a negative ofsFrames reads back as such.
    .map(|(name, offset, value)| RawField::new(name, offset, u64::from(value as u32)))
    .collect()
}

/// The header's facts, and one row per surface of every LOD with its shader and counts.
fn details(model: &MdrModel) -> Vec<DetailSection> {
    let header = DetailRow::default()
        .with("name", &model.name)
        .with("frames", model.frames.len())
        .with("frame storage", if model.compressed { "compressed (12 u16 per bone)" } else { "plain 3x4 floats" })
        .with("bones", model.bone_count)
        .with("LODs", model.lods.len())
        .with("tags", model.tags.len());
    let surfaces = model
        .lods
        .iter()
        .enumerate()
        .flat_map(|(level, lod)| lod.surfaces.iter().map(move |s| (level, s)))
        .map(|(level, s)| {
            let most = s.vertices.iter().map(|v| v.weight_count).max().unwrap_or(0);
            DetailRow::default()
                .with("LOD", level)
                .with("surface", &s.name)
                .with("shader", &s.shader)
                .with("vertices", s.vertices.len())
                .with("triangles", s.triangles.len())
                .with("weights", s.weights.len())
                .with("most weights per vertex", most)
        })
        .collect();
    vec![
        DetailSection { title: "MDR header".into(), rows: vec![header] },
        DetailSection { title: "MDR surfaces".into(), rows: surfaces },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::quake_axes::to_scene;

    #[test]
    fn frames_group_by_name_minus_digits() {
        let names = ["stand01", "stand02", "run1", "run2", "run3", "stand03", "123"];
        assert_eq!(
            group_frames(names),
            vec![
                ("stand".to_string(), 0, 1),
                ("run".to_string(), 2, 4),
                ("stand#2".to_string(), 5, 5),
                ("123".to_string(), 6, 6),
            ]
        );
    }

    #[test]
    fn a_suffixed_clip_keeps_growing() {
        let names = ["a1", "b1", "a2", "a3"];
        assert_eq!(group_frames(names), vec![("a".into(), 0, 0), ("b".into(), 1, 1), ("a#2".into(), 2, 3)]);
    }

    #[test]
    fn bone_rows_become_matrix_rows() {
        // A Quake translation (1, 2, 3) with identity rotation lands at to_scene((1, 2, 3)).
        let m = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0]];
        let scene = bone_to_scene(&m);
        assert_eq!(scene.transform_point3(Vec3::ZERO), to_scene(Vec3::new(1.0, 2.0, 3.0)));
        // A 90° turn about Quake's up axis takes forward to left.
        let yaw = [[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
        let turned = bone_to_scene(&yaw).transform_vector3(to_scene(Vec3::X));
        assert!(turned.abs_diff_eq(to_scene(Vec3::Y), 1e-6), "{turned}");
    }
}
