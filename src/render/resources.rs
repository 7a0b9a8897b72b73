//! GPU resources: each model's buffers, textures and material bind groups (uploaded once), the
//! render targets, the per-frame placements (an instance buffer), and the writes that keep
//! animated meshes' vertex buffers in step with the pose.
//!
//! Meshes that repeat another's geometry ([`crate::scene::Scene::geometry_source`], a park's
//! repeated items) share its buffers: only the source is uploaded, and is never rewritten. A
//! copy (or copied source) whose vertices the pose moves gets buffers of its own the first
//! time it moves, rewritten while it moves.

use glam::Vec3;
use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::gpu::{DrawUniforms, MaterialUniforms, PositionNormal};
use super::{COLOR_FORMAT, DEPTH_FORMAT, DrawPass, overlays, textures};
use crate::scene::anim::Pose;
use crate::scene::{Mesh, Scene};

/// Reused buffers for animated vertex data, so steady-state frames allocate nothing.
#[derive(Default)]
pub(super) struct AnimationScratch {
    vertices: Vec<PositionNormal>,
    normals: Vec<Vec3>,
    uvs: Vec<[f32; 4]>,
}

/// A texture and its default view.
pub(super) struct GpuTexture {
    pub(super) _texture: wgpu::Texture,
    pub(super) view: wgpu::TextureView,
}

pub(super) struct GpuMaterial {
    pub(super) bind_group: wgpu::BindGroup,
    /// The uniform buffer behind `bind_group`, and what it holds now.
    pub(super) buffer: wgpu::Buffer,
    pub(super) uniforms: MaterialUniforms,
    pub(super) pass: DrawPass,
    pub(super) two_sided: bool,
    pub(super) depth_write: bool,
    /// [`crate::scene::Material::draw_order`]: priority plane × 65536 + material layer (M2).
    pub(super) draw_order: i32,
}

impl GpuMaterial {
    /// The pipeline a mesh drawn with this material takes; `mirrored`: its world matrix mirrors.
    pub(super) fn pipeline_key(&self, mirrored: bool) -> super::pipelines::PipelineKey {
        super::pipelines::PipelineKey::Surface {
            pass: self.pass,
            cull: !self.two_sided,
            mirrored,
            depth_write: self.depth_write && !matches!(self.pass, DrawPass::Blend(_)),
        }
    }
}

pub(super) struct GpuSubmesh {
    pub(super) indices: std::ops::Range<u32>,
    /// Index into `GpuScene::materials` (the last entry is the default material).
    pub(super) material: usize,
    /// Centre of the submesh's rest vertices in mesh space, for back-to-front sorting.
    pub(super) center: Vec3,
}

pub(super) struct GpuMesh {
    pub(super) vertex_count: usize,
    /// Positions and normals; rewritten while the pose morphs them.
    pub(super) vertices: wgpu::Buffer,
    pub(super) uvs: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) submeshes: Vec<GpuSubmesh>,
    /// Line-list indices of the unique edges, built the first time the wireframe shows.
    pub(super) edges: Option<(wgpu::Buffer, u32)>,
    /// Whether the buffers hold animated data that must be restored when the pose stops
    /// animating this mesh.
    pub(super) positions_animated: bool,
    pub(super) uvs_animated: bool,
}

pub(super) struct GpuScene {
    pub(super) mesh_count: usize,
    /// Per scene mesh; `None` for meshes with nothing to draw and for copies (which draw from
    /// their source's buffers).
    pub(super) meshes: Vec<Option<GpuMesh>>,
    /// Per scene mesh: the mesh whose buffers hold its rest geometry (itself unless a copy).
    pub(super) sources: Vec<u32>,
    /// Per scene mesh: its geometry is shared (a copy, or the source of one), so its buffers
    /// hold rest data for every sharer and are never rewritten.
    pub(super) shared: Vec<bool>,
    /// Buffers of their own for shared meshes the pose has moved, made on first movement.
    pub(super) own: std::collections::HashMap<u32, GpuMesh>,
    pub(super) materials: Vec<GpuMaterial>,
    /// `(material, image)` to the copy of that material drawn while its image cycle shows that
    /// image ([`crate::scene::ImageCycle`]); the copies follow the scene's materials.
    pub(super) image_variants: std::collections::HashMap<(usize, usize), usize>,
    /// Bounds of the rest pose and the radius of its bounding sphere.
    pub(super) bounds: crate::scene::Aabb,
    pub(super) radius: f32,
    pub(super) _textures: Vec<GpuTexture>,
}

