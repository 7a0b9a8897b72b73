//! Finding a model's textures: the folders searched ([`texture_dirs`], archives' own
//! folders), the one resolver ([`resolve_texture`]) and giving a scene's materials their
//! images ([`attach_images`]).

// foldhash, not SipHash: hashing names and paths was a quarter of resolving a model's skins.
// It is seeded at random per process, so crafted names have a harder time aiming at one
// bucket, though it claims only minimal resistance to that (listings are local and small).
use foldhash::{HashMap, HashMapExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::cache::Assets;
use super::folders::{Asset, FolderSource};
use super::{IMAGE_EXTENSIONS, lower_case, same_without_case};
use crate::scene::{ImageSource, Scene, SceneImage};

impl Assets {
    /// Resolves a texture name as a model states it: see [`resolve_texture`].
    pub fn resolve_texture(&mut self, name: &str, search: &[PathBuf]) -> Option<Asset> {
        // Nothing to search and no absolute path: nothing can resolve, and nothing is cached.
        if search.is_empty() && !Path::new(name.trim()).is_absolute() {
            return None;
        }
        let list = match self.resolved.iter().position(|(searched, _)| searched.as_slice() == search) {
            Some(list) => list,
            None => {
                self.resolved.push((search.to_vec(), HashMap::new()));
                self.resolved.len() - 1
            }
        };
        if let Some(found) = self.resolved.get(list).and_then(|(_, names)| names.get(name)) {
            return found.clone();
        }
        let found = self.resolve_texture_uncached(name, search);
        if let Some((_, names)) = self.resolved.get_mut(list) {
            names.insert(name.to_string(), found.clone());
        }
        found
    }

    /// Whether folder `base`, the model's or one above it, may hold a written path whose first
    /// part is `first` (`players` of `players/hunter/skin.pcx`). Listing each folder above the
    /// model to compare names case-insensitively cost more than decoding the model, so a
    /// listing is made only for the model's own folder (listed for its images anyway), where
    /// the model's path runs through a folder of that name right below `base` (the model sits
    /// in the game's layout: `baseq2/players/hunter/tris.md2`), or where `base` is listed
    /// already. Elsewhere `first` must be spelled as written: one `stat`.
    fn may_hold(&mut self, base: &Path, below: Option<&Path>, first: &str) -> bool {
        let Some(below) = below else { return true };
        let on_the_models_path =
            below.file_name().is_some_and(|name| lower_case(&name.to_string_lossy()) == lower_case(first));
        if on_the_models_path
            || first == ".."
            || self.folders.contains_key(&FolderSource::Directory(base.to_path_buf()))
        {
            return true;
        }
        // Asked once per skin name with folders in it, for the same few folders. `exists`, not
        // `is_dir`: a written `./skin.pcx` has only the file's name as its first part.
        let spelled = base.join(first).into_os_string();
        if let Some(&exists) = self.exists.get(&spelled) {
            return exists;
        }
        let exists = Path::new(&spelled).exists();
        self.exists.insert(spelled, exists);
        exists
    }

    fn resolve_texture_uncached(&mut self, name: &str, search: &[PathBuf]) -> Option<Asset> {
        let written = name.trim();
        if written.is_empty() {
            return None;
        }
        let as_path = Path::new(written);
        if as_path.is_absolute() && as_path.is_file() {
            let folder = as_path.parent()?;
            return self.file(folder, &as_path.file_name()?.to_string_lossy());
        }
        // A name with folders in it is relative to a game or data folder, which is the model's
        // folder or one above it (`players/drfreak/weapon.pcx`, `Creature\Rabbit\Rabbit.blp`).
        if written.contains(['/', '\\'])
            && let Some(model_dir) = search.first()
        {
            // `players/hunter/weapon.pcx` beside a model in a folder called `hunter`: the file in
            // the model's own folder, as the game's layout would find it, with no folder above
            // tried (a player folder is often moved out of the game's tree).
            if let Some((folders, file)) = written.rsplit_once(['/', '\\'])
                && let Some(own) = model_dir.file_name()
                && folders
                    .rsplit(['/', '\\'])
                    .next()
                    .is_some_and(|last| same_without_case(last, &own.to_string_lossy()))
                && let Some(found) = self.folder(model_dir).file(file)
            {
                return Some(found);
            }
            let first = written.split(['/', '\\']).find(|part| !part.is_empty() && *part != ".").unwrap_or("");
            let mut below: Option<&Path> = None;
            for base in model_dir.ancestors() {
                if self.may_hold(base, below, first)
                    && let Some(found) = self.file_at(base, written)
                {
                    return Some(found);
                }
                below = Some(base);
            }
        }
        if search.is_empty() {
            return None;
        }
        let candidates = image_candidates(written);
        for dir in search {
            let folder = self.folder(dir);
            if let Some(found) = candidates.iter().find_map(|c| folder.file(c)) {
                return Some(found);
            }
        }
        None
    }
}

/// The folder a model's companions sit in (`.` for a bare file name).
pub fn model_folder(model: &Path) -> PathBuf {
    match model.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A TPW model on disk in a folder of an extracted archive (`out/models/gate.MD2` from
/// `mdview extract`) looks where it would inside the archive: the `textures/` and
/// `stexture/` folders at the archive's root, here the folder above the model's (or its
/// own, for a model at the root). They go after the model's own folders and before the
/// user's (`texture_dirs` puts the model's two first).
pub(super) fn extracted_archive_dirs(model: Option<&Path>, search: &mut Vec<PathBuf>) {
    let Some(model) = model.filter(|m| crate::formats::wad::path::split_member_path(m).is_none()) else { return };
    let folder = model_folder(model);
    // A folder spelled `.` or ending in `..` has no name to strip: the one above is `../`.
    let above = match (folder.file_name(), folder.parent()) {
        (None, _) => folder.join(".."),
        (Some(_), Some(parent)) if parent.as_os_str().is_empty() => PathBuf::from("."),
        (Some(_), Some(parent)) => parent.to_path_buf(),
        (Some(_), None) => return,
    };
    // The model may sit at the archive's root too: its own `stexture/` (its `textures/` is
    // searched already).
    let dirs = [folder.join("stexture"), above.join("textures"), above.join("stexture")];
    let at = search.len().min(2);
    for (k, dir) in dirs.into_iter().enumerate() {
        search.insert(at + k, dir);
    }
}

/// The folders searched for a model's textures, in order: the model's folder, a `textures/`
/// folder beside it, then `extra` (folders the user added). For a model inside a `.wad`
/// archive, [`archive_texture_dirs`] come first and the archive's folder stands for the
/// model's.
pub fn texture_dirs(model: Option<&Path>, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let member = model.and_then(crate::formats::wad::path::split_member_path);
    if let Some(member) = &member {
        dirs.extend(archive_texture_dirs(member));
    }
    if let Some(model) = member.as_ref().map(|m| m.archive.as_path()).or(model) {
        let folder = model_folder(model);
        dirs.push(folder.clone());
        dirs.push(folder.join("textures"));
    }
    dirs.extend(extra.iter().cloned());
    dirs
}

/// Where TPW keeps textures for a model inside an archive: the same archive's `textures\`
/// then `stexture\` (the low-detail set), the model's own directory and the archive's root;
/// then the theme's shared texture archives beside it (`sharetex.wad`, then `ssharete.wad`);
/// then the other archives of that folder, in name order. Within each archive, its other
/// directories follow those. Loose files come after (see [`texture_dirs`]).
pub fn archive_texture_dirs(member: &crate::formats::wad::path::MemberPath) -> Vec<PathBuf> {
    let in_archive = |archive: &Path| {
        let join = |dir: &str| crate::formats::vfs::join_member(archive, dir);
        let mut dirs = vec![join("textures"), join("stexture"), archive.to_path_buf()];
        let mut pending = crate::formats::vfs::list_dirs(archive);
        pending.sort();
        while let Some(dir) = pending.pop() {
            pending.extend(crate::formats::vfs::list_dirs(&dir));
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs
    };
    let mut dirs = in_archive(&member.archive);
    if let Some((dir, _)) = member.member.rsplit_once('/') {
        dirs.insert(2, crate::formats::vfs::join_member(&member.archive, dir));
    }
    let folder = model_folder(&member.archive);
    let mut others: Vec<PathBuf> = crate::formats::vfs::list_files(&folder)
        .into_iter()
        .filter(|p| crate::formats::wad::path::has_wad_extension(p) && *p != member.archive)
        .collect();
    others.sort_by_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let rank = match name.as_str() {
            "sharetex.wad" => 0,
            "ssharete.wad" => 1,
            _ => 2,
        };
        (rank, name)
    });
    for other in others {
        dirs.extend(in_archive(&other));
    }
    dirs
}

/// The one texture resolver, for a name as the model states it, against `search` (see
/// [`texture_dirs`]; the first folder is the model's):
///
/// 1. an absolute path that exists;
/// 2. a name with folders in it (`/` or `\`), under the model's folder or any folder above it
///    (where a game's data folder would be), as the Quake II engine looks skins up. Its first
///    folder is matched ignoring case where the model's own path runs through it
///    (`baseq2/Players/hunter/tris.md2` for `players/hunter/skin.pcx`); elsewhere above the
///    model it must be spelled as written, so that no folder up to the root is listed. When
///    its last folder is named like the model's own (`players/hunter/skin.pcx` beside
///    `hunter/tris.md2`), the file in the model's folder is taken first, as the game's layout
///    would find it, without trying the folders above;
/// 3. the base name in each search folder in order: as written when its extension is an
///    image's (TPW's `.tga` or a bare name tries the `.wct` of that name first), then its stem
///    with each of [`IMAGE_EXTENSIONS`] (an unknown extension is also kept in the stem:
///    `sea.xyz.png`).
///
/// Every comparison ignores case.
pub fn resolve_texture(name: &str, search: &[PathBuf]) -> Option<Asset> {
    Assets::new().resolve_texture(name, search)
}

/// Lower-cased file names to look for, best first: see step 3 of [`resolve_texture`].
pub fn image_candidates(name: &str) -> Vec<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("").trim().to_lowercase();
    if base.is_empty() {
        return Vec::new();
    }
    let (stem, extension) = match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), Some(ext.to_string())),
        _ => (base.clone(), None),
    };
    let mut out: Vec<String> = Vec::with_capacity(2 * IMAGE_EXTENSIONS.len() + 2);
    // At most 18 names: a linear check keeps the first of each without hashing them.
    let mut add = |name: String| {
        if !out.contains(&name) {
            out.push(name);
        }
    };
    // `format!` took a third of a skin lookup.
    let dotted = |name: &str, ext: &str| {
        let mut joined = String::with_capacity(name.len() + 1 + ext.len());
        joined.push_str(name);
        joined.push('.');
        joined.push_str(ext);
        joined
    };
    // TPW writes `.tga` (or nothing) where the install has a `.wct` of that name.
    if extension.as_deref().is_none_or(|e| e == "tga") {
        add(dotted(&stem, "wct"));
    }
    let known = extension.as_deref().is_some_and(|e| IMAGE_EXTENSIONS.contains(&e));
    if known {
        add(base.clone());
    }
    for ext in IMAGE_EXTENSIONS {
        add(dotted(&stem, ext));
    }
    if extension.is_some() && !known {
        for ext in IMAGE_EXTENSIONS {
            add(dotted(&base, ext));
        }
    }
    out
}

