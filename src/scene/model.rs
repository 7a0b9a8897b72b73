//! The [`Scene`] itself: which format made it, its lists of nodes, meshes, materials,
//! skeletons, clips and images, and the questions asked of the whole (world matrices, bounds,
//! which images are drawn, keeping one clip).

use glam::Mat4;
use serde::Serialize;

use super::{Aabb, Channel, Clip, DetailSection, Material, Mesh, Node, OpenChoice, RawField, SceneImage, Skeleton};

/// Which decoder produced a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FormatKind {
    #[serde(rename = "tpw-md2")]
    TpwMd2,
    /// A Theme Park World park from a save, assembled from its items' models.
    #[serde(rename = "tpw-park")]
    TpwPark,
    #[serde(rename = "quake2-md2")]
    Quake2Md2,
    #[serde(rename = "quake3-mdr")]
    Quake3Mdr,
    #[serde(rename = "quake3-md3")]
    Quake3Md3,
    #[serde(rename = "quake1-mdl")]
    Quake1Mdl,
    #[serde(rename = "wow-m2")]
    WowM2,
    #[serde(rename = "wow-skin")]
    WowSkin,
}

impl FormatKind {
    /// The short identifier used in `info --json` and error messages.
    pub fn id(self) -> &'static str {
        match self {
            FormatKind::TpwMd2 => "tpw-md2",
            FormatKind::TpwPark => "tpw-park",
            FormatKind::Quake2Md2 => "quake2-md2",
            FormatKind::Quake3Mdr => "quake3-mdr",
            FormatKind::Quake3Md3 => "quake3-md3",
            FormatKind::Quake1Mdl => "quake1-mdl",
            FormatKind::WowM2 => "wow-m2",
            FormatKind::WowSkin => "wow-skin",
        }
    }

    /// A human name for summaries.
    pub fn label(self) -> &'static str {
        match self {
            FormatKind::TpwMd2 => "Theme Park World MD2",
            FormatKind::TpwPark => "Theme Park World park",
            FormatKind::Quake2Md2 => "Quake II MD2",
            FormatKind::Quake3Mdr => "Quake 3 MDR",
            FormatKind::Quake3Md3 => "Quake 3 MD3",
            FormatKind::Quake1Mdl => "Quake MDL",
            FormatKind::WowM2 => "World of Warcraft M2",
            FormatKind::WowSkin => "World of Warcraft skin profile",
        }
    }
}

/// Whether the opened file held geometry or only animation for another file's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SceneKind {
    Mesh,
    Animation,
}

/// One level of detail (MDR LODs): the meshes drawn at that level and the transform-only node that
/// groups them. [`anim::Pose::lod`](super::anim::Pose::lod) picks the level; the others are hidden.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LodLevel {
    pub name: String,
    pub node: Option<usize>,
    pub meshes: Vec<usize>,
}

/// A decoded model, ready for the renderer and the UI.
#[derive(Debug, Clone)]
pub struct Scene {
    pub format: FormatKind,
    pub kind: SceneKind,
    pub version: u32,
    /// The file this scene was opened from.
    pub path: Option<std::path::PathBuf>,
    pub nodes: Vec<Node>,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    pub skeletons: Vec<Skeleton>,
    pub clips: Vec<Clip>,
    /// The clip to play first (the opened animation file, for instance).
    pub default_clip: Option<usize>,
    /// Header fields kept raw for reverse engineers.
    pub raw: Vec<RawField>,
    pub warnings: Vec<String>,
    /// Levels of detail, finest first; empty when the format has none (every mesh is drawn).
    pub lods: Vec<LodLevel>,
    /// Format-specific tables for `info` and the panel (M2 skins, texture units, sequences...).
    pub details: Vec<DetailSection>,
    /// Extra names that select a clip in [`resolve_clip`](super::resolve_clip) (M2: `id:5`,
    /// `id:0.1` for animation id and variation), checked after clip names.
    pub clip_aliases: Vec<(String, usize)>,
    /// Choices the opener made among sibling files that the user may change (M2: the skin
    /// profile, the image used for run-time texture slots); [`crate::formats::open_with`]
    /// reopens the file with other picks.
    pub choices: Vec<OpenChoice>,
    /// A pose the viewer offers as "as built": the last frame of this clip is how the finished
    /// item looks (TPW: the construction clip, role C).
    pub as_built: Option<usize>,
    /// The textures materials refer to, one per distinct name ([`Material::image`]).
    pub images: Vec<SceneImage>,
    /// The folders the texture resolver searched, in order (for the UI's "where did it look").
    pub image_search: Vec<String>,
    /// Channels that play on the global clock when no clip is chosen (M2 tracks tied to a
    /// global sequence, which clips also carry): the rest pose keeps them moving.
    pub global_channels: Vec<Channel>,
    /// Degrees per second the game turns the model about its up axis wherever it stands
    /// (Quake's `EF_ROTATE` items, 100); the viewer turns it so on the global clock
    /// ([`super::anim::Pose::turn_about_up`]). `None` for a model that stands still.
    pub spin_degrees_per_sec: Option<f32>,
    /// The models an assembled scene is made of (a park's items, a player's parts); empty for
    /// a single model.
    pub parts: Vec<super::Part>,
    /// Clips that play at once, each on its own clock (see [`super::Layer`]). When there are
    /// any, the scene plays them all and [`Scene::first_clip`] is `None`.
    pub layers: Vec<super::Layer>,
    /// Nodes hidden whatever plays (a park item's hidden nodes, from its save).
    pub hidden_nodes: Vec<usize>,
    /// Per mesh, the earlier mesh whose geometry it repeats ([`Scene::geometry_source`]);
    /// empty when no mesh is a copy.
    pub mesh_copies: Vec<Option<usize>>,
}

