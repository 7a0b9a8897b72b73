//! A TPW model's animations sit beside it as `<stem><role><n>.MD2` (notes §19): twelve role
//! letters in the engine's order `C D I L S M E U W B R O`, each probed as numbered files
//! `<stem><role>1`, `2`, ... up to the first missing one, and only where no numbered file exists,
//! the bare `<stem><role>.MD2`. This finds a model's animations in that order (names compared
//! case-insensitively) and an animation's base model, in a folder on disk or a directory inside
//! a `.wad` archive. A `P`-prefixed second set (`p<stem>`) is a
//! separate model with its own animations, found the same way from its own stem.
//!
//! A name is not enough: `towers.md2` splits as `tower` + `S` but may be a model of its own.
//! [`is_animation_file`] reads the few header bytes that tell an animation from a mesh (the
//! magic, and a mesh table offset of 0), so grouping and sibling lookup take only real
//! animation files.

use std::path::{Path, PathBuf};

/// The engine's role letters, in its order (C = 0 ... O = 11). C is construction: its last
/// frame is how a built item looks.
pub const ROLES: [char; 12] = ['C', 'D', 'I', 'L', 'S', 'M', 'E', 'U', 'W', 'B', 'R', 'O'];

/// The construction role: its clip's last frame is the finished item's look.
pub const CONSTRUCTION_ROLE: char = 'C';

/// An animation file name taken apart: base stem, role letter (upper case) and number (`None`
/// for the bare `<stem><role>` form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleStem<'a> {
    pub base: &'a str,
    pub role: char,
    pub number: Option<u32>,
}

impl RoleStem<'_> {
    /// Engine order: by role, then number (the bare file stands alone in its role).
    pub fn rank(&self) -> u32 {
        let role = ROLES.iter().position(|&r| r == self.role).unwrap_or(ROLES.len()) as u32;
        role.saturating_mul(1_000_000).saturating_add(self.number.unwrap_or(0))
    }

    /// The clip name: role letter and number, `M1` or `C`.
    pub fn clip_name(&self) -> String {
        match self.number {
            Some(n) => format!("{}{n}", self.role),
            None => self.role.to_string(),
        }
    }
}

/// Splits a stem like `gateM12` into (`gate`, `M`, 12) or `camerac` into (`camera`, `C`, none).
/// Any stem ending in a role letter splits; whether the base exists decides if it is one.
pub fn split_role_stem(stem: &str) -> Option<RoleStem<'_>> {
    let digits_start = stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (head, digits) = stem.split_at(digits_start);
    let number = if digits.is_empty() { None } else { Some(digits.parse::<u32>().ok()?) };
    let role = head.chars().last()?.to_ascii_uppercase();
    if !ROLES.contains(&role) {
        return None;
    }
    let base = head.get(..head.len() - 1)?;
    (!base.is_empty()).then_some(RoleStem { base, role, number })
}

/// Splits an animation stem into its base and its rank in the engine's order
/// ([`RoleStem::rank`]).
pub fn split_anim_stem(stem: &str) -> Option<(&str, u32)> {
    split_role_stem(stem).map(|s| (s.base, s.rank()))
}

/// The header bytes [`is_animation_header`] needs: through the mesh table offset.
const ANIMATION_HEADER_LEN: usize = (super::layout::HDR_MESH_TABLE + 4) as usize;

/// Whether a file's first bytes are a TPW animation file's: the TPW magic and no mesh table
/// (the test [`super::decode_file`] makes).
pub fn is_animation_header(header: &[u8]) -> bool {
    let mesh_table = super::layout::HDR_MESH_TABLE as usize;
    header.starts_with(&super::layout::MAGIC)
        && header.get(mesh_table..mesh_table + 4).is_some_and(|offset| offset.iter().all(|&b| b == 0))
}

