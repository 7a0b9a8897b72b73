//! Opening an `.md3` where it lies: textures found by Quake 3's rules, and the `.skin` files
//! beside the model offered as a choice ([`CHOICE_SKIN`]).
//!
//! - A shader name is a path from the game root, the folder above `models/` (any folder above
//!   the model is tried, nearest first). A missing `.tga` falls back to the `.jpg` of the same
//!   name (`R_FindImageFile`); a name with no extension, or another image extension, tries
//!   `.tga`, `.jpg` and `.png` too (Turtle Arena writes `.png` and bare names). What is not
//!   found there goes to the common resolver, which also looks beside the model by base name
//!   (Quake 3 would not: such models ship their texture next to them); still missing, it is a
//!   warning and the fallback tile.
//! - A `.skin` file holds `surface,texture` lines (`tag_` lines and others without a texture
//!   are ignored, as `RE_RegisterSkin` skips tags); its texture replaces that surface's shader.
//!   `$(dir)` (a Turtle Arena macro) stands for the model's folder.
//! - The skins offered are `<model>_<name>.skin` beside the model (Quake 3 players:
//!   `lower_default.skin`), or, where there are none of those, every `.skin` there that is not
//!   another model's `<model>_*.skin` (map objects: `default.skin`, `red.skin`). `default` comes
//!   first and is drawn unless picked otherwise.

use std::path::Path;
use std::sync::Arc;

use super::decode;
use crate::formats::Pick;
use crate::formats::assets::{self, Asset, Assets};
use crate::formats::error::DecodeResult;
use crate::scene::{OpenChoice, Scene, SceneImage};

/// Key of the skin choice.
pub const CHOICE_SKIN: &str = "skin";

/// Texture names to try for one shader or skin path, best first (see the module doc).
pub fn texture_candidates(name: &str) -> Vec<String> {
    let written = name.trim().replace('\\', "/");
    let mut out = vec![written.clone()];
    let stem = match written.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains('/') => stem.to_string(),
        _ => written.clone(),
    };
    for ext in ["tga", "jpg", "png"] {
        let candidate = format!("{stem}.{ext}");
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

/// The file a shader or skin path names, by Quake 3's rules, from `model_dir` upward.
pub fn find_texture(assets: &mut Assets, model_dir: &Path, name: &str) -> Option<Asset> {
    let candidates = texture_candidates(name);
    if let Some(rest) = name.trim().strip_prefix("$(dir)") {
        let rest = rest.trim_start_matches(['/', '\\']);
        return texture_candidates(rest).iter().find_map(|c| assets.file_at(model_dir, c));
    }
    for base in model_dir.ancestors() {
        if let Some(found) = candidates.iter().find_map(|c| assets.file_at(base, c)) {
            return Some(found);
        }
    }
    None
}

/// The `surface,texture` pairs of a `.skin` file, surface names lower-cased.
pub fn parse_skin(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let (surface, texture) = line.split_once(',')?;
            let (surface, texture) = (surface.trim(), texture.trim().trim_matches('"'));
            let tag = surface.to_ascii_lowercase().starts_with("tag_");
            (!surface.is_empty() && !texture.is_empty() && !tag).then(|| (surface.to_lowercase(), texture.to_string()))
        })
        .collect()
}

/// The skins offered for `model`: (option name, file), `default` first, then by name.
pub fn skins_beside(model: &Path, assets: &mut Assets) -> Vec<(String, Asset)> {
    let folder = assets.folder(&assets::model_folder(model));
    let stem = model.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
    let skins: Vec<Asset> = folder.files().filter(|a| a.name.to_lowercase().ends_with(".skin")).collect();
    let prefix = format!("{stem}_");
    let own: Vec<(String, Asset)> = skins
        .iter()
        .filter_map(|a| Some((a.stem().to_lowercase().strip_prefix(&prefix)?.to_string(), a.clone())))
        .collect();
    let mut chosen = if own.is_empty() {
        // Another model's `<model>_*.skin` is not this one's.
        let models: Vec<String> = folder
            .files()
            .filter(|a| a.name.to_lowercase().ends_with(".md3"))
            .map(|a| format!("{}_", a.stem().to_lowercase()))
            .collect();
        skins
            .into_iter()
            .filter(|a| !models.iter().any(|m| a.stem().to_lowercase().starts_with(m)))
            .map(|a| (a.stem().to_string(), a))
            .collect()
    } else {
        own
    };
    chosen.sort_by_key(|(name, _)| (name != "default", name.to_lowercase()));
    chosen
}

