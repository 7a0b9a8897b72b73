//! The one seam through which file-reading code sees archives as folders: a path may be an
//! ordinary file or folder, a `.wad` archive (a folder of its members), or a path through an
//! archive (`data/jungle.wad/models/gate.MD2`). Opened archives are kept in a small cache,
//! keyed by path and checked against the file's length and modification time, so a model and
//! its siblings and textures read the archive's bytes and index once.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::wad::path::{MemberPath, has_wad_extension, split_member_path};
use super::wad::{WadArchive, read_entry};

/// How many archives stay open (a theme's model archive and its two shared texture archives,
/// with room for a few neighbours).
const CACHE_SIZE: usize = 8;

type Stamp = (u64, Option<SystemTime>);

struct Cached {
    stamp: Stamp,
    archive: Arc<WadArchive>,
    used: u64,
}

static CACHE: Mutex<Option<(u64, HashMap<PathBuf, Cached>)>> = Mutex::new(None);

fn stamp(path: &Path) -> io::Result<Stamp> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.len(), meta.modified().ok()))
}

fn invalid(error: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error.to_string())
}

/// The archive at `path`, read and indexed once while it stays unchanged on disk.
pub fn archive(path: &Path) -> io::Result<Arc<WadArchive>> {
    let stamp = stamp(path)?;
    if let Ok(mut guard) = CACHE.lock() {
        let (clock, map) = guard.get_or_insert_with(|| (0, HashMap::new()));
        *clock += 1;
        if let Some(cached) = map.get_mut(path).filter(|c| c.stamp == stamp) {
            cached.used = *clock;
            return Ok(cached.archive.clone());
        }
    }
    let archive = Arc::new(WadArchive::from_bytes(std::fs::read(path)?).map_err(invalid)?);
    if let Ok(mut guard) = CACHE.lock() {
        let (clock, map) = guard.get_or_insert_with(|| (0, HashMap::new()));
        let full = map.len() >= CACHE_SIZE && !map.contains_key(path);
        if let Some(oldest) = map.iter().filter(|_| full).min_by_key(|(_, c)| c.used).map(|(p, _)| p.clone()) {
            map.remove(&oldest);
        }
        map.insert(path.to_path_buf(), Cached { stamp, archive: archive.clone(), used: *clock });
    }
    Ok(archive)
}

/// Forgets every opened archive, so the next read starts cold (benchmarks, tests).
pub fn clear_cache() {
    if let Ok(mut guard) = CACHE.lock() {
        *guard = None;
    }
}

/// Whether `path` is a `.wad` archive on disk (checked by extension and magic).
pub fn is_archive(path: &Path) -> bool {
    has_wad_extension(path)
        && path.is_file()
        && std::fs::File::open(path)
            .and_then(|mut f| {
                let mut magic = [0u8; 4];
                io::Read::read_exact(&mut f, &mut magic).map(|_| magic)
            })
            .is_ok_and(|m| super::wad::is_wad(&m))
}

/// The bytes of a file, or of an archive member addressed through its archive.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    match std::fs::read(path) {
        Ok(data) => Ok(data),
        Err(error) => match split_member_path(path) {
            Some(member) => read_member(&member),
            None => Err(error),
        },
    }
}

/// As [`read`], into a buffer that decoders may keep views of (Quake II frames): the bytes
/// read are shared as they are, neither zeroed first nor copied.
pub fn read_shared(path: &Path) -> io::Result<crate::scene::SharedBytes> {
    read(path).map(Arc::new)
}

/// The decompressed bytes of one member.
pub fn read_member(member: &MemberPath) -> io::Result<Vec<u8>> {
    let wad = archive(&member.archive)?;
    let entry = wad.index.find(&member.member).ok_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, format!("{} has no member {}", member.archive.display(), member.member))
    })?;
    read_entry(&wad.data, entry).map_err(invalid)
}

/// Where a folder-like path lives: a directory on disk, or a directory inside an archive.
enum Folder {
    Disk(PathBuf),
    Archive { archive: PathBuf, dir: String },
}

/// When a file was last modified: the file's own time on disk, or for a member of an archive the
/// archive's.
pub fn modified(path: &Path) -> Option<std::time::SystemTime> {
    let on_disk = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    on_disk(path).or_else(|| split_member_path(path).and_then(|member| on_disk(&member.archive)))
}