impl GpuScene {
    /// The buffers a placement draws from.
    pub(super) fn geometry(&self, geometry: super::instances::Geometry) -> Option<&GpuMesh> {
        match geometry {
            super::instances::Geometry::Uploaded(m) => self.meshes.get(m as usize).and_then(Option::as_ref),
            super::instances::Geometry::Moved(m) => self.own.get(&m),
        }
    }
}

/// The offscreen attachments [`Renderer::draw`] renders into.
pub(super) struct Targets {
    pub(super) size: [u32; 2],
    pub(super) color: wgpu::Texture,
    pub(super) color_view: wgpu::TextureView,
    pub(super) msaa_view: Option<wgpu::TextureView>,
    pub(super) depth_view: wgpu::TextureView,
}

/// The per-visible-mesh placements, a per-instance vertex buffer ([`super::gpu::instance_layout`]);
/// the placements of one geometry's unmoved copies are contiguous, so one draw covers them.
pub(super) struct DrawSlots {
    pub(super) buffer: wgpu::Buffer,
    pub(super) capacity: u32,
    pub(super) staging: Vec<DrawUniforms>,
}

/// Per scene mesh, the mesh whose geometry it shares: [`Scene::geometry_source`] where that
/// source is a real earlier mesh that is no copy itself and has the same vertex and triangle
/// counts, else the mesh itself (so a malformed copy list costs memory, never a wrong draw).
pub(super) fn geometry_sources(scene: &Scene) -> Vec<u32> {
    (0..scene.meshes.len())
        .map(|m| {
            let source = scene.geometry_source(m);
            let same_shape = |a: &Mesh, b: &Mesh| a.vertex_count() == b.vertex_count() && a.triangles == b.triangles;
            let usable = source < m
                && scene.geometry_source(source) == source
                && scene.meshes.get(source).zip(scene.meshes.get(m)).is_some_and(|(a, b)| same_shape(a, b));
            if usable { source as u32 } else { m as u32 }
        })
        .collect()
}

/// Writes animated positions and UVs for meshes the pose animates, and puts the rest data back
/// once a mesh stops animating. Normals are the pose's own where it has them (Quake II's
/// normal table, skinned normals), else the rest normals of a mesh that keeps them (TPW's
/// stored table), else recomputed from the moved positions.
pub(super) fn update_animated_buffers(
    queue: &wgpu::Queue,
    mesh: &Mesh,
    pose: &Pose,
    mesh_index: usize,
    gpu_mesh: &mut GpuMesh,
    scratch: &mut AnimationScratch,
) {
    match pose.positions.get(mesh_index).and_then(Option::as_ref) {
        Some(positions) if positions.len() == gpu_mesh.vertex_count => {
            let normals = match pose.normals.get(mesh_index).and_then(Option::as_ref) {
                Some(normals) if normals.len() == positions.len() => normals,
                _ if mesh.keep_rest_normals && mesh.normals.len() == positions.len() => &mesh.normals,
                _ => {
                    crate::scene::compute_normals_into(positions, &mesh.triangles, &mut scratch.normals);
                    &scratch.normals
                }
            };
            scratch.vertices.clear();
            scratch.vertices.extend(
                positions
                    .iter()
                    .zip(normals)
                    .map(|(p, n)| PositionNormal { position: p.to_array(), normal: n.to_array() }),
            );
            queue.write_buffer(&gpu_mesh.vertices, 0, bytemuck::cast_slice(&scratch.vertices));
            gpu_mesh.positions_animated = true;
        }
        _ if gpu_mesh.positions_animated => {
            queue.write_buffer(&gpu_mesh.vertices, 0, bytemuck::cast_slice(&rest_vertices(mesh)));
            gpu_mesh.positions_animated = false;
        }
        _ => {}
    }
    match pose.uvs.get(mesh_index).and_then(Option::as_ref) {
        Some(uvs) if uvs.len() == gpu_mesh.vertex_count => {
            scratch.uvs.clear();
            // The animation moves the first set; the second stays at rest.
            scratch.uvs.extend(uvs.iter().enumerate().map(|(i, &uv)| both_uv_sets(uv, mesh.uvs1.get(i).copied())));
            queue.write_buffer(&gpu_mesh.uvs, 0, bytemuck::cast_slice(&scratch.uvs));
            gpu_mesh.uvs_animated = true;
        }
        _ if gpu_mesh.uvs_animated => {
            queue.write_buffer(&gpu_mesh.uvs, 0, bytemuck::cast_slice(&rest_uvs(mesh)));
            gpu_mesh.uvs_animated = false;
        }
        _ => {}
    }
}

