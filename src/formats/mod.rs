//! Format detection and opening: a table of magic numbers, one module per format, and
//! [`open`], which turns a path into a [`Scene`] (with sibling animations attached where the
//! format has them). Detection reads the content; the extension is never consulted.

// File data is untrusted: no unwrap, no panicking index or slice anywhere in the decoders.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod assets;
pub mod error;
pub mod frame_clips;
pub mod listing;
pub mod m2;
pub mod md3;
pub mod mdl;
pub mod mdr;
pub mod park;
pub mod quake2;
pub mod quake_axes;
pub mod reader;
pub mod tpw;
pub mod vfs;
pub mod wad;
pub mod wct;

use std::path::{Path, PathBuf};

pub use assets::{MODEL_EXTENSIONS, is_model_file};
pub use error::{DecodeError, DecodeResult, ErrorKind};

use crate::scene::{FormatKind, Scene};

/// One row per format: its magic bytes at offset 0 and what they select.
pub const MAGIC_TABLE: &[(&[u8; 4], FormatKind)] = &[
    (&[0x46, 0x5D, 0xD1, 0x1C], FormatKind::TpwMd2),
    (b"IDP2", FormatKind::Quake2Md2),
    (b"RDM5", FormatKind::Quake3Mdr),
    (b"IDP3", FormatKind::Quake3Md3),
    (b"IDPO", FormatKind::Quake1Mdl),
    (b"MD20", FormatKind::WowM2),
    // Chunked M2 (Legion+): detected so that it gets a clear "unsupported version" error.
    (b"MD21", FormatKind::WowM2),
    (b"SKIN", FormatKind::WowSkin),
];

/// The format whose magic opens `data`, or an error that reports the first four bytes.
pub fn detect(data: &[u8]) -> DecodeResult<FormatKind> {
    let head = data.get(..4).ok_or_else(|| {
        DecodeError::new("unknown", "magic", 0, ErrorKind::OutOfBounds { needed: 4, len: data.len() as u64 })
    })?;
    MAGIC_TABLE.iter().find(|(magic, _)| magic.as_slice() == head).map(|&(_, kind)| kind).ok_or_else(|| {
        let hex: Vec<String> = head.iter().map(|b| format!("{b:02X}")).collect();
        let ascii: String = head.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
        DecodeError::invalid(
            "unknown",
            "magic",
            0,
            format!("not a known model format (first bytes {} \"{ascii}\")", hex.join(" ")),
        )
    })
}

/// Why opening a path failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: {source}")]
    Decode { path: String, source: DecodeError },
}

impl OpenError {
    /// The reason without the path, for places that show the path already (sheet cells).
    pub fn reason(&self) -> String {
        match self {
            OpenError::Io { source, .. } => source.to_string(),
            OpenError::Decode { source, .. } => source.to_string(),
        }
    }
}

/// Decodes bytes of a detected format on their own, without looking for sibling files.
pub fn decode_bytes(data: &[u8]) -> DecodeResult<Scene> {
    decode_detected(data, None)
}

/// As [`decode_bytes`], for bytes the caller already shares: formats that keep a view of the
/// file (Quake II frames) keep this buffer instead of copying it.
pub fn decode_shared(data: crate::scene::SharedBytes) -> DecodeResult<Scene> {
    let view = data.clone();
    decode_detected(&view, Some(data))
}

/// The bytes one open of a file decodes, read ahead so that decoding them can be timed alone
/// (`info --timing`): the file's own and, for an M2, the skin profile the open takes, which
/// holds the geometry (a `.m2` decoded alone has none).
pub struct DecodeInputs {
    model: crate::scene::SharedBytes,
    m2_skin: Option<Vec<u8>>,
}

