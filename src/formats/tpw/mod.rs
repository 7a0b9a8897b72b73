//! Theme Park World `.md2` (magic `46 5D D1 1C`): static meshes with a node tree, and keyframe
//! animation files that sit beside them as `<base>M1.MD2`, `<base>M2.MD2`, ...
//!
//! - [`layout`]: every offset and record size the spec states.
//! - [`mesh`]: mesh files into scene nodes, meshes and materials.
//! - [`anim`]: animation files into tracks, bound against a base model into clips.
//! - [`siblings`]: finding a model's animations and an animation's base model.
//! - The encoder for fixtures and the built-in demo is [`crate::writers::tpw`] (no game files are public).

pub mod anim;
pub mod heightfield;
pub mod layout;
pub mod mesh;
pub mod siblings;

use std::path::Path;

use layout::*;

use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;
use crate::scene::{FormatKind, RawField, Scene, SceneKind};

pub const FORMAT: &str = "tpw-md2";

/// A decoded TPW file: the scene, plus what binding animations needs.
pub struct TpwModel {
    pub scene: Scene,
    pub meshes: Vec<mesh::MeshFacts>,
    /// Header 0x30 bit 0x4: the model's animations are additive (notes §2).
    pub additive: bool,
    /// The path table, each entry decoded or the reason it could not be (notes §5).
    pub paths: Vec<Result<crate::scene::Path, String>>,
    /// Per node, the path index of a path node (bit 0x8), else `None`.
    pub path_nodes: Vec<Option<u16>>,
    /// The mesh the terrain heightfield (header 0x6C) became, when the file has one.
    pub heightfield: Option<usize>,
}

fn header_raw(r: &Reader) -> DecodeResult<Vec<RawField>> {
    let mut raw = vec![
        RawField::new(
            "animation format version",
            HDR_ANIM_VERSION,
            u64::from(r.u32(HDR_ANIM_VERSION, "animation version")?),
        ),
        RawField::new("unknown 0x0C", 0x0C, u64::from(r.u32(0x0C, "unknown 0x0C")?)),
        RawField::new("flags 0x30", HDR_FLAGS, u64::from(r.u32(HDR_FLAGS, "flags")?)),
        RawField::new("frame count", HDR_FRAME_COUNT, u64::from(r.u16(HDR_FRAME_COUNT, "frame count")?)),
        RawField::new("count for table 0xAC", HDR_TABLE_AC_COUNT, u64::from(r.u16(HDR_TABLE_AC_COUNT, "count 0x40")?)),
        RawField::new("count for table 0x7C", HDR_TABLE_7C_COUNT, u64::from(r.u16(HDR_TABLE_7C_COUNT, "count 0x48")?)),
    ];
    for at in HDR_POINTERS {
        raw.push(RawField::new(format!("pointer {at:#04x}"), at, u64::from(r.u32(at, "header pointer")?)));
    }
    Ok(raw)
}

/// One TPW file, as its header says: a mesh, or an animation of another file's meshes.
pub enum TpwFile {
    Mesh(TpwModel),
    Anim { scene: Scene, anim: anim::AnimFile },
}

/// Decodes one file into its raw form (see [`TpwFile`]).
pub fn decode_file(data: &[u8]) -> DecodeResult<TpwFile> {
    let r = Reader::new(data, FORMAT);
    let magic = r.bytes(0, 4, "magic")?;
    if magic != MAGIC {
        return Err(r.invalid("magic", 0, "not a Theme Park World model"));
    }
    let version = r.u32(HDR_VERSION, "version")?;
    if version != MAX_VERSION {
        return Err(r.invalid(
            "version",
            HDR_VERSION,
            format!("{version:#x} is not {MAX_VERSION:#x}, the only version the engine loads"),
        ));
    }
    let mesh_table = r.u32(HDR_MESH_TABLE, "mesh table offset")?;
    let kind = if mesh_table == 0 { SceneKind::Animation } else { SceneKind::Mesh };
    let mut scene = Scene::new(FormatKind::TpwMd2, kind);
    scene.version = version;
    scene.raw = header_raw(&r)?;
    Ok(match kind {
        SceneKind::Mesh => {
            let meshes = mesh::decode_meshes(&r, &mut scene)?;
            let heightfield = heightfield::attach_heightfield(&r, &mut scene);
            let additive = r.u32(HDR_FLAGS, "flags")? & HDR_ADDITIVE_FLAG != 0;
            let paths = mesh::decode_paths(&r).unwrap_or_else(|e| {
                scene.warnings.push(format!("path table unreadable ({e}); path progress cannot play"));
                Vec::new()
            });
            for reason in paths.iter().filter_map(|p| p.as_ref().err()) {
                scene.warnings.push(format!("{reason}; clips that follow it cannot play it"));
            }
            let path_nodes = mesh::path_nodes(&r, &scene);
            TpwFile::Mesh(TpwModel { scene, meshes, additive, paths, path_nodes, heightfield })
        }
        SceneKind::Animation => TpwFile::Anim { scene, anim: anim::decode_anim(&r)? },
    })
}

