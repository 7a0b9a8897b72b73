//! Builds the format-neutral scene from a decoded `.m2` and one `.skin` profile: one mesh per
//! skin submesh, one material per texture unit, the bone skeleton with per-sequence TRS
//! tracks, colour/alpha and texture-transform channels, and marker nodes for attachments,
//! events, lights, cameras and emitters. Every index into the .m2 or the skin is checked here;
//! a bad one drops the thing it names with a warning.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::axes;
use super::layout::*;
use super::model::{ColorAnim, M2Model, MarkerKind, Vertex};
use super::names;
use super::skin::{Skin, TextureUnit};
use super::tracks::Track;
use crate::scene::anim::{CurveValue, sample_curve};
use crate::scene::{
    Aabb, AlphaMode, BlendMode, Channel, Clip, Curve, DetailRow, DetailSection, FormatKind, Influence, Joint,
    JointTracks, Key, LayerCombine, Material, Mesh, Node, NodeKind, RawField, Scene, SceneKind, Skeleton, SkinWeights,
    Submesh, TextureLayer, TextureWrap, TrackReport, TrackTime,
};

/// What the scene builder needs besides the decoded files.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The texture file used for run-time (non-zero type) textures, which have no name in the
    /// model; `None` leaves them without a texture.
    pub replaceable_texture: Option<String>,
}

/// Keys clips may play per byte of input (a global track plays in every clip). Clips view the
/// keys rather than copy them, but each entry's joint, report and sampling cost follow them.
const CLIP_KEYS_PER_INPUT_BYTE: u64 = 16;

/// What one bone's entry in a clip (its joint tracks and track report, about 490 bytes: the
/// report holds its lists inline) counts against that key budget on top of its keys. A
/// global-sequence track plays in every clip, so a crafted file whose sequence and bone tables
/// overlap could otherwise ask for sequences × bones entries of one key each: gigabytes of
/// entries from a 1 MB file.
const KEYS_PER_CLIP_ENTRY: u64 = 30;

/// Keys in one track's share of a clip (0 where the track does not play).
fn keys_in<T>(taken: &Option<(Curve<T>, TrackTime)>) -> usize {
    taken.as_ref().map_or(0, |(keys, _)| keys.len())
}

/// Takes one clip entry of `keys` keys (plus [`KEYS_PER_CLIP_ENTRY`]) from `budget`; `false`,
/// leaving the budget as it is, where it does not fit.
fn spend_keys(budget: &mut u64, keys: usize) -> bool {
    let cost = (keys as u64).saturating_add(KEYS_PER_CLIP_ENTRY);
    if cost > *budget {
        return false;
    }
    *budget -= cost;
    true
}

/// The blend mode of render-flags entry `mode`, or `None` outside 0..=7.
pub fn blend_mode(mode: u16) -> Option<BlendMode> {
    Some(match mode {
        0 => BlendMode::Opaque,
        1 => BlendMode::AlphaKey,
        2 => BlendMode::Alpha,
        3 => BlendMode::NoAlphaAdd,
        4 => BlendMode::Add,
        5 => BlendMode::Mod,
        6 => BlendMode::Mod2x,
        7 => BlendMode::BlendAdd,
        _ => return None,
    })
}

/// Clip names: the animation name, with `.variation` when non-zero (`Stand`, `Stand.1`).
pub fn sequence_name(id: u16, variation: u16) -> String {
    let base = names::animation_name(id);
    if variation == 0 { base } else { format!("{base}.{variation}") }
}

/// Which sequence's keys to take, and whether they were lost with a missing `.anim` file.
#[derive(Clone, Copy)]
struct SequenceKeys {
    index: usize,
    /// The sequence's .anim file is missing: only global-sequence tracks play, the rest of the
    /// model holds its bind pose.
    missing: bool,
}

/// Keys of `track` for `sequence`, or `None` when the track does not animate it.
/// Only the playing sequence's own keys count, or the keys of the track's global sequence: a
/// track without keys in the sequence contributes nothing, so that component stays at rest
/// (no translation, identity rotation, scale 1). This follows WoW Model Viewer, where
/// `Animated::uses(anim)` is false and the bone takes no transform from the track, and
/// wow.export, where `has_trans`/`has_rot`/`has_scale` are false and the part stays identity.
/// A track of a sequence whose .anim file is missing is left out too (bind pose), unless it
/// is global. Values are used as stored: colours, alphas and texture transforms have no axes,
/// and bone keys were read in scene axes.
///
/// The keys are a view of the track's list, decoded once ([`Track::curve`]): a clip shares
/// them, and whether the track plays is read from its table of runs alone, so building the
/// clips of a model with many sequences and bones neither copies keys nor visits the keys of
/// tracks that do not play.
fn clip_keys<T: Copy>(track: &Track<T>, sequence: SequenceKeys) -> Option<(Curve<T>, TrackTime)> {
    let (list, _, time) = clip_key_count(track, sequence)?;
    Some((track.curve(list), time))
}

/// Which of the track's lists [`clip_keys`] would view, its key count and timing, without
/// making the view.
fn clip_key_count<T: Copy>(track: &Track<T>, sequence: SequenceKeys) -> Option<(usize, usize, TrackTime)> {
    if sequence.missing && track.global_sequence.is_none() {
        return None;
    }
    let (list, time) = track.playing(sequence.index);
    let keys = track.keys_in(list);
    (keys > 0).then_some((list, keys, time))
}

/// Texture flags 0x1 (wrap X) and 0x2 (wrap Y) choose repeat on that axis; without them the
/// axis clamps, as WoW Model Viewer sets `GL_CLAMP_TO_EDGE` and wow.export `CLAMP_TO_EDGE`.
pub fn texture_wrap(flags: u32) -> [TextureWrap; 2] {
    let axis = |bit: u32| if flags & bit != 0 { TextureWrap::Repeat } else { TextureWrap::Clamp };
    [axis(TEXTURE_FLAG_WRAP_X), axis(TEXTURE_FLAG_WRAP_Y)]
}

/// A texture unit's colour animation, by its index; `None` for -1 or an index that points
/// nowhere.
fn unit_color<'a>(model: &'a M2Model, unit: &TextureUnit) -> Option<&'a ColorAnim> {
    usize::try_from(unit.color).ok().and_then(|c| model.colors.get(c))
}

/// A texture unit's transparency track, through the transparency lookup; `None` where either
/// points nowhere.
fn unit_transparency<'a>(model: &'a M2Model, unit: &TextureUnit) -> Option<&'a Track<f32>> {
    model
        .transparency_lookup
        .get(usize::from(unit.weight_combo))
        .and_then(|&t| model.transparencies.get(usize::from(t)))
}

/// A texture unit's texture coordinate set through the lookup: 0 or 1, negative for a sphere
/// map; `None` where the lookup points nowhere.
fn unit_coord_set(model: &M2Model, unit: &TextureUnit) -> Option<i16> {
    model.texcoord_lookup.get(usize::from(unit.texcoord_combo)).copied()
}

/// The coordinate set of a unit's second texture: the lookup's next entry after its first.
fn second_coord_set(model: &M2Model, unit: &TextureUnit) -> Option<i16> {
    usize::from(unit.texcoord_combo).checked_add(1).and_then(|i| model.texcoord_lookup.get(i)).copied()
}

/// Where a unit's colour and transparency come from when the playing sequence has no keys:
/// sequence 0, as WoW Model Viewer reads them (`ModelRenderPass::init` asks
/// `color.uses(0)` and `getValue(0, animtime)`, likewise `transparency[..].trans`), and a
/// neutral value (white, opaque) where sequence 0 has none either. A colour's own alpha has no
/// such fallback: WMV reads it from the playing sequence alone (`opacity.uses(anim)`) and
/// otherwise keeps 1.
fn fallback_sequence(model: &M2Model) -> SequenceKeys {
    SequenceKeys { index: 0, missing: model.anim_present.first().copied().flatten() == Some(false) }
}

/// A track's value at time 0 of `sequence` (of its loop, for a global track), or `neutral`
/// where it has no keys there.
fn value_at_start<T: CurveValue>(track: &Track<T>, sequence: SequenceKeys, neutral: T) -> T {
    clip_keys(track, sequence).and_then(|(curve, _)| sample_curve(&curve, 0.0)).unwrap_or(neutral)
}

/// A unit's rest colour: WMV's answer for sequence 0 at its start (rgb and colour alpha from
/// the colour, times the transparency weight), white and opaque where nothing is keyed there.
fn rest_color(model: &M2Model, unit: &TextureUnit) -> Vec4 {
    let first = fallback_sequence(model);
    let color = unit_color(model, unit);
    let rgb = color.map_or(Vec3::ONE, |c| value_at_start(&c.rgb, first, Vec3::ONE));
    let alpha = color.map_or(1.0, |c| value_at_start(&c.alpha, first, 1.0))
        * unit_transparency(model, unit).map_or(1.0, |t| value_at_start(t, first, 1.0));
    rgb.extend(alpha.clamp(0.0, 1.0))
}