/// Reads what [`decode_inputs`] decodes for `path`.
pub fn read_decode_inputs(path: &Path) -> std::io::Result<DecodeInputs> {
    let model = vfs::read_shared(path)?;
    let m2_skin = match detect(&model) {
        Ok(FormatKind::WowM2) => m2::default_skin_bytes(path, &model),
        _ => None,
    };
    Ok(DecodeInputs { model, m2_skin })
}

/// Decodes bytes read by [`read_decode_inputs`] from memory, as [`decode_shared`] does, an M2
/// with its skin.
pub fn decode_inputs(inputs: &DecodeInputs) -> DecodeResult<Scene> {
    let Some(skin) = &inputs.m2_skin else { return decode_shared(inputs.model.clone()) };
    decoded_in_memory(m2::decode_with_skin(&inputs.model, skin, &m2::BuildOptions::default())?)
}

/// Detects and decodes `data`; `shared` is the same bytes when the caller already shares them.
fn decode_detected(data: &[u8], shared: Option<crate::scene::SharedBytes>) -> DecodeResult<Scene> {
    let scene = match detect(data)? {
        FormatKind::TpwMd2 => tpw::decode(data),
        FormatKind::Quake2Md2 => match shared {
            Some(shared) => quake2::decode_shared(shared),
            None => quake2::decode(data),
        },
        FormatKind::Quake3Mdr => mdr::decode(data),
        FormatKind::Quake3Md3 => md3::decode(data),
        FormatKind::Quake1Mdl => mdl::decode(data),
        FormatKind::WowM2 => m2::decode(data),
        FormatKind::WowSkin => Err(m2::lone_skin_error(None)),
        // A park names files of its install: it opens from a path (`open`), never from bytes.
        FormatKind::TpwPark => Err(DecodeError::invalid(
            "tpw-park",
            "magic",
            0,
            "a park save opens from its path, with its install beside it",
        )),
    }?;
    decoded_in_memory(scene)
}

/// Finishes a scene decoded from bytes alone: with no folder to search, every named texture
/// is an image that resolved nowhere; then [`validated`].
fn decoded_in_memory(mut scene: Scene) -> DecodeResult<Scene> {
    assets::attach_images(&mut scene, &mut assets::Assets::new(), &[]);
    validated(scene)
}

/// Runs [`Scene::validate`] on a decoded scene: a violation becomes the format's typed error.
fn validated(mut scene: Scene) -> DecodeResult<Scene> {
    match scene.validate() {
        Ok(()) => Ok(scene),
        Err(violation) => Err(DecodeError::invalid(
            scene.format.id(),
            format!("decoded scene {}", violation.location),
            0,
            violation.problem,
        )),
    }
}

/// A pick among a scene's [`OpenChoice`](crate::scene::OpenChoice)s: option `option` of the
/// choice keyed `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub key: String,
    pub option: usize,
}

/// Opens a model file: detects the format from its content, decodes it, and for formats
/// with companion files (TPW animations, M2 skins) finds and attaches them.
pub fn open(path: &Path) -> Result<Scene, OpenError> {
    open_with(path, &[])
}

/// As [`open`], with picks among the choices a previous open offered ([`Scene::choices`]);
/// picks a format does not offer are ignored.
pub fn open_with(path: &Path, picks: &[Pick]) -> Result<Scene, OpenError> {
    open_in(path, picks, assets::Assets::new())
}

/// As [`open`], with folder listings shared among the opens of one batch (see
/// [`assets::SharedListings`]).
pub fn open_shared(path: &Path, listings: &assets::SharedListings) -> Result<Scene, OpenError> {
    open_in(path, &[], assets::Assets::with_shared(listings))
}

