//! The item catalogue of an install: no table maps item ids to files, so every item WAD under
//! `data/levels/<theme>/{rides,shops,sideshow,features,upgrades}/` is opened and the `<stem>.sam`
//! inside it is read over its folder's category `.sam`, key by key; its `Info.Id` names it
//! (notes §6). Names on disk and in archives compare case-insensitively, as the game's do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::sam::{Sam, parse_shape};
use crate::formats::wad::{self, WadIndex};

/// The item folders of a theme, with their category files.
pub const ITEM_FOLDERS: [(&str, &str, ItemKind); 5] = [
    ("rides", "Rides.sam", ItemKind::Ride),
    ("shops", "Shops.sam", ItemKind::Shop),
    ("sideshow", "SideShow.sam", ItemKind::Sideshow),
    ("features", "Features.sam", ItemKind::Feature),
    ("upgrades", "Upgrades.sam", ItemKind::Upgrade),
];

/// The theme folders by the first digit of an item id.
pub const THEMES: [(u32, &str); 4] = [(1, "jungle"), (2, "hallow"), (3, "space"), (4, "fantasy")];

/// Which folder an item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Ride,
    Shop,
    Sideshow,
    Feature,
    Upgrade,
}

/// What a park view needs of one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogueEntry {
    pub id: u32,
    /// The theme folder (`jungle`).
    pub theme: String,
    pub kind: ItemKind,
    /// The item's `.wad` on disk.
    pub wad: PathBuf,
    /// The WAD's stem (`monkey`).
    pub stem: String,
    /// The model member `<stem>.md2` as the archive spells it, `None` when the archive has none.
    pub model: Option<String>,
    /// `Info.NumSimultAnims`: the channel count of its ride-system record; `None` when no layer
    /// says it.
    pub num_simult_anims: Option<u32>,
    /// Cells across and down: `Info.EngineFootprintWidth/HeightOverride`, else `Info.Shape`'s box.
    pub footprint: Option<[u32; 2]>,
    /// `Info.DontApplyOffset` 1: authored in world coordinates, drawn at the origin.
    pub dont_apply_offset: bool,
    /// `Info.MapOffsetX`, `Info.MapOffsetY` (0 when not said).
    pub map_offset: [i32; 2],
    /// `Bumper.BumperType`: non-zero for a track ride (karts, water rides, bumpers).
    pub bumper_type: i32,
    /// The archive holds a `coaster.sam`: a roller coaster's track.
    pub coaster: bool,
    pub warnings: Vec<String>,
}

impl CatalogueEntry {
    /// The model's path for `formats::open` (a member path inside the WAD).
    pub fn model_path(&self) -> Option<PathBuf> {
        self.model.as_ref().map(|m| crate::formats::vfs::join_member(&self.wad, m))
    }
}

/// Every item of an install, by id.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Catalogue {
    /// The folder holding `data/levels/`, when scanned from disk.
    pub root: Option<PathBuf>,
    pub entries: Vec<CatalogueEntry>,
    pub warnings: Vec<String>,
    #[serde(skip)]
    by_id: BTreeMap<u32, Vec<usize>>,
}

/// The child of `dir` named `name`, compared case-insensitively.
pub fn child_ci(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.exists() {
        return Some(exact);
    }
    let mut matches: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(name))
        .map(|e| e.path())
        .collect();
    matches.sort();
    matches.into_iter().next()
}

/// The install a save belongs to: `start` (a file or folder) and each folder above it, the
/// first that holds `data/levels/`.
pub fn find_install(start: &Path) -> Option<PathBuf> {
    let start = if start.is_dir() { start } else { start.parent()? };
    start.ancestors().find(|dir| levels_dir(dir).is_some()).map(Path::to_path_buf)
}

/// `<root>/data/levels`, case-insensitively.
pub fn levels_dir(root: &Path) -> Option<PathBuf> {
    let levels = child_ci(&child_ci(root, "data")?, "levels")?;
    levels.is_dir().then_some(levels)
}

/// The theme folder name an item id belongs to (1 jungle ... 4 fantasy), for four-digit ids.
pub fn theme_of(id: u32) -> Option<&'static str> {
    let digit = id / 1000;
    THEMES.iter().find(|(d, _)| *d == digit).map(|(_, name)| *name)
}

