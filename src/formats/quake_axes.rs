//! The one place Quake's axes (x forward, y left, z up; right-handed) map into the scene's
//! (Y up, right-handed): `scene = (x, z, -y)`, a -90° turn about X. It is a proper rotation,
//! so handedness is kept and only the file's clockwise front faces need reversing (done by
//! each decoder). assimp's Quake II importer produces the same coordinates, which is what
//! the parity test relies on. Quake II and Quake 3 MDR both use this, and so does export.

use glam::{Mat4, Vec3};

/// A Quake-space point or direction in scene space.
pub fn to_scene(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.z, -v.y)
}

/// The change of basis as a matrix (`to_scene(v) == QUAKE_TO_SCENE * v`).
pub const QUAKE_TO_SCENE: Mat4 = Mat4::from_cols_array(&[
    1.0, 0.0, 0.0, 0.0, //
    0.0, 0.0, -1.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// A Quake-space transform (column-vector convention) expressed in scene space.
pub fn matrix_to_scene(m: Mat4) -> Mat4 {
    QUAKE_TO_SCENE * m * QUAKE_TO_SCENE.transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_proper_rotation_matching_the_function() {
        assert_eq!(QUAKE_TO_SCENE.determinant(), 1.0);
        let v = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(QUAKE_TO_SCENE.transform_point3(v), to_scene(v));
        // Up is up, forward is +X, left is -Z.
        assert_eq!(to_scene(Vec3::Z), Vec3::Y);
        assert_eq!(to_scene(Vec3::X), Vec3::X);
        assert_eq!(to_scene(Vec3::Y), -Vec3::Z);
    }

    #[test]
    fn transforms_conjugate_consistently() {
        let quake = Mat4::from_rotation_z(0.5) * Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let p = Vec3::new(0.3, -0.7, 2.0);
        let expected = to_scene(quake.transform_point3(p));
        let got = matrix_to_scene(quake).transform_point3(to_scene(p));
        assert!(got.abs_diff_eq(expected, 1e-5));
    }
}
