//! Carrying out what the UI asked for ([`Action`]): stepping through the folder, choices,
//! framing, the open and export dialogs (run aside so the window keeps drawing), exports and
//! F12's viewport screenshot.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::framing::{clip_bounds, posed_bounds};
use super::window::App;
use super::{Action, UserEvent};
use crate::archive::{io_reason, one_line};
use crate::formats::Pick;

impl App {
    pub(super) fn pick(&mut self, folder: bool) {
        let proxy = self.proxy.clone();
        let start_dir = self.viewer.session.folder.as_ref().map(|f| f.dir.clone());
        // The dialog blocks its thread; running it aside keeps the window drawing.
        let spawned = std::thread::Builder::new().name("mdview-dialog".into()).spawn(move || {
            let started = Instant::now();
            let mut dialog = rfd::FileDialog::new().set_title(if folder { "Open folder" } else { "Open model" });
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            let path = if folder {
                dialog.pick_folder()
            } else {
                let extensions: Vec<String> = crate::formats::MODEL_EXTENSIONS
                    .iter()
                    .chain(&["wad"])
                    .flat_map(|e| [e.to_string(), e.to_uppercase()])
                    .collect();
                dialog
                    .add_filter("Models and TPW archives (md2, mdr, m2, wad)", &extensions)
                    .add_filter("All files", &["*"])
                    .pick_file()
            };
            let _ = proxy.send_event(UserEvent::Picked { path, folder, elapsed: started.elapsed() });
        });
        if let Err(e) = spawned {
            self.viewer.notify(format!("could not open the file dialog: {e}"), true);
        }
    }

    /// The save dialog for an export of the model on screen, beside it and named after it.
    pub(super) fn pick_export(&mut self) {
        let Some(doc) = &self.viewer.session.doc else {
            self.viewer.notify("Open a model to export it", true);
            return;
        };
        // What is on screen now is what gets written, whatever the window shows by the time
        // the dialog closes (the user may step on, and a clip plays on).
        let model = Box::new((doc.scene.clone(), doc.pose.clone()));
        // A model inside an archive is offered the archive's folder.
        let member_archive = crate::formats::wad::path::split_member_path(&doc.path).map(|m| m.archive);
        let dir = member_archive.as_deref().unwrap_or(&doc.path).parent().map(Path::to_path_buf);
        let stem = doc.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
        let proxy = self.proxy.clone();
        let spawned = std::thread::Builder::new().name("mdview-dialog".into()).spawn(move || {
            let started = Instant::now();
            let mut dialog = rfd::FileDialog::new()
                .set_title("Export model: .glb or .gltf with every clip, or .obj of the pose on screen (by the name's extension)")
                .set_file_name(format!("{stem}.glb"))
                .add_filter("glTF binary (every clip)", &["glb"])
                .add_filter("glTF JSON + .bin (every clip)", &["gltf"])
                .add_filter("Wavefront OBJ + MTL + PNG textures (this pose)", &["obj"]);
            if let Some(dir) = dir.filter(|d| d.is_dir()) {
                dialog = dialog.set_directory(dir);
            }
            let path = dialog.save_file();
            let _ = proxy.send_event(UserEvent::ExportPicked { path, elapsed: started.elapsed(), model });
        });
        if let Err(e) = spawned {
            self.viewer.notify(format!("could not open the file dialog: {e}"), true);
        }
    }

    /// Writes `model` (the scene and pose on screen when the dialog opened) to `path` aside
    /// from the window (glTF: every clip; OBJ: that pose), and reports back with
    /// [`UserEvent::Exported`]. The format follows the name's extension, as the dialog cannot
    /// say which filter was picked; any other name is refused (it could be the model itself).
    pub(super) fn export(&mut self, path: PathBuf, model: Box<(crate::scene::Scene, crate::scene::anim::Pose)>) {
        if !crate::export::is_export_path(&path) {
            self.viewer.notify(format!("Not exported: name the file .glb, .gltf or .obj ({})", path.display()), true);
            return;
        }
        let (scene, pose) = *model;
        let proxy = self.proxy.clone();
        self.viewer.notify(format!("Exporting {}…", path.display()), false);
        let spawned = std::thread::Builder::new().name("mdview-export".into()).spawn(move || {
            let written = crate::export::write_file(&scene, &pose, &path, crate::export::Options::default())
                .map(|notes| (path, notes))
                .map_err(|e| format!("{e:#}"));
            let _ = proxy.send_event(UserEvent::Exported(written));
        });
        if let Err(e) = spawned {
            self.viewer.notify(format!("could not start the export: {e}"), true);
        }
    }

