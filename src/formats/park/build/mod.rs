//! A [`Park`] built into one assembled [`Scene`] that the viewer, `render` and `export` take
//! like any model: each placed item is a [`Part`] under a placement node, posed by its own
//! [`Layer`]s (the clips its ride-system channels play, at the save's times), with its hidden
//! nodes hidden; items that cannot be shown stand as labelled boxes over their footprints.
//!
//! Each item model is decoded once (in parallel) however often it is placed; repeats share its
//! materials and images and their meshes are marked as copies, and only the clips an item
//! plays are copied for it.
//!
//! Where an item stands follows [`super::placement`]: the placement node carries the item's
//! world matrix, and the model's root nodes lose their own translation under it (the notes'
//! "the root node's own translation is replaced"); fixed items keep theirs at the origin.

mod stand_in;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec4};
use rayon::prelude::*;

use super::assemble::{Park, PlacedItem};
use super::ground::Ground;
use super::placement::{ChannelPose, Hold};
use crate::formats::OpenError;
use crate::scene::{FormatKind, GROUND, Layer, Node, NodeKind, Offsets, Part, Playback, RawField, Scene, SceneKind};

/// Opens a park save as one scene, with the catalogue of `install` or of the install found
/// above the save.
pub fn open_park_scene(path: &Path, install: Option<&Path>) -> Result<Scene, OpenError> {
    let park = super::open_park(path, install)?;
    Ok(park_scene(&park))
}

/// The group an item id's kind digits put it in (notes §6: 11xx rides … 16xx fixed items).
pub fn group_of(item: u32) -> &'static str {
    match (item / 100) % 100 {
        11 => "rides",
        12 => "shops",
        13 => "sideshows",
        14 => "features",
        15 => "upgrades",
        16 => "fixed",
        _ => "other",
    }
}

/// Builds the scene of a park: every placed item, decoded once per model.
pub fn park_scene(park: &Park) -> Scene {
    let mut scene = Scene::new(FormatKind::TpwPark, SceneKind::Mesh);
    scene.path = park.path.clone();
    scene.version = park.save.version;
    scene.warnings = park.warnings.clone();
    scene.raw = header_fields(park);
    let ground = super::ground::build_ground(park.install.as_deref(), park.theme.as_deref(), park);
    add_ground(&mut scene, &ground, park);
    let models = decode_models(park);
    let unshown: BTreeMap<u32, &str> =
        park.unshown.iter().filter_map(|u| Some((u.thing?, u.reason.as_str()))).collect();
    let mut placed: BTreeMap<PathBuf, Offsets> = BTreeMap::new();
    for item in &park.items {
        let why_not = unshown.get(&item.thing).copied();
        let model = item.entry.as_ref().and_then(|e| e.model_path()).map(|p| (models.get(&p), p));
        match (why_not, model) {
            (None, Some((Some(Ok(model)), path))) => {
                let first = placed.get(&path).copied();
                let at = place_model(&mut scene, item, model, first.as_ref(), &ground);
                placed.entry(path).or_insert(at);
            }
            (None, Some((Some(Err(error)), _))) => {
                scene.warnings.push(format!("{}: {error}; shown as a box", item_label(item)));
                stand_in::place_box(&mut scene, item, error, &ground);
            }
            (Some(reason), _) => stand_in::place_box(&mut scene, item, reason, &ground),
            (None, _) => stand_in::place_box(&mut scene, item, "no model", &ground),
        }
    }
    for u in park.unshown.iter().filter(|u| u.thing.is_none()) {
        scene.warnings.push(format!("item {}: {}", u.item, u.reason));
    }
    scene
}

/// The name the UI gives a placed item: its WAD's stem (or its id) and its thing id.
pub fn item_label(item: &PlacedItem) -> String {
    match item.name() {
        Some(stem) => format!("{stem} #{}", item.thing),
        None => format!("item {} #{}", item.item, item.thing),
    }
}

/// Every distinct item model of the park, opened (with its clips and textures) in parallel.
fn decode_models(park: &Park) -> BTreeMap<PathBuf, Result<Scene, String>> {
    let paths: BTreeSet<PathBuf> = park.items.iter().filter_map(|i| i.entry.as_ref()?.model_path()).collect();
    let share = shared_textures(park);
    paths
        .into_par_iter()
        .map(|path| {
            let opened = crate::formats::open(&path).map(|mut scene| {
                if let Some(share) = &share
                    && scene.images.iter().any(|i| i.source.is_none())
                {
                    crate::formats::resolve_images(&mut scene, std::slice::from_ref(share));
                }
                scene
            });
            (path, opened.map_err(|e| e.to_string()))
        })
        .collect()
}

