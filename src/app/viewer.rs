//! [`Viewer`]: the side of the window egui draws (session, camera, display options, UI
//! toggles) and the order its parts are laid out in each frame.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::state::{Recent, Session};
use super::viewport::{Display, OrbitCamera};
use super::{Action, Framed, Notice, OpenTiming, file_name, panel, sheet, timeline, tree, viewport};

/// The side of the viewer that egui draws: session, camera, display options and UI toggles.
pub struct Viewer {
    pub session: Session,
    pub camera: OrbitCamera,
    pub display: Display,
    pub show_help: bool,
    pub notice: Option<Notice>,
    pub last_open: Option<OpenTiming>,
    pub actions: Vec<Action>,
    pub inspector_tab: panel::InspectorTab,
    /// A file is being dragged over the window.
    pub drop_hover: bool,
    /// Pixel size the viewport had in the last UI pass.
    pub viewport_px: [u32; 2],
    /// What the camera was last framed on, while the user has not moved it since: the view
    /// is framed again whenever the viewport's size changes (see [`Viewer::keep_framed`]).
    pub framed: Option<Framed>,
    /// Per material, what the renderer did with its texture.
    pub texture_report: Option<crate::render::SceneReport>,
    /// The "Sheet" view of the folder's thumbnails, shown instead of the 3D view when open.
    pub sheet: sheet::SheetView,
    /// The folder tree's rows and scrolling.
    pub tree: tree::TreeView,
    /// Fly mode (WASD and the mouse) instead of orbiting.
    pub fly: super::fly::Fly,
    recent_path: Option<PathBuf>,
}

impl Viewer {
    pub fn new(recent_path: Option<PathBuf>) -> Viewer {
        let recent = recent_path.as_deref().map(Recent::load).unwrap_or_default();
        Viewer {
            session: Session { recent, ..Session::default() },
            camera: OrbitCamera::default(),
            display: Display::default(),
            show_help: false,
            notice: None,
            last_open: None,
            actions: Vec::new(),
            inspector_tab: panel::InspectorTab::Nodes,
            drop_hover: false,
            viewport_px: [1, 1],
            framed: None,
            texture_report: None,
            sheet: sheet::SheetView::default(),
            tree: tree::TreeView::default(),
            fly: super::fly::Fly::default(),
            recent_path,
        }
    }

    /// `path` as the folder tree names it: below the folder browsed, else its file name.
    pub fn shown_name(&self, path: &Path) -> String {
        match self.session.folder.as_ref().and_then(|f| f.entry_of(path)) {
            Some(entry) => entry.relative_path(),
            None => file_name(path),
        }
    }

    pub fn notify(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some(Notice { text: text.into(), error, shown_at: Instant::now() });
    }

    pub(super) fn save_recent(&self) {
        if let Some(path) = &self.recent_path
            && let Err(e) = self.session.recent.save(path)
        {
            log::warn!("could not save recent files to {}: {e}", path.display());
        }
    }

    /// The whole UI for one frame.
    pub fn ui(&mut self, ui: &mut egui::Ui, viewport_texture: Option<egui::TextureId>) {
        self.shortcuts(ui.ctx());
        panel::toolbar_ui(ui, self);
        panel::status_bar_ui(ui, self);
        timeline::timeline_ui(ui, self);
        tree::files_ui(ui, self);
        panel::inspector_ui(ui, self);
        if self.sheet.open {
            sheet::sheet_ui(ui, self);
        } else {
            viewport::viewport_ui(ui, self, viewport_texture);
        }
        if self.show_help {
            panel::help_ui(ui.ctx(), &mut self.show_help);
        }
    }
}