    /// Carries out what the UI asked for this frame.
    pub(super) fn run_actions(&mut self) {
        let actions = std::mem::take(&mut self.viewer.actions);
        for action in actions {
            match action {
                Action::Open(path) => self.open(&path, Instant::now()),
                Action::Step(delta) => match self.viewer.session.step(delta) {
                    Some(file) => self.request(file, Instant::now()),
                    None if self.viewer.session.folder.as_ref().is_some_and(|f| !f.complete) && delta > 0 => {
                        self.viewer.notify("The folder is still being listed; more models are on their way", false);
                    }
                    None if self.viewer.session.folder.is_some() => {
                        let filtered = self.viewer.session.folder.as_ref().is_some_and(|f| !f.filter.trim().is_empty());
                        let text = match (filtered, delta > 0) {
                            (true, true) => "No later model in the folder matches the filter",
                            (true, false) => "No earlier model in the folder matches the filter",
                            (false, true) => "This is the last model in the folder",
                            (false, false) => "This is the first model in the folder",
                        };
                        self.viewer.notify(text, false);
                    }
                    None => {}
                },
                Action::PickFile => self.pick(false),
                Action::PickExport => self.pick_export(),
                Action::PickFolder => self.pick(true),
                Action::PlayClip(clip) => {
                    if let Some(doc) = &mut self.viewer.session.doc {
                        doc.play_clip(clip);
                    }
                }
                Action::AsBuilt => {
                    if let Some(doc) = &mut self.viewer.session.doc {
                        doc.show_as_built();
                    }
                }
                Action::Choose { key, option } => {
                    if !self.viewer.session.may_reopen() {
                        self.viewer.notify("Another model is opening; choose again once it has", true);
                    } else if let Some(doc) = &self.viewer.session.doc {
                        let mut picks: Vec<Pick> = doc
                            .scene
                            .choices
                            .iter()
                            .filter(|c| c.key != key)
                            .filter_map(|c| Some(Pick { key: c.key.clone(), option: c.selected? }))
                            .collect();
                        picks.push(Pick { key, option });
                        let path = doc.path.clone();
                        let id = self.loader.request_with(path.clone(), Instant::now(), picks, true);
                        self.viewer.session.begin(id, path);
                    }
                }
                Action::FrameModel => {
                    // In an assembled scene (a park), the selected item; else the whole pose.
                    let part =
                        self.viewer.session.doc.as_ref().and_then(|d| super::park::selected_part(&d.scene, d.selected));
                    if let Some(part) = part {
                        self.frame_part(part);
                    } else if let Some(bounds) = self.viewer.session.doc.as_ref().map(posed_bounds) {
                        self.viewer.frame_on(bounds, false);
                    }
                }
                Action::FramePart(part) => self.frame_part(part),
                Action::PickInstall => self.pick_install(),
                Action::PickWeapon => self.pick_weapon(),
                Action::ResetCamera => {
                    // As on opening: the angles of a fresh view, framed on what a playing clip sweeps.
                    let bounds = self.viewer.session.doc.as_ref().map(clip_bounds);
                    self.viewer.frame_on(bounds.unwrap_or(crate::scene::Aabb::EMPTY), true);
                }
                Action::SaveViewport => self.save_viewport(),
            }
        }
    }

    /// F12: the viewport picture as a PNG beside the model (or in the current folder).
    pub(super) fn save_viewport(&mut self) {
        let Some(gfx) = &self.gfx else { return };
        if self.viewer.session.doc.is_none() {
            self.viewer.notify("Nothing to save: no model is open", true);
            return;
        }
        let image = match gfx.viewport.read_pixels() {
            Ok(image) => image,
            Err(e) => {
                self.viewer.notify(format!("Could not read the viewport back from the GPU: {e}"), true);
                return;
            }
        };
        let doc_path = self.viewer.session.doc.as_ref().map(|d| d.path.clone());
        let (dir, stem) = match &doc_path {
            Some(p) => (
                // A model inside an archive saves beside the archive.
                crate::formats::wad::path::split_member_path(p)
                    .map(|m| m.archive)
                    .as_deref()
                    .unwrap_or(p)
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
                p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "mdview".into()),
            ),
            None => (PathBuf::from("."), "mdview".to_string()),
        };
        let target = free_name(&dir, &stem);
        let saved = match image.save(&target) {
            Ok(()) => Ok(target),
            Err(first) => {
                // A read-only model folder (a mounted game disc): fall back to the working folder.
                let fallback = free_name(Path::new("."), &stem);
                let first = format!("{}: {}", one_line(&target.display().to_string()), save_reason(&first));
                log::warn!("{first}; saving to {} instead", fallback.display());
                image
                    .save(&fallback)
                    .map(|()| fallback.clone())
                    .map_err(|e| format!("{first}; {}: {}", one_line(&fallback.display().to_string()), save_reason(&e)))
            }
        };
        match saved {
            Ok(path) => self.viewer.notify(format!("Saved {}", path.display()), false),
            Err(e) => self.viewer.notify(format!("Could not save the screenshot: {e}"), true),
        }
    }
}

/// `<dir>/<stem>.png`, or `<stem>-2.png`, … if taken.
fn free_name(dir: &Path, stem: &str) -> PathBuf {
    let first = dir.join(format!("{stem}.png"));
    if !first.exists() {
        return first;
    }
    (2..10_000).map(|n| dir.join(format!("{stem}-{n}.png"))).find(|p| !p.exists()).unwrap_or(first)
}

/// Our one-line wording for a failure to write the screenshot's PNG: the I/O error's kind and
/// number (a read-only folder, a full disk), never the encoder's own text.
fn save_reason(error: &image::ImageError) -> String {
    match error {
        image::ImageError::IoError(io) => io_reason(io),
        image::ImageError::Limits(_) => "the picture is over the PNG encoder's limits".into(),
        _ => "the PNG encoder refused the picture".into(),
    }
}
