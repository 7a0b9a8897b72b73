//! A park put together from a save and an install's catalogue: every placed object with its
//! world matrix, catalogue entry and pose; paths (tile set 1) and queues (tile set 2) by cell;
//! and a list of what cannot be shown and why. Plain data for the viewer, renderer and export.

use std::path::{Path, PathBuf};

use glam::Mat4;
use serde::Serialize;

use super::catalogue::{Catalogue, CatalogueEntry, THEMES, find_install, theme_of};
use super::placement::{Pose, pose_of, top_left, world_from_item};
use super::world::{CELL_COUNT, MAP_SIZE, unpack_cell};
use super::{Save, read_save_with};
use crate::formats::OpenError;

/// Tile sets of the map cells.
pub const TILE_GROUND: u32 = 0;
pub const TILE_PATH: u32 = 1;
pub const TILE_QUEUE: u32 = 2;
/// The queue pieces of `queue.wad` by tile index.
pub const QUEUE_PIECES: [&str; 8] =
    ["quedead", "quedead", "questra", "quebnd2", "quebnd1", "queend", "quebin1", "quebin2"];
/// The ground's height under every item until the ground is read (the engine's rule is open).
pub const GROUND_HEIGHT: f32 = 0.0;

/// One placed object (a model-3 thing) as a park view draws it.
#[derive(Debug, Clone, Serialize)]
pub struct PlacedItem {
    /// The thing's id.
    pub thing: u32,
    pub item: u32,
    /// The anchor cell; `None` for the unplaced sentinel (fixed items, things not on the map).
    pub cell: Option<[u8; 2]>,
    pub angle: u32,
    /// `mTopLeft` as saved.
    pub top_left: Option<[u8; 2]>,
    /// Column-major world matrix (glam's `to_cols_array`).
    pub world_from_item: [f32; 16],
    /// Whether the matrix replaces the model root's own translation (placed items), or the
    /// model is drawn as authored at the origin (fixed items, identity).
    pub replaces_root_translation: bool,
    /// The ride-system slot of its model (`MeshInstanceID − 1`).
    pub slot: Option<u32>,
    pub entry: Option<CatalogueEntry>,
    pub pose: Pose,
    /// Footprint cells across and down, as the catalogue gives it.
    pub footprint: Option<[u32; 2]>,
}

impl PlacedItem {
    pub fn world_matrix(&self) -> Mat4 {
        Mat4::from_cols_array(&self.world_from_item)
    }

    /// The item's display name: the WAD's stem.
    pub fn name(&self) -> Option<&str> {
        self.entry.as_ref().map(|e| e.stem.as_str())
    }
}

/// A path cell (tile set 1): the tile index is a row of the theme's `.tct` PathTex table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PathCell {
    pub cell: [u8; 2],
    pub index: u32,
    pub angle: u32,
    pub neighbours: u8,
    pub flags: u16,
}

/// A queue cell (tile set 2): the piece of `queue.wad`, drawn turned by 360 − angle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueueCell {
    pub cell: [u8; 2],
    pub index: u32,
    pub angle: u32,
    /// The piece's model name, `None` for an index past 7.
    pub piece: Option<&'static str>,
    /// The queue piece's ride-system slot (`mMeshInstance − 1`).
    pub slot: Option<u32>,
}

/// Something in the save a park view cannot show, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unshown {
    pub thing: Option<u32>,
    pub item: u32,
    pub cell: Option<[u8; 2]>,
    pub reason: String,
}

/// A whole park.
#[derive(Debug, Clone)]
pub struct Park {
    pub path: Option<PathBuf>,
    /// The folder holding `data/levels/` whose catalogue named the items.
    pub install: Option<PathBuf>,
    /// The theme folder (`jungle`), from the save's folder or its items' ids.
    pub theme: Option<String>,
    pub save: Save,
    pub items: Vec<PlacedItem>,
    pub paths: Vec<PathCell>,
    pub queues: Vec<QueueCell>,
    pub unshown: Vec<Unshown>,
    /// Present ride-system slots no placed object or queue cell names (the 173xx records).
    pub unnamed_slots: usize,
    pub warnings: Vec<String>,
}

