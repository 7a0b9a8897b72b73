//! The one check of a decoded scene, run at the end of every decode (`formats::decode_bytes`,
//! `formats::open_with`). After it, every consumer may index without guards:
//!
//! - **Errors** (the scene is unusable): an index out of range in the node tree, a mesh, a
//!   skin or a level of detail; per-vertex arrays whose lengths disagree; a cycle among nodes
//!   or joints; a number the renderer needs (positions, normals, UVs, matrices) that is not
//!   finite.
//! - **Warnings, with the offending piece removed**: an animation channel (of a clip or of
//!   [`Scene::global_channels`]), a material's image or a clip alias that points nowhere. The rest of the scene still shows.

use glam::{Mat4, Vec2, Vec3};

use super::{Channel, Scene};

/// Why a scene failed the check: what is wrong and where (`mesh[2].triangles[7]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {problem}")]
pub struct SceneViolation {
    pub location: String,
    pub problem: String,
}

fn violation(location: impl Into<String>, problem: impl Into<String>) -> SceneViolation {
    SceneViolation { location: location.into(), problem: problem.into() }
}

fn check_index(location: impl FnOnce() -> String, index: usize, len: usize, of: &str) -> Result<(), SceneViolation> {
    if index < len {
        Ok(())
    } else {
        Err(violation(location(), format!("{of} {index} out of range (there are {len})")))
    }
}

/// The index of the first non-finite value among `components` grouped `width` at a time. The
/// common all-finite case is one branch-free pass that the compiler vectorises; only a failure
/// pays for the search. Decoders use it too, on `bytemuck::cast_slice` of their vectors.
pub fn first_non_finite(components: &[f32], width: usize) -> Option<usize> {
    if any_not_finite(components) {
        components.iter().position(|c| !c.is_finite()).map(|i| i / width.max(1))
    } else {
        None
    }
}

/// Whether any value is NaN or infinite: one branch-free fold of bit tests (exponent bits all
/// ones) in 32-bit lanes, which the compiler turns into four compares per instruction; a fold
/// of `is_finite` bools was not. Decoders use it on a record's numbers, a frame's, a mesh's.
#[inline]
pub fn any_not_finite(values: &[f32]) -> bool {
    values.iter().fold(0u32, |any, &value| any | u32::from(value.to_bits() & 0x7F80_0000 == 0x7F80_0000)) != 0
}

/// Whether any index is `limit` or more: a branch-free fold of compares, which the compiler
/// vectorises (a fold of maxima was scalar, as SSE2 has no unsigned 32-bit maximum).
fn any_at_or_above(indices: &[u32], limit: usize) -> bool {
    let Ok(limit) = u32::try_from(limit) else { return false };
    indices.iter().fold(0u32, |any, &i| any | u32::from(i >= limit)) != 0
}

fn finite_matrix(m: &Mat4) -> bool {
    m.is_finite()
}

/// Whether following `parent` from every element ends at a root, in at most `len` steps.
fn acyclic(len: usize, parent: impl Fn(usize) -> Option<usize>) -> Option<usize> {
    (0..len).find(|&start| {
        let mut cursor = parent(start);
        let mut steps = 0;
        while let Some(i) = cursor {
            steps += 1;
            if steps > len {
                return true;
            }
            cursor = parent(i);
        }
        false
    })
}

impl Scene {
    /// Checks the scene (see the module doc). Removed pieces become warnings in
    /// [`Scene::warnings`] or the clip's warnings; a violation that leaves nothing sensible to
    /// draw is the error.
    pub fn validate(&mut self) -> Result<(), SceneViolation> {
        self.check_nodes()?;
        self.check_skeletons()?;
        self.check_meshes()?;
        self.check_lods()?;
        self.drop_dangling_references();
        Ok(())
    }