/// The entry an item's files describe: its `.sam` (`item`) over its category's.
pub fn entry_from_sam(
    item: &Sam,
    category: &Sam,
    theme: &str,
    kind: ItemKind,
    wad: PathBuf,
    stem: &str,
) -> Result<CatalogueEntry, String> {
    let sam = item.over(category);
    let mut warnings = Vec::new();
    let mut int = |key: &str| match sam.integer(key) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(why)) => {
            warnings.push(why);
            None
        }
    };
    let id = match int("Info.Id") {
        Some(id) => u32::try_from(id).map_err(|_| format!("Info.Id {id} is not an item id"))?,
        None => return Err("no Info.Id in the item's .sam or its category's".into()),
    };
    let num_simult_anims = int("Info.NumSimultAnims").and_then(|n| u32::try_from(n).ok());
    let dont_apply_offset = int("Info.DontApplyOffset").unwrap_or(0) != 0;
    let map_offset = [int("Info.MapOffsetX").unwrap_or(0) as i32, int("Info.MapOffsetY").unwrap_or(0) as i32];
    let bumper_type = int("Bumper.BumperType").unwrap_or(0) as i32;
    let overridden = match (int("Info.EngineFootprintWidthOverride"), int("Info.EngineFootprintHeightOverride")) {
        (Some(w), Some(h)) => Some([w.clamp(0, 128) as u32, h.clamp(0, 128) as u32]),
        _ => None,
    };
    let footprint = overridden.or_else(|| match sam.block("Info.Shape").map(parse_shape) {
        Some(Ok(shape)) => Some([shape.across, shape.down]),
        Some(Err(why)) => {
            warnings.push(format!("Info.Shape: {why}"));
            None
        }
        None => None,
    });
    if num_simult_anims.is_none() {
        warnings.push("no layer says Info.NumSimultAnims".into());
    }
    warnings.extend(sam.warnings.iter().cloned());
    Ok(CatalogueEntry {
        id,
        theme: theme.to_string(),
        kind,
        wad,
        stem: stem.to_string(),
        model: None,
        num_simult_anims,
        footprint,
        dont_apply_offset,
        map_offset,
        bumper_type,
        coaster: false,
        warnings,
    })
}

impl Catalogue {
    /// A catalogue of the given entries (tests, fuzzing, and items described in memory).
    pub fn from_entries(entries: Vec<CatalogueEntry>) -> Catalogue {
        let mut catalogue = Catalogue { entries, ..Catalogue::default() };
        catalogue.index();
        catalogue
    }

    fn index(&mut self) {
        self.by_id.clear();
        for (i, entry) in self.entries.iter().enumerate() {
            self.by_id.entry(entry.id).or_default().push(i);
        }
    }

    /// Scans every theme of the install at `root` (the folder holding `data/levels/`).
    pub fn scan(root: &Path) -> Catalogue {
        let mut catalogue = Catalogue { root: Some(root.to_path_buf()), ..Catalogue::default() };
        let Some(levels) = levels_dir(root) else {
            catalogue.warnings.push(format!("{} holds no data/levels/", root.display()));
            return catalogue;
        };
        let mut themes: Vec<PathBuf> = std::fs::read_dir(&levels)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        themes.sort();
        for theme_dir in themes {
            let theme = theme_dir.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
            for (folder, category_name, kind) in ITEM_FOLDERS {
                let Some(dir) = child_ci(&theme_dir, folder) else { continue };
                catalogue.scan_folder(&dir, category_name, &theme, kind);
            }
        }
        for (id, indices) in &catalogue.by_id {
            let mut seen = BTreeMap::new();
            for &i in indices {
                if let Some(entry) = catalogue.entries.get(i)
                    && let Some(first) = seen.insert(entry.theme.clone(), entry.wad.clone())
                {
                    catalogue.warnings.push(format!(
                        "item {id} is named by both {} and {}; the first is used",
                        first.display(),
                        entry.wad.display()
                    ));
                }
            }
        }
        catalogue
    }