/// Opens the save at `path` with the catalogue of `install`, or of the install found above the
/// save (the folder holding `data/levels/`); with none, items are listed by id alone.
pub fn open_park(path: &Path, install: Option<&Path>) -> Result<Park, OpenError> {
    let shown = path.display().to_string();
    let bytes = crate::formats::vfs::read(path).map_err(|source| OpenError::Io { path: shown.clone(), source })?;
    let root = install.map(Path::to_path_buf).or_else(|| find_install(path));
    let catalogue = match &root {
        Some(root) => Catalogue::scan(root),
        None => Catalogue::default(),
    };
    let save = read_save_with(&bytes, &|id| catalogue.channel_count(id))
        .map_err(|source| OpenError::Decode { path: shown, source })?;
    let mut park = Park::assemble(save, &catalogue, theme_from_path(path).as_deref());
    park.path = Some(path.to_path_buf());
    park.install = root.clone();
    if root.is_none() {
        park.warnings.insert(
            0,
            "no install found (no data/levels/ above the save; give --install): items are named by id alone".into(),
        );
    }
    park.warnings.extend(catalogue.warnings.iter().map(|w| format!("catalogue: {w}")));
    Ok(park)
}

/// The theme folder a save sits in (`data/levels/<theme>/`), when it does.
fn theme_from_path(path: &Path) -> Option<String> {
    let parent = path.parent()?.file_name()?.to_string_lossy().to_lowercase();
    THEMES.iter().any(|(_, t)| *t == parent).then_some(parent)
}

impl Park {
    /// Puts a park together from a read save and a catalogue. `theme` is the save's theme
    /// folder when known; otherwise the most common theme of its placed items' ids.
    pub fn assemble(save: Save, catalogue: &Catalogue, theme: Option<&str>) -> Park {
        let theme = theme.map(str::to_string).or_else(|| majority_theme(&save));
        let mut park = Park {
            path: None,
            install: catalogue.root.clone(),
            theme,
            items: Vec::new(),
            paths: Vec::new(),
            queues: Vec::new(),
            unshown: Vec::new(),
            unnamed_slots: 0,
            warnings: save.warnings.clone(),
            save,
        };
        park.place_objects(catalogue);
        park.read_cells();
        park.count_unnamed_slots();
        park
    }

