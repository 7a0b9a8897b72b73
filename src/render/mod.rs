//! The wgpu renderer shared by the viewer and headless `render`. It knows only the
//! format-neutral [`Scene`] and the CPU-evaluated [`Pose`]; no format code lives here.
//!
//! # Using it
//! ```no_run
//! # fn demo(adapter: &wgpu::Adapter, device: &wgpu::Device, queue: &wgpu::Queue,
//! #         scene: &mdview::scene::Scene, pose: &mdview::scene::anim::Pose) {
//! use mdview::render::{Camera, Renderer, ViewParams};
//! let mut renderer = Renderer::new(adapter, device, queue);
//! let report = renderer.load_scene(scene); // uploads meshes and textures once
//! let camera = Camera::framing(&scene.bounds(), 30.0, 20.0, 16.0 / 9.0);
//! let view = ViewParams::new([1280, 720], camera);
//! let texture_view = renderer.draw(scene, pose, &view); // an Rgba8UnormSrgb view
//! # let _ = (report, texture_view);
//! # }
//! ```
//! The viewer registers the returned view with egui (`egui_wgpu::Renderer::
//! register_native_texture`, or `update_egui_texture_from_wgpu_texture` after a resize: the
//! view changes whenever [`ViewParams::size`] does). Headless callers use [`offscreen`].
//!
//! # Long-lived and per-frame parts
//! [`Renderer`] owns the device handles, pipelines (created on first use, then kept), the
//! sampler, its render targets, and per model the vertex, UV and index buffers, textures and
//! material bind groups, all uploaded once by [`Renderer::load_scene`]. Each frame,
//! [`Renderer::prepare`] writes the camera, one placement (world and normal matrix) per visible
//! mesh, and positions/normals or UVs only for the meshes whose pose animates them; static
//! meshes are never re-uploaded.
//!
//! # Instancing
//! A mesh that repeats another's geometry ([`Scene::geometry_source`]: a park item placed many
//! times) has no buffers of its own: the source's are uploaded once. Placements are a
//! per-instance vertex buffer, and each frame the visible placements are grouped by the buffers
//! they draw from (and by whether their matrix mirrors), so all the unmoved copies of one
//! geometry draw each submesh in one instanced call. A copy whose pose moves its vertices or
//! UVs gets buffers of its own on first movement and draws alone. Blended (see-through
//! gradient) submeshes stay one draw per placement, each sorted back to front by its own
//! centre, so copies overlapping one another still blend in order; opaque and cut-out ones
//! write depth and need no order. This file holds the long-lived part (types, construction,
//! scene upload); the private `frame` module holds the per-frame part (prepare and the render
//! pass).
//!
//! # Draw order and see-through materials
//! Opaque surfaces first, then cut-outs (alpha test, or alpha-to-coverage under 4x MSAA, with
//! depth write), then blended surfaces sorted back to front without depth write, then overlay
//! lines. [`AlphaMode::SeeThrough`] (TPW bit 0x02) is decided per texture at load time by
//! [`textures::classify_alpha`]: cut-out art versus true gradients. [`AlphaMode::Opaque`]
//! ignores texture alpha. [`AlphaMode::Blend`] maps each M2 blend mode to a real blend state.
//!
//! # Conventions
//! Matrices follow glam's column-vector convention; a mesh is placed by
//! [`Pose::mesh_world`] exactly as given (never decomposed, so sheared nodes draw exactly) and
//! its normals by the inverse-transpose of that matrix's 3x3. Front faces wind
//! counter-clockwise. Depth is reversed (near = 1, far = 0) in a 32-bit float buffer, for
//! precision at any zoom. Colours in [`ViewParams`] are sRGB with straight alpha.

pub mod animated;
pub mod camera;
mod frame;
pub mod gpu;
mod instances;
pub mod label;
pub mod offscreen;
pub mod overlays;
mod pipelines;
mod resources;
pub mod sheet;
pub mod textures;

use std::collections::HashMap;

use image::RgbaImage;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

