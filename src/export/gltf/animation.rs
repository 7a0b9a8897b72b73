//! Animations: one per clip ([`write()`]), its samplers and channels, the pointer channels of
//! material colours and texture transforms, and the rest-value keys that hold what a clip
//! leaves alone ([`hold_unkeyed_targets`]). Clips are written from the maps the earlier parts
//! handed on ([`Maps`]); node and joint motion is [`super::motion`]'s.

use std::collections::HashMap;

use glam::{Quat, Vec3, Vec4};
use gltf_json as json;
use json::validation::Checked::Valid;
use serde_json::Value;

use super::decompose::Trs;
use super::document::Writer;
use super::index;
use super::materials::MaterialMap;
use super::meshes::MeshMap;
use super::morphs::{MorphPlan, one_hot_weights};
use super::motion;
use super::nodes::NodeMap;
use super::sampling::{Sampling, clip_seconds, clip_times, track_times};
use super::skins::Joints;
use super::uv::{self, UvScroll, texture_transform};
use crate::scene::anim::sample_curve;
use crate::scene::{Channel, Clip, Scene};

/// A channel that gltf-json cannot express, added to the serialised JSON.
pub(super) struct PointerChannel {
    pub(super) pointer: String,
    pub(super) input: u32,
    pub(super) output: u32,
}

/// What the clips are written from: the maps the earlier parts handed on.
pub(super) struct Maps<'a> {
    pub(super) nodes: &'a NodeMap,
    pub(super) joints: &'a Joints,
    pub(super) meshes: &'a MeshMap,
    pub(super) materials: &'a MaterialMap,
    pub(super) morphs: &'a [MorphPlan],
    pub(super) scrolls: &'a [UvScroll],
}

/// Where one clip's channels go: the document, the sample budget every clip draws on, and the
/// clip's animation being filled.
pub(super) struct ClipWriter<'a> {
    pub(super) out: &'a mut Writer,
    pub(super) sampling: &'a mut Sampling,
    pub(super) animation: json::Animation,
}

/// A sampler of `animation` from `seconds` to accessor `output`; channels sampled at the same
/// times (a node's T, R and S) share one input accessor ([`Writer::shared_times`]).
fn sampler(
    out: &mut Writer,
    animation: &mut json::Animation,
    seconds: &[f32],
    output: u32,
    step: bool,
) -> json::Index<json::animation::Sampler> {
    let input = out.shared_times(seconds);
    let interpolation =
        if step { json::animation::Interpolation::Step } else { json::animation::Interpolation::Linear };
    animation.samplers.push(json::animation::Sampler {
        extensions: None,
        extras: None,
        input: index(input),
        interpolation: Valid(interpolation),
        output: index(output),
    });
    index(animation.samplers.len() as u32 - 1)
}

/// A channel of `animation` that drives `path` of glTF node `node` from accessor `output`.
fn channel(
    out: &mut Writer,
    animation: &mut json::Animation,
    node: u32,
    path: json::animation::Property,
    seconds: &[f32],
    output: u32,
    step: bool,
) {
    let sampler = sampler(out, animation, seconds, output, step);
    animation.channels.push(json::animation::Channel {
        sampler,
        target: json::animation::Target { extensions: None, extras: None, node: index(node), path: Valid(path) },
        extensions: None,
        extras: None,
    });
}