    fn check_nodes(&self) -> Result<(), SceneViolation> {
        let count = self.nodes.len();
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(parent) = node.parent {
                check_index(|| format!("node[{i}].parent"), parent, count, "node")?;
            }
            for &child in &node.children {
                check_index(|| format!("node[{i}].children"), child, count, "node")?;
            }
            if let Some(mesh) = node.mesh {
                check_index(|| format!("node[{i}].mesh"), mesh, self.meshes.len(), "mesh")?;
            }
            if let Some((skeleton, joint)) = node.joint {
                check_index(|| format!("node[{i}].joint"), skeleton, self.skeletons.len(), "skeleton")?;
                let joints = self.skeletons.get(skeleton).map_or(0, |s| s.joints.len());
                check_index(|| format!("node[{i}].joint"), joint, joints, "joint")?;
            }
            if let Some(anchor) = &node.anchor {
                check_index(|| format!("node[{i}].anchor.mesh"), anchor.mesh, self.meshes.len(), "mesh")?;
                let sources = self.meshes.get(anchor.mesh).map_or(0, |m| m.source_positions.len());
                for &corner in &anchor.corners {
                    check_index(|| format!("node[{i}].anchor.corners"), corner as usize, sources, "vertex")?;
                }
                let numbers = [anchor.u, anchor.v, anchor.offset, anchor.normal.x, anchor.normal.y, anchor.normal.z];
                if numbers.iter().any(|n| !n.is_finite()) {
                    return Err(violation(format!("node[{i}].anchor"), "a NaN or infinite number"));
                }
            }
            if !finite_matrix(&node.local) {
                return Err(violation(format!("node[{i}].local"), "matrix has a NaN or infinite element"));
            }
        }
        if let Some(node) = acyclic(count, |i| self.nodes.get(i).and_then(|n| n.parent)) {
            return Err(violation(format!("node[{node}].parent"), "the node tree has a cycle"));
        }
        Ok(())
    }

    fn check_skeletons(&self) -> Result<(), SceneViolation> {
        for (s, skeleton) in self.skeletons.iter().enumerate() {
            let count = skeleton.joints.len();
            for (j, joint) in skeleton.joints.iter().enumerate() {
                if let Some(parent) = joint.parent {
                    check_index(|| format!("skeleton[{s}].joint[{j}].parent"), parent, count, "joint")?;
                }
                if !joint.pivot.is_finite() {
                    return Err(violation(format!("skeleton[{s}].joint[{j}].pivot"), "not finite"));
                }
            }
            if let Some(joint) = acyclic(count, |j| skeleton.joints.get(j).and_then(|joint| joint.parent)) {
                return Err(violation(format!("skeleton[{s}].joint[{joint}].parent"), "the joint tree has a cycle"));
            }
            if let Some(j) = skeleton.rest_pose.iter().position(|m| !finite_matrix(m)) {
                return Err(violation(format!("skeleton[{s}].rest_pose[{j}]"), "matrix has a NaN or infinite element"));
            }
        }
        Ok(())
    }

    fn check_meshes(&self) -> Result<(), SceneViolation> {
        for (m, mesh) in self.meshes.iter().enumerate() {
            let at = |what: &str| format!("mesh[{m}].{what}");
            if let Some(node) = mesh.node {
                check_index(|| at("node"), node, self.nodes.len(), "node")?;
            }
            let sources = mesh.source_positions.len();
            let vertices = mesh.vertex_source.len();
            // A branch-free fold of compares first (vectorised); the search runs only when it fails.
            if let Some(v) = any_at_or_above(&mesh.vertex_source, sources)
                .then(|| mesh.vertex_source.iter().position(|&s| s as usize >= sources))
                .flatten()
            {
                return Err(violation(
                    at(&format!("vertex_source[{v}]")),
                    format!("source position out of range (there are {sources})"),
                ));
            }
            for (name, len) in [("uvs", mesh.uvs.len()), ("normals", mesh.normals.len())] {
                if len != vertices {
                    return Err(violation(at(name), format!("{len} entries for {vertices} render vertices")));
                }
            }
            // The second set is optional: none, or one per render vertex.
            if !mesh.uvs1.is_empty() && mesh.uvs1.len() != vertices {
                let len = mesh.uvs1.len();
                return Err(violation(at("uvs1"), format!("{len} entries for {vertices} render vertices")));
            }
            if let Some(t) = any_at_or_above(mesh.triangles.as_flattened(), vertices)
                .then(|| mesh.triangles.iter().position(|tri| tri.iter().any(|&i| i as usize >= vertices)))
                .flatten()
            {
                return Err(violation(
                    at(&format!("triangles[{t}]")),
                    format!("render vertex out of range (there are {vertices})"),
                ));
            }
            for (s, sub) in mesh.submeshes.iter().enumerate() {
                let end = u64::from(sub.first_triangle) + u64::from(sub.triangle_count);
                if end > mesh.triangles.len() as u64 {
                    return Err(violation(
                        at(&format!("submeshes[{s}]")),
                        format!(
                            "triangles {}..{end} out of range (there are {})",
                            sub.first_triangle,
                            mesh.triangles.len()
                        ),
                    ));
                }
                if let Some(material) = sub.material {
                    check_index(
                        || at(&format!("submeshes[{s}].material")),
                        material,
                        self.materials.len(),
                        "material",
                    )?;
                }
            }
            if let Some(skin) = &mesh.skin {
                check_index(|| at("skin.skeleton"), skin.skeleton, self.skeletons.len(), "skeleton")?;
                let joints = self.skeletons.get(skin.skeleton).map_or(0, |s| s.joints.len());
                if skin.ranges.len() != sources {
                    return Err(violation(
                        at("skin.ranges"),
                        format!("{} ranges for {sources} source positions", skin.ranges.len()),
                    ));
                }
                let influences = skin.influences.len() as u64;
                if let Some(v) = skin.ranges.iter().position(|&(first, n)| u64::from(first) + u64::from(n) > influences)
                {
                    return Err(violation(
                        at(&format!("skin.ranges[{v}]")),
                        format!("influences out of range (there are {influences})"),
                    ));
                }
                if let Some(i) = skin.influences.iter().position(|inf| inf.joint as usize >= joints) {
                    return Err(violation(
                        at(&format!("skin.influences[{i}].joint")),
                        format!("joint out of range (there are {joints})"),
                    ));
                }
                if let Some(i) = skin
                    .influences
                    .iter()
                    .position(|inf| !inf.weight.is_finite() || !inf.offset.is_finite() || !inf.normal.is_finite())
                {
                    return Err(violation(at(&format!("skin.influences[{i}]")), "weight, offset or normal not finite"));
                }
            }
            let finite3 = |values: &[Vec3]| first_non_finite(bytemuck::cast_slice(values), 3);
            let finite2 = |values: &[Vec2]| first_non_finite(bytemuck::cast_slice(values), 2);
            if let Some(v) = finite3(&mesh.source_positions) {
                return Err(violation(at(&format!("source_positions[{v}]")), "not finite"));
            }
            if let Some(v) = finite3(&mesh.normals) {
                return Err(violation(at(&format!("normals[{v}]")), "not finite"));
            }
            if let Some(v) = finite2(&mesh.uvs) {
                return Err(violation(at(&format!("uvs[{v}]")), "not finite"));
            }
            if let Some(v) = finite2(&mesh.uvs1) {
                return Err(violation(at(&format!("uvs1[{v}]")), "not finite"));
            }
        }
        Ok(())
    }

    fn check_lods(&self) -> Result<(), SceneViolation> {
        for (l, lod) in self.lods.iter().enumerate() {
            for &mesh in &lod.meshes {
                check_index(|| format!("lod[{l}].meshes"), mesh, self.meshes.len(), "mesh")?;
            }
            if let Some(node) = lod.node {
                check_index(|| format!("lod[{l}].node"), node, self.nodes.len(), "node")?;
            }
        }
        Ok(())
    }

    /// Removes channels, images and aliases that point nowhere, each with a warning.
    fn drop_dangling_references(&mut self) {
        let (nodes, meshes, materials) = (self.nodes.len(), self.meshes.len(), self.materials.len());
        let joints: Vec<usize> = self.skeletons.iter().map(|s| s.joints.len()).collect();
        let source_counts: Vec<usize> = self.meshes.iter().map(|m| m.source_positions.len()).collect();
        // Drops the channels that point at nothing, with a warning each (prefixed by `label`).
        let drop_dangling = |channels: &mut Vec<Channel>, label: &str, warnings: &mut Vec<String>| {
            channels.retain(|channel| {
                let problem = channel_problem(channel, nodes, meshes, materials, &joints, &source_counts);
                if let Some(problem) = &problem {
                    warnings.push(format!("{label}{} channel dropped: {problem}", channel.kind_name()));
                }
                problem.is_none()
            });
        };
        for clip in self.clips.iter_mut() {
            drop_dangling(&mut clip.channels, "", &mut clip.warnings);
        }
        drop_dangling(&mut self.global_channels, "global ", &mut self.warnings);
        let images = self.images.len();
        for (i, material) in self.materials.iter_mut().enumerate() {
            if material.image.is_some_and(|image| image >= images) {
                material.image = None;
                self.warnings.push(format!("material {i}: image index out of range; drawn untextured"));
            }
            let cycle_fits = |c: &super::ImageCycle| c.is_well_formed() && c.images.iter().all(|&image| image < images);
            if material.image_cycle.as_ref().is_some_and(|c| !cycle_fits(c)) {
                material.image_cycle = None;
                self.warnings.push(format!("material {i}: image cycle out of range or out of order; held still"));
            }
            if let Some(layer) = material.layer2.as_mut() {
                if layer.image.is_some_and(|image| image >= images) {
                    layer.image = None;
                    self.warnings.push(format!("material {i}: second texture's image index out of range; left out"));
                }
                if layer.uv_set > 1 {
                    layer.uv_set = 0;
                    self.warnings.push(format!("material {i}: second texture's UV set is not 0 or 1; set 0 used"));
                }
            }
        }
        let clips = self.clips.len();
        self.clip_aliases.retain(|&(_, clip)| clip < clips);
        if self.default_clip.is_some_and(|c| c >= clips) {
            self.default_clip = None;
            self.warnings.push("the default animation is out of range; none is played first".into());
        }
    }
}

