//! The folder tree on the left: every model under the folder browsed, under a heading per
//! sub-folder (and per archive), with the animations of each TPW model under it, and a filter
//! over the path below the folder. The rows are laid out as one flat list of equal height, so
//! that only the rows in view are drawn, however large the tree ([`rows`]).

use egui::{RichText, Ui};

use super::state::Folder;
use super::{Action, Viewer, file_name};
use crate::formats::listing::depth_of;

/// One line of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A folder (its last name) that holds shown models, directly or below it.
    Heading { name: String, relative: String, depth: usize },
    /// Entry `index` of the folder.
    Model { index: usize, depth: usize },
    /// Animation `animation` of entry `index`.
    Animation { index: usize, animation: usize, depth: usize },
}

/// The rows for the entries the filter shows, in order: a heading for each folder on the way
/// to an entry that the entry before did not share, then the entry and its animations.
pub fn rows(folder: &Folder) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut shown: Vec<&str> = Vec::new();
    for index in folder.visible() {
        let Some(entry) = folder.entries.get(index) else { continue };
        let parts: Vec<&str> = entry.folder.split('/').filter(|p| !p.is_empty()).collect();
        let common = shown.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        for depth in common..parts.len() {
            let relative = parts.get(..=depth).map(|p| p.join("/")).unwrap_or_default();
            let name = parts.get(depth).map(|p| p.to_string()).unwrap_or_default();
            rows.push(Row::Heading { name, relative, depth: depth + 1 });
        }
        shown = parts;
        let depth = depth_of(&entry.folder);
        rows.push(Row::Model { index, depth });
        rows.extend((0..entry.animations.len()).map(|animation| Row::Animation { index, animation, depth }));
    }
    rows
}

/// The tree's rows, kept while the folder's entries and filter stay the same, and where the
/// list was last scrolled to follow the current model.
#[derive(Default)]
pub struct TreeView {
    key: Option<(u64, usize, String)>,
    rows: Vec<Row>,
    /// The current entry the list last scrolled to.
    followed: Option<usize>,
    /// The rows drawn in the last frame.
    in_view: std::ops::Range<usize>,
}

impl TreeView {
    fn rows(&mut self, folder: &Folder) -> &[Row] {
        let key = (folder.generation, folder.entries.len(), folder.filter.clone());
        if self.key.as_ref() != Some(&key) {
            self.rows = rows(folder);
            self.key = Some(key);
        }
        &self.rows
    }
}

/// Pixels of indent per level of the tree.
const INDENT: f32 = 10.0;