pub(super) fn rest_vertices(mesh: &Mesh) -> Vec<PositionNormal> {
    // Validated: one normal per render vertex.
    mesh.render_positions()
        .iter()
        .zip(&mesh.normals)
        .map(|(p, n)| PositionNormal { position: p.to_array(), normal: n.to_array() })
        .collect()
}

/// Both texture coordinate sets of each render vertex, as one vertex attribute (the material
/// picks one); the first again where the mesh has no second.
pub(super) fn rest_uvs(mesh: &Mesh) -> Vec<[f32; 4]> {
    mesh.uvs.iter().enumerate().map(|(i, &uv)| both_uv_sets(uv, mesh.uvs1.get(i).copied())).collect()
}

fn both_uv_sets(first: glam::Vec2, second: Option<glam::Vec2>) -> [f32; 4] {
    let second = second.unwrap_or(first);
    [first.x, first.y, second.x, second.y]
}

/// Uploads one mesh of a validated scene; `None` when it has no vertices or triangles.
pub(super) fn upload_mesh(device: &wgpu::Device, mesh: &Mesh, default_material: usize) -> Option<GpuMesh> {
    let vertex_count = mesh.vertex_count();
    if vertex_count == 0 || mesh.triangles.is_empty() {
        return None;
    }
    let vertices = rest_vertices(mesh);
    let uvs = rest_uvs(mesh);
    // `Scene::validate` guarantees every index names a render vertex and every submesh range
    // and material exists, so they are uploaded as they are.
    let indices: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
    let triangle_count = mesh.triangles.len() as u32;
    let center_of = |first: u32, count: u32| {
        let tris = mesh.triangles.get(first as usize..(first + count) as usize).unwrap_or(&[]);
        let mut bounds = crate::scene::Aabb::EMPTY;
        for &i in tris.iter().flatten() {
            if let Some(v) = vertices.get(i as usize) {
                bounds.include(Vec3::from_array(v.position));
            }
        }
        if bounds.is_empty() { Vec3::ZERO } else { bounds.center() }
    };
    let mut submeshes: Vec<GpuSubmesh> = mesh
        .submeshes
        .iter()
        .filter(|sub| sub.triangle_count > 0)
        .map(|sub| GpuSubmesh {
            indices: sub.first_triangle * 3..(sub.first_triangle + sub.triangle_count) * 3,
            // A submesh without a material draws with the default one.
            material: sub.material.unwrap_or(default_material),
            center: center_of(sub.first_triangle, sub.triangle_count),
        })
        .collect();
    if mesh.submeshes.is_empty() {
        submeshes.push(GpuSubmesh {
            indices: 0..triangle_count * 3,
            material: default_material,
            center: center_of(0, triangle_count),
        });
    }
    let buffer = |label: &str, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
    };
    let dynamic = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
    Some(GpuMesh {
        vertex_count,
        vertices: buffer(&mesh.name, bytemuck::cast_slice(&vertices), dynamic),
        uvs: buffer(&mesh.name, bytemuck::cast_slice(&uvs), dynamic),
        indices: buffer(&mesh.name, bytemuck::cast_slice(&indices), wgpu::BufferUsages::INDEX),
        submeshes,
        edges: None,
        positions_animated: false,
        uvs_animated: false,
    })
}