impl Scene {
    pub fn new(format: FormatKind, kind: SceneKind) -> Self {
        Self {
            format,
            kind,
            version: 0,
            path: None,
            nodes: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            skeletons: Vec::new(),
            clips: Vec::new(),
            default_clip: None,
            raw: Vec::new(),
            warnings: Vec::new(),
            lods: Vec::new(),
            details: Vec::new(),
            clip_aliases: Vec::new(),
            choices: Vec::new(),
            as_built: None,
            images: Vec::new(),
            image_search: Vec::new(),
            global_channels: Vec::new(),
            spin_degrees_per_sec: None,
            parts: Vec::new(),
            layers: Vec::new(),
            hidden_nodes: Vec::new(),
            mesh_copies: Vec::new(),
        }
    }

    /// Drops every clip but `clip` (which becomes clip 0), for an export of one animation; the
    /// default clip, the as-built pose and the aliases follow it or go.
    pub fn keep_only_clip(&mut self, clip: usize) {
        let kept = std::mem::take(&mut self.clips).into_iter().nth(clip);
        let follows = |c: Option<usize>| c.filter(|&c| c == clip).map(|_| 0);
        self.default_clip = follows(self.default_clip).filter(|_| kept.is_some());
        self.as_built = follows(self.as_built).filter(|_| kept.is_some());
        self.clip_aliases.retain(|(_, c)| *c == clip && kept.is_some());
        self.clip_aliases.iter_mut().for_each(|(_, c)| *c = 0);
        self.clips.extend(kept);
    }

    /// Drops every channel that animates a material (colour, alpha, texture transform) from the
    /// clips and the global channels, for an export to readers that cannot take them; returns
    /// how many clips' channels went.
    pub fn drop_material_animation(&mut self) -> usize {
        let animates_material = |c: &Channel| {
            matches!(c, Channel::MaterialColor { .. } | Channel::MaterialAlpha { .. } | Channel::UvTransform { .. })
        };
        self.global_channels.retain(|c| !animates_material(c));
        let mut dropped = 0;
        for clip in &mut self.clips {
            let before = clip.channels.len();
            clip.channels.retain(|c| !animates_material(c));
            dropped += before - clip.channels.len();
        }
        dropped
    }

    /// The materials whose colour or alpha a clip or a global channel animates, in order.
    pub fn animated_materials(&self) -> Vec<usize> {
        let mut materials: Vec<usize> = (self.clips.iter().flat_map(|c| &c.channels))
            .chain(&self.global_channels)
            .filter_map(|c| match c {
                Channel::MaterialColor { material, .. } | Channel::MaterialAlpha { material, .. } => Some(*material),
                _ => None,
            })
            .collect();
        materials.sort_unstable();
        materials.dedup();
        materials
    }

    /// Per scene image, whether some face draws with it (through its submesh's material); a
    /// Quake II model's other skins, for one, are named but not drawn.
    pub fn drawn_images(&self) -> Vec<bool> {
        let mut drawn = vec![false; self.images.len()];
        for sub in self.meshes.iter().flat_map(|m| &m.submeshes) {
            let image = sub.material.and_then(|m| self.materials.get(m)).and_then(|m| m.image);
            if let Some(slot) = image.and_then(|i| drawn.get_mut(i)) {
                *slot = true;
            }
        }
        drawn
    }

    /// The image material `material` draws with, if it has one.
    pub fn material_image(&self, material: usize) -> Option<&SceneImage> {
        self.materials.get(material).and_then(|m| m.image).and_then(|i| self.images.get(i))
    }