/// Decodes one file on its own. A mesh file yields its node tree; an animation file yields a
/// scene with no nodes and one clip whose tracks are unbound (no base model to pose).
pub fn decode_model(data: &[u8]) -> DecodeResult<TpwModel> {
    Ok(match decode_file(data)? {
        TpwFile::Mesh(model) => model,
        TpwFile::Anim { mut scene, anim } => {
            let clip = anim::bind(&anim, None, "animation", None);
            scene.clips.push(clip);
            scene.default_clip = Some(0);
            TpwModel {
                scene,
                meshes: Vec::new(),
                additive: false,
                paths: Vec::new(),
                path_nodes: Vec::new(),
                heightfield: None,
            }
        }
    })
}

/// Decodes one file on its own (see [`decode_model`]).
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    decode_model(data).map(|m| m.scene)
}

/// Opens a TPW file with its family: a mesh gets its sibling animations as clips; an
/// animation gets its base model and all the base model's animations, with itself selected.
pub fn open(path: &Path, data: &[u8]) -> DecodeResult<Scene> {
    let opened = decode_model(data)?;
    match opened.scene.kind {
        SceneKind::Mesh => {
            let mut model = opened;
            attach_siblings(path, &mut model, None);
            Ok(model.scene)
        }
        SceneKind::Animation => {
            let Some(base_path) = siblings::base_model(path) else {
                let mut scene = opened.scene;
                scene.warnings.push(format!(
                    "{}: no base model found beside this animation; nothing to pose (tracks are listed unbound)",
                    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                ));
                if let Some(clip) = scene.clips.first_mut() {
                    clip.name = siblings::clip_name(path, None);
                    clip.source = Some(path.to_path_buf());
                }
                return Ok(scene);
            };
            let base_data = match crate::formats::vfs::read(&base_path) {
                Ok(d) => d,
                Err(e) => {
                    let mut scene = opened.scene;
                    scene.warnings.push(format!("base model {} unreadable: {e}; nothing to pose", base_path.display()));
                    return Ok(scene);
                }
            };
            let mut base = match decode_model(&base_data) {
                Ok(m) if m.scene.kind == SceneKind::Mesh => m,
                Ok(_) => {
                    let mut scene = opened.scene;
                    scene
                        .warnings
                        .push(format!("base model {} is itself an animation; nothing to pose", base_path.display()));
                    return Ok(scene);
                }
                Err(e) => {
                    let mut scene = opened.scene;
                    scene
                        .warnings
                        .push(format!("base model {} failed to decode ({e}); nothing to pose", base_path.display()));
                    return Ok(scene);
                }
            };
            attach_siblings(&base_path, &mut base, Some(path));
            base.scene.kind = SceneKind::Animation;
            Ok(base.scene)
        }
    }
}

/// Decodes and binds every sibling animation of the base model at `base_path` as a clip.
/// `selected` names the animation file to make the default clip. An opened file the engine
/// never loads for this model (a bare file beside numbered ones, a file past a gap in the
/// numbers) is still bound, last, so what was opened plays, with a warning saying so.
fn attach_siblings(base_path: &Path, model: &mut TpwModel, selected: Option<&Path>) {
    let mut selected_bound = false;
    for sibling in siblings::animations_of(base_path) {
        let is_selected = selected.is_some_and(|s| siblings::same_file(s, &sibling));
        selected_bound |= is_selected;
        bind_sibling(base_path, model, &sibling, is_selected);
    }
    if let Some(opened) = selected.filter(|_| !selected_bound) {
        let file = opened.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        model.scene.warnings.push(format!(
            "{file}: the engine never loads this file for this model (it takes numbered files up to the \
             first gap, and a bare file only where no numbered one exists); shown as its own clip"
        ));
        bind_sibling(base_path, model, opened, true);
    }
}

/// Decodes the animation file `sibling` and binds it to `model` as a clip (the default one
/// when `is_selected`); a file that fails becomes a warning.
fn bind_sibling(base_path: &Path, model: &mut TpwModel, sibling: &Path, is_selected: bool) {
    let name = siblings::clip_name(sibling, Some(base_path));
    let data = match crate::formats::vfs::read(sibling) {
        Ok(d) => d,
        Err(e) => {
            model.scene.warnings.push(format!("{name}: unreadable ({e}); skipped"));
            return;
        }
    };
    let decoded = decode_file(&data).and_then(|f| match f {
        TpwFile::Anim { anim, .. } => Ok(anim),
        TpwFile::Mesh(_) => Err(Reader::new(&data, FORMAT).invalid(
            "mesh table offset",
            HDR_MESH_TABLE,
            "a mesh file named like an animation",
        )),
    });
    match decoded {
        Ok(file) => {
            let clip = anim::bind(&file, Some(&*model), &name, Some(sibling));
            let role = sibling.file_stem().and_then(|s| s.to_str()).and_then(siblings::split_role_stem).map(|s| s.role);
            if role == Some(siblings::CONSTRUCTION_ROLE) && model.scene.as_built.is_none() {
                model.scene.as_built = Some(model.scene.clips.len());
            }
            if is_selected {
                model.scene.default_clip = Some(model.scene.clips.len());
            }
            model.scene.clips.push(clip);
        }
        Err(e) => model.scene.warnings.push(format!("{name}: {e}; skipped")),
    }
}
