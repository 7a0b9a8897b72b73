//! The viewer's keyboard shortcuts: what each key does, and which keys give way while the
//! user types into a text box (or, in fly mode, to moving the camera).

use super::{Action, Viewer};

/// Seconds of scene clock that `,` and `.` step a park by (one frame at 30 fps).
pub const LAYER_STEP: f32 = 1.0 / 30.0;

impl Viewer {
    /// Keys that work anywhere except while typing into a text box.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::Key;
        let typing = ctx.egui_wants_keyboard_input();
        let mut moving = false;
        ctx.input(|i| {
            let command = i.modifiers.command;
            if command && i.key_pressed(Key::E) {
                self.actions.push(Action::PickExport);
            }
            if command && i.key_pressed(Key::O) {
                self.actions.push(if i.modifiers.shift { Action::PickFolder } else { Action::PickFile });
            }
            if i.key_pressed(Key::F1) {
                self.show_help = !self.show_help;
            }
            if i.key_pressed(Key::Escape) {
                self.show_help = false;
            }
            if i.key_pressed(Key::F12) {
                self.actions.push(Action::SaveViewport);
            }
            if i.key_pressed(Key::PageDown) {
                self.actions.push(Action::Step(1));
            }
            if i.key_pressed(Key::PageUp) {
                self.actions.push(Action::Step(-1));
            }
            if typing || command {
                return;
            }
            if i.key_pressed(Key::V) {
                self.fly.on = !self.fly.on;
            }
            if self.fly.on {
                let push = super::fly::Push::from_keys(i);
                if !push.is_still() {
                    self.camera.fly(push, self.fly.speed, i.stable_dt.min(0.1));
                    self.framed = None;
                    moving = true;
                }
            }
            if i.key_pressed(Key::F) {
                self.actions.push(Action::FrameModel);
            }
            // In fly mode W and S move the camera.
            if i.key_pressed(Key::S) && !self.fly.on {
                self.sheet.open = !self.sheet.open;
            }
            if i.key_pressed(Key::R) {
                self.actions.push(Action::ResetCamera);
            }
            if i.key_pressed(Key::W) && !self.fly.on {
                self.display.wireframe = !self.display.wireframe;
            }
            if i.key_pressed(Key::N) {
                self.display.normals = !self.display.normals;
            }
            if i.key_pressed(Key::B) {
                self.display.bounds = !self.display.bounds;
            }
            if i.key_pressed(Key::K) {
                self.display.skeleton = !self.display.skeleton;
            }
            if i.key_pressed(Key::M) {
                self.display.markers = !self.display.markers;
            }
            if i.key_pressed(Key::G) {
                self.display.grid = !self.display.grid;
            }
            if i.key_pressed(Key::T) {
                self.display.textured = !self.display.textured;
            }
            if i.key_pressed(Key::L) {
                self.display.lit = !self.display.lit;
            }
            let Some(doc) = &mut self.session.doc else { return };
            if doc.clip.is_none()
                && let Some(clock) = &mut doc.layers
            {
                // A park: the keys drive the one clock every item plays on.
                if i.key_pressed(Key::Space) {
                    clock.toggle_play();
                }
                if i.key_pressed(Key::Comma) {
                    clock.step(-LAYER_STEP);
                }
                if i.key_pressed(Key::Period) {
                    clock.step(LAYER_STEP);
                }
                if i.key_pressed(Key::Home) {
                    clock.reset();
                }
                if i.key_pressed(Key::OpenBracket) {
                    clock.set_speed(clock.speed * 0.5);
                }
                if i.key_pressed(Key::CloseBracket) {
                    clock.set_speed(clock.speed * 2.0);
                }
                return;
            }
            let timeline = &mut doc.timeline;
            if i.key_pressed(Key::Space) {
                timeline.toggle_play();
            }
            if i.key_pressed(Key::Comma) {
                timeline.step_frames(-1);
            }
            if i.key_pressed(Key::Period) {
                timeline.step_frames(1);
            }
            if i.key_pressed(Key::Home) {
                timeline.to_start();
            }
            if i.key_pressed(Key::End) {
                timeline.to_end();
            }
            if i.key_pressed(Key::OpenBracket) {
                timeline.set_speed(timeline.speed * 0.5);
            }
            if i.key_pressed(Key::CloseBracket) {
                timeline.set_speed(timeline.speed * 2.0);
            }
        });
        // Keys held in fly mode send no new events: keep drawing while they move the camera.
        if moving {
            ctx.request_repaint();
        }
    }
}
