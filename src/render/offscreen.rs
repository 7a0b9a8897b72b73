//! Rendering without a window: a headless device on any wgpu adapter (a software one such as
//! Mesa's lavapipe included), and readback of the colour target into an [`RgbaImage`].

use anyhow::{Context, Result, anyhow, bail};
use image::RgbaImage;

use super::{Camera, Renderer, SceneReport, ViewParams, gpu};
use crate::scene::Scene;
use crate::scene::anim::Pose;

/// An instance, adapter, device and queue made without any window.
pub struct HeadlessGpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl HeadlessGpu {
    /// Picks an adapter among the backends `WGPU_BACKEND` allows (all by default; Vulkan wins
    /// where both it and GL exist) and opens a device with the adapter's own limits.
    pub fn new() -> Result<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::HighPerformance),
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| {
            anyhow!(
                "no graphics adapter found ({e}); on a machine without a GPU install a software driver, \
                 e.g. `apt-get install mesa-vulkan-drivers libvulkan1`"
            )
        })?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("mdview headless"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .context("opening the graphics device")?;
        Ok(Self { instance, adapter, device, queue })
    }

    /// A one-line description of the adapter, such as `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`.
    pub fn adapter_name(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?})", info.name, info.backend)
    }

    pub fn renderer(&self) -> Renderer {
        Renderer::new(&self.adapter, &self.device, &self.queue)
    }
}

/// How to render one image headlessly.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub view: ViewParams,
}

impl RenderOptions {
    /// A view of `size` pixels framing the scene's rest bounds from the given angles.
    pub fn framed(scene: &Scene, size: [u32; 2], yaw_deg: f32, pitch_deg: f32) -> Self {
        let aspect = size[0].max(1) as f32 / size[1].max(1) as f32;
        let camera = Camera::framing(&scene.bounds(), yaw_deg, pitch_deg, aspect);
        Self { view: ViewParams::new(size, camera) }
    }
}

/// Renders one pose of a scene to an image on a fresh headless device. For many frames of
/// one scene, keep an [`OffscreenRenderer`] instead.
pub fn render_to_image(scene: &Scene, pose: &Pose, opts: &RenderOptions) -> Result<RgbaImage> {
    let mut offscreen = OffscreenRenderer::new(scene)?;
    offscreen.render(scene, pose, &opts.view)
}

/// A headless device plus a renderer with one scene loaded.
pub struct OffscreenRenderer {
    pub gpu: HeadlessGpu,
    pub renderer: Renderer,
    pub report: SceneReport,
}

impl OffscreenRenderer {
    /// A renderer with `scene` loaded; its images are the ones it was opened with (see
    /// `formats::resolve_images` to search more folders first).
    pub fn new(scene: &Scene) -> Result<Self> {
        let gpu = HeadlessGpu::new()?;
        let mut renderer = gpu.renderer();
        let report = renderer.load_scene(scene);
        Ok(Self { gpu, renderer, report })
    }

    pub fn render(&mut self, scene: &Scene, pose: &Pose, view: &ViewParams) -> Result<RgbaImage> {
        // A picture too large for the GPU's memory is an error, not wgpu's default panic: the
        // targets' allocation fails out of memory, and what then uses them fails validation.
        let validation = self.gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory = self.gpu.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        self.renderer.draw(scene, pose, view);
        let failed = pollster::block_on(memory.pop()).or(pollster::block_on(validation.pop()));
        if let Some(error) = failed {
            let [w, h] = view.size;
            return Err(anyhow::anyhow!("the GPU could not draw a {w}x{h} picture ({error}); ask for a smaller size"));
        }
        let mut image = self.renderer.read_pixels()?;
        if view.background[3] <= 0.0 {
            unpremultiply(&mut image);
        }
        Ok(image)
    }
}

/// Copies a single-sampled 8-bit RGBA or BGRA texture (a window surface's format) into an RGBA
/// image (rows padded to wgpu's 256-byte copy alignment on the way, unpadded here).
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    size: [u32; 2],
) -> Result<RgbaImage> {
    let [width, height] = size;
    let unpadded = width as usize * 4;
    let padded = unpadded.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("mdview readback"),
        size: (padded * height as usize) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("mdview readback") });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
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
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely()).context("waiting for the GPU")?;
    receiver.recv().context("readback callback dropped")?.context("mapping the readback buffer")?;
    let mut pixels = Vec::with_capacity(unpadded * height as usize);
    {
        let mapped = slice.get_mapped_range().context("reading the mapped readback buffer")?;
        for row in mapped.chunks_exact(padded).take(height as usize) {
            pixels.extend_from_slice(row.get(..unpadded).unwrap_or(&[]));
        }
    }
    buffer.unmap();
    if matches!(texture.format(), wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb) {
        for px in pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    match RgbaImage::from_raw(width, height, pixels) {
        Some(image) => Ok(image),
        None => bail!("readback returned fewer pixels than {width}x{height}"),
    }
}

/// Over a transparent background the colour target holds premultiplied colour (blending and
/// MSAA resolve both mix with the cleared black); PNG wants straight alpha. Divides in linear
/// space, where the mixing happened.
pub fn unpremultiply(image: &mut RgbaImage) {
    for pixel in image.pixels_mut() {
        let alpha = pixel.0[3];
        if alpha == 0 || alpha == 255 {
            continue;
        }
        let a = f32::from(alpha) / 255.0;
        for channel in pixel.0.iter_mut().take(3) {
            let linear = gpu::srgb_to_linear(f32::from(*channel) / 255.0) / a;
            *channel = (gpu::linear_to_srgb(linear.min(1.0)) * 255.0).round() as u8;
        }
    }
}
