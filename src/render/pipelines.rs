//! Render pipelines, their bind group layouts, and the blend states of the draw passes. Each
//! pipeline is keyed by what it draws and is built once, the first time a frame needs it.
//!
//! - Surfaces: opaque and cut-out passes write depth; blended passes test depth without
//!   writing it. Cut-outs use alpha-to-coverage under MSAA, an alpha test otherwise. Back faces
//!   are culled unless the material is two-sided.
//! - Every surface and wireframe draw is instanced: its placements (world and normal matrix)
//!   are a per-instance vertex buffer, so all unmoved copies of one geometry draw at once.
//! - Wireframe lines reuse a mesh's own vertex buffer with an edge index buffer; the selected
//!   node's edges are drawn on top of everything.
//! - Overlay lines are world-space line lists; the ground grid is drawn before the surfaces,
//!   without depth, so the model always covers it.
//!
//! Depth is reversed (near = 1): surfaces pass with `Greater`, lines with `GreaterEqual`.

use std::num::NonZeroU64;

use super::gpu::{self, FrameUniforms, MaterialUniforms};
use super::{BlendKind, COLOR_FORMAT, DEPTH_FORMAT, DrawPass};

/// The two shader modules, compiled once per renderer.
pub(super) struct Shaders {
    pub(super) mesh: wgpu::ShaderModule,
    pub(super) lines: wgpu::ShaderModule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum PipelineKey {
    Surface {
        pass: DrawPass,
        cull: bool,
        /// The mesh's world matrix mirrors (negative determinant), which reverses its winding
        /// on screen: clockwise is then the front face, as glTF and modelling tools have it.
        mirrored: bool,
        /// Opaque and cut-out surfaces write depth unless the material says not to (M2 render
        /// flag 0x10); blended ones never do.
        depth_write: bool,
    },
    Wire,
    Highlight,
    /// The ground grid, drawn before the surfaces so they cover it.
    GridLines,
    Lines,
}

pub(super) struct Layouts {
    pub(super) material: wgpu::BindGroupLayout,
    pub(super) surface: wgpu::PipelineLayout,
    pub(super) wire: wgpu::PipelineLayout,
    pub(super) lines: wgpu::PipelineLayout,
}

pub(super) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    dynamic: bool,
    size: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

/// The frame bind group layout (also used by the frame bind group) and the other layouts.
pub(super) fn create_layouts(device: &wgpu::Device) -> (wgpu::BindGroupLayout, Layouts) {
    let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("mdview frame"),
        entries: &[uniform_entry(
            0,
            wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            false,
            size_of::<FrameUniforms>(),
        )],
    });
    let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("mdview material"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::FRAGMENT, false, size_of::<MaterialUniforms>()),
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            // The second texture layer and its sampler (a 1x1 white where there is none).
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 4,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    });
    let pipeline_layout = |label, groups: &[Option<&wgpu::BindGroupLayout>]| {
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: groups,
            immediate_size: 0,
        })
    };
    let surface = pipeline_layout("mdview surface", &[Some(&frame_layout), Some(&material_layout)]);
    // Wireframes read only the frame and their placements (an instance buffer).
    let wire = pipeline_layout("mdview wire", &[Some(&frame_layout)]);
    let lines = pipeline_layout("mdview lines", &[Some(&frame_layout)]);
    let layouts = Layouts { material: material_layout, surface, wire, lines };
    (frame_layout, layouts)
}