/// Opens a model with its textures and skins resolved beside it.
pub fn open(path: &Path, data: &[u8], assets: &mut Assets, picks: &[Pick]) -> DecodeResult<Scene> {
    let mut scene = decode(data)?;
    let model_dir = assets::model_folder(path);
    let skins = skins_beside(path, assets);
    if !skins.is_empty() {
        let picked = picks.iter().rev().find(|p| p.key == CHOICE_SKIN).map(|p| p.option).filter(|&o| o < skins.len());
        let selected = picked.unwrap_or(0);
        if let Some((name, asset)) = skins.get(selected) {
            match asset.read() {
                Ok(bytes) => apply_skin(&mut scene, &parse_skin(&String::from_utf8_lossy(&bytes)), name),
                Err(e) => scene.warnings.push(format!("skin {} not read: {e}", asset.name)),
            }
        }
        scene.choices.push(OpenChoice {
            key: CHOICE_SKIN.into(),
            label: "Skin".into(),
            options: skins.iter().map(|(name, _)| name.clone()).collect(),
            available: vec![true; skins.len()],
            selected: Some(selected),
        });
    }
    for index in 0..scene.materials.len() {
        let Some(name) = scene.materials.get(index).and_then(|m| m.texture.clone()) else { continue };
        if let Some(found) = find_texture(assets, &model_dir, &name) {
            scene.images.push(SceneImage::new(name, Some(Arc::new(found))));
            let image = scene.images.len() - 1;
            if let Some(material) = scene.materials.get_mut(index) {
                material.image = Some(image);
            }
        }
    }
    Ok(scene)
}

/// Points each surface the skin names at the skin's texture; surfaces it leaves out keep their
/// shader, and names it gives that the model lacks are a warning.
fn apply_skin(scene: &mut Scene, pairs: &[(String, String)], skin: &str) {
    let mut unknown = Vec::new();
    for (surface, texture) in pairs {
        let mut hit = false;
        for mesh in scene.meshes.iter().filter(|m| m.name.to_lowercase() == *surface) {
            for sub in &mesh.submeshes {
                if let Some(material) = sub.material.and_then(|m| scene.materials.get_mut(m)) {
                    material.texture = Some(texture.clone());
                    hit = true;
                }
            }
        }
        if !hit {
            unknown.push(surface.as_str());
        }
    }
    if !unknown.is_empty() {
        scene.warnings.push(format!("skin {skin} names surfaces the model lacks: {}", unknown.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_quake_3s_fallbacks() {
        assert_eq!(texture_candidates("a/b.tga"), ["a/b.tga", "a/b.jpg", "a/b.png"]);
        assert_eq!(texture_candidates("a\\b"), ["a/b", "a/b.tga", "a/b.jpg", "a/b.png"]);
        assert_eq!(texture_candidates("m/leg.png"), ["m/leg.png", "m/leg.tga", "m/leg.jpg"]);
        assert_eq!(texture_candidates("x/g.tga.tga"), ["x/g.tga.tga", "x/g.tga.jpg", "x/g.tga.png"]);
    }

    #[test]
    fn skin_lines_skip_tags_and_empty_textures() {
        let text =
            "h_head,models/players/casey/head\r\ntag_head,\ntag_torso,x\n,\nu_flap, \"models/flags/r_flag2.png\"\nbad";
        assert_eq!(
            parse_skin(text),
            [
                ("h_head".to_string(), "models/players/casey/head".to_string()),
                ("u_flap".to_string(), "models/flags/r_flag2.png".to_string())
            ]
        );
    }
}
