//! The interactive viewer: a winit window with a wgpu surface, egui panels around a 3D
//! viewport, a background loader, and a scripted mode for tests (`--screenshot`).
//!
//! Map of the module:
//! - [`state`] holds everything testable without a window (folder list, the open document),
//!   with [`playback`] (one clip's timeline), [`park`] (the clock every layer of a park plays
//!   on, and its parts) and [`settings`] (recent files, the remembered install); [`listing`]
//!   lists a folder's tree aside; [`loader`] decodes off the UI thread.
//! - [`viewer`] is the side egui draws ([`Viewer`] and its frame's layout), with its
//!   `shortcuts`, its camera `framing` and `fly` mode; [`panel`] (with `park_panel`),
//!   [`tree`], [`timeline`], [`sheet`] and [`viewport`] draw the parts of the window.
//! - `window` owns the event loop, the GPU surface and the order of work in a frame;
//!   `loading` opens files and applies what the loader brings back; `actions` carries out
//!   what the UI asked for (dialogs, export, screenshots); [`bench`] is the scripted stepping.
//! - This file: how the viewer is started ([`ViewerOptions`], [`run`]) and the messages its
//!   parts send each other.
//!
//! # Scripted runs
//! - `mdview --screenshot out.png --screenshot-after-frames 30 --exit` opens the demo, plays
//!   it, saves the whole window and quits (the window test runs this under Xvfb).
//! - `mdview FOLDER --bench-steps 10 --exit` presses "PageDown" ten times, each once the
//!   window is idle, and prints how long each model took from the key press to the presented
//!   frame. A key press that starts a load gives it [`FRESH_LOAD_WAIT`] to land, so a model
//!   that decodes in a few milliseconds is drawn in the very next frame. The first press waits
//!   for the folder's whole tree to be listed.
//! - `PARK.TPWS --select "monkey #20" --frame-selected --dump-view view.json` selects a
//!   park's item by name, frames it, and writes what the view shows when the run exits
//!   ([`park::dump_view`]); `--install DIR` names the install the items are found in.
//! - `--filter TEXT` types into the folder's filter at start; `--dump-tree tree.json` writes
//!   the folder tree as the window has it (entries, what the filter shows, the current model)
//!   when a scripted run exits ([`tree::dump`]).

mod actions;
mod bench;
mod fly;
pub mod framing;
pub mod listing;
pub mod loader;
mod loading;
pub mod panel;
pub mod park;
mod park_actions;
mod park_panel;
pub mod playback;
pub mod settings;
pub mod sheet;
mod shortcuts;
pub mod state;
pub mod timeline;
pub mod tree;
pub mod viewer;
pub mod viewport;
pub mod weapon;
mod window;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use winit::event_loop::EventLoop;

pub use framing::Framed;
pub use viewer::Viewer;
pub use window::FRESH_LOAD_WAIT;

/// How the viewer was started.
#[derive(Debug, Clone, Default)]
pub struct ViewerOptions {
    /// A model file or folder; the built-in demo when `None`.
    pub path: Option<PathBuf>,
    /// Save a PNG of the whole window here after `screenshot_after_frames` frames.
    pub screenshot: Option<PathBuf>,
    pub screenshot_after_frames: Option<u32>,
    /// Quit after the screenshot (or after the benchmark).
    pub exit: bool,
    /// Inner window size in pixels.
    pub size: Option<[u32; 2]>,
    /// Benchmark: step to the next model this many times, each as soon as the previous one is
    /// on screen, printing how long each took from the (simulated) key press.
    pub bench_steps: Option<u32>,
    /// Start in the sheet view (thumbnails of the folder) instead of the 3D view.
    pub sheet: bool,
    /// Text typed into the folder's filter at start.
    pub filter: Option<String>,
    /// Write the folder tree as JSON here when a scripted run exits.
    pub dump_tree: Option<PathBuf>,
    /// The install a park save's items are found in (`--install`), before any found above
    /// the save or remembered.
    pub install: Option<PathBuf>,
    /// Select the part (a park's item) of this name once the scene is open (`--select`).
    pub select: Option<String>,
    /// Frame the selected part once the scene is open (`--frame-selected`).
    pub frame_selected: bool,
    /// Write what the view shows (parts, selection, camera, clock) as JSON here when a
    /// scripted run exits (`--dump-view`).
    pub dump_view: Option<PathBuf>,
    /// Hang this model on the opened Quake 3 player's `tag_weapon` (`--weapon`).
    pub weapon: Option<PathBuf>,
}

/// A file dialog that "closes" sooner than this never opened: no portal or dialog program.
const NO_DIALOG_WITHIN: Duration = Duration::from_millis(300);

/// Events other threads send to the event loop.
#[derive(Debug)]
pub enum UserEvent {
    /// The loader has a result.
    Loaded,
    /// The folder listing has found more of the tree.
    Listed,
    /// The native file dialog closed.
    Picked { path: Option<PathBuf>, folder: bool, elapsed: Duration },
    /// The export dialog closed; `model` is the model and pose on screen when it opened.
    ExportPicked {
        path: Option<PathBuf>,
        elapsed: Duration,
        model: Box<(crate::scene::Scene, crate::scene::anim::Pose)>,
    },
    /// The install dialog closed: the folder chosen, if any.
    InstallPicked { path: Option<PathBuf>, elapsed: Duration },
    /// The weapon dialog closed.
    WeaponPicked { path: Option<PathBuf>, elapsed: Duration },
    /// An export finished: the file and its notes, or why it failed.
    Exported(Result<(PathBuf, Vec<String>), String>),
}

/// Requests from the UI, carried out after the UI pass (they need the loader or the GPU).
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Open(PathBuf),
    Step(i32),
    PickFile,
    PickFolder,
    PlayClip(Option<usize>),
    /// Show the finished item: the construction clip's last frame ([`crate::scene::Scene::as_built`]).
    AsBuilt,
    /// Reopen the model with option `option` of the choice keyed `key` (M2 skin profile,
    /// run-time texture, Quake II skin), keeping the other picks, the camera and the clip.
    Choose {
        key: String,
        option: usize,
    },
    FrameModel,
    /// Frame part `n` of an assembled scene (a park's item) as it stands now.
    FramePart(usize),
    /// Ask for the install a park's items are found in (once: the answer is remembered).
    PickInstall,
    ResetCamera,
    SaveViewport,
    /// Ask where to export the model on screen (glTF with every clip, or OBJ of this pose).
    PickExport,
    /// Ask for a model to hang on a Quake 3 player's `tag_weapon`.
    PickWeapon,
}

/// A short message shown in the status bar for a few seconds.
#[derive(Debug, Clone)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    pub shown_at: Instant,
}

/// How long the last model took to open.
#[derive(Debug, Clone, Copy)]
pub struct OpenTiming {
    /// Decoding the model and its images (on the loader thread).
    pub decode_ms: f64,
    /// From the key press (or drop, or click) to the first frame presented with the model.
    pub on_screen_ms: f64,
}

/// When [`run`] began: start-up is measured from here to the first frame with the model.
static VIEWER_START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Opens the viewer and runs until the window closes.
pub fn run(options: ViewerOptions) -> Result<()> {
    VIEWER_START.get_or_init(Instant::now);
    let event_loop = EventLoop::<UserEvent>::with_user_event()
        .build()
        .context("could not open a window (no display? set DISPLAY or WAYLAND_DISPLAY, or use xvfb-run)")?;
    let proxy = event_loop.create_proxy();
    let mut app = window::App::new(options, proxy);
    event_loop.run_app(&mut app).context("the window's event loop failed")?;
    match app.fatal.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The last component of `path`, for labels.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