/// Builds the scene. `skin` is the chosen profile (`None`: no geometry, only the skeleton,
/// clips and markers).
///
/// Clips view the model's track keys ([`Track::curve`]); nothing is copied or moved out.
pub fn build(model: &M2Model, skin: Option<&Skin>, options: &BuildOptions, input_len: u64) -> Scene {
    let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
    scene.version = model.version;
    scene.warnings = model.warnings.clone();
    scene.raw = vec![
        RawField::new("global flags", HDR_FLAGS, u64::from(model.flags)),
        RawField::new("skin profile count", HDR_SKIN_PROFILE_COUNT, u64::from(model.skin_profile_count)),
    ];
    let name = if model.name.is_empty() { "model".to_string() } else { model.name.clone() };
    scene.nodes.push(Node::new(name.clone(), NodeKind::Transform, Mat4::IDENTITY));

    build_skeleton(model, &mut scene);
    let mesh_of_submesh = match skin {
        Some(skin) => build_meshes(model, skin, &mut scene),
        None => Vec::new(),
    };
    let unit_materials = match skin {
        Some(skin) => build_materials(model, skin, &mesh_of_submesh, options, &mut scene),
        None => Vec::new(),
    };
    build_clips(model, skin, &unit_materials, input_len, &mut scene);
    build_markers(model, &mut scene);
    model_details(model, skin, options, &mut scene);
    scene
}

fn build_skeleton(model: &M2Model, scene: &mut Scene) {
    if model.bones.is_empty() {
        return;
    }
    let mut skeleton =
        Skeleton { name: "bones".into(), joints: Vec::with_capacity(model.bones.len()), ..Default::default() };
    for (i, bone) in model.bones.iter().enumerate() {
        // Parents must point backwards: that rules out cycles and lets joints resolve in order.
        let parent = match usize::try_from(bone.parent) {
            Ok(p) if p < i => Some(p),
            Ok(p) => {
                scene.warnings.push(format!("bone {i}: parent {p} does not precede it; treated as a root"));
                None
            }
            Err(_) => None,
        };
        let name = match names::key_bone_name(bone.key_bone_id) {
            Some(key) => format!("bone {i} {key}"),
            None => format!("bone {i}"),
        };
        skeleton.joints.push(Joint {
            name: name.clone(),
            parent,
            pivot: axes::position(bone.pivot),
            billboard: bone.flags & BONE_FLAG_BILLBOARD != 0,
        });
        let mut node = Node::new(name, NodeKind::Bone, Mat4::from_translation(axes::position(bone.pivot)));
        node.parent = Some(0);
        node.joint = Some((0, i));
        node.raw = vec![
            RawField::new("flags", 0, u64::from(bone.flags)),
            RawField::new("key bone id", 0, bone.key_bone_id as u64),
            RawField::new("submesh", 0, u64::from(bone.submesh)),
        ];
        let index = scene.nodes.len();
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(index);
        }
    }
    scene.skeletons.push(skeleton);
}

/// One mesh per skin submesh; returns the mesh of each submesh (`None` when dropped).
fn build_meshes(model: &M2Model, skin: &Skin, scene: &mut Scene) -> Vec<Option<usize>> {
    let bone_count = model.bones.len();
    // Skin vertex → [the mesh that numbered it last, its local number there]: one lookup per
    // corner (allocated once for all meshes).
    let mut numbered = vec![[u32::MAX, 0u32]; skin.lookup.len()];
    let mut out = Vec::with_capacity(skin.submeshes.len());
    let mut bad_vertices = 0usize;
    // The second UV set is kept only where a unit samples it (most models have none).
    let second_set_sampled = skin.units.iter().any(|u| {
        let second = (u.texture_count >= 2).then(|| second_coord_set(model, u)).flatten();
        unit_coord_set(model, u) == Some(1) || second == Some(1)
    });
    for (si, sub) in skin.submeshes.iter().enumerate() {
        let start = sub.index_start as usize;
        let mut count = usize::from(sub.index_count);
        if count % 3 != 0 {
            scene.warnings.push(format!("submesh {si}: index count {count} is not a multiple of 3; tail dropped"));
            count -= count % 3;
        }
        let Some(indices) = start.checked_add(count).and_then(|end| skin.indices.get(start..end)) else {
            scene.warnings.push(format!(
                "submesh {si}: indices {start}..{} lie outside the skin's {} indices; submesh dropped",
                start.saturating_add(count),
                skin.indices.len()
            ));
            out.push(None);
            continue;
        };
        // Sized from the submesh's vertex count, bounded by its corners (checked above).
        let expected = usize::from(sub.vertex_count).min(count);
        // First the corners: each skin vertex gets a local number on first use, and `used`
        // lists the model vertex of each local one. Then one short pass per attribute: a loop
        // doing all of it at once kept too many vectors live and spilled them to the stack.
        let mut used: Vec<&Vertex> = Vec::with_capacity(expected);
        let mut triangles = Vec::with_capacity(count / 3);
        let stamp_value = si as u32;
        'tri: for tri in indices.chunks_exact(3) {
            let mut corners = [0u32; 3];
            for (corner, &skin_vertex) in corners.iter_mut().zip(tri) {
                let sv = usize::from(skin_vertex);
                let vertex = skin.lookup.get(sv).and_then(|&v| model.vertices.get(usize::from(v)));
                let (Some(vertex), Some([stamp, local])) = (vertex, numbered.get_mut(sv)) else {
                    bad_vertices += 1;
                    continue 'tri;
                };
                if *stamp != stamp_value {
                    *stamp = stamp_value;
                    *local = used.len() as u32;
                    used.push(vertex);
                }
                *corner = *local;
            }
            triangles.push(corners);
        }
        let source_positions: Vec<Vec3> = used.iter().map(|v| axes::position(v.position)).collect();
        let mut normals: Vec<Vec3> = used.iter().map(|v| axes::position(v.normal)).collect();
        normalize_or_up(&mut normals);
        let uvs: Vec<Vec2> = used.iter().map(|v| Vec2::from_array(v.uv)).collect();
        let uvs1: Vec<Vec2> =
            if second_set_sampled { used.iter().map(|v| Vec2::from_array(v.uv1)).collect() } else { Vec::new() };
        let (ranges, influences) = if bone_count > 0 { skin_influences(&used, bone_count) } else { Default::default() };
        let n = source_positions.len() as u32;
        let mesh_index = scene.meshes.len();
        let node_index = scene.nodes.len();
        let name = format!("submesh {si} (id {})", sub.id);
        let mut node = Node::new(name.clone(), NodeKind::Mesh, Mat4::IDENTITY);
        node.parent = Some(0);
        node.mesh = Some(mesh_index);
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(node_index);
        }
        let triangle_count = triangles.len() as u32;
        scene.meshes.push(Mesh {
            name,
            node: Some(node_index),
            bounds: Aabb::from_points(&source_positions),
            vertex_source: (0..n).collect(),
            source_positions,
            uvs,
            uvs1,
            normals,
            triangles,
            submeshes: vec![Submesh {
                material: None,
                first_triangle: 0,
                triangle_count,
                vertex_start: 0,
                vertex_end: n.saturating_sub(1),
            }],
            skin: (bone_count > 0).then_some(SkinWeights { skeleton: 0, ranges, influences }),
            raw: vec![
                RawField::new("submesh id", sub.offset, u64::from(sub.id)),
                RawField::new("level", sub.offset + SUB_LEVEL, u64::from(sub.level)),
                RawField::new("vertex start", sub.offset + SUB_VERTEX_START, u64::from(sub.vertex_start)),
                RawField::new("vertex count", sub.offset + SUB_VERTEX_COUNT, u64::from(sub.vertex_count)),
                RawField::new("index start", sub.offset + SUB_INDEX_START, u64::from(sub.index_start)),
                RawField::new("bone count", sub.offset + SUB_BONE_COUNT, u64::from(sub.bone_count)),
            ],
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        out.push(Some(mesh_index));
    }
    if bad_vertices > 0 {
        scene.warnings.push(format!(
            "{bad_vertices} triangle corners named a skin vertex or model vertex out of range; their triangles were dropped"
        ));
    }
    out
}

/// Scales each vector to unit length, or makes it `Vec3::Y` where it has none, with the
/// same arithmetic as `try_normalize().unwrap_or(Vec3::Y)`. The square roots and divisions
/// of eight vectors run together, which vectorises; one at a time, each waited on the last.
fn normalize_or_up(vectors: &mut [Vec3]) {
    fn scale(vectors: &mut [Vec3], reciprocals: &mut [f32]) {
        for (r, v) in reciprocals.iter_mut().zip(vectors.iter()) {
            *r = 1.0 / v.length_squared().sqrt();
        }
        for (v, &r) in vectors.iter_mut().zip(reciprocals.iter()) {
            *v = if r.is_finite() && r > 0.0 { *v * r } else { Vec3::Y };
        }
    }
    let (groups, rest) = vectors.as_chunks_mut::<8>();
    for group in groups {
        scale(group, &mut [0.0; 8]);
    }
    scale(rest, &mut [0.0; 8]);
}

