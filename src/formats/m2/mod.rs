//! World of Warcraft `.m2` models (magic `MD20`, WotLK v264; Cataclysm v272 with a warning) with
//! their `.skin` level-of-detail files, `.anim` keyframe files and BLP2 textures.
//!
//! - [`layout`]: every offset and record size, as the specs state them.
//! - [`model`]: the .m2 into plain records (header, sequences, bones, vertices, materials'
//!   inputs, attachments and emitters).
//! - [`tracks`]: M2Track reading, compressed quaternions, global sequences.
//! - [`skin`]: the .skin file (vertex lookup, indices, submeshes, texture units).
//! - [`build`]: records into the scene (meshes per submesh, materials per texture unit,
//!   skeleton, clips in milliseconds, marker nodes, `info` details).
//! - [`blp`]: BLP2 texture decoding.
//! - this file: axes, decoding bytes, and opening a model with its sibling files.
//!
//! # Axes
//! WoW models are Z-up, right-handed; the scene is Y-up, right-handed. [`axes`] is the one
//! place that maps them: `(x, y, z) → (x, z, −y)`, a −90° rotation about X (a proper rotation,
//! so triangle winding is kept). Positions, normals and pivots go through it as the scene is
//! built, bone keys as they are decoded (`tracks::BONE_*_KEYS`); everything downstream
//! (renderer, OBJ export) sees Y-up data.
//!
//! # Sibling files
//! [`open`] looks beside the model, case-insensitively, for `<name>00.skin` … `<name>NN.skin`
//! (NN from the header's profile count), for `<name><id:04>-<variation:02>.anim` of sequences
//! whose keyframes are not in the .m2, and for `.blp` files to stand in for run-time textures.

pub mod blp;
pub mod build;
pub mod layout;
pub mod model;
pub mod names;
pub mod skin;
pub mod tracks;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::formats::error::{DecodeError, DecodeResult, ErrorKind};
use crate::scene::{DetailRow, DetailSection, OpenChoice, Scene};

pub use build::BuildOptions;

pub const FORMAT: &str = model::FORMAT;
/// Skin profiles looked for at most (the header's count is data; WoW ships up to 4).
pub const MAX_SKIN_PROFILES: u32 = 16;

/// The axis mapping from WoW's Z-up model space to the scene's Y-up space.
pub mod axes {
    use glam::{Quat, Vec3};

    /// `(x, y, z) → (x, z, −y)`.
    pub fn position(v: Vec3) -> Vec3 {
        Vec3::new(v.x, v.z, -v.y)
    }

    /// The same rotation applied to a rotation: its axis maps like a position.
    pub fn rotation(q: Quat) -> Quat {
        Quat::from_xyzw(q.x, q.z, -q.y, q.w)
    }

    /// Per-axis scale factors follow their axes (signs drop out).
    pub fn scale(s: Vec3) -> Vec3 {
        Vec3::new(s.x, s.z, s.y)
    }
}

/// Choices when opening a model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Which skin profile (level of detail) to use; `None`: the first one found.
    pub skin_profile: Option<usize>,
    /// File name of the `.blp` to use for run-time textures; `None`: the first beside the model.
    pub replaceable_texture: Option<String>,
}

/// Keys of the choices [`open_with`] offers in [`Scene::choices`].
pub const CHOICE_SKIN_PROFILE: &str = "skin_profile";
pub const CHOICE_RUNTIME_TEXTURE: &str = "runtime_texture";

impl OpenOptions {
    /// Options from picks among the choices of an earlier open of `path`.
    pub fn from_picks(path: &Path, picks: &[crate::formats::Pick]) -> OpenOptions {
        let mut options = OpenOptions::default();
        for pick in picks {
            match pick.key.as_str() {
                CHOICE_SKIN_PROFILE => options.skin_profile = Some(pick.option),
                CHOICE_RUNTIME_TEXTURE => {
                    options.replaceable_texture = replaceable_texture_choices(path)
                        .get(pick.option)
                        .and_then(|p| p.file_name())
                        .map(|n| n.to_string_lossy().into_owned());
                }
                _ => {}
            }
        }
        options
    }
}

/// Decodes a .m2 on its own: no sibling files, so no geometry (its triangles are in the
/// .skin files). The skeleton, sequences, materials' inputs and markers are all there.
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    let model = model::decode(data, &[])?;
    let mut scene = build::build(&model, None, &BuildOptions::default(), data.len() as u64);
    scene.warnings.push(
        "decoded without its .skin files, so there is no geometry: open the .m2 by path to load <name>00.skin".into(),
    );
    Ok(scene)
}

