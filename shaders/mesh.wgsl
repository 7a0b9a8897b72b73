// Surfaces of the format-neutral scene: one draw per submesh, instanced over the placements
// that share its geometry. Group 0 holds per-frame data, group 1 the material (texture,
// sampler, parameters), uploaded once. Each instance's placement comes from the per-instance
// vertex buffer (`Draw`, one entry per visible mesh, written each frame).
// Frame and its binding come from frame.wgsl, put in front of this file. The Rust side
// mirrors these structs in src/render/gpu.rs; keep the two in step.

// One placement, read per instance: the columns of world_from_local, then the columns of
// the inverse-transpose of its upper 3x3 (so sheared nodes light right), w unused.
struct Draw {
    @location(3) world0: vec4<f32>,
    @location(4) world1: vec4<f32>,
    @location(5) world2: vec4<f32>,
    @location(6) world3: vec4<f32>,
    @location(7) normal0: vec4<f32>,
    @location(8) normal1: vec4<f32>,
    @location(9) normal2: vec4<f32>,
};

fn world_from_local(d: Draw) -> mat4x4<f32> {
    return mat4x4<f32>(d.world0, d.world1, d.world2, d.world3);
}

fn normal_from_local(d: Draw) -> mat3x3<f32> {
    return mat3x3<f32>(d.normal0.xyz, d.normal1.xyz, d.normal2.xyz);
}

struct Material {
    base_color: vec4<f32>,
    flags: u32,
    two_sided: u32,
    unlit: u32,
    textured: u32,
    // The texture transform (M2 texture animation): u' = dot(row0.xy, uv) + row0.w, likewise v.
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
    // x: texture coordinates from a sphere map of the view-space reflection (M2 environment
    // mapping) instead of the mesh's UVs; y: which of the vertex's two UV sets; z: how the
    // second texture combines (0: there is none; see combine_layer); w: where the second
    // texture's coordinates come from (bit 0: the second UV set, bit 1: the sphere map).
    uv_source: vec4<u32>,
};

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_texture: texture_2d<f32>;
@group(1) @binding(2) var base_sampler: sampler;
@group(1) @binding(3) var layer_texture: texture_2d<f32>;
@group(1) @binding(4) var layer_sampler: sampler;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Both texture coordinate sets: (u0, v0, u1, v1).
    @location(2) uv: vec4<f32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_normal: vec3<f32>,
    @location(1) uv: vec4<f32>,
    @location(2) world_position: vec3<f32>,
};

@vertex
fn vs_mesh(v: VertexIn, draw: Draw) -> VertexOut {
    var out: VertexOut;
    let world = world_from_local(draw) * vec4<f32>(v.position, 1.0);
    out.clip = frame.clip_from_world * world;
    out.world_normal = normal_from_local(draw) * v.normal;
    out.uv = v.uv;
    out.world_position = world.xyz;
    return out;
}

// The second texture t over the colour c the first gave (LayerCombine in src/scene/material.rs
// numbers the ops): 1 multiplies the colour keeping alpha, 2 multiplies both, 3 adds both,
// 4 multiplies both 2x, 5 multiplies the colour 2x keeping alpha, 6 adds the colour keeping
// alpha, 7 adds the colour by t's alpha keeping alpha; 0 leaves c as it is.
fn combine_layer(c: vec4<f32>, t: vec4<f32>, op: u32) -> vec4<f32> {
    var out = c;
    switch op {
        case 1u: { out = vec4<f32>(c.rgb * t.rgb, c.a); }
        case 2u: { out = c * t; }
        case 3u: { out = c + t; }
        case 4u: { out = c * t * 2.0; }
        case 5u: { out = vec4<f32>(c.rgb * t.rgb * 2.0, c.a); }
        case 6u: { out = vec4<f32>(c.rgb + t.rgb, c.a); }
        case 7u: { out = vec4<f32>(c.rgb + t.rgb * t.a, c.a); }
        default: {}
    }
    return clamp(out, vec4<f32>(0.0), vec4<f32>(1.0));
}

