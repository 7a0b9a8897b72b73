//! What the window does for an assembled scene (a park): framing one item, asking once for the
//! install when none was found (and reopening the park with it), the scripted `--select`,
//! `--frame-selected` and `--dump-view`, and the view's state as JSON for tests.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::park::{find_part, part_bounds, selected_part};
use super::settings::is_install;
use super::window::App;
use super::{NO_DIALOG_WITHIN, UserEvent, Viewer, file_name, panel::InspectorTab};

/// How a park's scene says that no install was found (see `formats::park::open_park`).
pub(super) const NO_INSTALL: &str = "no install found";

impl App {
    /// Frames part `index` as it stands now, keeping the camera's angles.
    pub(super) fn frame_part(&mut self, index: usize) {
        let Some(doc) = &self.viewer.session.doc else { return };
        let bounds = part_bounds(&doc.scene, &doc.pose, index);
        let name = doc.scene.parts.get(index).map(|p| p.name.clone()).unwrap_or_default();
        if bounds.is_empty() {
            self.viewer.notify(format!("{name} shows nothing to frame"), true);
            return;
        }
        self.viewer.frame_on(bounds, false);
    }

    /// After a scene opened: a park shows its items' tab, fly speed follows its size, the
    /// scripted selection and framing happen once, and with no install found the viewer asks
    /// for one (once per run, and never in a scripted run).
    pub(super) fn opened_scene(&mut self, bounds: crate::scene::Aabb) {
        self.viewer.fly.fit(&bounds);
        let Some(doc) = &mut self.viewer.session.doc else { return };
        if doc.scene.parts.is_empty() {
            return;
        }
        self.viewer.inspector_tab = InspectorTab::Park;
        if let Some(name) = self.options.select.take() {
            match find_part(&doc.scene, &name) {
                Some(part) => doc.selected = doc.scene.parts.get(part).map(|p| p.root),
                None => eprintln!("mdview: --select: no item named {name:?}"),
            }
        }
        let no_install = doc.scene.warnings.iter().any(|w| w.starts_with(NO_INSTALL));
        if std::mem::take(&mut self.options.frame_selected)
            && let Some(part) = selected_part(&doc.scene, doc.selected)
        {
            // The pose the window will draw: evaluate it now, the clock at its start.
            doc.update_pose();
            self.frame_part(part);
        }
        let scripted = self.options.exit || self.options.screenshot.is_some() || self.options.bench_steps.is_some();
        if no_install && !self.asked_install && !scripted && self.viewer.session.recent.install.is_none() {
            self.asked_install = true;
            self.pick_install();
        }
    }

    /// The folder dialog for the install (run aside so the window keeps drawing).
    pub(super) fn pick_install(&mut self) {
        let proxy = self.proxy.clone();
        let start = self.viewer.session.doc.as_ref().and_then(|d| d.path.parent().map(PathBuf::from));
        let spawned = std::thread::Builder::new().name("mdview-dialog".into()).spawn(move || {
            let started = Instant::now();
            let mut dialog = rfd::FileDialog::new()
                .set_title("Theme Park World install: the folder holding data/levels/ (for the park's items)");
            if let Some(dir) = start {
                dialog = dialog.set_directory(dir);
            }
            let path = dialog.pick_folder();
            let _ = proxy.send_event(UserEvent::InstallPicked { path, elapsed: started.elapsed() });
        });
        if let Err(e) = spawned {
            self.viewer.notify(format!("could not open the folder dialog: {e}"), true);
        }
    }

    /// The install dialog closed: an install is remembered and the park reopens with it.
    pub(super) fn install_picked(&mut self, path: Option<PathBuf>, elapsed: Duration) {
        let Some(path) = path else {
            if elapsed < NO_DIALOG_WITHIN {
                self.viewer.notify("No folder dialog is available here; start with --install DIR", true);
            }
            return;
        };
        if !is_install(&path) {
            self.viewer.notify(format!("{}: no data/levels/ in it, so not an install", path.display()), true);
            return;
        }
        self.viewer.session.recent.install = Some(path.clone());
        self.viewer.save_recent();
        self.loader.installs.remembered = Some(path.clone());
        self.viewer.notify(format!("Install {} remembered", file_name(&path)), false);
        if let Some(doc) = &self.viewer.session.doc
            && self.viewer.session.may_reopen()
        {
            let path = doc.path.clone();
            let id = self.loader.request_with(path.clone(), Instant::now(), Vec::new(), true);
            self.viewer.session.begin(id, path);
        }
    }

    /// `--dump-view`: what the view shows, as JSON, when a scripted run exits.
    pub(super) fn dump_view(&self) {
        if let Some(path) = &self.options.dump_view {
            write_view(&self.viewer, path);
        }
    }
}

/// Writes [`view_json`] to `path`; a failure is a line on stderr.
pub(super) fn write_view(viewer: &Viewer, path: &std::path::Path) {
    let written = serde_json::to_vec_pretty(&view_json(viewer))
        .map_err(std::io::Error::other)
        .and_then(|b| std::fs::write(path, b));
    if let Err(e) = written {
        eprintln!("mdview: could not write {}: {e}", path.display());
    }
}

/// The open scene's parts, the selection with its bounds, the camera and the clock.
pub fn view_json(viewer: &Viewer) -> serde_json::Value {
    let camera = &viewer.camera.0;
    let camera_json = serde_json::json!({
        "target": camera.target.to_array(),
        "eye": camera.eye().to_array(),
        "distance": camera.distance,
        "yaw": camera.yaw_deg,
        "pitch": camera.pitch_deg,
    });
    let Some(doc) = &viewer.session.doc else {
        return serde_json::json!({ "camera": camera_json, "fly": viewer.fly.on });
    };
    let part = selected_part(&doc.scene, doc.selected);
    let bounds = |b: crate::scene::Aabb| {
        (!b.is_empty()).then(|| serde_json::json!({ "min": b.min.to_array(), "max": b.max.to_array() }))
    };
    serde_json::json!({
        "path": doc.path,
        "format": doc.summary.format_name,
        "parts": doc.scene.parts.iter().map(|p| serde_json::json!({
            "name": p.name, "group": p.group, "stand_in": p.stand_in,
        })).collect::<Vec<_>>(),
        "layers": doc.scene.layers.len(),
        "warnings": doc.scene.warnings,
        "selected_node": doc.selected,
        "selected_part": part.and_then(|p| doc.scene.parts.get(p)).map(|p| p.name.clone()),
        "selected_bounds": part.and_then(|p| bounds(part_bounds(&doc.scene, &doc.pose, p))),
        "scene_bounds": bounds(doc.pose.bounds(&doc.scene)),
        "clock": doc.layers.as_ref().map(|c| serde_json::json!({ "seconds": c.seconds, "playing": c.playing, "speed": c.speed })),
        "inspector_tab": format!("{:?}", viewer.inspector_tab),
        "camera": camera_json,
        "fly": viewer.fly.on,
    })
}
