//! The panels around the viewport: the toolbar, the folder list on the left, the inspector on
//! the right (nodes, materials, animations, file info), the status bar and the help overlay.
//! They read the session and push [`Action`]s; nothing here touches the GPU or the loader.

use egui::{Color32, RichText, Ui};
use glam::Mat4;

use super::state::Document;
use super::viewport::FLAG_BITS;
use super::{Action, Viewer, file_name};
use crate::render::{SceneReport, TextureSource};
use crate::scene::{AlphaMode, NodeKind, RawField, math::is_sheared};

/// Accent colours, readable on egui's dark theme.
pub const ERROR_COLOUR: Color32 = Color32::from_rgb(255, 110, 100);
pub const WARN_COLOUR: Color32 = Color32::from_rgb(240, 190, 90);
pub const OK_COLOUR: Color32 = Color32::from_rgb(130, 210, 130);
pub const SELECTED_COLOUR: Color32 = Color32::from_rgb(255, 200, 60);

/// Which page the inspector shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InspectorTab {
    /// A park's items by kind (only for a scene with parts).
    Park,
    Nodes,
    Materials,
    Animations,
    Info,
}

/// Dark theme with slightly roomier spacing; monospace for matrices.
pub fn setup_style(ctx: &egui::Context) {
    ctx.set_visuals(egui::Visuals::dark());
    ctx.all_styles_mut(|style| {
        style.spacing.item_spacing = egui::vec2(6.0, 4.0);
        style.spacing.button_padding = egui::vec2(6.0, 3.0);
        style.interaction.tooltip_delay = 0.3;
    });
}

/// The top bar: open buttons, recent files, display toggles, help.
pub fn toolbar_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::top("toolbar").show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open…").on_hover_text("Open a model file (Ctrl+O)").clicked() {
                viewer.actions.push(Action::PickFile);
            }
            if ui.button("Open folder…").on_hover_text("Browse a folder of models (Ctrl+Shift+O)").clicked() {
                viewer.actions.push(Action::PickFolder);
            }
            recent_menu_ui(ui, viewer);
            let export_hint = "Save the model as glTF (every clip) or OBJ (the pose on screen) (Ctrl+E)";
            ui.add_enabled_ui(viewer.session.doc.is_some(), |ui| {
                if ui.button("Export…").on_hover_text(export_hint).clicked() {
                    viewer.actions.push(Action::PickExport);
                }
            });
            ui.separator();
            let sheet_hint = "S: the folder's models as thumbnails; click one to open it";
            ui.add_enabled_ui(viewer.session.folder.is_some(), |ui| {
                ui.toggle_value(&mut viewer.sheet.open, "Sheet").on_hover_text(sheet_hint);
            });
            let d = &mut viewer.display;
            ui.toggle_value(&mut d.textured, "Textures").on_hover_text("T");
            ui.toggle_value(&mut d.lit, "Lighting").on_hover_text("L");
            ui.toggle_value(&mut d.wireframe, "Wireframe").on_hover_text("W");
            ui.toggle_value(&mut d.normals, "Normals").on_hover_text("N");
            ui.toggle_value(&mut d.bounds, "Bounds").on_hover_text("B");
            ui.toggle_value(&mut d.grid, "Grid").on_hover_text("G");
            ui.toggle_value(&mut d.skeleton, "Skeleton").on_hover_text("K: bones of skinned models");
            ui.toggle_value(&mut d.markers, "Markers").on_hover_text("M: tags, attachment points and emitters");
            ui.toggle_value(&mut viewer.fly.on, "Fly")
                .on_hover_text("V: fly across the scene; W A S D move, Q E down / up, Shift faster, drag looks");
            let d = &mut viewer.display;
            ui.label("Background");
            ui.color_edit_button_srgb(&mut d.background);
            ui.separator();
            colour_by_flag_ui(ui, &mut d.colour_by_flag);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Help (F1)").clicked() {
                    viewer.show_help = !viewer.show_help;
                }
            });
        });
    });
}

