//! Meshes: render vertices, UV sets, skin attributes, morph targets and one primitive per
//! submesh, and the node that carries each mesh ([`write()`], which hands on a [`MeshMap`]).

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use gltf_json as json;
use json::validation::Checked::Valid;
use serde_json::json;

use super::decompose::Trs;
use super::document::Writer;
use super::index;
use super::materials::{MaterialMap, samples_second_set};
use super::morphs::MorphPlan;
use super::nodes::{NodeMap, add_child, push_node};
use super::skins::{self, Joints, four_influences};
use crate::scene::Scene;

/// Where the scene's meshes landed, for links and weight channels.
pub(super) struct MeshMap {
    /// Per mesh: the glTF node that carries it (the target of its weights).
    pub(super) holders: Vec<Option<u32>>,
    /// Per mesh: its glTF mesh.
    pub(super) meshes: Vec<Option<u32>>,
    /// Nodes made for meshes that sit at the root (skinned meshes, meshes without a node).
    pub(super) loose: Vec<u32>,
}

impl MeshMap {
    /// No mesh written yet, of `count`.
    pub(super) fn new(count: usize) -> Self {
        Self { holders: vec![None; count], meshes: vec![None; count], loose: Vec::new() }
    }
}

/// Every mesh of LOD 0 with triangles, on the node of its scene node (a child of it where the
/// node carries a mesh already), or on a root node of its own when skinned or without a node.
/// Skins come from `joints`, morph targets from `morphs`, and each submesh draws with its
/// material in `materials` (a scrolling mesh's own copy where it has one).
pub(super) fn write(
    scene: &Scene,
    nodes: &NodeMap,
    joints: &Joints,
    materials: &MaterialMap,
    morphs: &[MorphPlan],
    out: &mut Writer,
) -> MeshMap {
    let mut map = MeshMap::new(scene.meshes.len());
    use json::accessor::{ComponentType, Type};
    use json::buffer::Target;
    let hidden_lod: Vec<usize> = scene.lods.iter().skip(1).flat_map(|l| l.meshes.iter().copied()).collect();
    if !hidden_lod.is_empty() {
        out.note(format!("{} meshes of coarser levels of detail not exported (LOD 0 only)", hidden_lod.len()));
    }
    let rest_world = scene.rest_world_matrices();
    // Per material, once: each answer looks at every mesh.
    let second_sets: Vec<bool> = (0..scene.materials.len()).map(|m| samples_second_set(scene, m)).collect();
    let mut skins_written: HashMap<usize, u32> = HashMap::new();
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let count = mesh.vertex_count();
        if count == 0 || mesh.triangles.is_empty() || hidden_lod.contains(&m) {
            continue;
        }
        if let Some(shared) = shared_geometry(scene, m, &map, morphs, materials) {
            if let Some(slot) = map.meshes.get_mut(m) {
                *slot = Some(shared);
            }
            hold(scene, m, shared, None, nodes, out, &mut map);
            continue;
        }
        let positions = mesh.render_positions();
        let mut attributes = std::collections::BTreeMap::new();
        let position = out.vec3s(&positions, true, Some(Target::ArrayBuffer));
        attributes.insert(Valid(json::mesh::Semantic::Positions), index(position));
        if mesh.normals.len() == count {
            let normals: Vec<Vec3> = mesh.normals.iter().map(|n| n.try_normalize().unwrap_or(Vec3::Y)).collect();
            let a = out.vec3s(&normals, false, Some(Target::ArrayBuffer));
            attributes.insert(Valid(json::mesh::Semantic::Normals), index(a));
        }
        if mesh.uvs.len() == count {
            let flat: Vec<f32> = mesh.uvs.iter().flat_map(|uv| [uv.x, uv.y]).collect();
            let a = out.floats(&flat, 2, false, Some(Target::ArrayBuffer));
            attributes.insert(Valid(json::mesh::Semantic::TexCoords(0)), index(a));
        }
        let samples_second =
            |sub: &crate::scene::Submesh| sub.material.and_then(|m| second_sets.get(m)).copied().unwrap_or(false);
        if mesh.uvs1.len() == count && mesh.submeshes.iter().any(samples_second) {
            let flat: Vec<f32> = mesh.uvs1.iter().flat_map(|uv| [uv.x, uv.y]).collect();
            let a = out.floats(&flat, 2, false, Some(Target::ArrayBuffer));
            attributes.insert(Valid(json::mesh::Semantic::TexCoords(1)), index(a));
        }
        let mut skin_index = None;
        if let Some(skin) = &mesh.skin
            && joints.nodes.get(skin.skeleton).is_some_and(|j| !j.is_empty())
        {
            let (influences, weights) = four_influences(mesh, skin);
            let joint_view = out.view(bytemuck::cast_slice(&influences), Some(Target::ArrayBuffer));
            let a = out.accessor(Some(joint_view), count, ComponentType::U16, Type::Vec4, None, None);
            attributes.insert(Valid(json::mesh::Semantic::Joints(0)), index(a));
            let w = out.floats(&weights, 4, false, Some(Target::ArrayBuffer));
            attributes.insert(Valid(json::mesh::Semantic::Weights(0)), index(w));
            skin_index = Some(match skins_written.get(&skin.skeleton) {
                Some(&s) => s,
                None => {
                    let s = skins::skin(scene, joints, skin.skeleton, out);
                    skins_written.insert(skin.skeleton, s);
                    s
                }
            });
            let world = mesh.node.and_then(|n| rest_world.get(n)).copied().unwrap_or(Mat4::IDENTITY);
            if !world.abs_diff_eq(Mat4::IDENTITY, 1e-6) {
                out.note(format!("mesh {m} ({}): its node's placement is ignored by glTF skinning", mesh.name));
            }
        }
        let plan_targets = morphs.get(m).map(|p| p.targets.len()).unwrap_or(0);
        let mut targets = Vec::new();
        for t in 0..plan_targets {
            let delta = morphs.get(m).and_then(|p| p.targets.get(t)).cloned().unwrap_or_default();
            let a = out.vec3s(&delta, true, Some(Target::ArrayBuffer));
            targets.push(json::mesh::MorphTarget { positions: Some(index(a)), normals: None, tangents: None });
        }
        if plan_targets > 0 {
            out.note("morph targets carry positions only; normals stay those of the rest pose".into());
        }
        let mut primitives = Vec::new();
        let ranges: Vec<(Option<usize>, u32, u32)> = if mesh.submeshes.is_empty() {
            vec![(None, 0, mesh.triangles.len() as u32)]
        } else {
            mesh.submeshes.iter().map(|s| (s.material, s.first_triangle, s.triangle_count)).collect()
        };
        let mut written: Vec<(u32, u32)> = Vec::new();
        for (material, first, tri_count) in ranges {
            // A pass over triangles already written (M2 texture-unit layers) that glTF cannot
            // draw as the game does would cover its base: an additive or modulating blend or
            // a sphere map becomes plain alpha blending over the same triangles, and an
            // untextured one paints them flat.
            if written.contains(&(first, tri_count))
                && let Some(why) = material.and_then(|i| materials.unexpressible_layer(scene, i))
            {
                out.note(format!(
                    "mesh {}: the layer drawn with material {} over the same triangles is left out ({why})",
                    mesh.name,
                    material.unwrap_or_default()
                ));
                continue;
            }
            written.push((first, tri_count));
            let tris =
                mesh.triangles.get(first as usize..(first as usize).saturating_add(tri_count as usize)).unwrap_or(&[]);
            let flat: Vec<u32> = tris.iter().flatten().copied().filter(|&i| (i as usize) < count).collect();
            if flat.len() != tris.len() * 3 || flat.is_empty() {
                continue;
            }
            let indices = if count <= usize::from(u16::MAX) {
                let short: Vec<u16> = flat.iter().map(|&i| i as u16).collect();
                let view = out.view(bytemuck::cast_slice(&short), Some(Target::ElementArrayBuffer));
                out.accessor(Some(view), flat.len(), ComponentType::U16, Type::Scalar, None, None)
            } else {
                let view = out.view(bytemuck::cast_slice(&flat), Some(Target::ElementArrayBuffer));
                out.accessor(Some(view), flat.len(), ComponentType::U32, Type::Scalar, None, None)
            };
            primitives.push(json::mesh::Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: None,
                indices: Some(index(indices)),
                material: material
                    .filter(|&i| i < scene.materials.len())
                    .map(|i| index(materials.mesh_copies.get(&(m, i)).copied().unwrap_or(i as u32))),
                mode: Valid(json::mesh::Mode::Triangles),
                targets: (!targets.is_empty()).then(|| targets.clone()),
            });
        }
        if primitives.is_empty() {
            continue;
        }
        let gltf_mesh = out
            .root
            .push(json::Mesh {
                extensions: None,
                extras: serde_json::value::to_raw_value(&json!({ "scene_mesh": m })).ok(),
                name: Some(mesh.name.clone()),
                primitives,
                weights: (plan_targets > 0).then(|| vec![0.0; plan_targets]),
            })
            .value() as u32;
        if let Some(slot) = map.meshes.get_mut(m) {
            *slot = Some(gltf_mesh);
        }
        hold(scene, m, gltf_mesh, skin_index, nodes, out, &mut map);
    }
    map
}

