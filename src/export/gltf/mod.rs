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

mod blend;
pub mod decompose;

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use gltf_json as json;
use json::validation::{Checked::Valid, USize64};
use serde_json::{Value, json};

use crate::scene::anim::{Pose, animated_node_local, sample_curve, sample_vec2};
use crate::scene::{AlphaMode, BlendMode, Channel, Clip, Key, Scene, SeeThroughKind, TextureWrap, TrackTime};
use decompose::{NodeTransform, Trs};

/// Morph-target deltas (targets × vertices) one mesh may hold; a damaged file could ask for
/// far more, and the rest of its keys are then left out with a note.
const MAX_MORPH_DELTAS: usize = 8 << 20;
/// Samples per second for curves that are not piecewise linear in the written form.
const GRID_PER_SECOND: f32 = 30.0;
/// Animation samples one document may write: this many, plus [`SAMPLES_PER_KEY`] for every key
/// the scene's clips hold. Key times, grids, loop repeats and refinement all draw on it. The
/// corpus's Rabbit (7 sequences) writes 72,902 samples (69,639 of them from refinement); the
/// bound keeps a damaged file's curves (a key repeated on a short global loop for every joint)
/// from costing minutes and gigabytes. Past it, curves are thinned and refined no further.
const SAMPLES_START: usize = 1 << 16;
const SAMPLES_PER_KEY: usize = 16;
/// What one written channel costs in samples' worth: its accessors, views and JSON objects.
const CHANNEL_COST: usize = 32;

/// What sampling may still write, and whether it ever ran out.
struct SampleBudget {
    left: usize,
    exhausted: bool,
}
/// The most grid samples one node's channels get (a 136-second span at 30 per second).
const MAX_GRID: usize = 4096;
/// Clip units between a jump in a node's motion and the sample written just beside it.
const JUMP_GAP: f32 = 1e-3;

/// A built glTF document: the JSON and its binary buffer.
pub struct Document {
    pub json: Value,
    pub bin: Vec<u8>,
    /// What the file cannot express, also listed in `asset.extras.notes`.
    pub notes: Vec<String>,
}

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

/// Writes `scene` to `path`: binary glTF for `.glb`, else JSON with a `.bin` beside it.
/// Returns the notes on what the file cannot express.
pub fn write(scene: &Scene, path: &Path) -> Result<Vec<String>> {
    write_with(scene, path, PointerAnimation::Write)
}