impl ClipWriter<'_> {
    pub(super) fn channel(
        &mut self,
        node: u32,
        path: json::animation::Property,
        seconds: &[f32],
        output: u32,
        step: bool,
    ) {
        channel(self.out, &mut self.animation, node, path, seconds, output, step);
    }

    /// Rotation keys, each in the hemisphere of the one before (so slerp and nlerp both take
    /// the short way, see [`super::blend`]).
    pub(super) fn rotations(&mut self, node: u32, seconds: &[f32], values: &[Quat]) {
        let mut flat = Vec::with_capacity(values.len() * 4);
        let mut previous: Option<Quat> = None;
        for q in values {
            let mut q = q.normalize();
            if previous.is_some_and(|p| p.dot(q) < 0.0) {
                q = -q;
            }
            previous = Some(q);
            flat.extend_from_slice(&q.to_array());
        }
        let out = self.out.floats(&flat, 4, false, None);
        self.channel(node, json::animation::Property::Rotation, seconds, out, false);
    }

    pub(super) fn vectors(
        &mut self,
        node: u32,
        path: json::animation::Property,
        seconds: &[f32],
        values: &[Vec3],
        step: bool,
    ) {
        let out = self.out.vec3s(values, false, None);
        self.channel(node, path, seconds, out, step);
    }

    /// Translation channels on `moved`, rotation and scale on `turned` (the same node but for a
    /// sheared node's chain).
    pub(super) fn trs_channels(&mut self, [moved, turned]: [u32; 2], seconds: &[f32], locals: &[Trs]) {
        use json::animation::Property;
        let t: Vec<Vec3> = locals.iter().map(|l| l.translation).collect();
        let r: Vec<Quat> = locals.iter().map(|l| l.rotation).collect();
        let s: Vec<Vec3> = locals.iter().map(|l| l.scale).collect();
        self.vectors(moved, Property::Translation, seconds, &t, false);
        self.rotations(turned, seconds, &r);
        self.vectors(turned, Property::Scale, seconds, &s, false);
    }
}

/// Each clip as an animation named like it; a clip with nothing this file can animate is left
/// out, with a note. Returns the pointer channels of each animation written, in order.
pub(super) fn write(scene: &Scene, maps: &Maps, sampling: &mut Sampling, out: &mut Writer) -> Vec<Vec<PointerChannel>> {
    let mut pointer_channels = Vec::new();
    for c in 0..scene.clips.len() {
        pointer_channels.extend(write_clip(scene, maps, c, sampling, out));
    }
    pointer_channels
}