fn colour_by_flag_ui(ui: &mut Ui, selected: &mut Option<u32>) {
    let text = match selected {
        Some(bit) => format!("Colour by flag {bit:#04x}"),
        None => "Colour by flag: off".to_string(),
    };
    egui::ComboBox::from_id_salt("colour-by-flag").selected_text(text).show_ui(ui, |ui| {
        ui.selectable_value(selected, None, "Off (normal shading)");
        for bit in FLAG_BITS {
            ui.selectable_value(selected, Some(bit), format!("Flag {bit:#04x}"));
        }
    });
}

/// Recent files and recent folders, side by side.
fn recent_menu_ui(ui: &mut Ui, viewer: &mut Viewer) {
    ui.menu_button("Recent", |ui| {
        let recent = &viewer.session.recent;
        if recent.files.is_empty() && recent.folders.is_empty() {
            ui.weak("Nothing opened yet");
            return;
        }
        let mut open = None;
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.weak("Files");
                if recent.files.is_empty() {
                    ui.weak("none yet");
                }
                for path in &recent.files {
                    if ui.button(file_name(path)).on_hover_text(path.display().to_string()).clicked() {
                        open = Some(path.clone());
                    }
                }
            });
            ui.separator();
            ui.vertical(|ui| {
                ui.weak("Folders");
                if recent.folders.is_empty() {
                    ui.weak("none yet");
                }
                for path in &recent.folders {
                    let label = format!("{}/", file_name(path));
                    if ui.button(label).on_hover_text(path.display().to_string()).clicked() {
                        open = Some(path.clone());
                    }
                }
            });
        });
        if let Some(path) = open {
            viewer.actions.push(Action::Open(path));
            ui.close();
        }
    });
}

/// The bottom line: what is open, its size, how long it took, and the latest notice.
pub fn status_bar_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::bottom("status").show(ui, |ui| {
        ui.horizontal(|ui| {
            if viewer.session.pending.is_some() {
                ui.spinner();
                ui.label("Loading…");
                ui.separator();
            }
            match &viewer.session.doc {
                Some(doc) => {
                    let (vertices, triangles) = doc.counts();
                    // Below the folder browsed: a tree has many a `tris.md2`.
                    ui.label(RichText::new(viewer.shown_name(&doc.path)).strong())
                        .on_hover_text(doc.path.display().to_string());
                    ui.label(format!("{} · {vertices} vertices · {triangles} triangles", doc.summary.format_name));
                    if let Some(t) = viewer.last_open {
                        ui.weak(format!("opened in {:.0} ms (decode {:.1} ms)", t.on_screen_ms, t.decode_ms));
                    }
                }
                None => {
                    ui.weak("No model open");
                }
            }
            if let Some(notice) = &viewer.notice {
                if notice.shown_at.elapsed().as_secs_f32() < 6.0 {
                    ui.separator();
                    let colour = if notice.error { ERROR_COLOUR } else { ui.visuals().text_color() };
                    ui.colored_label(colour, &notice.text);
                    ui.ctx().request_repaint_after(std::time::Duration::from_millis(500));
                } else {
                    viewer.notice = None;
                }
            }
        });
    });
}

