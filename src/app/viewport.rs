//! The 3D viewport: the orbit camera, the display toggles, mouse input over the view, and the
//! one function ([`Viewport::draw`]) that asks the renderer for a picture of the current pose.
//! The picture is an offscreen texture that egui shows as an image.

use glam::Vec3;

use super::state::Document;
use crate::scene::Aabb;

/// Orbit camera state: the point looked at, the angles around it (radians) and the distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera { target: Vec3::ZERO, yaw: 0.6, pitch: 0.35, distance: 5.0 }
    }
}

/// Radians per pixel of drag.
const ORBIT_SPEED: f32 = 0.008;
const PITCH_LIMIT: f32 = 1.55;

impl OrbitCamera {
    /// A camera that shows all of `bounds` from the default angle.
    pub fn framing(bounds: &Aabb) -> OrbitCamera {
        let mut camera = OrbitCamera::default();
        camera.frame(bounds);
        camera
    }

    /// Keeps the angles and moves so `bounds` fills the view.
    pub fn frame(&mut self, bounds: &Aabb) {
        if bounds.is_empty() {
            self.target = Vec3::ZERO;
            self.distance = 5.0;
            return;
        }
        let radius = (bounds.size().length() * 0.5).max(1e-3);
        self.target = bounds.center();
        // Fits a sphere in a 45° field of view with a little margin.
        self.distance = radius / (22.5f32.to_radians()).sin() * 1.1;
    }

    /// The unit vector from the target towards the eye.
    pub fn back(&self) -> Vec3 {
        Vec3::new(self.pitch.cos() * self.yaw.sin(), self.pitch.sin(), self.pitch.cos() * self.yaw.cos())
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * ORBIT_SPEED;
        self.pitch = (self.pitch + dy * ORBIT_SPEED).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves the target in the view plane so the model follows the mouse; `view_height` is
    /// the viewport's height in the same units as the drag.
    pub fn pan(&mut self, dx: f32, dy: f32, view_height: f32) {
        let back = self.back();
        let right = Vec3::Y.cross(back).try_normalize().unwrap_or(Vec3::X);
        let up = back.cross(right);
        // World units per pixel at the target's depth for a 45° vertical field of view.
        let scale = 2.0 * self.distance * (22.5f32.to_radians()).tan() / view_height.max(1.0);
        self.target += (-right * dx + up * dy) * scale;
    }

    /// Wheel zoom: each notch moves a fixed fraction of the distance.
    pub fn zoom(&mut self, scroll: f32) {
        self.distance = (self.distance * (-scroll * 0.002).exp()).clamp(1e-3, 1e7);
    }
}

/// What the viewport draws besides the shaded model.
#[derive(Debug, Clone, PartialEq)]
pub struct Display {
    pub wireframe: bool,
    pub normals: bool,
    pub bounds: bool,
    pub grid: bool,
    pub textured: bool,
    pub lit: bool,
    /// Linear-ish sRGB background colour.
    pub background: [u8; 3],
    /// Colour meshes by whether their material has this flag bit.
    pub colour_by_flag: Option<u32>,
}

impl Default for Display {
    fn default() -> Self {
        Display {
            wireframe: false,
            normals: false,
            bounds: false,
            grid: true,
            textured: true,
            lit: true,
            background: [48, 52, 60],
            colour_by_flag: None,
        }
    }
}

/// The material flag bits the panel shows and the colour-by-flag mode offers.
pub const FLAG_BITS: [u32; 6] = [0x01, 0x02, 0x10, 0x20, 0x40, 0x80];

/// The offscreen picture of the scene and what the renderer said about the loaded model.
pub struct Viewport {
    target: Option<Target>,
    /// Per material: where its texture came from, or why it fell back.
    pub report: Option<Vec<String>>,
}

struct Target {
    texture: wgpu::Texture,
    /// A non-sRGB view: egui samples it as gamma-encoded bytes, exactly as stored.
    view: wgpu::TextureView,
    size: [u32; 2],
}

/// The format of the viewport picture; egui gets a plain `Rgba8Unorm` view of it.
pub const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

impl Viewport {
    pub fn new(_device: &wgpu::Device, _queue: &wgpu::Queue) -> Viewport {
        Viewport { target: None, report: None }
    }

    /// Uploads a newly opened scene.
    pub fn load(&mut self, _device: &wgpu::Device, _queue: &wgpu::Queue, _doc: &Document) {
        self.report = None;
    }