/// The folder tree with its filter.
pub fn files_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::left("files").resizable(true).default_size(230.0).show(ui, |ui| {
        let Viewer { session, tree, actions, .. } = viewer;
        let Some(folder) = &mut session.folder else {
            ui.add_space(6.0);
            ui.heading("Folder");
            ui.weak("Open a model or drop a folder or .wad archive onto the window to list its models here.");
            return;
        };
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.heading("Folder");
            ui.weak(plural(folder.entries.len(), "model"));
            if !folder.complete {
                ui.spinner().on_hover_text("Listing the folders below…");
            }
        });
        ui.label(RichText::new(folder_label(folder)).small()).on_hover_text(folder.dir.display().to_string());
        ui.add(
            egui::TextEdit::singleline(&mut folder.filter)
                .hint_text("Filter by path, e.g. players/male")
                .desired_width(f32::INFINITY),
        );
        ui.weak("PageUp / PageDown: previous / next");
        if !folder.problems.is_empty() {
            egui::CollapsingHeader::new(
                RichText::new(format!("⚠ {} could not be listed", plural(folder.problems.len(), "item")))
                    .color(super::panel::WARN_COLOUR),
            )
            .id_salt("listing-problems")
            .show(ui, |ui| {
                for (_, problem) in &folder.problems {
                    ui.label(RichText::new(problem).small());
                }
            });
        }
        ui.separator();
        let doc = session.doc.as_ref();
        let playing_source = doc.and_then(|d| d.clip.and_then(|c| d.scene.clips.get(c))).and_then(|c| c.source.clone());
        let rows = tree.rows(folder).to_vec();
        if rows.is_empty() {
            ui.weak(if !folder.complete {
                "Listing…"
            } else if folder.entries.is_empty() {
                "No models in this folder or below it."
            } else {
                "No model matches the filter."
            });
            return;
        }
        let row_height = ui.spacing().interact_size.y;
        let mut area = egui::ScrollArea::vertical().auto_shrink([false, false]);
        // Keep the current model in view when it changes (PageDown), not while the user scrolls.
        if folder.current != tree.followed {
            tree.followed = folder.current;
            let row = rows.iter().position(|r| matches!(r, Row::Model { index, .. } if Some(*index) == folder.current));
            if let Some(row) = row.filter(|r| !tree.in_view.contains(r) || tree.in_view.end.saturating_sub(*r) < 2) {
                let spacing = ui.spacing().item_spacing.y;
                area = area.vertical_scroll_offset((row.saturating_sub(3)) as f32 * (row_height + spacing));
            }
        }
        let current = folder.current;
        area.show_rows(ui, row_height, rows.len(), |ui, range| {
            tree.in_view = range.clone();
            for row in rows.get(range).unwrap_or_default() {
                match row {
                    Row::Heading { name, relative, depth } => {
                        ui.horizontal(|ui| {
                            ui.add_space(INDENT * (*depth as f32 - 1.0));
                            ui.label(RichText::new(format!("🗀 {name}/")).strong()).on_hover_text(relative);
                        });
                    }
                    Row::Model { index, depth } => {
                        let Some(entry) = folder.entries.get(*index) else { continue };
                        let selected = current == Some(*index);
                        let label = if entry.animations.is_empty() {
                            entry.name.clone()
                        } else {
                            format!("{}  ({} anim)", entry.name, entry.animations.len())
                        };
                        let response = ui
                            .horizontal(|ui| {
                                ui.add_space(INDENT * *depth as f32);
                                ui.selectable_label(selected, label)
                            })
                            .inner
                            .on_hover_text(entry.relative_path());
                        if response.clicked() && !selected {
                            actions.push(Action::Open(entry.path.clone()));
                        }
                    }
                    Row::Animation { index, animation, depth } => {
                        let Some(anim) = folder.entries.get(*index).and_then(|e| e.animations.get(*animation)) else {
                            continue;
                        };
                        let playing = playing_source.as_deref().is_some_and(|s| s == anim.as_path());
                        ui.horizontal(|ui| {
                            ui.add_space(INDENT * *depth as f32 + 16.0);
                            let text = RichText::new(format!("↪ {}", file_name(anim))).small();
                            if ui.selectable_label(playing && current == Some(*index), text).clicked() {
                                actions.push(Action::Open(anim.clone()));
                            }
                        });
                    }
                }
            }
        });
    });
}

fn folder_label(folder: &Folder) -> String {
    let name = file_name(&folder.dir);
    if name.is_empty() { folder.dir.display().to_string() } else { format!("{name}/") }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// The tree as the window has it, for scripted runs (`--dump-tree`): every entry by its path
/// below the folder, what the filter shows, the rows drawn and the current model.
pub fn dump(folder: &Folder) -> serde_json::Value {
    let shown_row = |row: &Row| match row {
        Row::Heading { name, depth, .. } => format!("{}{name}/", "  ".repeat(depth.saturating_sub(1))),
        Row::Model { index, depth } => {
            let name = folder.entries.get(*index).map(|e| e.name.clone()).unwrap_or_default();
            format!("{}{name}", "  ".repeat(*depth))
        }
        Row::Animation { index, animation, depth } => {
            let anim = folder.entries.get(*index).and_then(|e| e.animations.get(*animation));
            format!("{}↪ {}", "  ".repeat(*depth + 1), anim.map(|a| file_name(a)).unwrap_or_default())
        }
    };
    let relative = |i: usize| folder.entries.get(i).map(|e| e.relative_path());
    serde_json::json!({
        "dir": folder.dir,
        "complete": folder.complete,
        "filter": folder.filter,
        "entries": folder.entries.iter().map(|e| e.relative_path()).collect::<Vec<_>>(),
        "visible": folder.visible().into_iter().filter_map(relative).collect::<Vec<_>>(),
        "rows": rows(folder).iter().map(shown_row).collect::<Vec<_>>(),
        "current": folder.current.and_then(relative),
        "problems": folder.problems.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>(),
    })
}