/// The right panel: an error banner, then tabs.
pub fn inspector_ui(ui: &mut Ui, viewer: &mut Viewer) {
    egui::Panel::right("inspector").resizable(true).default_size(340.0).show(ui, |ui| {
        ui.add_space(4.0);
        if let Some(error) = viewer.session.error.clone() {
            let has_model = viewer.session.doc.is_some();
            error_banner_ui(ui, &error, &mut viewer.session.error, has_model);
        }
        let warnings = viewer.session.doc.as_ref().map(|d| d.summary.warnings.len()).unwrap_or(0);
        let parts = viewer.session.doc.as_ref().map_or(0, |d| d.scene.parts.len());
        let park = viewer.session.doc.as_ref().is_some_and(|d| d.scene.format == crate::scene::FormatKind::TpwPark);
        if parts == 0 && viewer.inspector_tab == InspectorTab::Park {
            viewer.inspector_tab = InspectorTab::Nodes;
        }
        ui.horizontal(|ui| {
            let tab = &mut viewer.inspector_tab;
            if parts > 0 {
                ui.selectable_value(tab, InspectorTab::Park, if park { "Park" } else { "Parts" });
            }
            ui.selectable_value(tab, InspectorTab::Nodes, "Nodes");
            ui.selectable_value(tab, InspectorTab::Materials, "Materials");
            ui.selectable_value(tab, InspectorTab::Animations, "Animations");
            let info = if warnings > 0 { format!("Info ⚠ {warnings}") } else { "Info".to_string() };
            ui.selectable_value(tab, InspectorTab::Info, info);
        });
        ui.separator();
        let Some(doc) = &mut viewer.session.doc else {
            ui.weak("No model open.");
            return;
        };
        if !doc.scene.choices.is_empty() {
            choices_ui(ui, doc, &mut viewer.actions);
            ui.separator();
        }
        if super::weapon::holds_weapons(&doc.scene) {
            let held = doc.weapon.as_deref().map(super::file_name);
            ui.horizontal(|ui| {
                let hint = "Hang any .md3 on the player's tag_weapon, as the game holds it";
                if ui.button("Attach weapon…").on_hover_text(hint).clicked() {
                    viewer.actions.push(Action::PickWeapon);
                }
                if let Some(held) = held {
                    ui.weak(format!("holding {held}"));
                }
            });
            ui.separator();
        }
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| match viewer.inspector_tab {
            InspectorTab::Park => super::park_panel::park_ui(ui, doc, &mut viewer.actions),
            InspectorTab::Nodes => nodes_ui(ui, doc),
            InspectorTab::Materials => {
                materials_ui(ui, doc, viewer.texture_report.as_ref(), &mut viewer.display.colour_by_flag)
            }
            InspectorTab::Animations => animations_ui(ui, doc, &mut viewer.actions),
            InspectorTab::Info => info_ui(ui, doc, viewer.last_open),
        });
    });
}

fn error_banner_ui(ui: &mut Ui, error: &str, slot: &mut Option<String>, has_model: bool) {
    egui::Frame::new()
        .fill(Color32::from_rgb(70, 24, 24))
        .stroke(egui::Stroke::new(1.0, ERROR_COLOUR))
        .corner_radius(4.0)
        .inner_margin(6.0)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.colored_label(ERROR_COLOUR, RichText::new("Could not open the file").strong());
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.small_button("×").on_hover_text("Dismiss").clicked() {
                        *slot = None;
                    }
                });
            });
            ui.label(error);
            if has_model {
                ui.weak("The previous model stays open.");
            }
        });
    ui.add_space(4.0);
}

fn nodes_ui(ui: &mut Ui, doc: &mut Document) {
    if doc.scene.nodes.is_empty() {
        ui.weak("This file has no nodes.");
        return;
    }
    if doc.scene.lods.len() > 1 {
        // Levels of detail (MDR): the pose shows one, and hides the others.
        let current = doc.pose.lod.min(doc.scene.lods.len() - 1);
        ui.horizontal(|ui| {
            ui.label("Level of detail");
            let name = |i: usize| doc.scene.lods.get(i).map(|l| l.name.clone()).unwrap_or_default();
            egui::ComboBox::from_id_salt("lod").selected_text(name(current)).show_ui(ui, |ui| {
                for i in 0..doc.scene.lods.len() {
                    if ui.selectable_label(current == i, name(i)).clicked() {
                        doc.pose.lod = i;
                    }
                }
            });
        });
    }
    let tags: Vec<usize> =
        doc.scene.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Tag).map(|(i, _)| i).collect();
    if !tags.is_empty() {
        // Tags (MDR) and attachment points (M2): selecting one draws its axes.
        ui.horizontal_wrapped(|ui| {
            ui.label("Tags");
            for i in tags {
                let name = doc.scene.nodes.get(i).map(|n| n.name.clone()).unwrap_or_default();
                if ui.selectable_label(doc.selected == Some(i), format!("⚑ {name}")).clicked() {
                    doc.selected = if doc.selected == Some(i) { None } else { Some(i) };
                }
            }
        });
        ui.separator();
    }
    ui.weak("■ mesh   ○ transform-only   ♦ bone   ⚑ tag");
    // An assembled scene (a park) shows the selected item's own nodes.
    let part = super::park::selected_part(&doc.scene, doc.selected);
    let roots: Vec<usize> = match part.and_then(|p| doc.scene.parts.get(p)) {
        Some(p) => {
            ui.label(RichText::new(format!("Nodes of {}", p.name)).strong());
            vec![p.root]
        }
        None if !doc.scene.parts.is_empty() => {
            ui.weak("Select an item in the Park tab to see its nodes.");
            return;
        }
        None => doc.scene.roots().collect(),
    };
    for root in roots {
        node_tree_ui(ui, doc, root, 0);
    }
    ui.separator();
    match doc.selected {
        Some(index) => node_details_ui(ui, doc, index),
        None => {
            ui.weak("Select a node to see its matrices, counts and raw fields.");
        }
    }
}