pub(super) fn upload_edges(device: &wgpu::Device, mesh: &Mesh) -> (wgpu::Buffer, u32) {
    let vertex_count = mesh.vertex_count() as u32;
    let mut edges = overlays::unique_edges(&mesh.triangles);
    // Drop edges whose indices are out of range (the surface draws those as degenerate).
    let mut pairs: Vec<u32> = Vec::with_capacity(edges.len());
    for pair in edges.chunks_exact(2) {
        if pair.iter().all(|&i| i < vertex_count) {
            pairs.extend_from_slice(pair);
        }
    }
    edges = pairs;
    if edges.is_empty() {
        // A buffer may not be empty; a single degenerate edge draws nothing visible.
        edges = vec![0, 0];
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("mdview edges"),
        contents: bytemuck::cast_slice(&edges),
        usage: wgpu::BufferUsages::INDEX,
    });
    (buffer, edges.len() as u32)
}

/// Uploads an RGBA8 image as an sRGB texture with a full mip chain. Images larger than the
/// device allows are scaled down first.
pub(super) fn upload_texture(device: &wgpu::Device, queue: &wgpu::Queue, label: &str, image: &RgbaImage) -> GpuTexture {
    let max_side = device.limits().max_texture_dimension_2d.max(1);
    let scaled;
    let image = if image.width() > max_side || image.height() > max_side || image.width() == 0 || image.height() == 0 {
        let (w, h) = (image.width().clamp(1, max_side), image.height().clamp(1, max_side));
        scaled = if image.width() == 0 || image.height() == 0 {
            textures::fallback_tile()
        } else {
            image::imageops::resize(image, w, h, image::imageops::FilterType::Triangle)
        };
        &scaled
    } else {
        image
    };
    let mips = textures::mip_chain(image);
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d { width: image.width(), height: image.height(), depth_or_array_layers: 1 },
        mip_level_count: 1 + mips.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (level, pixels) in std::iter::once(image).chain(mips.iter()).enumerate() {
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            pixels.as_raw(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * pixels.width()),
                rows_per_image: Some(pixels.height()),
            },
            wgpu::Extent3d { width: pixels.width(), height: pixels.height(), depth_or_array_layers: 1 },
        );
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    GpuTexture { _texture: texture, view }
}

pub(super) fn create_targets(device: &wgpu::Device, size: [u32; 2], sample_count: u32) -> Targets {
    let extent = wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 };
    let attachment = |label, format, samples, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: extent,
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let color = attachment(
        "mdview colour",
        COLOR_FORMAT,
        1,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
    );
    let msaa_view = (sample_count > 1).then(|| {
        attachment("mdview colour msaa", COLOR_FORMAT, sample_count, wgpu::TextureUsages::RENDER_ATTACHMENT)
            .create_view(&wgpu::TextureViewDescriptor::default())
    });
    let depth = attachment("mdview depth", DEPTH_FORMAT, sample_count, wgpu::TextureUsages::RENDER_ATTACHMENT);
    Targets {
        size,
        color_view: color.create_view(&wgpu::TextureViewDescriptor::default()),
        color,
        msaa_view,
        depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
    }
}

pub(super) fn create_draw_slots(device: &wgpu::Device, capacity: u32) -> DrawSlots {
    let capacity = capacity.max(1);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("mdview placements"),
        size: size_of::<DrawUniforms>() as u64 * u64::from(capacity),
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    DrawSlots { buffer, capacity, staging: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    /// Each vertex carries (u0, v0, u1, v1); a mesh with no second set repeats its first.
    #[test]
    fn uv_buffers_hold_both_sets() {
        assert_eq!(both_uv_sets(Vec2::new(0.1, 0.2), Some(Vec2::new(0.7, 0.8))), [0.1, 0.2, 0.7, 0.8]);
        assert_eq!(both_uv_sets(Vec2::new(0.1, 0.2), None), [0.1, 0.2, 0.1, 0.2]);
    }
}
