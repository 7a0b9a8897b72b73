//! The orbit camera shared by the viewer and headless `render`: a target point, yaw and pitch
//! in degrees, and a distance. Y is up and the scene is right-handed; yaw 0 looks from +Z
//! towards -Z, positive yaw swings the camera towards +X, positive pitch raises it.

use glam::{Mat4, Vec3};

use crate::scene::Aabb;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// The point the camera orbits and looks at.
    pub target: Vec3,
    pub yaw_deg: f32,
    pub pitch_deg: f32,
    /// From the target to the eye, in scene units.
    pub distance: f32,
    /// Vertical field of view.
    pub fov_y_deg: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self { target: Vec3::ZERO, yaw_deg: 30.0, pitch_deg: 20.0, distance: 5.0, fov_y_deg: 40.0 }
    }
}

/// Pitch stays short of straight up or down, where the look-at basis degenerates.
const MAX_PITCH_DEG: f32 = 89.0;

impl Camera {
    /// A camera at the given angles that fits the whole box in a view of `aspect` (width over
    /// height): every corner of the box lands inside the frame, with a small margin. Flat
    /// models (a sea disc seen from low down) fill the frame instead of a sphere around them.
    pub fn framing(bounds: &Aabb, yaw_deg: f32, pitch_deg: f32, aspect: f32) -> Camera {
        let mut camera = Camera { yaw_deg, pitch_deg, ..Camera::default() };
        let (center, radius) = bounding_sphere(bounds);
        camera.target = center;
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        // Margin: corners stay within 92% of the half-extents.
        let tan_y = (camera.fov_y_deg.to_radians() * 0.5).tan() * 0.92;
        let tan_x = tan_y * aspect;
        let towards_eye = camera.eye_direction();
        let right = Vec3::Y.cross(towards_eye).try_normalize().unwrap_or(Vec3::X);
        let up = towards_eye.cross(right);
        let corners: Vec<Vec3> = if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
            // No geometry: a unit sphere's worth of room.
            vec![center + Vec3::splat(radius), center - Vec3::splat(radius)]
        } else {
            (0..8)
                .map(|i| {
                    Vec3::new(
                        if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                        if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                        if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
                    )
                })
                .collect()
        };
        // A corner at offset c fits when |c·right| <= tan_x (d - c·towards_eye), likewise for up.
        let mut distance = 0.0f32;
        for corner in corners {
            let c = corner - center;
            let along = c.dot(towards_eye);
            distance = distance.max(c.dot(right).abs() / tan_x + along).max(c.dot(up).abs() / tan_y + along);
        }
        // Never inside the model's bounding sphere, and never degenerate.
        camera.distance = distance.max(radius * 1.05).max(1e-3);
        camera
    }

    /// Unit vector from the target towards the eye.
    pub fn eye_direction(&self) -> Vec3 {
        let (yaw, pitch) =
            (self.yaw_deg.to_radians(), self.pitch_deg.clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG).to_radians());
        Vec3::new(yaw.sin() * pitch.cos(), pitch.sin(), yaw.cos() * pitch.cos())
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.eye_direction() * self.safe_distance()
    }

    fn safe_distance(&self) -> f32 {
        if self.distance.is_finite() && self.distance > 1e-6 { self.distance } else { 1.0 }
    }

    pub fn view_from_world(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Projection into wgpu's 0..1 depth range, reversed: the near plane maps to 1 and the far
    /// plane to 0, which with a float depth buffer keeps precision at any distance.
    /// `scene_radius` sizes the depth range so that everything within that radius of the
    /// target (and the ground grid) lies inside it.
    pub fn clip_from_view(&self, aspect: f32, scene_radius: f32) -> Mat4 {
        let (near, far) = self.depth_range(scene_radius);
        let fov = self.fov_y_deg.clamp(1.0, 170.0).to_radians();
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        // Swapping the planes in the standard 0..1 projection is what reverses it.
        glam::camera::rh::proj::directx::perspective(fov, aspect, far, near)
    }

    /// Near and far planes: tight around the scene for depth precision, never behind the eye.
    pub fn depth_range(&self, scene_radius: f32) -> (f32, f32) {
        let distance = self.safe_distance();
        let radius = if scene_radius.is_finite() && scene_radius > 0.0 { scene_radius } else { distance };
        // The grid reaches about 2.5 radii out; animation may carry parts past the rest bounds.
        let far = distance + radius * 4.0;
        let near = (distance - radius * 4.0).max(far * 1e-4);
        (near, far)
    }

    pub fn clip_from_world(&self, aspect: f32, scene_radius: f32) -> Mat4 {
        self.clip_from_view(aspect, scene_radius) * self.view_from_world()
    }
}

/// Centre and radius of the sphere around a box; an empty or degenerate box gets a unit
/// sphere at its centre (or the origin), so a camera can always be placed.
pub fn bounding_sphere(bounds: &Aabb) -> (Vec3, f32) {
    if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
        return (Vec3::ZERO, 1.0);
    }
    let radius = bounds.size().length() * 0.5;
    (bounds.center(), if radius > 1e-6 { radius } else { 1.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_fits_the_box_on_screen() {
        let bounds = Aabb { min: Vec3::new(-3.0, 0.0, -1.0), max: Vec3::new(5.0, 2.0, 1.0) };
        for (yaw, pitch, aspect) in [(30.0, 20.0, 16.0 / 9.0), (-120.0, 60.0, 0.5), (0.0, -80.0, 1.0)] {
            let camera = Camera::framing(&bounds, yaw, pitch, aspect);
            let (_, radius) = bounding_sphere(&bounds);
            let clip_from_world = camera.clip_from_world(aspect, radius);
            for i in 0..8 {
                let corner = Vec3::new(
                    if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                    if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                    if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
                );
                let ndc = clip_from_world.project_point3(corner);
                assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "corner {corner} off screen at {ndc}");
                assert!((0.0..=1.0).contains(&ndc.z), "corner {corner} outside depth range: {}", ndc.z);
            }
        }
    }

    #[test]
    fn yaw_zero_looks_down_negative_z() {
        let camera = Camera { yaw_deg: 0.0, pitch_deg: 0.0, ..Camera::default() };
        assert!(camera.eye_direction().abs_diff_eq(Vec3::Z, 1e-6));
        let empty = Camera::framing(&Aabb::EMPTY, 0.0, 0.0, 1.0);
        assert!(empty.distance.is_finite() && empty.distance > 0.0);
    }
}