/// Why a channel cannot play in this scene, if it cannot.
fn channel_problem(
    channel: &Channel,
    nodes: usize,
    meshes: usize,
    materials: usize,
    joints: &[usize],
    source_counts: &[usize],
) -> Option<String> {
    let out_of_range = |what: &str, index: usize, len: usize| {
        (index >= len).then(|| format!("{what} {index} out of range (there are {len})"))
    };
    match channel {
        Channel::NodeRotation { node, .. }
        | Channel::NodeRotationEased { node, .. }
        | Channel::NodePosition { node, .. }
        | Channel::NodeAxisScale { node, .. }
        | Channel::NodePathProgress { node, .. }
        | Channel::NodeFrames { node, .. }
        | Channel::NodeVisibility { node, .. } => out_of_range("node", *node, nodes),
        Channel::VertexFrames { mesh, times, vertex_count, positions, .. } => out_of_range("mesh", *mesh, meshes)
            .or_else(|| {
                let sources = source_counts.get(*mesh).copied().unwrap_or(0);
                if *vertex_count != sources {
                    Some(format!("{vertex_count} vertices a frame for a mesh of {sources}"))
                } else if times.len().checked_mul(*vertex_count) != Some(positions.len()) {
                    Some(format!("{} positions for {} frames of {vertex_count}", positions.len(), times.len()))
                } else {
                    None
                }
            }),
        Channel::VertexMorph { mesh, blocks } => out_of_range("mesh", *mesh, meshes).or_else(|| {
            let sources = source_counts.get(*mesh).copied().unwrap_or(0);
            blocks
                .iter()
                .flat_map(|b| &b.vertices)
                .find(|&&v| v as usize >= sources)
                .map(|v| format!("morph vertex {v} out of range (there are {sources})"))
        }),
        Channel::PackedFrames(packed) => out_of_range("mesh", packed.mesh, meshes),
        Channel::UvKeys { mesh, .. } => out_of_range("mesh", *mesh, meshes),
        Channel::BoneFrames { skeleton, .. } => out_of_range("skeleton", *skeleton, joints.len()),
        Channel::BoneTracks { skeleton, joints: tracks } => {
            out_of_range("skeleton", *skeleton, joints.len()).or_else(|| {
                let count = joints.get(*skeleton).copied().unwrap_or(0);
                tracks
                    .iter()
                    .find(|t| t.joint >= count)
                    .map(|t| format!("joint {} out of range (there are {count})", t.joint))
            })
        }
        Channel::MaterialColor { material, .. }
        | Channel::MaterialAlpha { material, .. }
        | Channel::UvTransform { material, .. } => out_of_range("material", *material, materials),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{FormatKind, Key, Material, Mesh, Node, NodeKind, SceneKind, Submesh};

    /// The bit-mask checks agree with `is_finite` and a plain comparison on the awkward values.
    #[test]
    fn finiteness_and_index_checks_match_plain_ones() {
        let values = [
            0.0,
            -0.0,
            1.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(0x7F80_0001),
        ];
        for (i, &bad) in values.iter().enumerate() {
            for at in 0..9 {
                let mut components = [1.5f32; 9];
                components[at] = bad;
                let expected = if bad.is_finite() { None } else { Some(at / 3) };
                assert_eq!(first_non_finite(&components, 3), expected, "value {i} at {at}");
            }
        }
        for indices in [&[][..], &[0], &[4, 2], &[5], &[0, 9, 1], &[u32::MAX], &[0x8000_0000, 1]] {
            for limit in [0usize, 1, 5, 6, 10, u32::MAX as usize, u32::MAX as usize + 1] {
                let plain = indices.iter().any(|&i| i as usize >= limit);
                assert_eq!(any_at_or_above(indices, limit), plain, "{indices:?} against {limit}");
            }
        }
    }

    fn triangle_scene() -> Scene {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let mut node = Node::new("n", NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(0);
        scene.nodes.push(node);
        scene.materials.push(Material::new("m"));
        scene.meshes.push(Mesh {
            name: "tri".into(),
            node: Some(0),
            source_positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            vertex_source: vec![0, 1, 2],
            uvs: vec![Vec2::ZERO; 3],
            uvs1: Vec::new(),
            normals: vec![Vec3::Z; 3],
            triangles: vec![[0, 1, 2]],
            submeshes: vec![Submesh {
                material: Some(0),
                first_triangle: 0,
                triangle_count: 1,
                vertex_start: 0,
                vertex_end: 2,
            }],
            bounds: crate::scene::Aabb::EMPTY,
            skin: None,
            raw: Vec::new(),
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        scene
    }

    #[test]
    fn an_image_cycle_that_points_nowhere_or_runs_backwards_is_held_still() {
        for (images, ends) in [(vec![0, 3], vec![1.0, 2.0]), (vec![0, 0], vec![2.0, 1.0])] {
            let mut scene = triangle_scene();
            scene.images.push(crate::scene::SceneImage::new("i", None));
            scene.materials[0].image_cycle = Some(crate::scene::ImageCycle { images, ends });
            assert_eq!(scene.validate(), Ok(()));
            assert_eq!(scene.materials[0].image_cycle, None);
            assert!(scene.warnings.iter().any(|w| w.contains("image cycle")), "{:?}", scene.warnings);
        }
    }

    #[test]
    fn a_sound_scene_passes() {
        assert_eq!(triangle_scene().validate(), Ok(()));
    }

    #[test]
    fn index_violations_name_what_and_where() {
        let mut bad_triangle = triangle_scene();
        bad_triangle.meshes[0].triangles[0] = [0, 1, 3];
        let error = bad_triangle.validate().unwrap_err();
        assert_eq!(error.location, "mesh[0].triangles[0]");
        assert!(error.problem.contains("out of range (there are 3)"), "{error}");

        let mut bad_material = triangle_scene();
        bad_material.meshes[0].submeshes[0].material = Some(1);
        assert_eq!(bad_material.validate().unwrap_err().location, "mesh[0].submeshes[0].material");

        let mut bad_source = triangle_scene();
        bad_source.meshes[0].vertex_source[2] = 3;
        assert_eq!(bad_source.validate().unwrap_err().location, "mesh[0].vertex_source[2]");

        let mut short_uvs = triangle_scene();
        short_uvs.meshes[0].uvs.pop();
        assert_eq!(short_uvs.validate().unwrap_err().to_string(), "mesh[0].uvs: 2 entries for 3 render vertices");

        let mut not_finite = triangle_scene();
        not_finite.meshes[0].source_positions[1].x = f32::NAN;
        assert_eq!(not_finite.validate().unwrap_err().location, "mesh[0].source_positions[1]");

        // A second UV set is optional, but whole and finite when present.
        let mut second_set = triangle_scene();
        second_set.meshes[0].uvs1 = vec![Vec2::ONE; 3];
        assert_eq!(second_set.clone().validate(), Ok(()));
        second_set.meshes[0].uvs1.pop();
        assert_eq!(second_set.validate().unwrap_err().to_string(), "mesh[0].uvs1: 2 entries for 3 render vertices");
        let mut bad_second = triangle_scene();
        bad_second.meshes[0].uvs1 = vec![Vec2::ONE, Vec2::new(f32::INFINITY, 0.0), Vec2::ONE];
        assert_eq!(bad_second.validate().unwrap_err().location, "mesh[0].uvs1[1]");
    }

    #[test]
    fn a_parent_cycle_is_an_error() {
        let mut scene = triangle_scene();
        let mut other = Node::new("other", NodeKind::Transform, Mat4::IDENTITY);
        other.parent = Some(0);
        scene.nodes.push(other);
        scene.nodes[0].parent = Some(1);
        let error = scene.validate().unwrap_err();
        assert!(error.problem.contains("cycle"), "{error}");
    }

    #[test]
    fn a_dangling_channel_is_dropped_with_a_warning() {
        let mut scene = triangle_scene();
        scene.clips.push(crate::scene::Clip {
            name: "c".into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 10.0,
            channels: vec![
                Channel::NodeVisibility { node: 0, keys: vec![Key { time: 0.0, value: true }] },
                Channel::NodeVisibility { node: 5, keys: vec![Key { time: 0.0, value: true }] },
            ],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        scene.default_clip = Some(3);
        scene.global_channels.push(Channel::NodeVisibility { node: 9, keys: Vec::new() });
        assert_eq!(scene.validate(), Ok(()));
        assert!(scene.global_channels.is_empty());
        assert!(scene.warnings.iter().any(|w| w.contains("global visibility channel dropped")), "{:?}", scene.warnings);
        assert_eq!(scene.clips[0].channels.len(), 1);
        assert!(scene.clips[0].warnings[0].contains("node 5 out of range"), "{:?}", scene.clips[0].warnings);
        assert_eq!(scene.default_clip, None);
    }

    /// A second texture layer whose image points nowhere is left out of the drawing, and one
    /// naming a UV set past 1 samples set 0, each with a warning; the material stays.
    #[test]
    fn a_second_layer_with_a_bad_image_or_uv_set_is_mended_with_a_warning() {
        use crate::scene::{LayerCombine, Material, TextureLayer, TextureWrap};
        let mut scene = triangle_scene();
        let mut material = Material::new("two textures");
        material.layer2 = Some(TextureLayer {
            texture: Some("second.png".into()),
            image: Some(7),
            uv_set: 2,
            sphere_map: false,
            wrap: [TextureWrap::Repeat; 2],
            combine: LayerCombine::Mod,
        });
        scene.materials.push(material);
        assert_eq!(scene.validate(), Ok(()));
        let layer = scene.materials.last().and_then(|m| m.layer2.clone()).expect("the layer stays");
        assert_eq!((layer.image, layer.uv_set), (None, 0));
        let warned = |text: &str| scene.warnings.iter().any(|w| w.contains(text));
        assert!(warned("second texture's image index out of range"), "{:?}", scene.warnings);
        assert!(warned("second texture's UV set is not 0 or 1"), "{:?}", scene.warnings);
    }
}
