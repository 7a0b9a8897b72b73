//! Folder listings: where a folder's members come from ([`FolderSource`]: a directory on
//! disk or one inside a `.wad`), one member ([`Asset`]), a folder's case-insensitive listing
//! ([`Folder`]), and the listings kept between opens while a directory is unchanged.

// foldhash, not SipHash: hashing names and paths was a quarter of resolving a model's skins.
// It is seeded at random per process, so crafted names have a harder time aiming at one
// bucket, though it claims only minimal resistance to that (listings are local and small).
use foldhash::{HashMap, HashMapExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{is_image_name, lower_case};

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
                let Ok(wad) = crate::formats::vfs::archive(archive) else { return Listing::unkeepable(Vec::new()) };
                let (dirs, files) = wad.index.list_dir(dir);
                let files = files.into_iter().map(|e| (e.name().to_string(), false));
                Listing::unkeepable(dirs.into_iter().map(|d| (d, true)).chain(files).collect())
            }
        }
    }

    pub(super) fn read(&self, member: &str) -> std::io::Result<Vec<u8>> {
        match self {
            FolderSource::Directory(dir) => std::fs::read(dir.join(member)),
            FolderSource::Archive { archive, dir } => {
                crate::formats::vfs::read_member(&crate::formats::wad::path::MemberPath {
                    archive: archive.clone(),
                    member: join(dir, member),
                })
            }
        }
    }

    /// The member's path: on disk, or through its archive (which [`crate::formats::vfs::read`] and
    /// [`crate::formats::open`] accept).
    pub(super) fn member_path(&self, member: &str) -> Option<PathBuf> {
        match self {
            FolderSource::Directory(dir) => Some(dir.join(member)),
            FolderSource::Archive { archive, dir } => {
                Some(crate::formats::vfs::join_member(archive, &join(dir, member)))
            }
        }
    }

    pub(super) fn sub_folder(&self, member: &str) -> FolderSource {
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
        if crate::formats::vfs::is_archive(path) {
            return FolderSource::Archive { archive: path.to_path_buf(), dir: String::new() };
        }
        if !path.is_dir()
            && let Some(member) = crate::formats::wad::path::split_member_path(path)
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
    pub(super) fn unkeepable(entries: Vec<(String, bool)>) -> Listing {
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
    pub(super) fn read(source: FolderSource) -> Folder {
        let entries = source.listing().entries;
        Folder::read_entries(source, entries)
    }

    pub(super) fn read_entries(source: FolderSource, entries: Vec<(String, bool)>) -> Folder {
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
    pub(super) fn sub_folder(&self, name: &str) -> Option<FolderSource> {
        match self.by_lower.get(lower_case(name).as_ref()) {
            Some((real, true)) => Some(self.source.sub_folder(real)),
            _ => None,
        }
    }

    /// Every file, sorted by name case-insensitively.
    pub fn files(&self) -> impl Iterator<Item = Asset> + '_ {
        self.files.iter().map(|name| Asset { folder: self.source.clone(), name: name.clone() })
    }

    /// The image files ([`IMAGE_EXTENSIONS`](super::IMAGE_EXTENSIONS)), sorted by name case-insensitively.
    pub fn images(&self) -> impl Iterator<Item = Asset> + '_ {
        self.files().filter(|a| is_image_name(&a.name))
    }
}

/// How long a directory must have been left unchanged before its listing is kept: a change
/// made within the file system's timestamp granularity of the listing (a coarse clock tick,
/// two seconds on FAT) could leave the directory's times as they were.
pub(super) const SETTLED: std::time::Duration = std::time::Duration::from_secs(3);

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
pub(super) struct DirectoryStamp {
    pub(super) modified: Option<std::time::SystemTime>,
    pub(super) changed: (i64, i64),
    pub(super) identity: (u64, u64),
}

impl DirectoryStamp {
    pub(super) fn of(meta: &std::fs::Metadata) -> DirectoryStamp {
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
    pub(super) fn settled_by(&self, now: std::time::SystemTime) -> bool {
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
/// [`crate::formats::vfs`] keeps open.
#[cfg(test)]
pub(super) fn kept_listing(source: &FolderSource, now: std::time::SystemTime) -> Arc<Folder> {
    kept_listing_probed(source, now, None)
}

/// As [`kept_listing`], with the directory's metadata where the caller has just read it
/// (one `stat` fewer).
pub(super) fn kept_listing_probed(
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
