//! The bottom bar: clip choice, transport buttons, the frame slider, play mode, speed and
//! frames per second. It edits the document's [`Timeline`](super::state::Timeline); the pose
//! follows in the same frame, so scrubbing updates the viewport live. A scene with layers (a
//! park) gets the scene clock instead, which drives every item at once, and a slider per
//! layer of the selected item, which scrubs that item alone.

use egui::{RichText, Ui};

use super::park::{LayerClock, part_layers, selected_part};
use super::shortcuts::LAYER_STEP;
use super::state::{Document, MAX_SPEED, MIN_SPEED, PlayMode, TimeUnit};
use super::{Action, Viewer};

const SPEEDS: [f32; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

pub fn timeline_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::bottom("timeline").show(ui, |ui| {
        ui.add_space(3.0);
        let Some(doc) = &mut viewer.session.doc else {
            ui.weak("Timeline: open a model with animations to play them.");
            return;
        };
        if doc.layered().is_some() {
            layers_ui(ui, doc);
            ui.add_space(1.0);
            return;
        }
        let clip_name = doc.clip.and_then(|c| doc.scene.clips.get(c)).map(|c| c.name.clone());
        // A park's "no single clip" is every item playing on the scene clock.
        let no_clip = if doc.layers.is_some() { "All items" } else { "Rest pose" };
        ui.horizontal(|ui| {
            let selected = clip_name.clone().unwrap_or_else(|| no_clip.into());
            egui::ComboBox::from_id_salt("clip").width(110.0).selected_text(selected).show_ui(ui, |ui| {
                if ui.selectable_label(doc.clip.is_none(), no_clip).clicked() {
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

fn speed_ui(ui: &mut Ui, speed: f32, mut set: impl FnMut(f32)) {
    egui::ComboBox::from_id_salt("speed")
        .width(56.0)
        .selected_text(format!("{speed}×"))
        .show_ui(ui, |ui| {
            for s in SPEEDS {
                if ui.selectable_label(speed == s, format!("{s}×")).clicked() {
                    set(s);
                }
            }
        })
        .response
        .on_hover_text(format!("Speed, {MIN_SPEED}× to {MAX_SPEED}× ([ and ])"));
}

/// The scene clock of a park (every item at once) and, for a selected item, a slider per
/// layer it plays that scrubs it alone.
fn layers_ui(ui: &mut Ui, doc: &mut Document) {
    let part = selected_part(&doc.scene, doc.selected);
    let own_layers = part.map(|p| part_layers(&doc.scene, p)).unwrap_or_default();
    let Some(clock) = doc.layers.as_mut() else { return };
    ui.horizontal(|ui| {
        ui.label(RichText::new("All items").strong())
            .on_hover_text("Every item plays its own clip on one scene clock: 0 s is the time the save recorded");
        if ui.button("⏮").on_hover_text("Back to the saved time, every item's scrub undone (Home)").clicked() {
            clock.reset();
        }
        if ui.button("◀|").on_hover_text("Back a thirtieth of a second (,)").clicked() {
            clock.step(-LAYER_STEP);
        }
        let play = if clock.playing { "⏸" } else { "▶" };
        if ui.button(RichText::new(play).strong()).on_hover_text("Play / pause every item (Space)").clicked() {
            clock.toggle_play();
        }
        if ui.button("|▶").on_hover_text("On a thirtieth of a second (.)").clicked() {
            clock.step(LAYER_STEP);
        }
        ui.monospace(format!("{:>8.2} s", clock.seconds)).on_hover_text("Scene clock, from the saved time");
        let speed = clock.speed;
        speed_ui(ui, speed, |s| clock.set_speed(s));
        ui.separator();
        let scrubbed = clock.offsets.iter().filter(|o| **o != 0.0).count();
        match part.and_then(|p| doc.scene.parts.get(p)) {
            Some(p) if own_layers.is_empty() => ui.weak(format!("{} plays no clip", p.name)),
            Some(p) => ui.weak(format!("{}: drag its clip below to move it alone", p.name)),
            None => ui.weak(format!("{} layers; select an item to scrub it alone", doc.scene.layers.len())),
        };
        if scrubbed > 0 {
            ui.weak(format!("({scrubbed} scrubbed)"));
        }
    });
    // With nothing selected, the layers that offer a choice of clips (a player's torso and
    // legs) still show, so that their clips can be picked.
    let shown = if part.is_some() {
        own_layers
    } else {
        (0..doc.scene.layers.len())
            .filter(|&l| doc.scene.layers.get(l).is_some_and(|l| !l.choices.is_empty()))
            .collect()
    };
    for index in shown {
        layer_row_ui(ui, doc, index);
    }
}

/// One layer of the selected item: its clip, its time, and a slider that scrubs it alone.
fn layer_row_ui(ui: &mut Ui, doc: &mut Document, index: usize) {
    choice_ui(ui, doc, index);
    let scene = &doc.scene;
    let Some(layer) = scene.layers.get(index) else { return };
    let Some(clip) = layer.clip.and_then(|c| scene.clips.get(c)) else { return };
    let Some(clock): Option<&mut LayerClock> = doc.layers.as_mut() else { return };
    let Some(mut time) = clock.layer_time(scene, index) else { return };
    ui.horizontal(|ui| {
        ui.label(&layer.name).on_hover_text(format!("{} ({:?})", clip.name, layer.playback));
        ui.monospace(format!("{:>6.1} / {}", time - clip.start, clip.length()));
        ui.spacing_mut().slider_width = (ui.available_width() - 140.0).max(80.0);
        let (start, end) = (clip.start, clip.end.max(clip.start));
        let response = ui.add(egui::Slider::new(&mut time, start..=end).show_value(false)).on_hover_text(
            "Drag to scrub this item alone; the scene clock pauses while the others stay where they are",
        );
        if response.changed() {
            clock.scrub(scene, index, time);
        }
        let moved = clock.offsets.get(index).is_some_and(|o| *o != 0.0);
        if ui.add_enabled(moved, egui::Button::new("Rejoin")).on_hover_text("Back onto the scene clock").clicked()
            && let Some(offset) = clock.offsets.get_mut(index)
        {
            *offset = 0.0;
        }
    });
}

/// A layer that offers a choice of clips (a Quake 3 player's torso and legs): which it plays.
fn choice_ui(ui: &mut Ui, doc: &mut Document, index: usize) {
    let Some(layer) = doc.scene.layers.get(index).filter(|l| !l.choices.is_empty()) else { return };
    let name = |c: Option<usize>| c.and_then(|c| doc.scene.clips.get(c)).map_or("none".into(), |c| c.name.clone());
    let mut picked = None;
    ui.horizontal(|ui| {
        ui.label(format!("{} plays", layer.name));
        egui::ComboBox::from_id_salt(("layer-clip", index)).selected_text(name(layer.clip)).show_ui(ui, |ui| {
            for &choice in &layer.choices {
                if ui.selectable_label(layer.clip == Some(choice), name(Some(choice))).clicked() {
                    picked = Some(choice);
                }
            }
        });
    });
    let seconds = doc.layers.as_ref().map_or(0.0, |clock| clock.seconds);
    if let Some(choice) = picked
        && let Some(mut layer) = doc.scene.layers.get(index).cloned()
        && layer.choose(&doc.scene, choice, seconds)
        && let Some(slot) = doc.scene.layers.get_mut(index)
    {
        // Looped or once as the clip plays in its game, from its start now.
        *slot = layer;
        if let Some(offset) = doc.layers.as_mut().and_then(|c| c.offsets.get_mut(index)) {
            *offset = 0.0;
        }
    }
}
