//! Paths through archives: `data/jungle.wad/models/gate.MD2` names the member
//! `models/gate.MD2` of the archive file `data/jungle.wad`.

use std::path::{Component, Path, PathBuf};

/// A member addressed through its archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberPath {
    pub archive: PathBuf,
    /// `/`-separated path inside the archive.
    pub member: String,
}

impl MemberPath {
    /// The combined path, as a user would type it.
    pub fn joined(&self) -> PathBuf {
        let mut path = self.archive.clone();
        for part in self.member.split('/') {
            path.push(part);
        }
        path
    }
}

/// Whether a file name ends in `.wad`, in any case.
pub fn has_wad_extension(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("wad"))
}

/// Whether some component of `path` is named like a `.wad` archive (no file is looked at).
pub fn names_an_archive(path: &Path) -> bool {
    path.components().any(|c| matches!(c, Component::Normal(name) if has_wad_extension(Path::new(name))))
}

/// Splits `path` at the first component that is an existing `.wad` file with something after
/// it. `None` for ordinary paths (including a path that is the archive itself).
pub fn split_member_path(path: &Path) -> Option<MemberPath> {
    // Most paths name no archive: answered without building one up component by component
    // (an open asks this for every folder and texture it looks at).
    if !names_an_archive(path) {
        return None;
    }
    let mut archive = PathBuf::new();
    let mut components = path.components();
    while let Some(component) = components.next() {
        archive.push(component.as_os_str());
        if matches!(component, Component::Normal(_)) && has_wad_extension(&archive) && archive.is_file() {
            let member: Vec<String> =
                components.map(|c| c.as_os_str().to_string_lossy().into_owned()).filter(|c| !c.is_empty()).collect();
            if member.is_empty() {
                return None;
            }
            return Some(MemberPath { archive, member: member.join("/") });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_archive_file() {
        let dir = std::env::temp_dir().join(format!("mdview-wadpath-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/Jungle.WAD"), b"DWFB").unwrap();
        let split = split_member_path(&dir.join("data/Jungle.WAD/models/gate.MD2")).unwrap();
        assert_eq!(split.archive, dir.join("data/Jungle.WAD"));
        assert_eq!(split.member, "models/gate.MD2");
        assert_eq!(split.joined(), dir.join("data/Jungle.WAD/models/gate.MD2"));
        assert_eq!(split_member_path(&dir.join("data/Jungle.WAD")), None);
        assert_eq!(split_member_path(&dir.join("data/other.wad/x.MD2")), None, "no such archive");
        std::fs::remove_dir_all(&dir).ok();
    }
}