    fn place_objects(&mut self, catalogue: &Catalogue) {
        let system = &self.save.ride_system;
        let walked_all = system.stopped.is_none();
        for thing in &self.save.world.things {
            let Some(object) = &thing.object else { continue };
            let item = u32::from(object.item);
            let cell = thing.cell();
            let entry = catalogue.entry(item, self.theme.as_deref()).cloned();
            let slot_index = object.mesh_instance.checked_sub(1);
            let slot = system.slot_of_instance(object.mesh_instance);
            let mut pose = pose_of(slot);
            match (slot, slot_index) {
                (Some(slot), _) if slot.item != item => self.warnings.push(format!(
                    "thing {}: ride-system slot {} holds item {}, not {item}",
                    thing.id, slot.index, slot.item
                )),
                (None, Some(index)) if walked_all => self.warnings.push(format!(
                    "thing {} (item {item}) names ride-system slot {index}, which is empty or missing",
                    thing.id
                )),
                (None, Some(index)) => {
                    pose.warnings.push(format!("the ride system's walk stopped before slot {index}: shown as built"))
                }
                _ => {}
            }
            let unshown = |reason: String| Unshown { thing: Some(thing.id), item, cell, reason };
            let fixed = entry.as_ref().is_some_and(|e| e.dont_apply_offset);
            match &entry {
                None => self.unshown.push(unshown(format!("no item WAD in the install has Info.Id {item}"))),
                Some(e) if e.model.is_none() => {
                    self.unshown.push(unshown(format!("{} holds no {}.md2", e.wad.display(), e.stem)))
                }
                Some(e) if e.coaster => self.unshown.push(unshown(
                    "roller coaster: its track (SAOC) is not in the public record; the station is shown alone".into(),
                )),
                Some(e) if e.bumper_type != 0 => self.unshown.push(unshown(format!(
                    "track ride (Bumper.BumperType {}): its track (KART) has no heights or turns in the public record",
                    e.bumper_type
                ))),
                _ => {}
            }
            if cell.is_none() && !fixed {
                self.unshown.push(unshown("not placed on the map (mX and mY hold 128)".into()));
            }
            if let (Some(e), Some(anchor)) = (&entry, cell)
                && !fixed
                && let Some(expected) = top_left(anchor, e.map_offset, object.angle)
                && unpack_top_left(object.top_left) != Some(expected)
            {
                self.warnings.push(format!(
                    "thing {}: mTopLeft {:?} is not the anchor {anchor:?} moved by Info.MapOffset {:?} at {}°",
                    thing.id,
                    unpack_top_left(object.top_left),
                    e.map_offset,
                    object.angle
                ));
            }
            let (matrix, replaces) = match (fixed, cell) {
                (false, Some(anchor)) => (world_from_item(anchor, object.angle, GROUND_HEIGHT), true),
                _ => (Mat4::IDENTITY, false),
            };
            self.items.push(PlacedItem {
                thing: thing.id,
                item,
                cell,
                angle: object.angle,
                top_left: unpack_top_left(object.top_left),
                world_from_item: matrix.to_cols_array(),
                replaces_root_translation: replaces,
                slot: slot.map(|s| s.index),
                footprint: entry.as_ref().and_then(|e| e.footprint),
                entry,
                pose,
            });
        }
    }

    fn read_cells(&mut self) {
        for (index, cell) in self.save.world.cells.iter().enumerate().take(CELL_COUNT) {
            let Some(map) = &cell.map else { continue };
            let at = [(index % MAP_SIZE) as u8, (index / MAP_SIZE) as u8];
            let tile = map.base.tile;
            match tile.set {
                TILE_PATH => self.paths.push(PathCell {
                    cell: at,
                    index: tile.index,
                    angle: tile.angle,
                    neighbours: map.base.neighbours,
                    flags: map.base.flags,
                }),
                TILE_QUEUE => self.queues.push(QueueCell {
                    cell: at,
                    index: tile.index,
                    angle: tile.angle,
                    piece: QUEUE_PIECES.get(tile.index as usize).copied(),
                    slot: map.base.mesh_instance.checked_sub(1),
                }),
                _ => {}
            }
        }
    }

    fn count_unnamed_slots(&mut self) {
        let named: std::collections::BTreeSet<u32> =
            self.items.iter().filter_map(|i| i.slot).chain(self.queues.iter().filter_map(|q| q.slot)).collect();
        self.unnamed_slots = self.save.ride_system.slots.iter().filter(|s| !named.contains(&s.index)).count();
    }

    pub fn is_open(&self) -> bool {
        self.save.world.header.park_closed == 0
    }
}

/// `mTopLeft` unpacked. saves.md calls it "a packed cell" without saying whether it carries the
/// `+ 1` of `mEntryPos`; the notes say every packed cell id does, so it is read one-based (a
/// wrong choice shows as a warning on every object, as the check against the anchor fails).
fn unpack_top_left(packed: u16) -> Option<[u8; 2]> {
    unpack_cell(packed).map(|(x, y)| [x, y])
}

fn majority_theme(save: &Save) -> Option<String> {
    let mut counts = [0usize; 4];
    for thing in &save.world.things {
        if let Some(object) = &thing.object
            && let Some(theme) = theme_of(u32::from(object.item))
            && let Some(i) = THEMES.iter().position(|(_, t)| *t == theme)
            && let Some(count) = counts.get_mut(i)
        {
            *count += 1;
        }
    }
    let (best, count) = counts.iter().enumerate().max_by_key(|(_, c)| **c)?;
    (*count > 0).then(|| THEMES.get(best).map(|(_, t)| t.to_string())).flatten()
}