fn node_tree_ui(ui: &mut Ui, doc: &mut Document, index: usize, depth: usize) {
    // Depth guard: decoders reject cycles, but a tree drawn from file data must not recurse forever.
    if depth > 64 {
        return;
    }
    let Some(node) = doc.scene.nodes.get(index) else { return };
    let icon = match (node.kind, node.mesh) {
        (_, Some(_)) => "■",
        (NodeKind::Transform, None) => "○",
        (NodeKind::Bone, None) => "♦",
        (NodeKind::Tag, None) => "⚑",
        (NodeKind::Mesh, None) => "□",
    };
    let sheared = is_sheared(&node.local);
    let mut text = RichText::new(format!("{icon} {}", display_name(&node.name, index)));
    if !doc.pose.visible.get(index).copied().unwrap_or(true) {
        text = text.weak();
    }
    let children = node.children.clone();
    let selected = doc.selected == Some(index);
    let id = ui.make_persistent_id(("node", index));
    let row = |ui: &mut Ui, doc: &mut Document| {
        ui.horizontal(|ui| {
            if ui.selectable_label(selected, text.clone()).clicked() {
                doc.selected = if selected { None } else { Some(index) };
            }
            if sheared {
                ui.colored_label(WARN_COLOUR, RichText::new("sheared").small())
                    .on_hover_text("The local matrix has shear: it cannot be written as translate·rotate·scale");
            }
        });
    };
    if children.is_empty() {
        ui.horizontal(|ui| {
            ui.add_space(18.0);
            row(ui, doc);
        });
    } else {
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, depth < 3)
            .show_header(ui, |ui| row(ui, doc))
            .body(|ui| {
                for child in children {
                    node_tree_ui(ui, doc, child, depth + 1);
                }
            });
    }
}

/// "1 track", "2 tracks".
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

fn display_name(name: &str, index: usize) -> String {
    if name.trim().is_empty() { format!("node {index}") } else { name.to_string() }
}

