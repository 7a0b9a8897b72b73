//! The demo park: a synthetic jungle install (the category `.sam` files and one WAD per item of
//! [`super::items`], each with its `<stem>.sam`, model, clips and `.wct` textures) and a save
//! placing fourteen items at every quarter turn, with a path, a queue, an item held on its
//! clip's last frame, looping ones, one whose WAD is missing and one with a hidden node. The
//! park writers ([`crate::writers::park`]) write it; `cargo run` opens the save.

use std::collections::BTreeMap;

use super::items::{Item, KIOSK_SIGN_NODE, items};
use super::textures::{PARK_TEXTURES, TEXTURES};
use crate::formats::park::Clock;
use crate::formats::park::catalogue::ITEM_FOLDERS;
use crate::formats::park::world::{MAP_SIZE, Tile, TileBase, WorldHeader};
use crate::writers::park::{
    ItemSpec, SaveSpec, default_cell, idle_channel, item_wad, object_slot, object_thing, playing, queue_slot,
};
use crate::writers::park_ground::{queue_wad, terrain_wad};

/// The save, at the top of the demo folder, which is also its install: the viewer lists the
/// loose models, `park.wad` and every item's WAD beside it.
pub const PARK_SAVE: &str = "demo.TPWS";
/// Where the install's theme lives under the demo folder.
const THEME_DIR: &str = "data/levels/jungle";
/// The id of an item no WAD in the install has: shown as a labelled box.
pub(super) const MISSING_ITEM: u16 = 1250;