    /// Draws the current pose at `size` pixels and returns the picture's view.
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _doc: Option<&Document>,
        _camera: &OrbitCamera,
        display: &Display,
        size: [u32; 2],
    ) -> &wgpu::TextureView {
        let size = [size[0].clamp(1, 8192), size[1].clamp(1, 8192)];
        if self.target.as_ref().is_some_and(|t| t.size != size) {
            self.target = None;
        }
        let target = self.target.get_or_insert_with(|| Target::new(device, size));
        let srgb_view = target.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let [r, g, b] = display.background.map(|c| srgb_to_linear(c) as f64);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("viewport") });
        {
            let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("viewport clear"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &srgb_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
        }
        queue.submit([encoder.finish()]);
        &target.view
    }

    /// The last picture, for F12.
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.target.as_ref().map(|t| &t.texture)
    }
}

impl Target {
    fn new(device: &wgpu::Device, size: [u32; 2]) -> Target {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewport"),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: TARGET_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[wgpu::TextureFormat::Rgba8Unorm],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(wgpu::TextureFormat::Rgba8Unorm),
            ..Default::default()
        });
        Target { texture, view, size }
    }
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// Reads a 2D texture of an 8-bit RGBA or BGRA format back into an RGBA image.
pub fn read_texture(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Option<image::RgbaImage> {
    let (width, height) = (texture.width(), texture.height());
    let bgra = matches!(texture.format(), wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb);
    let unpadded = width as usize * 4;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize;
    let padded = unpadded.div_ceil(align) * align;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (padded * height as usize) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded as u32),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
    rx.recv().ok()?.ok()?;
    let mut pixels = Vec::with_capacity(unpadded * height as usize);
    {
        let data = slice.get_mapped_range().ok()?;
        for row in data.chunks(padded).take(height as usize) {
            pixels.extend_from_slice(row.get(..unpadded)?);
        }
    }
    buffer.unmap();
    if bgra {
        for px in pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    image::RgbaImage::from_raw(width, height, pixels)
}

/// The central area: the picture, mouse camera control and overlays (drop hint, empty state,
/// loading spinner, error line).
pub fn viewport_ui(ui: &mut egui::Ui, viewer: &mut super::Viewer, texture: Option<egui::TextureId>) {
    use egui::{Align2, Color32, FontId, PointerButton, Sense};
    egui::CentralPanel::no_frame().show(ui, |ui| {
        let rect = ui.max_rect();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        let ppp = ui.ctx().pixels_per_point();
        viewer.viewport_px = [(rect.width() * ppp).round().max(1.0) as u32, (rect.height() * ppp).round().max(1.0) as u32];
        let painter = ui.painter_at(rect);
        match texture {
            Some(id) => {
                let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
                painter.image(id, rect, uv, Color32::WHITE);
            }
            None => {
                let [r, g, b] = viewer.display.background;
                painter.rect_filled(rect, 0.0, Color32::from_rgb(r, g, b));
            }
        }

        let (shift, scroll) = ui.input(|i| (i.modifiers.shift, i.smooth_scroll_delta.y));
        let delta = response.drag_delta();
        if response.dragged_by(PointerButton::Secondary)
            || response.dragged_by(PointerButton::Middle)
            || (response.dragged_by(PointerButton::Primary) && shift)
        {
            viewer.camera.pan(delta.x, delta.y, rect.height());
        } else if response.dragged_by(PointerButton::Primary) {
            viewer.camera.orbit(delta.x, delta.y);
        }
        if response.hovered() && scroll != 0.0 {
            viewer.camera.zoom(scroll);
        }
        if response.double_clicked() {
            viewer.actions.push(super::Action::FrameModel);
        }

        let text_colour = Color32::from_gray(220);
        if viewer.session.doc.is_none() && viewer.session.pending.is_none() {
            painter.text(
                rect.center(),
                Align2::CENTER_CENTER,
                "Drop a model or a folder here\nor press Ctrl+O",
                FontId::proportional(20.0),
                text_colour,
            );
        }
        if viewer.session.pending.is_some() {
            let spinner = egui::Rect::from_min_size(rect.right_top() + egui::vec2(-34.0, 10.0), egui::vec2(24.0, 24.0));
            ui.put(spinner, egui::Spinner::new().size(22.0));
        }
        if let Some(error) = &viewer.session.error {
            let line = error.lines().next().unwrap_or_default();
            let galley = painter.layout(
                format!("⚠ {line}"),
                FontId::proportional(14.0),
                Color32::WHITE,
                (rect.width() - 40.0).max(100.0),
            );
            let pos = rect.left_top() + egui::vec2(12.0, 12.0);
            let back = egui::Rect::from_min_size(pos, galley.size()).expand(6.0);
            painter.rect_filled(back, 4.0, Color32::from_rgba_unmultiplied(120, 30, 30, 230));
            painter.galley(pos, galley, Color32::WHITE);
        }
        if viewer.drop_hover {
            painter.rect_filled(rect.shrink(8.0), 8.0, Color32::from_rgba_unmultiplied(40, 90, 160, 90));
            painter.text(rect.center(), Align2::CENTER_CENTER, "Drop to open", FontId::proportional(26.0), Color32::WHITE);
        }
    });
}