pub use camera::Camera;
use frame::FrameLists;
use gpu::{FrameUniforms, MaterialUniforms};
use pipelines::{Layouts, PipelineKey, Shaders};
use resources::{
    DrawSlots, GpuMaterial, GpuMesh, GpuScene, GpuTexture, Targets, create_draw_slots, create_targets, upload_mesh,
    upload_texture,
};
use textures::SeeThroughKind;

use crate::scene::anim::Pose;
use crate::scene::{AlphaMode, BlendMode, Material, Mesh, Scene, TextureWrap};

/// The surface shader as compiled: the shared per-frame uniforms, then `shaders/mesh.wgsl`.
pub const MESH_WGSL: &str = concat!(include_str!("../../shaders/frame.wgsl"), include_str!("../../shaders/mesh.wgsl"));
/// The overlay-line shader as compiled: the shared per-frame uniforms, then `shaders/lines.wgsl`.
pub const LINES_WGSL: &str =
    concat!(include_str!("../../shaders/frame.wgsl"), include_str!("../../shaders/lines.wgsl"));

/// The format of the colour texture [`Renderer::draw`] returns.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// MSAA sample count used where the adapter supports it for both attachments.
pub const MSAA_SAMPLES: u32 = 4;
/// The default background, sRGB.
pub const DEFAULT_BACKGROUND: [f32; 4] = [0.20, 0.22, 0.25, 1.0];

/// Which overlays to draw over the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overlays {
    pub wireframe: bool,
    pub normals: bool,
    /// Per mesh node, its mesh's bounds placed by the node (sheared boxes stay sheared).
    pub bounds: bool,
    /// Every node's local axes.
    pub axes: bool,
    pub grid: bool,
    /// Each skeleton's bones as lines between their origins.
    pub skeleton: bool,
    /// A diamond at every tag node (MDR tags; M2 attachments, events, lights, emitters).
    pub markers: bool,
}

/// Everything about one frame that is not the scene or pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewParams {
    /// Width and height in pixels (clamped to 1..=the device's texture limit).
    pub size: [u32; 2],
    pub camera: Camera,
    /// sRGB with straight alpha; alpha 0 gives a transparent background.
    pub background: [f32; 4],
    pub overlays: Overlays,
    /// Directional light plus ambient; `false` shows texture colours as they are.
    pub lit: bool,
    /// `false` draws every surface light grey (alpha still cuts out).
    pub textures: bool,
    /// For reverse engineers: tint meshes whose material flag word has any of these bits,
    /// and dim the rest.
    pub flag_bits: Option<u32>,
    /// A node to highlight: its meshes' edges and box drawn on top, or its axes for a
    /// transform-only node.
    pub selected_node: Option<usize>,
}

impl ViewParams {
    pub fn new(size: [u32; 2], camera: Camera) -> Self {
        Self {
            size,
            camera,
            background: DEFAULT_BACKGROUND,
            overlays: Overlays::default(),
            lit: true,
            textures: true,
            flag_bits: None,
            selected_node: None,
        }
    }

    pub fn aspect(&self) -> f32 {
        self.size[0].max(1) as f32 / self.size[1].max(1) as f32
    }
}

/// Where a material's texture came from.
#[derive(Debug, Clone, PartialEq)]
pub enum TextureSource {
    /// The material names no texture.
    Untextured,
    /// Where the image was read from ([`crate::scene::SceneImage::location`]).
    File(String),
    /// The engine's brown noise tile, and why.
    Fallback { reason: String },
}

/// How a material is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawPass {
    Opaque,
    /// Alpha-tested (alpha-to-coverage under MSAA), with depth write.
    CutOut,
    /// Sorted back to front, without depth write.
    Blend(BlendKind),
}