/// The bone influences of each vertex in `used` (of a model with `bone_count` > 0 bones):
/// weights on existing bones, scaled to sum to 1. A vertex with no usable weight follows the
/// first bone rather than collapse to the origin.
fn skin_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    if used.iter().all(|vertex| usable_weights(vertex, bone_count) <= 1) {
        rigid_influences(used, bone_count)
    } else {
        weighted_influences(used, bone_count)
    }
}

/// How many of a vertex's weights are above zero on an existing bone.
fn usable_weights(vertex: &Vertex, bone_count: usize) -> u32 {
    vertex.weights.iter().zip(vertex.bones).map(|(&w, b)| u32::from(w > 0 && usize::from(b) < bone_count)).sum()
}

/// [`skin_influences`] where no vertex has more than one usable weight (above zero, on an
/// existing bone), as in rigid models (doodads, items: most of WoW's files): one influence per
/// vertex, of weight exactly 1 (the general path's w / w), collected in one pass with no
/// capacity check per influence. The tank decoded in 34.4 µs against 37.2 (`m2_timing`,
/// medians).
fn rigid_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    let influences = used
        .iter()
        .map(|vertex| {
            let joint = vertex
                .weights
                .iter()
                .zip(vertex.bones)
                .find(|&(&w, b)| w > 0 && usize::from(b) < bone_count)
                .map_or(0, |(_, b)| u32::from(b));
            Influence {
                joint,
                weight: 1.0,
                offset: axes::position(vertex.position),
                normal: axes::position(vertex.normal),
            }
        })
        .collect();
    ((0..used.len() as u32).map(|i| (i, 1)).collect(), influences)
}

/// [`skin_influences`] for any vertices. Weights are divided by the sum of the usable ones
/// (above zero, on a bone that exists), not by 255: shipped files sum to 255, where the two
/// agree, and a weight on a missing bone then does not pull the vertex towards the origin.
// Not inlined into `build`: in that large body its loop kept the vectors' lengths on the stack.
#[inline(never)]
fn weighted_influences(used: &[&Vertex], bone_count: usize) -> (Vec<(u32, u32)>, Vec<Influence>) {
    let mut ranges = Vec::with_capacity(used.len());
    let mut influences = Vec::with_capacity(used.len() * 2);
    for vertex in used {
        let first = influences.len() as u32;
        let offset = axes::position(vertex.position);
        let normal = axes::position(vertex.normal);
        let on_a_bone = vertex.bones.map(|b| usize::from(b) < bone_count);
        let total: u32 = vertex.weights.iter().zip(on_a_bone).map(|(&w, on)| u32::from(w) * u32::from(on)).sum();
        if total > 0 {
            let total = total as f32;
            for ((&w, b), on) in vertex.weights.iter().zip(vertex.bones).zip(on_a_bone) {
                if w > 0 && on {
                    influences.push(Influence { joint: u32::from(b), weight: f32::from(w) / total, offset, normal });
                }
            }
        }
        if influences.len() as u32 == first {
            influences.push(Influence { joint: 0, weight: 1.0, offset, normal });
        }
        ranges.push((first, influences.len() as u32 - first));
    }
    (ranges, influences)
}

/// Per texture unit: the material made for it (`None` when the unit was dropped).
fn build_materials(
    model: &M2Model,
    skin: &Skin,
    mesh_of_submesh: &[Option<usize>],
    options: &BuildOptions,
    scene: &mut Scene,
) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(skin.units.len());
    let mut per_mesh: Vec<Vec<(i32, usize)>> = vec![Vec::new(); scene.meshes.len()];
    for (ui, unit) in skin.units.iter().enumerate() {
        let Some(mesh) = mesh_of_submesh.get(usize::from(unit.submesh)).copied().flatten() else {
            scene.warnings.push(format!(
                "texture unit {ui}: submesh {} does not exist (or was dropped); unit ignored",
                unit.submesh
            ));
            out.push(None);
            continue;
        };
        let (flags, blend) = match model.render_flags.get(usize::from(unit.render_flags)) {
            Some(&rf) => rf,
            None => {
                scene.warnings.push(format!(
                    "texture unit {ui}: render flags {} out of range ({} entries); drawn opaque",
                    unit.render_flags,
                    model.render_flags.len()
                ));
                (0, 0)
            }
        };
        let mode = blend_mode(blend).unwrap_or_else(|| {
            scene.warnings.push(format!("texture unit {ui}: blend mode {blend} is not 0..=7; drawn opaque"));
            BlendMode::Opaque
        });
        let texture_index = model.texture_lookup.get(usize::from(unit.texture_combo)).map(|&t| usize::from(t));
        let texture = match texture_index.and_then(|t| model.textures.get(t)) {
            Some(t) if t.kind == 0 => Some(t.name.clone()).filter(|n| !n.is_empty()),
            Some(_) => options.replaceable_texture.clone(),
            None => {
                scene.warnings.push(format!(
                    "texture unit {ui}: texture combo {} names no texture; drawn untextured",
                    unit.texture_combo
                ));
                None
            }
        };
        let label = texture
            .as_deref()
            .map(|t| t.rsplit(['\\', '/']).next().unwrap_or(t).to_string())
            .unwrap_or_else(|| "untextured".into());
        let mut material = Material::new(format!("unit {ui} {label}"));
        material.texture = texture;
        material.alpha = AlphaMode::Blend(mode);
        material.unlit = flags & RF_UNLIT != 0;
        material.two_sided = flags & RF_TWO_SIDED != 0;
        material.depth_write = flags & RF_NO_DEPTH_WRITE == 0;
        material.flags = u32::from(flags);
        if let Some(t) = texture_index.and_then(|t| model.textures.get(t)) {
            material.wrap = texture_wrap(t.flags);
        }
        material.draw_order = i32::from(unit.priority) * 65536 + i32::from(unit.layer);
        if unit.color >= 0 && unit_color(model, unit).is_none() {
            scene.warnings.push(format!("texture unit {ui}: colour {} out of range; white", unit.color));
        }
        material.base_color = rest_color(model, unit);
        // The lookup names the coordinate set: 0 or 1, or negative for a sphere map.
        let coord_set = unit_coord_set(model, unit);
        let env_map = coord_set.is_some_and(|c| c < 0);
        material.sphere_map = env_map;
        material.uv_set = u8::from(coord_set == Some(1));
        if let Some(set) = coord_set.filter(|&c| c > 1) {
            scene.warnings.push(format!(
                "texture unit {ui}: texture coordinate set {set} does not exist (a vertex has 0 and 1); set 0 used"
            ));
        }
        if unit.texture_count >= 2 {
            material.layer2 = second_layer(model, unit, ui, options, &mut scene.warnings);
        }
        material.raw = vec![
            RawField::new("blend mode", unit.offset + UNIT_MATERIAL, u64::from(blend)),
            RawField::new("priority plane", unit.offset + UNIT_PRIORITY, unit.priority as u64),
            RawField::new("material layer", unit.offset + UNIT_LAYER, u64::from(unit.layer)),
            RawField::new("shader id", unit.offset + UNIT_SHADER, u64::from(unit.shader_id)),
            RawField::new("unit flags", unit.offset + UNIT_FLAGS, u64::from(unit.flags)),
            RawField::new("texture count", unit.offset + UNIT_TEXTURE_COUNT, u64::from(unit.texture_count)),
            RawField::new("environment mapped", unit.offset + UNIT_TEXCOORD_COMBO, u64::from(env_map)),
            RawField::new("texture coordinate set", unit.offset + UNIT_TEXCOORD_COMBO, u64::from(material.uv_set)),
        ];
        let index = scene.materials.len();
        if let Some(list) = per_mesh.get_mut(mesh) {
            list.push((material.draw_order, index));
        }
        scene.materials.push(material);
        out.push(Some(index));
    }
    // Each mesh draws its units in priority-plane, then layer order: same triangles, one pass each.
    for (mesh, mut units) in scene.meshes.iter_mut().zip(per_mesh) {
        if units.is_empty() {
            continue;
        }
        units.sort_by_key(|&(order, _)| order);
        let template = mesh.submeshes.first().cloned();
        if let Some(template) = template {
            mesh.submeshes =
                units.iter().map(|&(_, material)| Submesh { material: Some(material), ..template.clone() }).collect();
        }
    }
    out
}