/// Puts glTF mesh `gltf_mesh` (scene mesh `m`'s) on the node that carries it: its scene node's
/// (a child of it where that node carries a mesh already), or a root node of its own when
/// skinned or without a node.
fn hold(
    scene: &Scene,
    m: usize,
    gltf_mesh: u32,
    skin_index: Option<u32>,
    nodes: &NodeMap,
    out: &mut Writer,
    map: &mut MeshMap,
) {
    let Some(mesh) = scene.meshes.get(m) else { return };
    let holder = if skin_index.is_some() || mesh.node.is_none() {
        let n = push_node(out, mesh.name.clone(), Trs::IDENTITY);
        map.loose.push(n);
        n
    } else {
        let node = mesh.node.unwrap_or_default();
        let parent = match nodes.visibility.get(&node) {
            Some(&v) => v,
            None => nodes.placed.get(node).map(|p| p.inner).unwrap_or(0),
        };
        let taken = out.root.nodes.get(parent as usize).is_some_and(|n| n.mesh.is_some());
        if taken {
            let child = push_node(out, mesh.name.clone(), Trs::IDENTITY);
            add_child(out, parent, child);
            child
        } else {
            parent
        }
    };
    if let Some(node) = out.root.nodes.get_mut(holder as usize) {
        node.mesh = Some(index(gltf_mesh));
        node.skin = skin_index.map(index);
    }
    if let Some(slot) = map.holders.get_mut(m) {
        *slot = Some(holder);
    }
}

/// The glTF mesh a copy ([`Scene::geometry_source`]) can share with its source: both plain
/// (no skin, no morph targets, no per-mesh material copies) and the source written already.
fn shared_geometry(
    scene: &Scene,
    m: usize,
    map: &MeshMap,
    morphs: &[MorphPlan],
    materials: &MaterialMap,
) -> Option<u32> {
    let source = scene.geometry_source(m);
    if source == m {
        return None;
    }
    let plain = |i: usize| {
        scene.meshes.get(i).is_some_and(|mesh| mesh.skin.is_none())
            && morphs.get(i).is_none_or(|p| p.targets.is_empty())
            && !materials.mesh_copies.keys().any(|(mesh, _)| *mesh == i)
    };
    if plain(m) && plain(source) { map.meshes.get(source).copied().flatten() } else { None }
}