/// Whether the file at `path` (on disk, or a member of a `.wad`) is a TPW animation file,
/// reading only its header where it can: the first bytes of a file on disk or of a stored
/// member; a compressed member is read whole. A file that cannot be read is not one.
pub fn is_animation_file(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; ANIMATION_HEADER_LEN];
    if let Ok(file) = std::fs::File::open(path) {
        let mut filled = 0;
        let mut reader = file.take(ANIMATION_HEADER_LEN as u64);
        while let Ok(n) = reader.read(header.get_mut(filled..).unwrap_or(&mut [])) {
            if n == 0 {
                break;
            }
            filled += n;
        }
        return is_animation_header(header.get(..filled).unwrap_or(&[]));
    }
    let Some(member) = crate::formats::wad::path::split_member_path(path) else { return false };
    let Ok(archive) = crate::formats::vfs::archive(&member.archive) else { return false };
    let Some(entry) = archive.index.find(&member.member) else { return false };
    match entry.compression {
        crate::formats::wad::Compression::Stored => {
            let start = usize::try_from(entry.data_offset).unwrap_or(usize::MAX);
            let len = usize::try_from(entry.stored_size).unwrap_or(0).min(ANIMATION_HEADER_LEN);
            archive.data.get(start..start.saturating_add(len)).is_some_and(is_animation_header)
        }
        _ => crate::formats::wad::read_entry(&archive.data, entry).is_ok_and(|data| is_animation_header(&data)),
    }
}

fn is_md2(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"))
}

fn stem(path: &Path) -> Option<String> {
    path.file_stem().map(|s| s.to_string_lossy().into_owned())
}

fn folder_files(path: &Path) -> Vec<PathBuf> {
    let folder = crate::formats::assets::Assets::new().folder(&crate::formats::assets::model_folder(path));
    folder.files().filter_map(|asset| asset.path()).filter(|p| is_md2(p)).collect()
}

/// The animation files of the model at `base`, in the engine's order: files named as its
/// animations whose header says they are animation files ([`is_animation_file`]; a model
/// such as `towers.md2` beside `tower.md2` is not one).
pub fn animations_of(base: &Path) -> Vec<PathBuf> {
    let Some(base_stem) = stem(base) else { return Vec::new() };
    let files: Vec<PathBuf> = folder_files(base)
        .into_iter()
        .filter(|p| {
            stem(p).and_then(|s| split_role_stem(&s).map(|r| r.base.eq_ignore_ascii_case(&base_stem))) == Some(true)
        })
        .filter(|p| is_animation_file(p))
        .collect();
    animations_in(&files, &base_stem)
}

/// Among `files`, the animations the engine would load for the base stem: per role in order,
/// numbered files 1, 2, ... up to the first gap, else the bare file. Names decide; see
/// [`animations_of`] for the content check.
pub fn animations_in(files: &[PathBuf], base_stem: &str) -> Vec<PathBuf> {
    let named: Vec<(RoleStem, &PathBuf)> = files
        .iter()
        .filter(|p| is_md2(p))
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?;
            let split = split_role_stem(name)?;
            split.base.eq_ignore_ascii_case(base_stem).then_some((split, p))
        })
        .collect();
    let find = |role: char, number: Option<u32>| {
        let mut matches: Vec<&PathBuf> =
            named.iter().filter(|(s, _)| s.role == role && s.number == number).map(|(_, p)| *p).collect();
        matches.sort();
        matches.first().map(|p| (*p).clone())
    };
    let mut out = Vec::new();
    for role in ROLES {
        let before = out.len();
        for n in 1.. {
            match find(role, Some(n)) {
                Some(path) => out.push(path),
                None => break,
            }
        }
        if out.len() == before
            && let Some(path) = find(role, None)
        {
            out.push(path);
        }
    }
    out
}

/// The base model beside an animation file, matched case-insensitively.
pub fn base_model(anim: &Path) -> Option<PathBuf> {
    let anim_stem = stem(anim)?;
    let split = split_role_stem(&anim_stem)?;
    let mut candidates: Vec<PathBuf> = folder_files(anim)
        .into_iter()
        .filter(|p| stem(p).is_some_and(|s| s.eq_ignore_ascii_case(split.base)))
        .collect();
    candidates.sort();
    candidates.into_iter().next()
}

/// The clip name for an animation file: its role and number (`M1`, `C`) when it has a base,
/// else its stem.
pub fn clip_name(anim: &Path, base: Option<&Path>) -> String {
    let anim_stem = stem(anim).unwrap_or_default();
    match (split_role_stem(&anim_stem), base) {
        (Some(split), Some(_)) => split.clip_name(),
        _ => anim_stem,
    }
}