/// The second texture of a unit with two (texture count 2): the next entries of the texture
/// and coordinate lookups after the unit's own, combined as its shader id says.
///
/// How the 3.3.5a client combines two textures (the shader id it gives a batch as the skin
/// loads): ids with bit 0x8000 name three programs over a sphere-mapped second texture (1
/// multiplies it in 2x keeping alpha, 2 and 3 add it by its own alpha; v272 files number them
/// 0..=2); otherwise the low bits
/// pick the second stage's combiner: 0 multiplies the colour keeping alpha (opaque), 3 adds,
/// 4 multiplies 2x, 6 and 7 the same keeping alpha, any other multiplies. A v264 file's stored
/// id has no low bits for that (the client fills them from a combiner table only under global
/// flag 0x8, which we do not read), so its second texture multiplies; a v272 file stores the
/// id whole. `None` (with a warning) where the lookups name nothing or the id draws no second
/// texture.
fn second_layer(
    model: &M2Model,
    unit: &TextureUnit,
    ui: usize,
    options: &BuildOptions,
    warnings: &mut Vec<String>,
) -> Option<TextureLayer> {
    let next = |combo: u16| usize::from(combo).checked_add(1);
    let Some(texture) = next(unit.texture_combo)
        .and_then(|i| model.texture_lookup.get(i))
        .and_then(|&t| model.textures.get(usize::from(t)))
    else {
        warnings.push(format!(
            "texture unit {ui}: second texture (combo {} + 1) names no texture; drawn with its first alone",
            unit.texture_combo
        ));
        return None;
    };
    let combine = layer_combine(unit.shader_id, model.version);
    let Some(combine) = combine else {
        warnings.push(format!(
            "texture unit {ui}: shader id {:#06x} draws no second texture; drawn with its first alone",
            unit.shader_id
        ));
        return None;
    };
    let coord_set = second_coord_set(model, unit);
    let sphere_map = unit.shader_id & 0x8000 != 0 || coord_set.is_some_and(|c| c < 0);
    if !sphere_map && coord_set.is_none_or(|c| c > 1) {
        warnings.push(format!(
            "texture unit {ui}: second texture's coordinate set ({}) is not 0 or 1; set 0 used",
            coord_set.map_or_else(|| "none".into(), |c| c.to_string())
        ));
    }
    Some(TextureLayer {
        texture: if texture.kind == 0 {
            Some(texture.name.clone()).filter(|n| !n.is_empty())
        } else {
            options.replaceable_texture.clone()
        },
        image: None,
        uv_set: u8::from(!sphere_map && coord_set == Some(1)),
        sphere_map,
        wrap: texture_wrap(texture.flags),
        combine,
    })
}

/// The second stage's combiner for a unit's shader id (see `second_layer`); `None` where the
/// id draws one texture.
pub fn layer_combine(shader_id: u16, version: u32) -> Option<LayerCombine> {
    if shader_id & 0x8000 != 0 {
        // 3.3.5a numbers the three sphere-mapped programs 1..=3 (0 draws nothing); later files
        // index a table whose rows 0..=2 are the same three (Combiners_Opaque_Mod2xNA_Alpha,
        // _AddAlpha, _AddAlpha_Alpha over Diffuse_T1_Env).
        let row = (shader_id & 0x7FFF).checked_sub(u16::from(version < 272));
        return match row {
            Some(0) => Some(LayerCombine::Mod2xNoAlpha),
            Some(1 | 2) => Some(LayerCombine::AddByAlpha),
            _ => None,
        };
    }
    let low = if version >= 272 { shader_id & 0x7 } else { 0 };
    Some(match low {
        0 => LayerCombine::Opaque,
        3 => LayerCombine::Add,
        4 => LayerCombine::Mod2x,
        6 => LayerCombine::Mod2xNoAlpha,
        7 => LayerCombine::AddNoAlpha,
        _ => LayerCombine::Mod,
    })
}

fn build_clips(
    model: &M2Model,
    skin: Option<&Skin>,
    unit_materials: &[Option<usize>],
    input_len: u64,
    scene: &mut Scene,
) {
    let mut budget = input_len.saturating_mul(CLIP_KEYS_PER_INPUT_BYTE).max(1 << 20);
    let mut used_names: Vec<String> = Vec::new();
    // Shared by every clip's track reports: one allocation per bone, not per bone and clip.
    let joint_names: Vec<std::sync::Arc<str>> = scene
        .skeletons
        .first()
        .map(|sk| sk.joints.iter().map(|j| j.name.as_str().into()).collect())
        .unwrap_or_default();
    for (s, seq) in model.sequences.iter().enumerate() {
        let mut name = sequence_name(seq.id, seq.variation);
        if used_names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            name = format!("{name} #{s}");
        }
        used_names.push(name.clone());
        let mut clip = Clip {
            name,
            source: None,
            start: 0.0,
            end: seq.duration_ms as f32,
            rate: 1000.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let keys_missing = model.anim_present.get(s).copied().flatten() == Some(false);
        let sequence = SequenceKeys { index: s, missing: keys_missing };
        if keys_missing {
            clip.warnings.push(format!(
                "keyframes live in <model>{}, which is missing: bind pose (global-sequence tracks still play)",
                anim_file_suffix(seq.id, seq.variation)
            ));
        }
        bone_channels(&model.bones, sequence, &mut budget, &joint_names, &mut clip);
        if let Some(skin) = skin {
            let keys = MaterialKeys { playing: sequence, fallback: Some(fallback_sequence(model)) };
            material_channels(model, skin, unit_materials, keys, &mut budget, &mut clip);
        }
        scene.clips.push(clip);
    }
    // The rest pose plays the global-sequence tracks alone: the same channels built as for a
    // sequence whose own keys are all missing.
    let mut globals = Clip {
        name: "global sequences".into(),
        source: None,
        start: 0.0,
        end: 0.0,
        rate: 1000.0,
        channels: Vec::new(),
        tracks: Vec::new(),
        warnings: Vec::new(),
    };
    let only_global = SequenceKeys { index: 0, missing: true };
    bone_channels(&model.bones, only_global, &mut budget, &joint_names, &mut globals);
    if let Some(skin) = skin {
        let keys = MaterialKeys { playing: only_global, fallback: None };
        material_channels(model, skin, unit_materials, keys, &mut budget, &mut globals);
    }
    let moves = |c: &Channel| !matches!(c, Channel::BoneTracks { joints, .. } if joints.is_empty());
    if globals.channels.iter().any(moves) {
        scene.global_channels = globals.channels;
    }
    // `id:N` names the first variation of each id.
    let mut ids_seen = std::collections::HashSet::new();
    for (i, seq) in model.sequences.iter().enumerate() {
        scene.clip_aliases.push((format!("id:{}.{}", seq.id, seq.variation), i));
        if ids_seen.insert(seq.id) {
            scene.clip_aliases.push((format!("id:{}", seq.id), i));
        }
    }
}

/// The skeleton channel of one sequence (or of the global tracks alone) and its track reports.
fn bone_channels(
    bones: &[super::model::Bone],
    sequence: SequenceKeys,
    budget: &mut u64,
    joint_names: &[std::sync::Arc<str>],
    clip: &mut Clip,
) {
    // Which bones play, and what they cost, first: whether a track plays is read from its
    // table of runs alone, so this pass is cheap. Then the entries are made in lists sized
    // exactly: reports (about 290 bytes each) are not moved as a list grows, and a clip
    // reserves nothing for bones that do not play in it (sized by the bone count, a crafted
    // file could ask sequences × bones of them).
    let plays = |track_keys: Option<(usize, usize, TrackTime)>| track_keys.map_or(0, |(_, keys, _)| keys);
    let mut playing = 0;
    let mut out_of_budget = false;
    for bone in bones {
        let t = plays(clip_key_count(&bone.translation, sequence));
        let r = plays(clip_key_count(&bone.rotation, sequence));
        let sc = plays(clip_key_count(&bone.scale, sequence));
        if t == 0 && r == 0 && sc == 0 {
            continue;
        }
        if !spend_keys(budget, t + r + sc) {
            out_of_budget = true;
            break;
        }
        playing += 1;
    }
    if out_of_budget {
        clip.warnings.push("too many keys for the size of the input; remaining bones hold still".into());
    }
    let mut joints = Vec::with_capacity(playing);
    clip.tracks.reserve(playing);
    for (b, bone) in bones.iter().enumerate() {
        if joints.len() == playing {
            break;
        }
        let t = clip_keys(&bone.translation, sequence);
        let r = clip_keys(&bone.rotation, sequence);
        let sc = clip_keys(&bone.scale, sequence);
        if t.is_none() && r.is_none() && sc.is_none() {
            continue;
        }
        // Both lists hold at most three entries inline: no allocation per report.
        let mut channels = smallvec::SmallVec::new();
        let mut key_counts = smallvec::SmallVec::new();
        let mut track = JointTracks { joint: b, ..Default::default() };
        if let Some((keys, time)) = t {
            channels.push("translation".into());
            key_counts.push(("translation".into(), keys.len() as u32));
            track.translation = keys;
            track.timing[0] = time;
        }
        if let Some((keys, time)) = r {
            channels.push("rotation".into());
            key_counts.push(("rotation".into(), keys.len() as u32));
            track.rotation = keys;
            track.timing[1] = time;
        }
        if let Some((keys, time)) = sc {
            channels.push("scale".into());
            key_counts.push(("scale".into(), keys.len() as u32));
            track.scale = keys;
            track.timing[2] = time;
        }
        joints.push(track);
        clip.tracks.push(TrackReport {
            index: b as u32,
            target: b as u32,
            target_name: joint_names.get(b).cloned(),
            channels,
            flags: bone.flags,
            slots: Vec::new(),
            key_counts,
            reasons: Vec::new(),
            skipped: None,
        });
    }
    if !bones.is_empty() {
        clip.channels.push(Channel::BoneTracks { skeleton: 0, joints });
    }
}

