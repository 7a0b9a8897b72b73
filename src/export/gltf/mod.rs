//! glTF 2.0 export of a whole scene with every clip: `.glb` (one file) or `.gltf` + `.bin`.
//! It reads only the scene (never a format module): nodes become TRS nodes (sheared ones a
//! chain, see [`decompose`]), meshes keep their render vertices, textures are embedded as PNG,
//! skinned meshes get skins, and each clip becomes an animation named like the clip.
//!
//! Channels are written at their key times, clamped to the clip, with the values the viewer's
//! own samplers give there, so linear keys come out exact. Curves the viewer plays cubically
//! (M2 Hermite and Bezier keys) and joint translations with folded pivots are sampled on a
//! grid as well. Times are seconds from the clip's start: `(t - clip.start) / clip.rate`.
//! Material colours and texture transforms go through `KHR_animation_pointer`.
//!
//! [`build_with`] is a pipeline of parts. Each is a function that takes the scene, the maps
//! earlier parts returned and the one `Writer` (`document`: the JSON, the binary buffer, the
//! notes and the extensions used, which every part writes into), and returns its own typed map;
//! no part reaches into another's state. In order: `uv::plan_scrolls` gives the UV scrolls,
//! `materials::write` a `MaterialMap` (which `uv::copy_scrolled_materials` extends with each
//! scrolling mesh's copies), `nodes::write` a `NodeMap`, `skins::write` the `Joints`,
//! `morphs::plan` a `MorphPlan` per mesh, `meshes::write` a `MeshMap`; `nodes::link` then
//! hangs nodes, joints and meshes in one tree. `animation::write` writes the clips from those
//! maps (node and joint motion is `motion`'s), drawing sample times from one `sampling` budget,
//! and returns each animation's pointer channels; `animation::hold_unkeyed_targets` evens out
//! what the animations key. `Writer::finish` makes the [`Document`], and `document` writes it
//! as `.glb` or `.gltf` + `.bin`.

mod animation;
mod blend;
pub mod decompose;
mod document;
mod materials;
mod meshes;
mod morphs;
mod motion;
mod nodes;
mod sampling;
mod skins;
mod uv;

use anyhow::Result;
use gltf_json as json;
use json::validation::USize64;

use crate::scene::Scene;
use animation::Maps;
use document::Writer;
use sampling::Sampling;

pub use document::{Document, to_glb, write, write_with};
pub use sampling::clip_seconds;

/// Builds the document for `scene` (every clip).
pub fn build(scene: &Scene) -> Result<Document> {
    build_with(scene, PointerAnimation::Write)
}

/// Whether material colour, alpha and texture animation is written. Each goes through the
/// `KHR_animation_pointer` extension, and some readers refuse a whole file that uses it
/// (assimp 5.2 fails on a colour channel): `Leave` writes a file without it, and says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerAnimation {
    Write,
    Leave,
}

/// As [`build`], with material animation as `pointers` says.
pub fn build_with(scene: &Scene, pointers: PointerAnimation) -> Result<Document> {
    let (plain, dropped) = match pointers {
        PointerAnimation::Write => (None, 0),
        PointerAnimation::Leave => {
            let (plain, dropped) = without_material_animation(scene);
            (Some(plain), dropped)
        }
    };
    let scene = plain.as_ref().unwrap_or(scene);
    let mut out = Writer::new();
    let scrolls = uv::plan_scrolls(scene, pointers == PointerAnimation::Write, &mut out.notes);
    let mut materials = materials::write(scene, &scrolls, &mut out);
    uv::copy_scrolled_materials(scene, &scrolls, &mut materials, &mut out);
    let nodes = nodes::write(scene, &mut out);
    let joints = skins::write(scene, &mut out);
    let morphs = morphs::plan(scene, &mut out.notes);
    let meshes = meshes::write(scene, &nodes, &joints, &materials, &morphs, &mut out);
    nodes::link(scene, &nodes, &joints, &meshes, &mut out);
    let maps = Maps {
        nodes: &nodes,
        joints: &joints,
        meshes: &meshes,
        materials: &materials,
        morphs: &morphs,
        scrolls: &scrolls,
    };
    let mut sampling = Sampling::for_scene(scene);
    let mut pointer_channels = animation::write(scene, &maps, &mut sampling, &mut out);
    animation::hold_unkeyed_targets(&mut pointer_channels, &mut out);
    if !scene.global_channels.is_empty() {
        // Each clip samples its global-sequence tracks on its own time (global clock = clip
        // time, as `Pose::at`); the rest pose's own global loops have no clip to live in.
        out.note("global-sequence channels of the rest pose not exported (no clip holds them)".into());
    }
    if sampling.exhausted() {
        out.note("sampling budget spent: some curves are written at their keys and grid only".into());
    }
    if dropped > 0 {
        out.note(format!(
            "{dropped} material colour, alpha and texture animations left out (no KHR_animation_pointer, as asked)"
        ));
    }
    out.finish(scene, &pointer_channels)
}

/// A copy of `scene` without material animation, and how many clip channels went. Each
/// animated material keeps the colour and alpha it shows at the start of the first clip (an
/// M2 unit faded out in every sequence stays hidden), not its track's rest value.
fn without_material_animation(scene: &Scene) -> (Scene, usize) {
    let clip = scene.first_clip();
    let start = clip.and_then(|c| scene.clips.get(c)).map_or(0.0, |c| c.start);
    let posed = crate::scene::anim::Pose::at(scene, clip, start);
    let mut plain = scene.clone();
    let animated = plain.animated_materials();
    let dropped = plain.drop_material_animation();
    for m in animated {
        if let (Some(material), Some(&color)) = (plain.materials.get_mut(m), posed.material_colors.get(m)) {
            material.base_color = color;
        }
    }
    (plain, dropped)
}

fn usize64(n: usize) -> USize64 {
    USize64(n as u64)
}

fn index<T>(i: u32) -> json::Index<T> {
    json::Index::new(i)
}
