//! Quake 3 players: a folder holding `lower.md3`, `upper.md3` and `head.md3` opens as one
//! scene, assembled as the game's cgame assembles a player (`CG_Player` in `cg_players.c`).
//!
//! - Each part is a [`Part`] (group `player`) under a root node: `lower` at the origin,
//!   `upper`'s root a child of lower's `tag_torso` node and `head`'s a child of upper's
//!   `tag_head` node. Tag nodes move per frame with their part's clip, so each child follows
//!   `parent · tag` as `CG_PositionRotatedEntityOnTag` places it (the child's own axes, the
//!   game's look angles, are the identity here). A missing tag leaves the identity, as
//!   `R_LerpTag` does, with a warning.
//! - `animation.cfg` ([`config`]) gives the clips ([`clips`]); two [`Layer`]s play a legs
//!   clip (`LEGS_` and `BOTH_` choices, `LEGS_IDLE` first) and a torso clip (`TORSO_` and
//!   `BOTH_`, `TORSO_STAND` first) at once. Without a readable `animation.cfg` each part's
//!   clips come from its frame names (prefixed with the part) and nothing plays at once.
//! - Skins: every `<part>_<name>.skin` name is one choice ([`CHOICE_SKIN`]) that switches
//!   all three parts; a part without that skin keeps its first, with a warning.
//! - [`attach_weapon`] hangs another model on upper's `tag_weapon`.
//!
//! The folder is told by its content: the three names the game loads, each an `IDP3` file.

mod clips;
pub mod config;
mod weapon;

use std::path::{Path, PathBuf};

use glam::Mat4;

pub use self::weapon::attach_weapon;
use super::{CHOICE_SKIN, FORMAT, Md3File, VERSION};
use crate::formats::Pick;
use crate::formats::assets::{self, Assets};
use crate::formats::error::{DecodeError, DecodeResult};
use crate::scene::{
    DetailSection, FormatKind, Layer, Node, NodeKind, Offsets, OpenChoice, Part, Playback, Scene, SceneKind,
};

/// The parts in the order the scene holds them.
pub const PART_NAMES: [&str; 3] = ["lower", "upper", "head"];
/// The group every part is listed under.
pub const GROUP: &str = "player";
/// The layer names.
pub const LEGS_LAYER: &str = "legs";
pub const TORSO_LAYER: &str = "torso";

/// The files of a player folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerFiles {
    pub folder: PathBuf,
    /// `lower.md3`, `upper.md3`, `head.md3` (names matched without case).
    pub parts: [PathBuf; 3],
    pub animation_cfg: Option<PathBuf>,
}

/// The player in `folder`, when it is a folder holding the three parts as `.md3` files.
pub fn find(folder: &Path) -> Option<PlayerFiles> {
    if !folder.is_dir() {
        return None;
    }
    let entries: Vec<PathBuf> = std::fs::read_dir(folder).ok()?.flatten().map(|e| e.path()).collect();
    let named = |wanted: &str| {
        entries
            .iter()
            .find(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(wanted)))
            .cloned()
    };
    let is_md3 = |path: &PathBuf| {
        use std::io::Read;
        let mut magic = [0u8; 4];
        std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && magic == super::MAGIC
    };
    let [lower, upper, head] = PART_NAMES.map(|part| named(&format!("{part}.md3")).filter(is_md3));
    Some(PlayerFiles {
        folder: folder.to_path_buf(),
        parts: [lower?, upper?, head?],
        animation_cfg: named("animation.cfg"),
    })
}

/// Whether `path` is a player folder ([`find`]).
pub fn is_player_folder(path: &Path) -> bool {
    find(path).is_some()
}

/// The skin names the parts offer, `default` first, and per part each name's option index.
fn skin_sets(files: &PlayerFiles, assets: &mut Assets) -> (Vec<String>, [Vec<String>; 3]) {
    let per_part = files.parts.clone().map(|p| {
        super::textures::skins_beside(&p, assets).into_iter().map(|(name, _)| name.to_lowercase()).collect::<Vec<_>>()
    });
    let mut names: Vec<String> = per_part.iter().flatten().cloned().collect();
    names.sort_by_key(|name| (name != "default", name.clone()));
    names.dedup();
    (names, per_part)
}

fn io_error(path: &Path, e: &std::io::Error) -> DecodeError {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    DecodeError::invalid(FORMAT, name, 0, format!("not read: {}", assets::io_wording(e)))
}

