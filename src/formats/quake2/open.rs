//! Opening a model where it lies: its skins resolved in its folder, and a player model's
//! `weapon.md2` beside it attached as a second mesh posed by the same clips.

use std::path::Path;

use super::{decode_shared, skins};
use crate::formats::Pick;
use crate::formats::assets::{self, Asset, Assets, Folder};
use crate::formats::error::DecodeResult;
use crate::scene::{Channel, PackedFrames, Scene, SharedBytes};

/// Opens a model with its skins resolved beside it (see [`skins`]). A player model
/// (`tris.md2`) with a `weapon.md2` beside it gets the weapon as a second mesh node, `weapon`,
/// posed by the same clips and frames. Which skin each draws with is a [`Scene::choices`]
/// entry ([`skins::CHOICE_SKIN`], [`skins::CHOICE_WEAPON_SKIN`]) that `picks` may change.
pub fn open(path: &Path, data: SharedBytes, assets: &mut Assets, picks: &[Pick]) -> DecodeResult<Scene> {
    let mut scene = decode_shared(data)?;
    let folder = assets.folder(&assets::model_folder(path));
    let weapon = weapon_beside(path, &folder).map(|asset| {
        let decoded =
            asset.read_shared().map_err(|e| e.to_string()).and_then(|d| decode_shared(d).map_err(|e| e.to_string()));
        (asset, decoded)
    });
    // The images the weapon names are its own, never a skin of the player.
    let weapon_skins: Vec<String> = match &weapon {
        Some((_, Ok(w))) => {
            let named: Vec<String> =
                w.materials.iter().filter_map(|m| m.texture.as_deref()).map(skins::base_name).collect();
            // A weapon that names none is drawn with the image named like it.
            if named.is_empty() { vec!["weapon".to_string()] } else { named }
        }
        _ => Vec::new(),
    };
    skins::choose(path, &mut scene, assets, &skins::Role::Model { weapon_skins }, picks);
    match weapon {
        Some((asset, Ok(mut weapon))) => {
            skins::choose(&asset.path().unwrap_or_default(), &mut weapon, assets, &skins::Role::Weapon, picks);
            attach_weapon(&mut scene, weapon);
        }
        Some((_, Err(e))) => scene.warnings.push(format!("weapon.md2 beside the model not shown: {e}")),
        None => {}
    }
    Ok(scene)
}

/// `weapon.md2` (any case) beside a `tris.md2`.
fn weapon_beside(path: &Path, folder: &Folder) -> Option<Asset> {
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    if stem != "tris" {
        return None;
    }
    folder.file("weapon.md2")
}

/// Adds the weapon as node/mesh `weapon`, with a frame channel in every clip whose frames the
/// weapon also has. A weapon that fails to decode or is shorter becomes a warning.
fn attach_weapon(scene: &mut Scene, mut weapon: Scene) {
    let (Some(mut mesh), Some(mut node)) = (weapon.meshes.pop(), weapon.nodes.pop()) else { return };
    let mesh_index = scene.meshes.len();
    let material_base = scene.materials.len();
    for sub in mesh.submeshes.iter_mut() {
        sub.material = sub.material.map(|m| m + material_base);
    }
    mesh.name = "weapon".into();
    mesh.node = Some(scene.nodes.len());
    node.name = "weapon".into();
    node.mesh = Some(mesh_index);
    scene.nodes.push(node);
    scene.meshes.push(mesh);
    scene.materials.extend(weapon.materials.into_iter().map(|mut m| {
        m.name = format!("weapon {}", m.name);
        m
    }));
    scene.warnings.extend(weapon.warnings.into_iter().map(|w| format!("weapon: {w}")));
    scene.choices.extend(weapon.choices);
    // The weapon's frames in file order, whatever its own clips are called: one shared table.
    let Some(template) = weapon.clips.into_iter().flat_map(|clip| clip.channels).find_map(|channel| match channel {
        Channel::PackedFrames(packed) => Some(packed),
        _ => None,
    }) else {
        return;
    };
    let weapon_frames = template.table.times.len();
    let mut short = false;
    for clip in scene.clips.iter_mut() {
        let (first, last) = (clip.start as usize, clip.end as usize);
        if last < weapon_frames {
            clip.channels.push(Channel::PackedFrames(PackedFrames {
                mesh: mesh_index,
                frames: first..last + 1,
                ..template.clone()
            }));
        } else {
            short = true;
        }
    }
    if short {
        scene.warnings.push(format!(
            "weapon.md2 has {weapon_frames} frames, fewer than the model; it holds still in the clips it lacks"
        ));
    }
}
