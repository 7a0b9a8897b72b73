//! Opening files and folders: starting loads on the loader, taking what the folder listing
//! finds, and applying decoded models (to the GPU, the title and the camera).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::state::Applied;
use super::window::{App, FRESH_LOAD_WAIT, gfx_title};
use super::{Action, UserEvent, file_name, framing::clip_bounds, listing, loader};

impl App {
    /// Opens what the command line asked for, or the demo.
    pub(super) fn open_initial(&mut self) {
        let path = match self.options.path.clone() {
            Some(p) => Some(p),
            None => match demo_model() {
                Ok(p) => Some(p),
                Err(e) => {
                    self.viewer.notify(format!("The built-in demo is not available: {e}"), true);
                    None
                }
            },
        };
        match path {
            Some(p) => self.open(&p, Instant::now()),
            None => self.frames_since_ready = Some(0),
        }
        if let (Some(filter), Some(folder)) = (&self.options.filter, &mut self.viewer.session.folder) {
            folder.filter = filter.clone();
        }
    }

    /// Starts loading `path` (a file or folder) in the background.
    pub(super) fn open(&mut self, path: &Path, requested_at: Instant) {
        let before = self.viewer.session.folder.as_ref().map(|f| f.dir.clone());
        let proxy = self.proxy.clone();
        let wake: listing::Wake = Arc::new(move || {
            let _ = proxy.send_event(UserEvent::Listed);
        });
        match self.viewer.session.open_lazily(path, wake) {
            Ok(Some(file)) => self.request(file, requested_at),
            // A folder whose listing has no model yet: its first one opens when listed.
            Ok(None) => self.first_listed_at = Some(requested_at),
            Err(message) => self.open_failed(message),
        }
        let relisted = self.viewer.session.folder.as_ref().is_some_and(|f| !f.complete);
        if relisted || self.viewer.session.folder.as_ref().map(|f| f.dir.clone()) != before {
            // Listed afresh: thumbnails look at the files' times again.
            self.viewer.sheet.forget_keys();
        }
    }

    pub(super) fn open_failed(&mut self, message: String) {
        self.viewer.session.error = Some(message.clone());
        self.viewer.notify(message, true);
        self.frames_since_ready.get_or_insert(0);
    }

    /// Takes what the folder listing found; opens a folder's first model once it is listed.
    pub(super) fn poll_listing(&mut self) {
        match self.viewer.session.poll_listing() {
            Some(Ok(file)) => {
                let requested_at = self.first_listed_at.take().unwrap_or_else(Instant::now);
                self.request(file, requested_at);
                self.viewer.save_recent();
            }
            Some(Err(message)) => self.open_failed(message),
            None => {}
        }
    }

    pub(super) fn request(&mut self, file: PathBuf, requested_at: Instant) {
        let id = self.loader.request(file.clone(), requested_at);
        self.viewer.session.begin(id, file);
    }
    /// Applies loader results: new models go to the GPU and the camera frames them.
    pub(super) fn apply_loaded(&mut self) {
        for loaded in self.loader.poll() {
            self.apply_one(loaded);
        }
    }

    /// Gives a load started in this frame a short time to finish, so that a model that
    /// decodes in a few milliseconds (most do) appears in this frame rather than the next.
    /// A slow one keeps loading in the background while the window draws on.
    pub(super) fn await_fresh_load(&mut self, pending_before: Option<u64>) {
        let pending_now = self.viewer.session.pending.as_ref().map(|(id, _)| *id);
        if pending_now.is_none() || pending_now == pending_before {
            return;
        }
        if let Some(loaded) = self.loader.wait(FRESH_LOAD_WAIT) {
            self.apply_one(loaded);
        }
        self.apply_loaded();
    }

    pub(super) fn apply_one(&mut self, loaded: loader::Loaded) {
        let requested_at = loaded.requested_at;
        let decode_time = loaded.decode_time;
        let path = loaded.path.clone();
        match self.viewer.session.apply(loaded) {
            Applied::Opened => {
                // The demo lives in a temp folder: not worth a place among recent files.
                let demo = crate::demo::folder();
                let recent = &mut self.viewer.session.recent;
                recent.files.retain(|p| !p.starts_with(&demo));
                recent.folders.retain(|p| !p.starts_with(&demo));
                self.viewer.save_recent();
                if let (Some(gfx), Some(doc)) = (&mut self.gfx, &self.viewer.session.doc) {
                    let report = gfx.viewport.load(doc);
                    if report.fallback_count() > 0 {
                        log::info!("{}", report.to_text().trim_end());
                    }
                    self.viewer.texture_report = Some(report);
                }
                if let Some(doc) = &self.viewer.session.doc {
                    let bounds = clip_bounds(doc);
                    gfx_title(self.gfx.as_ref(), &self.viewer.shown_name(&doc.path));
                    self.viewer.frame_on(bounds, true);
                    self.opened_scene(bounds);
                }
                self.awaiting_present = Some((requested_at, decode_time));
            }
            Applied::Reopened => {
                if let (Some(gfx), Some(doc)) = (&mut self.gfx, &self.viewer.session.doc) {
                    self.viewer.texture_report = Some(gfx.viewport.load(doc));
                }
                // Other picks may change the meshes (an M2 skin profile): a camera still as
                // framed frames the model as it now is, from where it looks.
                if self.viewer.framed.is_some()
                    && let Some(bounds) = self.viewer.session.doc.as_ref().map(clip_bounds)
                {
                    self.viewer.frame_on(bounds, false);
                }
                self.awaiting_present = Some((requested_at, decode_time));
            }
            Applied::Failed => {
                let message = self.viewer.session.error.clone().unwrap_or_default();
                log::warn!("{message}");
                self.viewer.notify(format!("Could not open {}", file_name(&path)), true);
                if self.bench_left.is_some() {
                    // Keep the benchmark moving past damaged files.
                    self.viewer.actions.push(Action::Step(1));
                }
            }
            Applied::Stale => {}
        }
        self.frames_since_ready.get_or_insert(0);
    }
}

/// The built-in demo, written to a temporary folder: its park's save, which opens with the
/// install beside it (the demo's loose models and `park.wad` are two folders up).
fn demo_model() -> std::io::Result<PathBuf> {
    crate::demo::extract().map(|dir| dir.join(crate::demo::PARK_SAVE))
}
