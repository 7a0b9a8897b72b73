//! Joint matrices and skinning: bone frames (MDR) and keyed bone tracks (M2) into model-space
//! joint matrices, billboard joints turned to the camera, and linear blend skinning.

use glam::{Mat4, Quat, Vec3, Vec4};

use super::sample::{frame_segment, sample_curve};
use crate::scene::{JointTracks, Skeleton, SkinWeights};

pub(super) fn sample_matrix_frames(times: &[f32], frames: &[Vec<Mat4>], time: f32, out: &mut Vec<Mat4>) {
    let Some((a, b, f)) = frame_segment(times, time) else { return };
    let (Some(fa), Some(fb)) = (frames.get(a), frames.get(b)) else { return };
    out.clear();
    // Element-wise blend, as the Quake 3 engine does for MDR bones.
    out.extend(fa.iter().zip(fb).map(|(ma, mb)| *ma * (1.0 - f) + *mb * f));
}

pub(super) fn evaluate_bone_tracks(
    skeleton: &Skeleton,
    tracks: &[JointTracks],
    [time, global]: [f32; 2],
    out: &mut Vec<Mat4>,
) {
    let count = skeleton.joints.len();
    let mut locals = vec![Mat4::IDENTITY; count];
    for track in tracks {
        let Some(joint) = skeleton.joints.get(track.joint) else { continue };
        let [tt, rt, st] = track.timing;
        let t = sample_curve(&track.translation, tt.apply(time, global)).unwrap_or(Vec3::ZERO);
        let r = sample_curve(&track.rotation, rt.apply(time, global)).unwrap_or(Quat::IDENTITY);
        let s = sample_curve(&track.scale, st.apply(time, global)).unwrap_or(Vec3::ONE);
        if let Some(local) = locals.get_mut(track.joint) {
            *local = Mat4::from_translation(joint.pivot + t)
                * Mat4::from_quat(r)
                * Mat4::from_scale(s)
                * Mat4::from_translation(-joint.pivot);
        }
    }
    out.clear();
    out.resize(count, Mat4::IDENTITY);
    for i in 0..count {
        let local = locals.get(i).copied().unwrap_or(Mat4::IDENTITY);
        // Parents precede children in M2 bone tables; a parent at or after the joint is ignored.
        let parent = skeleton.joints.get(i).and_then(|j| j.parent).filter(|&p| p < i);
        let parent_world = parent.and_then(|p| out.get(p)).copied().unwrap_or(Mat4::IDENTITY);
        if let Some(slot) = out.get_mut(i) {
            *slot = parent_world * local;
        }
    }
}

/// Turns each billboard joint of `skeleton` to face the camera: its matrix keeps where its pivot
/// lands and its scale, and its rotation becomes the camera-facing frame (+X towards the eye,
/// +Y along the screen's up, +Z = X × Y), whatever its track or parents say; descendants keep
/// their local transforms under the turned joint. Returns whether any joint changed.
pub fn face_camera(skeleton: &Skeleton, view_from_model: Mat4, joints: &mut [Mat4]) -> bool {
    if !skeleton.joints.iter().any(|j| j.billboard) || joints.len() != skeleton.joints.len() {
        return false;
    }
    let model_from_view = view_from_model.inverse();
    if !model_from_view.is_finite() {
        return false;
    }
    let eye = model_from_view.transform_point3(Vec3::ZERO);
    let screen_up = model_from_view.transform_vector3(Vec3::Y).normalize_or(Vec3::Y);
    let original = joints.to_vec();
    let mut moved = vec![false; joints.len()];
    for (i, joint) in skeleton.joints.iter().enumerate() {
        let parent = joint.parent.filter(|&p| p < i);
        if let Some(p) = parent
            && moved.get(p).copied().unwrap_or(false)
            && let (Some(&old_parent), Some(&new_parent), Some(&old)) =
                (original.get(p), joints.get(p), original.get(i))
            && old_parent.determinant().abs() > 1e-12
            && let Some(slot) = joints.get_mut(i)
        {
            // Same local transform under the turned parent.
            *slot = new_parent * old_parent.inverse() * old;
            if let Some(m) = moved.get_mut(i) {
                *m = true;
            }
        }
        if !joint.billboard {
            continue;
        }
        let Some(slot) = joints.get_mut(i) else { continue };
        let origin = slot.transform_point3(joint.pivot);
        let look = (eye - origin).normalize_or(Vec3::X);
        let right = screen_up.cross(look).normalize_or(Vec3::Z);
        let up = look.cross(right);
        let facing = glam::Mat3::from_cols(look, up, look.cross(up));
        let scale = Vec3::new(
            slot.x_axis.truncate().length(),
            slot.y_axis.truncate().length(),
            slot.z_axis.truncate().length(),
        );
        *slot = Mat4::from_translation(origin)
            * Mat4::from_mat3(facing)
            * Mat4::from_scale(scale)
            * Mat4::from_translation(-joint.pivot);
        if let Some(m) = moved.get_mut(i) {
            *m = true;
        }
    }
    moved.iter().any(|&m| m)
}

