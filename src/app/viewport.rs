//! The 3D viewport: the orbit camera, the display toggles, mouse input over the view, and the
//! one function ([`Viewport::draw`]) that asks the renderer for a picture of the current pose.
//! The picture is an offscreen texture that egui shows as an image.

use glam::Vec3;

use super::state::Document;
use crate::render::{Camera, Overlays, Renderer, SceneReport, ViewParams};
use crate::scene::Aabb;

/// The viewer's camera: the renderer's orbit [`Camera`] plus mouse-driven moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera(pub Camera);

/// The angles a model is first seen from (degrees).
pub const DEFAULT_YAW: f32 = 30.0;
pub const DEFAULT_PITCH: f32 = 20.0;
/// Degrees per pixel of drag.
const ORBIT_SPEED: f32 = 0.4;
const PITCH_LIMIT: f32 = 89.0;

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera(Camera { yaw_deg: DEFAULT_YAW, pitch_deg: DEFAULT_PITCH, ..Camera::default() })
    }
}

impl OrbitCamera {
    /// The default angles, moved back so `bounds` fills a view of `aspect` (width / height).
    pub fn framing(bounds: &Aabb, aspect: f32) -> OrbitCamera {
        OrbitCamera(Camera::framing(bounds, DEFAULT_YAW, DEFAULT_PITCH, aspect))
    }

    /// Keeps the angles and moves so `bounds` fills the view.
    pub fn frame(&mut self, bounds: &Aabb, aspect: f32) {
        let fov = self.0.fov_y_deg;
        self.0 = Camera { fov_y_deg: fov, ..Camera::framing(bounds, self.0.yaw_deg, self.0.pitch_deg, aspect) };
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.0.yaw_deg = (self.0.yaw_deg - dx * ORBIT_SPEED).rem_euclid(360.0);
        self.0.pitch_deg = (self.0.pitch_deg + dy * ORBIT_SPEED).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves the target in the view plane so the model follows the mouse; `view_height` is
    /// the viewport's height in the same units as the drag.
    pub fn pan(&mut self, dx: f32, dy: f32, view_height: f32) {
        let back = self.0.eye_direction();
        let right = Vec3::Y.cross(back).try_normalize().unwrap_or(Vec3::X);
        let up = back.cross(right);
        // World units per pixel at the target's depth.
        let half_fov = (self.0.fov_y_deg.clamp(1.0, 170.0) * 0.5).to_radians();
        let scale = 2.0 * self.0.distance * half_fov.tan() / view_height.max(1.0);
        self.0.target += (-right * dx + up * dy) * scale;
    }

    /// Wheel zoom: each notch moves a fixed fraction of the distance.
    pub fn zoom(&mut self, scroll: f32) {
        self.0.distance = (self.0.distance * (-scroll * 0.002).exp()).clamp(1e-4, 1e7);
    }
}

/// What the viewport draws besides the shaded model.
#[derive(Debug, Clone, PartialEq)]
pub struct Display {
    pub wireframe: bool,
    pub normals: bool,
    pub bounds: bool,
    pub grid: bool,
    /// Bones of skinned models (MDR, M2) as lines.
    pub skeleton: bool,
    /// Tag, attachment and emitter markers.
    pub markers: bool,
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
            skeleton: false,
            markers: false,
            textured: true,
            lit: true,
            // The renderer's default, sRGB.
            background: [51, 56, 64],
            colour_by_flag: None,
        }
    }
}

/// The material flag bits the panel shows and the colour-by-flag mode offers.
pub const FLAG_BITS: [u32; 6] = [0x01, 0x02, 0x10, 0x20, 0x40, 0x80];

/// The renderer, and the picture egui shows.
pub struct Viewport {
    renderer: Renderer,
    /// Whether the renderer holds the open document's scene.
    loaded: bool,
    target: Option<Target>,
}

/// A copy of the renderer's picture with a non-sRGB view: egui samples textures as
/// gamma-encoded bytes, so it must see the stored bytes, not sRGB-decoded values.
struct Target {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    size: [u32; 2],
}

impl Viewport {
    pub fn new(adapter: &wgpu::Adapter, device: &wgpu::Device, queue: &wgpu::Queue) -> Viewport {
        // A software rasteriser (lavapipe, llvmpipe) pays for every MSAA sample on the CPU;
        // without multisampling it keeps up with stepping through a folder.
        let renderer = if adapter.get_info().device_type == wgpu::DeviceType::Cpu {
            Renderer::with_sample_count(device, queue, 1)
        } else {
            Renderer::new(adapter, device, queue)
        };
        Viewport { renderer, loaded: false, target: None }
    }

    /// The MSAA sample count of the viewport's renderer (1 on software rasterisers).
    pub fn sample_count(&self) -> u32 {
        self.renderer.sample_count()
    }

