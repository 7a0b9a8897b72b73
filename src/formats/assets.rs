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

// foldhash, not SipHash: hashing names and paths was a quarter of resolving a model's skins.
// It is seeded at random per process, so crafted names have a harder time aiming at one
// bucket, though it claims only minimal resistance to that (listings are local and small).
use foldhash::{HashMap, HashMapExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::scene::{Image, ImageSource, Scene, SceneImage};

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

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension().is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Where a folder's members are listed and read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FolderSource {
    /// A directory on disk.
    Directory(PathBuf),
    /// A directory inside a `.wad` archive (`dir` is `/`-separated, `""` for its root).
    Archive { archive: PathBuf, dir: String },
}

impl FolderSource {
    /// The members: (name, is a sub-folder), and whether the listing may be kept between opens.
    /// A folder that cannot be read lists nothing.
    fn listing(&self) -> Listing {
        match self {
            FolderSource::Directory(dir) => {
                let Ok(entries) = std::fs::read_dir(dir) else { return Listing::unkeepable(Vec::new()) };
                let mut keepable = true;
                let mut listed = Vec::new();
                for entry in entries {
                    // An entry that failed to read leaves the listing incomplete: used, not kept.
                    let Ok(entry) = entry else {
                        keepable = false;
                        continue;
                    };
                    let Ok(kind) = entry.file_type() else {
                        keepable = false;
                        continue;
                    };
                    // A link is followed (one stat), everything else answers from the listing. What
                    // a link leads to can change with no change to this folder: not kept.
                    let is_dir = if kind.is_symlink() {
                        keepable = false;
                        entry.path().is_dir()
                    } else {
                        kind.is_dir()
                    };
                    listed.push((entry.file_name().to_string_lossy().into_owned(), is_dir));
                }
                Listing { entries: listed, keepable }
            }
            FolderSource::Archive { archive, dir } => {
                let Ok(wad) = super::vfs::archive(archive) else { return Listing::unkeepable(Vec::new()) };
                let (dirs, files) = wad.index.list_dir(dir);
                let files = files.into_iter().map(|e| (e.name().to_string(), false));
                Listing::unkeepable(dirs.into_iter().map(|d| (d, true)).chain(files).collect())
            }
        }
    }

    fn read(&self, member: &str) -> std::io::Result<Vec<u8>> {
        match self {
            FolderSource::Directory(dir) => std::fs::read(dir.join(member)),
            FolderSource::Archive { archive, dir } => super::vfs::read_member(&super::wad::path::MemberPath {
                archive: archive.clone(),
                member: join(dir, member),
            }),
        }
    }

    /// The member's path: on disk, or through its archive (which [`super::vfs::read`] and
    /// [`crate::formats::open`] accept).
    fn member_path(&self, member: &str) -> Option<PathBuf> {
        match self {
            FolderSource::Directory(dir) => Some(dir.join(member)),
            FolderSource::Archive { archive, dir } => Some(super::vfs::join_member(archive, &join(dir, member))),
        }
    }

    fn sub_folder(&self, member: &str) -> FolderSource {
        match self {
            FolderSource::Directory(dir) => FolderSource::Directory(dir.join(member)),
            FolderSource::Archive { archive, dir } => {
                FolderSource::Archive { archive: archive.clone(), dir: join(dir, member) }
            }
        }
    }

    /// Where the folder at `path` lives: a `.wad` archive or a directory inside one (a path
    /// through it), else a directory on disk.
    pub fn at(path: &Path) -> FolderSource {
        if super::vfs::is_archive(path) {
            return FolderSource::Archive { archive: path.to_path_buf(), dir: String::new() };
        }
        if !path.is_dir()
            && let Some(member) = super::wad::path::split_member_path(path)
        {
            return FolderSource::Archive { archive: member.archive, dir: member.member };
        }
        FolderSource::Directory(path.to_path_buf())
    }
}

/// A folder's members as listed, and whether the listing is whole and stands for the folder
/// while the folder's own [`DirectoryStamp`] is unchanged.
struct Listing {
    entries: Vec<(String, bool)>,
    keepable: bool,
}

impl Listing {
    fn unkeepable(entries: Vec<(String, bool)>) -> Listing {
        Listing { entries, keepable: false }
    }
}

/// `dir/name` inside an archive.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// One member of a folder: a file to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Asset {
    pub folder: FolderSource,
    /// The member's name as the folder spells it.
    pub name: String,
}

impl Asset {
    /// The file on disk, where the member is one.
    pub fn path(&self) -> Option<PathBuf> {
        self.folder.member_path(&self.name)
    }

