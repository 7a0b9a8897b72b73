//! The inspector's "Park" tab: an assembled scene's parts (a park's placed items) grouped by
//! kind, each with its name, id, cell and clip, stand-ins marked with why. A click selects
//! the item (its nodes light up in the view, and the other tabs show its own nodes, materials
//! and tracks); a double-click frames it.

use egui::{RichText, Ui};

use super::Action;
use super::panel::{SELECTED_COLOUR, WARN_COLOUR};
use super::park::{fact, grouped_parts, selected_part};
use super::state::Document;

pub fn park_ui(ui: &mut Ui, doc: &mut Document, actions: &mut Vec<Action>) {
    let warnings = doc.summary.warnings.len();
    let boxes = doc.scene.parts.iter().filter(|p| p.stand_in.is_some()).count();
    ui.label(format!("{} items, {} shown as boxes", doc.scene.parts.len(), boxes));
    if warnings > 0 {
        ui.colored_label(WARN_COLOUR, format!("⚠ {warnings} warnings (Info tab)"));
    }
    if doc.scene.warnings.iter().any(|w| w.starts_with(super::park_actions::NO_INSTALL)) {
        ui.colored_label(WARN_COLOUR, "No install found above the save: items are named by id alone.");
        let hint = "The folder holding data/levels/; remembered for the next parks";
        if ui.button("Choose the install…").on_hover_text(hint).clicked() {
            actions.push(Action::PickInstall);
        }
    }
    ui.weak("Click an item to select it, double-click to frame it.");
    let selected = selected_part(&doc.scene, doc.selected);
    if let Some(part) = selected.and_then(|p| doc.scene.parts.get(p)) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(&part.name).strong().color(SELECTED_COLOUR));
            if ui.small_button("Frame").on_hover_text("Move the camera onto this item").clicked()
                && let Some(index) = selected
            {
                actions.push(Action::FramePart(index));
            }
            if ui.small_button("Deselect").clicked() {
                doc.selected = None;
            }
        });
    }
    ui.separator();
    for (group, parts) in grouped_parts(&doc.scene) {
        let title = format!("{group} ({})", parts.len());
        egui::CollapsingHeader::new(title).id_salt(("park-group", &group)).default_open(true).show(ui, |ui| {
            for index in parts {
                part_row_ui(ui, doc, index, selected == Some(index), actions);
            }
        });
    }
}

fn part_row_ui(ui: &mut Ui, doc: &mut Document, index: usize, is_selected: bool, actions: &mut Vec<Action>) {
    let Some(part) = doc.scene.parts.get(index) else { return };
    // The row's facts, under the panel's names; the rest show on hover.
    let details: Vec<String> = [("id", "id"), ("cell", "cell"), ("playing", "clip"), ("clip", "clip")]
        .iter()
        .filter_map(|(label, shown)| fact(part, label).map(|value| format!("{shown} {value}")))
        .collect();
    let root = part.root;
    let stand_in = part.stand_in.clone();
    let response = ui
        .horizontal(|ui| {
            let name = if stand_in.is_some() { format!("⚠ {}", part.name) } else { part.name.clone() };
            let response = ui.selectable_label(is_selected, name);
            ui.add(egui::Label::new(RichText::new(details.join(" · ")).weak()).truncate());
            response
        })
        .inner;
    let mut hover: Vec<String> = part.facts.iter().map(|(label, value)| format!("{label}: {value}")).collect();
    if let Some(reason) = &stand_in {
        ui.indent(("stand-in", index), |ui| {
            let text = RichText::new(format!("shown as a box: {reason}")).small().color(WARN_COLOUR);
            ui.add(egui::Label::new(text).wrap());
        });
        hover.push(format!("shown as a box: {reason}"));
    }
    let response = if hover.is_empty() { response } else { response.on_hover_text(hover.join("\n")) };
    if response.double_clicked() {
        doc.selected = Some(root);
        actions.push(Action::FramePart(index));
    } else if response.clicked() {
        doc.selected = if is_selected { None } else { Some(root) };
    }
}
