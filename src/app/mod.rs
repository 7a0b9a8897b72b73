//! The interactive viewer: a winit window with a wgpu surface, egui panels around a 3D
//! viewport, a background loader, and a scripted mode for tests (`--screenshot`).
//!
//! Layout of the module: [`state`] holds everything testable without a window (folder list,
//! timeline, recent files, the open document); [`loader`] decodes off the UI thread;
//! [`panel`], [`timeline`] and [`viewport`] draw the three parts of the window; this file owns
//! the event loop, the GPU surface and the order of work in a frame.
//!
//! # Scripted runs
//! - `mdview --screenshot out.png --screenshot-after-frames 30 --exit` opens the demo, plays
//!   it, saves the whole window and quits (the window test runs this under Xvfb).
//! - `mdview FOLDER --bench-steps 10 --exit` presses "PageDown" ten times, each once the
//!   window is idle, and prints how long each model took from the key press to the presented
//!   frame. A key press that starts a load gives it [`FRESH_LOAD_WAIT`] to land, so a model
//!   that decodes in a few milliseconds is drawn in the very next frame. The first press waits
//!   for the folder's whole tree to be listed.
//! - `--filter TEXT` types into the folder's filter at start; `--dump-tree tree.json` writes
//!   the folder tree as the window has it (entries, what the filter shows, the current model)
//!   when a scripted run exits ([`tree::dump`]).

pub mod listing;
pub mod loader;
pub mod panel;
pub mod sheet;
pub mod state;
pub mod timeline;
pub mod tree;
pub mod viewport;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::window::{Window, WindowId};

use crate::formats::Pick;
use loader::Loader;
use state::{Applied, Recent, Session};
use viewport::{Display, OrbitCamera, Viewport};

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
    ResetCamera,
    SaveViewport,
    /// Ask where to export the model on screen (glTF with every clip, or OBJ of this pose).
    PickExport,
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

/// The bounds the camera was framed on, and the viewport size it was framed for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Framed {
    pub bounds: crate::scene::Aabb,
    pub viewport_px: [u32; 2],
}

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

    /// Width over height of the viewport in the last frame.
    pub fn viewport_aspect(&self) -> f32 {
        self.viewport_px[0].max(1) as f32 / self.viewport_px[1].max(1) as f32
    }

    /// Frames `bounds` in the viewport: from the default angles (`fresh`), else from the
    /// camera's own. The framing holds until the user moves the camera.
    pub fn frame_on(&mut self, bounds: crate::scene::Aabb, fresh: bool) {
        let aspect = self.viewport_aspect();
        if fresh {
            self.camera = OrbitCamera::framing(&bounds, aspect);
        } else {
            self.camera.frame(&bounds, aspect);
        }
        self.framed = Some(Framed { bounds, viewport_px: self.viewport_px });
    }

    /// After a UI pass: if the viewport changed size since the camera was framed, and the
    /// user has not moved the camera meanwhile, frames the same bounds again. A model opened
    /// before the first pass (or while the side panels were still finding their widths) was
    /// framed for another shape of viewport, and was drawn too close or cut off at the sides.
    pub fn keep_framed(&mut self) {
        if let Some(framed) = self.framed
            && framed.viewport_px != self.viewport_px
        {
            self.frame_on(framed.bounds, false);
        }
    }

    pub fn notify(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some(Notice { text: text.into(), error, shown_at: Instant::now() });
    }

    fn save_recent(&self) {
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

    /// Keys that work anywhere except while typing into a text box.
    fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::Key;
        let typing = ctx.egui_wants_keyboard_input();
        ctx.input(|i| {
            let command = i.modifiers.command;
            if command && i.key_pressed(Key::E) {
                self.actions.push(Action::PickExport);
            }
            if command && i.key_pressed(Key::O) {
                self.actions.push(if i.modifiers.shift { Action::PickFolder } else { Action::PickFile });
            }
            if i.key_pressed(Key::F1) {
                self.show_help = !self.show_help;
            }
            if i.key_pressed(Key::Escape) {
                self.show_help = false;
            }
            if i.key_pressed(Key::F12) {
                self.actions.push(Action::SaveViewport);
            }
            if i.key_pressed(Key::PageDown) {
                self.actions.push(Action::Step(1));
            }
            if i.key_pressed(Key::PageUp) {
                self.actions.push(Action::Step(-1));
            }
            if typing || command {
                return;
            }
            if i.key_pressed(Key::F) {
                self.actions.push(Action::FrameModel);
            }
            if i.key_pressed(Key::S) {
                self.sheet.open = !self.sheet.open;
            }
            if i.key_pressed(Key::R) {
                self.actions.push(Action::ResetCamera);
            }
            if i.key_pressed(Key::W) {
                self.display.wireframe = !self.display.wireframe;
            }
            if i.key_pressed(Key::N) {
                self.display.normals = !self.display.normals;
            }
            if i.key_pressed(Key::B) {
                self.display.bounds = !self.display.bounds;
            }
            if i.key_pressed(Key::K) {
                self.display.skeleton = !self.display.skeleton;
            }
            if i.key_pressed(Key::M) {
                self.display.markers = !self.display.markers;
            }
            if i.key_pressed(Key::G) {
                self.display.grid = !self.display.grid;
            }
            if i.key_pressed(Key::T) {
                self.display.textured = !self.display.textured;
            }
            if i.key_pressed(Key::L) {
                self.display.lit = !self.display.lit;
            }
            let Some(doc) = &mut self.session.doc else { return };
            let timeline = &mut doc.timeline;
            if i.key_pressed(Key::Space) {
                timeline.toggle_play();
            }
            if i.key_pressed(Key::Comma) {
                timeline.step_frames(-1);
            }
            if i.key_pressed(Key::Period) {
                timeline.step_frames(1);
            }
            if i.key_pressed(Key::Home) {
                timeline.to_start();
            }
            if i.key_pressed(Key::End) {
                timeline.to_end();
            }
            if i.key_pressed(Key::OpenBracket) {
                timeline.set_speed(timeline.speed * 0.5);
            }
            if i.key_pressed(Key::CloseBracket) {
                timeline.set_speed(timeline.speed * 2.0);
            }
        });
    }
}

