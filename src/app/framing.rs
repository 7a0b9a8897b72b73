//! Framing the camera on a model: the bounds to frame (the pose on screen, or what a playing
//! clip sweeps), and keeping that framing while the viewport changes shape until the user
//! moves the camera.

use super::Viewer;
use super::state;
use super::viewport::OrbitCamera;

/// The bounds the camera was framed on, and the viewport size it was framed for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Framed {
    pub bounds: crate::scene::Aabb,
    pub viewport_px: [u32; 2],
}

impl Viewer {
    /// Width over height of the viewport in the last frame.
    pub fn viewport_aspect(&self) -> f32 {
        self.viewport_px[0].max(1) as f32 / self.viewport_px[1].max(1) as f32
    }

    /// Frames `bounds` in the viewport: from the default angles (`fresh`), else from the
    /// camera's own. The framing holds until the user moves the camera.
    pub fn frame_on(&mut self, bounds: crate::scene::Aabb, fresh: bool) {
        let aspect = self.viewport_aspect();
        if fresh {
            self.camera = OrbitCamera::framing(&bounds, aspect);
        } else {
            self.camera.frame(&bounds, aspect);
        }
        self.framed = Some(Framed { bounds, viewport_px: self.viewport_px });
    }

    /// After a UI pass: if the viewport changed size since the camera was framed, and the
    /// user has not moved the camera meanwhile, frames the same bounds again. A model opened
    /// before the first pass (or while the side panels were still finding their widths) was
    /// framed for another shape of viewport, and was drawn too close or cut off at the sides.
    pub fn keep_framed(&mut self) {
        if let Some(framed) = self.framed
            && framed.viewport_px != self.viewport_px
        {
            self.frame_on(framed.bounds, false);
        }
    }
}

/// The bounds of the current pose (falls back to the rest bounds).
pub(super) fn posed_bounds(doc: &state::Document) -> crate::scene::Aabb {
    doc.pose.bounds(&doc.scene)
}

/// Intervals a playing clip is cut into when framing it: its poses at both ends and between.
const FRAMING_SAMPLES: usize = 8;

