//! The one answer to "which models are under this folder", shown alike by the viewer's tree,
//! its sheet view and `mdview render DIR --sheet`: every model file at any depth, `.wad`
//! archives inside browsed as folders, TPW animations grouped under their model
//! ([`group_models`]), and folders with no model below them left out.
//!
//! The walk hands over one folder at a time, in display order (depth first: a folder's own
//! models, then its sub-folders and archives by name, case-insensitively), so that a caller
//! can show the first folders while the rest are still being listed.
//!
//! Directories are read here, not through the kept listings of [`super::assets`] (which may
//! answer from a listing up to 10 s old): a folder listed again sees what changed on disk.
//! Archives come through [`super::vfs`], whose cache follows each archive's size and time.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::wad::WadArchive;
use super::wad::path::has_wad_extension;
use super::{ModelGroup, group_models, is_model_file, vfs};

/// How deep the walk goes: far below any game's layout, and a stop for a loop of links that
/// the visited-directory check cannot see (where there are no inode numbers).
pub const MAX_DEPTH: usize = 32;

/// One folder of the tree that holds models (or could not be read), with its models grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFolder {
    /// The folder: a directory on disk, an archive, or a directory inside an archive (a path
    /// through it, as [`vfs::read`] takes).
    pub path: PathBuf,
    /// Its path below the listed root, `/`-separated; empty for the root itself.
    pub relative: String,
    /// Its models in name order, each with its animation files.
    pub models: Vec<ModelGroup>,
    /// Why something in it could not be listed (an unreadable sub-folder, a damaged archive).
    pub problems: Vec<String>,
}

impl ListedFolder {
    /// How many folders down from the root it is (0 for the root).
    pub fn depth(&self) -> usize {
        depth_of(&self.relative)
    }
}

/// How many folders down a `/`-separated relative path is (0 for `""`).
pub fn depth_of(relative: &str) -> usize {
    if relative.is_empty() { 0 } else { relative.matches('/').count() + 1 }
}

/// Where a folder of the walk lives.
enum Place {
    Disk,
    /// A directory inside an archive: the archive (kept open for the walk) and the directory.
    Archive(Arc<WadArchive>, PathBuf, String),
    /// A `.wad` file seen in a directory, opened when the walk reaches it.
    UnopenedArchive,
}

struct Pending {
    path: PathBuf,
    relative: String,
    place: Place,
}

/// Walks the models under `root` (a directory, a `.wad` archive or a directory inside one),
/// calling `visit` with each folder that holds models or problems, in display order, until it
/// says to stop. An unreadable root is the error; anything unreadable below it is a problem
/// of its folder, and the walk goes on.
pub fn walk(root: &Path, mut visit: impl FnMut(ListedFolder) -> ControlFlow<()>) -> std::io::Result<()> {
    let place = if root.is_dir() {
        std::fs::read_dir(root)?;
        Place::Disk
    } else if vfs::is_archive(root) {
        Place::UnopenedArchive
    } else if vfs::is_archive_folder(root) {
        let member = super::wad::path::split_member_path(root)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not a folder"))?;
        Place::Archive(vfs::archive(&member.archive)?, member.archive, member.member)
    } else {
        let error = if root.exists() { std::io::ErrorKind::NotADirectory } else { std::io::ErrorKind::NotFound };
        return Err(error.into());
    };
    if let Place::UnopenedArchive = place {
        // A damaged archive given as the root is the caller's error, not a problem line.
        vfs::archive(root)?;
    }
    let mut visited = Visited::default();
    let mut stack = vec![Pending { path: root.to_path_buf(), relative: String::new(), place }];
    while let Some(folder) = stack.pop() {
        let depth = depth_of(&folder.relative);
        let (mut listed, subfolders) = list_one(&folder, &mut visited);
        if depth >= MAX_DEPTH && !subfolders.is_empty() {
            listed.problems.push(format!("{}: deeper than {MAX_DEPTH} folders; not listed", folder.path.display()));
        }
        if (!listed.models.is_empty() || !listed.problems.is_empty()) && visit(listed).is_break() {
            return Ok(());
        }
        if depth < MAX_DEPTH {
            // Reversed, so that the first by name is walked next.
            stack.extend(subfolders.into_iter().rev());
        }
    }
    Ok(())
}