/// Blend states; the M2 names in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendKind {
    /// Straight alpha over (TPW gradients; M2 Alpha).
    Alpha,
    /// `src + dst` (M2 NoAlphaAdd).
    Add,
    /// `src·α + dst` (M2 Add).
    AlphaAdd,
    /// `src·dst` (M2 Mod).
    Modulate,
    /// `2·src·dst` (M2 Mod2x).
    Modulate2x,
    /// Premultiplied over: `src + dst·(1-α)` (M2 BlendAdd).
    Premultiplied,
}

impl DrawPass {
    pub fn label(self) -> &'static str {
        match self {
            DrawPass::Opaque => "opaque",
            DrawPass::CutOut => "cut-out",
            DrawPass::Blend(BlendKind::Alpha) => "blended",
            DrawPass::Blend(BlendKind::Add) => "additive",
            DrawPass::Blend(BlendKind::AlphaAdd) => "alpha-additive",
            DrawPass::Blend(BlendKind::Modulate) => "modulate",
            DrawPass::Blend(BlendKind::Modulate2x) => "modulate-2x",
            DrawPass::Blend(BlendKind::Premultiplied) => "premultiplied",
        }
    }
}

/// What [`Renderer::load_scene`] did with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialReport {
    pub material: usize,
    pub name: String,
    /// The texture name as the file states it.
    pub texture: Option<String>,
    pub source: TextureSource,
    pub pass: DrawPass,
}

/// What was uploaded, and where each material's texture came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneReport {
    pub materials: Vec<MaterialReport>,
    pub meshes: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// The folders searched for textures, in order ([`Scene::image_search`]).
    pub texture_dirs: Vec<String>,
}

impl SceneReport {
    pub fn fallback_count(&self) -> usize {
        self.materials.iter().filter(|m| matches!(m.source, TextureSource::Fallback { .. })).count()
    }

    /// One line per material, for the CLI and logs.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for m in &self.materials {
            let source = match &m.source {
                TextureSource::Untextured => "no texture".to_string(),
                TextureSource::File(location) => location.clone(),
                TextureSource::Fallback { reason } => format!("fallback tile ({reason})"),
            };
            out.push_str(&format!("material {} '{}': {} [{}]\n", m.material, m.name, source, m.pass.label()));
        }
        out
    }
}

/// What the last [`Renderer::prepare`] set up to draw, for tests and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Visible meshes placed (instances in the placement buffer).
    pub placements: usize,
    /// Surface draw calls.
    pub draws: usize,
    /// Surface draw calls covering more than one placement.
    pub instanced_draws: usize,
    /// Submesh instances the surface draws cover.
    pub instances: usize,
}

/// The long-lived renderer; see the module doc.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    sample_count: u32,
    layouts: Layouts,
    shaders: Shaders,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    /// Per wrap mode pair, indexed by [`sampler_index`].
    samplers: [wgpu::Sampler; 4],
    frame_buffer: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    draws: DrawSlots,
    fallback: GpuTexture,
    white: GpuTexture,
    targets: Targets,
    scene: Option<GpuScene>,
    lists: FrameLists,
    line_buffer: Option<(wgpu::Buffer, u64)>,
    background: wgpu::Color,
}

impl Renderer {
    /// Creates pipelines' shared state on a device. The adapter is asked whether 4x MSAA is
    /// supported for the colour and depth formats; without it, cut-outs use a plain alpha test.
    pub fn new(adapter: &wgpu::Adapter, device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let msaa_ok = |format| adapter.get_texture_format_features(format).flags.sample_count_supported(MSAA_SAMPLES);
        let sample_count = if msaa_ok(COLOR_FORMAT) && msaa_ok(DEPTH_FORMAT) { MSAA_SAMPLES } else { 1 };
        Self::with_sample_count(device, queue, sample_count)
    }

