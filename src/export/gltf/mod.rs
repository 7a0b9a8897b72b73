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
//! The parts run in order, each writing into the one `Writer` (`document`) and handing on a
//! typed map: `uv` plans scrolls, `materials` gives a `MaterialMap`, `nodes` a `NodeMap`,
//! `skins` the `Joints`, `morphs` a `MorphPlan` per mesh, `meshes` a `MeshMap`; then
//! `animation` and `motion` write the clips from those maps, drawing sample times from
//! `sampling`. `document` finishes the JSON and writes `.glb` or `.gltf` + `.bin`.

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
use animation::PointerChannel;
use materials::MaterialMap;
use meshes::MeshMap;
use morphs::MorphPlan;
use nodes::NodeMap;
use sampling::Sampling;
use skins::Joints;
use uv::UvScroll;

use document::Writer;
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
    let mut builder = Builder::new(plain.as_ref().unwrap_or(scene));
    builder.uv_scrolls_allowed = pointers == PointerAnimation::Write;
    builder.build()?;
    if dropped > 0 {
        builder.note(format!(
            "{dropped} material colour, alpha and texture animations left out (no KHR_animation_pointer, as asked)"
        ));
    }
    builder.finish()
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

/// Runs the parts in order and holds what each hands on: the [`Writer`] all of them write into,
/// then the typed maps of where the nodes, joints, meshes and materials landed, the morph plans
/// and the UV scrolls, which the animation part reads.
struct Builder<'a> {
    scene: &'a Scene,
    /// The JSON and binary buffer every part writes into.
    out: Writer,
    /// What the file cannot express, each once.
    notes: Vec<String>,
    /// From [`nodes`]: where each scene node landed.
    node_map: NodeMap,
    /// From [`skins`]: the joint nodes per skeleton.
    joints: Joints,
    /// From [`meshes`]: the node that carries each mesh.
    mesh_map: MeshMap,
    /// From [`materials`] (and [`uv`]'s copies): what each material can animate.
    material_map: MaterialMap,
    /// From [`morphs`]: per mesh, its targets and one-hot keys per clip.
    morphs: Vec<MorphPlan>,
    /// Per animation written: its channels through `KHR_animation_pointer`.
    pointer_channels: Vec<Vec<PointerChannel>>,
    /// Extensions the document uses, each once.
    extensions: Vec<&'static str>,
    /// TPW UV ramps that move every UV of a mesh by one offset: (clip, mesh, offset, end time).
    uv_scrolls: Vec<UvScroll>,
    /// Whether UV keys may become texture-transform scrolls (through `KHR_animation_pointer`).
    uv_scrolls_allowed: bool,
    /// The sample budget and tolerance every channel is written under.
    sampling: Sampling,
    /// The last animation input written, for the next channel at the same times.
    last_input: Option<(Vec<f32>, u32)>,
}

fn usize64(n: usize) -> USize64 {
    USize64(n as u64)
}

fn index<T>(i: u32) -> json::Index<T> {
    json::Index::new(i)
}

impl<'a> Builder<'a> {
    fn new(scene: &'a Scene) -> Self {
        Self {
            scene,
            out: Writer::new(),
            notes: Vec::new(),
            node_map: NodeMap::default(),
            joints: Joints::default(),
            mesh_map: MeshMap::new(scene.meshes.len()),
            material_map: MaterialMap::default(),
            morphs: Vec::new(),
            pointer_channels: Vec::new(),
            extensions: Vec::new(),
            uv_scrolls: Vec::new(),
            uv_scrolls_allowed: true,
            last_input: None,
            sampling: Sampling::for_scene(scene),
        }
    }

    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    fn use_extension(&mut self, name: &'static str) {
        if !self.extensions.contains(&name) {
            self.extensions.push(name);
        }
    }

    fn build(&mut self) -> Result<()> {
        self.plan_uv_scrolls();
        self.materials();
        self.scroll_materials();
        self.nodes();
        self.skeletons();
        self.plan_morphs();
        self.meshes();
        self.link_nodes();
        for clip in 0..self.scene.clips.len() {
            self.animation(clip);
        }
        self.hold_unkeyed_targets();
        if !self.scene.global_channels.is_empty() {
            // Each clip samples its global-sequence tracks on its own time (global clock = clip
            // time, as `Pose::at`); the rest pose's own global loops have no clip to live in.
            self.note("global-sequence channels of the rest pose not exported (no clip holds them)".into());
        }
        if self.sampling.exhausted() {
            self.note("sampling budget spent: some curves are written at their keys and grid only".into());
        }
        Ok(())
    }
}