/// Every folder [`walk`] visits, in order.
pub fn list(root: &Path) -> std::io::Result<Vec<ListedFolder>> {
    let mut folders = Vec::new();
    walk(root, |folder| {
        folders.push(folder);
        ControlFlow::Continue(())
    })?;
    Ok(folders)
}

/// The models under `root` in display order, each with its animation files.
pub fn models_under(root: &Path) -> std::io::Result<Vec<ModelGroup>> {
    Ok(list(root)?.into_iter().flat_map(|f| f.models).collect())
}

/// The directories already walked, by device and inode, so that a link back up the tree is
/// not followed round (Unix; elsewhere [`MAX_DEPTH`] ends such a loop).
#[derive(Default)]
struct Visited(std::collections::HashSet<(u64, u64)>);

impl Visited {
    /// Whether `dir` is new to the walk (and notes it).
    fn first_visit(&mut self, dir: &Path) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            match std::fs::metadata(dir) {
                Ok(meta) => self.0.insert((meta.dev(), meta.ino())),
                Err(_) => true,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = (dir, &self.0);
            true
        }
    }
}

/// Lists one folder: its models, grouped, and its sub-folders in name order.
fn list_one(folder: &Pending, visited: &mut Visited) -> (ListedFolder, Vec<Pending>) {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    // (name, path, place) of each sub-folder.
    let mut subfolders: Vec<(String, PathBuf, Place)> = Vec::new();
    match &folder.place {
        Place::Disk => {
            if visited.first_visit(&folder.path) {
                list_directory(&folder.path, &mut files, &mut subfolders, &mut problems);
            }
        }
        Place::UnopenedArchive => match vfs::archive(&folder.path) {
            Ok(wad) => list_archive(&wad, &folder.path, "", &mut files, &mut subfolders),
            Err(e) => problems.push(format!("{}: not a readable .wad archive ({e})", folder.path.display())),
        },
        Place::Archive(wad, archive, dir) => list_archive(wad, archive, dir, &mut files, &mut subfolders),
    }
    subfolders.sort_by(|a, b| a.0.to_lowercase().cmp(&b.0.to_lowercase()).then_with(|| a.0.cmp(&b.0)));
    let pending = subfolders
        .into_iter()
        .map(|(name, path, place)| {
            let relative = if folder.relative.is_empty() { name } else { format!("{}/{name}", folder.relative) };
            Pending { path, relative, place }
        })
        .collect();
    let listed = ListedFolder {
        path: folder.path.clone(),
        relative: folder.relative.clone(),
        models: group_models(files),
        problems,
    };
    (listed, pending)
}

/// A directory on disk: the kind of each entry comes from the listing itself (no `stat` per
/// file), except for links, which are followed.
fn list_directory(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    subfolders: &mut Vec<(String, PathBuf, Place)>,
    problems: &mut Vec<String>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(format!("{}: cannot be listed ({e})", dir.display()));
            return;
        }
    };
    for entry in entries {
        let Ok(entry) = entry else {
            problems.push(format!("{}: an entry could not be read", dir.display()));
            continue;
        };
        let path = entry.path();
        let (is_dir, is_file) = match entry.file_type() {
            Ok(kind) if kind.is_symlink() => {
                std::fs::metadata(&path).map_or((false, false), |m| (m.is_dir(), m.is_file()))
            }
            Ok(kind) => (kind.is_dir(), kind.is_file()),
            Err(_) => (false, false),
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_dir {
            subfolders.push((name, path, Place::Disk));
        } else if is_file && is_model_file(&path) {
            files.push(path);
        } else if is_file && has_wad_extension(&path) {
            subfolders.push((name, path, Place::UnopenedArchive));
        }
    }
}

