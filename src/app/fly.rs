//! Fly mode, for moving across a park: WASD moves, Q/E go down and up, Shift goes faster, and
//! a mouse drag turns the view about the eye instead of orbiting the target. The camera stays
//! the orbit camera (a target at `distance` in front of the eye), so leaving fly mode orbits
//! about what is in front of you. Speed follows the size of what is open.

use glam::Vec3;

use super::viewport::OrbitCamera;

/// Degrees per pixel of drag while looking around.
const LOOK_SPEED: f32 = 0.25;
/// Held Shift flies this many times faster.
const FAST: f32 = 4.0;

/// Whether fly mode is on, and how fast it moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fly {
    pub on: bool,
    /// Scene units per second: a fifth of the open scene's size across.
    pub speed: f32,
}

impl Default for Fly {
    fn default() -> Self {
        Fly { on: false, speed: 1.0 }
    }
}

impl Fly {
    /// Scales the speed to `bounds` (what was opened): its diagonal in five seconds.
    pub fn fit(&mut self, bounds: &crate::scene::Aabb) {
        let size = if bounds.is_empty() { 0.0 } else { bounds.size().length() };
        self.speed = if size.is_finite() && size > 1e-6 { size / 5.0 } else { 1.0 };
    }
}

/// Which way the keys held push the camera: x right, y up, z forward, each -1, 0 or 1.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Push {
    pub right: f32,
    pub up: f32,
    pub forward: f32,
    pub fast: bool,
}

impl Push {
    pub fn is_still(&self) -> bool {
        self.right == 0.0 && self.up == 0.0 && self.forward == 0.0
    }

    /// The keys held now (W A S D, Q E, Shift).
    pub fn from_keys(input: &egui::InputState) -> Push {
        use egui::Key;
        let axis = |plus: Key, minus: Key| f32::from(input.key_down(plus)) - f32::from(input.key_down(minus));
        Push {
            right: axis(Key::D, Key::A),
            up: axis(Key::E, Key::Q),
            forward: axis(Key::W, Key::S),
            fast: input.modifiers.shift,
        }
    }
}

impl OrbitCamera {
    /// Turns the view about the eye by a drag of (`dx`, `dy`) pixels: the eye stays put and
    /// the target swings round it.
    pub fn look(&mut self, dx: f32, dy: f32) {
        let eye = self.0.eye();
        self.0.yaw_deg = (self.0.yaw_deg - dx * LOOK_SPEED).rem_euclid(360.0);
        self.0.pitch_deg = (self.0.pitch_deg + dy * LOOK_SPEED).clamp(-89.0, 89.0);
        self.0.target = eye - self.0.eye_direction() * self.0.distance;
    }

    /// Moves eye and target together by `push` for `dt` seconds at `speed` units a second:
    /// forward along the view, right across it, up along the world's up.
    pub fn fly(&mut self, push: Push, speed: f32, dt: f32) {
        if !(dt.is_finite() && dt > 0.0 && speed.is_finite()) {
            return;
        }
        let forward = -self.0.eye_direction();
        let right = forward.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::X);
        let step = speed * dt * if push.fast { FAST } else { 1.0 };
        let moved = (forward * push.forward + right * push.right + Vec3::Y * push.up) * step;
        if moved.is_finite() {
            self.0.target += moved;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Camera;
    use crate::scene::Aabb;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).abs().max_element() < 1e-3
    }

    #[test]
    fn looking_keeps_the_eye_and_flying_moves_along_the_view() {
        let mut camera =
            OrbitCamera(Camera { target: Vec3::ZERO, yaw_deg: 0.0, pitch_deg: 0.0, distance: 10.0, fov_y_deg: 40.0 });
        // Yaw 0, pitch 0: the eye is at +z, looking down -z.
        assert!(close(camera.0.eye(), Vec3::new(0.0, 0.0, 10.0)));
        camera.fly(Push { forward: 1.0, ..Push::default() }, 2.0, 0.5);
        assert!(close(camera.0.target, Vec3::new(0.0, 0.0, -1.0)), "{:?}", camera.0.target);
        camera.fly(Push { right: 1.0, up: -1.0, fast: true, ..Push::default() }, 1.0, 0.5);
        assert!(close(camera.0.target, Vec3::new(2.0, -2.0, -1.0)), "{:?}", camera.0.target);
        let eye = camera.0.eye();
        camera.look(120.0, -40.0);
        assert!(close(camera.0.eye(), eye), "{:?} {eye:?}", camera.0.eye());
        assert_ne!(camera.0.yaw_deg, 0.0);
        // Nonsense time moves nothing.
        let before = camera;
        camera.fly(Push { forward: 1.0, ..Push::default() }, 1.0, f32::NAN);
        assert_eq!(camera, before);
    }

    #[test]
    fn speed_follows_the_scene_size() {
        let mut fly = Fly::default();
        fly.fit(&Aabb { min: Vec3::ZERO, max: Vec3::new(300.0, 0.0, 400.0) });
        assert_eq!(fly.speed, 100.0);
        fly.fit(&Aabb::EMPTY);
        assert_eq!(fly.speed, 1.0);
    }
}
