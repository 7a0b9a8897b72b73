//! Small matrix helpers the scene needs without decomposing transforms: shear detection and
//! the orthonormal polar factor used to swap a node's orientation while keeping its shear.

use glam::{Mat3, Mat4, Vec3};

/// How far (as |cos| of the angle) two normalised axes may lean before they count as sheared.
/// Float noise in authored files is around 1e-6; a real shear is orders of magnitude above.
pub const SHEAR_TOLERANCE: f32 = 1e-3;

/// Whether the upper 3x3's axes are not mutually perpendicular. Non-uniform scale alone is
/// not shear. A degenerate (zero-length) axis counts as not sheared.
pub fn is_sheared(m: &Mat4) -> bool {
    let axes = [m.x_axis.truncate(), m.y_axis.truncate(), m.z_axis.truncate()];
    let unit: Vec<Option<Vec3>> = axes.iter().map(|a| a.try_normalize()).collect();
    let pairs = [(0, 1), (0, 2), (1, 2)];
    pairs.iter().any(|&(i, j)| match (unit.get(i).copied().flatten(), unit.get(j).copied().flatten()) {
        (Some(a), Some(b)) => a.dot(b).abs() > SHEAR_TOLERANCE,
        _ => false,
    })
}

/// The orthonormal factor `U` of the polar decomposition `A = U·P` of the upper 3x3, by the
/// Newton iteration `U ← (U + U⁻ᵀ)/2`, which converges quadratically for invertible input.
/// A singular matrix yields the identity. A reflection stays a reflection (det -1).
pub fn polar_orthonormal(m: &Mat4) -> Mat3 {
    let a = Mat3::from_mat4(*m);
    if !a.is_finite() || a.determinant().abs() < 1e-12 {
        return Mat3::IDENTITY;
    }
    let mut u = a;
    for _ in 0..32 {
        let inv_t = u.inverse().transpose();
        let next = (u + inv_t) * 0.5;
        let delta = (next - u).to_cols_array().iter().fold(0f32, |acc, v| acc.max(v.abs()));
        u = next;
        if delta < 1e-7 {
            break;
        }
    }
    if u.is_finite() { u } else { Mat3::IDENTITY }
}

/// A node's authored orientation: the proper rotation that its rotation keys replace. It is the
/// polar factor `U` of [`polar_orthonormal`]; a mirrored node's `U` is a reflection, and `-U`
/// is then its rotation, the mirror staying in the stretch. So `local · U⁻¹ · R(q)` keeps the
/// mirror under every key, and a key holding the authored orientation gives the authored matrix
/// back. `-U` is the rotation Shoemake's `decomp_affine` (the decomposition 3ds Max uses) gives
/// a mirrored matrix: it takes the sign of the determinant out as `f = -1` and the rotation of
/// `f·M`. No TPW file with a mirrored, rotation-keyed node has been seen to confirm it. The
/// glTF export splits nodes around the same rotation, so its keyed poses are the viewer's.
pub fn authored_orientation(local: &Mat4) -> Mat3 {
    let u = polar_orthonormal(local);
    if u.determinant() < 0.0 { -u } else { u }
}

/// The inverse of [`authored_orientation`] (its transpose), as a 4x4 with no translation.
pub fn authored_orientation_inverse(local: &Mat4) -> Mat4 {
    Mat4::from_mat3(authored_orientation(local).transpose())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn non_uniform_scale_is_not_shear() {
        let m = Mat4::from_scale_rotation_translation(Vec3::new(1.0, 3.0, 0.5), Quat::from_rotation_y(0.7), Vec3::ONE);
        assert!(!is_sheared(&m));
    }

    #[test]
    fn leaning_axis_is_shear() {
        let mut m = Mat4::IDENTITY;
        m.y_axis.x = 0.3;
        assert!(is_sheared(&m));
    }

    #[test]
    fn polar_factor_of_rotation_times_scale_is_the_rotation() {
        let r = Quat::from_rotation_z(1.1);
        let m = Mat4::from_quat(r) * Mat4::from_scale(Vec3::new(2.0, 0.5, 4.0));
        let u = polar_orthonormal(&m);
        assert!(u.abs_diff_eq(Mat3::from_quat(r), 1e-5));
    }

    #[test]
    fn a_mirrored_node_keeps_its_mirror_under_rotation_keys() {
        let authored = Quat::from_rotation_y(0.6);
        // Mirrored in x, stretched, sheared a little, moved.
        let mut m =
            Mat4::from_scale_rotation_translation(Vec3::new(-1.5, 0.8, 2.0), authored, Vec3::new(1.0, 2.0, 3.0));
        m.y_axis.x += 0.2;
        assert!(Mat3::from_mat4(m).determinant() < 0.0);
        let inverse = authored_orientation_inverse(&m);
        let rotation = Mat3::from_mat4(inverse).transpose();
        assert!((rotation.determinant() - 1.0).abs() < 1e-5, "a proper rotation");
        // The key that holds the authored orientation gives the authored matrix back.
        let keyed = m * inverse * Mat4::from_mat3(rotation);
        assert!(keyed.abs_diff_eq(m, 1e-4), "{keyed:?} vs {m:?}");
        for q in [Quat::IDENTITY, Quat::from_rotation_x(std::f32::consts::PI), Quat::from_rotation_z(0.9)] {
            let keyed = m * inverse * Mat4::from_quat(q);
            assert!(Mat3::from_mat4(keyed).determinant() < 0.0, "the mirror stays under {q:?}");
        }
        // An unmirrored node is unchanged by the rule.
        let plain = Mat4::from_scale_rotation_translation(Vec3::new(1.5, 0.8, 2.0), authored, Vec3::ONE);
        let inverse = authored_orientation_inverse(&plain);
        assert!(inverse.abs_diff_eq(Mat4::from_quat(authored.inverse()), 1e-5));
    }

    #[test]
    fn polar_factor_of_sheared_matrix_is_orthonormal() {
        let mut m = Mat4::from_quat(Quat::from_rotation_y(0.4));
        m.y_axis.x += 0.5;
        let u = polar_orthonormal(&m);
        assert!((u * u.transpose()).abs_diff_eq(Mat3::IDENTITY, 1e-5));
        assert!((u.determinant() - 1.0).abs() < 1e-5);
    }
}