/// Clip `c` as an animation, pushed to the document with its pointer channels returned;
/// `None` when nothing in it can be animated.
fn write_clip(
    scene: &Scene,
    maps: &Maps,
    c: usize,
    sampling: &mut Sampling,
    out: &mut Writer,
) -> Option<Vec<PointerChannel>> {
    use json::animation::Property;
    let clip = scene.clips.get(c)?;
    let animation = json::Animation {
        extensions: None,
        extras: None,
        channels: Vec::new(),
        name: Some(clip.name.clone()),
        samplers: Vec::new(),
    };
    let mut w = ClipWriter { out, sampling, animation };
    let mut pointers = Vec::new();
    let seconds_of = |times: &[f32]| -> Vec<f32> { times.iter().map(|&t| clip_seconds(clip, t)).collect() };
    let mut materials_colored: Vec<usize> = Vec::new();
    // Nodes anchored to a face of a mesh this clip morphs ride it: their motion is sampled
    // from the viewer's pose at the mesh's keys.
    let riders = (0..scene.nodes.len()).filter(|&node| motion::ridden_keys(scene, maps.morphs, c, node).is_some());
    let mut moved_nodes: Vec<usize> = clip.channels.iter().filter_map(Channel::moved_node).chain(riders).collect();
    moved_nodes.sort_unstable();
    moved_nodes.dedup();
    for node in moved_nodes {
        motion::node_motion(&mut w, scene, c, node, maps.nodes, maps.morphs);
    }
    let mut switched: Vec<usize> = clip
        .channels
        .iter()
        .filter_map(|c| match c {
            Channel::NodeVisibility { node, .. } => Some(*node),
            _ => None,
        })
        .collect();
    switched.sort_unstable();
    switched.dedup();
    for node in switched {
        motion::node_visibility(&mut w, maps.nodes, clip, node);
    }
    for channel in &clip.channels {
        match channel {
            // All of a node's visibility channels at once (the hide list and its track).
            Channel::NodeVisibility { .. } => {}
            // Node motion is written above, vertex motion as morph targets (`morphs::plan`),
            // UV keys as texture-transform scrolls (`uv::plan_scrolls`).
            Channel::NodeRotation { .. }
            | Channel::NodeRotationEased { .. }
            | Channel::NodePosition { .. }
            | Channel::NodeAxisScale { .. }
            | Channel::NodePathProgress { .. }
            | Channel::NodeFrames { .. }
            | Channel::VertexMorph { .. }
            | Channel::VertexFrames { .. }
            | Channel::PackedFrames(_)
            | Channel::UvKeys { .. } => {}
            Channel::BoneFrames { skeleton, times, frames } => {
                motion::bone_frames(&mut w, scene, maps.joints, clip, *skeleton, times, frames);
            }
            Channel::BoneTracks { skeleton, joints } => {
                motion::bone_tracks(&mut w, scene, maps.joints, clip, *skeleton, joints);
            }
            Channel::MaterialColor { material, .. } | Channel::MaterialAlpha { material, .. } => {
                if !materials_colored.contains(material) {
                    materials_colored.push(*material);
                }
            }
            Channel::UvTransform { material, translation, rotation, scale, time } => {
                if !maps.materials.transformable.get(*material).copied().unwrap_or(false) {
                    w.out.note(format!(
                        "clip {}: texture transform of untextured material {material} dropped",
                        clip.name
                    ));
                    continue;
                }
                let mut key_times = track_times(clip, translation.keys.iter().map(|k| k.time), time[0]);
                key_times.extend(track_times(clip, rotation.keys.iter().map(|k| k.time), time[1]));
                key_times.extend(track_times(clip, scale.keys.iter().map(|k| k.time), time[2]));
                let times = w.sampling.take(clip_times(clip, key_times, true));
                if times.is_empty() {
                    continue;
                }
                let seconds = seconds_of(&times);
                let (mut offsets, mut rotations, mut scales) = (Vec::new(), Vec::new(), Vec::new());
                for &t in &times {
                    let tr = sample_curve(translation, time[0].apply(t, t)).unwrap_or(Vec3::ZERO);
                    let r = sample_curve(rotation, time[1].apply(t, t)).unwrap_or(Quat::IDENTITY);
                    let s = sample_curve(scale, time[2].apply(t, t)).unwrap_or(Vec3::ONE);
                    let (offset, angle, scale) = texture_transform(tr, r, s);
                    offsets.extend_from_slice(&offset.to_array());
                    rotations.push(angle);
                    scales.extend_from_slice(&scale.to_array());
                }
                let base = format!(
                    "/materials/{material}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform"
                );
                for (suffix, values, width) in
                    [("offset", offsets, 2), ("rotation", rotations, 1), ("scale", scales, 2)]
                {
                    let input = w.out.times(&seconds);
                    let output = w.out.floats(&values, width, false, None);
                    pointers.push(PointerChannel { pointer: format!("{base}/{suffix}"), input, output });
                }
            }
        }
    }
    for material in materials_colored {
        if let Some(p) = material_color(&mut w, scene, clip, material) {
            pointers.push(p);
        }
    }
    for scroll in maps.scrolls.iter().filter(|s| s.clip == c) {
        pointers.extend(uv::scroll_channels(scene, maps.materials, scroll, w.out));
    }
    // Morph weights, one channel per mesh that a vertex channel moves in this clip.
    for m in 0..scene.meshes.len() {
        let (Some(node), Some(plan)) = (maps.meshes.holders.get(m).copied().flatten(), maps.morphs.get(m)) else {
            continue;
        };
        let Some(keys) = plan.keys.get(&c) else { continue };
        let target_count = plan.targets.len();
        if keys.is_empty() || target_count == 0 {
            continue;
        }
        let seconds: Vec<f32> = keys.iter().map(|&(t, _)| clip_seconds(clip, t)).collect();
        let output = one_hot_weights(w.out, keys, target_count);
        w.channel(node, Property::MorphTargetWeights, &seconds, output, false);
    }
    let ClipWriter { out, animation, .. } = w;
    if animation.channels.is_empty() && pointers.is_empty() {
        out.note(format!("clip {}: nothing this file can animate; left out", clip.name));
        return None;
    }
    if !pointers.is_empty() {
        out.use_extension("KHR_animation_pointer");
    }
    out.root.push(animation);
    Some(pointers)
}

