//! Matrices and rotations as TPW files store them: 16 floats row-major in the row-vector
//! convention (translation at elements 12, 13, 14), quaternions as (x, y, z, w).

use glam::{Mat4, Quat, Vec3};

/// The 4x4 identity, row-major.
pub const IDENTITY: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// Row-major (row-vector) form of a column-vector glam matrix: the same 16 floats.
fn stored(m: Mat4) -> [f32; 16] {
    m.to_cols_array()
}

fn loaded(m: &[f32; 16]) -> Mat4 {
    Mat4::from_cols_array(m)
}

/// A translation, row-major with the translation at elements 12, 13, 14.
pub fn translation(x: f32, y: f32, z: f32) -> [f32; 16] {
    stored(Mat4::from_translation(Vec3::new(x, y, z)))
}

/// A right-handed rotation about +Y (Y-up: +90 degrees turns +X towards -Z).
pub fn rotation_y(radians: f32) -> [f32; 16] {
    stored(Mat4::from_rotation_y(radians))
}

pub fn scale(x: f32, y: f32, z: f32) -> [f32; 16] {
    stored(Mat4::from_scale(Vec3::new(x, y, z)))
}

/// A shear that leans the Y axis: a point at height `y` moves by `(x_per_y, z_per_y) * y`.
/// The axes are no longer perpendicular, so no translation/rotation/scale can express it.
pub fn shear_y(x_per_y: f32, z_per_y: f32) -> [f32; 16] {
    let mut m = Mat4::IDENTITY;
    m.y_axis.x = x_per_y;
    m.y_axis.z = z_per_y;
    stored(m)
}

/// `first`, then `second` (row-vector order: `first * second`).
pub fn then(first: &[f32; 16], second: &[f32; 16]) -> [f32; 16] {
    stored(loaded(second) * loaded(first))
}

/// `m` with its translation replaced (elements 12, 13, 14).
pub fn with_translation(m: &[f32; 16], x: f32, y: f32, z: f32) -> [f32; 16] {
    let mut m = loaded(m);
    m.w_axis = Vec3::new(x, y, z).extend(1.0);
    stored(m)
}

/// A quaternion about +Y as stored in rotation keys (x, y, z, w).
pub fn quat_y(radians: f32) -> [f32; 4] {
    Quat::from_rotation_y(radians).to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_helpers_use_the_files_row_vector_layout() {
        let t = translation(1.0, 2.0, 3.0);
        assert_eq!(&t[12..15], &[1.0, 2.0, 3.0]);
        // Row-vector: a point is rotated first, then moved.
        let m = then(&rotation_y(std::f32::consts::FRAC_PI_2), &t);
        let p = Mat4::from_cols_array(&m).transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(1.0, 2.0, 2.0), 1e-6), "{p}");
        let s = shear_y(0.5, 0.0);
        assert_eq!(s[4], 0.5);
        assert!(crate::scene::math::is_sheared(&Mat4::from_cols_array(&s)));
        assert_eq!(&with_translation(&s, 4.0, 5.0, 6.0)[12..16], &[4.0, 5.0, 6.0, 1.0]);
    }
}
