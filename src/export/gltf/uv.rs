//! Texture animation: TPW UV keys that scroll a whole mesh become an animated
//! `KHR_texture_transform` offset: [`plan_scrolls`] finds them (before the materials, which
//! give a scrolling material its transform), [`copy_scrolled_materials`] gives each scrolling
//! mesh its own copy of a shared material, and [`scroll_channels`] writes a scroll's pointer
//! channels. Also the viewer's texture transform as glTF's offset, rotation and scale.

use glam::{Quat, Vec2, Vec3};

use super::animation::PointerChannel;
use super::document::{Notes, Writer};
use super::materials::{MaterialMap, mesh_uses_material};
use super::sampling::{clip_seconds, clip_times};
use crate::scene::anim::sample_vec2;
use crate::scene::{Channel, Clip, Scene};

/// A TPW UV animation that moves every render vertex of a mesh by one offset: written as an
/// animated `KHR_texture_transform` offset of the mesh's materials.
pub(super) struct UvScroll {
    pub(super) clip: usize,
    pub(super) mesh: usize,
    pub(super) seconds: Vec<f32>,
    pub(super) offsets: Vec<Vec2>,
}

/// Finds the TPW UV animations that are a scroll: every render vertex of the mesh moves by
/// one offset at every key time and between them. Those become an animated
/// `KHR_texture_transform` offset when `allowed` (it goes through `KHR_animation_pointer`);
/// glTF cannot key UVs per vertex, so other UV keys are noted as left out.
pub(super) fn plan_scrolls(scene: &Scene, allowed: bool, notes: &mut Notes) -> Vec<UvScroll> {
    let mut scrolls = Vec::new();
    for (c, clip) in scene.clips.iter().enumerate() {
        for channel in &clip.channels {
            let Channel::UvKeys { mesh, slots } = channel else { continue };
            match uniform_uv_offsets(scene, clip, *mesh, slots) {
                Some(_) if !allowed => notes.add(format!(
                    "clip {}: the UV scroll of mesh {mesh} left out (no KHR_animation_pointer, as asked)",
                    clip.name
                )),
                Some((times, offsets)) => {
                    let seconds = times.iter().map(|&t| clip_seconds(clip, t)).collect();
                    scrolls.push(UvScroll { clip: c, mesh: *mesh, seconds, offsets });
                }
                None => notes.add(format!(
                    "clip {}: UV keys of mesh {mesh} move its vertices unevenly; not exported (glTF cannot key UVs per vertex)",
                    clip.name
                )),
            }
        }
    }
    scrolls
}

/// A material that a scrolling mesh shares with other meshes gets a copy for that mesh, so
/// the scroll moves only its texture; `materials` learns the copies.
pub(super) fn copy_scrolled_materials(
    scene: &Scene,
    scrolls: &[UvScroll],
    materials: &mut MaterialMap,
    out: &mut Writer,
) {
    let mut scrolled: Vec<usize> = scrolls.iter().map(|s| s.mesh).collect();
    scrolled.sort_unstable();
    scrolled.dedup();
    for mesh in scrolled {
        for material in 0..scene.materials.len() {
            if !mesh_uses_material(scene, mesh, material) {
                continue;
            }
            let shared =
                (0..scene.meshes.len()).any(|other| other != mesh && mesh_uses_material(scene, other, material));
            if !shared {
                continue;
            }
            let Some(mut copy) = out.root.materials.get(material).cloned() else { continue };
            copy.name = Some(format!("{} (mesh {mesh})", copy.name.unwrap_or_default()));
            let index = out.root.push(copy).value() as u32;
            materials.transformable.push(materials.transformable.get(material).copied().unwrap_or(false));
            materials.mesh_copies.insert((mesh, material), index);
        }
    }
}

/// Offset pointer channels of a scroll, one per material of the mesh.
pub(super) fn scroll_channels(
    scene: &Scene,
    materials: &MaterialMap,
    scroll: &UvScroll,
    out: &mut Writer,
) -> Vec<PointerChannel> {
    let Some(clip) = scene.clips.get(scroll.clip) else { return Vec::new() };
    let values: Vec<f32> = scroll.offsets.iter().flat_map(|o| o.to_array()).collect();
    let mut channels = Vec::new();
    for material in 0..scene.materials.len() {
        if !mesh_uses_material(scene, scroll.mesh, material) {
            continue;
        }
        let gltf_material = materials.mesh_copies.get(&(scroll.mesh, material)).copied().unwrap_or(material as u32);
        if !materials.transformable.get(gltf_material as usize).copied().unwrap_or(false) {
            out.note(format!("clip {}: UV scroll of untextured material {material} dropped", clip.name));
            continue;
        }
        let input = out.times(&scroll.seconds);
        let output = out.floats(&values, 2, false, None);
        channels.push(PointerChannel {
            pointer: format!(
                "/materials/{gltf_material}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
            ),
            input,
            output,
        });
    }
    channels
}

/// The per-time UV offset of a TPW UV animation when it is one offset for every render vertex
/// of the mesh, checked at each key time and halfway between: `(times, offsets)` in clip units.
pub(super) fn uniform_uv_offsets(
    scene: &Scene,
    clip: &Clip,
    mesh: usize,
    slots: &[crate::scene::UvSlotKeys],
) -> Option<(Vec<f32>, Vec<Vec2>)> {
    let base = &scene.meshes.get(mesh)?.uvs;
    let mut covered = vec![false; base.len()];
    for entry in slots {
        *covered.get_mut(entry.slot as usize)? = true;
    }
    if base.is_empty() || covered.contains(&false) {
        return None;
    }
    let times = clip_times(clip, slots.iter().flat_map(|e| e.keys.iter().map(|k| k.time)), false);
    let offset_at = |t: f32| -> Option<Vec2> {
        let mut uvs = base.clone();
        for entry in slots {
            if let (Some(uv), Some(value)) = (uvs.get_mut(entry.slot as usize), sample_vec2(&entry.keys, t)) {
                *uv = value;
            }
        }
        let first = *uvs.first()? - *base.first()?;
        let uniform = uvs.iter().zip(base).all(|(uv, b)| (*uv - *b - first).abs().max_element() < 1e-4);
        uniform.then_some(first)
    };
    let mut offsets = Vec::with_capacity(times.len());
    for (i, &t) in times.iter().enumerate() {
        offsets.push(offset_at(t)?);
        if let Some(&next) = times.get(i + 1) {
            offset_at(0.5 * (t + next))?;
        }
    }
    Some((times, offsets))
}

/// The viewer's texture transform `T(t + c)·R·S·T(-c)` about the centre `c = (0.5, 0.5)` as
/// KHR_texture_transform's `T(offset)·R(rotation)·S(scale)`: offset, angle and scale.
pub(super) fn texture_transform(translation: Vec3, rotation: Quat, scale: Vec3) -> (Vec2, f32, Vec2) {
    let angle = 2.0 * rotation.z.atan2(rotation.w);
    let centre = Vec2::splat(0.5);
    let s = scale.truncate();
    let turned = Vec2::from_angle(angle).rotate(s * centre);
    (translation.truncate() + centre - turned, angle, s)
}
