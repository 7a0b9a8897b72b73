//! The winit event loop and the GPU state that lives as long as the window: creating the
//! window and device, routing window and user events, and the order of work in a frame
//! (listing, loading, the UI pass, actions, the 3D view, egui's paint, the screenshot).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoopProxy};
use winit::window::{Window, WindowId};

use super::loader::Loader;
use super::state::Recent;
use super::viewport::{self, Viewport};
use super::{NO_DIALOG_WITHIN, OpenTiming, UserEvent, VIEWER_START, Viewer, ViewerOptions, panel};

/// GPU objects that live as long as the window.
pub(super) struct Gfx {
    pub(super) window: Arc<Window>,
    pub(super) surface: wgpu::Surface<'static>,
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    pub(super) config: wgpu::SurfaceConfiguration,
    pub(super) egui_renderer: egui_wgpu::Renderer,
    pub(super) egui_state: egui_winit::State,
    pub(super) viewport: Viewport,
    /// The egui id under which the viewport picture is shown.
    pub(super) viewport_texture: Option<egui::TextureId>,
}

pub(super) struct App {
    pub(super) options: ViewerOptions,
    pub(super) proxy: EventLoopProxy<UserEvent>,
    pub(super) egui_ctx: egui::Context,
    pub(super) gfx: Option<Gfx>,
    pub(super) viewer: Viewer,
    pub(super) loader: Loader,
    /// An error that must end the program (no GPU, no window).
    pub(super) fatal: Option<anyhow::Error>,
    pub(super) last_frame: Instant,
    /// Frames drawn since the first model (or error) arrived; drives `--screenshot`.
    pub(super) frames_since_ready: Option<u32>,
    /// Set when a model was applied this frame: when it was asked for, and how long decoding took.
    pub(super) awaiting_present: Option<(Instant, Duration)>,
    pub(super) bench_left: Option<u32>,
    pub(super) bench_times: Vec<f64>,
    /// When the benchmark presses the next key.
    pub(super) bench_press_at: Option<Instant>,
    pub(super) bench_press_now: bool,
    pub(super) next_repaint: Option<Instant>,
    /// When a folder whose first model is still being listed was opened.
    pub(super) first_listed_at: Option<Instant>,
    /// Whether this run has asked for a park's install already (it asks once).
    pub(super) asked_install: bool,
}

/// How long a frame that started a load waits for it before drawing without it.
pub const FRESH_LOAD_WAIT: Duration = Duration::from_millis(30);

impl App {
    pub(super) fn new(options: ViewerOptions, proxy: EventLoopProxy<UserEvent>) -> App {
        let wake = proxy.clone();
        let loader = Loader::spawn(move || {
            let _ = wake.send_event(UserEvent::Loaded);
        });
        let egui_ctx = egui::Context::default();
        panel::setup_style(&egui_ctx);
        let bench_left = options.bench_steps;
        let mut viewer = Viewer::new(Recent::default_path());
        viewer.sheet.open = options.sheet;
        let mut loader = loader;
        loader.installs = super::loader::Installs {
            explicit: options.install.clone(),
            remembered: viewer.session.recent.install.clone(),
        };
        loader.weapon = options
            .path
            .clone()
            .zip(options.weapon.clone())
            .map(|(player, weapon)| super::loader::HeldWeapon { player, weapon });
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
            asked_install: false,
        }
    }

    pub(super) fn init_gfx(&mut self, event_loop: &ActiveEventLoop) -> Result<Gfx> {
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
    pub(super) fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let frame_start = Instant::now();
        self.poll_listing();
        self.apply_loaded();
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32().min(0.25);
        self.last_frame = now;
        if let Some(doc) = &mut self.viewer.session.doc {
            doc.advance(dt);
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
                if let Some(path) = &self.options.dump_view {
                    super::park_actions::write_view(&self.viewer, path);
                }
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
        let playing = self.viewer.session.doc.as_ref().is_some_and(|d| d.is_playing());
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
            UserEvent::InstallPicked { path, elapsed } => self.install_picked(path, elapsed),
            UserEvent::WeaponPicked { path, elapsed } => self.weapon_picked(path, elapsed),
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
                self.dump_view();
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

pub(super) fn gfx_title(gfx: Option<&Gfx>, name: &str) {
    if let Some(gfx) = gfx {
        gfx.window.set_title(&format!("{name} — mdview"));
    }
}