/// Which keys a clip's material channels take: the playing sequence's, and for a sequence
/// clip (not the rest pose's global tracks) [`fallback_sequence`]'s colour and transparency
/// where the playing one has none.
#[derive(Clone, Copy)]
struct MaterialKeys {
    playing: SequenceKeys,
    fallback: Option<SequenceKeys>,
}

impl MaterialKeys {
    /// The playing sequence's keys of `track`, else the fallback sequence's.
    fn take<T: Copy>(self, track: &Track<T>) -> Option<(Curve<T>, TrackTime)> {
        clip_keys(track, self.playing).or_else(|| self.fallback.and_then(|f| clip_keys(track, f)))
    }
}

fn material_channels(
    model: &M2Model,
    skin: &Skin,
    unit_materials: &[Option<usize>],
    keys: MaterialKeys,
    budget: &mut u64,
    clip: &mut Clip,
) {
    let s = keys.playing;
    // Material tracks play in every clip that uses them (several units may share one), so
    // each channel counts against the key budget as a bone's entry does.
    // `false` once the budget is spent: the channel is dropped and the clip warned.
    let mut add = |keys: usize, channel: Channel| {
        let fits = spend_keys(budget, keys);
        if fits {
            clip.channels.push(channel);
        } else {
            clip.warnings.push("too many keys for the size of the input; remaining texture units hold still".into());
        }
        fits
    };
    for (unit, material) in skin.units.iter().zip(unit_materials) {
        let Some(material) = *material else { continue };
        let color = unit_color(model, unit);
        let transparency = unit_transparency(model, unit);
        let rgb = color.and_then(|c| keys.take(&c.rgb));
        let color_alpha = color.and_then(|c| clip_keys(&c.alpha, s));
        let weight = transparency.and_then(|t| keys.take(t));
        // The clip's alpha channels replace the rest alpha (colour alpha × transparency at the
        // start of sequence 0) with their product; a factor without a channel counts as 1.
        let rest = rest_color(model, unit);
        let held = match keys.fallback {
            // A sequence clip keying neither factor shows WMV's answer, opaque, where the rest
            // is not.
            Some(_) => (color_alpha.is_none() && weight.is_none()).then_some(1.0).filter(|_| rest.w != 1.0),
            // The rest pose's global tracks: a factor they do not key holds its rest value.
            None => {
                let first = fallback_sequence(model);
                match (color_alpha.is_some(), weight.is_some()) {
                    (true, false) => transparency.map(|t| value_at_start(t, first, 1.0)),
                    (false, true) => color.map(|c| value_at_start(&c.alpha, first, 1.0)),
                    _ => None,
                }
                .filter(|&v| v != 1.0)
            }
        };
        if let Some(value) = held {
            let keys = Curve::linear(vec![Key { time: 0.0, value }]);
            if !add(1, Channel::MaterialAlpha { material, keys, time: TrackTime::Clip }) {
                return;
            }
        }
        if let Some((keys, time)) = rgb
            && !add(keys.len(), Channel::MaterialColor { material, keys, time })
        {
            return;
        }
        for (keys, time) in color_alpha.into_iter().chain(weight) {
            if !add(keys.len(), Channel::MaterialAlpha { material, keys, time }) {
                return;
            }
        }
        // Flag 0x10 marks a static unit: no texture animation.
        let anim = model
            .texture_anim_lookup
            .get(usize::from(unit.transform_combo))
            .and_then(|&a| usize::try_from(a).ok())
            .and_then(|a| model.texture_anims.get(a))
            .filter(|_| unit.flags & 0x10 == 0);
        if let Some(anim) = anim {
            let t = clip_keys(&anim.translation, s);
            let r = clip_keys(&anim.rotation, s);
            let sc = clip_keys(&anim.scale, s);
            if t.is_some() || r.is_some() || sc.is_some() {
                let keys = keys_in(&t) + keys_in(&r) + keys_in(&sc);
                let time = [
                    t.as_ref().map(|k| k.1).unwrap_or_default(),
                    r.as_ref().map(|k| k.1).unwrap_or_default(),
                    sc.as_ref().map(|k| k.1).unwrap_or_default(),
                ];
                let channel = Channel::UvTransform {
                    material,
                    translation: t.map(|k| k.0).unwrap_or_default(),
                    rotation: r.map(|k| k.0).unwrap_or_default(),
                    scale: sc.map(|k| k.0).unwrap_or_default(),
                    time,
                };
                if !add(keys, channel) {
                    return;
                }
            }
        }
    }
}

/// `<id:04>-<variation:02>.anim`, the suffix of a sequence's .anim file after the model name.
pub fn anim_file_suffix(id: u16, variation: u16) -> String {
    format!("{id:04}-{variation:02}.anim")
}

fn build_markers(model: &M2Model, scene: &mut Scene) {
    let bone_count = model.bones.len();
    let mut counters = [0usize; 6];
    for marker in &model.markers {
        let k = marker.kind as usize;
        let n = counters.get(k).copied().unwrap_or(0);
        if let Some(c) = counters.get_mut(k) {
            *c += 1;
        }
        let mut node = Node::new(
            format!("{} {n}: {}", marker.kind.label(), marker.label),
            NodeKind::Tag,
            Mat4::from_translation(axes::position(marker.position)),
        );
        node.parent = Some(0);
        if usize::from(marker.bone) < bone_count && marker.kind != MarkerKind::Camera {
            node.joint = Some((0, usize::from(marker.bone)));
        }
        let index = scene.nodes.len();
        scene.nodes.push(node);
        if let Some(root) = scene.nodes.first_mut() {
            root.children.push(index);
        }
    }
}

/// The unit table's "second texture" cell: the texture index, its coordinates and combiner
/// (`1 uv0 add`), `-` for a unit with one texture.
fn second_texture_cell(model: &M2Model, unit: &TextureUnit) -> String {
    if unit.texture_count < 2 {
        return "-".into();
    }
    let next = |combo: u16| usize::from(combo).checked_add(1);
    let texture = next(unit.texture_combo)
        .and_then(|i| model.texture_lookup.get(i))
        .map_or_else(|| "none".into(), |t| t.to_string());
    let coords = match second_coord_set(model, unit) {
        _ if unit.shader_id & 0x8000 != 0 => "env".to_string(),
        Some(c) if c < 0 => "env".into(),
        Some(c) => format!("uv{c}"),
        None => "uv?".into(),
    };
    let combine = layer_combine(unit.shader_id, model.version).map_or("not drawn", LayerCombine::label);
    format!("{texture} {coords} {combine}")
}