    fn scan_folder(&mut self, dir: &Path, category_name: &str, theme: &str, kind: ItemKind) {
        let category = match child_ci(dir, category_name).map(std::fs::read) {
            Some(Ok(bytes)) => Sam::parse(&String::from_utf8_lossy(&bytes)),
            _ => {
                self.warnings
                    .push(format!("{} has no {category_name}; items read without category defaults", dir.display()));
                Sam::default()
            }
        };
        let mut wads: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| wad::path::has_wad_extension(p))
            .collect();
        wads.sort();
        for path in wads {
            match read_item_wad(&path, &category, theme, kind) {
                Ok(entry) => {
                    self.by_id.entry(entry.id).or_default().push(self.entries.len());
                    self.entries.push(entry);
                }
                Err(why) => self.warnings.push(format!("{}: {why}", path.display())),
            }
        }
    }

    /// The entry for item `id`: the one of the id's own theme where there are several (items
    /// 100-102 are in every theme), else `theme`'s, else the first.
    pub fn entry(&self, id: u32, theme: Option<&str>) -> Option<&CatalogueEntry> {
        let indices = self.by_id.get(&id)?;
        let wanted = theme_of(id).or(theme);
        let pick = indices.iter().filter_map(|&i| self.entries.get(i));
        pick.clone().find(|e| Some(e.theme.as_str()) == wanted).or_else(|| pick.clone().next())
    }

    /// An item's `NumSimultAnims`, the lookup the ride system's walk takes.
    pub fn channel_count(&self, id: u32) -> Option<u32> {
        self.entry(id, None)?.num_simult_anims
    }
}

/// One item WAD: its `<stem>.sam` over the category, its model member and whether it is a coaster.
fn read_item_wad(path: &Path, category: &Sam, theme: &str, kind: ItemKind) -> Result<CatalogueEntry, String> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let index = wad::read_index(&data).map_err(|e| e.to_string())?;
    let sam_name = format!("{stem}.sam");
    let sam_entry = find_member(&index, &sam_name).ok_or_else(|| format!("holds no {sam_name}"))?;
    let text = wad::read_entry(&data, sam_entry).map_err(|e| e.to_string())?;
    let item = Sam::parse(&String::from_utf8_lossy(&text));
    let mut entry = entry_from_sam(&item, category, theme, kind, path.to_path_buf(), &stem)?;
    entry.model = find_member(&index, &format!("{stem}.md2")).map(|e| e.path.clone());
    if entry.model.is_none() {
        entry.warnings.push(format!("the archive holds no {stem}.md2"));
    }
    entry.coaster = find_member(&index, "coaster.sam").is_some();
    Ok(entry)
}

/// A member by file name, case-insensitively, the archive's root first.
fn find_member<'a>(index: &'a WadIndex, name: &str) -> Option<&'a wad::WadEntry> {
    let named = index.entries.iter().filter(|e| e.name().eq_ignore_ascii_case(name));
    named.clone().find(|e| e.dir().is_empty()).or_else(|| named.clone().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_keys_over_category_defaults() {
        let category = Sam::parse("Info.NumSimultAnims 1\nInfo.DontApplyOffset 0\nBumper.BumperType 0\n");
        let item =
            Sam::parse("Info.Id 1303\nInfo.NumSimultAnims 3\nInfo.Shape\n---\n***\n*2*\n---\nInfo.MapOffsetY 1\n");
        let entry =
            entry_from_sam(&item, &category, "jungle", ItemKind::Sideshow, "junspray.wad".into(), "junspray").unwrap();
        assert_eq!(entry.id, 1303);
        assert_eq!(entry.num_simult_anims, Some(3));
        assert_eq!(entry.footprint, Some([3, 2]));
        assert_eq!(entry.map_offset, [0, 1]);
        assert!(!entry.dont_apply_offset);
        let gate = Sam::parse(
            "Info.Id 1601\nInfo.DontApplyOffset 1\nInfo.Shape\n---\n*\n---\nInfo.EngineFootprintWidthOverride 6\nInfo.EngineFootprintHeightOverride 3\n",
        );
        let gate = entry_from_sam(&gate, &category, "jungle", ItemKind::Feature, "gates.wad".into(), "gates").unwrap();
        assert_eq!(gate.footprint, Some([6, 3]));
        assert!(gate.dont_apply_offset);
        let none =
            entry_from_sam(&Sam::parse("Info.Id 7\n"), &Sam::default(), "x", ItemKind::Ride, "a.wad".into(), "a")
                .unwrap();
        assert_eq!(none.num_simult_anims, None);
        assert!(entry_from_sam(&Sam::default(), &category, "x", ItemKind::Ride, "a.wad".into(), "a").is_err());
    }

    #[test]
    fn ids_pick_their_own_theme() {
        assert_eq!(theme_of(1101), Some("jungle"));
        assert_eq!(theme_of(4402), Some("fantasy"));
        assert_eq!(theme_of(100), None);
    }
}