/// Gives every textured material of `scene` an image in [`Scene::images`] (one per distinct
/// name, compared case-insensitively), resolved with [`Assets::resolve_texture`] against the
/// model's folders and then `extra`. Images that already resolved are kept; the rest are
/// looked for again, so a caller can add folders (`render --texture-dir`).
pub fn attach_images(scene: &mut Scene, assets: &mut Assets, extra: &[PathBuf]) {
    let mut search = texture_dirs(scene.path.as_deref(), extra);
    if scene.format == crate::scene::FormatKind::TpwMd2 {
        extracted_archive_dirs(scene.path.as_deref(), &mut search);
    }
    scene.image_search = search.iter().map(|d| d.display().to_string()).collect();
    // Most models name a few images: a scan comparing names without case then beats
    // lower-casing every name into a hash key, an allocation each.
    let mut by_name: Option<HashMap<String, usize>> = (scene.images.len() + scene.materials.len() > IMAGE_SCAN_LIMIT)
        .then(|| scene.images.iter().enumerate().map(|(i, image)| (image.name.to_lowercase(), i)).collect());
    for image in scene.images.iter_mut().filter(|image| image.source.is_none()) {
        if let Some(found) = assets.resolve_texture(&image.name, &search) {
            *image = SceneImage::new(image.name.clone(), Some(Arc::new(found)));
        }
    }
    // Each material's texture, then its second layer's (M2 units with two textures).
    let slots = scene.materials.iter_mut().flat_map(|material| {
        let layer = material.layer2.as_mut().map(|layer| (layer.texture.as_deref(), &mut layer.image));
        [Some((material.texture.as_deref(), &mut material.image)), layer].into_iter().flatten()
    });
    for (name, image) in slots {
        let Some(name) = name else { continue };
        if image.is_some() {
            continue;
        }
        let images = &mut scene.images;
        let mut add = |images: &mut Vec<SceneImage>| {
            let source = assets.resolve_texture(name, &search).map(|a| Arc::new(a) as Arc<dyn ImageSource>);
            images.push(SceneImage::new(name, source));
            images.len() - 1
        };
        let index = match &mut by_name {
            Some(by_name) => *by_name.entry(name.to_lowercase()).or_insert_with(|| add(images)),
            // The last image of that name, as the map keeps the last one inserted.
            None => match images.iter().rposition(|image| same_without_case(&image.name, name)) {
                Some(index) => index,
                None => add(images),
            },
        };
        *image = Some(index);
    }
}

/// Up to this many images and materials, [`attach_images`] finds images by a scan.
pub(super) const IMAGE_SCAN_LIMIT: usize = 32;