/// Gives each animation a one-key channel holding the rest value of every target another
/// animation keys and it does not (a Quake II weapon in the clips it has no frames for, a
/// door a TPW clip leaves alone), as the viewer poses them: glTF players and Blender keep
/// whatever the last animation left in a property an animation does not key.
pub(super) fn hold_unkeyed_targets(pointer_channels: &mut [Vec<PointerChannel>], out: &mut Writer) {
    use json::animation::Property;
    let targets = |a: &json::Animation| -> Vec<(u32, Property)> {
        let valid = |c: &json::animation::Channel| match &c.target.path {
            Valid(path) => Some((c.target.node.value() as u32, *path)),
            _ => None,
        };
        a.channels.iter().filter_map(valid).collect()
    };
    let mut keyed: Vec<(u32, Property)> = out.root.animations.iter().flat_map(targets).collect();
    keyed.sort_by_key(|(node, path)| (*node, format!("{path:?}")));
    keyed.dedup();
    let mut pointers: Vec<String> = pointer_channels.iter().flatten().map(|p| p.pointer.clone()).collect();
    pointers.sort();
    pointers.dedup();
    if out.root.animations.len() < 2 || (keyed.is_empty() && pointers.is_empty()) {
        return;
    }
    let start = out.new_shared_times(&[0.0]);
    let mut held: HashMap<String, u32> = HashMap::new();
    for a in 0..out.root.animations.len() {
        let Some(slot) = out.root.animations.get_mut(a) else { continue };
        let empty =
            json::Animation { extensions: None, extras: None, channels: Vec::new(), name: None, samplers: Vec::new() };
        let mut animation = std::mem::replace(slot, empty);
        let own = targets(&animation);
        for (node, path) in &keyed {
            if own.contains(&(*node, *path)) {
                continue;
            }
            let key = format!("{node} {path:?}");
            let output = match held.get(&key) {
                Some(&output) => output,
                None => {
                    let value = rest_value(&out.root, *node, path);
                    // Weights are scalars, one per target; the rest one value of its width.
                    let width = if *path == Property::MorphTargetWeights { 1 } else { value.len().max(1) };
                    let output = out.floats(&value, width, false, None);
                    held.insert(key, output);
                    output
                }
            };
            channel(out, &mut animation, *node, *path, &[0.0], output, false);
        }
        if let Some(slot) = out.root.animations.get_mut(a) {
            *slot = animation;
        }
        let own_pointers: Vec<String> =
            pointer_channels.get(a).map(|p| p.iter().map(|c| c.pointer.clone()).collect()).unwrap_or_default();
        for pointer in &pointers {
            if own_pointers.contains(pointer) {
                continue;
            }
            let value = rest_pointer_value(&out.root, pointer);
            let output = out.floats(&value, value.len().max(1), false, None);
            if let Some(list) = pointer_channels.get_mut(a) {
                list.push(PointerChannel { pointer: pointer.clone(), input: start, output });
            }
        }
    }
}

/// The rest value of a node's property, as the node was written (weights: the mesh's own).
fn rest_value(root: &json::Root, node: u32, path: &json::animation::Property) -> Vec<f32> {
    use json::animation::Property;
    let Some(n) = root.nodes.get(node as usize) else { return Vec::new() };
    match path {
        Property::Translation => n.translation.unwrap_or([0.0; 3]).to_vec(),
        Property::Rotation => n.rotation.map_or([0.0, 0.0, 0.0, 1.0], |r| r.0).to_vec(),
        Property::Scale => n.scale.unwrap_or([1.0; 3]).to_vec(),
        Property::MorphTargetWeights => {
            let mesh = n.mesh.and_then(|m| root.meshes.get(m.value()));
            let targets = mesh.and_then(|m| m.primitives.first()).and_then(|p| p.targets.as_ref()).map_or(0, Vec::len);
            mesh.and_then(|m| m.weights.clone()).unwrap_or_else(|| vec![0.0; targets])
        }
    }
}