/// Opens the player: each part with its textures and the picked skin, assembled on its tags,
/// with the `animation.cfg` clips and the legs and torso layers.
pub fn open(files: &PlayerFiles, assets: &mut Assets, picks: &[Pick]) -> DecodeResult<Scene> {
    let (skins, per_part) = skin_sets(files, assets);
    let picked = picks.iter().rev().find(|p| p.key == CHOICE_SKIN).map(|p| p.option).filter(|&o| o < skins.len());
    let skin = picked.unwrap_or(0);
    let skin_name = skins.get(skin).cloned();

    let mut scene = Scene::new(FormatKind::Quake3Md3, SceneKind::Mesh);
    scene.version = VERSION as u32;
    let mut parsed: Vec<Md3File> = Vec::with_capacity(3);
    let mut tag_nodes: Vec<Vec<usize>> = Vec::with_capacity(3);
    for (index, (path, name)) in files.parts.iter().zip(PART_NAMES).enumerate() {
        let data = std::fs::read(path).map_err(|e| io_error(path, &e))?;
        let file = super::read(&data).map_err(|e| e.within(&format!("{name}.md3")))?;
        let options = per_part.get(index).map(Vec::as_slice).unwrap_or(&[]);
        let option = skin_name.as_ref().and_then(|s| options.iter().position(|o| o == s));
        if let (Some(wanted), None, false) = (&skin_name, option, options.is_empty()) {
            scene.warnings.push(format!("{name}: no {name}_{wanted}.skin; its first skin is drawn"));
        }
        let pick = [Pick { key: CHOICE_SKIN.into(), option: option.unwrap_or(0) }];
        let mut part = super::open(path, &data, assets, &pick).map_err(|e| e.within(&format!("{name}.md3")))?;
        part.path = Some(path.clone());
        assets::attach_images(&mut part, assets, &[]);
        let parent = attachment(&mut scene, index);
        let at = append_part(&mut scene, &part, name, parent, &file);
        tag_nodes.push(
            part.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Tag).map(|(i, _)| at + i).collect(),
        );
        parsed.push(file);
    }
    add_clips(&mut scene, files, &parsed, &tag_nodes);
    if !skins.is_empty() {
        let available = skins.iter().map(|s| per_part.iter().all(|p| p.contains(s))).collect();
        scene.choices.push(OpenChoice {
            key: CHOICE_SKIN.into(),
            label: "Skin".into(),
            options: skins,
            available,
            selected: Some(skin),
        });
    }
    Ok(scene)
}

/// The node part `index` hangs on: lower's `tag_torso` for upper, upper's `tag_head` for
/// head, `None` for lower; where the tag is missing, the parent part's root and a warning.
fn attachment(scene: &mut Scene, index: usize) -> Option<usize> {
    let (parent_part, tag) = match index {
        1 => (0, "tag_torso"),
        2 => (1, "tag_head"),
        _ => return None,
    };
    let part = scene.parts.get(parent_part)?;
    let found = part.nodes.clone().find(|&n| {
        scene.nodes.get(n).is_some_and(|node| node.kind == NodeKind::Tag && node.name.eq_ignore_ascii_case(tag))
    });
    if found.is_none() {
        let (owner, child) = (PART_NAMES.get(parent_part), PART_NAMES.get(index));
        let [owner, child] = [owner, child].map(|n| n.copied().unwrap_or_default());
        scene.warnings.push(format!("{owner}.md3 has no {tag}: {child} stands at its origin, as R_LerpTag leaves it"));
    }
    Some(found.unwrap_or(part.root))
}

/// Appends one part under a new root node (a child of `parent`); returns where its nodes start.
fn append_part(scene: &mut Scene, part: &Scene, name: &str, parent: Option<usize>, file: &Md3File) -> usize {
    let root = scene.nodes.len();
    let mut root_node = Node::new(name, NodeKind::Transform, Mat4::IDENTITY);
    root_node.parent = parent;
    scene.nodes.push(root_node);
    if let Some(parent) = parent.and_then(|p| scene.nodes.get_mut(p)) {
        parent.children.push(root);
    }
    let at = append_part_nodes(scene, part, root);
    scene.warnings.extend(part.warnings.iter().map(|w| format!("{name}: {w}")));
    scene.details.extend(
        part.details.iter().map(|d| DetailSection { title: format!("{name}: {}", d.title), rows: d.rows.clone() }),
    );
    let tags: Vec<&str> = file.tag_names.iter().map(String::as_str).collect();
    scene.parts.push(Part {
        name: name.to_string(),
        group: GROUP.to_string(),
        root,
        nodes: at.nodes..scene.nodes.len(),
        meshes: at.meshes..scene.meshes.len(),
        materials: at.materials..scene.materials.len(),
        facts: vec![
            ("frames".into(), file.frames.len().to_string()),
            ("surfaces".into(), file.surfaces.len().to_string()),
            ("tags".into(), tags.join(" ")),
        ],
        stand_in: None,
    });
    at.nodes
}