fn open_in(path: &Path, picks: &[Pick], mut assets: assets::Assets) -> Result<Scene, OpenError> {
    let display = path.display().to_string();
    // A Quake 3 player folder (lower, upper and head `.md3`) opens as one model.
    if let Some(player) = md3::player::find(path) {
        let mut scene = md3::player::open(&player, &mut assets, picks)
            .map_err(|source| OpenError::Decode { path: display.clone(), source })?;
        scene.path = Some(path.to_path_buf());
        warn_missing_images(&mut scene);
        return validated(scene).map_err(|source| OpenError::Decode { path: display, source });
    }
    // Through the archive seam: a path may lead into a `.wad` (`x.wad/models/gate.MD2`).
    let data = vfs::read_shared(path).map_err(|source| OpenError::Io { path: display.clone(), source })?;
    if wad::is_wad(&data) {
        let source = DecodeError::invalid(
            wad::FORMAT,
            "magic",
            0,
            "a WAD archive is a folder of models: open a member (ARCHIVE.wad/dir/model.md2) or list it with `mdview info`",
        );
        return Err(OpenError::Decode { path: display, source });
    }
    if park::is_save(&data) {
        let scene = park::open_park_scene(path, None)?;
        return validated(scene).map_err(|source| OpenError::Decode { path: display, source });
    }
    let kind = detect(&data).map_err(|source| OpenError::Decode { path: display.clone(), source })?;
    let mut scene = match kind {
        FormatKind::TpwMd2 => tpw::open(path, &data),
        FormatKind::Quake2Md2 => quake2::open(path, data.clone(), &mut assets, picks),
        FormatKind::WowM2 => m2::open_with(path, &data, &m2::OpenOptions::from_picks(path, picks)),
        FormatKind::WowSkin => Err(m2::lone_skin_error(Some(path))),
        FormatKind::Quake3Mdr => mdr::decode(&data),
        FormatKind::Quake3Md3 => md3::open(path, &data, &mut assets, picks),
        FormatKind::Quake1Mdl => mdl::open(path, &data, &mut assets, picks),
        FormatKind::TpwPark => return park::open_park_scene(path, None),
    }
    .map_err(|source| OpenError::Decode { path: display.clone(), source })?;
    scene.path = Some(path.to_path_buf());
    assets::attach_images(&mut scene, &mut assets, &[]);
    warn_missing_images(&mut scene);
    validated(scene).map_err(|source| OpenError::Decode { path: display, source })
}

/// A texture the faces draw with that resolved nowhere is a warning (it draws as the fallback
/// tile, as the TPW engine draws its brown NotFound tile); a format that already said so about
/// that name (Quake II skins) is not repeated.
fn warn_missing_images(scene: &mut Scene) {
    let drawn = scene.drawn_images();
    let missing: Vec<String> = scene
        .images
        .iter()
        .zip(&drawn)
        .filter(|(image, drawn)| **drawn && image.source.is_none())
        .map(|(image, _)| image.name.clone())
        .filter(|name| !scene.warnings.iter().any(|w| w.contains(name.as_str())))
        .collect();
    for name in missing {
        scene.warnings.push(format!("texture {name} not found beside the model; drawn with the fallback texture"));
    }
}

/// Looks again for the textures of `scene` that resolved nowhere, now also in `extra` folders
/// (`render --texture-dir`), with the same resolver [`open`] used.
pub fn resolve_images(scene: &mut Scene, extra: &[std::path::PathBuf]) {
    assets::attach_images(scene, &mut assets::Assets::new(), extra);
}

/// One model file with the animation files that belong to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelGroup {
    pub model: PathBuf,
    /// Sibling animation files, in playing order (TPW: `<base>M<n>.md2` by `n`).
    pub animations: Vec<PathBuf>,
}

