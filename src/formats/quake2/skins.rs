//! Which skin a Quake II model draws with, offered as a scene choice ([`CHOICE_SKIN`],
//! [`CHOICE_WEAPON_SKIN`]) like every other choice among companion files.
//!
//! - A model that names skins offers them, in file order; the first is drawn unless picked
//!   otherwise. Each is looked up by the one resolver (`formats::assets`); a missing one is a
//!   warning and an option that cannot be picked.
//! - A model that names none (`num_skins = 0`, as real player models store it, because the game
//!   takes the skin from the player's settings) offers the images in its folder: first the one
//!   named like the model (`sydney.md2` → `sydney.bmp`), then the one named like the folder
//!   (`drfreak/drfreak.pcx`, the engine's default skin for a player model), then the others
//!   alphabetically. Icons (`*_i.*`, the HUD pictures beside each skin) and the images the
//!   weapon model names are not skins.

use std::path::Path;

use crate::formats::Pick;
use crate::formats::assets::{self, Asset, Assets};
use crate::scene::{Material, OpenChoice, Scene};

/// Key of the model's skin choice.
pub const CHOICE_SKIN: &str = "skin";
/// Key of the attached weapon's skin choice.
pub const CHOICE_WEAPON_SKIN: &str = "weapon_skin";

/// Which model of a player folder the skins are for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// The model itself; `weapon_skins` are the lower-case base names (or stems) of the images
    /// the weapon draws with.
    Model { weapon_skins: Vec<String> },
    /// The `weapon.md2` attached to a player model.
    Weapon,
}

/// The lower-case base name of a skin path as a model writes it (either slash).
pub fn base_name(name: &str) -> String {
    name.rsplit(['/', '\\']).next().unwrap_or(name).trim().to_lowercase()
}

/// Whether an image file is a HUD icon (`skin_i.pcx`), not a skin.
fn is_icon(asset: &Asset) -> bool {
    asset.stem().to_lowercase().ends_with("_i")
}

/// The images a model that names no skin offers, best first (see the module doc).
pub fn folder_skins(model: &Path, assets: &mut Assets, role: &Role) -> Vec<Asset> {
    let folder_dir = assets::model_folder(model);
    let model_stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out: Vec<Asset> = Vec::new();
    if let Some(named_like_model) = assets.resolve_texture(&model_stem, std::slice::from_ref(&folder_dir))
        && assets::model_folder(&named_like_model.path().unwrap_or_default()) == folder_dir
    {
        out.push(named_like_model);
    }
    let Role::Model { weapon_skins } = role else { return out };
    let folder = assets.folder(&folder_dir);
    let folder_name = folder_dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_lowercase()))
        .unwrap_or_default();
    let mut others: Vec<Asset> = folder
        .images()
        .filter(|a| {
            let named_by_weapon =
                weapon_skins.iter().any(|w| *w == a.name.to_lowercase() || *w == a.stem().to_lowercase());
            !is_icon(a) && !named_by_weapon && !out.contains(a)
        })
        .collect();
    // Stable: named like the folder first, the rest stay in name order.
    others.sort_by_key(|a| a.stem().to_lowercase() != folder_name);
    out.extend(others);
    out
}

/// Sets up the skins of a freshly decoded Quake II scene (its own materials only): fills in
/// folder skins when it names none, warns about missing ones, offers the choice and points
/// the mesh at the picked one.
pub fn choose(model: &Path, scene: &mut Scene, assets: &mut Assets, role: &Role, picks: &[Pick]) {
    let (key, label) = match role {
        Role::Model { .. } => (CHOICE_SKIN, "Skin"),
        Role::Weapon => (CHOICE_WEAPON_SKIN, "Weapon skin"),
    };
    let named = scene.materials.iter().any(|m| m.texture.is_some());
    if !named {
        let found = folder_skins(model, assets, role);
        if !found.is_empty() {
            scene.materials = found
                .iter()
                .enumerate()
                .map(|(i, asset)| {
                    let mut material = Material::new(format!("folder skin {i}"));
                    material.texture = Some(asset.name.clone());
                    material
                })
                .collect();
        }
    }
    let search = assets::texture_dirs(Some(model), &[]);
    let mut options = Vec::new();
    let mut available = Vec::new();
    for material in &scene.materials {
        let Some(name) = material.texture.as_deref() else { continue };
        let found = assets.resolve_texture(name, &search).is_some();
        if !found {
            scene.warnings.push(format!("skin {name} not found beside the model; using the fallback texture"));
        }
        let shown = name.rsplit(['/', '\\']).next().unwrap_or(name).to_string();
        options.push(if found { shown } else { format!("{shown} (missing)") });
        available.push(found);
    }
    if options.is_empty() {
        return;
    }
    let picked = picks.iter().rev().find(|p| p.key == key).map(|p| p.option).filter(|&o| o < options.len());
    let selected = picked.unwrap_or(0);
    for mesh in scene.meshes.iter_mut() {
        for submesh in mesh.submeshes.iter_mut() {
            submesh.material = Some(selected);
        }
    }
    scene.choices.push(OpenChoice {
        key: key.into(),
        label: label.into(),
        options,
        available,
        selected: Some(selected),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_skins_put_the_folder_name_first_and_leave_out_icons_and_weapon_skins() {
        let root = std::env::temp_dir().join(format!("mdview-q2skins-{}", std::process::id()));
        let dir = root.join("x");
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["other.pcx", "x.pcx", "x_i.pcx", "a.png", "weapon.pcx", "notes.txt"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let role = Role::Model { weapon_skins: vec!["weapon.pcx".into()] };
        let names: Vec<String> =
            folder_skins(&dir.join("tris.md2"), &mut Assets::new(), &role).into_iter().map(|a| a.name).collect();
        assert_eq!(names, ["x.pcx", "a.png", "other.pcx"]);
        // The weapon takes only the image named like it.
        let names: Vec<String> = folder_skins(&dir.join("weapon.md2"), &mut Assets::new(), &Role::Weapon)
            .into_iter()
            .map(|a| a.name)
            .collect();
        assert_eq!(names, ["weapon.pcx"]);
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn base_names_take_either_slash() {
        assert_eq!(base_name("players\\drfreak\\Weapon.PCX"), "weapon.pcx");
        assert_eq!(base_name("players/male/grunt.pcx"), "grunt.pcx");
    }
}
