//! Appending one model's scene into another with every index shifted: how assembled scenes (a
//! park's placed items, a Quake 3 player's parts) are built. A model placed many times shares
//! its materials and images, and its meshes are marked as copies
//! ([`Scene::mesh_copies`]) so that renderers and exporters can share their geometry.
//!
//! Levels of detail are not carried over (an assembled scene has no single LOD list); every
//! other index the scene holds is.

use super::{Channel, Clip, Mesh, Node, Scene};

/// Which list an index points into, for [`Channel::reindexed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    Node,
    Mesh,
    Material,
    Skeleton,
}

/// Where one appended model's lists start in the scene it was appended to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offsets {
    pub nodes: usize,
    pub meshes: usize,
    pub materials: usize,
    pub images: usize,
    pub skeletons: usize,
}

impl Scene {
    /// Appends `model`'s nodes, meshes, skeletons, and (unless `shared` names where an earlier
    /// copy of the same model put them) its materials and images; its clips are not appended
    /// ([`Clip::shifted`] does that for the ones wanted). Returns where each list started.
    /// Meshes of a repeat are marked as copies of the first placement's meshes.
    pub fn append_model(&mut self, model: &Scene, shared: Option<&Offsets>) -> Offsets {
        let mut at = Offsets {
            nodes: self.nodes.len(),
            meshes: self.meshes.len(),
            materials: self.materials.len(),
            images: self.images.len(),
            skeletons: self.skeletons.len(),
        };
        match shared {
            Some(first) => {
                at.materials = first.materials;
                at.images = first.images;
            }
            None => {
                self.images.extend(model.images.iter().cloned());
                self.materials.extend(model.materials.iter().map(|m| {
                    let mut m = m.clone();
                    m.image = m.image.map(|i| i + at.images);
                    if let Some(layer) = &mut m.layer2 {
                        layer.image = layer.image.map(|i| i + at.images);
                    }
                    if let Some(cycle) = &mut m.image_cycle {
                        cycle.images.iter_mut().for_each(|i| *i += at.images);
                    }
                    m
                }));
            }
        }
        self.skeletons.extend(model.skeletons.iter().cloned());
        self.nodes.extend(model.nodes.iter().map(|n| shifted_node(n, &at)));
        if shared.is_some() || !self.mesh_copies.is_empty() || !model.mesh_copies.is_empty() {
            self.mesh_copies.resize(at.meshes, None);
        }
        self.meshes.extend(model.meshes.iter().map(|m| shifted_mesh(m, &at)));
        if let Some(first) = shared {
            self.mesh_copies.extend((0..model.meshes.len()).map(|m| Some(first.meshes + model.geometry_source(m))));
        } else if !self.mesh_copies.is_empty() {
            // The model's own copies (a ground's queue pieces) stay copies.
            self.mesh_copies.extend((0..model.meshes.len()).map(|m| {
                let source = model.geometry_source(m);
                (source != m).then_some(source + at.meshes)
            }));
        }
        self.hidden_nodes.extend(model.hidden_nodes.iter().map(|n| n + at.nodes));
        at
    }
}

fn shifted_node(node: &Node, at: &Offsets) -> Node {
    let mut n = node.clone();
    n.parent = n.parent.map(|p| p + at.nodes);
    n.children.iter_mut().for_each(|c| *c += at.nodes);
    n.mesh = n.mesh.map(|m| m + at.meshes);
    n.joint = n.joint.map(|(s, j)| (s + at.skeletons, j));
    if let Some(anchor) = &mut n.anchor {
        anchor.mesh += at.meshes;
    }
    n
}

fn shifted_mesh(mesh: &Mesh, at: &Offsets) -> Mesh {
    let mut m = mesh.clone();
    m.node = m.node.map(|n| n + at.nodes);
    m.submeshes.iter_mut().for_each(|s| s.material = s.material.map(|i| i + at.materials));
    if let Some(skin) = &mut m.skin {
        skin.skeleton += at.skeletons;
    }
    m
}

impl Channel {
    /// The same channel aimed at a model appended at `at`.
    pub fn shifted(&self, at: &Offsets) -> Channel {
        self.reindexed(&|kind, i| {
            i + match kind {
                IndexKind::Node => at.nodes,
                IndexKind::Mesh => at.meshes,
                IndexKind::Material => at.materials,
                IndexKind::Skeleton => at.skeletons,
            }
        })
    }