/// Decodes a .m2 with one .skin profile given as bytes (for tests and the damage sweep).
pub fn decode_with_skin(m2: &[u8], skin_bytes: &[u8], options: &BuildOptions) -> DecodeResult<Scene> {
    let model = model::decode(m2, &[])?;
    let skin = skin::decode(skin_bytes)?;
    Ok(build::build(&model, Some(&skin), options, (m2.len() + skin_bytes.len()) as u64))
}

/// The error for a `.skin` opened on its own.
pub fn lone_skin_error(path: Option<&Path>) -> DecodeError {
    let model = path.and_then(model_of_skin);
    let hint = match model {
        Some(m) => format!("open {m} instead"),
        None => "open its .m2 instead".into(),
    };
    DecodeError::new(
        skin::FORMAT,
        "magic",
        0,
        ErrorKind::Unsupported(format!("a .skin file holds one level of detail of an .m2 model; {hint}")),
    )
}

/// `Rabbit00.skin` → `Rabbit.m2`.
fn model_of_skin(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let base = stem.get(..stem.len().checked_sub(2)?)?;
    Some(format!("{base}.m2"))
}

/// The files in `dir`, by lower-case name (the one folder listing of `formats::assets`).
fn listing(dir: &Path) -> HashMap<String, PathBuf> {
    let folder = crate::formats::assets::Assets::new().folder(dir);
    folder.files().filter_map(|asset| Some((asset.name.to_lowercase(), asset.path()?))).collect()
}

fn dir_and_stem(path: &Path) -> (PathBuf, String) {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    (dir, stem)
}

/// One skin profile a model declares: its expected file name and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkinProfileFile {
    pub index: usize,
    pub file_name: String,
    pub path: Option<PathBuf>,
}

/// The skin profiles the model at `path` declares (`data` is its bytes), found or not.
pub fn skin_profiles(path: &Path, data: &[u8]) -> DecodeResult<Vec<SkinProfileFile>> {
    let (dir, stem) = dir_and_stem(path);
    skin_profiles_among(&listing(&dir), &stem, data)
}

/// The bytes of the skin profile [`open`] takes with default options (the first declared one
/// that exists and decodes), read ahead so that decoding can be timed apart from reading
/// (`info --timing`); `None` when there is none.
pub fn default_skin_bytes(path: &Path, data: &[u8]) -> Option<Vec<u8>> {
    skin_profiles(path, data)
        .ok()?
        .into_iter()
        .filter_map(|profile| profile.path)
        .find_map(|skin_path| std::fs::read(skin_path).ok().filter(|bytes| skin::decode(bytes).is_ok()))
}

/// [`skin_profiles`] against a folder already listed by [`listing`].
fn skin_profiles_among(
    files: &HashMap<String, PathBuf>,
    stem: &str,
    data: &[u8],
) -> DecodeResult<Vec<SkinProfileFile>> {
    let r = crate::formats::reader::Reader::new(data, FORMAT);
    model::check_version(&r)?;
    let declared = r.u32(layout::HDR_SKIN_PROFILE_COUNT, "skin profile count")?;
    Ok((0..declared.min(MAX_SKIN_PROFILES) as usize)
        .map(|index| {
            let file_name = format!("{stem}{index:02}.skin");
            let path = files.get(&file_name.to_lowercase()).cloned();
            SkinProfileFile { index, file_name, path }
        })
        .collect())
}

/// The `.blp` files beside the model, sorted by name: the choices for run-time textures.
pub fn replaceable_texture_choices(path: &Path) -> Vec<PathBuf> {
    let (dir, _) = dir_and_stem(path);
    blp_files_among(&listing(&dir))
}

/// [`replaceable_texture_choices`] against a folder already listed by [`listing`].
fn blp_files_among(files: &HashMap<String, PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        files.iter().filter(|(name, _)| name.ends_with(".blp")).map(|(_, p)| p.clone()).collect();
    out.sort_by_key(|p| p.file_name().map(|n| n.to_string_lossy().to_lowercase()));
    out
}

/// Opens a model with its sibling files using default choices.
pub fn open(path: &Path, data: &[u8]) -> DecodeResult<Scene> {
    open_with(path, data, &OpenOptions::default())
}

