//! Joint hierarchies for skinned meshes, with their rest pose.

use glam::{Mat4, Vec3};

/// A joint hierarchy for skinned meshes.
#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    pub name: String,
    pub joints: Vec<Joint>,
    /// Model-space joint matrices of the rest pose (MDR: frame 0), so that tags and attachments
    /// sit on their joints when no clip plays. Empty when the format has none.
    pub rest_pose: Vec<Mat4>,
}

#[derive(Debug, Clone)]
pub struct Joint {
    pub name: String,
    pub parent: Option<usize>,
    /// M2 pivot point (rotation and scale happen about it).
    pub pivot: Vec3,
    /// Spherical billboard (M2 bone flag 0x8): the joint turns to face the camera, see
    /// [`anim::Pose::view_from_model`](super::anim::Pose::view_from_model).
    pub billboard: bool,
}