    /// Whether something moves on the global clock whatever clip plays (a spin, a material's
    /// image cycle), so the viewer keeps the clock running on a still clip.
    pub fn moves_on_global_clock(&self) -> bool {
        self.spin_degrees_per_sec.is_some_and(|d| d != 0.0) || self.materials.iter().any(|m| m.image_cycle.is_some())
    }

    /// The clip the viewer plays first, and `--frame` without `--anim` poses: the file's own
    /// clip ([`Scene::default_clip`]) when valid, else the first clip, else none (rest pose);
    /// none for a scene with [`Scene::layers`], which plays them all.
    pub fn first_clip(&self) -> Option<usize> {
        if !self.layers.is_empty() {
            return None;
        }
        self.default_clip.filter(|&c| c < self.clips.len()).or((!self.clips.is_empty()).then_some(0))
    }

    /// Indices of root nodes, in order.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()).map(|(i, _)| i)
    }

    /// World matrices for the given local matrices (one per node), parents first.
    /// Parent links are acyclic in every decoded scene ([`Scene::validate`]); for a scene built
    /// by hand and never validated, a cycle is broken by treating the
    /// node as a root, so this always terminates.
    pub fn world_matrices(&self, locals: &[Mat4]) -> Vec<Mat4> {
        let n = self.nodes.len();
        let mut world: Vec<Option<Mat4>> = vec![None; n];
        let mut chain = Vec::new();
        for start in 0..n {
            // Walk up to the first resolved ancestor, then resolve back down.
            chain.clear();
            let mut cursor = Some(start);
            while let Some(i) = cursor {
                if world.get(i).copied().flatten().is_some() || chain.contains(&i) || chain.len() > n {
                    break;
                }
                chain.push(i);
                cursor = self.nodes.get(i).and_then(|node| node.parent);
            }
            let mut parent_world = cursor.and_then(|i| world.get(i).copied().flatten()).unwrap_or(Mat4::IDENTITY);
            for &i in chain.iter().rev() {
                let local = locals.get(i).copied().unwrap_or(Mat4::IDENTITY);
                parent_world *= local;
                if let Some(slot) = world.get_mut(i) {
                    *slot = Some(parent_world);
                }
            }
        }
        world.into_iter().map(|m| m.unwrap_or(Mat4::IDENTITY)).collect()
    }

    /// World matrices of the rest pose.
    pub fn rest_world_matrices(&self) -> Vec<Mat4> {
        let locals: Vec<Mat4> = self.nodes.iter().map(|n| n.local).collect();
        self.world_matrices(&locals)
    }

    /// The bounding box of every mesh in world space, in the rest pose.
    pub fn bounds(&self) -> Aabb {
        let world = self.rest_world_matrices();
        let mut out = Aabb::EMPTY;
        for mesh in &self.meshes {
            let m = mesh.node.and_then(|n| world.get(n)).copied().unwrap_or(Mat4::IDENTITY);
            out = out.union(&mesh.bounds.transformed(&m));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::NodeKind;
    use glam::Vec3;

    /// Keeping one clip moves it to 0 and with it what pointed at it; what pointed elsewhere goes.
    #[test]
    fn keeping_one_clip_follows_it_with_the_default_aliases_and_as_built() {
        let clip = |name: &str| Clip {
            name: name.into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 10.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.clips = vec![clip("C"), clip("M1"), clip("M2")];
        scene.default_clip = Some(1);
        scene.as_built = Some(0);
        scene.clip_aliases = vec![("first".into(), 0), ("open".into(), 1)];
        scene.keep_only_clip(1);
        assert_eq!(scene.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["M1"]);
        assert_eq!((scene.default_clip, scene.as_built), (Some(0), None));
        assert_eq!(scene.clip_aliases, [("open".to_string(), 0)]);
        // A clip that is not there leaves none.
        scene.keep_only_clip(5);
        assert!(scene.clips.is_empty() && scene.default_clip.is_none() && scene.clip_aliases.is_empty());
    }

    fn node(parent: Option<usize>, t: Vec3) -> Node {
        let mut n = Node::new("n", NodeKind::Transform, Mat4::from_translation(t));
        n.parent = parent;
        n
    }

    #[test]
    fn world_is_parent_times_local() {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.nodes = vec![node(None, Vec3::X), node(Some(0), Vec3::Y), node(Some(1), Vec3::Z)];
        let world = scene.rest_world_matrices();
        assert_eq!(world[2].transform_point3(Vec3::ZERO), Vec3::new(1.0, 1.0, 1.0));
    }

    #[test]
    fn world_matrices_survive_a_cycle() {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.nodes = vec![node(Some(1), Vec3::X), node(Some(0), Vec3::Y)];
        let world = scene.rest_world_matrices();
        assert_eq!(world.len(), 2);
    }
}