/// The category files: one channel an item, as most of the game's items have.
const CATEGORIES: [(&str, &str); 4] = [
    ("rides", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\nBumper.BumperType 0\n"),
    ("shops", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\n"),
    ("sideshow", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\n"),
    ("features", "Info.NumSimultAnims 1\nInfo.IsChoosable 0 People CANNOT choose most features\n"),
];

/// Every file of the demo park, by path under the demo folder: the category files and item
/// WADs of the install, its ground (`terrain.wad`, `queue.wad`), then the save.
pub fn generate_park() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let items = items();
    for (folder, text) in CATEGORIES {
        let name = ITEM_FOLDERS.iter().find(|(f, _, _)| *f == folder).map_or("Category.sam", |(_, n, _)| n);
        out.push((format!("{THEME_DIR}/{folder}/{name}"), text.as_bytes().to_vec()));
        for item in items.iter().filter(|i| i.folder == folder) {
            out.push((format!("{THEME_DIR}/{folder}/{}.wad", item.stem), item_wad(&item_spec(item))));
        }
    }
    let ground = super::ground::ground();
    out.push((format!("{THEME_DIR}/terrain.wad"), terrain_wad(&ground)));
    out.push((format!("{THEME_DIR}/queue.wad"), queue_wad(&ground)));
    out.push((PARK_SAVE.to_string(), crate::writers::park::write_save(&save())));
    out
}

/// An item's `.sam`: its id and name, and its footprint as a shape.
fn sam(item: &Item) -> String {
    let [across, down] = item.shape;
    let rows: Vec<String> = (0..down).map(|_| "*".repeat(across as usize)).collect();
    format!("Info.Id {} {}\nInfo.Shape\n---\n{}\n---\n", item.id, item.title, rows.join("\n"))
}

/// The WAD's members: the `.sam`, `<stem>.md2`, `<stem><role>.md2` per clip, `textures/*.wct`.
fn item_spec(item: &Item) -> ItemSpec {
    let mut extra = vec![(format!("{}.md2", item.stem), item.model.to_bytes())];
    for (role, clip) in &item.clips {
        extra.push((format!("{}{role}.md2", item.stem), clip.to_bytes()));
    }
    for name in item.textures() {
        let painted = TEXTURES.iter().chain(PARK_TEXTURES.iter()).find(|t| t.name == name).map(|t| (t.paint)());
        if let Some(wct) = painted.as_deref().and_then(super::wct_of_png) {
            extra.push((format!("textures/{name}.wct"), wct));
        }
    }
    ItemSpec {
        theme: "jungle".into(),
        folder: item.folder.into(),
        stem: item.stem.into(),
        sam: sam(item),
        model: None,
        extra,
    }
}

/// How a placed item plays.
#[derive(Clone, Copy)]
enum Plays {
    /// Nothing: it stands as built (its `C` clip's last frame).
    Idle,
    /// Role and clip index, looping (flag 0x1), this far in.
    Loop(u32, u32, u32),
    /// Role and clip index, held on its last frame (flag 0x4).
    Held(u32, u32),
}

const ROLE_I: u32 = 2;
const ROLE_M: u32 = 5;

/// The placed items: id, anchor cell, angle, what it plays, and whether its sign is hidden.
const PLACED: [(u16, [u8; 2], u32, Plays, bool); 14] = [
    (1401, [14, 4], 0, Plays::Held(ROLE_M, 0), false),
    (1101, [17, 6], 0, Plays::Loop(ROLE_M, 0, 1000), false),
    (1101, [11, 22], 180, Plays::Idle, false),
    (1201, [15, 10], 90, Plays::Idle, false),
    (1201, [13, 17], 270, Plays::Idle, true),
    (1301, [12, 8], 90, Plays::Loop(ROLE_I, 0, 400), false),
    (1301, [16, 16], 0, Plays::Idle, false),
    (1402, [21, 17], 0, Plays::Loop(ROLE_M, 0, 0), false),
    (1403, [8, 11], 270, Plays::Loop(ROLE_M, 0, 1500), false),
    (1404, [10, 5], 0, Plays::Loop(ROLE_I, 0, 700), false),
    (1404, [18, 11], 90, Plays::Idle, false),
    (1404, [22, 21], 180, Plays::Idle, false),
    (1404, [6, 17], 270, Plays::Loop(ROLE_I, 0, 1300), false),
    (MISSING_ITEM, [16, 20], 0, Plays::Idle, false),
];

/// The first placed object's thing id.
const FIRST_THING: u32 = 20;

/// The path: the avenue from the gate north along x = 14 and a cross street along y = 14.
fn path_cells() -> Vec<([u8; 2], Tile)> {
    let mut cells = Vec::new();
    for y in 5..=24u8 {
        let tile = if y == 14 { Tile { set: 1, index: 5, angle: 0 } } else { Tile { set: 1, index: 2, angle: 0 } };
        cells.push(([14, y], tile));
    }
    for x in (4..=24u8).filter(|&x| x != 14) {
        cells.push(([x, 14], Tile { set: 1, index: 2, angle: 90 }));
    }
    cells
}

/// The queue to the turning carousel: from the cross street north to the ride, its end piece
/// at the ride.
fn queue_cells() -> Vec<([u8; 2], Tile)> {
    (9..=13u8).map(|y| ([16, y], Tile { set: 2, index: if y == 9 { 5 } else { 2 }, angle: 0 })).collect()
}

/// The save: the placed items with their ride-system slots, the path and the queue.
pub(super) fn save() -> SaveSpec {
    let mut things = Vec::new();
    let mut slots = Vec::new();
    let items = items();
    for (n, &(id, cell, angle, plays, hidden_sign)) in PLACED.iter().enumerate() {
        let thing_id = FIRST_THING + n as u32;
        let item = items.iter().find(|i| i.id == u32::from(id));
        // The missing item has no WAD, so no channel count: it gets no slot (the ride system's
        // walk would stop at it).
        let instance = if item.is_some() { slots.len() as u32 + 1 } else { 0 };
        let mut thing = object_thing(thing_id, id, cell, angle, instance);
        if let Some(object) = thing.object.as_mut() {
            object.next = if n + 1 < PLACED.len() { thing_id as u16 + 1 } else { 0 };
        }
        things.push(thing);
        let Some(item) = item else { continue };
        let channel = match plays {
            Plays::Idle => idle_channel(),
            Plays::Loop(role, clip, ms) => playing(role, clip, ms, 0x1, 1.0),
            Plays::Held(role, clip) => playing(role, clip, 0, 0x4, 1.0),
        };
        let footprint = [item.shape[0], item.shape[1]];
        let mut slot = object_slot(u32::from(id), cell, footprint, angle, vec![channel]);
        if hidden_sign {
            slot.node_flags = vec![0; KIOSK_SIGN_NODE + 1];
            slot.node_flags[KIOSK_SIGN_NODE] = crate::formats::park::ride_system::NODE_HIDDEN;
        }
        slots.push(Some(slot));
    }
    let mut cells = BTreeMap::new();
    let mut put = |[x, y]: [u8; 2], edit: &dyn Fn(&mut TileBase)| {
        let mut cell = default_cell();
        if let Some(map) = cell.map.as_mut() {
            edit(&mut map.base);
        }
        cells.insert(usize::from(y) * MAP_SIZE + usize::from(x), cell);
    };
    for (at, tile) in path_cells() {
        put(at, &|b| {
            b.tile = tile;
            b.kind = 1;
        });
    }
    for (at, tile) in queue_cells() {
        slots.push(Some(queue_slot(at, tile)));
        let instance = slots.len() as u32;
        put(at, &|b| {
            b.tile = tile;
            b.kind = 3;
            b.mesh_instance = instance;
        });
    }
    let header = WorldHeader {
        version: 2,
        game_tick: 6000,
        park_closed: 0,
        bank_account: 25_000,
        first_object: FIRST_THING as u16,
        ..WorldHeader::default()
    };
    SaveSpec {
        header,
        cells,
        things,
        clock: Clock { game_ms: 200_000, stopwatch_ms: 200_000 },
        slots,
        ..SaveSpec::default()
    }
}