/// Whether `dir` is an archive or a directory inside one (a folder that is not on disk).
pub fn is_archive_folder(dir: &Path) -> bool {
    !dir.is_dir()
        && matches!(folder(dir), Some(Folder::Archive { archive: path, dir: inner })
            if archive(&path).is_ok_and(|w| inner.is_empty() || w.index.has_dir(&inner)))
}

fn folder(dir: &Path) -> Option<Folder> {
    if is_archive(dir) {
        return Some(Folder::Archive { archive: dir.to_path_buf(), dir: String::new() });
    }
    if dir.is_dir() || dir.as_os_str().is_empty() {
        return Some(Folder::Disk(if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir.to_path_buf() }));
    }
    let member = split_member_path(dir)?;
    Some(Folder::Archive { archive: member.archive, dir: member.member })
}

/// The files directly inside a folder (on disk, an archive, or a directory in an archive),
/// as paths that [`read`] accepts. Empty when the folder does not exist.
pub fn list_files(dir: &Path) -> Vec<PathBuf> {
    match folder(dir) {
        Some(Folder::Disk(dir)) => std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default(),
        Some(Folder::Archive { archive: path, dir: inner }) => match archive(&path) {
            Ok(wad) => wad.index.list_dir(&inner).1.into_iter().map(|e| join_member(&path, &e.path)).collect(),
            Err(_) => Vec::new(),
        },
        None => Vec::new(),
    }
}

/// The sub-folders of a folder: directories on disk, or directories inside an archive.
/// Archives on disk are listed by [`list_files`] (they are files there).
pub fn list_dirs(dir: &Path) -> Vec<PathBuf> {
    match folder(dir) {
        Some(Folder::Disk(dir)) => std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| e.ok()).filter(|e| e.path().is_dir()).map(|e| e.path()).collect())
            .unwrap_or_default(),
        Some(Folder::Archive { archive: path, dir: inner }) => match archive(&path) {
            Ok(wad) => {
                let prefix = inner.trim_matches('/');
                wad.index
                    .list_dir(prefix)
                    .0
                    .into_iter()
                    .map(|d| join_member(&path, &if prefix.is_empty() { d } else { format!("{prefix}/{d}") }))
                    .collect()
            }
            Err(_) => Vec::new(),
        },
        None => Vec::new(),
    }
}

/// Whether `path` names a file on disk or a member of an archive.
pub fn is_file(path: &Path) -> bool {
    path.is_file()
        || split_member_path(path).is_some_and(|m| archive(&m.archive).is_ok_and(|w| w.index.find(&m.member).is_some()))
}

/// The path of `member` inside the archive at `archive`.
pub fn join_member(archive: &Path, member: &str) -> PathBuf {
    MemberPath { archive: archive.to_path_buf(), member: member.to_string() }.joined()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writers::wad::{WadMember, write_wad};

    #[test]
    fn archives_read_and_list_like_folders() {
        let root = std::env::temp_dir().join(format!("mdview-vfs-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let wad = root.join("park.wad");
        std::fs::write(
            &wad,
            write_wad(&[
                WadMember::compressed("models/gate.MD2", b"gate bytes gate bytes"),
                WadMember::stored("models/gateM1.MD2", b"anim"),
                WadMember::stored("textures/wood.wct", b"tex"),
            ]),
        )
        .unwrap();
        assert!(is_archive(&wad));
        assert_eq!(read(&wad.join("models").join("GATE.md2")).unwrap(), b"gate bytes gate bytes");
        let mut files = list_files(&wad.join("models"));
        files.sort();
        assert_eq!(files, [wad.join("models/gate.MD2"), wad.join("models/gateM1.MD2")]);
        let mut dirs = list_dirs(&wad);
        dirs.sort();
        assert_eq!(dirs, [wad.join("models"), wad.join("textures")]);
        assert!(list_files(&wad).is_empty());
        assert!(is_file(&wad.join("textures/wood.wct")) && !is_file(&wad.join("textures/none.wct")));
        assert!(list_files(&root).contains(&wad));
        std::fs::remove_dir_all(&root).ok();
    }
}
