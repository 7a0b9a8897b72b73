//! Companion files of a model, found and read in one place: textures, skins, sibling models,
//! `.skin` and `.anim` files. Every format, `info`, `render`, the viewer and the exporters go
//! through it, so they all give the same answer to "where is this file".
//!
//! - **Folders.** A [`Folder`] is listed once per [`Assets`] cache, case-insensitively (a
//!   model written on Windows names `Skin.PCX` as `skin.pcx`). A directory on disk that has
//!   not changed keeps its listing between opens (`kept_listing`): stepping through a
//!   folder of models lists it once, not once per model. Reading a member goes through
//!   the folder's [`FolderSource`] too.
//! - **The seam for archives.** [`FolderSource`] is where a folder's listing and bytes come
//!   from: a directory on disk, or a directory inside a `.wad` archive (read through
//!   [`super::vfs`]). [`Asset`] names a member of either, and its `location` (a path through
//!   the archive, `data/jungle.wad/textures/sea.wct`) is what users see.
//! - **Images.** [`IMAGE_EXTENSIONS`] is the one list of image extensions; [`resolve_texture`]
//!   (via [`Assets::resolve_texture`]) is the one resolver; [`decode_image`] is the one decoder
//!   entry point (PNG, TGA, BMP and JPEG through `image`, PCX and BLP through our checked
//!   decoders) to a [`scene::Image`](crate::scene::Image).
//! - **Scenes.** [`attach_images`] gives every textured material an image in
//!   [`Scene::images`](crate::scene::Scene::images), resolved now and decoded lazily.
//!
//! Files: `folders` (listings, where they come from, the kept listings), `cache` (the
//! per-open [`Assets`] cache and [`SharedListings`]), `textures` (search folders, the
//! resolver, attaching images to a scene) and `images` (the one image decoder).

mod cache;
mod folders;
mod images;
#[cfg(test)]
mod tests;
mod textures;

pub use cache::{Assets, SharedListings};
pub use folders::{Asset, Folder, FolderSource};
pub use images::{decode_image, image_file};
pub use textures::{
    archive_texture_dirs, attach_images, image_candidates, model_folder, resolve_texture, texture_dirs,
};

use std::path::Path;

/// Extensions tried for a texture name, in order of preference.
pub const IMAGE_EXTENSIONS: [&str; 8] = ["png", "tga", "bmp", "pcx", "jpg", "jpeg", "blp", "wct"];

/// Extensions of the model files mdview opens (folder stepping and `scan`).
pub const MODEL_EXTENSIONS: [&str; 5] = ["md2", "mdr", "m2", "md3", "mdl"];

/// Whether `path` has one of [`MODEL_EXTENSIONS`].
pub fn is_model_file(path: &Path) -> bool {
    has_extension(path, &MODEL_EXTENSIONS)
}

/// Whether `name`'s extension is one of [`IMAGE_EXTENSIONS`].
pub fn is_image_name(name: &str) -> bool {
    has_extension(Path::new(name), &IMAGE_EXTENSIONS)
}

pub(super) fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension().is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// `name` in lower case, the one key of every case-insensitive comparison here ([`Folder`]'s
/// listing and its lookups); borrowed when it already is, as the names the resolver makes
/// itself ([`image_candidates`]) are.
pub(super) fn lower_case(name: &str) -> std::borrow::Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        std::borrow::Cow::Owned(name.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// Whether two names are equal once lower-cased (`str::to_lowercase`), allocating only for
/// names outside ASCII.
pub(super) fn same_without_case(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() { a.eq_ignore_ascii_case(b) } else { a.to_lowercase() == b.to_lowercase() }
}

/// Our one-line wording for an I/O error reading a companion file or listing a folder: its
/// kind and the OS's error number where there is one; an error of our own making (a damaged
/// archive member, read through [`super::vfs`]) keeps its words, on one line.
pub fn io_wording(error: &std::io::Error) -> String {
    match (error.raw_os_error(), error.get_ref()) {
        (None, Some(ours)) => crate::archive::one_line(&ours.to_string()),
        _ => crate::archive::io_reason(error),
    }
}