/// Groups model files into models and their animation files, the way [`open`] attaches them:
/// a TPW animation `<base>M<n>.md2` whose base model (`<base>.*`, any case, same folder) is
/// among `files` goes under it, once its header says it is an animation file (so the model
/// `towers.md2` stays beside `tower.md2`, not under it; only files named like an animation of
/// a present base are read, and only their first bytes); an animation without its base stays
/// a group of its own, so it can still be opened and say what it needs. Files that are not
/// models are left out. Groups are in file-name order (case-insensitive), the viewer's folder
/// list and `scan` both use it.
pub fn group_models(mut files: Vec<PathBuf>) -> Vec<ModelGroup> {
    let name_of = |p: &Path| p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem_of = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let key = |p: &Path, stem: &str| (assets::model_folder(p), stem.to_lowercase());
    files.retain(|p| is_model_file(p));
    files.sort_by_key(|p| (name_of(p).to_lowercase(), name_of(p)));
    let stems: std::collections::HashSet<(PathBuf, String)> = files.iter().map(|p| key(p, &stem_of(p))).collect();
    let mut groups: Vec<ModelGroup> = Vec::new();
    let mut animations: Vec<(u32, PathBuf, (PathBuf, String))> = Vec::new();
    for path in files {
        let stem = stem_of(&path);
        let is_md2 = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"));
        match tpw::siblings::split_anim_stem(&stem).filter(|_| is_md2) {
            Some((base, n)) if stems.contains(&key(&path, base)) && tpw::siblings::is_animation_file(&path) => {
                let owner = key(&path, base);
                animations.push((n, path, owner));
            }
            _ => groups.push(ModelGroup { model: path, animations: Vec::new() }),
        }
    }
    animations.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    for (_, path, owner) in animations {
        if let Some(group) = groups.iter_mut().find(|g| key(&g.model, &stem_of(&g.model)) == owner) {
            group.animations.push(path);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_uses_the_magic_table() {
        assert_eq!(detect(&[0x46, 0x5D, 0xD1, 0x1C, 0]), Ok(FormatKind::TpwMd2));
        assert_eq!(detect(b"IDP2...."), Ok(FormatKind::Quake2Md2));
        assert_eq!(detect(b"RDM5"), Ok(FormatKind::Quake3Mdr));
        assert_eq!(detect(b"MD20\x08\x01"), Ok(FormatKind::WowM2));
        assert_eq!(detect(b"SKIN"), Ok(FormatKind::WowSkin));
    }

    #[test]
    fn unknown_magic_reports_first_bytes() {
        let err = detect(b"PK\x03\x04rest").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("50 4B 03 04"), "{text}");
        assert_eq!(err.offset, 0);
    }

    #[test]
    fn animations_group_under_their_base_in_the_same_folder() {
        // Grouping reads the header of each file named like an animation: these are written
        // as TPW animation headers (magic, no mesh table), the rest as meshes.
        let root = std::env::temp_dir().join(format!("mdview-group-{}", std::process::id()));
        let names = ["a/gateM10.md2", "a/GATE.md2", "a/gatem2.MD2", "b/gateM1.md2", "a/rabbit.m2", "a/notes.txt"];
        for name in names {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mut header = vec![0u8; 0x74];
            header[..4].copy_from_slice(&tpw::layout::MAGIC);
            if !name.to_lowercase().contains("gatem") {
                header[0x70] = 0x80;
            }
            std::fs::write(path, header).unwrap();
        }
        let groups = group_models(names.iter().map(|n| root.join(n)).collect());
        let shown: Vec<(String, Vec<String>)> = groups
            .iter()
            .map(|g| {
                let relative = |p: &Path| p.strip_prefix(&root).unwrap().display().to_string();
                (relative(&g.model), g.animations.iter().map(|a| relative(a)).collect())
            })
            .collect();
        std::fs::remove_dir_all(&root).ok();
        assert_eq!(
            shown,
            [
                ("a/GATE.md2".to_string(), vec!["a/gatem2.MD2".to_string(), "a/gateM10.md2".to_string()]),
                // Its base is in another folder: a group of its own.
                ("b/gateM1.md2".to_string(), vec![]),
                ("a/rabbit.m2".to_string(), vec![]),
            ]
        );
    }

    #[test]
    fn short_file_is_an_error() {
        assert!(detect(b"ID").is_err());
    }
}