/// The theme's `sharetex.wad/textures`, searched after an item's own textures (notes §6).
fn shared_textures(park: &Park) -> Option<PathBuf> {
    let root = park.install.as_ref()?;
    let theme = park.theme.as_ref()?;
    let wad = root.join("data").join("levels").join(theme).join("sharetex.wad");
    wad.is_file().then(|| wad.join("textures"))
}

/// Appends one placed item's model under its placement node, with its layers and hidden
/// nodes; returns where the model landed (a repeat shares `first`'s materials).
fn place_model(
    scene: &mut Scene,
    item: &PlacedItem,
    model: &Scene,
    first: Option<&Offsets>,
    ground: &Ground,
) -> Offsets {
    let label = item_label(item);
    let placement = scene.nodes.len();
    scene.nodes.push(Node::new(label.clone(), NodeKind::Transform, on_ground(item, ground)));
    let at = scene.append_model(model, first);
    for root in model.roots() {
        let index = root + at.nodes;
        if let Some(node) = scene.nodes.get_mut(index) {
            node.parent = Some(placement);
            if item.replaces_root_translation {
                node.local.w_axis = Vec4::W;
            }
        }
        if let Some(p) = scene.nodes.get_mut(placement) {
            p.children.push(index);
        }
    }
    // Mesh names carry the item's label, so an OBJ's objects say whose they are.
    for mesh in scene.meshes.iter_mut().skip(at.meshes) {
        mesh.name = format!("{label}/{}", mesh.name);
    }
    let node_count = model.nodes.len();
    scene.hidden_nodes.extend(item.pose.hidden_nodes.iter().filter(|&&n| n < node_count).map(|&n| n + at.nodes));
    let part = scene.parts.len();
    let mut playing = Vec::new();
    for channel in &item.pose.channels {
        match find_clip(model, channel) {
            Some(clip) => {
                playing.push(add_layer(scene, model, clip, &at, part, &label, Some(channel)));
            }
            None => scene.warnings.push(format!(
                "{label}: channel {} plays clip {} (role {}, index {}), which {} does not have",
                channel.channel,
                channel.clip_name,
                channel.role,
                channel.clip,
                item.name().unwrap_or("the model")
            )),
        }
    }
    if item.pose.as_built {
        match model.as_built {
            Some(clip) => playing.push(add_layer(scene, model, clip, &at, part, &label, None)),
            None => {
                scene.warnings.push(format!("{label}: plays nothing and has no construction (C) clip; shown at rest"))
            }
        }
    }
    for w in &item.pose.warnings {
        scene.warnings.push(format!("{label}: {w}"));
    }
    let mut facts = item_facts(item);
    facts.push(("playing".into(), if playing.is_empty() { "nothing (rest)".into() } else { playing.join(", ") }));
    let materials = at.materials..at.materials + model.materials.len();
    scene.parts.push(Part {
        name: label,
        group: group_of(item.item).into(),
        root: placement,
        nodes: at.nodes..at.nodes + node_count,
        meshes: at.meshes..at.meshes + model.meshes.len(),
        materials,
        facts,
        stand_in: None,
    });
    at
}

/// An item's world matrix standing on the ground: placed items rise to the ground's height at
/// their anchor cell (the engine's own height rule is open; the anchor's middle is ours);
/// fixed items are authored in world space and stay as they are.
pub(crate) fn on_ground(item: &PlacedItem, ground: &Ground) -> Mat4 {
    let mut world = item.world_matrix();
    if let (true, Some(cell)) = (item.replaces_root_translation, item.cell) {
        world.w_axis.y += ground.height_at(cell);
    }
    world
}

