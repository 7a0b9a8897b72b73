//! The bottom bar: clip choice, transport buttons, the frame slider, play mode, speed and
//! frames per second. It edits the document's [`Timeline`](super::state::Timeline); the pose
//! follows in the same frame, so scrubbing updates the viewport live.

use egui::{RichText, Ui};

use super::state::{MAX_SPEED, MIN_SPEED, PlayMode, TimeUnit};
use super::{Action, Viewer};

const SPEEDS: [f32; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

pub fn timeline_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::bottom("timeline").show(ui, |ui| {
        ui.add_space(3.0);
        let Some(doc) = &mut viewer.session.doc else {
            ui.weak("Timeline: open a model with animations to play them.");
            return;
        };
        let clip_name = doc.clip.and_then(|c| doc.scene.clips.get(c)).map(|c| c.name.clone());
        ui.horizontal(|ui| {
            let selected = clip_name.clone().unwrap_or_else(|| "Rest pose".into());
            egui::ComboBox::from_id_salt("clip").width(110.0).selected_text(selected).show_ui(ui, |ui| {
                if ui.selectable_label(doc.clip.is_none(), "Rest pose").clicked() {
                    viewer.actions.push(Action::PlayClip(None));
                }
                if doc.scene.as_built.is_some()
                    && ui
                        .selectable_label(false, "As built")
                        .on_hover_text("The construction clip's last frame")
                        .clicked()
                {
                    viewer.actions.push(Action::AsBuilt);
                }
                for (index, clip) in doc.scene.clips.iter().enumerate() {
                    if ui.selectable_label(doc.clip == Some(index), &clip.name).clicked() {
                        viewer.actions.push(Action::PlayClip(Some(index)));
                    }
                }
            });
            let has_clip = doc.clip.is_some();
            let t = &mut doc.timeline;
            ui.add_enabled_ui(has_clip, |ui| {
                if ui.button("⏮").on_hover_text("First frame (Home)").clicked() {
                    t.to_start();
                }
                if ui.button("◀|").on_hover_text("Previous frame (,)").clicked() {
                    t.step_frames(-1);
                }
                let play = if t.playing { "⏸" } else { "▶" };
                if ui.button(RichText::new(play).strong()).on_hover_text("Play / pause (Space)").clicked() {
                    t.toggle_play();
                }
                if ui.button("|▶").on_hover_text("Next frame (.)").clicked() {
                    t.step_frames(1);
                }
                if ui.button("⏭").on_hover_text("Last frame (End)").clicked() {
                    t.to_end();
                }
                let (readout, hover) = match t.unit {
                    TimeUnit::Frames => {
                        // A Quake II loop's last frame blends back into the first: one more.
                        (format!("{:>6.1} / {}", t.frame(), t.loop_end() - t.start), "Current frame / total frames")
                    }
                    TimeUnit::Milliseconds => (
                        format!("{:>6.0} / {:.0} ms", t.frame(), t.length()),
                        "Time in the sequence / its duration, in milliseconds",
                    ),
                };
                ui.monospace(readout).on_hover_text(hover);
                // The slider takes what the controls on its right leave over.
                let right = 360.0;
                ui.spacing_mut().slider_width = (ui.available_width() - right).max(80.0);
                let (start, end) = (t.start, t.loop_end().max(t.start));
                let mut time = t.time;
                let slider = egui::Slider::new(&mut time, start..=end).show_value(false);
                let response = ui.add(slider).on_hover_text("Drag to scrub");
                if response.changed() {
                    t.seek(time);
                }
                if response.drag_started() {
                    t.playing = false;
                }
                ui.separator();
                egui::ComboBox::from_id_salt("play-mode").width(80.0).selected_text(t.mode.label()).show_ui(ui, |ui| {
                    for mode in PlayMode::ALL {
                        ui.selectable_value(&mut t.mode, mode, mode.label());
                    }
                });
                let speed_text = format!("{}×", t.speed);
                egui::ComboBox::from_id_salt("speed")
                    .width(56.0)
                    .selected_text(speed_text)
                    .show_ui(ui, |ui| {
                        for s in SPEEDS {
                            if ui.selectable_label(t.speed == s, format!("{s}×")).clicked() {
                                t.set_speed(s);
                            }
                        }
                    })
                    .response
                    .on_hover_text(format!("Speed, {MIN_SPEED}× to {MAX_SPEED}× ([ and ])"));
                // Millisecond clips play in real time; only frame-based ones have a rate to change.
                if t.unit == TimeUnit::Frames {
                    ui.add(egui::DragValue::new(&mut t.fps).range(1.0..=240.0).speed(0.25).suffix(" fps"))
                        .on_hover_text("Frames per second at 1× (default: the clip's own rate)");
                }
            });
        });
        ui.add_space(1.0);
    });
}