/// Appends `model` into `scene` with its top nodes made children of `root`.
fn append_part_nodes(scene: &mut Scene, model: &Scene, root: usize) -> Offsets {
    let at = scene.append_model(model, None);
    for index in at.nodes..scene.nodes.len() {
        if let Some(node) = scene.nodes.get_mut(index).filter(|n| n.parent.is_none()) {
            node.parent = Some(root);
            if let Some(r) = scene.nodes.get_mut(root) {
                r.children.push(index);
            }
        }
    }
    at
}

/// The `animation.cfg` clips and the two layers, or each part's own clips when the file is
/// missing or unreadable.
fn add_clips(scene: &mut Scene, files: &PlayerFiles, parsed: &[Md3File], tag_nodes: &[Vec<usize>]) {
    let config = match &files.animation_cfg {
        None => Err("no animation.cfg".to_string()),
        Some(path) => std::fs::read(path)
            .map_err(|e| format!("animation.cfg not read: {}", assets::io_wording(&e)))
            .and_then(|bytes| config::parse(&String::from_utf8_lossy(&bytes))),
    };
    let parts: Vec<clips::PartFrames> = parsed
        .iter()
        .zip(PART_NAMES)
        .zip(&scene.parts)
        .zip(tag_nodes)
        .map(|(((file, name), part), tags)| clips::PartFrames {
            name,
            file,
            first_mesh: part.meshes.start,
            tag_nodes: tags.clone(),
        })
        .collect();
    let config = match config {
        Ok(config) => config,
        Err(why) => {
            scene.warnings.push(format!("{why}: each part plays its own frames, one clip at a time"));
            let all: Vec<clips::PartFrames> = parts;
            let mut clips = Vec::new();
            for part in &all {
                let frames: Vec<i64> = (0..part.file.frames.len() as i64).collect();
                let animation = config::Animation {
                    first_frame: 0,
                    frame_count: frames.len() as i64,
                    loop_frames: 0,
                    frame_ms: (1000.0 / super::FRAMES_PER_SECOND) as i64,
                    reversed: false,
                };
                clips.push(clips::animation_clip(&format!("{} frames", part.name), &animation, &[part]));
            }
            scene.clips = clips;
            return;
        }
    };
    scene.warnings.extend(config.notes.iter().cloned());
    let [lower, upper, _] = [0, 1, 2].map(|i| parts.get(i));
    // Each part rests where its layer's clip starts (before the clips key from the rest).
    for (part, first) in [(lower, "LEGS_IDLE"), (upper, "TORSO_STAND")] {
        let animation = config.animations.iter().find(|(n, _)| *n == first).map(|(_, a)| a);
        if let (Some(part), Some(animation)) = (part, animation) {
            let frame = clips::key_frames(animation).first().copied().unwrap_or(0);
            clips::stand_at(scene, part, frame);
        }
    }
    let mut clips = Vec::new();
    // Per clip, where its loop returns to (`None`: it plays once).
    let mut loops = Vec::new();
    let (mut legs_choices, mut torso_choices) = (Vec::new(), Vec::new());
    for (i, (name, animation)) in config.animations.iter().enumerate() {
        // Team Arena's gestures only where the file gives them (else they copy TORSO_GESTURE).
        if i >= config.given && i >= config::TORSO_GETFLAG {
            continue;
        }
        let driven: Vec<&clips::PartFrames> = if name.starts_with("BOTH_") {
            [lower, upper].into_iter().flatten().collect()
        } else if name.starts_with("LEGS_") {
            lower.into_iter().collect()
        } else {
            upper.into_iter().collect()
        };
        let index = clips.len();
        if !name.starts_with("TORSO_") {
            legs_choices.push(index);
        }
        if !name.starts_with("LEGS_") {
            torso_choices.push(index);
        }
        clips.push(clips::animation_clip(name, animation, &driven));
        loops.push(clips::loop_start(animation));
    }
    scene.clips = clips;
    let find = |wanted: &str| scene.clips.iter().position(|c| c.name == wanted);
    let layer = |name: &str, clip: Option<usize>, choices: Vec<usize>, part: usize| {
        let loop_start = clip.and_then(|c| loops.get(c).copied().flatten());
        let playback = if loop_start.is_some() { Playback::Loop } else { Playback::Once };
        let choice_loops = choices.iter().map(|&c| loops.get(c).copied().flatten()).collect();
        Layer {
            name: name.into(),
            clip,
            choices,
            start: 0.0,
            speed: 1.0,
            playback,
            part: Some(part),
            loop_start,
            choice_loops,
        }
    };
    let legs = layer(LEGS_LAYER, find("LEGS_IDLE"), legs_choices, 0);
    let torso = layer(TORSO_LAYER, find("TORSO_STAND"), torso_choices, 1);
    scene.layers = vec![legs, torso];
}