/// Opens the viewer and runs until the window closes.
/// When [`run`] began: start-up is measured from here to the first frame with the model.
static VIEWER_START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

pub fn run(options: ViewerOptions) -> Result<()> {
    VIEWER_START.get_or_init(Instant::now);
    let event_loop = EventLoop::<UserEvent>::with_user_event()
        .build()
        .context("could not open a window (no display? set DISPLAY or WAYLAND_DISPLAY, or use xvfb-run)")?;
    let proxy = event_loop.create_proxy();
    let mut app = App::new(options, proxy);
    event_loop.run_app(&mut app).context("the window's event loop failed")?;
    match app.fatal.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// GPU objects that live as long as the window.
struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    egui_renderer: egui_wgpu::Renderer,
    egui_state: egui_winit::State,
    viewport: Viewport,
    /// The egui id under which the viewport picture is shown.
    viewport_texture: Option<egui::TextureId>,
}

struct App {
    options: ViewerOptions,
    proxy: EventLoopProxy<UserEvent>,
    egui_ctx: egui::Context,
    gfx: Option<Gfx>,
    viewer: Viewer,
    loader: Loader,
    /// An error that must end the program (no GPU, no window).
    fatal: Option<anyhow::Error>,
    last_frame: Instant,
    /// Frames drawn since the first model (or error) arrived; drives `--screenshot`.
    frames_since_ready: Option<u32>,
    /// Set when a model was applied this frame: when it was asked for, and how long decoding took.
    awaiting_present: Option<(Instant, Duration)>,
    bench_left: Option<u32>,
    bench_times: Vec<f64>,
    /// When the benchmark presses the next key.
    bench_press_at: Option<Instant>,
    bench_press_now: bool,
    next_repaint: Option<Instant>,
    /// When a folder whose first model is still being listed was opened.
    first_listed_at: Option<Instant>,
}

/// How long a frame that started a load waits for it before drawing without it.
pub const FRESH_LOAD_WAIT: Duration = Duration::from_millis(30);

/// How long the benchmark waits between a model appearing and the next key press.
const BENCH_PAUSE: Duration = Duration::from_millis(400);

impl App {
    fn new(options: ViewerOptions, proxy: EventLoopProxy<UserEvent>) -> App {
        let wake = proxy.clone();
        let loader = Loader::spawn(move || {
            let _ = wake.send_event(UserEvent::Loaded);
        });
        let egui_ctx = egui::Context::default();
        panel::setup_style(&egui_ctx);
        let bench_left = options.bench_steps;
        let mut viewer = Viewer::new(Recent::default_path());
        viewer.sheet.open = options.sheet;
        App {
            options,
            proxy,
            egui_ctx,
            gfx: None,
            viewer,
            loader,
            fatal: None,
            last_frame: Instant::now(),
            frames_since_ready: None,
            awaiting_present: None,
            bench_left,
            bench_times: Vec::new(),
            bench_press_at: None,
            bench_press_now: false,
            next_repaint: None,
            first_listed_at: None,
        }
    }