/// Linear blend skinning of positions and normals per source vertex, as the Quake 3 engine does
/// for MDR: `pos = Σ weight · (joint · offset)` and `normal = Σ weight · (joint₃ₓ₃ · normal)`.
/// Normals come out unnormalised; callers renormalise. Out-of-range joints add nothing.
pub fn skin_positions_and_normals(skin: &SkinWeights, joints: &[Mat4], positions: &mut [Vec3], normals: &mut [Vec3]) {
    for ((position, normal), &(start, count)) in positions.iter_mut().zip(normals.iter_mut()).zip(&skin.ranges) {
        let end = start.saturating_add(count) as usize;
        let Some(influences) = skin.influences.get(start as usize..end) else { continue };
        // Four-lane sums: `Mat4 * Vec4` is one SIMD multiply-add chain per influence.
        let (mut p, mut n) = (Vec4::ZERO, Vec4::ZERO);
        for inf in influences {
            if let Some(m) = joints.get(inf.joint as usize) {
                p += (*m * inf.offset.extend(1.0)) * inf.weight;
                n += (*m * inf.normal.extend(0.0)) * inf.weight;
            }
        }
        *position = p.truncate();
        *normal = n.truncate();
    }
}

/// `pos = Σ weight · (joint_matrix · offset)` per source vertex.
pub fn skin_positions(skin: &SkinWeights, joints: &[Mat4], out: &mut [Vec3]) {
    for (vertex, &(start, count)) in out.iter_mut().zip(&skin.ranges) {
        let end = start.saturating_add(count) as usize;
        let Some(influences) = skin.influences.get(start as usize..end) else { continue };
        let mut p = Vec3::ZERO;
        for inf in influences {
            if let Some(m) = joints.get(inf.joint as usize) {
                p += m.transform_point3(inf.offset) * inf.weight;
            }
        }
        *vertex = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn billboard_joints_face_the_camera_and_carry_their_children() {
        let joint = |parent, pivot, billboard| crate::scene::Joint { name: String::new(), parent, pivot, billboard };
        let skeleton = crate::scene::Skeleton {
            name: "s".into(),
            joints: vec![joint(None, Vec3::X, true), joint(Some(0), Vec3::new(2.0, 0.0, 0.0), false)],
            rest_pose: vec![Mat4::IDENTITY; 2],
        };
        let eye = Vec3::new(1.0, 0.0, 10.0);
        let view = glam::camera::rh::view::look_at_mat4(eye, Vec3::X, Vec3::Y);
        let mut joints = vec![Mat4::IDENTITY; 2];
        assert!(face_camera(&skeleton, view, &mut joints));
        // The pivot stays; +X points at the eye; +Y stays the screen's up.
        assert!(joints[0].transform_point3(Vec3::X).abs_diff_eq(Vec3::X, 1e-5));
        assert!(joints[0].transform_vector3(Vec3::X).abs_diff_eq(Vec3::Z, 1e-5), "{:?}", joints[0]);
        assert!(joints[0].transform_vector3(Vec3::Y).abs_diff_eq(Vec3::Y, 1e-5));
        assert!((glam::Mat3::from_mat4(joints[0]).determinant() - 1.0).abs() < 1e-5, "a rotation, not a mirror");
        // The child, one unit along the parent's +X, now sits one unit towards the eye.
        let child = joints[1].transform_point3(Vec3::new(2.0, 0.0, 0.0));
        assert!(child.abs_diff_eq(Vec3::new(1.0, 0.0, 1.0), 1e-5), "{child:?}");
        // Without billboard joints nothing changes.
        let plain = crate::scene::Skeleton { joints: vec![joint(None, Vec3::X, false)], ..skeleton.clone() };
        let mut joints = vec![Mat4::IDENTITY];
        assert!(!face_camera(&plain, view, &mut joints));
        assert_eq!(joints[0], Mat4::IDENTITY);
    }
}