/// As [`write()`], with material animation as `pointers` says.
pub fn write_with(scene: &Scene, path: &Path, pointers: PointerAnimation) -> Result<Vec<String>> {
    let doc = build_with(scene, pointers)?;
    let is_glb = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if is_glb {
        crate::export::write_output(path, to_glb(&doc)?).with_context(|| format!("writing {}", path.display()))?;
    } else {
        let bin_path = path.with_extension("bin");
        let bin_name =
            bin_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model.bin".into());
        let mut value = doc.json.clone();
        if let Some(buffer) = value.get_mut("buffers").and_then(|b| b.get_mut(0)) {
            buffer["uri"] = Value::String(relative_uri(&bin_name));
        }
        if !doc.bin.is_empty() {
            crate::export::write_output(&bin_path, &doc.bin)
                .with_context(|| format!("writing {}", bin_path.display()))?;
        }
        crate::export::write_output(path, serde_json::to_vec_pretty(&value)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(doc.notes)
}

/// Bytes a relative URI reference (RFC 3986) carries as they are: the unreserved set.
const URI_KEPT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A file name as a relative URI reference: other bytes are percent-encoded, so a name with a
/// space or `#` still reaches the file rather than a fragment.
fn relative_uri(file_name: &str) -> String {
    percent_encoding::utf8_percent_encode(file_name, URI_KEPT).to_string()
}

/// The GLB container: a 12-byte header, the JSON chunk padded with spaces and the BIN chunk
/// padded with zeros. Hand-written: gltf-json has no GLB writer, and the format is 20 lines.
pub fn to_glb(doc: &Document) -> Result<Vec<u8>> {
    let mut json_bytes = serde_json::to_vec(&doc.json)?;
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    // The binary chunk is copied once, into the output, and padded there.
    let bin_padded = doc.bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_bytes.len() + if doc.bin.is_empty() { 0 } else { 8 + bin_padded };
    let length = u32::try_from(total).context("the glTF is over 4 GiB")?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    if !doc.bin.is_empty() {
        let bin_length = u32::try_from(bin_padded).context("the glTF buffer is over 4 GiB")?;
        out.extend_from_slice(&bin_length.to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&doc.bin);
        out.resize(total, 0);
    }
    Ok(out)
}

/// Where one scene node landed.
#[derive(Debug, Clone, Copy)]
struct Placed {
    /// Carries the translation; children of the scene node's parent link here.
    outer: u32,
    /// The node a rotation channel rotates.
    rotated: u32,
    /// Children and meshes hang here.
    inner: u32,
}

/// A channel that gltf-json cannot express, added to the serialised JSON.
struct PointerChannel {
    pointer: String,
    input: u32,
    output: u32,
}

/// A TPW UV animation that moves every render vertex of a mesh by one offset: written as an
/// animated `KHR_texture_transform` offset of the mesh's materials.
#[derive(Clone)]
struct UvScroll {
    clip: usize,
    mesh: usize,
    seconds: Vec<f32>,
    offsets: Vec<Vec2>,
}

/// Morph targets of one mesh and, per clip, which target is full on at which time.
#[derive(Default)]
struct MorphPlan {
    /// Per target: render-vertex deltas from the rest positions.
    targets: Vec<Vec<Vec3>>,
    /// Per clip: `(time, target)` one-hot keys.
    keys: HashMap<usize, Vec<(f32, usize)>>,
}

struct Builder<'a> {
    scene: &'a Scene,
    root: json::Root,
    bin: Vec<u8>,
    notes: Vec<String>,
    placed: Vec<Placed>,
    /// Per mesh: the glTF node that carries it (the target of its weights).
    mesh_nodes: Vec<Option<u32>>,
    /// Per mesh: its glTF mesh.
    gltf_meshes: Vec<Option<u32>>,
    /// Per node with visibility keys: the child that carries its mesh.
    visibility_nodes: HashMap<usize, u32>,
    /// Per skeleton: the glTF node of each joint.
    joint_nodes: Vec<Vec<u32>>,
    morphs: Vec<MorphPlan>,
    /// Per glTF material: whether its base colour texture carries KHR_texture_transform.
    transformable: Vec<bool>,
    /// Per scene material: whether its own texture was embedded (not the fallback tile).
    textured: Vec<bool>,
    /// The fallback tile's glTF image, once a material needed it.
    fallback_image: Option<u32>,
    pointer_channels: Vec<Vec<PointerChannel>>,
    extensions: Vec<&'static str>,
    skeleton_roots: Vec<u32>,
    /// TPW UV ramps that move every UV of a mesh by one offset: (clip, mesh, offset, end time).
    uv_scrolls: Vec<UvScroll>,
    /// Whether UV keys may become texture-transform scrolls (through `KHR_animation_pointer`).
    uv_scrolls_allowed: bool,
    /// Per scene node: how it was written (one TRS node or a chain).
    node_forms: Vec<NodeTransform>,
    /// Per (mesh, scene material): the material's own copy for a mesh whose UVs scroll.
    mesh_materials: HashMap<(usize, usize), u32>,
    /// How far a sampled joint may stray from the viewer's curve: 1e-5 of the model's size.
    tolerance: f32,
    /// The model's size, the distance at which rotation and scale errors are weighed.
    reach: f32,
    /// The farthest a point can be from the pivot it turns about (the rest box's diagonal):
    /// the lever at which a rotation's blend error is weighed ([`blend`]).
    lever: f32,
    /// Samples that refinement may still add in this document.
    samples: SampleBudget,
    /// The last animation input written, for the next channel at the same times.
    last_input: Option<(Vec<f32>, u32)>,
    /// Nodes made for meshes that sit at the root (skinned meshes, meshes without a node).
    loose_mesh_nodes: Vec<u32>,
}

fn usize64(n: usize) -> USize64 {
    USize64(n as u64)
}

fn index<T>(i: u32) -> json::Index<T> {
    json::Index::new(i)
}

impl<'a> Builder<'a> {
    fn new(scene: &'a Scene) -> Self {
        let size = scene.bounds().size();
        let reach = size.max_element().max(1e-3);
        let mut root = json::Root::default();
        root.asset.generator = Some(format!("mdview {}", env!("CARGO_PKG_VERSION")));
        Self {
            scene,
            root,
            bin: Vec::new(),
            notes: Vec::new(),
            placed: Vec::new(),
            mesh_nodes: vec![None; scene.meshes.len()],
            gltf_meshes: vec![None; scene.meshes.len()],
            visibility_nodes: HashMap::new(),
            joint_nodes: Vec::new(),
            morphs: Vec::new(),
            transformable: Vec::new(),
            textured: Vec::new(),
            fallback_image: None,
            pointer_channels: Vec::new(),
            extensions: Vec::new(),
            skeleton_roots: Vec::new(),
            uv_scrolls: Vec::new(),
            uv_scrolls_allowed: true,
            node_forms: Vec::new(),
            mesh_materials: HashMap::new(),
            tolerance: 1e-5 * reach,
            reach,
            lever: if size.is_finite() { size.length().max(reach) } else { reach },
            loose_mesh_nodes: Vec::new(),
            last_input: None,
            samples: SampleBudget {
                left: SAMPLES_START.saturating_add(key_count(scene).saturating_mul(SAMPLES_PER_KEY)),
                exhausted: false,
            },
        }
    }

    /// Charges `times` to the document's [`SampleBudget`]; past it, keeps an even spread of what
    /// is left (at least both ends), so the curve is thinned rather than dropped.
    /// Each channel also costs [`CHANNEL_COST`] (its accessors and JSON); with not even that
    /// left, the channel is left out (an empty list).
    fn take_samples(&mut self, times: Vec<f32>) -> Vec<f32> {
        let cost = times.len().saturating_add(CHANNEL_COST);
        if cost <= self.samples.left {
            self.samples.left -= cost;
            return times;
        }
        self.samples.exhausted = true;
        if self.samples.left < CHANNEL_COST + 2 || times.is_empty() {
            self.samples.left = 0;
            return Vec::new();
        }
        let keep = (self.samples.left - CHANNEL_COST).min(times.len());
        self.samples.left = 0;
        let last = times.len() - 1;
        let mut thinned: Vec<f32> =
            (0..keep).filter_map(|k| times.get(k * last / (keep - 1).max(1)).copied()).collect();
        thinned.dedup();
        thinned
    }

    /// Tolerance, reach and lever for [`refine`].
    fn limits(&self) -> [f32; 3] {
        [self.tolerance, self.reach, self.lever]
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
        if self.samples.exhausted {
            self.note("sampling budget spent: some curves are written at their keys and grid only".into());
        }
        Ok(())
    }

    // ---------------------------------------------------------------- buffers and accessors

    fn view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> u32 {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let view = json::buffer::View {
            buffer: index(0),
            byte_length: usize64(bytes.len()),
            byte_offset: Some(usize64(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        };
        self.root.push(view).value() as u32
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        view: Option<u32>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        bounds: Option<(Value, Value)>,
        sparse: Option<json::accessor::sparse::Sparse>,
    ) -> u32 {
        let (min, max) = bounds.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        let accessor = json::Accessor {
            buffer_view: view.map(index),
            byte_offset: None,
            count: usize64(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse,
        };
        self.root.push(accessor).value() as u32
    }

    /// A float accessor of `width` components per element, with min and max when `bounds`.
    fn floats(&mut self, values: &[f32], width: usize, bounds: bool, target: Option<json::buffer::Target>) -> u32 {
        use json::accessor::Type;
        let type_ = match width {
            1 => Type::Scalar,
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => Type::Mat4,
        };
        let count = values.len() / width.max(1);
        let bounds = bounds.then(|| {
            let mut min = vec![f32::INFINITY; width];
            let mut max = vec![f32::NEG_INFINITY; width];
            for chunk in values.chunks_exact(width) {
                for ((lo, hi), &v) in min.iter_mut().zip(max.iter_mut()).zip(chunk) {
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                }
            }
            (json!(min), json!(max))
        });
        let view = self.view(bytemuck::cast_slice(values), target);
        self.accessor(Some(view), count, json::accessor::ComponentType::F32, type_, bounds, None)
    }

    fn vec3s(&mut self, values: &[Vec3], bounds: bool, target: Option<json::buffer::Target>) -> u32 {
        let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
        self.floats(&flat, 3, bounds, target)
    }

    /// Animation input: seconds, strictly increasing, with min and max.
    fn times(&mut self, seconds: &[f32]) -> u32 {
        self.floats(seconds, 1, true, None)
    }

    // ---------------------------------------------------------------- materials and textures

    fn materials(&mut self) {
        // Per scene image: its glTF texture and how its alpha draws.
        let mut textures: HashMap<usize, Option<(u32, SeeThroughKind)>> = HashMap::new();
        let animated_uv: Vec<bool> = (0..self.scene.materials.len())
            .map(|m| {
                self.scene
                    .clips
                    .iter()
                    .flat_map(|c| &c.channels)
                    .any(|ch| matches!(ch, Channel::UvTransform { material, .. } if *material == m))
                    || self.uv_scrolls.iter().any(|s| mesh_uses_material(self.scene, s.mesh, m))
            })
            .collect();
        // One sampler per wrap mode pair, one texture per (image, wrap): the same pixels may
        // tile in one material and clamp in another (M2 texture flags).
        let mut samplers: HashMap<[TextureWrap; 2], u32> = HashMap::new();
        let mut wrapped: HashMap<(u32, [TextureWrap; 2]), u32> = HashMap::new();
        for (material_index, material) in self.scene.materials.iter().enumerate() {
            if let Some(layer) = &material.layer2 {
                let name = layer.texture.as_deref().unwrap_or("(unnamed)");
                let combine = layer.combine.label();
                self.note(format!(
                    "material {material_index}: second texture {name} ({combine}) left out: glTF has no multitexture"
                ));
            }
            // Texture access goes through the scene's images: the same pixels the renderer draws.
            let mut texture = None;
            let mut see_through = None;
            let mut own_texture = false;
            if let Some(image_index) = material.image {
                let embedded = match textures.get(&image_index) {
                    Some(known) => *known,
                    None => {
                        let made = self.embed_image(image_index);
                        textures.insert(image_index, made);
                        made
                    }
                };
                own_texture = embedded.is_some();
                // The viewer draws an image it could not load with the fallback tile and
                // scrolls it: a material whose UVs move gets the same tile, so its clip plays.
                let animated = animated_uv.get(material_index).copied().unwrap_or(false);
                let source = match embedded {
                    None if animated => self.embed_fallback(material_index),
                    other => other,
                };
                if let Some((image, kind)) = source {
                    let wrap = material.wrap;
                    let sampler = *samplers.entry(wrap).or_insert_with(|| {
                        let mode = |w: TextureWrap| {
                            Valid(match w {
                                TextureWrap::Repeat => json::texture::WrappingMode::Repeat,
                                TextureWrap::Clamp => json::texture::WrappingMode::ClampToEdge,
                            })
                        };
                        self.root
                            .push(json::texture::Sampler {
                                mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
                                min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
                                wrap_s: mode(wrap[0]),
                                wrap_t: mode(wrap[1]),
                                ..Default::default()
                            })
                            .value() as u32
                    });
                    let made = *wrapped.entry((image, wrap)).or_insert_with(|| {
                        self.root
                            .push(json::Texture {
                                name: None,
                                sampler: Some(index(sampler)),
                                source: index(image),
                                extensions: None,
                                extras: None,
                            })
                            .value() as u32
                    });
                    texture = Some(made);
                    see_through = Some(kind);
                }
            } else if let Some(name) = &material.texture {
                self.note(format!("material {material_index}: texture {name} not found"));
            }

            use json::material::AlphaMode as Gm;
            let (alpha_mode, cutoff, approximated) = match material.alpha {
                AlphaMode::Opaque => (Gm::Opaque, None, None),
                AlphaMode::Mask => (Gm::Mask, Some(0.5), None),
                AlphaMode::SeeThrough => match see_through {
                    // As the renderer: an unresolved texture draws its cut-out fallback tile.
                    Some(SeeThroughKind::Blended) => (Gm::Blend, None, None),
                    Some(SeeThroughKind::CutOut) | None => (Gm::Mask, Some(0.5), None),
                },
                AlphaMode::Blend(mode) => match mode {
                    BlendMode::Opaque => (Gm::Opaque, None, None),
                    BlendMode::AlphaKey => (Gm::Mask, Some(0.5), None),
                    BlendMode::Alpha => (Gm::Blend, None, None),
                    other => (Gm::Blend, None, Some(format!("{other:?}"))),
                },
            };
            let second_set = samples_second_set(self.scene, material_index);
            if material.uv_set == 1 && texture.is_some() && !second_set {
                self.note(format!(
                    "material {material_index} samples a second UV set that a mesh drawing with it lacks; its first set is used"
                ));
            }
            let transform = (animated_uv.get(material_index).copied().unwrap_or(false) && texture.is_some()).then_some(
                json::extensions::texture::TextureTransform {
                    offset: json::extensions::texture::TextureTransformOffset([0.0, 0.0]),
                    rotation: json::extensions::texture::TextureTransformRotation(0.0),
                    scale: json::extensions::texture::TextureTransformScale([1.0, 1.0]),
                    // gltf-json writes `None` as null, which the validator rejects.
                    tex_coord: Some(u32::from(second_set)),
                    extras: None,
                },
            );
            if transform.is_some() {
                self.use_extension("KHR_texture_transform");
            }
            self.transformable.push(transform.is_some());
            self.textured.push(own_texture);
            let base_color_texture = texture.map(|t| json::texture::Info {
                index: index(t),
                tex_coord: u32::from(second_set),
                extensions: transform.map(|tt| json::extensions::texture::Info { texture_transform: Some(tt) }),
                extras: None,
            });
            let extras = approximated.map(|mode| {
                serde_json::value::to_raw_value(&json!({ "m2_blend_mode": mode, "approximated": true }))
                    .unwrap_or_default()
            });
            if material.unlit {
                self.use_extension("KHR_materials_unlit");
            }
            let c = material.base_color.clamp(Vec4::ZERO, Vec4::ONE);
            let gltf_material = json::Material {
                alpha_cutoff: cutoff.map(json::material::AlphaCutoff),
                alpha_mode: Valid(alpha_mode),
                double_sided: material.two_sided,
                name: Some(material.name.clone()),
                pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                    base_color_factor: json::material::PbrBaseColorFactor(c.to_array()),
                    base_color_texture,
                    metallic_factor: json::material::StrengthFactor(0.0),
                    roughness_factor: json::material::StrengthFactor(1.0),
                    metallic_roughness_texture: None,
                    extensions: None,
                    extras: None,
                },
                extensions: material.unlit.then_some(json::extensions::material::Material {
                    unlit: Some(json::extensions::material::Unlit {}),
                }),
                extras,
                ..Default::default()
            };
            self.root.push(gltf_material);
        }
    }

    /// Embeds scene image `image_index` as PNG: its texture index and alpha class, or `None`
    /// (with a note) when it did not resolve or decode.
    /// The scene image as an embedded PNG: its glTF image index and how its alpha draws.
    fn embed_image(&mut self, image_index: usize) -> Option<(u32, SeeThroughKind)> {
        let scene_image = self.scene.images.get(image_index)?;
        let image = match scene_image.load() {
            Ok(image) => image,
            Err(e) => {
                self.note(format!("texture {} not embedded: {e}", scene_image.name));
                return None;
            }
        };
        let kind = crate::scene::classify_see_through(&image.rgba);
        let png = match crate::export::encode_png(&image) {
            Ok(png) => png,
            Err(e) => {
                self.note(format!("texture {} not embedded: {e}", scene_image.name));
                return None;
            }
        };
        let view = self.view(&png, None);
        let name = Some(scene_image.name.clone());
        let image_index = self
            .root
            .push(json::Image {
                buffer_view: Some(index(view)),
                mime_type: Some(json::image::MimeType("image/png".into())),
                name,
                uri: None,
                extensions: None,
                extras: None,
            })
            .value() as u32;
        Some((image_index, kind))
    }

    /// The fallback tile ([`crate::scene::fallback`]) as an embedded PNG, made once per
    /// document, for material `material` whose own image could not be embedded.
    fn embed_fallback(&mut self, material: usize) -> Option<(u32, SeeThroughKind)> {
        let image = match self.fallback_image {
            Some(image) => image,
            None => {
                let tile = crate::scene::fallback::fallback_tile();
                let png = match crate::export::encode_png(&tile) {
                    Ok(png) => png,
                    Err(e) => {
                        self.note(format!("the fallback tile not embedded: {e}"));
                        return None;
                    }
                };
                let view = self.view(&png, None);
                let image = self
                    .root
                    .push(json::Image {
                        buffer_view: Some(index(view)),
                        mime_type: Some(json::image::MimeType("image/png".into())),
                        name: Some(crate::scene::fallback::FALLBACK_LOCATION.into()),
                        uri: None,
                        extensions: None,
                        extras: None,
                    })
                    .value() as u32;
                self.fallback_image = Some(image);
                image
            }
        };
        self.note(format!(
            "material {material}: its texture is missing; the fallback tile embedded, as the viewer draws it"
        ));
        // The renderer draws the (opaque) tile cut-out.
        Some((image, SeeThroughKind::CutOut))
    }

    /// Finds the TPW UV animations that are a scroll: every render vertex of the mesh moves by
    /// one offset at every key time and between them. Those become an animated
    /// `KHR_texture_transform` offset; glTF cannot key UVs per vertex, so other UV keys are
    /// noted as left out.
    fn plan_uv_scrolls(&mut self) {
        let scene = self.scene;
        for (c, clip) in scene.clips.iter().enumerate() {
            for channel in &clip.channels {
                let Channel::UvKeys { mesh, slots } = channel else { continue };
                match uniform_uv_offsets(scene, clip, *mesh, slots) {
                    Some(_) if !self.uv_scrolls_allowed => self.note(format!(
                        "clip {}: the UV scroll of mesh {mesh} left out (no KHR_animation_pointer, as asked)",
                        clip.name
                    )),
                    Some((times, offsets)) => {
                        let seconds = times.iter().map(|&t| clip_seconds(clip, t)).collect();
                        self.uv_scrolls.push(UvScroll { clip: c, mesh: *mesh, seconds, offsets });
                    }
                    None => self.note(format!(
                        "clip {}: UV keys of mesh {mesh} move its vertices unevenly; not exported (glTF cannot key UVs per vertex)",
                        clip.name
                    )),
                }
            }
        }
    }

    /// A material that a scrolling mesh shares with other meshes gets a copy for that mesh, so
    /// the scroll moves only its texture.
    fn scroll_materials(&mut self) {
        let scene = self.scene;
        let mut scrolled: Vec<usize> = self.uv_scrolls.iter().map(|s| s.mesh).collect();
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
                let Some(mut copy) = self.root.materials.get(material).cloned() else { continue };
                copy.name = Some(format!("{} (mesh {mesh})", copy.name.unwrap_or_default()));
                let index = self.root.push(copy).value() as u32;
                self.transformable.push(self.transformable.get(material).copied().unwrap_or(false));
                self.mesh_materials.insert((mesh, material), index);
            }
        }
    }

    /// Offset pointer channels of a scroll, one per material of the mesh.
    fn uv_scroll(&mut self, scroll: &UvScroll) -> Vec<PointerChannel> {
        let scene = self.scene;
        let Some(clip) = scene.clips.get(scroll.clip) else { return Vec::new() };
        let values: Vec<f32> = scroll.offsets.iter().flat_map(|o| o.to_array()).collect();
        let mut out = Vec::new();
        for material in 0..scene.materials.len() {
            if !mesh_uses_material(scene, scroll.mesh, material) {
                continue;
            }
            let gltf_material = self.mesh_materials.get(&(scroll.mesh, material)).copied().unwrap_or(material as u32);
            if !self.transformable.get(gltf_material as usize).copied().unwrap_or(false) {
                self.note(format!("clip {}: UV scroll of untextured material {material} dropped", clip.name));
                continue;
            }
            let input = self.times(&scroll.seconds);
            let output = self.floats(&values, 2, false, None);
            out.push(PointerChannel {
                pointer: format!(
                    "/materials/{gltf_material}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
                ),
                input,
                output,
            });
        }
        out
    }

    // ---------------------------------------------------------------- nodes

    fn push_node(&mut self, name: String, trs: Trs) -> u32 {
        let node = json::Node {
            name: Some(name),
            translation: (trs.translation != Vec3::ZERO).then(|| trs.translation.to_array()),
            rotation: (trs.rotation != Quat::IDENTITY)
                .then(|| json::scene::UnitQuaternion(trs.rotation.normalize().to_array())),
            scale: (trs.scale != Vec3::ONE).then(|| trs.scale.to_array()),
            ..Default::default()
        };
        self.root.push(node).value() as u32
    }

    fn add_child(&mut self, parent: u32, child: u32) {
        if let Some(node) = self.root.nodes.get_mut(parent as usize) {
            node.children.get_or_insert_with(Vec::new).push(index(child));
        }
    }

    fn nodes(&mut self) {
        let scene = self.scene;
        let mut rotated = vec![false; scene.nodes.len()];
        for channel in scene.clips.iter().flat_map(|c| &c.channels) {
            if let Channel::NodeRotation { node, .. } | Channel::NodeRotationEased { node, .. } = channel
                && let Some(r) = rotated.get_mut(*node)
            {
                *r = true;
            }
        }
        for (i, node) in scene.nodes.iter().enumerate() {
            // A node that follows a joint hangs under the joint's node, which sits at its pivot.
            let local = match node.joint {
                Some((s, j)) => Mat4::from_translation(-self.joint_pivot(s, j)) * node.local,
                None => node.local,
            };
            // A mirror under rotation keys no longer matters here: keyed poses are decomposed
            // against the chain's fixed stretch (`node_motion`), which keeps the mirror exactly.
            let transform = decompose::split(&local, rotated.get(i).copied().unwrap_or(false));
            self.node_forms.push(transform);
            let placed = match transform {
                NodeTransform::Single(trs) => {
                    let n = self.push_node(node.name.clone(), trs);
                    Placed { outer: n, rotated: n, inner: n }
                }
                NodeTransform::Chain { outer, middle, inner } => {
                    let o = self.push_node(node.name.clone(), outer);
                    let m = self.push_node(format!("{} (stretch)", node.name), middle);
                    let r = self.push_node(format!("{} (orientation)", node.name), inner);
                    self.add_child(o, m);
                    self.add_child(m, r);
                    Placed { outer: o, rotated: r, inner: r }
                }
            };
            self.placed.push(placed);
        }
        for channel in scene.clips.iter().flat_map(|c| &c.channels) {
            if let Channel::NodeVisibility { node, .. } = channel
                && !self.visibility_nodes.contains_key(node)
                && let Some(placed) = self.placed.get(*node).copied()
            {
                let name = scene.nodes.get(*node).map(|n| n.name.clone()).unwrap_or_default();
                let v = self.push_node(format!("{name} (visibility)"), Trs::IDENTITY);
                self.add_child(placed.inner, v);
                self.visibility_nodes.insert(*node, v);
            }
        }
    }

    /// A joint's pivot (M2: rotation and scale happen about it; zero elsewhere).
    fn joint_pivot(&self, skeleton: usize, joint: usize) -> Vec3 {
        self.scene.skeletons.get(skeleton).and_then(|s| s.joints.get(joint)).map_or(Vec3::ZERO, |j| j.pivot)
    }

    /// Where joint `joint`'s node sits in the bind pose, in model space: its rest matrix (MDR)
    /// moved to its pivot (M2, whose joint matrices are identity at rest). Joint nodes are
    /// written as the joint's matrix times a move to its pivot, so an importer's armature has
    /// its bones where the model's are, and M2 keys go on the joints as they are (no pivot
    /// folded into the translation, which would tie translation to rotation).
    fn joint_bind(&self, skeleton: usize, joint: usize) -> Mat4 {
        let rest = self.scene.skeletons.get(skeleton).and_then(|s| s.rest_pose.get(joint)).copied();
        rest.unwrap_or(Mat4::IDENTITY) * Mat4::from_translation(self.joint_pivot(skeleton, joint))
    }

    /// Joint nodes per skeleton: each joint's bind matrix ([`Self::joint_bind`]) relative to
    /// its parent's, under one root node per skeleton.
    fn skeletons(&mut self) {
        let scene = self.scene;
        for (s, skeleton) in scene.skeletons.iter().enumerate() {
            let root = self.push_node(
                if skeleton.name.is_empty() { format!("skeleton {s}") } else { skeleton.name.clone() },
                Trs::IDENTITY,
            );
            let mut nodes = Vec::with_capacity(skeleton.joints.len());
            for (j, joint) in skeleton.joints.iter().enumerate() {
                let parent = joint.parent.filter(|&p| p < j);
                let parent_bind = parent.map_or(Mat4::IDENTITY, |p| self.joint_bind(s, p));
                let local = parent_bind.inverse() * self.joint_bind(s, j);
                let trs = to_trs(&local);
                let n = self.push_node(joint.name.clone(), trs);
                match parent.and_then(|p| nodes.get(p).copied()) {
                    Some(p) => self.add_child(p, n),
                    None => self.add_child(root, n),
                }
                nodes.push(n);
                if joint.billboard {
                    self.note(format!("joint {j} ({}): billboard not exported (it needs the camera)", joint.name));
                }
            }
            self.joint_nodes.push(nodes);
            self.skeleton_roots.push(root);
        }
    }

    /// Parent links of the scene's nodes; nodes that follow a joint hang under its node.
    fn link_nodes(&mut self) {
        let scene = self.scene;
        let mut roots = Vec::new();
        for (i, node) in scene.nodes.iter().enumerate() {
            let Some(placed) = self.placed.get(i).copied() else { continue };
            let joint_parent =
                node.joint.and_then(|(s, j)| self.joint_nodes.get(s).and_then(|nodes| nodes.get(j)).copied());
            let parent = node.parent.and_then(|p| self.placed.get(p)).map(|p| p.inner);
            match joint_parent.or(parent) {
                Some(p) => self.add_child(p, placed.outer),
                None => roots.push(placed.outer),
            }
        }
        roots.extend(self.skeleton_roots.iter().copied());
        roots.extend(self.loose_mesh_nodes.iter().copied());
        self.root.scenes.push(json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: roots.into_iter().map(index).collect(),
        });
        self.root.scene = Some(index(0));
    }
}

