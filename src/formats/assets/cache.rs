//! The per-open cache of folder listings ([`Assets`]): finding where a folder asked for by
//! path lives, and reading a file by name or by a written relative path, case-insensitively;
//! [`SharedListings`] shares listings across the opens of one batch.

// foldhash, not SipHash: hashing names and paths was a quarter of resolving a model's skins.
// It is seeded at random per process, so crafted names have a harder time aiming at one
// bucket, though it claims only minimal resistance to that (listings are local and small).
use foldhash::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::folders::{Asset, Folder, FolderSource, kept_listing_probed};

/// The listings made so far: each folder is read once per cache. One cache lives for one open
/// (a later open sees files added meanwhile: an unchanged directory answers from its kept
/// listing, a changed one is listed again), or joins [`SharedListings`] for a batch.
#[derive(Debug, Default)]
pub struct Assets {
    pub(super) folders: HashMap<FolderSource, Arc<Folder>>,
    /// Where each folder asked for by path lives: a model's folder is asked for by its skins,
    /// its images and its weapon, and each answer costs a `stat` (or more, for an archive).
    /// Keyed by the exact spelling (`x.wad` and `x.wad/` are equal paths but not the same
    /// folder to `FolderSource::at`).
    pub(super) sources: HashMap<std::ffi::OsString, FolderSource>,
    /// Whether a path spelled exactly so exists (`base/players`; see `may_hold`).
    pub(super) exists: HashMap<std::ffi::OsString, bool>,
    pub(super) shared: Option<SharedListings>,
    /// Texture names already resolved in this open, by search folders, then name: a model's
    /// skins are looked up for its choices and again for its images, and each lookup may walk
    /// every folder above the model. An open uses one or two search lists, so they are
    /// compared, not hashed (hashing a path goes component by component).
    pub(super) resolved: Vec<(Vec<PathBuf>, ResolvedNames)>,
}

/// What [`Assets::locate`] learnt about a folder on the way.
enum Probe {
    /// A directory on disk, with the metadata just read.
    Directory(std::fs::Metadata),
    /// Not in its parent's listing: nothing to list.
    Absent,
    /// Nothing yet: the listing finds out.
    Unknown,
}

/// What each texture name resolved to, against one search list.
pub(super) type ResolvedNames = HashMap<String, Option<Asset>>;

/// Folder listings shared by the opens of one batch (`export DIR`), across threads: a folder
/// that every model's search passes through (the folders above a player model, where a skin's
/// written path is tried) is read once per batch instead of once per model.
#[derive(Debug, Default, Clone)]
pub struct SharedListings(Arc<std::sync::Mutex<HashMap<FolderSource, ListingSlot>>>);

/// One folder's place in [`SharedListings`]: filled once, by the first open that needs it.
type ListingSlot = Arc<OnceLock<Arc<Folder>>>;

impl Assets {
    pub fn new() -> Self {
        Self::default()
    }

    /// A cache that also reads and fills `shared`.
    pub fn with_shared(shared: &SharedListings) -> Self {
        Self { shared: Some(shared.clone()), ..Self::default() }
    }

    /// The listing of folder `dir`: a directory, a `.wad` archive or a directory inside one.
    pub fn folder(&mut self, dir: &Path) -> Arc<Folder> {
        if let Some(source) = self.sources.get(dir.as_os_str()) {
            return self.folder_of(source.clone());
        }
        let (source, probe) = self.locate(dir);
        self.sources.insert(dir.as_os_str().to_owned(), source.clone());
        match probe {
            Probe::Absent => {
                let empty = Arc::new(Folder::read_entries(source.clone(), Vec::new()));
                self.folders.entry(source).or_insert(empty).clone()
            }
            Probe::Directory(meta) => self.folder_probed(source, Some(meta)),
            Probe::Unknown => self.folder_of(source),
        }
    }

