// World-space overlay lines (normals, bounds, node axes, ground grid), built on the CPU each
// frame while an overlay is on. Colours arrive linear. Frame and its binding come from
// frame.wgsl, put in front of this file.

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_line(v: LineIn) -> LineOut {
    var out: LineOut;
    var clip = frame.clip_from_world * vec4<f32>(v.position, 1.0);
    // Pulled slightly towards the eye so lines lying on surfaces stay visible: with reversed
    // depth, scaling z up moves a point nearer by a fixed fraction of its distance.
    clip.z = clip.z * (1.0 + frame.line_params.x);
    out.clip = clip;
    out.color = v.color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