/// While a clip plays, the bounds it sweeps through (its poses at [`FRAMING_SAMPLES`] + 1
/// times from start to end, with the current pose), so that a model that walks or swings
/// stays in the picture, not only in its first pose. Paused (or with no clip), the pose on
/// screen.
pub(super) fn clip_bounds(doc: &state::Document) -> crate::scene::Aabb {
    let mut bounds = posed_bounds(doc);
    let Some(clip) = doc.clip.and_then(|c| doc.scene.clips.get(c)).filter(|_| doc.timeline.playing) else {
        return bounds;
    };
    let length = clip.end - clip.start;
    if !(length.is_finite() && length > 0.0) {
        return bounds;
    }
    // Posed as the one on screen is: same level of detail, billboards facing the same camera.
    let mut pose = crate::scene::anim::Pose::default();
    (pose.lod, pose.view_from_model, pose.global_time) = (doc.pose.lod, doc.pose.view_from_model, doc.pose.global_time);
    for i in 0..=FRAMING_SAMPLES {
        pose.evaluate(&doc.scene, doc.clip, clip.start + length * i as f32 / FRAMING_SAMPLES as f32);
        bounds = bounds.union(&pose.bounds(&doc.scene));
    }
    bounds
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec2, Vec3};

    use std::path::PathBuf;

    use super::*;
    use crate::app::viewport;
    use crate::scene::{Aabb, Channel, Clip, Curve, FormatKind, Key, Mesh, Node, NodeKind, Scene, SceneKind};

    /// One triangle on a node that a 10-frame clip moves from x = 0 to x = 10.
    fn walking_triangle() -> state::Document {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let mut node = Node::new("walker", NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(0);
        scene.nodes.push(node);
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        scene.meshes.push(Mesh {
            name: "triangle".into(),
            node: Some(0),
            bounds: Aabb::from_points(&positions),
            source_positions: positions,
            vertex_source: vec![0, 1, 2],
            uvs: vec![Vec2::ZERO; 3],
            uvs1: Vec::new(),
            normals: vec![Vec3::Z; 3],
            triangles: vec![[0, 1, 2]],
            submeshes: Vec::new(),
            skin: None,
            raw: Vec::new(),
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        let keys = vec![Key { time: 0.0, value: Vec3::ZERO }, Key { time: 10.0, value: Vec3::new(10.0, 0.0, 0.0) }];
        scene.clips.push(Clip {
            name: "walk".into(),
            source: None,
            start: 0.0,
            end: 10.0,
            rate: 10.0,
            channels: vec![Channel::NodePosition {
                node: 0,
                curve: Curve { keys: keys.into(), ..Curve::default() },
                additive: false,
            }],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        let summary = crate::info::Summary::of(&scene);
        state::Document::new(PathBuf::from("walker.md2"), scene, summary)
    }

    #[test]
    fn a_new_model_is_framed_on_what_its_clip_sweeps() {
        let doc = walking_triangle();
        assert_eq!(doc.clip, Some(0));
        // The first pose alone is the triangle at the origin; the clip carries it 10 along x.
        assert!(posed_bounds(&doc).max.x < 1.5, "{:?}", posed_bounds(&doc));
        let swept = clip_bounds(&doc);
        // Both ends of the clip are sampled: the last pose reaches x = 10 + 1.
        assert!(swept.min.x <= 0.0 && swept.max.x >= 10.9, "{swept:?}");
    }

    #[test]
    fn a_paused_or_clipless_model_is_framed_on_the_pose_on_screen() {
        let mut doc = walking_triangle();
        doc.timeline.playing = false;
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        doc.timeline.playing = true;
        doc.clip = None;
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        doc.clip = Some(7);
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        // A clip of no length (or a broken one) has nothing more to sweep.
        doc.clip = Some(0);
        for end in [0.0, -5.0, f32::NAN] {
            doc.scene.clips[0].end = end;
            assert_eq!(clip_bounds(&doc), posed_bounds(&doc), "end {end}");
        }
    }

    #[test]
    fn only_input_that_moves_the_camera_ends_the_framing() {
        use egui::vec2;
        assert!(viewport::moves_camera(vec2(1.0, 0.0), true, 0.0, false));
        assert!(viewport::moves_camera(vec2(0.0, 0.0), false, -3.0, true));
        // A press that has not moved yet, a wheel outside the view, or nothing at all.
        assert!(!viewport::moves_camera(vec2(0.0, 0.0), true, 0.0, true));
        assert!(!viewport::moves_camera(vec2(0.0, 0.0), false, 2.0, false));
        assert!(!viewport::moves_camera(vec2(5.0, 5.0), false, 0.0, true));
    }

    #[test]
    fn framing_the_model_again_resumes_following_the_viewport() {
        let bounds = Aabb { min: Vec3::ZERO, max: Vec3::ONE };
        let mut viewer = Viewer::new(None);
        viewer.viewport_px = [800, 600];
        viewer.framed = None;
        // F (frame the pose on screen) keeps the angles the user chose and frames again.
        viewer.camera.orbit(40.0, -20.0);
        let angles = (viewer.camera.0.yaw_deg, viewer.camera.0.pitch_deg);
        viewer.frame_on(bounds, false);
        assert_eq!((viewer.camera.0.yaw_deg, viewer.camera.0.pitch_deg), angles);
        assert_eq!(viewer.framed, Some(Framed { bounds, viewport_px: [800, 600] }));
        viewer.viewport_px = [400, 600];
        viewer.keep_framed();
        assert_eq!(viewer.framed.map(|f| f.viewport_px), Some([400, 600]));
        // R (reset) goes back to the default angles.
        viewer.frame_on(bounds, true);
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 400.0 / 600.0));
    }

    #[test]
    fn the_framing_follows_the_viewport_until_the_user_moves_the_camera() {
        let bounds = Aabb { min: Vec3::splat(-1.0), max: Vec3::new(4.0, 1.0, 1.0) };
        let mut viewer = Viewer::new(None);
        // Opened before the first UI pass: the viewport's size is not known yet.
        viewer.frame_on(bounds, true);
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 1.0));
        // The pass lays out a narrow viewport: the same bounds are framed for its shape.
        viewer.viewport_px = [600, 800];
        viewer.keep_framed();
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 0.75));
        assert!(viewer.camera.0.distance > OrbitCamera::framing(&bounds, 1.0).0.distance);
        // Once the user moves the camera (the viewport clears `framed` then), a resize leaves
        // it where they put it.
        viewer.camera.orbit(10.0, 0.0);
        assert!(viewport::moves_camera(egui::vec2(10.0, 0.0), true, 0.0, true));
        viewer.framed = None;
        let moved = viewer.camera;
        viewer.viewport_px = [1200, 800];
        viewer.keep_framed();
        assert_eq!(viewer.camera, moved);
    }
}
