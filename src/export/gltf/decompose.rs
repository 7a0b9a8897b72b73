//! Splits a scene node's local matrix into glTF TRS nodes. glTF requires every node matrix to
//! be a TRS; a sheared matrix (TPW has them) becomes a chain of three TRS nodes from its polar
//! decomposition, so the tree keeps its exact transforms and a rotation channel still has one
//! node whose rotation it replaces, as the viewer does.

use glam::{Mat3, Mat4, Quat, Vec3};

use crate::scene::math;

/// One glTF node's transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Trs {
    pub const IDENTITY: Trs = Trs { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// How one scene node is written: a single TRS node, or the chain `outer · middle · inner`
/// where only `inner` is ever rotated by a channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeTransform {
    Single(Trs),
    /// `outer` carries the translation and the stretch `V·Σ`, `middle` the rotation `Vᵀ`, and
    /// `inner` the orthonormal polar factor `U` (the one a rotation channel replaces).
    Chain {
        outer: Trs,
        middle: Trs,
        inner: Trs,
    },
}

/// Splits `local`. `rotated` says whether a rotation channel animates the node: then the
/// viewer's rule `local · U⁻¹ · R(q)` must hold with `R(q)` replacing one node's rotation.
///
/// The viewer keeps `local = [P'·U | t]` with `U` the authored orientation (see
/// [`math::authored_orientation`]) and the stretch `P' = local·Uᵀ = V·Σ·Vᵀ` on the parent side,
/// so the chain is written in that order: translation and `V·Σ`, then `Vᵀ`, then `U`. (The
/// issue's sketch put `U` first; that matches the viewer only when `U` and `P` commute.)
pub fn split(local: &Mat4, rotated: bool) -> NodeTransform {
    let translation = local.w_axis.truncate();
    let linear = Mat3::from_mat4(*local);
    if !math::is_sheared(local) && !rotated && linear.determinant().abs() > 1e-12 {
        let (scale, rotation, translation) = local.to_scale_rotation_translation();
        if rotation.is_finite() && scale.is_finite() {
            return NodeTransform::Single(Trs { translation, rotation: rotation.normalize(), scale });
        }
    }
    // The rotation the viewer's rule replaces, so keyed poses agree. For a mirrored node it is
    // -U, which leaves the stretch negative definite: the mirror becomes a negative scale.
    let u = math::authored_orientation(local);
    let stretch = linear * u.transpose();
    let (mut v, sigma) = symmetric_eigen(stretch);
    if v.determinant() < 0.0 {
        // V·Σ·Vᵀ is unchanged by flipping one eigenvector.
        v.z_axis = -v.z_axis;
    }
    let rotation_of = |m: Mat3| Quat::from_mat3(&m).normalize();
    if rotated && !math::is_sheared(local) && sigma.abs().max_element() - sigma.abs().min_element() < 1e-5 {
        // Uniform stretch: one node, `t · s·R`.
        let single = Trs { translation, rotation: rotation_of(u), scale: sigma };
        return NodeTransform::Single(single);
    }
    let outer = Trs { translation, rotation: rotation_of(v), scale: sigma };
    let middle = Trs { rotation: rotation_of(v.transpose()), ..Trs::IDENTITY };
    let inner = Trs { rotation: rotation_of(u), ..Trs::IDENTITY };
    NodeTransform::Chain { outer, middle, inner }
}