    /// Uploads a newly opened scene with the images it was opened with.
    pub fn load(&mut self, doc: &Document) -> SceneReport {
        self.loaded = true;
        self.renderer.load_scene(&doc.scene)
    }

    /// Draws the current pose at `size` pixels and returns the view egui shows.
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        doc: Option<&Document>,
        camera: &OrbitCamera,
        display: &Display,
        size: [u32; 2],
    ) -> &wgpu::TextureView {
        let max_side = device.limits().max_texture_dimension_2d.max(1);
        let size = [size[0].clamp(1, max_side), size[1].clamp(1, max_side)];
        if self.target.as_ref().is_some_and(|t| t.size != size) {
            self.target = None;
        }
        let target = self.target.get_or_insert_with(|| Target::new(device, size));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("viewport") });
        match doc.filter(|_| self.loaded) {
            Some(doc) => {
                let view = view_params(doc, camera, display, size);
                self.renderer.draw(&doc.scene, &doc.pose, &view);
                let source = self.renderer.color_texture();
                encoder.copy_texture_to_texture(
                    source.as_image_copy(),
                    target.texture.as_image_copy(),
                    wgpu::Extent3d {
                        width: size[0].min(source.width()),
                        height: size[1].min(source.height()),
                        depth_or_array_layers: 1,
                    },
                );
            }
            None => clear(&mut encoder, &target.texture, display.background),
        }
        queue.submit([encoder.finish()]);
        &target.view
    }

    /// The last picture as an image, for F12.
    pub fn read_pixels(&self) -> anyhow::Result<image::RgbaImage> {
        self.renderer.read_pixels()
    }
}

/// What the renderer needs besides the scene and pose.
fn view_params(doc: &Document, camera: &OrbitCamera, display: &Display, size: [u32; 2]) -> ViewParams {
    let [r, g, b] = display.background.map(|c| f32::from(c) / 255.0);
    ViewParams {
        size,
        camera: camera.0,
        background: [r, g, b, 1.0],
        overlays: Overlays {
            wireframe: display.wireframe,
            normals: display.normals,
            bounds: display.bounds,
            axes: false,
            grid: display.grid,
            skeleton: display.skeleton,
            markers: display.markers,
        },
        lit: display.lit,
        textures: display.textured,
        flag_bits: display.colour_by_flag,
        selected_node: doc.selected,
    }
}

fn clear(encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture, background: [u8; 3]) {
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let [r, g, b] = background.map(|c| f64::from(srgb_to_linear(c)));
    let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("viewport clear"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: &view,
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

impl Target {
    fn new(device: &wgpu::Device, size: [u32; 2]) -> Target {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewport"),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: crate::render::COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST,
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

/// Reads a 2D texture of an 8-bit RGBA or BGRA format back into an RGBA image (the renderer's
/// readback, shared).
pub fn read_texture(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Option<image::RgbaImage> {
    crate::render::offscreen::read_texture(device, queue, texture, [texture.width(), texture.height()]).ok()
}

/// Whether this pass's mouse input moves the camera: a drag that went somewhere, or the wheel
/// over the view.
pub fn moves_camera(drag: egui::Vec2, dragged: bool, scroll: f32, hovered: bool) -> bool {
    (dragged && drag != egui::Vec2::ZERO) || (hovered && scroll != 0.0)
}

/// The central area: the picture, mouse camera control and overlays (drop hint, empty state,
/// loading spinner, error line).
pub fn viewport_ui(ui: &mut egui::Ui, viewer: &mut super::Viewer, texture: Option<egui::TextureId>) {
    use egui::{Align2, Color32, FontId, PointerButton, Sense};
    egui::CentralPanel::no_frame().show(ui, |ui| {
        let rect = ui.max_rect();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        let ppp = ui.ctx().pixels_per_point();
        viewer.viewport_px =
            [(rect.width() * ppp).round().max(1.0) as u32, (rect.height() * ppp).round().max(1.0) as u32];
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
        } else if response.dragged_by(PointerButton::Primary) && viewer.fly.on {
            viewer.camera.look(delta.x, delta.y);
        } else if response.dragged_by(PointerButton::Primary) {
            viewer.camera.orbit(delta.x, delta.y);
        }
        // A camera the user moved stays where they put it, whatever the viewport does next.
        if moves_camera(delta, response.dragged(), scroll, response.hovered()) {
            viewer.framed = None;
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
        if viewer.fly.on {
            painter.text(
                rect.left_bottom() + egui::vec2(12.0, -12.0),
                Align2::LEFT_BOTTOM,
                "Fly: W A S D move · Q E down / up · Shift faster · drag looks · V to orbit again",
                FontId::proportional(13.0),
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
            painter.text(
                rect.center(),
                Align2::CENTER_CENTER,
                "Drop to open",
                FontId::proportional(26.0),
                Color32::WHITE,
            );
        }
    });
}