/// The rest value of a material property an animation pointer names: as the material was
/// written, else the property's default (a texture transform's identity, a white factor).
fn rest_pointer_value(root: &json::Root, pointer: &str) -> Vec<f32> {
    let written =
        pointer.strip_prefix("/materials/").and_then(|rest| rest.split_once('/')).and_then(|(index, path)| {
            let material = root.materials.get(index.parse::<usize>().ok()?)?;
            serde_json::to_value(material).ok()?.pointer(&format!("/{path}")).cloned()
        });
    let numbers = |v: &Value| -> Vec<f32> {
        match v {
            Value::Array(items) => items.iter().filter_map(Value::as_f64).map(|x| x as f32).collect(),
            other => other.as_f64().map(|x| vec![x as f32]).unwrap_or_default(),
        }
    };
    match written.as_ref().map(numbers).filter(|v| !v.is_empty()) {
        Some(value) => value,
        None if pointer.ends_with("/offset") => vec![0.0, 0.0],
        None if pointer.ends_with("/rotation") => vec![0.0],
        None if pointer.ends_with("/scale") => vec![1.0, 1.0],
        None => vec![1.0, 1.0, 1.0, 1.0],
    }
}

/// M2 colour and alpha tracks of one material as its animated `baseColorFactor`: the last
/// colour channel's RGB and the product of the alpha channels, as the viewer combines them.
fn material_color(w: &mut ClipWriter, scene: &Scene, clip: &Clip, material: usize) -> Option<PointerChannel> {
    let base = scene.materials.get(material)?.base_color;
    let mut key_times = Vec::new();
    let mut cubic = false;
    for channel in &clip.channels {
        match channel {
            Channel::MaterialColor { material: m, keys, time } if *m == material => {
                key_times.extend(track_times(clip, keys.keys.iter().map(|k| k.time), *time));
                cubic |= !matches!(keys.interpolation, crate::scene::Interpolation::Linear);
            }
            Channel::MaterialAlpha { material: m, keys, time } if *m == material => {
                key_times.extend(track_times(clip, keys.keys.iter().map(|k| k.time), *time));
                cubic |= !matches!(keys.interpolation, crate::scene::Interpolation::Linear);
            }
            _ => {}
        }
    }
    let times = w.sampling.take(clip_times(clip, key_times, cubic));
    if times.is_empty() {
        return None;
    }
    let mut values = Vec::with_capacity(times.len() * 4);
    for &t in &times {
        let mut color = base;
        let mut alpha_set = false;
        for channel in &clip.channels {
            match channel {
                Channel::MaterialColor { material: m, keys, time } if *m == material => {
                    if let Some(rgb) = sample_curve(keys, time.apply(t, t)) {
                        color = rgb.extend(color.w);
                    }
                }
                Channel::MaterialAlpha { material: m, keys, time } if *m == material => {
                    if let Some(a) = sample_curve(keys, time.apply(t, t)) {
                        color.w = if alpha_set { color.w * a } else { a };
                        alpha_set = true;
                    }
                }
                _ => {}
            }
        }
        values.extend_from_slice(&color.clamp(Vec4::ZERO, Vec4::ONE).to_array());
    }
    // A track that holds the material's own colour all clip long (an M2 unit's constant
    // transparency weight) needs no channel: the material already says it, and a reader
    // without KHR_animation_pointer (assimp) can then load the file.
    let rest = base.clamp(Vec4::ZERO, Vec4::ONE).to_array();
    if values.chunks_exact(4).all(|c| c.iter().zip(&rest).all(|(v, r)| (v - r).abs() <= 1e-6)) {
        return None;
    }
    let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
    let input = w.out.times(&seconds);
    let output = w.out.floats(&values, 4, false, None);
    Some(PointerChannel {
        pointer: format!("/materials/{material}/pbrMetallicRoughness/baseColorFactor"),
        input,
        output,
    })
}