fn model_details(model: &M2Model, skin: Option<&Skin>, options: &BuildOptions, scene: &mut Scene) {
    let mut sections = Vec::new();
    let row = DetailRow::default;
    sections.push(DetailSection {
        title: "Model".into(),
        rows: vec![
            row()
                .with("name", &model.name)
                .with("version", model.version)
                .with("flags", format_args!("{:#x}", model.flags))
                .with("vertices", model.vertices.len())
                .with("bones", model.bones.len())
                .with("submeshes", skin.map(|s| s.submeshes.len()).unwrap_or(0))
                .with("texture units", skin.map(|s| s.units.len()).unwrap_or(0))
                .with("skin profiles declared", model.skin_profile_count),
        ],
    });
    if let Some(skin) = skin {
        let rows = skin
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let (flags, blend) = model.render_flags.get(usize::from(u.render_flags)).copied().unwrap_or((0, 0));
                let texture = model.texture_lookup.get(usize::from(u.texture_combo)).copied();
                let coord_set = unit_coord_set(model, u);
                let env = coord_set.is_some_and(|c| c < 0);
                row()
                    .with("unit", i)
                    .with("submesh", u.submesh)
                    .with("priority", u.priority)
                    .with("layer", u.layer)
                    .with("blend", format_args!("{blend} {}", names::blend_mode_name(blend)))
                    .with("flags", format_args!("{flags:#x} {}", names::render_flag_names(flags)))
                    .with("texture", texture.map(|t| t.to_string()).unwrap_or_else(|| "-".into()))
                    .with("textures", u.texture_count)
                    .with("second texture", second_texture_cell(model, u))
                    .with("color", u.color)
                    .with("transparency", u.weight_combo)
                    .with(
                        "uv anim",
                        model.texture_anim_lookup.get(usize::from(u.transform_combo)).copied().unwrap_or(-1),
                    )
                    .with("env map", if env { "yes" } else { "no" })
                    .with("uv set", coord_set.filter(|&c| c >= 0).map_or_else(|| "-".into(), |c| c.to_string()))
            })
            .collect();
        sections.push(DetailSection { title: "Texture units".into(), rows });
    }
    let rows = model
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let file = if t.kind == 0 {
                t.name.clone()
            } else {
                match &options.replaceable_texture {
                    Some(f) => format!("{f} (chosen: no name in the model)"),
                    None => "(no name in the model)".into(),
                }
            };
            row()
                .with("texture", i)
                .with("type", format_args!("{} {}", t.kind, names::texture_type_name(t.kind)))
                .with("flags", format_args!("{:#x}", t.flags))
                .with("file", file)
        })
        .collect();
    sections.push(DetailSection { title: "Textures".into(), rows });
    let rows = model
        .sequences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let keys = match model.anim_present.get(i).copied().flatten() {
                None if s.is_alias() => format!("alias of {}", s.alias_next),
                None => "in file".into(),
                Some(true) => format!("{} present", anim_file_suffix(s.id, s.variation)),
                Some(false) => format!("{} MISSING", anim_file_suffix(s.id, s.variation)),
            };
            row()
                .with("index", i)
                .with("id", s.id)
                .with("name", names::animation_name(s.id))
                .with("variation", s.variation)
                .with("duration ms", s.duration_ms)
                .with("flags", format_args!("{:#x}", s.flags))
                .with("keyframes", keys)
                .with("next variation", s.next_variation)
        })
        .collect();
    sections.push(DetailSection { title: "Sequences".into(), rows });
    let rows = model
        .global_periods
        .iter()
        .enumerate()
        .map(|(i, p)| row().with("global sequence", i).with("duration ms", p))
        .collect();
    sections.push(DetailSection { title: "Global sequences".into(), rows });
    let rows = model
        .markers
        .iter()
        .map(|m| {
            row()
                .with("kind", m.kind.label())
                .with("name", &m.label)
                .with("bone", if m.kind == MarkerKind::Camera { "-".to_string() } else { m.bone.to_string() })
                .with("position", format_args!("({:.3}, {:.3}, {:.3})", m.position.x, m.position.y, m.position.z))
        })
        .collect();
    sections.push(DetailSection { title: "Attachments, events, lights, cameras, emitters".into(), rows });
    scene.details.extend(sections);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::m2::model::{Bone, Sequence};
    use crate::scene::Key;
    use crate::scene::anim::Pose;

    /// The batched normalisation gives `try_normalize().unwrap_or(Vec3::Y)` to the bit, at
    /// every length (whole groups of eight and the rest) and on zero, tiny, huge, infinite and
    /// NaN vectors.
    #[test]
    fn batched_normalisation_matches_try_normalize() {
        let odd = [0.0, -0.0, 1e-30, -1e-45, 3.5, -2.25, 1e20, 3e38, f32::INFINITY, f32::NAN, 0.6, -0.8];
        let vectors: Vec<Vec3> = (0..odd.len() * 3)
            .map(|i| Vec3::new(odd[i % odd.len()], odd[(i * 5 + 1) % odd.len()], odd[(i * 7 + 2) % odd.len()]))
            .collect();
        for length in 0..=vectors.len() {
            let mut batched = vectors[..length].to_vec();
            normalize_or_up(&mut batched);
            for (got, v) in batched.iter().zip(&vectors[..length]) {
                let want = v.try_normalize().unwrap_or(Vec3::Y);
                assert_eq!(got.to_array().map(f32::to_bits), want.to_array().map(f32::to_bits), "{v}");
            }
        }
    }

    /// A 100 ms sequence stored in the file (flag 0x20), its own alias.
    fn sequence_100ms(id: u16) -> Sequence {
        Sequence {
            id,
            variation: 0,
            duration_ms: 100,
            move_speed: 0.0,
            flags: 0x20,
            frequency: 0,
            next_variation: -1,
            alias_next: id,
        }
    }

    /// One bone whose translation is a two-key track on global sequence 0 (200 ms: x from 0 to
    /// 20 units; bone keys are held in scene axes), in a model with one 100 ms sequence.
    fn model_with_a_global_track() -> M2Model {
        let keys = vec![Key { time: 0.0, value: Vec3::ZERO }, Key { time: 200.0, value: Vec3::new(20.0, 0.0, 0.0) }];
        let translation =
            Track::from_curves(super::super::tracks::INTERP_LINEAR, Some(0), 200, vec![Curve::linear(keys)]).unwrap();
        M2Model {
            version: 264,
            global_periods: vec![200],
            sequences: vec![sequence_100ms(0)],
            anim_present: vec![None],
            bones: vec![Bone {
                key_bone_id: -1,
                flags: 0,
                parent: -1,
                submesh: 0,
                translation,
                rotation: Track::default(),
                scale: Track::default(),
                pivot: Vec3::ZERO,
            }],
            ..M2Model::default()
        }
    }

    /// Issue 12: a global-sequence track sampled across a clip loop. The 100 ms clip has looped
    /// once at 150 ms after opening (clip time 50); the track reads 150 % 200 = 150: x = 15.
    /// The rest pose plays it too.
    #[test]
    fn global_tracks_read_the_global_clock_in_clips_and_the_rest_pose() {
        let scene = build(&model_with_a_global_track(), None, &BuildOptions::default(), 1 << 16);
        let x_at = |clip: Option<usize>, clip_time: f32, global: f32| {
            let mut pose = Pose::default();
            pose.global_time = Some(global);
            pose.evaluate(&scene, clip, clip_time);
            pose.joints[0][0].w_axis.x
        };
        assert!((x_at(Some(0), 50.0, 150.0) - 15.0).abs() < 1e-4);
        assert!((x_at(Some(0), 50.0, 250.0) - 5.0).abs() < 1e-4, "wrapped at the global period");
        assert!((x_at(None, 0.0, 150.0) - 15.0).abs() < 1e-4, "the rest pose plays global tracks");
    }

    /// Issue 12: a track with keys in other sequences but none in the playing one contributes
    /// nothing: no channel, so the component stays at rest.
    #[test]
    fn a_track_without_keys_in_the_sequence_makes_no_channel() {
        let mut model = model_with_a_global_track();
        model.sequences.push(model.sequences[0].clone());
        model.anim_present.push(None);
        let bone = &mut model.bones[0];
        // Keys in sequence 1 only.
        let keys = bone.translation.curve(0);
        bone.translation =
            Track::from_curves(bone.translation.interpolation, None, 0, vec![Curve::default(), keys]).unwrap();
        let scene = build(&model, None, &BuildOptions::default(), 1 << 16);
        let joints = |clip: usize| match &scene.clips[clip].channels[0] {
            Channel::BoneTracks { joints, .. } => joints.len(),
            _ => panic!("bone tracks first"),
        };
        assert_eq!((joints(0), joints(1)), (0, 1));
        assert!(scene.global_channels.is_empty());
    }

    #[test]
    fn influences_keep_weights_on_existing_bones_scaled_to_one_else_follow_bone_0() {
        let vertex = |weights: [u8; 4], bones: [u8; 4]| Vertex {
            position: Vec3::new(1.0, 2.0, 3.0),
            weights,
            bones,
            normal: Vec3::new(0.0, 0.0, 2.0),
            uv: [0.0; 2],
            uv1: [0.0; 2],
        };
        let split = vertex([100, 0, 50, 50], [1, 0, 2, 9]); // bone 9 does not exist
        let none_usable = vertex([0, 0, 0, 40], [0, 1, 2, 7]);
        let whole = vertex([255, 0, 0, 0], [2, 0, 0, 0]);
        let (ranges, influences) = skin_influences(&[&split, &none_usable, &whole], 3);
        assert_eq!(ranges, [(0, 2), (2, 1), (3, 1)]);
        let joints_and_weights: Vec<(u32, f32)> = influences.iter().map(|i| (i.joint, i.weight)).collect();
        assert_eq!(joints_and_weights, [(1, 100.0 / 150.0), (2, 50.0 / 150.0), (0, 1.0), (2, 1.0)]);
        // Scene axes: (x, y, z) → (x, z, −y); every influence carries its vertex's bind values.
        assert!(
            influences.iter().all(|i| i.offset == Vec3::new(1.0, 3.0, -2.0) && i.normal == Vec3::new(0.0, 2.0, 0.0))
        );
    }

    /// The rigid path gives exactly what the general one gives, wherever each vertex's one
    /// usable weight sits (any slot, beside zero weights and weights on missing bones), and for
    /// vertices with none; `skin_influences` takes it only when no vertex has two.
    #[test]
    fn rigid_influences_match_the_weighted_ones() {
        let mut vertices = Vec::new();
        for slot in 0..4 {
            for weight in [1u8, 77, 255] {
                let mut weights = [0u8, 0, 0, 0];
                weights[slot] = weight;
                // Weights on the missing bone 9 and zero weights around the usable one.
                weights[(slot + 1) % 4] = 30;
                let mut bones = [9u8, 9, 9, 9];
                bones[slot] = slot as u8 + 1;
                vertices.push(Vertex {
                    position: Vec3::new(slot as f32, 2.0, -3.5),
                    weights,
                    bones,
                    normal: Vec3::new(0.25, f32::from(weight), 1.0),
                    uv: [0.0; 2],
                    uv1: [0.0; 2],
                });
            }
        }
        vertices.push(Vertex {
            position: Vec3::ONE,
            weights: [0, 0, 0, 0],
            bones: [1, 2, 3, 4],
            normal: Vec3::X,
            uv: [0.0; 2],
            uv1: [0.0; 2],
        });
        let used: Vec<&Vertex> = vertices.iter().collect();
        let (rigid_ranges, rigid) = rigid_influences(&used, 5);
        let (ranges, weighted) = weighted_influences(&used, 5);
        assert_eq!(rigid_ranges, ranges);
        assert_eq!(rigid, weighted);
        assert_eq!(skin_influences(&used, 5), (ranges, weighted));
        // One vertex with two usable weights sends the whole mesh down the general path.
        let mut two = vertices[0];
        two.weights = [128, 127, 0, 0];
        two.bones = [1, 2, 0, 0];
        let with_two: Vec<&Vertex> = used.iter().copied().chain([&two]).collect();
        let (ranges, influences) = skin_influences(&with_two, 5);
        assert_eq!(ranges.last(), Some(&(used.len() as u32, 2)));
        assert_eq!(influences.len(), used.len() + 2);
    }

    /// A file may hold many sequences and bones with no keys at all (tables can even overlap):
    /// clips must not reserve room for bones that do not play in them.
    #[test]
    fn clips_reserve_nothing_for_bones_without_keys() {
        let mut model = model_with_a_global_track();
        let bone = model.bones[0].clone();
        let sequence = model.sequences[0].clone();
        model.bones = vec![Bone { translation: Track::default(), ..bone }; 300];
        model.sequences = vec![sequence; 300];
        model.anim_present = vec![None; 300];
        let scene = build(&model, None, &BuildOptions::default(), 1000);
        assert_eq!(scene.clips.len(), 300);
        for clip in &scene.clips {
            assert_eq!(clip.tracks.capacity(), 0, "{}", clip.name);
            for channel in &clip.channels {
                if let Channel::BoneTracks { joints, .. } = channel {
                    assert_eq!(joints.capacity(), 0, "{}", clip.name);
                }
            }
        }
    }

    #[test]
    fn global_tracks_copied_into_every_clip_count_against_the_key_budget() {
        let mut model = model_with_a_global_track();
        let bone = model.bones[0].clone();
        let sequence = model.sequences[0].clone();
        model.bones = vec![bone; 400];
        model.sequences = vec![sequence; 400];
        model.anim_present = vec![None; 400];
        // A tiny input gets the minimum budget of 2^20 keys: 160,000 entries of two keys each
        // would fit it by keys alone, but not with each entry's own cost.
        let scene = build(&model, None, &BuildOptions::default(), 1000);
        let entries: u64 = scene.clips.iter().map(|c| c.tracks.len() as u64).sum();
        assert_eq!(entries, (1 << 20) / (2 + KEYS_PER_CLIP_ENTRY));
        assert!(scene.clips.iter().any(|c| c.warnings.iter().any(|w| w.starts_with("too many keys"))));
        assert!(scene.clips.first().is_some_and(|c| c.tracks.len() == 400), "early clips play every bone");
    }

    #[test]
    fn material_tracks_copied_into_every_clip_count_against_the_key_budget() {
        let mut model = model_with_a_global_track();
        let global_rgb = Track::from_curves(
            super::super::tracks::INTERP_LINEAR,
            Some(0),
            200,
            vec![Curve::linear(vec![Key { time: 0.0, value: Vec3::ONE }])],
        )
        .unwrap();
        model.colors = vec![ColorAnim { rgb: global_rgb, alpha: Track::default() }];
        let unit = TextureUnit { flags: 0x10, color: 0, texture_count: 1, ..TextureUnit::default() };
        // A thousand units share one global colour track of one key: ten fit the budget.
        let skin = Skin { units: vec![unit; 1000], ..Skin::default() };
        let materials = vec![Some(0); 1000];
        let mut budget = 10 * (1 + KEYS_PER_CLIP_ENTRY) + 3;
        let mut clip = Clip {
            name: "c".into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 1000.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let sequence = SequenceKeys { index: 0, missing: false };
        let keys = MaterialKeys { playing: sequence, fallback: Some(sequence) };
        material_channels(&model, &skin, &materials, keys, &mut budget, &mut clip);
        assert_eq!(clip.channels.len(), 10);
        assert_eq!(budget, 3);
        assert_eq!(clip.warnings.len(), 1);
    }

    /// A skin of one submesh, one triangle over vertices 0 to 2, drawn by `units`.
    fn one_triangle_skin(units: Vec<crate::formats::m2::skin::TextureUnit>) -> Skin {
        Skin {
            lookup: vec![0, 1, 2],
            indices: vec![0, 1, 2],
            submeshes: vec![crate::formats::m2::skin::SkinSubmesh {
                id: 0,
                level: 0,
                vertex_start: 0,
                vertex_count: 3,
                index_start: 0,
                index_count: 3,
                bone_count: 0,
                center: [0.0; 3],
                offset: 0,
            }],
            units,
            bone_count_max: 0,
        }
    }

    /// A texture unit's texture coordinate lookup picks the set it samples: 0 the vertices'
    /// first UVs, 1 their second (vertex 0x28), negative a sphere map; a set past 1 warns and
    /// samples the first.
    #[test]
    fn each_unit_samples_the_uv_set_its_lookup_names() {
        use crate::formats::m2::model::Texture;
        let vertex = |i: u8| Vertex {
            position: Vec3::new(f32::from(i), 0.0, 0.0),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [f32::from(i) * 0.1, 0.5],
            uv1: [0.9, f32::from(i) * 0.2],
        };
        let model = M2Model {
            version: 264,
            vertices: (0..3).map(vertex).collect(),
            textures: vec![Texture { kind: 0, flags: 0, name: "a.blp".into() }],
            texture_lookup: vec![0],
            render_flags: vec![(0, 0)],
            texcoord_lookup: vec![0, 1, -1, 2],
            ..M2Model::default()
        };
        let unit =
            |texcoord_combo: u16| TextureUnit { texcoord_combo, color: -1, texture_count: 1, ..TextureUnit::default() };
        let skin = one_triangle_skin((0..4).map(unit).collect());
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        let mesh = &scene.meshes[0];
        assert_eq!(mesh.uvs, [Vec2::new(0.0, 0.5), Vec2::new(0.1, 0.5), Vec2::new(0.2, 0.5)]);
        assert_eq!(mesh.uvs1, [Vec2::new(0.9, 0.0), Vec2::new(0.9, 0.2), Vec2::new(0.9, 0.4)]);
        let sets: Vec<(u8, bool)> = scene.materials.iter().map(|m| (m.uv_set, m.sphere_map)).collect();
        assert_eq!(sets, [(0, false), (1, false), (0, true), (0, false)]);
        assert!(
            scene.warnings.iter().any(|w| w.contains("texture unit 3: texture coordinate set 2")),
            "{:?}",
            scene.warnings
        );
        assert_eq!(scene.validate(), Ok(()));
    }

    /// A model of one triangle drawn by one unit with colour 0 and transparency 0, and three
    /// 100 ms sequences.
    fn model_with_a_coloured_unit(color: ColorAnim, transparency: Track<f32>) -> (M2Model, Skin) {
        use crate::formats::m2::model::Texture;
        let vertex = |x: f32| Vertex {
            position: Vec3::new(x, 0.0, x * x),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [0.0; 2],
            uv1: [0.0; 2],
        };
        let model = M2Model {
            version: 264,
            sequences: vec![sequence_100ms(0), sequence_100ms(1), sequence_100ms(4)],
            anim_present: vec![None; 3],
            vertices: vec![vertex(0.0), vertex(1.0), vertex(2.0)],
            textures: vec![Texture { kind: 0, flags: 0, name: "a.blp".into() }],
            texture_lookup: vec![0],
            render_flags: vec![(0, 2)],
            colors: vec![color],
            transparencies: vec![transparency],
            transparency_lookup: vec![0],
            ..M2Model::default()
        };
        let skin = one_triangle_skin(vec![TextureUnit { color: 0, texture_count: 1, ..TextureUnit::default() }]);
        (model, skin)
    }

    /// One linear track with a curve per sequence (`None`: no keys in that sequence).
    fn per_sequence<T: Copy>(curves: [Option<Vec<(f32, T)>>; 3]) -> Track<T> {
        let curves = curves
            .into_iter()
            .map(|keys| {
                Curve::linear(keys.unwrap_or_default().into_iter().map(|(time, value)| Key { time, value }).collect())
            })
            .collect();
        Track::from_curves(super::super::tracks::INTERP_LINEAR, None, 0, curves).unwrap()
    }

    /// The colour a pose gives the unit: clip `clip` (`None`: the rest pose) at `time` ms.
    fn unit_color_at(scene: &Scene, clip: Option<usize>, time: f32) -> Vec4 {
        Pose::at(scene, clip, time).material_colors[0]
    }

    /// Clip A (sequence 0) keys the colour, red to blue, and its alpha at 0.5; clip B
    /// (sequence 1) keys nothing; clip C (sequence 2) keys green. WoW Model Viewer shows clip B
    /// sequence 0's colour at B's own time (it reads `color.getValue(0, animtime)`), and alpha
    /// 1 (a colour's alpha comes from the playing sequence only); the old rule held B at the
    /// first key of any sequence (red, 0.5). The rest pose is sequence 0 at its start.
    #[test]
    fn a_clip_without_colour_keys_shows_wmvs_fallback() {
        let rgb = per_sequence([Some(vec![(0.0, Vec3::X), (100.0, Vec3::Z)]), None, Some(vec![(0.0, Vec3::Y)])]);
        let alpha = per_sequence([Some(vec![(0.0, 0.5)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb, alpha }, Track::default());
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color, Vec4::new(1.0, 0.0, 0.0, 0.5), "rest: sequence 0 at 0 ms");
        let close = |got: Vec4, want: Vec4| assert!(got.abs_diff_eq(want, 1e-5), "{got} != {want}");
        close(unit_color_at(&scene, None, 0.0), Vec4::new(1.0, 0.0, 0.0, 0.5));
        close(unit_color_at(&scene, Some(0), 25.0), Vec4::new(0.75, 0.0, 0.25, 0.5));
        close(unit_color_at(&scene, Some(1), 25.0), Vec4::new(0.75, 0.0, 0.25, 1.0));
        close(unit_color_at(&scene, Some(1), 100.0), Vec4::new(0.0, 0.0, 1.0, 1.0));
        close(unit_color_at(&scene, Some(2), 25.0), Vec4::new(0.0, 1.0, 0.0, 1.0));
        assert_eq!(scene.validate(), Ok(()));
    }

    /// Keys in sequence 1 alone: sequence 0 has none, so the rest pose and clip 0 show white
    /// and opaque (the old rule took sequence 1's first key for them), clip 1 its own keys.
    #[test]
    fn keys_outside_sequence_0_colour_only_their_own_clip() {
        let rgb = per_sequence([None, Some(vec![(0.0, Vec3::Y)]), None]);
        let weight = per_sequence([None, Some(vec![(0.0, 0.25)]), None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb, alpha: Track::default() }, weight);
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color, Vec4::ONE);
        assert_eq!(unit_color_at(&scene, Some(0), 50.0), Vec4::ONE);
        assert_eq!(unit_color_at(&scene, Some(1), 50.0), Vec4::new(0.0, 1.0, 0.0, 0.25));
        assert_eq!(unit_color_at(&scene, Some(2), 50.0), Vec4::ONE);
    }

    /// The two alpha factors fall back apart: transparency keyed in sequence 0 alone (1 to
    /// 0.2) plays in every clip without keys of its own, while the colour alpha (0.5, keyed in
    /// sequence 1 alone) counts only in sequence 1: there the alpha runs 0.5 × (1 → 0.2).
    #[test]
    fn alpha_factors_fall_back_as_wmv_reads_them() {
        let alpha = per_sequence([None, Some(vec![(0.0, 0.5)]), None]);
        let weight = per_sequence([Some(vec![(0.0, 1.0), (100.0, 0.2)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb: Track::default(), alpha }, weight);
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color.w, 1.0, "rest: 1 × 1");
        let alpha = |clip: usize, time: f32| unit_color_at(&scene, Some(clip), time).w;
        for (time, weight) in [(0.0, 1.0), (50.0, 0.6), (100.0, 0.2)] {
            assert!((alpha(0, time) - weight).abs() < 1e-5, "clip 0 at {time}: {}", alpha(0, time));
            assert!((alpha(1, time) - 0.5 * weight).abs() < 1e-5, "clip 1 at {time}: {}", alpha(1, time));
            assert!((alpha(2, time) - weight).abs() < 1e-5, "clip 2 at {time}: {}", alpha(2, time));
        }
    }

    /// A rest alpha below 1 that a clip keys nothing of gives way to WMV's opaque answer: the
    /// clip carries a one-key alpha of 1 (the product of a clip's alpha channels replaces the
    /// rest alpha).
    #[test]
    fn a_clip_keying_no_alpha_is_opaque_even_where_the_rest_is_not() {
        let alpha = per_sequence([Some(vec![(0.0, 0.4)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb: Track::default(), alpha }, Track::default());
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color.w, 0.4);
        assert_eq!(unit_color_at(&scene, Some(0), 50.0).w, 0.4);
        assert_eq!(unit_color_at(&scene, Some(1), 50.0).w, 1.0);
        assert_eq!(unit_color_at(&scene, None, 50.0).w, 0.4, "the rest pose keeps its own");
    }

    /// A unit with two textures gets a second layer from the lookups' next entries, combined
    /// as its shader id says; one whose lookup names nothing or whose id draws one texture
    /// keeps its first alone, with a warning.
    #[test]
    fn a_unit_with_two_textures_gets_a_second_layer() {
        use crate::formats::m2::model::Texture;
        let vertex = |i: u8| Vertex {
            position: Vec3::new(f32::from(i), f32::from(i * i), 0.0),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [0.0; 2],
            uv1: [0.25, f32::from(i)],
        };
        let model = M2Model {
            version: 264,
            vertices: (0..3).map(vertex).collect(),
            textures: vec![
                Texture { kind: 0, flags: 0, name: "base.blp".into() },
                Texture { kind: 0, flags: 3, name: "second.blp".into() },
            ],
            texture_lookup: vec![0, 1, 0],
            texcoord_lookup: vec![0, 1, 0, -1],
            render_flags: vec![(0, 0)],
            ..M2Model::default()
        };
        let unit = |texture_combo: u16, texcoord_combo: u16, shader_id: u16| TextureUnit {
            texture_combo,
            texcoord_combo,
            shader_id,
            color: -1,
            texture_count: 2,
            ..TextureUnit::default()
        };
        let skin = one_triangle_skin(vec![unit(0, 0, 0), unit(0, 2, 0x8001), unit(2, 0, 0), unit(0, 0, 0x8000)]);
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        let layer = |m: usize| scene.materials[m].layer2.clone();
        let first = layer(0).expect("unit 0: a second layer");
        assert_eq!(first.texture.as_deref(), Some("second.blp"));
        assert_eq!((first.uv_set, first.sphere_map, first.combine), (1, false, LayerCombine::Opaque));
        assert_eq!(first.wrap, [TextureWrap::Repeat; 2]);
        assert_eq!(scene.meshes[0].uvs1.len(), 3, "the second layer's set 1 keeps the mesh's second UVs");
        let env = layer(1).expect("unit 1: a sphere-mapped layer");
        assert_eq!((env.sphere_map, env.combine), (true, LayerCombine::Mod2xNoAlpha));
        assert_eq!(layer(2), None, "texture lookup 3 does not exist");
        assert_eq!(layer(3), None, "3.3.5a shader id 0x8000 draws no second texture");
        assert_eq!(scene.warnings.len(), 2, "{:?}", scene.warnings);
        assert_eq!(scene.validate(), Ok(()));
        // The combiner rule: v264 ids carry no second-stage bits; v272 ids do.
        assert_eq!(layer_combine(0x13, 264), Some(LayerCombine::Opaque));
        let v272: Vec<_> = [0x10, 0x11, 0x13, 0x14, 0x16, 0x17].map(|id| layer_combine(id, 272)).into();
        use LayerCombine::*;
        assert_eq!(v272, [Opaque, Mod, Add, Mod2x, Mod2xNoAlpha, AddNoAlpha].map(Some));
        assert_eq!(layer_combine(0x8000, 272), Some(Mod2xNoAlpha));
        assert_eq!(layer_combine(0x8002, 272), Some(AddByAlpha));
        assert_eq!(layer_combine(0x8003, 264), Some(AddByAlpha));
        assert_eq!(layer_combine(0x8004, 264), None);
    }
}