    /// Where the folder at `dir` lives, with what finding out learnt about it. A sub-folder of
    /// a folder listed in this cache answers from that listing, with no system call (and its
    /// name matched case-insensitively: a model's `Textures/` is its `textures/`); otherwise
    /// one `stat`, whose metadata the listing then reuses.
    fn locate(&mut self, dir: &Path) -> (FolderSource, Probe) {
        let listed_parent = dir
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .and_then(|parent| self.sources.get(parent.as_os_str()))
            .filter(|source| matches!(source, FolderSource::Directory(_)))
            .and_then(|source| self.folders.get(source));
        if let (Some(parent), Some(name)) = (listed_parent, dir.file_name())
            && !crate::formats::wad::path::has_wad_extension(dir)
        {
            return match parent.sub_folder(&name.to_string_lossy()) {
                Some(source) => (source, Probe::Unknown),
                None => (FolderSource::Directory(dir.to_path_buf()), Probe::Absent),
            };
        }
        // A path through an archive (`x.wad/textures`) is the archive's to answer.
        if !crate::formats::wad::path::names_an_archive(dir) {
            return match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => (FolderSource::Directory(dir.to_path_buf()), Probe::Directory(meta)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    (FolderSource::Directory(dir.to_path_buf()), Probe::Absent)
                }
                _ => (FolderSource::at(dir), Probe::Unknown),
            };
        }
        (FolderSource::at(dir), Probe::Unknown)
    }

    pub(super) fn folder_of(&mut self, source: FolderSource) -> Arc<Folder> {
        self.folder_probed(source, None)
    }

    pub(super) fn folder_probed(&mut self, source: FolderSource, probed: Option<std::fs::Metadata>) -> Arc<Folder> {
        if let Some(folder) = self.folders.get(&source) {
            return folder.clone();
        }
        let folder = match &self.shared {
            // A poisoned lock only means another open panicked; its listings are still whole.
            // The map is locked only to find the folder's slot; the listing is read outside it,
            // so one thread listing a large folder does not stall the others' lookups.
            Some(shared) => {
                let slot = {
                    let mut listings = shared.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    listings.entry(source.clone()).or_default().clone()
                };
                slot.get_or_init(|| kept_listing_probed(&source, std::time::SystemTime::now(), probed)).clone()
            }
            None => kept_listing_probed(&source, std::time::SystemTime::now(), probed),
        };
        self.folders.insert(source, folder.clone());
        folder
    }

    /// The file `name` in directory `dir`, case-insensitively.
    pub fn file(&mut self, dir: &Path, name: &str) -> Option<Asset> {
        self.folder(dir).file(name)
    }

    /// The file at `relative` (components split at `/` and `\`) under `base`, each component
    /// matched case-insensitively.
    pub fn file_at(&mut self, base: &Path, relative: &str) -> Option<Asset> {
        let parts: Vec<&str> = relative.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".").collect();
        let (last, dirs) = parts.split_last()?;
        let mut source = FolderSource::Directory(base.to_path_buf());
        for part in dirs {
            source = match &source {
                FolderSource::Directory(dir) if *part == ".." => FolderSource::Directory(dir.parent()?.to_path_buf()),
                // A folder already listed answers without a system call.
                _ if self.folders.contains_key(&source) => self.folder_of(source.clone()).sub_folder(part)?,
                // Spelled as on disk: one stat instead of listing a folder that may be large
                // (every folder above the model is tried).
                FolderSource::Directory(dir) if dir.join(part).is_dir() => FolderSource::Directory(dir.join(part)),
                _ => self.folder_of(source).sub_folder(part)?,
            };
        }
        match &source {
            _ if self.folders.contains_key(&source) => self.folder_of(source).file(last),
            FolderSource::Directory(dir) if dir.join(last).is_file() => {
                Some(Asset { folder: source.clone(), name: (*last).to_string() })
            }
            _ => self.folder_of(source).file(last),
        }
    }
}