/// Appends the ground as the part named `ground`, its water clip looping on its own layer.
fn add_ground(scene: &mut Scene, ground: &Ground, park: &Park) {
    let model = &ground.scene;
    let root = scene.nodes.len();
    scene.nodes.push(Node::new(GROUND, NodeKind::Transform, Mat4::IDENTITY));
    let at = scene.append_model(model, None);
    for r in model.roots() {
        if let Some(node) = scene.nodes.get_mut(r + at.nodes) {
            node.parent = Some(root);
        }
        if let Some(node) = scene.nodes.get_mut(root) {
            node.children.push(r + at.nodes);
        }
    }
    let part = scene.parts.len();
    if let Some(clip) = ground.water_clip.and_then(|c| model.clips.get(c)) {
        let index = scene.clips.len();
        scene.clips.push(clip.shifted(&at, format!("ground: {}", clip.name)));
        let mut layer = Layer::looping(format!("ground: {}", clip.name), index, clip.start);
        layer.part = Some(part);
        scene.layers.push(layer);
    }
    scene.warnings.extend(ground.warnings.iter().map(|w| format!("ground: {w}")));
    scene.parts.push(Part {
        name: GROUND.into(),
        group: GROUND.into(),
        root,
        nodes: at.nodes..at.nodes + model.nodes.len(),
        meshes: at.meshes..at.meshes + model.meshes.len(),
        materials: at.materials..at.materials + model.materials.len(),
        facts: vec![
            ("path cells".into(), park.paths.len().to_string()),
            ("queue pieces".into(), ground.queue_placements.len().to_string()),
        ],
        stand_in: None,
    });
}

/// The model's clip a channel names: `<role><index + 1>` (`M1`), or the bare role letter for
/// index 0 (`<stem>C.md2`).
fn find_clip(model: &Scene, channel: &ChannelPose) -> Option<usize> {
    let numbered = model.clips.iter().position(|c| c.name.eq_ignore_ascii_case(&channel.clip_name));
    numbered.or_else(|| {
        (channel.clip == 0)
            .then(|| model.clips.iter().position(|c| c.name.eq_ignore_ascii_case(&channel.role.to_string())))?
    })
}

/// Copies `clip` of `model` for the copy at `at` and adds the layer that plays it as the save
/// says (`None`: the construction clip held on its last frame, how a finished item looks).
/// Returns a short description for the part's facts.
fn add_layer(
    scene: &mut Scene,
    model: &Scene,
    clip: usize,
    at: &Offsets,
    part: usize,
    label: &str,
    channel: Option<&ChannelPose>,
) -> String {
    let Some(source) = model.clips.get(clip) else { return String::new() };
    let index = scene.clips.len();
    scene.clips.push(source.shifted(at, format!("{label}: {}", source.name)));
    let (playback, start, speed, said) = match channel {
        None => (Playback::HoldLast, source.end, 1.0, format!("{} as built (last frame)", source.name)),
        Some(c) => {
            let playback = match (c.hold, c.looping) {
                (Hold::HeldLast, _) => Playback::HoldLast,
                (Hold::FrozenFirst, _) => Playback::HoldFirst,
                (Hold::Playing, true) => Playback::Loop,
                (Hold::Playing, false) => Playback::Once,
            };
            // The save's position in the clip, in the clip's own units (frames at 30 a second).
            let start = source.start + (c.time_ms as f32 / 1000.0) * source.rate;
            let speed = if c.speed.is_finite() && c.speed > 0.0 { c.speed } else { 1.0 };
            let how = match playback {
                Playback::Loop => "looping",
                Playback::Once => "playing once",
                Playback::HoldFirst => "frozen on its first frame",
                Playback::HoldLast => "held on its last frame",
            };
            (playback, start, speed, format!("{} {how} at frame {:.1}", source.name, c.frame))
        }
    };
    scene.layers.push(Layer {
        name: format!("{label}: {}", source.name),
        clip: Some(index),
        choices: Vec::new(),
        start,
        speed,
        playback,
        part: Some(part),
        loop_start: None,
        choice_loops: Vec::new(),
    });
    said
}

/// The facts the panel and `info` list beside an item.
pub(crate) fn item_facts(item: &PlacedItem) -> Vec<(String, String)> {
    let mut facts = vec![("id".to_string(), item.item.to_string()), ("thing".into(), item.thing.to_string())];
    facts.push(("cell".into(), item.cell.map_or("not placed".into(), |[x, y]| format!("{x}, {y}"))));
    facts.push(("angle".into(), format!("{}°", item.angle)));
    if let Some(e) = &item.entry {
        facts.push(("wad".into(), e.wad.display().to_string()));
    }
    facts
}

/// The save's header fields for the raw-field list.
fn header_fields(park: &Park) -> Vec<RawField> {
    let h = &park.save.world.header;
    let field = |name: &'static str, value: u64| RawField { name: name.into(), offset: 0, value };
    vec![
        field("save version", u64::from(park.save.version)),
        field("mGameTick", u64::from(h.game_tick)),
        field("mParkClosed", u64::from(h.park_closed)),
        field("placed items", park.items.len() as u64),
        field("path cells", park.paths.len() as u64),
        field("queue cells", park.queues.len() as u64),
    ]
}
