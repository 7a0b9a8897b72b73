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
pub mod gpu;
pub mod label;
pub mod offscreen;
pub mod overlays;
mod pipelines;
mod resources;
pub mod sheet;
pub mod textures;

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use image::RgbaImage;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

pub use camera::Camera;
use gpu::{DrawUniforms, FrameUniforms, LineVertex, MaterialUniforms};
use pipelines::{Layouts, PipelineKey, Shaders};
use resources::{
    DrawSlots, GpuMaterial, GpuMesh, GpuScene, GpuTexture, Targets, create_draw_slots, create_targets, upload_edges,
    upload_mesh, upload_texture,
};
use textures::SeeThroughKind;

use crate::scene::anim::Pose;
use crate::scene::{AlphaMode, BlendMode, Mesh, Scene, TextureWrap};

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

#[derive(Debug, Clone, Copy)]
struct DrawItem {
    mesh: u32,
    submesh: u32,
    slot: u32,
    material: u32,
    key: PipelineKey,
}

/// Where a blended surface falls in the back-to-front order: by priority plane (M2; 0
/// elsewhere), then by depth, then by material layer, so a layer drawn over its base on the
/// same triangles comes after it.
#[derive(Debug, Clone, Copy)]
struct BlendOrder {
    plane: i32,
    /// View-space z of the surface's centre; view space looks down -Z, so the most negative is
    /// the farthest and draws first.
    depth: f32,
    order: i32,
}

impl BlendOrder {
    fn new(material: &GpuMaterial, depth: f32) -> Self {
        Self { plane: material.draw_order.div_euclid(1 << 16), depth, order: material.draw_order }
    }

    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.plane.cmp(&other.plane).then(self.depth.total_cmp(&other.depth)).then(self.order.cmp(&other.order))
    }
}

/// Per-frame lists, kept between frames so steady-state frames allocate nothing.
#[derive(Default)]
struct FrameLists {
    opaque: Vec<DrawItem>,
    cutout: Vec<DrawItem>,
    blended: Vec<(BlendOrder, DrawItem)>,
    /// (mesh, slot) of meshes to draw as wireframe, and to highlight.
    wire: Vec<(u32, u32)>,
    highlight: Vec<(u32, u32)>,
    lines: Vec<LineVertex>,
    /// `lines[..grid_vertices]` is the ground grid.
    grid_vertices: u32,
    /// `lines[top_start..]` is drawn over everything (the skeleton, which sits inside meshes).
    top_start: u32,
    animation: resources::AnimationScratch,
    /// Per node: the selected node or one of its descendants.
    selected: Vec<bool>,
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
        let stride = (size_of::<DrawUniforms>() as u64)
            .next_multiple_of(u64::from(device.limits().min_uniform_buffer_offset_alignment.max(1)));
        let draws = create_draw_slots(device, &layouts.draw, stride, 16);
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