    /// As [`Renderer::new`], with the MSAA sample count chosen by the caller (1 or 4).
    pub fn with_sample_count(device: &wgpu::Device, queue: &wgpu::Queue, sample_count: u32) -> Self {
        let sample_count = if sample_count >= MSAA_SAMPLES { MSAA_SAMPLES } else { 1 };
        let (frame_layout, layouts) = pipelines::create_layouts(device);
        let mesh_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mesh.wgsl"),
            source: wgpu::ShaderSource::Wgsl(MESH_WGSL.into()),
        });
        let line_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("lines.wgsl"),
            source: wgpu::ShaderSource::Wgsl(LINES_WGSL.into()),
        });
        // One sampler per pair of wrap modes the scene's materials ask for.
        let samplers = [0, 1, 2, 3].map(|index| {
            let mode = |clamp: bool| if clamp { wgpu::AddressMode::ClampToEdge } else { wgpu::AddressMode::Repeat };
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("mdview texture"),
                address_mode_u: mode(index & 1 != 0),
                address_mode_v: mode(index & 2 != 0),
                address_mode_w: wgpu::AddressMode::Repeat,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                mipmap_filter: wgpu::MipmapFilterMode::Linear,
                ..Default::default()
            })
        });
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mdview frame uniforms"),
            size: size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mdview frame"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: frame_buffer.as_entire_binding() }],
        });
        let draws = create_draw_slots(device, 16);
        let fallback = upload_texture(device, queue, "fallback tile", &textures::fallback_tile());
        let white = upload_texture(device, queue, "white", &RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        let targets = create_targets(device, [1, 1], sample_count);
        Self {
            device: device.clone(),
            queue: queue.clone(),
            sample_count,
            layouts,
            shaders: Shaders { mesh: mesh_shader, lines: line_shader },
            pipelines: HashMap::new(),
            samplers,
            frame_buffer,
            frame_bind_group,
            draws,
            fallback,
            white,
            targets,
            scene: None,
            lists: FrameLists::default(),
            line_buffer: None,
            background: wgpu::Color::BLACK,
        }
    }

    /// What the last prepared frame draws.
    pub fn draw_stats(&self) -> DrawStats {
        self.lists.stats()
    }

    /// 4 with MSAA, else 1.
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Uploads a scene's meshes, textures and materials, replacing the previous scene. The
    /// images are the scene's own ([`Scene::images`], resolved when it was opened); they are
    /// decoded in parallel through [`crate::scene::SceneImage::load`], which an exporter calls
    /// too. An image that resolved nowhere or fails to decode gets the fallback tile, which is
    /// reported, never an error. The renderer reads no files.
    pub fn load_scene(&mut self, scene: &Scene) -> SceneReport {
        let mut report = SceneReport { texture_dirs: scene.image_search.clone(), ..SceneReport::default() };

        // Decode each image in parallel, upload in order.
        let decoded: Vec<Result<(String, RgbaImage), String>> = scene
            .images
            .par_iter()
            .map(|image| {
                let pixels = image.load()?;
                let rgba = RgbaImage::from_raw(pixels.width, pixels.height, pixels.rgba.clone())
                    .ok_or_else(|| format!("{} has the wrong number of bytes", pixels.location))?;
                Ok((pixels.location.clone(), rgba))
            })
            .collect();
        let mut gpu_textures = Vec::new();
        // Per image: texture index into gpu_textures (None = fallback), source, alpha.
        let mut resolved: Vec<(Option<usize>, TextureSource, SeeThroughKind)> = Vec::new();
        for (image, pixels) in scene.images.iter().zip(decoded) {
            match pixels {
                Ok((location, rgba)) => {
                    let kind = textures::classify_alpha(&rgba);
                    gpu_textures.push(upload_texture(&self.device, &self.queue, &image.name, &rgba));
                    resolved.push((Some(gpu_textures.len() - 1), TextureSource::File(location), kind));
                }
                Err(reason) => {
                    log::warn!("texture '{}': {reason}; using the fallback tile", image.name);
                    resolved.push((None, TextureSource::Fallback { reason }, SeeThroughKind::CutOut));
                }
            }
        }

        // A material whose image cycles (Quake skin groups) gets a copy per other image of its
        // cycle, drawn in its place while the pose shows that image (`GpuScene::image_variants`).
        let variants: Vec<(usize, usize, Material)> = scene
            .materials
            .iter()
            .enumerate()
            .flat_map(|(m, material)| {
                let others =
                    material.image_cycle.iter().flat_map(|c| &c.images).filter(|&&i| Some(i) != material.image);
                others.map(move |&image| (m, image, Material { image: Some(image), ..material.clone() }))
            })
            .collect();
        let mut materials = Vec::with_capacity(scene.materials.len() + variants.len() + 1);
        let all = scene.materials.iter().enumerate().chain(variants.iter().map(|(m, _, copy)| (*m, copy)));
        for (index, material) in all {
            let is_variant = materials.len() >= scene.materials.len();
            let entry = material.image.and_then(|i| resolved.get(i));
            let (view, source, see_through) = match entry {
                Some((Some(texture), source, kind)) => {
                    (gpu_textures.get(*texture).map(|t| &t.view).unwrap_or(&self.fallback.view), source.clone(), *kind)
                }
                Some((None, source, kind)) => (&self.fallback.view, source.clone(), *kind),
                None => (&self.white.view, TextureSource::Untextured, SeeThroughKind::CutOut),
            };
            let pass = draw_pass(material.alpha, see_through);
            // The second texture layer, where its image loaded; one that did not is left out
            // (the surface shows its first texture alone), with a warning.
            let layer = material.layer2.as_ref().and_then(|layer| match layer.image.and_then(|i| resolved.get(i)) {
                Some((Some(texture), _, _)) => gpu_textures.get(*texture).map(|t| (layer, &t.view)),
                _ => {
                    log::warn!(
                        "material '{}': second texture {:?} not loaded; drawn with its first alone",
                        material.name,
                        layer.texture.as_deref().unwrap_or("(unnamed)")
                    );
                    None
                }
            });
            let layer_source = layer.map_or(0, |(l, _)| u32::from(l.uv_set.min(1)) | (u32::from(l.sphere_map) << 1));
            let uniforms = MaterialUniforms {
                base_color: material.base_color.to_array(),
                flags: material.flags,
                two_sided: u32::from(material.two_sided),
                unlit: u32::from(material.unlit),
                textured: u32::from(material.image.is_some()),
                uv_rows: MaterialUniforms::IDENTITY_UV,
                uv_source: [
                    u32::from(material.sphere_map),
                    u32::from(material.uv_set.min(1)),
                    layer.map_or(0, |(l, _)| l.combine.shader_code()),
                    layer_source,
                ],
            };
            let layer_binding = layer.map(|(l, view)| (view, l.wrap));
            let (bind_group, buffer) =
                self.material_bind_group(&material.name, &uniforms, (view, material.wrap), layer_binding);
            materials.push(GpuMaterial {
                bind_group,
                buffer,
                uniforms,
                pass,
                two_sided: material.two_sided,
                depth_write: material.depth_write,
                draw_order: material.draw_order,
            });
            if is_variant {
                continue;
            }
            report.materials.push(MaterialReport {
                material: index,
                name: material.name.clone(),
                texture: material.texture.clone(),
                source,
                pass,
            });
        }
        let default_uniforms = MaterialUniforms {
            base_color: [0.8, 0.8, 0.8, 1.0],
            flags: 0,
            two_sided: 0,
            unlit: 0,
            textured: 0,
            uv_rows: MaterialUniforms::IDENTITY_UV,
            uv_source: [0; 4],
        };
        let (bind_group, buffer) =
            self.material_bind_group("default", &default_uniforms, (&self.white.view, [TextureWrap::Repeat; 2]), None);
        materials.push(GpuMaterial {
            bind_group,
            buffer,
            uniforms: default_uniforms,
            pass: DrawPass::Opaque,
            two_sided: false,
            depth_write: true,
            draw_order: 0,
        });
        let default_material = materials.len() - 1;
        let image_variants =
            variants.iter().enumerate().map(|(k, (m, image, _))| ((*m, *image), scene.materials.len() + k)).collect();

        // Copies draw from their source's buffers: upload each geometry once.
        let sources = resources::geometry_sources(scene);
        let mut shared = vec![false; scene.meshes.len()];
        for (mesh, &source) in sources.iter().enumerate() {
            if source as usize != mesh {
                shared[mesh] = true;
                if let Some(flag) = shared.get_mut(source as usize) {
                    *flag = true;
                }
            }
        }
        let meshes: Vec<Option<GpuMesh>> = scene
            .meshes
            .iter()
            .zip(&sources)
            .enumerate()
            .map(
                |(index, (mesh, &source))| {
                    if source as usize == index { upload_mesh(&self.device, mesh, default_material) } else { None }
                },
            )
            .collect();
        report.meshes = scene.meshes.iter().filter(|m| m.vertex_count() > 0 && !m.triangles.is_empty()).count();
        report.vertices = scene.meshes.iter().map(Mesh::vertex_count).sum();
        report.triangles = scene.meshes.iter().map(|m| m.triangles.len()).sum();

        let bounds = scene.bounds();
        let (_, radius) = camera::bounding_sphere(&bounds);
        // Compile the surface pipelines this scene needs now, not on the first frame.
        for material in &materials {
            self.ensure_pipeline(material.pipeline_key(false));
        }
        self.scene = Some(GpuScene {
            mesh_count: scene.meshes.len(),
            meshes,
            sources,
            shared,
            own: HashMap::new(),
            materials,
            image_variants,
            bounds,
            radius,
            _textures: gpu_textures,
        });
        report
    }

    fn material_bind_group(
        &self,
        label: &str,
        uniforms: &MaterialUniforms,
        (view, wrap): (&wgpu::TextureView, [TextureWrap; 2]),
        layer: Option<(&wgpu::TextureView, [TextureWrap; 2])>,
    ) -> (wgpu::BindGroup, wgpu::Buffer) {
        let sampler = self.samplers.get(sampler_index(wrap)).unwrap_or(&self.samplers[0]);
        let (layer_view, layer_wrap) = layer.unwrap_or((&self.white.view, [TextureWrap::Repeat; 2]));
        let layer_sampler = self.samplers.get(sampler_index(layer_wrap)).unwrap_or(&self.samplers[0]);
        let buffer = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::bytes_of(uniforms),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &self.layouts.material,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(view) },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::Sampler(sampler) },
                wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::TextureView(layer_view) },
                wgpu::BindGroupEntry { binding: 4, resource: wgpu::BindingResource::Sampler(layer_sampler) },
            ],
        });
        (bind_group, buffer)
    }

    /// Renders `pose` of `scene` (the scene last given to [`Renderer::load_scene`]) and
    /// returns the colour view ([`COLOR_FORMAT`], `view.size` pixels, single-sampled). The
    /// view stays valid until the next draw with another size.
    pub fn draw(&mut self, scene: &Scene, pose: &Pose, view: &ViewParams) -> &wgpu::TextureView {
        self.prepare(scene, pose, view);
        self.encode_and_submit();
        &self.targets.color_view
    }

    /// The colour texture of the last draw.
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.targets.color
    }

    /// Records the frame [`Renderer::prepare`] set up in a single render pass, submits it,
    /// and returns the colour view. [`Renderer::draw`] is `prepare` then `submit`.
    pub fn submit(&mut self) -> &wgpu::TextureView {
        self.encode_and_submit();
        &self.targets.color_view
    }

    /// Reads the last drawn frame back as sRGB RGBA8 (straight alpha when the background was
    /// transparent, see [`offscreen::unpremultiply`]).
    pub fn read_pixels(&self) -> anyhow::Result<RgbaImage> {
        offscreen::read_texture(&self.device, &self.queue, &self.targets.color, self.targets.size)
    }

    fn ensure_pipeline(&mut self, key: PipelineKey) {
        if !self.pipelines.contains_key(&key) {
            let pipeline =
                pipelines::create_pipeline(&self.device, &self.layouts, &self.shaders, self.sample_count, key);
            self.pipelines.insert(key, pipeline);
        }
    }
}

