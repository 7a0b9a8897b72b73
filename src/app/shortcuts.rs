//! The viewer's keyboard shortcuts: what each key does, and which keys give way while the
//! user types into a text box.

use super::{Action, Viewer};

impl Viewer {
    /// Keys that work anywhere except while typing into a text box.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::Key;
        let typing = ctx.egui_wants_keyboard_input();
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
            if i.key_pressed(Key::F) {
                self.actions.push(Action::FrameModel);
            }
            if i.key_pressed(Key::S) {
                self.sheet.open = !self.sheet.open;
            }
            if i.key_pressed(Key::R) {
                self.actions.push(Action::ResetCamera);
            }
            if i.key_pressed(Key::W) {
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
    }
}