// Lit, textured colour with straight alpha. Written without branches on per-fragment values,
// so the texture sample and derivatives stay in uniform control flow.
fn surface(in: VertexOut, front_facing: bool) -> vec4<f32> {
    // Sphere map, as OpenGL's GL_SPHERE_MAP: the view-space reflection r of the eye ray gives
    // (r.x, r.y) / m + 0.5 with m = 2·|r + (0, 0, 1)|; v runs down in our textures.
    let view_position = (frame.view_from_world * vec4<f32>(in.world_position, 1.0)).xyz;
    let view_normal = (frame.view_from_world * vec4<f32>(in.world_normal, 0.0)).xyz;
    let r = reflect(normalize(view_position), normalize(view_normal));
    let m = 2.0 * max(length(r + vec3<f32>(0.0, 0.0, 1.0)), 1e-4);
    let sphere_uv = vec2<f32>(r.x / m + 0.5, 0.5 - r.y / m);
    let mesh_uv = select(in.uv.xy, in.uv.zw, material.uv_source.y != 0u);
    let base_uv = select(mesh_uv, sphere_uv, material.uv_source.x != 0u);
    let uv = vec2<f32>(dot(material.uv_row0.xy, base_uv) + material.uv_row0.w, dot(material.uv_row1.xy, base_uv) + material.uv_row1.w);
    let texel = textureSample(base_texture, base_sampler, uv);
    // The second texture samples untransformed coordinates of its own (the texture transform
    // animates the first).
    let layer_mesh_uv = select(in.uv.xy, in.uv.zw, (material.uv_source.w & 1u) != 0u);
    let layer_uv = select(layer_mesh_uv, sphere_uv, (material.uv_source.w & 2u) != 0u);
    let layer = textureSample(layer_texture, layer_sampler, layer_uv);
    let use_texture = frame.options.x != 0u && material.textured != 0u;
    var rgb = material.base_color.rgb * select(vec3<f32>(0.8), texel.rgb, use_texture);
    // Alpha keeps the texture's shape even with textures off, so cut-outs stay cut out.
    var alpha = material.base_color.a * select(1.0, texel.a, material.textured != 0u);
    let layered = combine_layer(vec4<f32>(rgb, alpha), layer, select(0u, material.uv_source.z, use_texture));
    rgb = layered.rgb;
    alpha = layered.a;

    let mask = frame.options.z;
    let flagged = (material.flags & mask) != 0u;
    rgb = select(rgb, mix(rgb, frame.flag_tint.rgb, frame.flag_tint.a), flagged);
    rgb = select(rgb, rgb * 0.35, mask != 0u && !flagged);

    let raw_normal = in.world_normal * inverseSqrt(max(dot(in.world_normal, in.world_normal), 1e-12));
    let normal = select(raw_normal, -raw_normal, material.two_sided != 0u && !front_facing);
    let diffuse = max(dot(normal, frame.light_dir_world.xyz), 0.0);
    let light = vec3<f32>(frame.light_dir_world.w) + diffuse * frame.light_color.rgb;
    let lit = frame.options.y != 0u && material.unlit == 0u;
    return vec4<f32>(select(rgb, rgb * light, lit), alpha);
}

// Alpha ignored, even where the texture has it.
@fragment
fn fs_opaque(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return vec4<f32>(surface(in, front_facing).rgb, 1.0);
}

// Cut-out art without MSAA: alpha test at one half.
@fragment
fn fs_cutout(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let color = surface(in, front_facing);
    if color.a < 0.5 {
        discard;
    }
    return vec4<f32>(color.rgb, 1.0);
}

// Cut-out art under MSAA, drawn with alpha-to-coverage: alpha is sharpened to a one-pixel ramp
// around the 0.5 edge, so edges are antialiased but crisp instead of a dithered smear.
@fragment
fn fs_cutout_coverage(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let color = surface(in, front_facing);
    let ramp = max(fwidth(color.a), 1e-4);
    let coverage = clamp((color.a - 0.5) / ramp + 0.5, 0.0, 1.0);
    return vec4<f32>(color.rgb, coverage);
}

// True gradients and the M2 blend modes: the blend state does the rest.
@fragment
fn fs_blend(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return surface(in, front_facing);
}

// Wireframe over a mesh: the same placement, positions only, pulled slightly towards the eye
// so the lines win the depth test against their own surface.
struct WireOut {
    @builtin(position) clip: vec4<f32>,
};

@vertex
fn vs_wire(@location(0) position: vec3<f32>, draw: Draw) -> WireOut {
    var out: WireOut;
    let world = world_from_local(draw) * vec4<f32>(position, 1.0);
    var clip = frame.clip_from_world * world;
    clip.z = clip.z * (1.0 + frame.line_params.x);
    out.clip = clip;
    return out;
}

@fragment
fn fs_wire() -> @location(0) vec4<f32> {
    return frame.wire_color;
}

@fragment
fn fs_highlight() -> @location(0) vec4<f32> {
    return frame.highlight_color;
}