    /// The same channel with each index it targets passed through `map`.
    pub fn reindexed(&self, map: &dyn Fn(IndexKind, usize) -> usize) -> Channel {
        let mut c = self.clone();
        match &mut c {
            Channel::NodeRotation { node, .. }
            | Channel::NodeRotationEased { node, .. }
            | Channel::NodePosition { node, .. }
            | Channel::NodeAxisScale { node, .. }
            | Channel::NodePathProgress { node, .. }
            | Channel::NodeFrames { node, .. }
            | Channel::NodeVisibility { node, .. } => *node = map(IndexKind::Node, *node),
            Channel::VertexMorph { mesh, .. } | Channel::VertexFrames { mesh, .. } | Channel::UvKeys { mesh, .. } => {
                *mesh = map(IndexKind::Mesh, *mesh)
            }
            Channel::PackedFrames(p) => p.mesh = map(IndexKind::Mesh, p.mesh),
            Channel::BoneFrames { skeleton, .. } | Channel::BoneTracks { skeleton, .. } => {
                *skeleton = map(IndexKind::Skeleton, *skeleton)
            }
            Channel::MaterialColor { material, .. }
            | Channel::MaterialAlpha { material, .. }
            | Channel::UvTransform { material, .. } => *material = map(IndexKind::Material, *material),
        }
        c
    }

    /// Whether the channel animates a material (and so cannot be shared by two placements
    /// that play different times).
    pub fn animates_material(&self) -> bool {
        matches!(self, Channel::MaterialColor { .. } | Channel::MaterialAlpha { .. } | Channel::UvTransform { .. })
    }
}

impl Clip {
    /// The same clip aimed at a model appended at `at`, renamed.
    pub fn shifted(&self, at: &Offsets, name: String) -> Clip {
        Clip {
            name,
            source: self.source.clone(),
            start: self.start,
            end: self.end,
            rate: self.rate,
            channels: self.channels.iter().map(|c| c.shifted(at)).collect(),
            tracks: self.tracks.clone(),
            warnings: self.warnings.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{FormatKind, Key, Material, NodeKind, SceneKind, Submesh, anim::Pose};
    use glam::{Mat4, Vec3};

    fn one_node_model() -> Scene {
        let mut model = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let mut root = Node::new("root", NodeKind::Transform, Mat4::IDENTITY);
        root.children.push(1);
        let mut arm = Node::new("arm", NodeKind::Mesh, Mat4::from_translation(Vec3::X));
        arm.parent = Some(0);
        arm.mesh = Some(0);
        model.nodes = vec![root, arm];
        let mut mesh = Mesh { node: Some(1), ..Mesh::default() };
        mesh.submeshes.push(Submesh {
            material: Some(0),
            first_triangle: 0,
            triangle_count: 0,
            vertex_start: 0,
            vertex_end: 0,
        });
        model.meshes.push(mesh);
        model.materials.push(Material::new("m"));
        model
    }

    #[test]
    fn a_repeat_shares_materials_and_marks_its_meshes_as_copies() {
        let model = one_node_model();
        let mut park = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let first = park.append_model(&model, None);
        let second = park.append_model(&model, Some(&first));
        assert_eq!((first.nodes, second.nodes, second.meshes, second.materials), (0, 2, 1, 0));
        assert_eq!(park.materials.len(), 1);
        assert_eq!(park.nodes[3].parent, Some(2));
        assert_eq!(park.nodes[3].mesh, Some(1));
        assert_eq!(park.meshes[1].node, Some(3));
        assert_eq!(park.meshes[1].submeshes[0].material, Some(0));
        assert_eq!(park.mesh_copies, vec![None, Some(0)]);
        assert_eq!(park.geometry_source(1), 0);
    }

    #[test]
    fn a_shifted_clip_moves_the_copy_it_was_aimed_at() {
        let model = one_node_model();
        let mut park = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let first = park.append_model(&model, None);
        let second = park.append_model(&model, Some(&first));
        let hide = Channel::NodeVisibility { node: 1, keys: vec![Key { time: 0.0, value: false }] };
        let clip = Clip {
            name: "C".into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 30.0,
            channels: vec![hide],
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        park.clips.push(clip.shifted(&second, "copy: C".into()));
        let pose = Pose::at(&park, Some(0), 0.5);
        assert_eq!(pose.visible, vec![true, true, true, false]);
    }
}