/// Builds the pipeline for one key: see the module doc for what each draws.
pub(super) fn create_pipeline(
    device: &wgpu::Device,
    layouts: &Layouts,
    shaders: &Shaders,
    sample_count: u32,
    key: PipelineKey,
) -> wgpu::RenderPipeline {
    let msaa = sample_count > 1;
    let (layout, module, vertex_entry, fragment_entry) = match key {
        PipelineKey::Surface { pass, .. } => {
            let fragment = match pass {
                DrawPass::Opaque => "fs_opaque",
                DrawPass::CutOut if msaa => "fs_cutout_coverage",
                DrawPass::CutOut => "fs_cutout",
                DrawPass::Blend(_) => "fs_blend",
            };
            (&layouts.surface, &shaders.mesh, "vs_mesh", fragment)
        }
        PipelineKey::Wire => (&layouts.wire, &shaders.mesh, "vs_wire", "fs_wire"),
        PipelineKey::Highlight => (&layouts.wire, &shaders.mesh, "vs_wire", "fs_highlight"),
        PipelineKey::GridLines | PipelineKey::Lines => (&layouts.lines, &shaders.lines, "vs_line", "fs_line"),
    };
    // The placements come last, one per instance.
    let surface_buffers = [Some(gpu::position_normal_layout()), Some(gpu::uv_layout()), Some(gpu::instance_layout())];
    let wire_buffers = [Some(gpu::position_normal_layout()), Some(gpu::instance_layout())];
    let line_buffers = [Some(gpu::line_layout())];
    let (buffers, topology, cull_mode): (&[Option<wgpu::VertexBufferLayout>], _, _) = match key {
        PipelineKey::Surface { cull, .. } => {
            (&surface_buffers, wgpu::PrimitiveTopology::TriangleList, cull.then_some(wgpu::Face::Back))
        }
        PipelineKey::Wire | PipelineKey::Highlight => (&wire_buffers, wgpu::PrimitiveTopology::LineList, None),
        PipelineKey::GridLines | PipelineKey::Lines => (&line_buffers, wgpu::PrimitiveTopology::LineList, None),
    };
    // Reversed depth: nearer is greater.
    let (depth_write, depth_compare) = match key {
        // GreaterEqual: a blended layer over its base on the same triangles (M2 material
        // layers) passes at equal depth.
        PipelineKey::Surface { pass: DrawPass::Blend(_), .. } => (false, wgpu::CompareFunction::GreaterEqual),
        PipelineKey::Surface { depth_write, .. } => (depth_write, wgpu::CompareFunction::Greater),
        PipelineKey::Wire | PipelineKey::Lines => (false, wgpu::CompareFunction::GreaterEqual),
        PipelineKey::Highlight | PipelineKey::GridLines => (false, wgpu::CompareFunction::Always),
    };
    let blend = match key {
        PipelineKey::Surface { pass: DrawPass::Blend(kind), .. } => Some(blend_state(kind)),
        PipelineKey::GridLines | PipelineKey::Lines => Some(wgpu::BlendState::ALPHA_BLENDING),
        _ => None,
    };
    let alpha_to_coverage = msaa && matches!(key, PipelineKey::Surface { pass: DrawPass::CutOut, .. });
    let front_face = match key {
        PipelineKey::Surface { mirrored: true, .. } => wgpu::FrontFace::Cw,
        _ => wgpu::FrontFace::Ccw,
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(&format!("mdview {key:?}")),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vertex_entry),
            compilation_options: Default::default(),
            buffers,
        },
        primitive: wgpu::PrimitiveState { topology, front_face, cull_mode, ..Default::default() },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(depth_write),
            depth_compare: Some(depth_compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: sample_count,
            mask: !0,
            alpha_to_coverage_enabled: alpha_to_coverage,
        },
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fragment_entry),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: COLOR_FORMAT,
                blend,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

pub(super) fn blend_state(kind: BlendKind) -> wgpu::BlendState {
    use wgpu::{BlendComponent as C, BlendFactor as F, BlendOperation as Op};
    let component = |src_factor, dst_factor| C { src_factor, dst_factor, operation: Op::Add };
    // Additive and modulating modes leave the destination's coverage (alpha) as it was.
    let keep_alpha = component(F::Zero, F::One);
    match kind {
        BlendKind::Alpha => wgpu::BlendState {
            color: component(F::SrcAlpha, F::OneMinusSrcAlpha),
            alpha: component(F::One, F::OneMinusSrcAlpha),
        },
        BlendKind::Add => wgpu::BlendState { color: component(F::One, F::One), alpha: keep_alpha },
        BlendKind::AlphaAdd => wgpu::BlendState { color: component(F::SrcAlpha, F::One), alpha: keep_alpha },
        BlendKind::Modulate => wgpu::BlendState { color: component(F::Dst, F::Zero), alpha: keep_alpha },
        BlendKind::Modulate2x => wgpu::BlendState { color: component(F::Dst, F::Src), alpha: keep_alpha },
        BlendKind::Premultiplied => wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING,
    }
}