/// Which of the renderer's samplers serves a material's (u, v) wrap modes.
fn sampler_index([u, v]: [TextureWrap; 2]) -> usize {
    usize::from(u == TextureWrap::Clamp) | (usize::from(v == TextureWrap::Clamp) << 1)
}

/// The draw pass of a material: see the module doc.
fn draw_pass(alpha: AlphaMode, see_through: SeeThroughKind) -> DrawPass {
    match alpha {
        AlphaMode::Opaque => DrawPass::Opaque,
        AlphaMode::SeeThrough => match see_through {
            SeeThroughKind::CutOut => DrawPass::CutOut,
            SeeThroughKind::Blended => DrawPass::Blend(BlendKind::Alpha),
        },
        AlphaMode::Mask => DrawPass::CutOut,
        AlphaMode::Blend(mode) => match mode {
            BlendMode::Opaque => DrawPass::Opaque,
            BlendMode::AlphaKey => DrawPass::CutOut,
            BlendMode::Alpha => DrawPass::Blend(BlendKind::Alpha),
            BlendMode::NoAlphaAdd => DrawPass::Blend(BlendKind::Add),
            BlendMode::Add => DrawPass::Blend(BlendKind::AlphaAdd),
            BlendMode::Mod => DrawPass::Blend(BlendKind::Modulate),
            BlendMode::Mod2x => DrawPass::Blend(BlendKind::Modulate2x),
            BlendMode::BlendAdd => DrawPass::Blend(BlendKind::Premultiplied),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn see_through_follows_the_texture_and_opaque_ignores_alpha() {
        assert_eq!(draw_pass(AlphaMode::SeeThrough, SeeThroughKind::CutOut), DrawPass::CutOut);
        assert_eq!(draw_pass(AlphaMode::SeeThrough, SeeThroughKind::Blended), DrawPass::Blend(BlendKind::Alpha));
        assert_eq!(draw_pass(AlphaMode::Opaque, SeeThroughKind::Blended), DrawPass::Opaque);
        assert_eq!(
            draw_pass(AlphaMode::Blend(BlendMode::Mod2x), SeeThroughKind::CutOut),
            DrawPass::Blend(BlendKind::Modulate2x)
        );
    }

    /// Each M2 blend mode's pass and wgpu blend state, against the spec table (colour factors).
    #[test]
    fn m2_blend_modes_map_to_the_spec_table() {
        use wgpu::BlendFactor as F;
        let cases = [
            (BlendMode::Opaque, DrawPass::Opaque, None),
            (BlendMode::AlphaKey, DrawPass::CutOut, None),
            (BlendMode::Alpha, DrawPass::Blend(BlendKind::Alpha), Some((F::SrcAlpha, F::OneMinusSrcAlpha))),
            (BlendMode::NoAlphaAdd, DrawPass::Blend(BlendKind::Add), Some((F::One, F::One))),
            (BlendMode::Add, DrawPass::Blend(BlendKind::AlphaAdd), Some((F::SrcAlpha, F::One))),
            (BlendMode::Mod, DrawPass::Blend(BlendKind::Modulate), Some((F::Dst, F::Zero))),
            (BlendMode::Mod2x, DrawPass::Blend(BlendKind::Modulate2x), Some((F::Dst, F::Src))),
            (BlendMode::BlendAdd, DrawPass::Blend(BlendKind::Premultiplied), Some((F::One, F::OneMinusSrcAlpha))),
        ];
        for (mode, pass, factors) in cases {
            assert_eq!(draw_pass(AlphaMode::Blend(mode), SeeThroughKind::Blended), pass, "{mode:?}");
            if let (DrawPass::Blend(kind), Some((src, dst))) = (pass, factors) {
                let state = pipelines::blend_state(kind);
                assert_eq!((state.color.src_factor, state.color.dst_factor), (src, dst), "{mode:?}");
                assert_eq!(state.color.operation, wgpu::BlendOperation::Add, "{mode:?}");
            }
        }
    }
}