/// Whether two paths name the same file (by canonical path, falling back to the name).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use crate::formats::wad::path::split_member_path;
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        // Members of an archive: names inside it compare without case, as the game reads them.
        _ => match (split_member_path(a), split_member_path(b)) {
            (Some(x), Some(y)) => same_file(&x.archive, &y.archive) && x.member.eq_ignore_ascii_case(&y.member),
            _ => a == b,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_role_letters_and_numbers_case_insensitively() {
        let split = |s| split_role_stem(s).map(|r| (r.base, r.role, r.number));
        assert_eq!(split("gateM1"), Some(("gate", 'M', Some(1))));
        assert_eq!(split("droidm2"), Some(("droid", 'M', Some(2))));
        assert_eq!(split("Advisorm14"), Some(("Advisor", 'M', Some(14))));
        assert_eq!(split("camerac"), Some(("camera", 'C', None)));
        assert_eq!(split("bouncyb"), Some(("bouncy", 'B', None)));
        assert_eq!(split("gateX1"), None);
        assert_eq!(split("M1"), None);
        // Any stem ending in a role letter splits; only a file named SCAL.md2 would own it.
        assert_eq!(split("SCALE"), Some(("SCAL", 'E', None)));
        assert_eq!(split("TROUGH_ROTATE1"), Some(("TROUGH_ROTAT", 'E', Some(1))));
    }

    #[test]
    fn follows_the_engine_probe_order() {
        let files: Vec<PathBuf> = [
            "GATEm10.md2",
            "gateM2.MD2",
            "gate.MD2",
            "gatem1.MD2",
            "gatepostM1.MD2",
            "other.md2",
            "gateM.md2",
            "gatec.md2",
            "gateS1.md2",
            "gateS3.md2",
            "gateI.md2",
            "Pgatem1.md2",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let found = animations_in(&files, "gate");
        let names: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
        // C first; I bare (no numbered I); S1 only (S2 is missing, so S3 is never probed); M1, M2
        // and not M10 (M3 is missing) nor the bare M (numbered M files exist); the P set apart.
        assert_eq!(names, ["gatec.md2", "gateI.md2", "gateS1.md2", "gatem1.MD2", "gateM2.MD2"]);
        let p_set: Vec<String> = animations_in(&files, "Pgate").iter().map(|p| p.display().to_string()).collect();
        assert_eq!(p_set, ["Pgatem1.md2"]);
    }

    /// A TPW header of `0x74` bytes: an animation (mesh table offset 0) or a mesh.
    fn header(animation: bool) -> Vec<u8> {
        let mut out = vec![0u8; ANIMATION_HEADER_LEN];
        out[..4].copy_from_slice(&super::super::layout::MAGIC);
        if !animation {
            out[0x70..0x74].copy_from_slice(&0x200u32.to_le_bytes());
        }
        out
    }

    #[test]
    fn only_animation_files_group_under_a_model() {
        let dir = std::env::temp_dir().join(format!("mdview-siblings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // towers.md2 splits as tower + S by name, but is a mesh: it stands alone.
        for (name, animation) in [("tower.md2", false), ("towers.md2", false), ("towerM1.md2", true)] {
            std::fs::write(dir.join(name), header(animation)).unwrap();
        }
        let files: Vec<PathBuf> = ["tower.md2", "towers.md2", "towerM1.md2"].iter().map(|n| dir.join(n)).collect();
        assert!(is_animation_file(&dir.join("towerM1.md2")));
        assert!(!is_animation_file(&dir.join("towers.md2")));
        assert!(!is_animation_file(&dir.join("missing.md2")));
        let groups = crate::formats::group_models(files);
        let animations_of_tower = animations_of(&dir.join("tower.md2"));
        std::fs::remove_dir_all(&dir).ok();
        let shown: Vec<(String, Vec<String>)> = groups
            .iter()
            .map(|g| {
                let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                (name(&g.model), g.animations.iter().map(|a| name(a)).collect())
            })
            .collect();
        assert_eq!(
            shown,
            [("tower.md2".to_string(), vec!["towerM1.md2".to_string()]), ("towers.md2".to_string(), vec![])]
        );
        let names: Vec<_> = animations_of_tower.iter().map(|p| p.file_name().unwrap().to_owned()).collect();
        assert_eq!(names, ["towerM1.md2"]);
    }

    #[test]
    fn animation_header_needs_the_magic_and_no_mesh_table() {
        assert!(is_animation_header(&header(true)));
        assert!(!is_animation_header(&header(false)));
        assert!(!is_animation_header(&header(true)[..0x72]));
        let mut other = header(true);
        other[0] = b'I';
        assert!(!is_animation_header(&other));
    }
}