fn node_details_ui(ui: &mut Ui, doc: &Document, index: usize) {
    let Some(node) = doc.scene.nodes.get(index) else { return };
    ui.label(RichText::new(display_name(&node.name, index)).heading().color(SELECTED_COLOUR));
    let kind = match (node.kind, node.mesh) {
        (_, Some(_)) => "mesh node",
        (NodeKind::Transform, None) => "transform-only node",
        (NodeKind::Bone, None) => "bone",
        (NodeKind::Tag, None) => "tag",
        (NodeKind::Mesh, None) => "mesh node without a mesh",
    };
    ui.label(format!("#{index}, {kind}{}", if is_sheared(&node.local) { ", sheared" } else { "" }));
    if let Some(a) = node.anchor.as_deref() {
        let [c0, c1, c2] = a.corners;
        let mesh = doc.scene.meshes.get(a.mesh).map_or("?", |m| m.name.as_str());
        ui.label(format!("Anchored to face ({c0}, {c1}, {c2}) of {mesh} at u {} v {}, offset {}", a.u, a.v, a.offset))
            .on_hover_text("Rides that face while a clip moves the mesh's vertices (TPW face anchor)");
    }
    if let Some(mesh) = node.mesh.and_then(|m| doc.scene.meshes.get(m)) {
        egui::Grid::new("mesh-counts").num_columns(2).show(ui, |ui| {
            ui.label("Vertices");
            ui.label(format!("{} stored, {} rendered", mesh.source_positions.len(), mesh.vertex_count()));
            ui.end_row();
            ui.label("Faces");
            ui.label(mesh.triangles.len().to_string());
            ui.end_row();
            ui.label("UVs");
            ui.label(mesh.uvs.len().to_string());
            ui.end_row();
            ui.label("Submeshes");
            ui.label(mesh.submeshes.len().to_string());
            ui.end_row();
        });
    }
    let local = doc.pose.locals.get(index).copied().unwrap_or(node.local);
    let world = doc.pose.world.get(index).copied().unwrap_or(Mat4::IDENTITY);
    ui.add_space(4.0);
    ui.strong("Local matrix").on_hover_text("Rows as the file stores them: translation in the last row");
    matrix_ui(ui, "local", &local);
    ui.strong("World matrix");
    matrix_ui(ui, "world", &world);
    raw_fields_ui(ui, "Node raw fields", &node.raw);
    if let Some(mesh) = node.mesh.and_then(|m| doc.scene.meshes.get(m)) {
        raw_fields_ui(ui, "Mesh raw fields", &mesh.raw);
    }
}

/// A 4x4 matrix in the file's row-vector layout (translation in the last row).
fn matrix_ui(ui: &mut Ui, id: &str, m: &Mat4) {
    let cols = m.to_cols_array_2d();
    egui::Frame::new().fill(ui.visuals().extreme_bg_color).inner_margin(4.0).corner_radius(3.0).show(ui, |ui| {
        egui::Grid::new(id).spacing([10.0, 1.0]).show(ui, |ui| {
            for row in cols {
                for v in row {
                    ui.monospace(format!("{v:>9.4}"));
                }
                ui.end_row();
            }
        });
    });
}

fn raw_fields_ui(ui: &mut Ui, title: &str, fields: &[RawField]) {
    ui.add_space(4.0);
    ui.strong(format!("{title} ({})", fields.len()));
    if fields.is_empty() {
        ui.weak("none");
        return;
    }
    egui::Grid::new(title).striped(true).num_columns(3).show(ui, |ui| {
        for f in fields {
            ui.label(f.name.as_ref());
            ui.monospace(format!("@{:#x}", f.offset));
            ui.monospace(format!("{:#x} ({})", f.value, f.value));
            ui.end_row();
        }
    });
}