    fn init_gfx(&mut self, event_loop: &ActiveEventLoop) -> Result<Gfx> {
        let [w, h] = self.options.size.unwrap_or([1280, 800]);
        let attributes = Window::default_attributes()
            .with_title("mdview")
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h))
            .with_min_inner_size(winit::dpi::PhysicalSize::new(480, 320));
        let window = Arc::new(event_loop.create_window(attributes).context("could not create the window")?);
        // The display handle lets the GL backend find an adapter that can present to the window.
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle())).with_env(),
        );
        let surface = instance.create_surface(window.clone()).context("could not create a drawing surface")?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .context("no graphics adapter can draw to this window (install Vulkan or GL drivers, e.g. mesa)")?;
        log::info!("adapter: {:?}", adapter.get_info());
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("mdview"),
            required_limits: wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .context("could not open the graphics device")?;
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| log::error!("wgpu: {e}")));
        let size = window.inner_size();
        let caps = surface.get_capabilities(&adapter);
        // An sRGB surface: egui-wgpu and the viewport picture both expect it.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| anyhow!("the surface offers no formats"))?;
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| anyhow!("the adapter cannot present to this window"))?;
        config.format = format;
        config.present_mode = wgpu::PresentMode::AutoVsync;
        config.view_formats = vec![];
        surface.configure(&device, &config);
        let egui_renderer = egui_wgpu::Renderer::new(&device, format, egui_wgpu::RendererOptions::default());
        let egui_state = egui_winit::State::new(
            self.egui_ctx.clone(),
            egui::ViewportId::ROOT,
            event_loop,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let viewport = Viewport::new(&adapter, &device, &queue);
        Ok(Gfx { window, surface, device, queue, config, egui_renderer, egui_state, viewport, viewport_texture: None })
    }

    /// Opens what the command line asked for, or the demo.
    fn open_initial(&mut self) {
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
    fn open(&mut self, path: &Path, requested_at: Instant) {
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

    fn open_failed(&mut self, message: String) {
        self.viewer.session.error = Some(message.clone());
        self.viewer.notify(message, true);
        self.frames_since_ready.get_or_insert(0);
    }

    /// Takes what the folder listing found; opens a folder's first model once it is listed.
    fn poll_listing(&mut self) {
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

    fn request(&mut self, file: PathBuf, requested_at: Instant) {
        let id = self.loader.request(file.clone(), requested_at);
        self.viewer.session.begin(id, file);
    }

    fn pick(&mut self, folder: bool) {
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
    fn pick_export(&mut self) {
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
    fn export(&mut self, path: PathBuf, model: Box<(crate::scene::Scene, crate::scene::anim::Pose)>) {
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
    fn run_actions(&mut self) {
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
                    if let Some(bounds) = self.viewer.session.doc.as_ref().map(posed_bounds) {
                        self.viewer.frame_on(bounds, false);
                    }
                }
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
    fn save_viewport(&mut self) {
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
                log::warn!("{}: {first}; saving to {} instead", target.display(), fallback.display());
                image.save(&fallback).map(|()| fallback).map_err(|e| format!("{}: {first}; {e}", target.display()))
            }
        };
        match saved {
            Ok(path) => self.viewer.notify(format!("Saved {}", path.display()), false),
            Err(e) => self.viewer.notify(format!("Could not save the screenshot: {e}"), true),
        }
    }

    /// Applies loader results: new models go to the GPU and the camera frames them.
    fn apply_loaded(&mut self) {
        for loaded in self.loader.poll() {
            self.apply_one(loaded);
        }
    }

    /// Gives a load started in this frame a short time to finish, so that a model that
    /// decodes in a few milliseconds (most do) appears in this frame rather than the next.
    /// A slow one keeps loading in the background while the window draws on.
    fn await_fresh_load(&mut self, pending_before: Option<u64>) {
        let pending_now = self.viewer.session.pending.as_ref().map(|(id, _)| *id);
        if pending_now.is_none() || pending_now == pending_before {
            return;
        }
        if let Some(loaded) = self.loader.wait(FRESH_LOAD_WAIT) {
            self.apply_one(loaded);
        }
        self.apply_loaded();
    }

    fn apply_one(&mut self, loaded: loader::Loaded) {
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

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let frame_start = Instant::now();
        self.poll_listing();
        self.apply_loaded();
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32().min(0.25);
        self.last_frame = now;
        if let Some(doc) = &mut self.viewer.session.doc {
            doc.timeline.advance(dt);
        }

        let Some(gfx) = &mut self.gfx else { return };
        let raw_input = gfx.egui_state.take_egui_input(&gfx.window);
        let texture_id = gfx.viewport_texture;
        let viewer = &mut self.viewer;
        let mut full_output = self.egui_ctx.run_ui(raw_input, |ui| viewer.ui(ui, texture_id));
        // The pass may have resized the viewport (a new model's panels, a resized window).
        viewer.keep_framed();
        gfx.egui_state.handle_platform_output_with_event_loop(&gfx.window, event_loop, full_output.platform_output);
        let pending_before = self.viewer.session.pending.as_ref().map(|(id, _)| *id);
        self.run_actions();
        if std::mem::take(&mut self.bench_press_now) {
            self.bench_press(frame_start);
        }
        self.await_fresh_load(pending_before);
        let Some(gfx) = &mut self.gfx else {
            full_output.textures_delta.clear();
            return;
        };
        self.viewer.sheet.pump(&gfx.device, &gfx.queue, gfx.viewport.sample_count(), &self.egui_ctx);

        // The pose follows the timeline, which playback, keys and scrubbing all move; billboard
        // bones face the camera.
        if let Some(doc) = &mut self.viewer.session.doc {
            doc.pose.view_from_model = Some(self.viewer.camera.0.view_from_world());
            doc.update_pose();
        }
        let view = gfx.viewport.draw(
            &gfx.device,
            &gfx.queue,
            self.viewer.session.doc.as_ref(),
            &self.viewer.camera,
            &self.viewer.display,
            self.viewer.viewport_px,
        );
        match gfx.viewport_texture {
            Some(id) => {
                gfx.egui_renderer.update_egui_texture_from_wgpu_texture(&gfx.device, view, wgpu::FilterMode::Linear, id)
            }
            None => {
                gfx.viewport_texture =
                    Some(gfx.egui_renderer.register_native_texture(&gfx.device, view, wgpu::FilterMode::Linear));
                // The first frame had no picture to show yet.
                self.egui_ctx.request_repaint();
            }
        }

        let pixels_per_point = full_output.pixels_per_point;
        let paint_jobs = self.egui_ctx.tessellate(full_output.shapes, pixels_per_point);
        for (id, deltas) in full_output.textures_delta.set.drain() {
            for delta in deltas {
                gfx.egui_renderer.update_texture(&gfx.device, &gfx.queue, id, &delta);
            }
        }
        let screen =
            egui_wgpu::ScreenDescriptor { size_in_pixels: [gfx.config.width, gfx.config.height], pixels_per_point };

        // In the sheet view, the screenshot also waits for the thumbnails.
        let want_shot = self.frames_since_ready.is_some_and(|n| {
            self.options.screenshot.is_some() && n >= self.options.screenshot_after_frames.unwrap_or(30)
        }) && !self.viewer.sheet.busy();
        if want_shot && let Some(path) = self.options.screenshot.clone() {
            let result = capture_window(gfx, &paint_jobs, &screen)
                .ok_or_else(|| anyhow!("could not read the window back from the GPU"))
                .and_then(|img| img.save(&path).with_context(|| format!("writing {}", path.display())));
            match result {
                Ok(()) => eprintln!("mdview: saved screenshot {}", path.display()),
                Err(e) => self.fatal = Some(e),
            }
            self.options.screenshot = None;
            if self.options.exit {
                Self::dump_tree(&self.options, &self.viewer.session);
                event_loop.exit();
            }
        }

        match gfx.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
                paint_egui(gfx, &view, &paint_jobs, &screen);
                gfx.queue.present(frame);
            }
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                gfx.surface.configure(&gfx.device, &gfx.config);
                self.egui_ctx.request_repaint();
            }
            other => {
                log::debug!("skipped a frame: {other:?}");
                self.egui_ctx.request_repaint();
            }
        }
        for id in full_output.textures_delta.free.drain() {
            gfx.egui_renderer.free_texture(&id);
        }
        if let Some(n) = &mut self.frames_since_ready {
            *n += 1;
        }

        if let Some((requested_at, decode_time)) = self.awaiting_present.take() {
            let timing = OpenTiming {
                decode_ms: decode_time.as_secs_f64() * 1000.0,
                on_screen_ms: requested_at.elapsed().as_secs_f64() * 1000.0,
            };
            if self.viewer.last_open.is_none()
                && let Some(start) = VIEWER_START.get()
            {
                log::info!(
                    "start-up: first frame with the model {:.1} ms after the viewer started (decode {:.1} ms)",
                    start.elapsed().as_secs_f64() * 1000.0,
                    timing.decode_ms
                );
            }
            self.viewer.last_open = Some(timing);
            if self.bench_left.is_some() {
                self.bench_step(timing, event_loop);
            }
        }

        let repaint_delay =
            full_output.viewport_output.get(&egui::ViewportId::ROOT).map(|v| v.repaint_delay).unwrap_or(Duration::MAX);
        let playing = self.viewer.session.doc.as_ref().is_some_and(|d| d.timeline.playing);
        let delay = if playing || self.options.screenshot.is_some() {
            Duration::ZERO
        } else if self.viewer.sheet.busy() {
            // Thumbnails arrive from the decoders without an event; look for them soon.
            repaint_delay.min(Duration::from_millis(30))
        } else if self.viewer.session.pending.is_some() {
            // Only the spinner moves, and most models arrive before it would show: draw it
            // at 4 fps, so that when the model arrives the loop is idle and draws it at once
            // instead of finishing a frame first (which on a software GPU costs more than
            // the decode).
            repaint_delay.max(Duration::from_millis(250))
        } else {
            repaint_delay
        };
        self.next_repaint = Instant::now().checked_add(delay);
    }

    /// Benchmark mode: "PageDown", wrapping to the first model so any step count works.
    fn bench_press(&mut self, pressed_at: Instant) {
        if self.viewer.session.folder.as_ref().is_some_and(|f| !f.complete) {
            // Steps go through the whole tree: wait for it.
            self.bench_press_at = Instant::now().checked_add(Duration::from_millis(20));
            return;
        }
        let next = self.viewer.session.step(1).or_else(|| {
            let folder = self.viewer.session.folder.as_mut()?;
            folder.current = None;
            self.viewer.session.step(1)
        });
        match next {
            Some(file) => self.request(file, pressed_at),
            None => self.bench_left = Some(0),
        }
    }

    /// `--dump-tree`: the folder tree as the window has it.
    fn dump_tree(options: &ViewerOptions, session: &Session) {
        let Some(path) = &options.dump_tree else { return };
        let json = session.folder.as_ref().map(tree::dump).unwrap_or(serde_json::Value::Null);
        let written =
            serde_json::to_vec_pretty(&json).map_err(std::io::Error::other).and_then(|b| std::fs::write(path, b));
        if let Err(e) = written {
            eprintln!("mdview: could not write {}: {e}", path.display());
        }
    }

    /// Benchmark mode: record the time, then schedule the next "PageDown".
    fn bench_step(&mut self, timing: OpenTiming, event_loop: &ActiveEventLoop) {
        // The path below the folder browsed: models of a tree share names (tris.md2).
        let file = self.viewer.session.doc.as_ref().map(|d| self.viewer.shown_name(&d.path)).unwrap_or_default();
        let (vertices, triangles) = self.viewer.session.doc.as_ref().map(|d| d.counts()).unwrap_or((0, 0));
        println!(
            "open {file}: {vertices} vertices, {triangles} triangles, decode {:.1} ms, on screen {:.1} ms",
            timing.decode_ms, timing.on_screen_ms
        );
        // The first open (from the command line) includes start-up; only steps count.
        if self.bench_left != self.options.bench_steps {
            self.bench_times.push(timing.on_screen_ms);
        }
        match &mut self.bench_left {
            Some(0) => {
                let mut times = self.bench_times.clone();
                times.sort_by(f64::total_cmp);
                if let (Some(first), Some(last)) = (times.first(), times.last()) {
                    let median = times.get(times.len() / 2).copied().unwrap_or(*last);
                    println!("steps {}: min {first:.1} ms, median {median:.1} ms, max {last:.1} ms", times.len());
                }
                self.bench_left = None;
                if self.options.exit {
                    Self::dump_tree(&self.options, &self.viewer.session);
                    event_loop.exit();
                }
            }
            Some(n) => {
                *n -= 1;
                // Press the key once the window is idle, as a person would: pressing it while
                // the last frame is still being rasterised would time that frame too.
                self.bench_press_at = Instant::now().checked_add(BENCH_PAUSE);
            }
            None => {}
        }
    }
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        // The loader decodes the first model and its images while the window and the device
        // are created.
        self.open_initial();
        let started = Instant::now();
        match self.init_gfx(event_loop) {
            Ok(gfx) => {
                log::info!("start-up: window and device ready in {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
                self.gfx = Some(gfx);
                if let Some(gfx) = &self.gfx {
                    gfx.window.request_redraw();
                }
            }
            Err(e) => {
                self.fatal = Some(e);
                event_loop.exit();
            }
        }
    }

    fn user_event(&mut self, _event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::Loaded | UserEvent::Listed => {}
            UserEvent::Picked { path: Some(path), .. } => self.open(&path, Instant::now()),
            UserEvent::ExportPicked { path: Some(path), model, .. } => self.export(path, model),
            UserEvent::ExportPicked { path: None, elapsed, .. } => {
                if elapsed < NO_DIALOG_WITHIN {
                    self.viewer.notify("No file dialog is available here; `mdview export` does the same", true);
                }
            }
            UserEvent::Exported(Ok((path, notes))) => {
                for note in &notes {
                    log::warn!("export {}: {note}", path.display());
                }
                let extra = match notes.as_slice() {
                    [] => String::new(),
                    [only] => format!("; note: {only}"),
                    [first, rest @ ..] => format!("; {} notes, the first: {first}", rest.len() + 1),
                };
                self.viewer.notify(format!("Exported {}{extra}", path.display()), false);
            }
            UserEvent::Exported(Err(e)) => self.viewer.notify(format!("Export failed: {e}"), true),
            UserEvent::Picked { path: None, folder, elapsed } => {
                log::info!("file dialog closed without a choice after {elapsed:?}");
                // A dialog that "closes" at once never opened: no portal or dialog program.
                if elapsed < NO_DIALOG_WITHIN {
                    let what = if folder { "folder" } else { "file" };
                    self.viewer.notify(
                        format!("No file dialog is available here; drag a {what} onto the window instead"),
                        true,
                    );
                }
            }
        }
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(gfx) = &mut self.gfx else { return };
        let response = gfx.egui_state.on_window_event(&gfx.window, &event);
        // egui asks to repaint after every event, the redraw itself included: answering that one
        // would draw nonstop, paused or idle; the next frame's time comes from `next_repaint`.
        if response.repaint && !matches!(event, WindowEvent::RedrawRequested) {
            gfx.window.request_redraw();
        }
        match event {
            WindowEvent::CloseRequested => {
                self.viewer.save_recent();
                Self::dump_tree(&self.options, &self.viewer.session);
                event_loop.exit();
            }
            WindowEvent::Resized(size) => {
                gfx.config.width = size.width.max(1);
                gfx.config.height = size.height.max(1);
                gfx.surface.configure(&gfx.device, &gfx.config);
                gfx.window.request_redraw();
            }
            WindowEvent::HoveredFile(_) => {
                self.viewer.drop_hover = true;
                gfx.window.request_redraw();
            }
            WindowEvent::HoveredFileCancelled => {
                self.viewer.drop_hover = false;
                gfx.window.request_redraw();
            }
            WindowEvent::DroppedFile(path) => {
                self.viewer.drop_hover = false;
                gfx.window.request_redraw();
                self.open(&path, Instant::now());
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(at) = self.bench_press_at {
            if at <= Instant::now() {
                // Pressed now; handled in the next frame, as a real key event would be.
                self.bench_press_at = None;
                self.bench_press_now = true;
                if let Some(gfx) = &self.gfx {
                    gfx.window.request_redraw();
                }
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(at));
                return;
            }
        }
        let Some(gfx) = &self.gfx else { return };
        match self.next_repaint {
            Some(at) if at <= Instant::now() => {
                self.next_repaint = None;
                gfx.window.request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            }
            Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
            None => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }
}

/// Records the egui pass into `view`.
fn paint_egui(
    gfx: &mut Gfx,
    view: &wgpu::TextureView,
    paint_jobs: &[egui::ClippedPrimitive],
    screen: &egui_wgpu::ScreenDescriptor,
) {
    let mut encoder = gfx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("egui") });
    let mut commands = gfx.egui_renderer.update_buffers(&gfx.device, &gfx.queue, &mut encoder, paint_jobs, screen);
    {
        let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("egui"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.02, g: 0.02, b: 0.02, a: 1.0 }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let mut pass = pass.forget_lifetime();
        gfx.egui_renderer.render(&mut pass, paint_jobs, screen);
    }
    commands.push(encoder.finish());
    gfx.queue.submit(commands);
}