/// Opens a model with its sibling files: the chosen skin profile, `.anim` files, and a `.blp`
/// for run-time textures. Missing siblings are warnings; only the .m2 itself can fail.
pub fn open_with(path: &Path, data: &[u8], options: &OpenOptions) -> DecodeResult<Scene> {
    let sequences = model::read_sequences(data)?;
    let (dir, stem) = dir_and_stem(path);
    let files = listing(&dir);
    let file_label = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();

    // .anim files for sequences whose keyframes are not in the .m2.
    let mut anim_paths: Vec<Option<PathBuf>> = Vec::with_capacity(sequences.len());
    let mut anim_bytes: Vec<Option<Vec<u8>>> = Vec::with_capacity(sequences.len());
    let mut early_warnings = Vec::new();
    for seq in &sequences {
        if seq.in_file() || seq.is_alias() {
            anim_paths.push(None);
            anim_bytes.push(None);
            continue;
        }
        let wanted = format!("{stem}{}", build::anim_file_suffix(seq.id, seq.variation)).to_lowercase();
        let found = files.get(&wanted).cloned();
        let bytes = found.as_ref().and_then(|p| match std::fs::read(p) {
            Ok(b) => Some(b),
            Err(e) => {
                early_warnings.push(format!("{}: unreadable ({e})", p.display()));
                None
            }
        });
        anim_paths.push(found.filter(|_| bytes.is_some()));
        anim_bytes.push(bytes);
    }
    let anim_refs: Vec<Option<&[u8]>> = anim_bytes.iter().map(|b| b.as_deref()).collect();
    let model = model::decode(data, &anim_refs)?;

    // Skin profiles: the chosen one, else the first that exists and decodes.
    let profiles = skin_profiles_among(&files, &stem, data)?;
    let mut details = DetailSection { title: "Skin profiles".into(), rows: Vec::new() };
    let mut order: Vec<usize> = (0..profiles.len()).collect();
    if let Some(chosen) = options.skin_profile {
        order.retain(|&i| i != chosen);
        order.insert(0, chosen);
    }
    let mut chosen_skin = None;
    let mut statuses: Vec<String> =
        profiles.iter().map(|p| if p.path.is_some() { "found".into() } else { "MISSING".into() }).collect();
    for index in order {
        let Some(profile) = profiles.get(index) else {
            early_warnings
                .push(format!("skin profile {index} was asked for but the model declares {}", profiles.len()));
            continue;
        };
        let Some(skin_path) = &profile.path else { continue };
        let decoded = std::fs::read(skin_path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| skin::decode(&bytes).map_err(|e| e.to_string()).map(|s| (s, bytes.len())));
        match decoded {
            Ok((skin, len)) => {
                if let Some(s) = statuses.get_mut(index) {
                    *s = "found, in use".into();
                }
                chosen_skin = Some((index, skin, len));
                break;
            }
            Err(e) => {
                early_warnings.push(format!("{}: {e}; trying the next profile", profile.file_name));
                if let Some(s) = statuses.get_mut(index) {
                    *s = format!("found, FAILED: {e}");
                }
            }
        }
    }
    let missing: Vec<&str> = profiles.iter().filter(|p| p.path.is_none()).map(|p| p.file_name.as_str()).collect();
    if !missing.is_empty() {
        early_warnings.push(format!(
            "the model declares {} skin profiles but {} missing: {}",
            profiles.len(),
            if missing.len() == 1 { "this one is" } else { "these are" },
            missing.join(", ")
        ));
    }
    if chosen_skin.is_none() {
        early_warnings.push(format!("no usable skin profile beside {}: no geometry", file_label(path)));
    }
    if model.skin_profile_count > MAX_SKIN_PROFILES {
        early_warnings.push(format!(
            "the header declares {} skin profiles; only the first {MAX_SKIN_PROFILES} are looked for",
            model.skin_profile_count
        ));
    }
    for (p, status) in profiles.iter().zip(&statuses) {
        details
            .rows
            .push(DetailRow::default().with("profile", p.index).with("file", &p.file_name).with("status", status));
    }

    // Run-time textures: one .blp beside the model stands in for them all.
    let has_runtime = model.textures.iter().any(|t| t.kind != 0);
    let choices = blp_files_among(&files);
    let replaceable = if has_runtime {
        let wanted = options.replaceable_texture.as_deref();
        let picked = wanted
            .and_then(|w| choices.iter().find(|c| file_label(c).eq_ignore_ascii_case(w)))
            .or_else(|| choices.first());
        if let Some(w) = wanted
            && picked.is_some_and(|p| !file_label(p).eq_ignore_ascii_case(w))
        {
            early_warnings.push(format!("texture choice {w} is not beside the model; using the first .blp"));
        }
        match picked {
            Some(p) => {
                let others = choices.len().saturating_sub(1);
                early_warnings.push(format!(
                    "run-time textures have no name in the model; using {}{}",
                    file_label(p),
                    if others > 0 {
                        format!(" (one of {} .blp files beside it)", choices.len())
                    } else {
                        String::new()
                    }
                ));
                Some(file_label(p))
            }
            None => {
                early_warnings.push("run-time textures have no name in the model and no .blp is beside it".into());
                None
            }
        }
    } else {
        None
    };

    let build_options = BuildOptions { replaceable_texture: replaceable.clone() };
    let skin_len = chosen_skin.as_ref().map(|(_, _, len)| *len as u64).unwrap_or(0);
    let input_len = (data.len() as u64).saturating_add(skin_len);
    let mut scene = build::build(&model, chosen_skin.as_ref().map(|(_, s, _)| s), &build_options, input_len);
    scene.warnings.extend(early_warnings);
    for (clip, p) in scene.clips.iter_mut().zip(&anim_paths) {
        clip.source.clone_from(p);
    }

    // Texture files beside the model: which exist, and their size.
    let mut texture_rows = Vec::new();
    for (i, t) in model.textures.iter().enumerate() {
        let name = if t.kind == 0 { Some(t.name.clone()) } else { replaceable.clone() };
        let base = name.as_deref().map(|n| n.rsplit(['\\', '/']).next().unwrap_or(n).to_lowercase());
        let found = base.as_ref().and_then(|b| files.get(b));
        let status = match found {
            None => "not beside the model".to_string(),
            Some(p) => match std::fs::read(p)
                .map_err(|e| e.to_string())
                .and_then(|b| blp::header(&b).map_err(|e| e.to_string()))
            {
                Ok(h) => format!("{}x{} {}", h.width, h.height, h.encoding.label()),
                Err(e) => format!("unreadable: {e}"),
            },
        };
        texture_rows.push(
            DetailRow::default()
                .with("texture", i)
                .with("type", format!("{} {}", t.kind, names::texture_type_name(t.kind)))
                .with("file", base.unwrap_or_else(|| "-".into()))
                .with("resolution", status),
        );
    }
    if has_runtime {
        let list: Vec<String> = choices.iter().map(|c| file_label(c)).collect();
        texture_rows.push(DetailRow::default().with("run-time texture choices", list.join(", ")));
    }
    scene.choices.push(OpenChoice {
        key: CHOICE_SKIN_PROFILE.into(),
        label: "Skin profile".into(),
        options: profiles
            .iter()
            .map(|p| if p.path.is_some() { p.file_name.clone() } else { format!("{} (missing)", p.file_name) })
            .collect(),
        available: profiles.iter().map(|p| p.path.is_some()).collect(),
        selected: chosen_skin.as_ref().map(|(index, _, _)| *index),
    });
    if has_runtime && !choices.is_empty() {
        scene.choices.push(OpenChoice {
            key: CHOICE_RUNTIME_TEXTURE.into(),
            label: "Run-time texture".into(),
            options: choices.iter().map(|c| file_label(c)).collect(),
            available: vec![true; choices.len()],
            selected: replaceable.as_ref().and_then(|r| choices.iter().position(|c| &file_label(c) == r)),
        });
    }
    scene.details.insert(1, details);
    scene.details.insert(2, DetailSection { title: "Texture files".into(), rows: texture_rows });
    if let Some((index, _, _)) = &chosen_skin
        && let Some(model_section) = scene.details.first_mut()
        && let Some(row) = model_section.rows.first_mut()
    {
        row.push("skin profile in use", index);
    }
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn axis_mapping_is_one_rotation() {
        let r = Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2);
        let v = Vec3::new(1.0, 2.0, 3.0);
        assert!(axes::position(v).abs_diff_eq(r.transform_point3(v), 1e-6));
        let q = Quat::from_axis_angle(Vec3::new(0.3, 0.5, 0.8).normalize(), 0.7);
        let conj = Quat::from_mat4(&r) * q * Quat::from_mat4(&r).inverse();
        assert!(axes::rotation(q).abs_diff_eq(conj, 1e-6));
        assert_eq!(axes::scale(Vec3::new(1.0, 2.0, 3.0)), Vec3::new(1.0, 3.0, 2.0));
    }

    #[test]
    fn lone_skin_points_at_its_model() {
        let e = lone_skin_error(Some(Path::new("/x/Rabbit00.skin")));
        assert!(e.to_string().contains("Rabbit.m2"), "{e}");
        assert_eq!(e.format, "wow-skin");
    }
}
