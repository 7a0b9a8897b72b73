//! The viewer's settings, kept as JSON between runs: recent files and folders, and the Theme
//! Park World install a park save's items are found in when none is found above the save.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent files and folders are remembered.
pub const RECENT_LIMIT: usize = 12;

/// Recently opened files and folders, newest first, and the remembered install; persisted as
/// JSON (`recent.json`). A file written before a field existed reads with that field empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    pub files: Vec<PathBuf>,
    pub folders: Vec<PathBuf>,
    /// The Theme Park World install (the folder holding `data/levels/`) whose items a park
    /// save names, used when none is found above the save; asked for once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<PathBuf>,
}

impl Recent {
    /// The settings file: `$MDVIEW_CONFIG_DIR/recent.json` when set (tests, portable installs),
    /// otherwise `<platform config dir>/mdview/recent.json`.
    pub fn default_path() -> Option<PathBuf> {
        let dir = match std::env::var_os("MDVIEW_CONFIG_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => dirs::config_dir()?.join("mdview"),
        };
        Some(dir.join("recent.json"))
    }

    /// Reads the list; a missing or damaged file gives an empty list (it is only a convenience).
    pub fn load(path: &Path) -> Recent {
        std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }

    /// Writes the list, creating the folder; written to a temporary file first so that two
    /// viewers closing at once cannot leave half a file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, path)
    }

    /// Remembers an opened file and its folder: for a member of an archive, the archive,
    /// which opens as a folder (its directory inside the archive does not open on its own).
    pub fn add_file(&mut self, path: &Path) {
        let path = absolute(path);
        push_front(&mut self.files, path.clone());
        let folder = match crate::formats::wad::path::split_member_path(&path) {
            Some(member) => Some(member.archive),
            None => path.parent().map(Path::to_path_buf),
        };
        if let Some(dir) = folder {
            push_front(&mut self.folders, dir);
        }
    }

    /// Remembers a file opened from the folder `root` browsed, and that folder.
    pub fn add_browsed_file(&mut self, path: &Path, root: &Path) {
        push_front(&mut self.files, absolute(path));
        push_front(&mut self.folders, absolute(root));
    }

    /// Remembers a browsed folder.
    pub fn add_folder(&mut self, dir: &Path) {
        push_front(&mut self.folders, absolute(dir));
    }
}

/// Whether `dir` is an install: it holds `data/levels/` (any case).
pub fn is_install(dir: &Path) -> bool {
    crate::formats::park::catalogue::levels_dir(dir).is_some()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn push_front(list: &mut Vec<PathBuf>, item: PathBuf) {
    list.retain(|p| p != &item);
    list.insert(0, item);
    list.truncate(RECENT_LIMIT);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_is_remembered_and_an_older_file_reads_without_one() {
        let dir = std::env::temp_dir().join(format!("mdview-settings-{}", std::process::id()));
        let file = dir.join("recent.json");
        let recent = Recent { install: Some(PathBuf::from("/games/tpw")), ..Recent::default() };
        recent.save(&file).unwrap();
        assert_eq!(Recent::load(&file).install, Some(PathBuf::from("/games/tpw")));
        std::fs::write(&file, br#"{"files":["/a.md2"],"folders":[]}"#).unwrap();
        let old = Recent::load(&file);
        assert_eq!((old.files.len(), old.install), (1, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
