// Per-frame uniforms shared by every shader: the renderer puts this file in front of
// mesh.wgsl and lines.wgsl (see `render::MESH_WGSL`), so the struct exists once. Mirrored by
// `FrameUniforms` in src/render/gpu.rs; keep the two in step.

struct Frame {
    clip_from_world: mat4x4<f32>,
    eye_world: vec4<f32>,
    // xyz: unit direction towards the light; w: ambient level.
    light_dir_world: vec4<f32>,
    light_color: vec4<f32>,
    wire_color: vec4<f32>,
    highlight_color: vec4<f32>,
    // rgb: colour for materials with the chosen flag bit; a: how strongly it replaces the art.
    flag_tint: vec4<f32>,
    // x: textures on, y: lit, z: flag-bit mask (0 = off), w: unused.
    options: vec4<u32>,
    // x: how far lines are pulled towards the eye: depth is scaled by 1 + x (reversed depth,
    // so this is a fixed fraction of the distance at any zoom).
    line_params: vec4<f32>,
    // For sphere-mapped texture coordinates.
    view_from_world: mat4x4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;