/// One directory inside an archive.
fn list_archive(
    wad: &Arc<WadArchive>,
    archive: &Path,
    dir: &str,
    files: &mut Vec<PathBuf>,
    subfolders: &mut Vec<(String, PathBuf, Place)>,
) {
    let (dirs, members) = wad.index.list_dir(dir);
    files.extend(
        members.into_iter().filter(|e| is_model_file(Path::new(e.name()))).map(|e| vfs::join_member(archive, &e.path)),
    );
    for name in dirs {
        let inner = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
        let path = vfs::join_member(archive, &inner);
        subfolders.push((name, path, Place::Archive(wad.clone(), archive.to_path_buf(), inner)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writers::wad::{WadMember, write_wad};

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mdview-listing-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn touch(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"x").unwrap();
    }

    fn shown(root: &Path) -> Vec<(String, Vec<String>)> {
        list(root)
            .unwrap()
            .into_iter()
            .map(|f| {
                let names =
                    f.models.iter().map(|g| g.model.file_name().unwrap().to_string_lossy().into_owned()).collect();
                (f.relative, names)
            })
            .collect()
    }

    #[test]
    fn a_folder_lists_as_a_tree_of_its_models() {
        let root = temp("tree");
        for file in ["top.md2", "Zed.m2", "players/male/tris.md2", "players/male/skin.pcx", "players/female/tris.MD2"] {
            touch(&root, file);
        }
        touch(&root, "creature/rabbit/Rabbit.m2");
        touch(&root, "creature/rabbit/notes.txt");
        std::fs::create_dir_all(root.join("empty/deeper")).unwrap();
        touch(&root, "textures/only.png");
        let clip = crate::writers::tpw::AnimFile::default().to_bytes();
        std::fs::write(
            root.join("b.wad"),
            write_wad(&[WadMember::stored("models/gate.MD2", b"g"), WadMember::stored("models/gateM1.MD2", &clip)]),
        )
        .unwrap();
        std::fs::write(root.join("broken.wad"), b"not an archive").unwrap();
        let listed = list(&root).unwrap();
        let folders: Vec<&str> = listed.iter().map(|f| f.relative.as_str()).collect();
        // Own models first, then sub-folders and archives by name; no folder without models.
        assert_eq!(folders, ["", "b.wad/models", "broken.wad", "creature/rabbit", "players/female", "players/male"]);
        assert_eq!(shown(&root)[0].1, ["top.md2", "Zed.m2"]);
        let gate = &listed[1].models[0];
        assert_eq!(gate.model, root.join("b.wad").join("models").join("gate.MD2"));
        assert_eq!(gate.animations, [root.join("b.wad").join("models").join("gateM1.MD2")]);
        assert!(listed[2].models.is_empty() && listed[2].problems[0].contains("broken.wad"), "{:?}", listed[2]);
        assert_eq!(listed[5].depth(), 2);
        // An archive, or a directory inside one, lists from there.
        assert_eq!(shown(&root.join("b.wad")), [("models".to_string(), vec!["gate.MD2".to_string()])]);
        assert_eq!(shown(&root.join("b.wad/models")), [(String::new(), vec!["gate.MD2".to_string()])]);
        assert_eq!(models_under(&root).unwrap().len(), 6);
        assert!(list(&root.join("missing")).is_err());
        assert!(list(&root.join("top.md2")).is_err());
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn a_second_listing_sees_what_changed() {
        let root = temp("again");
        touch(&root, "a/one.md2");
        assert_eq!(models_under(&root).unwrap().len(), 1);
        touch(&root, "a/two.md2");
        touch(&root, "b/c/three.md2");
        std::fs::remove_file(root.join("a/one.md2")).unwrap();
        let names: Vec<String> = models_under(&root)
            .unwrap()
            .iter()
            .map(|g| g.model.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"))
            .collect();
        assert_eq!(names, ["a/two.md2", "b/c/three.md2"]);
        std::fs::remove_dir_all(&root).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_back_up_the_tree_is_not_followed_round() {
        let root = temp("loop");
        touch(&root, "a/one.md2");
        std::os::unix::fs::symlink(&root, root.join("a/up")).unwrap();
        let listed = list(&root).unwrap();
        assert_eq!(listed.iter().map(|f| f.relative.as_str()).collect::<Vec<_>>(), ["a"]);
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn the_walk_stops_when_asked() {
        let root = temp("stop");
        for k in 0..5 {
            touch(&root, &format!("d{k}/m.md2"));
        }
        let mut seen = 0;
        walk(&root, |_| {
            seen += 1;
            if seen == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .unwrap();
        assert_eq!(seen, 2);
        std::fs::remove_dir_all(&root).ok();
    }
}