fn materials_ui(ui: &mut Ui, doc: &Document, report: Option<&SceneReport>, colour_by: &mut Option<u32>) {
    ui.horizontal(|ui| {
        ui.label("View");
        colour_by_flag_ui(ui, colour_by);
    });
    if doc.scene.materials.is_empty() {
        ui.weak("This file has no materials.");
        return;
    }
    // An assembled scene's selected item shows its own materials.
    let part = super::park::selected_part(&doc.scene, doc.selected).and_then(|p| doc.scene.parts.get(p));
    let range = part.map_or(0..doc.scene.materials.len(), |p| p.materials.clone());
    if let Some(p) = part {
        ui.label(RichText::new(format!("Materials of {}", p.name)).strong());
    }
    for (index, material) in doc.scene.materials.iter().enumerate().filter(|(i, _)| range.contains(i)) {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                ui.strong(format!("#{index}"));
                let texture = material.texture.as_deref().unwrap_or("(no texture)");
                ui.label(RichText::new(texture).strong());
            });
            let drawn = report.and_then(|r| r.materials.iter().find(|m| m.material == index));
            match drawn.map(|m| &m.source) {
                Some(TextureSource::File(path)) => {
                    ui.colored_label(OK_COLOUR, format!("✔ found: {}", file_name(std::path::Path::new(path))))
                        .on_hover_text(path.as_str());
                }
                Some(TextureSource::Fallback { reason }) => {
                    ui.colored_label(WARN_COLOUR, "⚠ fallback tile").on_hover_text(reason);
                    ui.label(RichText::new(reason).small().weak());
                }
                Some(TextureSource::Untextured) => {
                    ui.weak("no texture");
                }
                None => {
                    ui.weak("texture: not loaded");
                }
            }
            ui.horizontal_wrapped(|ui| {
                ui.label("Flags");
                ui.monospace(format!("{:#06x}", material.flags));
                for bit in FLAG_BITS {
                    flag_chip_ui(ui, bit, material.flags & bit != 0, colour_by);
                }
            });
            ui.horizontal_wrapped(|ui| {
                let see_through = match material.alpha {
                    AlphaMode::Opaque => "opaque".to_string(),
                    AlphaMode::SeeThrough => "see-through".to_string(),
                    AlphaMode::Mask => "alpha-tested".to_string(),
                    AlphaMode::Blend(mode) => format!("blend mode {mode:?}"),
                };
                match drawn {
                    Some(m) => {
                        ui.label(format!("{see_through}, drawn as {}", m.pass.label()))
                            .on_hover_text("See-through textures with hard edges are cut out; gradients are blended");
                    }
                    None => {
                        ui.label(see_through);
                    }
                }
                if material.two_sided {
                    ui.weak("· two-sided");
                }
                if material.unlit {
                    ui.weak("· unlit");
                }
                if material.sphere_map {
                    ui.weak("· sphere-mapped");
                } else if material.uv_set == 1 {
                    ui.weak("· UV set 1");
                }
            });
        });
    }
    if let Some(report) = report
        && !report.texture_dirs.is_empty()
    {
        ui.add_space(4.0);
        ui.weak("Textures are looked for in:");
        for dir in &report.texture_dirs {
            ui.label(RichText::new(dir).small().weak());
        }
    }
}

fn flag_chip_ui(ui: &mut Ui, bit: u32, set: bool, colour_by: &mut Option<u32>) {
    let text = RichText::new(format!("{bit:02x}")).monospace().small();
    let text = if set { text.color(Color32::BLACK) } else { text.weak() };
    let fill = if set { OK_COLOUR } else { Color32::TRANSPARENT };
    let response = ui.add(egui::Button::new(text).fill(fill).small()).on_hover_text(format!(
        "Flag {bit:#04x} is {}. Click to colour meshes by it.",
        if set { "set" } else { "clear" }
    ));
    if response.clicked() {
        *colour_by = if *colour_by == Some(bit) { None } else { Some(bit) };
    }
}

/// Choices among sibling files the opener made (M2: skin profile, run-time texture; Quake II:
/// the skin of the model and of its weapon); picking
/// another reopens the model with it.
fn choices_ui(ui: &mut Ui, doc: &Document, actions: &mut Vec<Action>) {
    egui::Grid::new("open-choices").num_columns(2).show(ui, |ui| {
        for choice in &doc.scene.choices {
            ui.label(&choice.label);
            let selected =
                choice.selected.and_then(|s| choice.options.get(s)).cloned().unwrap_or_else(|| "none".into());
            egui::ComboBox::from_id_salt(("choice", &choice.key)).selected_text(selected).show_ui(ui, |ui| {
                for (index, option) in choice.options.iter().enumerate() {
                    let available = choice.available.get(index).copied().unwrap_or(false);
                    let response = ui.add_enabled(
                        available,
                        egui::Button::selectable(choice.selected == Some(index), option.as_str()),
                    );
                    if response.clicked() && choice.selected != Some(index) {
                        actions.push(Action::Choose { key: choice.key.clone(), option: index });
                    }
                }
            });
            ui.end_row();
        }
    });
}