        let mut materials = Vec::with_capacity(scene.materials.len() + 1);
        for (index, material) in scene.materials.iter().enumerate() {
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

        let meshes: Vec<Option<GpuMesh>> =
            scene.meshes.iter().map(|mesh| upload_mesh(&self.device, mesh, default_material)).collect();
        report.meshes = meshes.iter().flatten().count();
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
            materials,
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

    /// The CPU half of a frame: writes the frame uniforms, one placement per visible mesh,
    /// animated vertex data, and overlay lines, and sorts the draw lists. Public so its cost
    /// can be measured apart from the GPU's.
    pub fn prepare(&mut self, scene: &Scene, pose: &Pose, view: &ViewParams) {
        let max_side = self.device.limits().max_texture_dimension_2d.max(1);
        let size = [view.size[0].clamp(1, max_side), view.size[1].clamp(1, max_side)];
        if self.targets.size != size {
            self.targets = create_targets(&self.device, size, self.sample_count);
        }
        let lists = &mut self.lists;
        lists.opaque.clear();
        lists.cutout.clear();
        lists.blended.clear();
        lists.wire.clear();
        lists.highlight.clear();
        lists.lines.clear();

        let [r, g, b, a] = gpu::linear_rgba(view.background);
        self.background = wgpu::Color { r: f64::from(r), g: f64::from(g), b: f64::from(b), a: f64::from(a) };

        let (bounds, radius) = match &self.scene {
            Some(s) => (s.bounds, s.radius),
            None => (crate::scene::Aabb::EMPTY, 1.0),
        };
        let aspect = size[0] as f32 / size[1] as f32;
        let view_from_world = view.camera.view_from_world();
        let clip_from_world = view.camera.clip_from_view(aspect, radius) * view_from_world;
        self.queue.write_buffer(
            &self.frame_buffer,
            0,
            bytemuck::bytes_of(&frame_uniforms(view, clip_from_world, view_from_world)),
        );

        let Some(gpu_scene) = self.scene.as_mut().filter(|s| s.mesh_count == scene.meshes.len()) else {
            return;
        };
        let GpuScene { meshes, materials, .. } = gpu_scene;
        mark_subtree(scene, view.selected_node, &mut lists.selected);
        update_material_uniforms(&self.queue, scene, pose, materials);

        // Placement slots: one per visible mesh.
        let stride = self.draws.stride as usize;
        self.draws.staging.clear();
        let mut slot = 0u32;
        for (mesh_index, (mesh, gpu_mesh)) in scene.meshes.iter().zip(meshes.iter_mut()).enumerate() {
            let Some(gpu_mesh) = gpu_mesh else { continue };
            if !mesh_visible(scene, pose, mesh) {
                continue;
            }
            let world_from_local = pose.mesh_world(scene, mesh_index);
            let mirrored = glam::Mat3::from_mat4(world_from_local).determinant() < 0.0;
            let placement = DrawUniforms::new(world_from_local);
            self.draws.staging.extend_from_slice(bytemuck::bytes_of(&placement));
            self.draws.staging.resize(slot as usize * stride + stride, 0);
            resources::update_animated_buffers(&self.queue, mesh, pose, mesh_index, gpu_mesh, &mut lists.animation);

            let mesh_u32 = mesh_index as u32;
            for (sub_index, sub) in gpu_mesh.submeshes.iter().enumerate() {
                let Some(material) = materials.get(sub.material) else { continue };
                // A surface whose final alpha (colour alpha × transparency) is 0 is not drawn,
                // whatever its blend mode: WoW Model Viewer leaves the pass when alpha <= 0,
                // wow.export skips the batch (`if (alpha <= 0) continue`).
                if material.uniforms.base_color[3] <= 0.0 {
                    continue;
                }
                let item = DrawItem {
                    mesh: mesh_u32,
                    submesh: sub_index as u32,
                    slot,
                    material: sub.material as u32,
                    key: material.pipeline_key(mirrored),
                };
                match material.pass {
                    DrawPass::Opaque => lists.opaque.push(item),
                    DrawPass::CutOut => lists.cutout.push(item),
                    DrawPass::Blend(_) => {
                        let center_view =
                            view_from_world.transform_point3(world_from_local.transform_point3(sub.center));
                        lists.blended.push((BlendOrder::new(material, center_view.z), item));
                    }
                }
            }
            if view.overlays.wireframe {
                lists.wire.push((mesh_u32, slot));
            }
            if mesh.node.is_some_and(|n| lists.selected.get(n).copied().unwrap_or(false)) {
                lists.highlight.push((mesh_u32, slot));
            }
            slot += 1;
        }
        lists.blended.sort_by(|a, b| a.0.cmp(&b.0));
        // Group opaque and cut-out draws by pipeline to save state changes.
        lists.opaque.sort_by_key(|i| {
            let plain = PipelineKey::Surface { pass: DrawPass::Opaque, cull: true, mirrored: false, depth_write: true };
            (i.key == plain, i.material)
        });
        lists.cutout.sort_by_key(|i| i.material);

        if slot > self.draws.capacity {
            let staging = std::mem::take(&mut self.draws.staging);
            self.draws =
                create_draw_slots(&self.device, &self.layouts.draw, self.draws.stride, slot.next_power_of_two());
            self.draws.staging = staging;
        }
        if !self.draws.staging.is_empty() {
            self.queue.write_buffer(&self.draws.buffer, 0, &self.draws.staging);
        }

        // Wireframe edges are built on first use and kept.
        for &(mesh_index, _) in lists.wire.iter().chain(&lists.highlight) {
            if let (Some(Some(gpu_mesh)), Some(mesh)) =
                (meshes.get_mut(mesh_index as usize), scene.meshes.get(mesh_index as usize))
                && gpu_mesh.edges.is_none()
            {
                gpu_mesh.edges = Some(upload_edges(&self.device, mesh));
            }
        }
        if view.overlays.grid {
            overlays::grid(&bounds, radius, &mut lists.lines);
        }
        lists.grid_vertices = lists.lines.len() as u32;
        build_overlay_lines(scene, pose, view, &lists.selected, &mut lists.lines);
        lists.top_start = lists.lines.len() as u32;
        if view.overlays.skeleton {
            build_skeleton_lines(scene, pose, view, &mut lists.lines);
        }
        if view.overlays.markers {
            let size = view.camera.distance.abs().max(1e-6) * 0.012;
            for (node, world) in scene.nodes.iter().zip(&pose.world) {
                if node.kind == crate::scene::NodeKind::Tag {
                    overlays::marker(world, size, overlays::colors::MARKER, &mut lists.lines);
                }
            }
        }

        // Pipelines used this frame that load_scene did not already compile.
        let mut keys: Vec<PipelineKey> = Vec::new();
        // Mirrored meshes' pipelines are compiled when one first appears.
        for item in lists.opaque.iter().chain(&lists.cutout).chain(lists.blended.iter().map(|(_, item)| item)) {
            if matches!(item.key, PipelineKey::Surface { mirrored: true, .. }) && !keys.contains(&item.key) {
                keys.push(item.key);
            }
        }
        if !lists.wire.is_empty() {
            keys.push(PipelineKey::Wire);
        }
        if !lists.highlight.is_empty() {
            keys.push(PipelineKey::Highlight);
        }
        // The grid and the on-top lines share the depth-ignoring line pipeline.
        if lists.grid_vertices > 0 || lists.lines.len() as u32 > lists.top_start {
            keys.push(PipelineKey::GridLines);
        }
        if lists.top_start > lists.grid_vertices {
            keys.push(PipelineKey::Lines);
        }
        if !lists.lines.is_empty() {
            let bytes: &[u8] = bytemuck::cast_slice(&lists.lines);
            let needed = bytes.len() as u64;
            if self.line_buffer.as_ref().is_none_or(|(_, capacity)| *capacity < needed) {
                let capacity = needed.next_power_of_two();
                let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("mdview overlay lines"),
                    size: capacity,
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.line_buffer = Some((buffer, capacity));
            }
            if let Some((buffer, _)) = &self.line_buffer {
                self.queue.write_buffer(buffer, 0, bytes);
            }
        }
        for key in keys {
            self.ensure_pipeline(key);
        }
    }

    /// Records the frame [`Renderer::prepare`] set up in a single render pass, submits it,
    /// and returns the colour view. [`Renderer::draw`] is `prepare` then `submit`.
    pub fn submit(&mut self) -> &wgpu::TextureView {
        self.encode_and_submit();
        &self.targets.color_view
    }

    fn encode_and_submit(&mut self) {
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("mdview frame") });
        {
            let (attachment, resolve_target, store) = match &self.targets.msaa_view {
                Some(msaa) => (msaa, Some(&self.targets.color_view), wgpu::StoreOp::Discard),
                None => (&self.targets.color_view, None, wgpu::StoreOp::Store),
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("mdview scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: attachment,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(self.background), store },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.targets.depth_view,
                    // Reversed depth: the far plane is 0.
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_bind_group, &[]);
            let line_count = self.lists.lines.len() as u32;
            let grid_count = self.lists.grid_vertices.min(line_count);
            if let (Some(pipeline), Some((buffer, _))) =
                (self.pipelines.get(&PipelineKey::GridLines), &self.line_buffer)
                && grid_count > 0
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..grid_count, 0..1);
            }
            if let Some(gpu_scene) = &self.scene {
                let lists = &self.lists;
                let items = lists.opaque.iter().chain(&lists.cutout).chain(lists.blended.iter().map(|(_, item)| item));
                let mut bound: Option<PipelineKey> = None;
                for item in items {
                    let (Some(Some(mesh)), Some(material)) =
                        (gpu_scene.meshes.get(item.mesh as usize), gpu_scene.materials.get(item.material as usize))
                    else {
                        continue;
                    };
                    let Some(sub) = mesh.submeshes.get(item.submesh as usize) else { continue };
                    if bound != Some(item.key) {
                        let Some(pipeline) = self.pipelines.get(&item.key) else { continue };
                        pass.set_pipeline(pipeline);
                        bound = Some(item.key);
                    }
                    pass.set_bind_group(1, &self.draws.bind_group, &[self.slot_offset(item.slot)]);
                    pass.set_bind_group(2, &material.bind_group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_vertex_buffer(1, mesh.uvs.slice(..));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(sub.indices.clone(), 0, 0..1);
                }
                for (key, list) in [(PipelineKey::Wire, &lists.wire), (PipelineKey::Highlight, &lists.highlight)] {
                    let Some(pipeline) = self.pipelines.get(&key).filter(|_| !list.is_empty()) else { continue };
                    pass.set_pipeline(pipeline);
                    for &(mesh_index, slot) in list {
                        let Some(Some(mesh)) = gpu_scene.meshes.get(mesh_index as usize) else { continue };
                        let Some((edges, count)) = &mesh.edges else { continue };
                        if *count == 0 {
                            continue;
                        }
                        pass.set_bind_group(1, &self.draws.bind_group, &[self.slot_offset(slot)]);
                        pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                        pass.set_index_buffer(edges.slice(..), wgpu::IndexFormat::Uint32);
                        pass.draw_indexed(0..*count, 0, 0..1);
                    }
                }
            }
            let top_start = self.lists.top_start.clamp(grid_count, line_count);
            if let (Some(pipeline), Some((buffer, _))) = (self.pipelines.get(&PipelineKey::Lines), &self.line_buffer)
                && top_start > grid_count
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(grid_count..top_start, 0..1);
            }
            if let (Some(pipeline), Some((buffer, _))) =
                (self.pipelines.get(&PipelineKey::GridLines), &self.line_buffer)
                && line_count > top_start
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(top_start..line_count, 0..1);
            }
        }
        self.queue.submit([encoder.finish()]);
    }

    fn slot_offset(&self, slot: u32) -> wgpu::DynamicOffset {
        (u64::from(slot) * self.draws.stride) as wgpu::DynamicOffset
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

/// Rewrites the uniforms of materials whose colour, alpha or texture transform the pose
/// changed since the last frame (and only those).
fn update_material_uniforms(queue: &wgpu::Queue, scene: &Scene, pose: &Pose, materials: &mut [GpuMaterial]) {
    for (index, gpu) in materials.iter_mut().enumerate().take(scene.materials.len()) {
        let color =
            pose.material_colors.get(index).copied().or_else(|| scene.materials.get(index).map(|m| m.base_color));
        let uv_rows =
            pose.uv_transforms.get(index).map_or(MaterialUniforms::IDENTITY_UV, |m| MaterialUniforms::uv_rows_of(*m));
        let mut wanted = gpu.uniforms;
        if let Some(color) = color {
            wanted.base_color = color.to_array();
        }
        wanted.uv_rows = uv_rows;
        if wanted != gpu.uniforms {
            queue.write_buffer(&gpu.buffer, 0, bytemuck::bytes_of(&wanted));
            gpu.uniforms = wanted;
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

fn frame_uniforms(view: &ViewParams, clip_from_world: Mat4, view_from_world: Mat4) -> FrameUniforms {
    let eye = view.camera.eye();
    let towards_eye = view.camera.eye_direction();
    let right = Vec3::Y.cross(towards_eye).try_normalize().unwrap_or(Vec3::X);
    // A key light above and a little left of the camera, so silhouettes read at any angle.
    let light = (towards_eye * 0.6 + Vec3::Y * 0.75 - right * 0.35).normalize_or(Vec3::Y);
    const AMBIENT: f32 = 0.38;
    FrameUniforms {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        eye_world: eye.extend(1.0).to_array(),
        light_dir_world: light.extend(AMBIENT).to_array(),
        light_color: [0.72, 0.70, 0.66, 1.0],
        wire_color: overlays::colors::WIRE,
        highlight_color: overlays::colors::HIGHLIGHT,
        flag_tint: [1.0, 0.25, 0.02, 0.7],
        options: [u32::from(view.textures), u32::from(view.lit), view.flag_bits.unwrap_or(0), 0],
        // Lines are pulled about 0.3% of their distance towards the eye.
        line_params: [0.003, 0.0, 0.0, 0.0],
        view_from_world: view_from_world.to_cols_array_2d(),
    }
}

/// A mesh is drawn when the node placing it is visible. Hiding does not reach a node's children
/// ([`crate::scene::anim::Pose::visible`]; TPW: "a hidden node does not hide what hangs off it").
fn mesh_visible(_scene: &Scene, pose: &Pose, mesh: &Mesh) -> bool {
    mesh.node.is_none_or(|node| pose.visible.get(node).copied().unwrap_or(true))
}

/// Marks `selected` and its descendants (all false when nothing is selected).
fn mark_subtree(scene: &Scene, selected: Option<usize>, out: &mut Vec<bool>) {
    out.clear();
    out.resize(scene.nodes.len(), false);
    let Some(root) = selected else { return };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match out.get_mut(node) {
            // Already marked: a malformed tree with a cycle stops here.
            Some(true) | None => continue,
            Some(mark) => *mark = true,
        }
        if let Some(n) = scene.nodes.get(node) {
            stack.extend(n.children.iter().copied());
        }
    }
}

/// Each skeleton's bones as lines between joint origins, placed by the first mesh it skins.
fn build_skeleton_lines(scene: &Scene, pose: &Pose, view: &ViewParams, out: &mut Vec<LineVertex>) {
    let mark = view.camera.distance.abs().max(1e-6) * 0.01;
    for (index, skeleton) in scene.skeletons.iter().enumerate() {
        let joints = pose.joints.get(index).map(Vec::as_slice).unwrap_or(&[]);
        let world = scene
            .meshes
            .iter()
            .position(|m| m.skin.as_ref().is_some_and(|s| s.skeleton == index))
            .map_or(Mat4::IDENTITY, |m| pose.mesh_world(scene, m));
        let parents: Vec<Option<usize>> = skeleton.joints.iter().map(|j| j.parent).collect();
        let pivots: Vec<Vec3> = skeleton.joints.iter().map(|j| j.pivot).collect();
        overlays::skeleton(&world, joints, &pivots, &parents, mark, out);
    }
}

/// Per-node boxes and axes, vertex normals, and the selected subtree's boxes and axes, in
/// world space. Axes and normals are sized by the camera distance, so they read the same
/// at any zoom and on models of any scale.
fn build_overlay_lines(scene: &Scene, pose: &Pose, view: &ViewParams, selected: &[bool], out: &mut Vec<LineVertex>) {
    let o = view.overlays;
    let any_selected = selected.iter().any(|&s| s);
    let is_selected = |node: Option<usize>| node.is_some_and(|n| selected.get(n).copied().unwrap_or(false));
    let gizmo = view.camera.distance.abs().max(1e-6);
    if o.bounds || o.normals || any_selected {
        for (mesh_index, mesh) in scene.meshes.iter().enumerate() {
            if !mesh_visible(scene, pose, mesh) {
                continue;
            }
            let world = pose.mesh_world(scene, mesh_index);
            let animated = pose.positions.get(mesh_index).and_then(Option::as_ref);
            let highlighted = is_selected(mesh.node);
            if o.bounds || highlighted {
                let mesh_bounds = match animated {
                    Some(positions) => crate::scene::Aabb::from_points(positions),
                    None => mesh.bounds,
                };
                let color = if highlighted { overlays::colors::HIGHLIGHT } else { overlays::colors::BOUNDS };
                overlays::oriented_box(&world, &mesh_bounds, color, out);
            }
            if o.normals {
                let positions = pose.mesh_positions(scene, mesh_index);
                let normals = pose.mesh_normals(scene, mesh_index);
                overlays::normals(&world, &positions, &normals, gizmo * 0.02, out);
            }
        }
    }
    if o.axes || any_selected {
        for (node, world) in pose.world.iter().enumerate() {
            // The selected node itself gets larger axes; its descendants their usual ones.
            let length = if view.selected_node == Some(node) {
                gizmo * 0.12
            } else if o.axes {
                gizmo * 0.05
            } else {
                continue;
            };
            overlays::axes(world, length, out);
        }
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