/// Eigenvectors (columns) and eigenvalues of a symmetric 3x3 by cyclic Jacobi rotations.
/// Hand-written: glam has no eigensolver and a linear-algebra crate for one 3x3 is not worth it.
pub fn symmetric_eigen(m: Mat3) -> (Mat3, Vec3) {
    let mut a = m.to_cols_array_2d();
    let mut v = Mat3::IDENTITY.to_cols_array_2d();
    for _ in 0..50 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        if off < 1e-18 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1e-20 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // a ← Jᵀ·a·J with the rotation J in the (p, q) plane.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    // `v` was built as rows of the column array, so its columns are the eigenvectors.
    let vectors = Mat3::from_cols_array_2d(&v).transpose();
    (vectors, Vec3::new(a[0][0], a[1][1], a[2][2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain_matrix(t: &NodeTransform) -> Mat4 {
        match t {
            NodeTransform::Single(s) => s.matrix(),
            NodeTransform::Chain { outer, middle, inner } => outer.matrix() * middle.matrix() * inner.matrix(),
        }
    }

    fn sheared() -> Mat4 {
        // TPW's l_tree2: the Y axis leans +0.5 in X, then a turn and a move.
        let mut m = Mat4::from_quat(Quat::from_rotation_y(0.4));
        m.y_axis.x += 0.5;
        m.w_axis = glam::Vec4::new(2.28, 14.88, 8.81, 1.0);
        m
    }

    #[test]
    fn eigen_reconstructs_a_symmetric_matrix() {
        let m = Mat3::from_cols_array(&[2.0, 0.5, 0.1, 0.5, 1.0, 0.3, 0.1, 0.3, 3.0]);
        let (v, l) = symmetric_eigen(m);
        assert!((v * Mat3::from_diagonal(l) * v.transpose()).abs_diff_eq(m, 1e-5));
        assert!((v.transpose() * v).abs_diff_eq(Mat3::IDENTITY, 1e-5));
    }

    #[test]
    fn a_trs_matrix_stays_one_node() {
        let m = Mat4::from_scale_rotation_translation(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_x(0.3), Vec3::ONE);
        let t = split(&m, false);
        assert!(matches!(t, NodeTransform::Single(_)));
        assert!(chain_matrix(&t).abs_diff_eq(m, 1e-5));
    }

    #[test]
    fn a_sheared_matrix_becomes_three_proper_nodes_with_the_same_product() {
        let m = sheared();
        let t = split(&m, false);
        let NodeTransform::Chain { outer, middle, inner } = t else { panic!("expected a chain") };
        assert!(chain_matrix(&t).abs_diff_eq(m, 1e-5), "{:?} vs {m:?}", chain_matrix(&t));
        for trs in [outer, middle, inner] {
            assert!((trs.rotation.length() - 1.0).abs() < 1e-5);
        }
        assert_eq!(middle.scale, Vec3::ONE);
        assert_eq!(inner.translation, Vec3::ZERO);
    }

    #[test]
    fn replacing_the_inner_rotation_is_the_viewers_rule() {
        let m = sheared();
        let t = split(&m, true);
        let NodeTransform::Chain { outer, middle, .. } = t else { panic!("expected a chain") };
        let q = Quat::from_rotation_z(0.9);
        let keyed = outer.matrix() * middle.matrix() * Mat4::from_quat(q);
        let viewer = m * math::authored_orientation_inverse(&m) * Mat4::from_quat(q);
        assert!(keyed.abs_diff_eq(viewer, 1e-5));
    }

    #[test]
    fn a_mirror_becomes_a_negative_scale() {
        let mut m = sheared();
        m.x_axis = -m.x_axis;
        let t = split(&m, false);
        assert!(chain_matrix(&t).abs_diff_eq(m, 1e-4));
    }

    /// A mirrored node under rotation keys: the export's keyed pose is the viewer's, mirror and
    /// all, for a sheared node (a chain) and a uniformly scaled one (one node).
    #[test]
    fn a_mirrored_node_keyed_is_the_viewers_pose() {
        let mut sheared_mirror = sheared();
        sheared_mirror.x_axis = -sheared_mirror.x_axis;
        let uniform_mirror =
            Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::from_rotation_y(1.0), Vec3::X)
                * Mat4::from_scale(Vec3::splat(-1.0));
        for m in [sheared_mirror, uniform_mirror] {
            let q = Quat::from_rotation_z(0.9);
            let keyed = match split(&m, true) {
                NodeTransform::Chain { outer, middle, .. } => outer.matrix() * middle.matrix() * Mat4::from_quat(q),
                NodeTransform::Single(s) => Trs { rotation: q, ..s }.matrix(),
            };
            let viewer = m * math::authored_orientation_inverse(&m) * Mat4::from_quat(q);
            assert!(keyed.abs_diff_eq(viewer, 1e-4), "{keyed:?} vs {viewer:?}");
            assert!(Mat3::from_mat4(keyed).determinant() < 0.0);
        }
    }

    #[test]
    fn uniform_scale_with_rotation_keys_is_one_node() {
        let m = Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::from_rotation_y(1.0), Vec3::X);
        let t = split(&m, true);
        let NodeTransform::Single(s) = t else { panic!("expected one node") };
        let q = Quat::from_rotation_x(0.5);
        let keyed = Trs { rotation: q, ..s }.matrix();
        let viewer = m * math::authored_orientation_inverse(&m) * Mat4::from_quat(q);
        assert!(keyed.abs_diff_eq(viewer, 1e-5));
    }
}
