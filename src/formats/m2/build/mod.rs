//! Builds the format-neutral scene from a decoded `.m2` and one `.skin` profile. This module
//! owns the order of the build, the root node, the bone skeleton and the marker nodes
//! (attachments, events, lights, cameras, emitters); the rest lives beside it: geometry in
//! `meshes`, materials and second texture layers in `materials`, clips and their
//! channels in `clips`, track keys and the key budget in `keys`, info tables in
//! `details`. Every index into the .m2 or the skin is checked where it is used; a bad one
//! drops the thing it names with a warning.

mod clips;
mod details;
mod keys;
mod materials;
mod meshes;
#[cfg(test)]
mod test_models;

use glam::Mat4;

pub use clips::{anim_file_suffix, sequence_name};
pub use materials::{blend_mode, layer_combine, texture_wrap};

use super::axes;
use super::layout::*;
use super::model::{M2Model, MarkerKind};
use super::names;
use super::skin::Skin;
use crate::scene::{FormatKind, Joint, Node, NodeKind, RawField, Scene, SceneKind, Skeleton};

/// What the scene builder needs besides the decoded files.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The texture file used for run-time (non-zero type) textures, which have no name in the
    /// model; `None` leaves them without a texture.
    pub replaceable_texture: Option<String>,
}

/// Builds the scene. `skin` is the chosen profile (`None`: no geometry, only the skeleton,
/// clips and markers).
///
/// Clips view the model's track keys ([`Track::curve`](super::tracks::Track::curve)); nothing is
/// copied or moved out.
pub fn build(model: &M2Model, skin: Option<&Skin>, options: &BuildOptions, input_len: u64) -> Scene {
    let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
    scene.version = model.version;
    scene.warnings = model.warnings.clone();
    scene.raw = vec![
        RawField::new("global flags", HDR_FLAGS, u64::from(model.flags)),
        RawField::new("skin profile count", HDR_SKIN_PROFILE_COUNT, u64::from(model.skin_profile_count)),
    ];
    let name = if model.name.is_empty() { "model".to_string() } else { model.name.clone() };
    scene.nodes.push(Node::new(name.clone(), NodeKind::Transform, Mat4::IDENTITY));

    build_skeleton(model, &mut scene);
    let mesh_of_submesh = match skin {
        Some(skin) => meshes::build_meshes(model, skin, &mut scene),
        None => Vec::new(),
    };
    let unit_materials = match skin {
        Some(skin) => materials::build_materials(model, skin, &mesh_of_submesh, options, &mut scene),
        None => Vec::new(),
    };
    clips::build_clips(model, skin, &unit_materials, input_len, &mut scene);
    build_markers(model, &mut scene);
    details::model_details(model, skin, options, &mut scene);
    scene
}

fn build_skeleton(model: &M2Model, scene: &mut Scene) {
    if model.bones.is_empty() {
        return;
    }
    let mut skeleton =
        Skeleton { name: "bones".into(), joints: Vec::with_capacity(model.bones.len()), ..Default::default() };
    for (i, bone) in model.bones.iter().enumerate() {
        // Parents must point backwards: that rules out cycles and lets joints resolve in order.
        let parent = match usize::try_from(bone.parent) {
            Ok(p) if p < i => Some(p),
            Ok(p) => {
                scene.warnings.push(format!("bone {i}: parent {p} does not precede it; treated as a root"));
                None
            }
            Err(_) => None,
        };
        let name = match names::key_bone_name(bone.key_bone_id) {
            Some(key) => format!("bone {i} {key}"),
            None => format!("bone {i}"),
        };
        skeleton.joints.push(Joint {
            name: name.clone(),
            parent,
            pivot: axes::position(bone.pivot),
            billboard: bone.flags & BONE_FLAG_BILLBOARD != 0,
        });
        let mut node = Node::new(name, NodeKind::Bone, Mat4::from_translation(axes::position(bone.pivot)));
        node.parent = Some(0);
        node.joint = Some((0, i));
        node.raw = vec![
            RawField::new("flags", 0, u64::from(bone.flags)),
            RawField::new("key bone id", 0, bone.key_bone_id as u64),
            RawField::new("submesh", 0, u64::from(bone.submesh)),
        ];
        let index = scene.nodes.len();
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(index);
        }
    }
    scene.skeletons.push(skeleton);
}

fn build_markers(model: &M2Model, scene: &mut Scene) {
    let bone_count = model.bones.len();
    let mut counters = [0usize; 6];
    for marker in &model.markers {
        let k = marker.kind as usize;
        let n = counters.get(k).copied().unwrap_or(0);
        if let Some(c) = counters.get_mut(k) {
            *c += 1;
        }
        let mut node = Node::new(
            format!("{} {n}: {}", marker.kind.label(), marker.label),
            NodeKind::Tag,
            Mat4::from_translation(axes::position(marker.position)),
        );
        node.parent = Some(0);
        if usize::from(marker.bone) < bone_count && marker.kind != MarkerKind::Camera {
            node.joint = Some((0, usize::from(marker.bone)));
        }
        let index = scene.nodes.len();
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(index);
        }
    }
}
