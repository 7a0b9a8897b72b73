//! Test fixtures shared by the decoder's unit tests.

use crate::writers::quake2 as writer;

/// A small valid model: 3 vertices, 4 st entries, 2 triangles, 2 frames.
pub(super) fn small_spec() -> writer::Md2Spec {
    let frame = |name: &str| writer::FrameSpec {
        name: name.into(),
        scale: [1.0; 3],
        translate: [0.0; 3],
        vertices: vec![[0, 0, 0, 1], [9, 0, 0, 2], [0, 9, 0, 3]],
    };
    writer::Md2Spec {
        skin_width: 8,
        skin_height: 8,
        skins: vec!["a.pcx".into()],
        st: vec![[0, 0], [8, 0], [0, 8], [8, 8]],
        triangles: vec![([0, 1, 2], [0, 1, 2]), ([2, 1, 0], [3, 1, 0])],
        frames: vec![frame("run1"), frame("run2")],
    }
}