    /// Where it is, as users should see it.
    pub fn location(&self) -> String {
        match self.path() {
            Some(path) => path.display().to_string(),
            None => self.name.clone(),
        }
    }

    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        self.folder.read(&self.name)
    }

    /// As [`Asset::read`], into a buffer that decoders may keep views of (Quake II frames): a
    /// file on disk is read straight into it, without a second copy.
    pub fn read_shared(&self) -> std::io::Result<crate::scene::SharedBytes> {
        self.read().map(Arc::new)
    }

    /// The name without its extension.
    pub fn stem(&self) -> &str {
        self.name.rsplit_once('.').map_or(self.name.as_str(), |(stem, _)| stem)
    }
}

impl ImageSource for Asset {
    fn location(&self) -> String {
        Asset::location(self)
    }

    fn load(&self) -> Result<Image, String> {
        let bytes = self.read().map_err(|e| format!("reading {}: {e}", self.location()))?;
        decode_image(&bytes, &self.name, self.location())
    }
}

/// `name` in lower case, the one key of every case-insensitive comparison here ([`Folder`]'s
/// listing and its lookups); borrowed when it already is, as the names the resolver makes
/// itself ([`image_candidates`]) are.
fn lower_case(name: &str) -> std::borrow::Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        std::borrow::Cow::Owned(name.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// One folder's listing, made once.
#[derive(Debug)]
pub struct Folder {
    pub source: FolderSource,
    /// Lower-cased name to (real name, is a sub-folder). Of two names that differ only in
    /// case, the one that sorts first wins (listing order is not stable).
    by_lower: HashMap<String, (String, bool)>,
    /// The files' real names, sorted case-insensitively.
    files: Vec<String>,
}

impl Folder {
    fn read(source: FolderSource) -> Folder {
        let entries = source.listing().entries;
        Folder::read_entries(source, entries)
    }

    fn read_entries(source: FolderSource, entries: Vec<(String, bool)>) -> Folder {
        let mut by_lower: HashMap<String, (String, bool)> = HashMap::new();
        for (name, is_dir) in entries {
            let lower = lower_case(&name).into_owned();
            match by_lower.get(&lower) {
                Some((kept, _)) if *kept <= name => {}
                _ => {
                    by_lower.insert(lower, (name, is_dir));
                }
            }
        }
        // Sorted by the lower-cased keys already made (unique, so no tie-break): a key built
        // per comparison allocated twice each time, and made a large folder cost milliseconds.
        let mut by_name: Vec<(&String, &String)> =
            by_lower.iter().filter(|(_, (_, is_dir))| !is_dir).map(|(lower, (name, _))| (lower, name)).collect();
        by_name.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let files: Vec<String> = by_name.into_iter().map(|(_, name)| name.clone()).collect();
        Folder { source, by_lower, files }
    }

    /// The file called `name`, compared case-insensitively.
    pub fn file(&self, name: &str) -> Option<Asset> {
        match self.by_lower.get(lower_case(name).as_ref()) {
            Some((real, false)) => Some(Asset { folder: self.source.clone(), name: real.clone() }),
            _ => None,
        }
    }

    /// The sub-folder called `name`, compared case-insensitively.
    fn sub_folder(&self, name: &str) -> Option<FolderSource> {
        match self.by_lower.get(lower_case(name).as_ref()) {
            Some((real, true)) => Some(self.source.sub_folder(real)),
            _ => None,
        }
    }

    /// Every file, sorted by name case-insensitively.
    pub fn files(&self) -> impl Iterator<Item = Asset> + '_ {
        self.files.iter().map(|name| Asset { folder: self.source.clone(), name: name.clone() })
    }

    /// The image files ([`IMAGE_EXTENSIONS`]), sorted by name case-insensitively.
    pub fn images(&self) -> impl Iterator<Item = Asset> + '_ {
        self.files().filter(|a| is_image_name(&a.name))
    }
}

/// How long a directory must have been left unchanged before its listing is kept: a change
/// made within the file system's timestamp granularity of the listing (a coarse clock tick,
/// two seconds on FAT) could leave the directory's times as they were.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(3);

/// How long a kept listing answers before the directory is listed again, whatever its stamp
/// says: a network file system may answer a `stat` from its attribute cache (NFS keeps a
/// directory's for up to a minute) where opening the directory would have asked the server,
/// and a server's clock may run behind this machine's.
const KEEP_FOR: std::time::Duration = std::time::Duration::from_secs(10);

/// How many directory listings stay kept (the folders of the last few models and the
/// folders above them that their skins' paths were tried in).
const KEPT_LISTINGS: usize = 64;