/// The name of the frame on screen, for formats whose frames have names (Quake II).
fn frame_name(doc: &Document) -> Option<&str> {
    let clip = doc.scene.clips.get(doc.clip?)?;
    clip.channels.iter().find_map(|channel| match channel {
        crate::scene::Channel::PackedFrames(p) if p.has_names() => {
            let index = (doc.timeline.time - clip.start).round().max(0.0) as usize;
            // Past the last frame, a loop's blend rounds to the first frame it nears.
            let frames = p.frames.len();
            let index = if index >= frames && doc.pose.looping && p.wraps { 0 } else { index };
            p.name(index.min(frames.saturating_sub(1)))
        }
        _ => None,
    })
}

fn animations_ui(ui: &mut Ui, doc: &Document, actions: &mut Vec<Action>) {
    if doc.scene.clips.is_empty() {
        ui.weak("No animations. TPW animations sit beside the model as <model><role><n>.md2 (C, I, M1, M2…).");
        return;
    }
    // An assembled scene: "no single clip" is every item on its own clock; a selected item
    // lists the clips it plays, with their tracks.
    let part = super::park::selected_part(&doc.scene, doc.selected);
    let own: Option<Vec<usize>> = part.map(|p| super::park::part_clips(&doc.scene, p));
    let no_clip = if doc.layers.is_some() { "All items (scene clock)" } else { "Rest pose" };
    if ui.selectable_label(doc.clip.is_none(), no_clip).clicked() {
        actions.push(Action::PlayClip(None));
    }
    if doc.scene.as_built.is_some()
        && ui.selectable_label(false, "As built").on_hover_text("The construction clip (C) on its last frame").clicked()
    {
        actions.push(Action::AsBuilt);
    }
    for (index, clip) in doc.scene.clips.iter().enumerate() {
        if own.as_ref().is_some_and(|own| !own.contains(&index)) {
            continue;
        }
        let playing = doc.clip == Some(index);
        let skipped = clip.tracks.iter().filter(|t| t.skipped.is_some()).count();
        let length = if clip.in_milliseconds() {
            format!("{} ms", clip.length())
        } else {
            format!("{} frames @ {} fps", clip.length(), clip.rate)
        };
        let mut text = format!("▶ {}   {length}, {}", clip.name, plural(clip.tracks.len(), "track"));
        // M2 sequences: their animation id and variation.
        let exact_id = doc.scene.clip_aliases.iter().find(|(alias, i)| *i == index && alias.contains('.'));
        if let Some((alias, _)) = exact_id {
            text.push_str(&format!("   [{}]", alias.replace(':', " ")));
        }
        if skipped > 0 {
            text.push_str(&format!(" ({skipped} skipped)"));
        }
        if !clip.warnings.is_empty() {
            text.push_str("  ⚠");
        }
        let response = ui.selectable_label(playing, text);
        let mut hover: Vec<String> = clip.warnings.clone();
        if let Some(source) = &clip.source {
            hover.push(source.display().to_string());
        }
        let response = if hover.is_empty() { response } else { response.on_hover_text(hover.join("\n")) };
        if response.clicked() {
            actions.push(Action::PlayClip(Some(index)));
        }
    }
    let shown = doc.clip.or_else(|| own.as_ref().and_then(|own| own.first().copied()));
    let Some(clip) = shown.and_then(|c| doc.scene.clips.get(c)) else { return };
    if let Some(name) = frame_name(doc) {
        ui.separator();
        ui.horizontal(|ui| {
            ui.label("Frame");
            ui.monospace(format!("{} ({name})", doc.timeline.time.round()));
        });
    }
    if !clip.warnings.is_empty() {
        ui.separator();
    }
    for w in &clip.warnings {
        ui.colored_label(WARN_COLOUR, format!("⚠ {w}"));
    }
    if clip.tracks.is_empty() {
        return;
    }
    ui.separator();
    ui.strong(format!("Tracks of {}", clip.name));
    egui::Grid::new("tracks").striped(true).num_columns(4).show(ui, |ui| {
        ui.weak("#");
        ui.weak("Target");
        ui.weak("Channels");
        ui.weak("Status");
        ui.end_row();
        for track in &clip.tracks {
            ui.monospace(track.index.to_string());
            let target =
                track.target_name.as_deref().map_or_else(|| format!("#{} (unbound)", track.target), str::to_string);
            ui.label(target);
            ui.label(track.channels.join(", ")).on_hover_text(format!("flags {:#x}", track.flags));
            match &track.skipped {
                None => {
                    ui.colored_label(OK_COLOUR, "plays");
                }
                Some(reason) => {
                    ui.colored_label(WARN_COLOUR, "skipped").on_hover_text(reason);
                }
            }
            ui.end_row();
            for reason in &track.reasons {
                ui.label("");
                ui.colored_label(WARN_COLOUR, RichText::new(format!("↪ {reason}")).small());
                ui.end_row();
            }
        }
    });
}