/// The whole window as an image: the frame is painted once more into an offscreen texture of
/// the surface's format, because surface textures cannot always be read back.
fn capture_window(
    gfx: &mut Gfx,
    paint_jobs: &[egui::ClippedPrimitive],
    screen: &egui_wgpu::ScreenDescriptor,
) -> Option<image::RgbaImage> {
    let texture = gfx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("window capture"),
        size: wgpu::Extent3d { width: gfx.config.width, height: gfx.config.height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: gfx.config.format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    paint_egui(gfx, &view, paint_jobs, screen);
    viewport::read_texture(&gfx.device, &gfx.queue, &texture)
}

/// The bounds of the current pose (falls back to the rest bounds).
fn posed_bounds(doc: &state::Document) -> crate::scene::Aabb {
    doc.pose.bounds(&doc.scene)
}

/// Intervals a playing clip is cut into when framing it: its poses at both ends and between.
const FRAMING_SAMPLES: usize = 8;

/// While a clip plays, the bounds it sweeps through (its poses at [`FRAMING_SAMPLES`] + 1
/// times from start to end, with the current pose), so that a model that walks or swings
/// stays in the picture, not only in its first pose. Paused (or with no clip), the pose on
/// screen.
fn clip_bounds(doc: &state::Document) -> crate::scene::Aabb {
    let mut bounds = posed_bounds(doc);
    let Some(clip) = doc.clip.and_then(|c| doc.scene.clips.get(c)).filter(|_| doc.timeline.playing) else {
        return bounds;
    };
    let length = clip.end - clip.start;
    if !(length.is_finite() && length > 0.0) {
        return bounds;
    }
    // Posed as the one on screen is: same level of detail, billboards facing the same camera.
    let mut pose = crate::scene::anim::Pose::default();
    (pose.lod, pose.view_from_model, pose.global_time) = (doc.pose.lod, doc.pose.view_from_model, doc.pose.global_time);
    for i in 0..=FRAMING_SAMPLES {
        pose.evaluate(&doc.scene, doc.clip, clip.start + length * i as f32 / FRAMING_SAMPLES as f32);
        bounds = bounds.union(&pose.bounds(&doc.scene));
    }
    bounds
}

fn gfx_title(gfx: Option<&Gfx>, name: &str) {
    if let Some(gfx) = gfx {
        gfx.window.set_title(&format!("{name} — mdview"));
    }
}

/// The last component of `path`, for labels.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// `<dir>/<stem>.png`, or `<stem>-2.png`, … if taken.
fn free_name(dir: &Path, stem: &str) -> PathBuf {
    let first = dir.join(format!("{stem}.png"));
    if !first.exists() {
        return first;
    }
    (2..10_000).map(|n| dir.join(format!("{stem}-{n}.png"))).find(|p| !p.exists()).unwrap_or(first)
}

/// The built-in demo, written to a temporary folder: its main model, with the folder listed.
fn demo_model() -> std::io::Result<PathBuf> {
    crate::demo::extract().map(|dir| dir.join(crate::demo::MAIN_MODEL))
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec2, Vec3};

    use super::*;
    use crate::scene::{Aabb, Channel, Clip, Curve, FormatKind, Key, Mesh, Node, NodeKind, Scene, SceneKind};

    /// One triangle on a node that a 10-frame clip moves from x = 0 to x = 10.
    fn walking_triangle() -> state::Document {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let mut node = Node::new("walker", NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(0);
        scene.nodes.push(node);
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        scene.meshes.push(Mesh {
            name: "triangle".into(),
            node: Some(0),
            bounds: Aabb::from_points(&positions),
            source_positions: positions,
            vertex_source: vec![0, 1, 2],
            uvs: vec![Vec2::ZERO; 3],
            uvs1: Vec::new(),
            normals: vec![Vec3::Z; 3],
            triangles: vec![[0, 1, 2]],
            submeshes: Vec::new(),
            skin: None,
            raw: Vec::new(),
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        let keys = vec![Key { time: 0.0, value: Vec3::ZERO }, Key { time: 10.0, value: Vec3::new(10.0, 0.0, 0.0) }];
        scene.clips.push(Clip {
            name: "walk".into(),
            source: None,
            start: 0.0,
            end: 10.0,
            rate: 10.0,
            channels: vec![Channel::NodePosition {
                node: 0,
                curve: Curve { keys: keys.into(), ..Curve::default() },
                additive: false,
            }],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        let summary = crate::info::Summary::of(&scene);
        state::Document::new(PathBuf::from("walker.md2"), scene, summary)
    }

    #[test]
    fn a_new_model_is_framed_on_what_its_clip_sweeps() {
        let doc = walking_triangle();
        assert_eq!(doc.clip, Some(0));
        // The first pose alone is the triangle at the origin; the clip carries it 10 along x.
        assert!(posed_bounds(&doc).max.x < 1.5, "{:?}", posed_bounds(&doc));
        let swept = clip_bounds(&doc);
        // Both ends of the clip are sampled: the last pose reaches x = 10 + 1.
        assert!(swept.min.x <= 0.0 && swept.max.x >= 10.9, "{swept:?}");
    }

    #[test]
    fn a_paused_or_clipless_model_is_framed_on_the_pose_on_screen() {
        let mut doc = walking_triangle();
        doc.timeline.playing = false;
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        doc.timeline.playing = true;
        doc.clip = None;
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        doc.clip = Some(7);
        assert_eq!(clip_bounds(&doc), posed_bounds(&doc));
        // A clip of no length (or a broken one) has nothing more to sweep.
        doc.clip = Some(0);
        for end in [0.0, -5.0, f32::NAN] {
            doc.scene.clips[0].end = end;
            assert_eq!(clip_bounds(&doc), posed_bounds(&doc), "end {end}");
        }
    }

    #[test]
    fn only_input_that_moves_the_camera_ends_the_framing() {
        use egui::vec2;
        assert!(viewport::moves_camera(vec2(1.0, 0.0), true, 0.0, false));
        assert!(viewport::moves_camera(vec2(0.0, 0.0), false, -3.0, true));
        // A press that has not moved yet, a wheel outside the view, or nothing at all.
        assert!(!viewport::moves_camera(vec2(0.0, 0.0), true, 0.0, true));
        assert!(!viewport::moves_camera(vec2(0.0, 0.0), false, 2.0, false));
        assert!(!viewport::moves_camera(vec2(5.0, 5.0), false, 0.0, true));
    }

    #[test]
    fn framing_the_model_again_resumes_following_the_viewport() {
        let bounds = Aabb { min: Vec3::ZERO, max: Vec3::ONE };
        let mut viewer = Viewer::new(None);
        viewer.viewport_px = [800, 600];
        viewer.framed = None;
        // F (frame the pose on screen) keeps the angles the user chose and frames again.
        viewer.camera.orbit(40.0, -20.0);
        let angles = (viewer.camera.0.yaw_deg, viewer.camera.0.pitch_deg);
        viewer.frame_on(bounds, false);
        assert_eq!((viewer.camera.0.yaw_deg, viewer.camera.0.pitch_deg), angles);
        assert_eq!(viewer.framed, Some(Framed { bounds, viewport_px: [800, 600] }));
        viewer.viewport_px = [400, 600];
        viewer.keep_framed();
        assert_eq!(viewer.framed.map(|f| f.viewport_px), Some([400, 600]));
        // R (reset) goes back to the default angles.
        viewer.frame_on(bounds, true);
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 400.0 / 600.0));
    }

    #[test]
    fn the_framing_follows_the_viewport_until_the_user_moves_the_camera() {
        let bounds = Aabb { min: Vec3::splat(-1.0), max: Vec3::new(4.0, 1.0, 1.0) };
        let mut viewer = Viewer::new(None);
        // Opened before the first UI pass: the viewport's size is not known yet.
        viewer.frame_on(bounds, true);
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 1.0));
        // The pass lays out a narrow viewport: the same bounds are framed for its shape.
        viewer.viewport_px = [600, 800];
        viewer.keep_framed();
        assert_eq!(viewer.camera, OrbitCamera::framing(&bounds, 0.75));
        assert!(viewer.camera.0.distance > OrbitCamera::framing(&bounds, 1.0).0.distance);
        // Once the user moves the camera (the viewport clears `framed` then), a resize leaves
        // it where they put it.
        viewer.camera.orbit(10.0, 0.0);
        assert!(viewport::moves_camera(egui::vec2(10.0, 0.0), true, 0.0, true));
        viewer.framed = None;
        let moved = viewer.camera;
        viewer.viewport_px = [1200, 800];
        viewer.keep_framed();
        assert_eq!(viewer.camera, moved);
    }
}