/// What identifies one state of a directory: its modification and change times (a change
/// time cannot be set back by hand, unlike a modification time), and on Unix its device and
/// inode, so a folder replaced by another of the same name is listed afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirectoryStamp {
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
    identity: (u64, u64),
}

impl DirectoryStamp {
    fn of(meta: &std::fs::Metadata) -> DirectoryStamp {
        #[cfg(unix)]
        let (changed, identity) = {
            use std::os::unix::fs::MetadataExt;
            ((meta.ctime(), meta.ctime_nsec()), (meta.dev(), meta.ino()))
        };
        #[cfg(not(unix))]
        let (changed, identity) = ((0, 0), (0, 0));
        DirectoryStamp { modified: meta.modified().ok(), changed, identity }
    }

    /// Whether the directory had been left alone for [`SETTLED`] by `now`: its modification
    /// time, and its change time where there is one, are both that old. Without a modification
    /// time, or with one in the future, it is never settled.
    fn settled_by(&self, now: std::time::SystemTime) -> bool {
        let (secs, nanos) = self.changed;
        let changed = u64::try_from(secs)
            .ok()
            .zip(u32::try_from(nanos).ok().filter(|&n| n < 1_000_000_000))
            .and_then(|(secs, nanos)| std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos)));
        let latest = match (self.modified, changed) {
            (Some(m), Some(c)) => m.max(c),
            (Some(m), None) => m,
            (None, _) => return false,
        };
        now.duration_since(latest).is_ok_and(|age| age >= SETTLED)
    }
}

struct KeptListing {
    stamp: DirectoryStamp,
    folder: Arc<Folder>,
    listed_at: std::time::Instant,
    used: u64,
}

/// Directory listings kept between opens, by path, with a use clock for eviction.
static KEPT: std::sync::Mutex<Option<(u64, HashMap<PathBuf, KeptListing>)>> = std::sync::Mutex::new(None);

/// The listing of `source`. A directory on disk answers from the listing kept for it while
/// its [`DirectoryStamp`] is unchanged, for up to [`KEEP_FOR`] (one `stat` instead of opening
/// and reading it). A listing is kept only when it is whole, has no links (what a link leads
/// to can change while the folder does not), and the directory was [`SETTLED`] by `now`; only
/// on Unix, where the stamp has a change time and an inode. A directory that is not there
/// lists nothing without trying to read it. Archive folders list from the archive, which
/// [`super::vfs`] keeps open.
#[cfg(test)]
fn kept_listing(source: &FolderSource, now: std::time::SystemTime) -> Arc<Folder> {
    kept_listing_probed(source, now, None)
}

/// As [`kept_listing`], with the directory's metadata where the caller has just read it
/// (one `stat` fewer).
fn kept_listing_probed(
    source: &FolderSource,
    now: std::time::SystemTime,
    probed: Option<std::fs::Metadata>,
) -> Arc<Folder> {
    let FolderSource::Directory(dir) = source else { return Arc::new(Folder::read(source.clone())) };
    let Some(meta) = probed.or_else(|| std::fs::metadata(dir).ok()) else {
        return Arc::new(Folder::read_entries(source.clone(), Vec::new()));
    };
    let stamp = DirectoryStamp::of(&meta);
    let lock = || KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    {
        let mut kept = lock();
        let (clock, map) = kept.get_or_insert_with(|| (0, HashMap::new()));
        *clock += 1;
        if let Some(listing) = map.get_mut(dir).filter(|l| l.stamp == stamp && l.listed_at.elapsed() < KEEP_FOR) {
            listing.used = *clock;
            return listing.folder.clone();
        }
    }
    // Listed outside the lock: another thread's lookups do not wait on a large folder.
    let listed_at = std::time::Instant::now();
    let listing = source.listing();
    let folder = Arc::new(Folder::read_entries(source.clone(), listing.entries));
    let mut kept = lock();
    let (clock, map) = kept.get_or_insert_with(|| (0, HashMap::new()));
    if cfg!(unix) && listing.keepable && stamp.settled_by(now) {
        if map.len() >= KEPT_LISTINGS
            && !map.contains_key(dir)
            && let Some(oldest) = map.iter().min_by_key(|(_, l)| l.used).map(|(p, _)| p.clone())
        {
            map.remove(&oldest);
        }
        map.insert(dir.clone(), KeptListing { stamp, folder: folder.clone(), listed_at, used: *clock });
    } else {
        map.remove(dir);
    }
    folder
}