fn info_ui(ui: &mut Ui, doc: &Document, timing: Option<super::OpenTiming>) {
    let s = &doc.summary;
    egui::Grid::new("file-info").num_columns(2).show(ui, |ui| {
        ui.label("File");
        ui.label(file_name(&doc.path)).on_hover_text(doc.path.display().to_string());
        ui.end_row();
        ui.label("Format");
        ui.label(format!("{} (version {})", s.format_name, s.version));
        ui.end_row();
        ui.label("Contents");
        ui.label(format!(
            "{} nodes, {} meshes, {} materials",
            s.nodes.len(),
            s.meshes.len(),
            doc.scene.materials.len()
        ));
        ui.end_row();
        let (vertices, triangles) = doc.counts();
        ui.label("Geometry");
        ui.label(format!("{vertices} vertices, {triangles} triangles"));
        ui.end_row();
        ui.label("Animations");
        ui.label(s.clips.len().to_string());
        ui.end_row();
        if let Some(t) = timing {
            ui.label("Opened in");
            ui.label(format!("{:.1} ms (decode {:.1} ms)", t.on_screen_ms, t.decode_ms));
            ui.end_row();
        }
    });
    raw_fields_ui(ui, "Header raw fields", &doc.scene.raw);
    ui.add_space(6.0);
    ui.strong(format!("Warnings ({})", s.warnings.len()));
    if s.warnings.is_empty() {
        ui.weak("none");
    }
    for w in &s.warnings {
        ui.colored_label(WARN_COLOUR, format!("⚠ {w}"));
    }
}

/// Every key, in a window toggled with F1.
pub const KEYS: &[(&str, &str)] = &[
    ("Ctrl+O", "open a model or .wad archive"),
    ("Ctrl+Shift+O", "open a folder"),
    ("Ctrl+E", "export: glTF with every clip, or OBJ of the pose on screen"),
    ("PageDown / PageUp", "next / previous model in the folder"),
    ("S", "sheet: the folder's models as thumbnails (click one to open it; S moves in fly mode)"),
    ("Space", "play / pause (a park: every item at once)"),
    (", and .", "previous / next frame"),
    ("Home / End", "first / last frame (a park: Home goes back to the saved time)"),
    ("[ and ]", "half / double speed"),
    ("F", "frame the model (a park: the selected item; double-clicking one in the Park tab frames it too)"),
    ("V", "fly mode on / off: W A S D move, Q E down / up, Shift faster, drag looks"),
    ("R", "reset the camera"),
    ("W N B G", "wireframe, normals, bounds, grid (W moves in fly mode)"),
    ("K", "skeleton (bones of MDR and M2 models)"),
    ("M", "markers (MDR tags; M2 attachments, emitters, lights)"),
    ("T L", "textures, lighting"),
    ("Left drag", "orbit (look around in fly mode)"),
    ("Right drag, Shift+drag", "pan"),
    ("Wheel", "zoom"),
    ("F12", "save the viewport as PNG beside the model"),
    ("F1, Esc", "this help"),
    ("Drop a file or folder", "open it"),
];

pub fn help_ui(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Keys")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            egui::Grid::new("keys").striped(true).num_columns(2).spacing([16.0, 4.0]).show(ui, |ui| {
                for (key, what) in KEYS {
                    ui.monospace(*key);
                    ui.label(*what);
                    ui.end_row();
                }
            });
        });
}
