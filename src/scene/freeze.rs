//! A scene frozen in one pose: a still copy whose rest state is what the pose shows, with no
//! clips or layers. Exports of assembled scenes take it (a park is written as its save has it:
//! each item posed at its saved time, hidden nodes left out). Meshes the pose leaves alone
//! keep their geometry (and stay marked as copies of each other); moved ones take their posed
//! vertices.

use glam::Mat4;

use super::{Part, Scene, anim::Pose, compute_normals};

impl Scene {
    /// This scene as `pose` shows it, with nothing left to play.
    pub fn frozen(&self, pose: &Pose) -> Scene {
        let mut out = self.clone();
        out.clips.clear();
        out.layers.clear();
        out.default_clip = None;
        out.as_built = None;
        out.clip_aliases.clear();
        out.global_channels.clear();
        out.hidden_nodes.clear();
        out.lods.clear();

        let visible = |node: Option<usize>| node.is_none_or(|n| pose.visible.get(n).copied().unwrap_or(true));
        let moved = |m: usize| {
            pose.positions.get(m).is_some_and(Option::is_some) || pose.uvs.get(m).is_some_and(Option::is_some)
        };
        // Which meshes stay, and where each lands.
        let mut new_index: Vec<Option<usize>> = Vec::with_capacity(self.meshes.len());
        let mut kept = 0;
        for mesh in &self.meshes {
            if visible(mesh.node) {
                new_index.push(Some(kept));
                kept += 1;
            } else {
                new_index.push(None);
            }
        }
        let mut meshes = Vec::with_capacity(kept);
        let mut copies = Vec::with_capacity(kept);
        for (index, mesh) in self.meshes.iter().enumerate() {
            if new_index.get(index).copied().flatten().is_none() {
                continue;
            }
            let mut mesh = mesh.clone();
            if let Some(Some(positions)) = pose.positions.get(index) {
                mesh.source_positions = positions.clone();
                mesh.vertex_source = (0..positions.len() as u32).collect();
                mesh.skin = None;
                mesh.normals = match pose.normals.get(index) {
                    Some(Some(normals)) => normals.clone(),
                    _ if mesh.keep_rest_normals => mesh.normals,
                    _ => compute_normals(positions, &mesh.triangles),
                };
                mesh.bounds = super::Aabb::from_points(positions);
            }
            if let Some(Some(uvs)) = pose.uvs.get(index) {
                mesh.uvs = uvs.clone();
            }
            let source = self.geometry_source(index);
            let shared = source != index && !moved(index) && !moved(source);
            copies.push(if shared { new_index.get(source).copied().flatten() } else { None });
            meshes.push(mesh);
        }
        out.meshes = meshes;
        out.mesh_copies = if copies.iter().any(Option::is_some) { copies } else { Vec::new() };

        for (index, node) in out.nodes.iter_mut().enumerate() {
            node.mesh = node.mesh.and_then(|m| new_index.get(m).copied().flatten());
            node.anchor = None;
            node.local = pose.locals.get(index).copied().unwrap_or(node.local);
        }
        // Nodes that follow a joint keep their posed world place under their parent.
        let world = |n: usize| pose.world.get(n).copied().unwrap_or(Mat4::IDENTITY);
        for index in 0..out.nodes.len() {
            let Some(node) = out.nodes.get(index) else { continue };
            if node.joint.is_none() {
                continue;
            }
            let parent_world = node.parent.map_or(Mat4::IDENTITY, world);
            let local = parent_world.inverse() * world(index);
            if let Some(node) = out.nodes.get_mut(index) {
                node.joint = None;
                node.local = local;
            }
        }
        for (material, colour) in out.materials.iter_mut().zip(&pose.material_colors) {
            material.base_color = *colour;
        }
        let remap_range = |range: &std::ops::Range<usize>| {
            let before = |end: usize| new_index.iter().take(end).filter(|m| m.is_some()).count();
            before(range.start)..before(range.end)
        };
        out.parts = self.parts.iter().map(|p| Part { meshes: remap_range(&p.meshes), ..p.clone() }).collect();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Channel, Clip, FormatKind, Key, Layer, Mesh, Node, NodeKind, SceneKind};
    use glam::{Quat, Vec3};

    #[test]
    fn a_frozen_scene_keeps_the_pose_and_drops_hidden_meshes() {
        let mut scene = Scene::new(FormatKind::TpwPark, SceneKind::Mesh);
        for i in 0..2 {
            let mut node = Node::new(format!("n{i}"), NodeKind::Mesh, Mat4::IDENTITY);
            node.mesh = Some(i);
            scene.nodes.push(node);
            scene.meshes.push(Mesh {
                node: Some(i),
                source_positions: vec![Vec3::X],
                vertex_source: vec![0],
                ..Mesh::default()
            });
        }
        scene.mesh_copies = vec![None, Some(0)];
        let turn = Quat::from_rotation_y(1.0);
        scene.clips.push(Clip {
            name: "a".into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 1.0,
            channels: vec![Channel::NodeRotation {
                node: 0,
                authored_inverse: Mat4::IDENTITY,
                keys: vec![Key { time: 0.0, value: turn }],
            }],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        scene.layers.push(Layer::looping("a", 0, 0.0));
        scene.hidden_nodes.push(1);
        let pose = Pose::at(&scene, None, 0.0);
        let still = scene.frozen(&pose);
        assert!(still.clips.is_empty() && still.layers.is_empty() && still.hidden_nodes.is_empty());
        assert_eq!(still.meshes.len(), 1);
        assert_eq!(still.nodes[1].mesh, None);
        assert!(still.mesh_copies.is_empty());
        let rest = Pose::rest(&still);
        assert!(rest.world[0].abs_diff_eq(Mat4::from_quat(turn), 1e-6));
    }
}