/// The listings made so far: each folder is read once per cache. One cache lives for one open
/// (a later open sees files added meanwhile: an unchanged directory answers from its kept
/// listing, a changed one is listed again), or joins [`SharedListings`] for a batch.
#[derive(Debug, Default)]
pub struct Assets {
    folders: HashMap<FolderSource, Arc<Folder>>,
    /// Where each folder asked for by path lives: a model's folder is asked for by its skins,
    /// its images and its weapon, and each answer costs a `stat` (or more, for an archive).
    /// Keyed by the exact spelling (`x.wad` and `x.wad/` are equal paths but not the same
    /// folder to `FolderSource::at`).
    sources: HashMap<std::ffi::OsString, FolderSource>,
    /// Whether a path spelled exactly so exists (`base/players`; see `may_hold`).
    exists: HashMap<std::ffi::OsString, bool>,
    shared: Option<SharedListings>,
    /// Texture names already resolved in this open, by search folders, then name: a model's
    /// skins are looked up for its choices and again for its images, and each lookup may walk
    /// every folder above the model. An open uses one or two search lists, so they are
    /// compared, not hashed (hashing a path goes component by component).
    resolved: Vec<(Vec<PathBuf>, ResolvedNames)>,
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
type ResolvedNames = HashMap<String, Option<Asset>>;

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
            && !super::wad::path::has_wad_extension(dir)
        {
            return match parent.sub_folder(&name.to_string_lossy()) {
                Some(source) => (source, Probe::Unknown),
                None => (FolderSource::Directory(dir.to_path_buf()), Probe::Absent),
            };
        }
        // A path through an archive (`x.wad/textures`) is the archive's to answer.
        if !super::wad::path::names_an_archive(dir) {
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

    fn folder_of(&mut self, source: FolderSource) -> Arc<Folder> {
        self.folder_probed(source, None)
    }

    fn folder_probed(&mut self, source: FolderSource, probed: Option<std::fs::Metadata>) -> Arc<Folder> {
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
fn extracted_archive_dirs(model: Option<&Path>, search: &mut Vec<PathBuf>) {
    let Some(model) = model.filter(|m| super::wad::path::split_member_path(m).is_none()) else { return };
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
    let member = model.and_then(super::wad::path::split_member_path);
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
pub fn archive_texture_dirs(member: &super::wad::path::MemberPath) -> Vec<PathBuf> {
    let in_archive = |archive: &Path| {
        let join = |dir: &str| super::vfs::join_member(archive, dir);
        let mut dirs = vec![join("textures"), join("stexture"), archive.to_path_buf()];
        let mut pending = super::vfs::list_dirs(archive);
        pending.sort();
        while let Some(dir) = pending.pop() {
            pending.extend(super::vfs::list_dirs(&dir));
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs
    };
    let mut dirs = in_archive(&member.archive);
    if let Some((dir, _)) = member.member.rsplit_once('/') {
        dirs.insert(2, super::vfs::join_member(&member.archive, dir));
    }
    let folder = model_folder(&member.archive);
    let mut others: Vec<PathBuf> = super::vfs::list_files(&folder)
        .into_iter()
        .filter(|p| super::wad::path::has_wad_extension(p) && *p != member.archive)
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

/// Decodes any supported image to RGBA8. The content decides the format; `name` (its file
/// name) only hints TGA, which has no magic bytes. PCX and BLP, which the `image` crate
/// lacks, go through the checked decoders in `quake2::pcx` and `m2::blp`.
pub fn decode_image(bytes: &[u8], name: &str, location: String) -> Result<Image, String> {
    let (width, height, rgba) = if bytes.first() == Some(&0x0a) && bytes.get(2) == Some(&1) {
        let image = super::quake2::pcx::decode(bytes).map_err(|e| format!("decoding PCX {location}: {e}"))?;
        (image.width(), image.height(), image.into_raw())
    } else if bytes.starts_with(b"BLP2") {
        let blp = super::m2::blp::decode(bytes).map_err(|e| format!("decoding BLP {location}: {e}"))?;
        (blp.width, blp.height, blp.rgba)
    } else if has_extension(Path::new(name), &["wct"]) && super::wct::looks_like_wct(bytes) {
        // WCT has no magic bytes: the name says to try it, the header's shape confirms.
        let wct = super::wct::decode(bytes).map_err(|e| format!("decoding WCT {location}: {e}"))?;
        (wct.width, wct.height, wct.rgba)
    } else {
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
        if let Ok(format) = image::ImageFormat::from_path(name) {
            reader.set_format(format);
        }
        let image = reader
            .with_guessed_format()
            .map_err(|e| format!("guessing image format: {e}"))?
            .decode()
            .map_err(|e| format!("decoding {location}: {e}"))?
            .to_rgba8();
        (image.width(), image.height(), image.into_raw())
    };
    let expected = u64::from(width) * u64::from(height) * 4;
    if rgba.len() as u64 != expected {
        return Err(format!("{location} decoded to {} bytes, not {width}x{height} RGBA", rgba.len()));
    }
    Ok(Image { width, height, rgba, location })
}

/// The image file at `path` as a scene image source (for scenes built by hand).
pub fn image_file(path: &Path) -> Option<Arc<dyn ImageSource>> {
    let folder = model_folder(path);
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(Arc::new(Asset { folder: FolderSource::Directory(folder), name }))
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
const IMAGE_SCAN_LIMIT: usize = 32;

/// Whether two names are equal once lower-cased (`str::to_lowercase`), allocating only for
/// names outside ASCII.
fn same_without_case(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() { a.eq_ignore_ascii_case(b) } else { a.to_lowercase() == b.to_lowercase() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Materials find their images the same way whether `attach_images` scans or hashes:
    /// names equal without case (ASCII or not) share one image, and a name already among the
    /// images takes the last image of that name.
    #[test]
    fn images_are_shared_by_name_without_case_in_both_lookups() {
        use crate::scene::{FormatKind, Material, SceneImage, SceneKind};
        let names = ["A.pcx", "a.PCX", "b.pcx", "\u{C9}t\u{C9}.pcx", "\u{E9}t\u{E9}.PCX", "c.pcx", "B.Pcx", "old.pcx"];
        let assign = |padding: usize| {
            let mut scene = Scene::new(FormatKind::Quake2Md2, SceneKind::Mesh);
            scene.images = vec![SceneImage::new("OLD.pcx", None), SceneImage::new("old.PCX", None)];
            for (i, name) in names.iter().chain(std::iter::repeat_n(&"pad.pcx", padding)).enumerate() {
                let mut material = Material::new(format!("m{i}"));
                material.texture = Some(name.to_string());
                scene.materials.push(material);
            }
            attach_images(&mut scene, &mut Assets::new(), &[]);
            let images: Vec<String> = scene.images.iter().map(|image| image.name.clone()).collect();
            let picked: Vec<Option<usize>> = scene.materials.iter().take(names.len()).map(|m| m.image).collect();
            (images, picked)
        };
        let (scanned_images, scanned) = assign(0);
        let (hashed_images, hashed) = assign(IMAGE_SCAN_LIMIT);
        assert_eq!(scanned, [Some(2), Some(2), Some(3), Some(4), Some(4), Some(5), Some(3), Some(1)]);
        assert_eq!(scanned, hashed);
        assert_eq!(scanned_images[..6], hashed_images[..6]);
        assert_eq!(scanned_images.len(), 6);
    }

    #[test]
    fn candidates_try_known_extensions_case_insensitively() {
        assert_eq!(
            image_candidates("Palm01"),
            [
                "palm01.wct",
                "palm01.png",
                "palm01.tga",
                "palm01.bmp",
                "palm01.pcx",
                "palm01.jpg",
                "palm01.jpeg",
                "palm01.blp"
            ]
        );
        // A `.tga` name means the `.wct` of that name first.
        assert_eq!(image_candidates("Sea.TGA").first().map(String::as_str), Some("sea.wct"));
        let q2 = image_candidates("models/monsters/tank/Skin.PCX");
        assert_eq!(q2.first().map(String::as_str), Some("skin.pcx"));
        assert!(q2.contains(&"skin.png".to_string()));
        let wct = image_candidates("sea.wct");
        assert_eq!(wct.first().map(String::as_str), Some("sea.wct"));
        assert!(wct.contains(&"sea.png".to_string()));
        let other = image_candidates("sea.xyz");
        assert!(other.contains(&"sea.png".to_string()) && other.contains(&"sea.xyz.png".to_string()));
        assert!(image_candidates("").is_empty());
    }

    fn temp_root(tag: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("mdview-assets-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    fn tiny_png(path: &Path) {
        image::RgbaImage::from_pixel(2, 2, image::Rgba([10, 20, 30, 255])).save(path).unwrap();
    }

    #[test]
    fn resolver_searches_folders_in_order() {
        let root = temp_root("order");
        let textures = root.join("textures");
        let extra = root.join("extra");
        std::fs::create_dir_all(&textures).unwrap();
        std::fs::create_dir_all(&extra).unwrap();
        tiny_png(&textures.join("Grass.TGA.png"));
        std::fs::rename(textures.join("Grass.TGA.png"), textures.join("Grass.TGA")).unwrap();
        tiny_png(&extra.join("grass.png"));
        tiny_png(&extra.join("rock.bmp.png"));
        std::fs::rename(extra.join("rock.bmp.png"), extra.join("rock.bmp")).unwrap();
        let model = root.join("island.md2");
        let search = texture_dirs(Some(&model), std::slice::from_ref(&extra));
        let mut assets = Assets::new();
        assert_eq!(assets.resolve_texture("GRASS", &search).and_then(|a| a.path()), Some(textures.join("Grass.TGA")));
        assert_eq!(assets.resolve_texture("rock", &search).and_then(|a| a.path()), Some(extra.join("rock.bmp")));
        assert_eq!(assets.resolve_texture("missing", &search), None);
        // The content decides: a PNG named .TGA still decodes.
        let found = assets.resolve_texture("grass", &search).unwrap();
        let image = ImageSource::load(&found).unwrap();
        assert_eq!((image.width, image.height), (2, 2));
        assert_eq!(image.rgba.get(..4), Some(&[10, 20, 30, 255][..]));
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn written_paths_resolve_from_folders_above_with_either_slash() {
        let root = temp_root("paths");
        let sub = root.join("Players").join("DrFreak");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("Weapon.PCX"), b"x").unwrap();
        std::fs::write(sub.join("other.png"), b"x").unwrap();
        let search = texture_dirs(Some(&sub.join("tris.md2")), &[]);
        let mut assets = Assets::new();
        let found = |assets: &mut Assets, name: &str| assets.resolve_texture(name, &search).and_then(|a| a.path());
        assert_eq!(found(&mut assets, "players\\drfreak\\weapon.pcx"), Some(sub.join("Weapon.PCX")));
        assert_eq!(found(&mut assets, "players/drfreak/weapon.pcx"), Some(sub.join("Weapon.PCX")));
        // Not under any folder above: the base name beside the model, another extension.
        assert_eq!(found(&mut assets, "players/x/other.pcx"), Some(sub.join("other.png")));
        assert_eq!(found(&mut assets, "missing.pcx"), None);
        std::fs::remove_dir_all(&root).ok();
    }

    /// An extracted TPW model looks in `textures/` and `stexture/` at the archive's root: the
    /// folder above its own, or its own at the root; `.` and `..` are stepped over, not cut.
    #[test]
    fn extracted_models_search_the_archive_roots_texture_folders() {
        let dirs = |model: &str| {
            let mut search = texture_dirs(Some(Path::new(model)), &[]);
            extracted_archive_dirs(Some(Path::new(model)), &mut search);
            search
        };
        let p = PathBuf::from;
        assert_eq!(
            dirs("out/models/gate.MD2"),
            [p("out/models"), p("out/models/textures"), p("out/models/stexture"), p("out/textures"), p("out/stexture")]
        );
        assert_eq!(dirs("models/gate.MD2")[3..], [p("./textures"), p("./stexture")]);
        assert_eq!(dirs("gate.MD2")[3..], [p("./../textures"), p("./../stexture")]);
        assert_eq!(dirs("../gate.MD2")[3..], [p("../../textures"), p("../../stexture")]);
        assert_eq!(dirs("a/../gate.MD2")[3..], [p("a/../../textures"), p("a/../../stexture")]);
    }

    #[test]
    fn a_textures_folder_beside_the_model_is_found_in_any_case() {
        let root = temp_root("textures-case");
        std::fs::create_dir_all(root.join("Textures")).unwrap();
        std::fs::write(root.join("Textures").join("Hull.png"), b"x").unwrap();
        let search = texture_dirs(Some(&root.join("ship.md2")), &[]);
        let mut assets = Assets::new();
        // The model's folder is listed first; `textures` then answers from that listing.
        assert!(assets.resolve_texture("absent.png", &search).is_none());
        let found = assets.resolve_texture("hull.PNG", &search).and_then(|a| a.path());
        assert_eq!(found, Some(root.join("Textures").join("Hull.png")));
        // With no such folder, the search folder lists nothing.
        let bare = temp_root("textures-none");
        std::fs::write(bare.join("a.png"), b"x").unwrap();
        let mut assets = Assets::new();
        let dirs = texture_dirs(Some(&bare.join("m.md2")), &[]);
        assert!(assets.folder(&dirs[0]).file("a.png").is_some());
        assert_eq!(assets.folder(&dirs[1]).files().count(), 0);
        std::fs::remove_dir_all(&root).ok();
        std::fs::remove_dir_all(&bare).ok();
    }

    #[test]
    fn written_paths_off_the_models_path_need_their_spelling_and_list_no_folder_above() {
        let root = temp_root("walk");
        let model_dir = root.join("Models").join("Tank");
        let shared = root.join("players").join("male");
        std::fs::create_dir_all(&model_dir).unwrap();
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("Grunt.PCX"), b"x").unwrap();
        std::fs::write(model_dir.join("skin.pcx"), b"x").unwrap();
        let search = texture_dirs(Some(&model_dir.join("tris.md2")), &[]);
        // Each name resolved by a fresh cache; also says whether a folder above was listed.
        let found = |name: &str| {
            let mut assets = Assets::new();
            let path = assets.resolve_texture(name, &search).and_then(|a| a.path());
            let listed_above = root
                .ancestors()
                .any(|above| assets.folders.contains_key(&FolderSource::Directory(above.to_path_buf())));
            (path, listed_above)
        };
        // `players` is spelled as on disk: found above the model (the file's case ignored)
        // with one `stat` per folder above, none listed.
        assert_eq!(found("players/male/grunt.pcx"), (Some(shared.join("Grunt.PCX")), false));
        // Off the model's path and spelled otherwise: not looked for above, so the base name
        // beside the model answers, or nothing.
        assert_eq!(found("PLAYERS/male/grunt.pcx"), (None, false));
        assert_eq!(found("other/skin.pcx"), (Some(model_dir.join("skin.pcx")), false));
        // The written path's last folder is named like the model's (`Tank`): the file in the
        // model's folder answers, before any folder above is tried or listed.
        assert_eq!(found("models/tank/SKIN.pcx"), (Some(model_dir.join("skin.pcx")), false));
        // Named like it but not there: the folders above are still tried. `models` lies on
        // the model's own path (`Models`): matched ignoring case, which lists the folder that
        // holds it.
        std::fs::write(root.join("Models").join("tank.pcx"), b"x").unwrap();
        assert_eq!(found("models/tank.pcx"), (Some(root.join("Models").join("tank.pcx")), true));
        std::fs::create_dir_all(root.join("players").join("tank")).unwrap();
        std::fs::write(root.join("players").join("tank").join("extra.pcx"), b"x").unwrap();
        assert_eq!(found("players/tank/extra.pcx"), (Some(root.join("players").join("tank").join("extra.pcx")), false));
        // The model's own folder is matched ignoring case, as its images are.
        std::fs::create_dir_all(model_dir.join("Skins")).unwrap();
        std::fs::write(model_dir.join("Skins").join("Red.pcx"), b"x").unwrap();
        assert_eq!(found("skins/red.PCX"), (Some(model_dir.join("Skins").join("Red.pcx")), false));
        // A written `./name` is the file's name spelled as written in a folder above the
        // model, before the base name beside it with another extension.
        std::fs::write(root.join("Models").join("coat.pcx"), b"x").unwrap();
        std::fs::write(model_dir.join("coat.png"), b"x").unwrap();
        assert_eq!(found("./coat.pcx"), (Some(root.join("Models").join("coat.pcx")), false));
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn shared_reads_give_the_bytes_of_files_and_archive_members() {
        use crate::writers::wad::{WadMember, write_wad};
        let root = temp_root("shared-read");
        std::fs::write(root.join("Weapon.MD2"), b"loose bytes").unwrap();
        let wad = root.join("pak.wad");
        std::fs::write(&wad, write_wad(&[WadMember::compressed("models/weapon.md2", b"packed bytes packed")])).unwrap();
        let mut assets = Assets::new();
        let loose = assets.file(&root, "weapon.md2").unwrap();
        assert_eq!(&*loose.read_shared().unwrap(), b"loose bytes");
        let member = assets.file(&wad.join("models"), "WEAPON.md2").unwrap();
        assert_eq!(&*member.read_shared().unwrap(), b"packed bytes packed");
        assert_eq!(*member.read_shared().unwrap(), *member.read().unwrap());
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn a_folder_is_listed_once_per_cache() {
        let root = temp_root("cache");
        std::fs::write(root.join("a.png"), b"x").unwrap();
        let mut assets = Assets::new();
        assert!(assets.file(&root, "A.PNG").is_some());
        std::fs::write(root.join("b.png"), b"x").unwrap();
        assert!(assets.file(&root, "b.png").is_none(), "the cached listing is used");
        assert!(Assets::new().file(&root, "b.png").is_some(), "a new cache lists again");
        let names: Vec<String> = Assets::new().folder(&root).images().map(|a| a.name).collect();
        assert_eq!(names, ["a.png", "b.png"]);
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    #[cfg(unix)]
    fn an_unchanged_directory_keeps_its_listing_between_opens() {
        use std::time::{Duration, SystemTime};
        let root = temp_root("kept");
        std::fs::write(root.join("a.png"), b"x").unwrap();
        let source = FolderSource::Directory(root.clone());
        let now = SystemTime::now();
        // Changed just now: listed every time, never kept.
        assert!(!Arc::ptr_eq(&kept_listing(&source, now), &kept_listing(&source, now)));
        // Its times set an hour back and seen later on: kept, and answered from what was kept.
        std::fs::File::open(&root).unwrap().set_modified(now - Duration::from_secs(3600)).unwrap();
        let later = now + Duration::from_secs(3600);
        let kept = kept_listing(&source, later);
        assert!(Arc::ptr_eq(&kept, &kept_listing(&source, later)));
        assert!(Assets::new().file(&root, "A.png").is_some());
        // A file added moves the directory's times: listed again, with the new file.
        std::fs::write(root.join("b.png"), b"x").unwrap();
        let relisted = kept_listing(&source, later);
        assert!(!Arc::ptr_eq(&kept, &relisted));
        assert!(relisted.file("B.PNG").is_some());
        // A directory that is gone lists nothing.
        std::fs::remove_dir_all(&root).unwrap();
        assert!(kept_listing(&source, later).file("a.png").is_none());
        assert!(Assets::new().file(&root, "a.png").is_none());
    }

    #[test]
    #[cfg(unix)]
    fn a_listing_with_links_is_not_kept() {
        use std::time::{Duration, SystemTime};
        let root = temp_root("kept-links");
        std::fs::write(root.join("a.png"), b"x").unwrap();
        std::os::unix::fs::symlink(root.join("a.png"), root.join("b.png")).unwrap();
        let now = SystemTime::now();
        std::fs::File::open(&root).unwrap().set_modified(now - Duration::from_secs(3600)).unwrap();
        let source = FolderSource::Directory(root.clone());
        let later = now + Duration::from_secs(3600);
        let first = kept_listing(&source, later);
        assert!(first.file("B.png").is_some(), "a link is listed");
        assert!(!Arc::ptr_eq(&first, &kept_listing(&source, later)), "but the listing is not kept");
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn a_directory_is_settled_only_when_both_its_times_are_old_enough() {
        use std::time::{Duration, SystemTime, UNIX_EPOCH};
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let stamp = |modified: Option<SystemTime>, changed_secs: i64| DirectoryStamp {
            modified,
            changed: (changed_secs, 0),
            identity: (1, 2),
        };
        let old = Some(now - SETTLED);
        assert!(stamp(old, 1_000_000 - 3).settled_by(now));
        assert!(!stamp(old, 1_000_000 - 2).settled_by(now), "changed too recently");
        assert!(!stamp(Some(now - Duration::from_secs(1)), 0).settled_by(now), "modified too recently");
        assert!(!stamp(Some(now + Duration::from_secs(60)), 0).settled_by(now), "modified in the future");
        assert!(!stamp(None, 0).settled_by(now), "no modification time");
        // A change time that cannot be read does not block a modification time that can.
        assert!(stamp(old, -5).settled_by(now));
    }

    #[test]
    fn pcx_decodes_runs_and_palette() {
        // 4x2 image: row 0 is a run of four index-1 texels, row 1 is literal 0,1,2,3.
        let mut bytes = vec![0u8; 128];
        let header = [(0, 0x0a), (1, 5), (2, 1), (3, 8), (8, 3), (10, 1), (65, 1), (66, 4)];
        for (at, value) in header {
            if let Some(b) = bytes.get_mut(at) {
                *b = value;
            }
        }
        bytes.extend([0xc4, 1, 0, 1, 2, 3]);
        bytes.push(0x0c);
        let mut palette = vec![0u8; 768];
        palette.splice(3..9, [255, 0, 0, 0, 255, 0]);
        bytes.extend(palette);
        let image = decode_image(&bytes, "x.pcx", "x.pcx".into()).unwrap();
        assert_eq!((image.width, image.height), (4, 2));
        let texel = |x: usize, y: usize| image.rgba.get((y * 4 + x) * 4..(y * 4 + x) * 4 + 4).unwrap().to_vec();
        assert_eq!(texel(3, 0), [255, 0, 0, 255]);
        assert_eq!(texel(2, 1), [0, 255, 0, 255]);
        // Truncations fail cleanly.
        for len in 0..bytes.len() {
            let _ = decode_image(bytes.get(..len).unwrap(), "x.pcx", String::new());
        }
    }
}
