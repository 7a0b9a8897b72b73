//! Plain-old-data mirrors of the WGSL structs in `shaders/*.wgsl`, and the vertex layouts.
//! Each struct is `#[repr(C)]` with explicit padding so bytemuck can check it, and its size
//! is pinned by a test against the shader's layout as naga computes it.

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Vec3};

/// Per frame: camera, light, overlay colours, options (`Frame` in the shaders).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct FrameUniforms {
    pub clip_from_world: [[f32; 4]; 4],
    pub eye_world: [f32; 4],
    /// xyz: unit direction towards the light; w: ambient level.
    pub light_dir_world: [f32; 4],
    pub light_color: [f32; 4],
    pub wire_color: [f32; 4],
    pub highlight_color: [f32; 4],
    pub flag_tint: [f32; 4],
    /// x: textures on, y: lit, z: flag-bit mask, w: unused.
    pub options: [u32; 4],
    /// x: line pull towards the eye, as a fraction of the distance (depth is scaled by 1 + x).
    pub line_params: [f32; 4],
    pub view_from_world: [[f32; 4]; 4],
}

/// Per visible mesh: its placement (`Draw` in the shaders), one entry of the per-instance
/// vertex buffer ([`instance_layout`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct DrawUniforms {
    pub world_from_local: [[f32; 4]; 4],
    /// Columns of a WGSL `mat3x3<f32>`, each padded to 16 bytes.
    pub normal_from_local: [[f32; 4]; 3],
}

impl DrawUniforms {
    /// The placement and its normal matrix: the inverse-transpose of the 3x3 part, so normals
    /// stay perpendicular under shear and non-uniform scale. A singular matrix (a node scaled
    /// flat) keeps its own 3x3, which at least points normals the right way.
    pub fn new(world_from_local: Mat4) -> Self {
        let linear = Mat3::from_mat4(world_from_local);
        let normal = if linear.determinant().abs() > 1e-12 { linear.inverse().transpose() } else { linear };
        let column = |c: Vec3| [c.x, c.y, c.z, 0.0];
        Self {
            world_from_local: world_from_local.to_cols_array_2d(),
            normal_from_local: [column(normal.x_axis), column(normal.y_axis), column(normal.z_axis)],
        }
    }
}

/// Per material (`Material` in the shaders): uploaded with the scene, and rewritten when the
/// pose animates the material's colour, alpha or texture transform.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MaterialUniforms {
    pub base_color: [f32; 4],
    pub flags: u32,
    pub two_sided: u32,
    pub unlit: u32,
    pub textured: u32,
    /// The texture transform's first two rows: `u' = dot(row0.xy, uv) + row0.w`, likewise v.
    pub uv_rows: [[f32; 4]; 2],
    /// x: 1 for sphere-mapped texture coordinates ([`crate::scene::Material::sphere_map`]);
    /// y: the texture coordinate set ([`crate::scene::Material::uv_set`]); z: the second
    /// texture's combine op ([`crate::scene::LayerCombine::shader_code`], 0 for none); w: where
    /// its coordinates come from (bit 0 the second UV set, bit 1 the sphere map).
    pub uv_source: [u32; 4],
}

impl MaterialUniforms {
    /// The rows of a `(u, v, 0, 1)` transform that the shader needs.
    pub fn uv_rows_of(transform: glam::Mat4) -> [[f32; 4]; 2] {
        [transform.row(0).to_array(), transform.row(1).to_array()]
    }

    pub const IDENTITY_UV: [[f32; 4]; 2] = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]];
}

/// A render vertex's position and normal; rewritten each frame for meshes whose vertices move.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct PositionNormal {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

/// One end of an overlay line; colour linear.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [f32; 4],
}

pub const POSITION_NORMAL_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
/// Both texture coordinate sets of a vertex: (u0, v0, u1, v1).
pub const UV_ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![2 => Float32x4];
/// A placement's seven columns (`Draw` in mesh.wgsl): the world matrix, then the normal matrix.
pub const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 7] = wgpu::vertex_attr_array![
    3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4,
    7 => Float32x4, 8 => Float32x4, 9 => Float32x4
];
pub const LINE_ATTRIBUTES: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

pub fn position_normal_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: size_of::<PositionNormal>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &POSITION_NORMAL_ATTRIBUTES,
    }
}

pub fn uv_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: size_of::<[f32; 4]>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &UV_ATTRIBUTES,
    }
}

/// One [`DrawUniforms`] per instance.
pub fn instance_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: size_of::<DrawUniforms>() as u64,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &INSTANCE_ATTRIBUTES,
    }
}

pub fn line_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: size_of::<LineVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &LINE_ATTRIBUTES,
    }
}

/// sRGB-encoded channel to linear, for colours the user states in sRGB.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

pub fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 }
}

/// An sRGB colour with straight alpha, converted to linear for the GPU.
pub fn linear_rgba(srgb: [f32; 4]) -> [f32; 4] {
    [srgb_to_linear(srgb[0]), srgb_to_linear(srgb[1]), srgb_to_linear(srgb[2]), srgb[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_sizes_are_multiples_of_16() {
        assert_eq!(size_of::<FrameUniforms>(), 256);
        assert_eq!(size_of::<DrawUniforms>(), 112);
        assert_eq!(size_of::<MaterialUniforms>(), 80);
    }

    #[test]
    fn normal_matrix_keeps_normals_perpendicular_under_shear() {
        let shear =
            Mat4::from_cols_array(&[1.0, 0.0, 0.0, 0.0, 0.7, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        let uniforms = DrawUniforms::new(shear);
        let n = uniforms.normal_from_local;
        let normal_matrix = Mat3::from_cols(
            Vec3::new(n[0][0], n[0][1], n[0][2]),
            Vec3::new(n[1][0], n[1][1], n[1][2]),
            Vec3::new(n[2][0], n[2][1], n[2][2]),
        );
        // Tangents of some surface, and its normal; after the shear the transformed normal
        // must stay perpendicular to the transformed tangents.
        let (tangent_a, tangent_b) = (Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 1.0));
        let normal = normal_matrix * tangent_a.cross(tangent_b);
        assert!(normal.dot(shear.transform_vector3(tangent_a)).abs() < 1e-5);
        assert!(normal.dot(shear.transform_vector3(tangent_b)).abs() < 1e-5);
    }
}