impl Builder<'_> {
    // ---------------------------------------------------------------- morph targets

    /// Morph targets per mesh from the clips' vertex channels: one target per distinct key
    /// (TPW morph key times, Quake II frames), so each clip animates its weights one-hot.
    fn plan_morphs(&mut self) {
        let scene = self.scene;
        self.morphs = (0..scene.meshes.len()).map(|_| MorphPlan::default()).collect();
        let rest: Vec<Vec<Vec3>> = scene.meshes.iter().map(|m| m.render_positions()).collect();
        let mut packed_targets: HashMap<(usize, usize), usize> = HashMap::new();
        for (c, clip) in scene.clips.iter().enumerate() {
            let mut morphed: Vec<usize> = Vec::new();
            for channel in &clip.channels {
                match channel {
                    Channel::VertexMorph { mesh, .. } | Channel::VertexFrames { mesh, .. }
                        if !morphed.contains(mesh) =>
                    {
                        morphed.push(*mesh);
                        // Every key time of every vertex channel on the mesh: between them each
                        // vertex moves linearly, so one-hot weights between targets are exact.
                        let key_times = clip.channels.iter().flat_map(|other| -> Vec<f32> {
                            match other {
                                Channel::VertexMorph { mesh: m, blocks } if m == mesh => {
                                    blocks.iter().flat_map(|b| b.times.iter().copied()).collect()
                                }
                                Channel::VertexFrames { mesh: m, times, .. } if m == mesh => times.clone(),
                                _ => Vec::new(),
                            }
                        });
                        let times = clip_times(clip, key_times, false);
                        let Some(base) = rest.get(*mesh) else { continue };
                        let mut pose = Pose::default();
                        let mut keys = Vec::new();
                        for t in times {
                            if self
                                .morphs
                                .get(*mesh)
                                .is_some_and(|p| (p.targets.len() + 1) * base.len() > MAX_MORPH_DELTAS)
                            {
                                self.notes.push(format!(
                                    "clip {}: mesh {mesh} has too many morph keys; the rest left out",
                                    clip.name
                                ));
                                break;
                            }
                            pose.evaluate(scene, Some(c), t);
                            let moved = pose.mesh_positions(scene, *mesh);
                            let delta: Vec<Vec3> = moved.iter().zip(base).map(|(p, b)| *p - *b).collect();
                            let Some(plan) = self.morphs.get_mut(*mesh) else { continue };
                            plan.targets.push(delta);
                            keys.push((t, plan.targets.len() - 1));
                        }
                        if let Some(plan) = self.morphs.get_mut(*mesh) {
                            plan.keys.insert(c, keys);
                        }
                    }
                    Channel::PackedFrames(packed) => {
                        let (Some(base), Some(mesh)) = (rest.get(packed.mesh), scene.meshes.get(packed.mesh)) else {
                            continue;
                        };
                        let mut frame_targets = Vec::new();
                        for k in 0..packed.frames.len() {
                            let key = (packed.mesh, packed.frames.start + k);
                            let target = match packed_targets.get(&key) {
                                Some(&t) => t,
                                None => {
                                    if self
                                        .morphs
                                        .get(packed.mesh)
                                        .is_some_and(|p| (p.targets.len() + 1) * base.len() > MAX_MORPH_DELTAS)
                                    {
                                        break;
                                    }
                                    let source = packed.unpack(k);
                                    let moved = crate::scene::expand_positions(&source, &mesh.vertex_source);
                                    let delta: Vec<Vec3> = moved.iter().zip(base).map(|(p, b)| *p - *b).collect();
                                    let Some(plan) = self.morphs.get_mut(packed.mesh) else { continue };
                                    plan.targets.push(delta);
                                    packed_targets.insert(key, plan.targets.len() - 1);
                                    plan.targets.len() - 1
                                }
                            };
                            frame_targets.push(target);
                        }
                        // Frames between the clip's bounds; the bounds themselves hold the
                        // nearest frame, as the viewer clamps.
                        let frame_times = packed.times();
                        let times = clip_times(clip, frame_times.iter().copied(), false);
                        let keys: Vec<(f32, usize)> = times
                            .iter()
                            .filter_map(|&t| {
                                let k = frame_times
                                    .partition_point(|&ft| ft < t - 1e-4)
                                    .min(frame_times.len().saturating_sub(1));
                                frame_targets.get(k).map(|&target| (t, target))
                            })
                            .collect();
                        if let Some(plan) = self.morphs.get_mut(packed.mesh) {
                            plan.keys.insert(c, keys);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    // ---------------------------------------------------------------- meshes and skins

    fn meshes(&mut self) {
        use json::accessor::{ComponentType, Type};
        use json::buffer::Target;
        let scene = self.scene;
        let hidden_lod: Vec<usize> = scene.lods.iter().skip(1).flat_map(|l| l.meshes.iter().copied()).collect();
        if !hidden_lod.is_empty() {
            self.note(format!("{} meshes of coarser levels of detail not exported (LOD 0 only)", hidden_lod.len()));
        }
        let rest_world = scene.rest_world_matrices();
        // Per material, once: each answer looks at every mesh.
        let second_sets: Vec<bool> = (0..scene.materials.len()).map(|m| samples_second_set(scene, m)).collect();
        let mut skins: HashMap<usize, u32> = HashMap::new();
        for (m, mesh) in scene.meshes.iter().enumerate() {
            let count = mesh.vertex_count();
            if count == 0 || mesh.triangles.is_empty() || hidden_lod.contains(&m) {
                continue;
            }
            let positions = mesh.render_positions();
            let mut attributes = std::collections::BTreeMap::new();
            let position = self.vec3s(&positions, true, Some(Target::ArrayBuffer));
            attributes.insert(Valid(json::mesh::Semantic::Positions), index(position));
            if mesh.normals.len() == count {
                let normals: Vec<Vec3> = mesh.normals.iter().map(|n| n.try_normalize().unwrap_or(Vec3::Y)).collect();
                let a = self.vec3s(&normals, false, Some(Target::ArrayBuffer));
                attributes.insert(Valid(json::mesh::Semantic::Normals), index(a));
            }
            if mesh.uvs.len() == count {
                let flat: Vec<f32> = mesh.uvs.iter().flat_map(|uv| [uv.x, uv.y]).collect();
                let a = self.floats(&flat, 2, false, Some(Target::ArrayBuffer));
                attributes.insert(Valid(json::mesh::Semantic::TexCoords(0)), index(a));
            }
            let samples_second =
                |sub: &crate::scene::Submesh| sub.material.and_then(|m| second_sets.get(m)).copied().unwrap_or(false);
            if mesh.uvs1.len() == count && mesh.submeshes.iter().any(samples_second) {
                let flat: Vec<f32> = mesh.uvs1.iter().flat_map(|uv| [uv.x, uv.y]).collect();
                let a = self.floats(&flat, 2, false, Some(Target::ArrayBuffer));
                attributes.insert(Valid(json::mesh::Semantic::TexCoords(1)), index(a));
            }
            let mut skin_index = None;
            if let Some(skin) = &mesh.skin
                && self.joint_nodes.get(skin.skeleton).is_some_and(|j| !j.is_empty())
            {
                let (joints, weights) = four_influences(mesh, skin);
                let joint_view = self.view(bytemuck::cast_slice(&joints), Some(Target::ArrayBuffer));
                let a = self.accessor(Some(joint_view), count, ComponentType::U16, Type::Vec4, None, None);
                attributes.insert(Valid(json::mesh::Semantic::Joints(0)), index(a));
                let w = self.floats(&weights, 4, false, Some(Target::ArrayBuffer));
                attributes.insert(Valid(json::mesh::Semantic::Weights(0)), index(w));
                skin_index = Some(match skins.get(&skin.skeleton) {
                    Some(&s) => s,
                    None => {
                        let s = self.skin(skin.skeleton);
                        skins.insert(skin.skeleton, s);
                        s
                    }
                });
                let world = mesh.node.and_then(|n| rest_world.get(n)).copied().unwrap_or(Mat4::IDENTITY);
                if !world.abs_diff_eq(Mat4::IDENTITY, 1e-6) {
                    self.note(format!("mesh {m} ({}): its node's placement is ignored by glTF skinning", mesh.name));
                }
            }
            let plan_targets = self.morphs.get(m).map(|p| p.targets.len()).unwrap_or(0);
            let mut targets = Vec::new();
            for t in 0..plan_targets {
                let delta = self.morphs.get(m).and_then(|p| p.targets.get(t)).cloned().unwrap_or_default();
                let a = self.vec3s(&delta, true, Some(Target::ArrayBuffer));
                targets.push(json::mesh::MorphTarget { positions: Some(index(a)), normals: None, tangents: None });
            }
            if plan_targets > 0 {
                self.note("morph targets carry positions only; normals stay those of the rest pose".into());
            }
            let mut primitives = Vec::new();
            let ranges: Vec<(Option<usize>, u32, u32)> = if mesh.submeshes.is_empty() {
                vec![(None, 0, mesh.triangles.len() as u32)]
            } else {
                mesh.submeshes.iter().map(|s| (s.material, s.first_triangle, s.triangle_count)).collect()
            };
            let mut written: Vec<(u32, u32)> = Vec::new();
            for (material, first, tri_count) in ranges {
                // A pass over triangles already written (M2 texture-unit layers) that glTF cannot
                // draw as the game does would cover its base: an additive or modulating blend or
                // a sphere map becomes plain alpha blending over the same triangles, and an
                // untextured one paints them flat.
                if written.contains(&(first, tri_count))
                    && let Some(why) = material.and_then(|i| self.unexpressible_layer(i))
                {
                    self.note(format!(
                        "mesh {}: the layer drawn with material {} over the same triangles is left out ({why})",
                        mesh.name,
                        material.unwrap_or_default()
                    ));
                    continue;
                }
                written.push((first, tri_count));
                let tris = mesh
                    .triangles
                    .get(first as usize..(first as usize).saturating_add(tri_count as usize))
                    .unwrap_or(&[]);
                let flat: Vec<u32> = tris.iter().flatten().copied().filter(|&i| (i as usize) < count).collect();
                if flat.len() != tris.len() * 3 || flat.is_empty() {
                    continue;
                }
                let indices = if count <= usize::from(u16::MAX) {
                    let short: Vec<u16> = flat.iter().map(|&i| i as u16).collect();
                    let view = self.view(bytemuck::cast_slice(&short), Some(Target::ElementArrayBuffer));
                    self.accessor(Some(view), flat.len(), ComponentType::U16, Type::Scalar, None, None)
                } else {
                    let view = self.view(bytemuck::cast_slice(&flat), Some(Target::ElementArrayBuffer));
                    self.accessor(Some(view), flat.len(), ComponentType::U32, Type::Scalar, None, None)
                };
                primitives.push(json::mesh::Primitive {
                    attributes: attributes.clone(),
                    extensions: None,
                    extras: None,
                    indices: Some(index(indices)),
                    material: material
                        .filter(|&i| i < scene.materials.len())
                        .map(|i| index(self.mesh_materials.get(&(m, i)).copied().unwrap_or(i as u32))),
                    mode: Valid(json::mesh::Mode::Triangles),
                    targets: (!targets.is_empty()).then(|| targets.clone()),
                });
            }
            if primitives.is_empty() {
                continue;
            }
            let gltf_mesh = self
                .root
                .push(json::Mesh {
                    extensions: None,
                    extras: serde_json::value::to_raw_value(&json!({ "scene_mesh": m })).ok(),
                    name: Some(mesh.name.clone()),
                    primitives,
                    weights: (plan_targets > 0).then(|| vec![0.0; plan_targets]),
                })
                .value() as u32;
            if let Some(slot) = self.gltf_meshes.get_mut(m) {
                *slot = Some(gltf_mesh);
            }
            let holder = if skin_index.is_some() || mesh.node.is_none() {
                let n = self.push_node(mesh.name.clone(), Trs::IDENTITY);
                self.loose_mesh_nodes.push(n);
                n
            } else {
                let node = mesh.node.unwrap_or_default();
                let parent = match self.visibility_nodes.get(&node) {
                    Some(&v) => v,
                    None => self.placed.get(node).map(|p| p.inner).unwrap_or(0),
                };
                let taken = self.root.nodes.get(parent as usize).is_some_and(|n| n.mesh.is_some());
                if taken {
                    let child = self.push_node(mesh.name.clone(), Trs::IDENTITY);
                    self.add_child(parent, child);
                    child
                } else {
                    parent
                }
            };
            if let Some(node) = self.root.nodes.get_mut(holder as usize) {
                node.mesh = Some(index(gltf_mesh));
                node.skin = skin_index.map(index);
            }
            if let Some(slot) = self.mesh_nodes.get_mut(m) {
                *slot = Some(holder);
            }
        }
    }

    /// One skin per skeleton: inverse bind matrices are the inverses of the rest pose.
    /// Why material `material` cannot be drawn as a layer over a base in glTF, or `None` when
    /// it can (an opaque, cut-out or alpha-blended texture).
    fn unexpressible_layer(&self, material: usize) -> Option<&'static str> {
        let m = self.scene.materials.get(material)?;
        if m.sphere_map {
            return Some("an environment map, which glTF cannot express");
        }
        if let AlphaMode::Blend(mode) = m.alpha
            && !matches!(mode, BlendMode::Opaque | BlendMode::AlphaKey | BlendMode::Alpha)
        {
            return Some("an additive or modulating blend, which glTF cannot express");
        }
        if !self.textured.get(material).copied().unwrap_or(false) {
            return Some("its texture is not available, and untextured it would paint the base flat");
        }
        None
    }

    fn skin(&mut self, skeleton: usize) -> u32 {
        let scene = self.scene;
        let joints = self.joint_nodes.get(skeleton).cloned().unwrap_or_default();
        let ibm: Vec<f32> = (0..joints.len())
            .flat_map(|j| {
                let inv = self.joint_bind(skeleton, j).inverse();
                if inv.is_finite() { inv } else { Mat4::IDENTITY }.to_cols_array()
            })
            .collect();
        let ibm = self.floats(&ibm, 16, false, None);
        self.root
            .push(json::Skin {
                extensions: None,
                extras: None,
                inverse_bind_matrices: Some(index(ibm)),
                joints: joints.iter().map(|&j| index(j)).collect(),
                name: scene.skeletons.get(skeleton).map(|s| s.name.clone()),
                skeleton: self.skeleton_roots.get(skeleton).map(|&r| index(r)),
            })
            .value() as u32
    }

    // ---------------------------------------------------------------- animations

    fn sampler(
        &mut self,
        animation: &mut json::Animation,
        seconds: &[f32],
        output: u32,
        step: bool,
    ) -> json::Index<json::animation::Sampler> {
        // Channels sampled at the same times (a node's T, R and S) share one input accessor.
        let input = match &self.last_input {
            Some((times, input)) if times.as_slice() == seconds => *input,
            _ => {
                let input = self.times(seconds);
                self.last_input = Some((seconds.to_vec(), input));
                input
            }
        };
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

    fn channel(
        &mut self,
        animation: &mut json::Animation,
        node: u32,
        path: json::animation::Property,
        seconds: &[f32],
        output: u32,
        step: bool,
    ) {
        let sampler = self.sampler(animation, seconds, output, step);
        animation.channels.push(json::animation::Channel {
            sampler,
            target: json::animation::Target { extensions: None, extras: None, node: index(node), path: Valid(path) },
            extensions: None,
            extras: None,
        });
    }

    fn rotations(&mut self, animation: &mut json::Animation, node: u32, seconds: &[f32], values: &[Quat]) {
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
        let out = self.floats(&flat, 4, false, None);
        self.channel(animation, node, json::animation::Property::Rotation, seconds, out, false);
    }

    fn vectors(
        &mut self,
        animation: &mut json::Animation,
        node: u32,
        path: json::animation::Property,
        seconds: &[f32],
        values: &[Vec3],
        step: bool,
    ) {
        let out = self.vec3s(values, false, None);
        self.channel(animation, node, path, seconds, out, step);
    }

    fn animation(&mut self, c: usize) {
        use json::animation::Property;
        let scene = self.scene;
        let Some(clip) = scene.clips.get(c) else { return };
        let mut animation = json::Animation {
            extensions: None,
            extras: None,
            channels: Vec::new(),
            name: Some(clip.name.clone()),
            samplers: Vec::new(),
        };
        let mut pointers = Vec::new();
        let seconds_of = |times: &[f32]| -> Vec<f32> { times.iter().map(|&t| clip_seconds(clip, t)).collect() };
        let mut materials_colored: Vec<usize> = Vec::new();
        // Nodes anchored to a face of a mesh this clip morphs ride it: their motion is sampled
        // from the viewer's pose at the mesh's keys.
        let riders = (0..scene.nodes.len()).filter(|&node| self.ridden_keys(c, node).is_some());
        let mut moved_nodes: Vec<usize> = clip.channels.iter().filter_map(Channel::moved_node).chain(riders).collect();
        moved_nodes.sort_unstable();
        moved_nodes.dedup();
        for node in moved_nodes {
            self.node_motion(&mut animation, c, node);
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
            self.node_visibility(&mut animation, clip, node);
        }
        for channel in &clip.channels {
            match channel {
                // All of a node's visibility channels at once (the hide list and its track).
                Channel::NodeVisibility { .. } => {}
                // Node motion is written above, vertex motion as morph targets (`plan_morphs`),
                // UV keys as texture-transform scrolls (`plan_uv_scrolls`).
                Channel::NodeRotation { .. }
                | Channel::NodeRotationEased { .. }
                | Channel::NodePosition { .. }
                | Channel::NodeAxisScale { .. }
                | Channel::NodePathProgress { .. }
                | Channel::VertexMorph { .. }
                | Channel::VertexFrames { .. }
                | Channel::PackedFrames(_)
                | Channel::UvKeys { .. } => {}
                Channel::BoneFrames { skeleton, times, frames } => {
                    self.bone_frames(&mut animation, clip, *skeleton, times, frames);
                }
                Channel::BoneTracks { skeleton, joints } => {
                    self.bone_tracks(&mut animation, clip, *skeleton, joints);
                }
                Channel::MaterialColor { material, .. } | Channel::MaterialAlpha { material, .. } => {
                    if !materials_colored.contains(material) {
                        materials_colored.push(*material);
                    }
                }
                Channel::UvTransform { material, translation, rotation, scale, time } => {
                    if !self.transformable.get(*material).copied().unwrap_or(false) {
                        self.note(format!(
                            "clip {}: texture transform of untextured material {material} dropped",
                            clip.name
                        ));
                        continue;
                    }
                    let mut key_times = track_times(clip, translation.keys.iter().map(|k| k.time), time[0]);
                    key_times.extend(track_times(clip, rotation.keys.iter().map(|k| k.time), time[1]));
                    key_times.extend(track_times(clip, scale.keys.iter().map(|k| k.time), time[2]));
                    let times = self.take_samples(clip_times(clip, key_times, true));
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
                        let input = self.times(&seconds);
                        let output = self.floats(&values, width, false, None);
                        pointers.push(PointerChannel { pointer: format!("{base}/{suffix}"), input, output });
                    }
                }
            }
        }
        for material in materials_colored {
            if let Some(p) = self.material_color(clip, material) {
                pointers.push(p);
            }
        }
        let scrolls: Vec<UvScroll> = self.uv_scrolls.iter().filter(|s| s.clip == c).cloned().collect();
        for scroll in &scrolls {
            pointers.extend(self.uv_scroll(scroll));
        }
        // Morph weights, one channel per mesh that a vertex channel moves in this clip.
        for m in 0..scene.meshes.len() {
            let (Some(node), Some(plan)) = (self.mesh_nodes.get(m).copied().flatten(), self.morphs.get(m)) else {
                continue;
            };
            let Some(keys) = plan.keys.get(&c).cloned() else { continue };
            let target_count = plan.targets.len();
            if keys.is_empty() || target_count == 0 {
                continue;
            }
            let seconds: Vec<f32> = keys.iter().map(|&(t, _)| clip_seconds(clip, t)).collect();
            let output = self.one_hot_weights(&keys, target_count);
            self.channel(&mut animation, node, Property::MorphTargetWeights, &seconds, output, false);
        }
        if animation.channels.is_empty() && pointers.is_empty() {
            self.note(format!("clip {}: nothing this file can animate; left out", clip.name));
            return;
        }
        if !pointers.is_empty() {
            self.use_extension("KHR_animation_pointer");
        }
        self.root.push(animation);
        self.pointer_channels.push(pointers);
    }

    /// Gives each animation a one-key channel holding the rest value of every target another
    /// animation keys and it does not (a Quake II weapon in the clips it has no frames for, a
    /// door a TPW clip leaves alone), as the viewer poses them: glTF players and Blender keep
    /// whatever the last animation left in a property an animation does not key.
    fn hold_unkeyed_targets(&mut self) {
        use json::animation::Property;
        let targets = |a: &json::Animation| -> Vec<(u32, Property)> {
            let valid = |c: &json::animation::Channel| match &c.target.path {
                Valid(path) => Some((c.target.node.value() as u32, *path)),
                _ => None,
            };
            a.channels.iter().filter_map(valid).collect()
        };
        let mut keyed: Vec<(u32, Property)> = self.root.animations.iter().flat_map(targets).collect();
        keyed.sort_by_key(|(node, path)| (*node, format!("{path:?}")));
        keyed.dedup();
        let mut pointers: Vec<String> = self.pointer_channels.iter().flatten().map(|p| p.pointer.clone()).collect();
        pointers.sort();
        pointers.dedup();
        if self.root.animations.len() < 2 || (keyed.is_empty() && pointers.is_empty()) {
            return;
        }
        let start = self.times(&[0.0]);
        self.last_input = Some((vec![0.0], start));
        let mut held: HashMap<String, u32> = HashMap::new();
        for a in 0..self.root.animations.len() {
            let Some(slot) = self.root.animations.get_mut(a) else { continue };
            let empty = json::Animation {
                extensions: None,
                extras: None,
                channels: Vec::new(),
                name: None,
                samplers: Vec::new(),
            };
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
                        let value = self.rest_value(*node, path);
                        // Weights are scalars, one per target; the rest one value of its width.
                        let width = if *path == Property::MorphTargetWeights { 1 } else { value.len().max(1) };
                        let output = self.floats(&value, width, false, None);
                        held.insert(key, output);
                        output
                    }
                };
                self.channel(&mut animation, *node, *path, &[0.0], output, false);
            }
            if let Some(slot) = self.root.animations.get_mut(a) {
                *slot = animation;
            }
            let own_pointers: Vec<String> =
                self.pointer_channels.get(a).map(|p| p.iter().map(|c| c.pointer.clone()).collect()).unwrap_or_default();
            for pointer in &pointers {
                if own_pointers.contains(pointer) {
                    continue;
                }
                let value = self.rest_pointer_value(pointer);
                let output = self.floats(&value, value.len().max(1), false, None);
                if let Some(list) = self.pointer_channels.get_mut(a) {
                    list.push(PointerChannel { pointer: pointer.clone(), input: start, output });
                }
            }
        }
    }

    /// The rest value of a node's property, as the node was written (weights: the mesh's own).
    fn rest_value(&self, node: u32, path: &json::animation::Property) -> Vec<f32> {
        use json::animation::Property;
        let Some(n) = self.root.nodes.get(node as usize) else { return Vec::new() };
        match path {
            Property::Translation => n.translation.unwrap_or([0.0; 3]).to_vec(),
            Property::Rotation => n.rotation.map_or([0.0, 0.0, 0.0, 1.0], |r| r.0).to_vec(),
            Property::Scale => n.scale.unwrap_or([1.0; 3]).to_vec(),
            Property::MorphTargetWeights => {
                let mesh = n.mesh.and_then(|m| self.root.meshes.get(m.value()));
                let targets =
                    mesh.and_then(|m| m.primitives.first()).and_then(|p| p.targets.as_ref()).map_or(0, Vec::len);
                mesh.and_then(|m| m.weights.clone()).unwrap_or_else(|| vec![0.0; targets])
            }
        }
    }

    /// The rest value of a material property an animation pointer names: as the material was
    /// written, else the property's default (a texture transform's identity, a white factor).
    fn rest_pointer_value(&self, pointer: &str) -> Vec<f32> {
        let written =
            pointer.strip_prefix("/materials/").and_then(|rest| rest.split_once('/')).and_then(|(index, path)| {
                let material = self.root.materials.get(index.parse::<usize>().ok()?)?;
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

    /// TPW node channels (rotation, eased rotation, position, axis scale, path progress) of one
    /// node: its local matrix as the viewer poses it ([`animated_node_local`]), sampled at the
    /// keys (and on a grid where the curve is not linear between keys), refined until linear
    /// keys follow it within the tolerance, and written on the node's TRS. A chain keeps its
    /// fixed stretch `V·Σ·Vᵀ`: the translation goes on the outer node, and the rest of the
    /// matrix (`stretch⁻¹ · linear`: the keyed rotation, and any axis scale) on the inner one.
    ///
    /// A node that rides a face of a mesh the clip morphs ([`crate::scene::FaceAnchor`]) is
    /// posed by the viewer's whole pose instead, sampled at the mesh's morph keys: between them
    /// the morph weights, and so the point on the face, blend linearly.
    fn node_motion(&mut self, animation: &mut json::Animation, c: usize, node: usize) {
        let scene = self.scene;
        let Some(clip) = scene.clips.get(c) else { return };
        let (Some(placed), Some(form)) = (self.placed.get(node).copied(), self.node_forms.get(node).copied()) else {
            return;
        };
        // The node's own channels, picked once: a file may hold thousands of channels.
        let own: Vec<&Channel> = clip.channels.iter().filter(|c| c.moved_node() == Some(node)).collect();
        let mut key_times: Vec<f32> = Vec::new();
        let mut grid = false;
        // Where the motion jumps (a channel starts or stops acting): a sample just beside it.
        let mut jumps: Vec<f32> = Vec::new();
        for channel in own.iter().copied() {
            match channel {
                Channel::NodeRotation { keys, .. } => key_times.extend(keys.iter().map(|k| k.time)),
                Channel::NodeRotationEased { keys, ease, .. } => {
                    key_times.extend(keys.iter().map(|k| k.time));
                    grid |= ease.iter().any(Option::is_some);
                }
                Channel::NodePosition { curve, .. } => {
                    key_times.extend(curve.keys.iter().map(|k| k.time));
                    grid |= curve.interpolation != crate::scene::Interpolation::Linear;
                    jumps.extend(curve.keys.first().map(|k| k.time - JUMP_GAP));
                }
                Channel::NodeAxisScale { keys, .. } => key_times.extend(keys.iter().map(|k| k.time)),
                Channel::NodePathProgress { start, values, .. } => {
                    // One value per frame; past MAX_GRID of them the grid and refinement cover it.
                    key_times.extend((0..values.len().min(MAX_GRID)).map(|i| start + i as f32));
                    grid = true;
                    let end = start + values.len().saturating_sub(1) as f32;
                    jumps.extend([start - JUMP_GAP, end + JUMP_GAP]);
                }
                _ => {}
            }
        }
        let ridden_keys = self.ridden_keys(c, node);
        let rides = ridden_keys.is_some();
        key_times.extend(ridden_keys.into_iter().flatten().map(|&(t, _)| t));
        if grid {
            // Outside its keys a channel holds, so the grid spans the keys only.
            let (low, high) =
                key_times.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &t| (l.min(t), h.max(t)));
            key_times.extend(grid_between(clip, low, high));
        }
        key_times.extend(jumps);
        let fixed_stretch = match form {
            NodeTransform::Single(_) => None,
            NodeTransform::Chain { outer, middle, .. } => {
                Some((Trs { translation: Vec3::ZERO, ..outer }.matrix() * middle.matrix()).inverse())
            }
        };
        let local_at = |t: f32| -> Trs {
            let local = if rides {
                crate::scene::anim::Pose::at(scene, Some(c), t).locals.get(node).copied().unwrap_or(Mat4::IDENTITY)
            } else {
                animated_node_local(scene, own.iter().copied(), node, t)
            };
            match fixed_stretch {
                None => to_trs(&local),
                Some(unstretch) => {
                    let mut linear = local;
                    linear.w_axis = glam::Vec4::W;
                    Trs { translation: local.w_axis.truncate(), ..to_trs(&(unstretch * linear)) }
                }
            }
        };
        let given = self.take_samples(clip_times(clip, key_times, false));
        if given.is_empty() {
            return;
        }
        let times = refine(given, &local_at, self.limits(), &mut self.samples);
        let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
        let locals: Vec<Trs> = times.iter().map(|&t| local_at(t)).collect();
        // A single node is its own outer and rotated node; a chain splits the two.
        self.trs_channels(animation, [placed.outer, placed.rotated], &seconds, &locals);
    }

    /// The morph keys of clip `c` on the mesh whose face `node` is anchored to, when the clip
    /// morphs that mesh (the node then rides the face).
    fn ridden_keys(&self, c: usize, node: usize) -> Option<&[(f32, usize)]> {
        let anchor = self.scene.nodes.get(node).and_then(|n| n.anchor.as_deref())?;
        let keys = self.morphs.get(anchor.mesh).and_then(|plan| plan.keys.get(&c))?;
        (!keys.is_empty()).then_some(keys.as_slice())
    }

    /// A node's visibility as a STEP scale (0 or 1) on the child that carries its mesh: every
    /// visibility channel of the node applied in order, the last key at or before the time of
    /// each deciding, as the viewer does (the clip's hide list, then the track's switches).
    fn node_visibility(&mut self, animation: &mut json::Animation, clip: &Clip, node: usize) {
        let Some(&holder) = self.visibility_nodes.get(&node) else { return };
        let switches: Vec<&[Key<bool>]> = clip
            .channels
            .iter()
            .filter_map(|c| match c {
                Channel::NodeVisibility { node: n, keys } if *n == node => Some(keys.as_slice()),
                _ => None,
            })
            .collect();
        let times = clip_times(clip, switches.iter().flat_map(|keys| keys.iter().map(|k| k.time)), false);
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| {
                let shown =
                    switches.iter().fold(true, |shown, keys| last_at_or_before(keys, t).map_or(shown, |k| k.value));
                if shown { Vec3::ONE } else { Vec3::ZERO }
            })
            .collect();
        let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
        self.vectors(animation, holder, json::animation::Property::Scale, &seconds, &values, true);
    }

    /// Weights output for one-hot keys: sparse when that is smaller than dense.
    fn one_hot_weights(&mut self, keys: &[(f32, usize)], target_count: usize) -> u32 {
        use json::accessor::{ComponentType, Type};
        let count = keys.len() * target_count;
        let dense_bytes = count * 4;
        let sparse_bytes = keys.len() * 8;
        if sparse_bytes < dense_bytes {
            let indices: Vec<u32> = keys.iter().enumerate().map(|(k, &(_, t))| (k * target_count + t) as u32).collect();
            let values = vec![1f32; keys.len()];
            let index_view = self.view(bytemuck::cast_slice(&indices), None);
            let value_view = self.view(bytemuck::cast_slice(&values), None);
            let sparse = json::accessor::sparse::Sparse {
                count: usize64(keys.len()),
                indices: json::accessor::sparse::Indices {
                    buffer_view: index(index_view),
                    byte_offset: USize64(0),
                    component_type: Valid(json::accessor::IndexComponentType(ComponentType::U32)),
                    extensions: None,
                    extras: None,
                },
                values: json::accessor::sparse::Values {
                    buffer_view: index(value_view),
                    byte_offset: USize64(0),
                    extensions: None,
                    extras: None,
                },
                extensions: None,
                extras: None,
            };
            self.accessor(None, count, ComponentType::F32, Type::Scalar, None, Some(sparse))
        } else {
            let mut dense = vec![0f32; count];
            for (k, &(_, t)) in keys.iter().enumerate() {
                if let Some(w) = dense.get_mut(k * target_count + t) {
                    *w = 1.0;
                }
            }
            self.floats(&dense, 1, false, None)
        }
    }

    /// MDR: per-frame model-space joint matrices become joint TRS keys, with sub-samples
    /// between frames (the engine blends matrices element-wise).
    fn bone_frames(
        &mut self,
        animation: &mut json::Animation,
        clip: &Clip,
        skeleton: usize,
        times: &[f32],
        frames: &[Vec<Mat4>],
    ) {
        let Some(joint_nodes) = self.joint_nodes.get(skeleton).cloned() else { return };
        let Some(skel) = self.scene.skeletons.get(skeleton) else { return };
        let frame_times = clip_times(clip, times.iter().copied(), false);
        for (j, &node) in joint_nodes.iter().enumerate() {
            let parent = skel.joints.get(j).and_then(|joint| joint.parent).filter(|&p| p < j);
            let local_at = |t: f32| -> Trs {
                let pose = blend_frames(times, frames, t);
                let m = pose.get(j).copied().unwrap_or(Mat4::IDENTITY);
                let p = parent.and_then(|p| pose.get(p)).copied().unwrap_or(Mat4::IDENTITY);
                to_trs(&(p.inverse() * m))
            };
            let given = self.take_samples(frame_times.clone());
            if given.is_empty() {
                continue;
            }
            let sample_times = refine(given, &local_at, self.limits(), &mut self.samples);
            let seconds: Vec<f32> = sample_times.iter().map(|&t| clip_seconds(clip, t)).collect();
            let locals: Vec<Trs> = sample_times.iter().map(|&t| local_at(t)).collect();
            self.trs_channels(animation, [node, node], &seconds, &locals);
        }
    }

    /// Translation channels on `moved`, rotation and scale on `turned` (the same node but for a
    /// sheared node's chain).
    fn trs_channels(
        &mut self,
        animation: &mut json::Animation,
        [moved, turned]: [u32; 2],
        seconds: &[f32],
        locals: &[Trs],
    ) {
        use json::animation::Property;
        let t: Vec<Vec3> = locals.iter().map(|l| l.translation).collect();
        let r: Vec<Quat> = locals.iter().map(|l| l.rotation).collect();
        let s: Vec<Vec3> = locals.iter().map(|l| l.scale).collect();
        self.vectors(animation, moved, Property::Translation, seconds, &t, false);
        self.rotations(animation, turned, seconds, &r);
        self.vectors(animation, turned, Property::Scale, seconds, &s, false);
    }

    /// M2: keyed TRS about each joint's pivot. The joint's matrix is `parent · T(p+t)·R·S·T(-p)`
    /// and its node is that times `T(p)` ([`Self::joint_bind`]), so the node's local is
    /// `T(p - p_parent + t)·R·S`: the keys as they are, the translation offset by the pivots.
    /// Joints without a track hold their rest.
    fn bone_tracks(
        &mut self,
        animation: &mut json::Animation,
        clip: &Clip,
        skeleton: usize,
        tracks: &[crate::scene::JointTracks],
    ) {
        let Some(joint_nodes) = self.joint_nodes.get(skeleton).cloned() else { return };
        let Some(skel) = self.scene.skeletons.get(skeleton) else { return };
        for (j, &node) in joint_nodes.iter().enumerate() {
            let parent = skel.joints.get(j).and_then(|joint| joint.parent).filter(|&p| p < j);
            let offset = self.joint_pivot(skeleton, j) - parent.map_or(Vec3::ZERO, |p| self.joint_pivot(skeleton, p));
            let track = tracks.iter().find(|t| t.joint == j);
            let local_at = |time: f32| -> Trs {
                let Some(track) = track else {
                    return Trs { translation: offset, ..Trs::IDENTITY };
                };
                let [tt, rt, st] = track.timing;
                let t = sample_curve(&track.translation, tt.apply(time, time)).unwrap_or(Vec3::ZERO);
                let r = sample_curve(&track.rotation, rt.apply(time, time)).unwrap_or(Quat::IDENTITY);
                let s = sample_curve(&track.scale, st.apply(time, time)).unwrap_or(Vec3::ONE);
                Trs { translation: offset + t, rotation: r, scale: s }
            };
            let times = match track {
                Some(track) => {
                    let [tt, rt, st] = track.timing;
                    let mut key_times = track_times(clip, track.translation.keys.iter().map(|k| k.time), tt);
                    key_times.extend(track_times(clip, track.rotation.keys.iter().map(|k| k.time), rt));
                    key_times.extend(track_times(clip, track.scale.keys.iter().map(|k| k.time), st));
                    self.take_samples(clip_times(clip, key_times, false))
                }
                None => self.take_samples(vec![clip.start]),
            };
            if times.is_empty() {
                continue;
            }
            let times = refine(times, &local_at, self.limits(), &mut self.samples);
            let locals: Vec<Trs> = times.iter().map(|&time| local_at(time)).collect();
            let seconds: Vec<f32> = times.iter().map(|&t| clip_seconds(clip, t)).collect();
            self.trs_channels(animation, [node, node], &seconds, &locals);
        }
    }

    /// M2 colour and alpha tracks of one material as its animated `baseColorFactor`: the last
    /// colour channel's RGB and the product of the alpha channels, as the viewer combines them.
    fn material_color(&mut self, clip: &Clip, material: usize) -> Option<PointerChannel> {
        let base = self.scene.materials.get(material)?.base_color;
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
        let times = self.take_samples(clip_times(clip, key_times, cubic));
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
        let input = self.times(&seconds);
        let output = self.floats(&values, 4, false, None);
        Some(PointerChannel {
            pointer: format!("/materials/{material}/pbrMetallicRoughness/baseColorFactor"),
            input,
            output,
        })
    }

    // ---------------------------------------------------------------- the document

    fn finish(mut self) -> Result<Document> {
        let scene = self.scene;
        // A buffer must hold at least one byte: a file with nothing binary (a model of tags
        // alone) has none.
        if !self.bin.is_empty() {
            self.root.buffers.push(json::Buffer {
                byte_length: usize64(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        self.root.extensions_used = self.extensions.iter().map(|s| s.to_string()).collect();
        let mut value = serde_json::to_value(&self.root).context("serialising the glTF JSON")?;
        // gltf-json 1.4 cannot express KHR_animation_pointer (its channel target must name a
        // node and a built-in path), so those channels are added to the serialised JSON.
        if let Some(animations) = value.get_mut("animations").and_then(Value::as_array_mut) {
            for (animation, pointers) in animations.iter_mut().zip(&self.pointer_channels) {
                // gltf-json leaves out empty arrays; an animation of pointers only needs them.
                for key in ["channels", "samplers"] {
                    if animation.get(key).is_none() {
                        animation[key] = json!([]);
                    }
                }
                for p in pointers {
                    let samplers = animation["samplers"].as_array_mut();
                    let Some(samplers) = samplers else { continue };
                    samplers.push(json!({ "input": p.input, "output": p.output, "interpolation": "LINEAR" }));
                    let sampler = samplers.len() - 1;
                    if let Some(channels) = animation["channels"].as_array_mut() {
                        channels.push(json!({
                            "sampler": sampler,
                            "target": {
                                "path": "pointer",
                                "extensions": { "KHR_animation_pointer": { "pointer": p.pointer } }
                            }
                        }));
                    }
                }
            }
        }
        let source = scene.path.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
        value["asset"]["extras"] = json!({
            "source": source,
            "format": scene.format.id(),
            "units": "metres as stored",
            "axes": "Y up, right-handed (as glTF); the decoder turned Z-up sources",
            "time": "seconds from each clip's start: (t - start) / rate in the clip's units",
            "notes": self.notes,
        });
        Ok(Document { json: value, bin: self.bin, notes: self.notes })
    }
}

/// Adds sample times between `times` until linear keys (slerp for the rotation) follow
/// `local_at` within `tolerance` (scene units; rotation and scale errors count at `reach`, the
/// model's size), halving an interval at most 8 times. Needed where a written value is not linear
/// between keys: folded pivots, cubic curves, loops that wrap mid-interval. Then rotation
/// intervals wide enough for a component-wise blend to stray from the slerp by more than
/// `tolerance` at `lever` get equal steps ([`blend::nlerp_safe_times`]).
fn refine(
    times: Vec<f32>,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, reach, lever]: [f32; 3],
    budget: &mut SampleBudget,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(times.len());
    for pair in times.windows(2) {
        if let [t0, t1] = *pair {
            out.push(t0);
            split_interval(t0, t1, 0, local_at, [tolerance, reach], budget, &mut out);
        }
    }
    out.extend(times.last().copied());
    blend::nlerp_safe_times(out, local_at, [tolerance, lever], budget)
}

fn split_interval(
    t0: f32,
    t1: f32,
    depth: u32,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, reach]: [f32; 2],
    budget: &mut SampleBudget,
    out: &mut Vec<f32>,
) {
    if budget.left == 0 {
        return;
    }
    let (a, b) = (local_at(t0), local_at(t1));
    let rb = if a.rotation.dot(b.rotation) < 0.0 { -b.rotation } else { b.rotation };
    let worst = [0.25f32, 0.5, 0.75]
        .iter()
        .map(|&f| {
            let truth = local_at(t0 + (t1 - t0) * f);
            let t = (a.translation.lerp(b.translation, f) - truth.translation).length();
            let s = (a.scale.lerp(b.scale, f) - truth.scale).length();
            let r = a.rotation.slerp(rb, f).angle_between(truth.rotation);
            t + (s + r) * reach
        })
        .fold(0f32, f32::max);
    if depth < 8 && worst > tolerance {
        if budget.left == 0 {
            budget.exhausted = true;
            return;
        }
        budget.left -= 1;
        let mid = 0.5 * (t0 + t1);
        split_interval(t0, mid, depth + 1, local_at, [tolerance, reach], budget, out);
        out.push(mid);
        split_interval(mid, t1, depth + 1, local_at, [tolerance, reach], budget, out);
    }
}

/// Sample times (clip units) for a channel: its key times inside the clip, the clip's bounds,
/// and a grid when `grid`; strictly increasing once turned into seconds.
fn clip_times(clip: &Clip, key_times: impl IntoIterator<Item = f32>, grid: bool) -> Vec<f32> {
    let (start, end) = (clip.start, clip.end.max(clip.start));
    let mut times: Vec<f32> = key_times.into_iter().filter(|t| t.is_finite() && *t >= start && *t <= end).collect();
    times.push(start);
    times.push(end);
    if grid {
        times.extend(grid_between(clip, start, end));
    }
    times.sort_by(f32::total_cmp);
    let mut out: Vec<f32> = Vec::with_capacity(times.len());
    for t in times {
        if out.last().is_none_or(|&last| clip_seconds(clip, t) > clip_seconds(clip, last) + 1e-6) {
            out.push(t);
        }
    }
    out
}

/// Keys in the scene's clips and global channels: what the sample budget scales with, since
/// each key took bytes of the file.
fn key_count(scene: &Scene) -> usize {
    let channel_keys = |channel: &Channel| -> usize {
        match channel {
            Channel::NodeRotation { keys, .. } | Channel::NodeRotationEased { keys, .. } => keys.len(),
            Channel::NodePosition { curve, .. } => curve.keys.len(),
            Channel::NodeAxisScale { keys, .. } => keys.len(),
            Channel::NodePathProgress { values, .. } => values.len(),
            Channel::NodeVisibility { keys, .. } => keys.len(),
            Channel::VertexMorph { blocks, .. } => blocks.iter().map(|b| b.times.len()).sum(),
            Channel::VertexFrames { times, .. } => times.len(),
            Channel::PackedFrames(packed) => packed.frames.len(),
            Channel::UvKeys { slots, .. } => slots.iter().map(|s| s.keys.len()).sum(),
            Channel::BoneFrames { times, frames, .. } => {
                times.len().saturating_mul(frames.first().map_or(1, Vec::len).max(1))
            }
            Channel::BoneTracks { joints, .. } => {
                joints.iter().map(|j| j.translation.keys.len() + j.rotation.keys.len() + j.scale.keys.len()).sum()
            }
            Channel::MaterialColor { keys, .. } => keys.keys.len(),
            Channel::MaterialAlpha { keys, .. } => keys.keys.len(),
            Channel::UvTransform { translation, rotation, scale, .. } => {
                translation.keys.len() + rotation.keys.len() + scale.keys.len()
            }
        }
    };
    scene
        .clips
        .iter()
        .flat_map(|c| &c.channels)
        .chain(&scene.global_channels)
        .map(channel_keys)
        .fold(0, usize::saturating_add)
}

/// Grid times between `low` and `high` (clip units) at [`GRID_PER_SECOND`], clamped to the clip;
/// at most [`MAX_GRID`] of them (a longer span gets a coarser grid).
fn grid_between(clip: &Clip, low: f32, high: f32) -> Vec<f32> {
    let (low, high) = (low.max(clip.start), high.min(clip.end));
    if !(low.is_finite() && high.is_finite() && high > low) {
        return Vec::new();
    }
    let step = (clip_rate(clip) / GRID_PER_SECOND).max((high - low) / MAX_GRID as f32);
    let steps = ((high - low) / step).floor() as usize;
    (1..steps.min(MAX_GRID)).map(|k| low + k as f32 * step).collect()
}

/// Whether material `index` samples its meshes' second texture coordinate set
/// ([`crate::scene::Mesh::samples_second_uv_set`]) in the export: only where every mesh drawing
/// with it has one, since a glTF primitive must carry the set its material names.
fn samples_second_set(scene: &Scene, index: usize) -> bool {
    let Some(material) = scene.materials.get(index) else { return false };
    material.uv_set == 1
        && scene.meshes.iter().all(|mesh| {
            let draws_with_it = mesh.submeshes.iter().any(|sub| sub.material == Some(index));
            !draws_with_it || mesh.samples_second_uv_set(material)
        })
}

/// Key times of a track as they fall in the clip: as they are, or repeated every period for
/// tracks on their own loop (M2 global sequences).
fn track_times(clip: &Clip, keys: impl Iterator<Item = f32>, timing: TrackTime) -> Vec<f32> {
    match timing {
        TrackTime::Clip => keys.collect(),
        TrackTime::Loop { period } if period > 0.0 && period.is_finite() => {
            let mut out = Vec::new();
            let first_loop = (clip.start / period).floor();
            for key in keys {
                let mut n = first_loop;
                while out.len() < MAX_GRID {
                    let t = key + n * period;
                    if t > clip.end {
                        break;
                    }
                    out.push(t);
                    n += 1.0;
                }
            }
            // Each loop's wrap is a jump; the grid bounds the blur of it.
            let mut n = first_loop + 1.0;
            while n * period <= clip.end && out.len() < MAX_GRID {
                out.push(n * period);
                n += 1.0;
            }
            out
        }
        TrackTime::Loop { .. } => Vec::new(),
    }
}

fn clip_rate(clip: &Clip) -> f32 {
    if clip.rate.is_finite() && clip.rate > 0.0 { clip.rate } else { 1.0 }
}

/// Seconds from the clip's start of clip time `t`.
pub fn clip_seconds(clip: &Clip, t: f32) -> f32 {
    (t - clip.start) / clip_rate(clip)
}

fn last_at_or_before<T>(keys: &[Key<T>], time: f32) -> Option<&Key<T>> {
    let n = keys.partition_point(|k| k.time <= time);
    n.checked_sub(1).and_then(|i| keys.get(i))
}

/// Element-wise blend of the two frames around `t`, as [`Pose`] does for MDR bones.
fn blend_frames(times: &[f32], frames: &[Vec<Mat4>], t: f32) -> Vec<Mat4> {
    let last = times.len().saturating_sub(1);
    let upper = times.partition_point(|&ft| ft <= t).min(last);
    let lower = upper.saturating_sub(1);
    let (Some(&t0), Some(&t1)) = (times.get(lower), times.get(upper)) else { return Vec::new() };
    let f = if t1 > t0 { ((t - t0) / (t1 - t0)).clamp(0.0, 1.0) } else { 0.0 };
    let (lower, f) = if t <= t0 { (lower, 0.0) } else { (lower, f) };
    let (Some(a), Some(b)) = (frames.get(lower), frames.get(upper)) else { return Vec::new() };
    a.iter().zip(b).map(|(ma, mb)| *ma * (1.0 - f) + *mb * f).collect()
}

/// The viewer's texture transform `T(t + c)·R·S·T(-c)` about the centre `c = (0.5, 0.5)` as
/// KHR_texture_transform's `T(offset)·R(rotation)·S(scale)`: offset, angle and scale.
fn texture_transform(translation: Vec3, rotation: Quat, scale: Vec3) -> (Vec2, f32, Vec2) {
    let angle = 2.0 * rotation.z.atan2(rotation.w);
    let centre = Vec2::splat(0.5);
    let s = scale.truncate();
    let turned = Vec2::from_angle(angle).rotate(s * centre);
    (translation.truncate() + centre - turned, angle, s)
}

fn mesh_uses_material(scene: &Scene, mesh: usize, material: usize) -> bool {
    scene.meshes.get(mesh).is_some_and(|m| m.submeshes.iter().any(|s| s.material == Some(material)))
}

/// Up to four joints and weights per render vertex: the heaviest influences, repeated joints
/// merged, weights renormalised to sum to 1, unused slots zero.
fn four_influences(mesh: &crate::scene::Mesh, skin: &crate::scene::SkinWeights) -> (Vec<[u16; 4]>, Vec<f32>) {
    let mut joints = Vec::with_capacity(mesh.vertex_count());
    let mut weights = Vec::with_capacity(mesh.vertex_count() * 4);
    for &source in &mesh.vertex_source {
        let mut merged: Vec<(u32, f32)> = Vec::new();
        if let Some(&(start, count)) = skin.ranges.get(source as usize) {
            let end = (start as usize).saturating_add(count as usize);
            for inf in skin.influences.get(start as usize..end).unwrap_or(&[]) {
                if inf.weight.is_nan() || inf.weight <= 0.0 {
                    continue;
                }
                match merged.iter_mut().find(|(j, _)| *j == inf.joint) {
                    Some(slot) => slot.1 += inf.weight,
                    None => merged.push((inf.joint, inf.weight)),
                }
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged.truncate(4);
        let total: f32 = merged.iter().map(|(_, w)| w).sum();
        let mut j4 = [0u16; 4];
        let mut w4 = [0f32; 4];
        if total > 0.0 {
            for (k, (j, w)) in merged.iter().enumerate() {
                if let (Some(js), Some(ws)) = (j4.get_mut(k), w4.get_mut(k)) {
                    *js = u16::try_from(*j).unwrap_or(0);
                    *ws = w / total;
                }
            }
        } else {
            w4[0] = 1.0;
        }
        joints.push(j4);
        weights.extend_from_slice(&w4);
    }
    (joints, weights)
}

/// A TRS for a matrix known to be one (joint poses); shear, if any, is dropped.
fn to_trs(m: &Mat4) -> Trs {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    if scale.is_finite() && rotation.is_finite() && translation.is_finite() {
        Trs { translation, rotation: rotation.normalize(), scale }
    } else {
        Trs::IDENTITY
    }
}

/// The per-time UV offset of a TPW UV animation when it is one offset for every render vertex
/// of the mesh, checked at each key time and halfway between: `(times, offsets)` in clip units.
fn uniform_uv_offsets(
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
