//! The world module (`WRLD`, closed by the tag `DLRW`): the 26-field header, the object
//! controls, the staff pool, the clock and arrival fields, the 128 × 128 map walked cell by
//! cell by each cell's status bits, and the thing list walked by `Next` with each record sized
//! by its model (saves.md, "The world block").

use serde::Serialize;

use super::cursor::Cursor;
use crate::formats::error::DecodeResult;

pub const MAP_SIZE: usize = 128;
pub const CELL_COUNT: usize = MAP_SIZE * MAP_SIZE;
pub const HEADER_LEN: u64 = 64;
pub const OBJECT_CONTROLS: u64 = 150;
pub const OBJECT_CONTROL_LEN: u64 = 32;
pub const STAFF_POOL: u64 = 32;
pub const STAFF_RECORD_LEN: u64 = 20;
pub const CLOCK_ARRIVAL_LEN: u64 = 76;
pub const STATUS_MAP: u8 = 0x1;
pub const STATUS_TRACK: u8 = 0x2;
pub const STATUS_EFFECTS: u8 = 0x4;
pub const MAP_RECORD_LEN: u64 = 52;
pub const TRACK_RECORD_LEN: u64 = 31;
pub const EFFECTS_RECORD_LEN: u64 = 10;
/// `mX`/`mY` of a thing with no place on the map: half a cell.
pub const NOT_PLACED: u16 = 128;
/// The thing model of everything a player buys and places.
pub const MODEL_PLACED_OBJECT: u32 = 3;
/// The fixed part of a model-3 record around its six rings: 228 before the first ring, the two
/// counts, the 65-byte tail, and each ring's 13-byte head (4 + 4 + 1 + 4).
const OBJECT_RINGS: usize = 6;
const RING_HEAD_LEN: u64 = 13;

/// The world header, 26 fields in the file's order (not memory's), with the game's names.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WorldHeader {
    pub version: u32,
    /// `mArrivalVehicle_Size1..3`: the bus, seaplane and ferry things, 0 until sent for.
    pub arrival_vehicles: [u16; 3],
    /// `mBankAccount`: a handle of the economy thing, not an amount.
    pub bank_account: u16,
    pub current_arrival_vehicle: u16,
    pub game_tick: u32,
    pub mechanic_hq: u16,
    pub park_analyser: u16,
    /// `mParkClosed`: 0 open, 1 closed.
    pub park_closed: u32,
    pub visitors_to_date: u32,
    pub park_gates: u16,
    pub traffic_lights: u16,
    pub random_seed: u32,
    pub research_lab: u16,
    pub staff_hq: u16,
    pub tag_system: u16,
    pub ui_msg_receiver: u16,
    pub weather: u16,
    pub world_state: u32,
    /// `mFirstHandyman`, `mFirstMechanic`, `mFirstEntertainer`, `mFirstGuard`, `mFirstResearcher`.
    pub first_staff: [u16; 5],
    pub first_object: u16,
}

/// A cell's tile: set (0 ground, 1 path, 2 queue), index in that set, angle in degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tile {
    pub set: u32,
    pub index: u32,
    pub angle: u32,
}

/// The 29-byte tile base the map and track sub-records share.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TileBase {
    pub direction: u8,
    /// `0x40` land outside the park, `0x20` not modifiable.
    pub flags: u16,
    /// Queue cells: the ride-system slot of their piece, plus one.
    pub mesh_instance: u32,
    /// Side bits: `0x01` −y, `0x04` +x, `0x10` +y, `0x40` −x.
    pub neighbours: u8,
    pub overlap_counter: u16,
    /// Footprint cells: the anchor's packed cell id (`y * 128 + x + 1`).
    pub parent: u16,
    pub tile: Tile,
    /// `mType`: 1 path, 3 queue, 4 footprint body, 9 entrance, 10 exit, 30 fixed approach.
    pub kind: u32,
    pub hoarding_neighbours: u8,
}

/// The 52-byte map sub-record: the tile base, the litter block and the cell's occupant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MapCell {
    pub base: TileBase,
    pub litter: u32,
    /// `mStatusFlags`: the attribute map's value for the cell.
    pub status_flags: u8,
    /// `mWho`: the first thing on the cell.
    pub who: u16,
}

/// One cell as stored: the status byte and the sub-records its bits name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cell {
    pub status: u8,
    pub map: Option<MapCell>,
    pub track: Option<(TileBase, u16)>,
    /// Happiness, illness, hunger, security, attraction.
    pub effects: Option<[i16; 5]>,
}

/// One thing of the list: its id (given by the previous record's `Next`, or the head), model,
/// position in 256ths of a cell, and a placed object's own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Thing {
    pub id: u32,
    pub model: u32,
    pub x: u16,
    pub y: u16,
    /// Where the record starts in the payload.
    pub offset: u32,
    pub object: Option<Box<PlacedObject>>,
}

impl Thing {
    /// The cell the thing stands on (the high bytes of `mX`, `mY`), `None` for the unplaced
    /// sentinel 128 in both.
    pub fn cell(&self) -> Option<[u8; 2]> {
        if self.x == NOT_PLACED && self.y == NOT_PLACED {
            return None;
        }
        Some([(self.x >> 8) as u8, (self.y >> 8) as u8])
    }
}

/// A model-3 record's fields a park view needs (saves.md, "A catalogue object").
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlacedObject {
    pub angle: u32,
    /// The item's `Info.Id`.
    pub item: u16,
    /// The ride-system slot of its model, plus one.
    pub mesh_instance: u32,
    /// One bit per `.sam` key (0x1 toilet ... 0x100 runs continuously).
    pub flags: u16,
    pub ride_script: u32,
    pub track_ride: u32,
    pub state: u32,
    pub top_left: u16,
    pub entry_pos: u16,
    pub next: u16,
    pub exit_pos: u16,
    /// The six rings' `mNumEntries` (30 in every known file).
    pub ring_entries: [u32; 6],
    pub upgrade_level: u8,
}

/// The world module as read.
#[derive(Debug, Clone)]
pub struct World {
    pub header: WorldHeader,
    pub num_object_controls: u32,
    /// Exactly [`CELL_COUNT`] cells, indexed `y * 128 + x`.
    pub cells: Vec<Cell>,
    pub used_thing_head: u32,
    /// In chain order.
    pub things: Vec<Thing>,
}

/// The record size of a thing model other than 3, or `None` for a model the walk cannot size.
pub fn fixed_thing_size(model: u32) -> Option<u64> {
    Some(match model {
        1 => 533,
        4 => 511,
        5 => 513,
        6 => 509,
        7 => 511,
        8 => 509,
        9 => 103,
        10 => 18,
        11 => 5846,
        12 => 16,
        13 => 73544,
        14 => 4190,
        15 => 99,
        16 => 300,
        17 => 16,
        19 => 937,
        _ => return None,
    })
}

/// Reads the world module from `c`, leaving it just after the `DLRW` tag.
pub fn read_world(c: &mut Cursor) -> DecodeResult<World> {
    let header = read_header(c)?;
    c.skip_table(OBJECT_CONTROLS, OBJECT_CONTROL_LEN, "WRLD mObjectControls")?;
    let num_object_controls = c.u32("WRLD mNumObjectControls")?;
    c.u16("WRLD mPreviousSearchKey")?;
    c.skip_table(STAFF_POOL, STAFF_RECORD_LEN, "WRLD staff pool")?;
    c.skip(CLOCK_ARRIVAL_LEN, "WRLD clock and arrival fields")?;
    let cells = read_cells(c)?;
    let used_thing_head = c.u32("WRLD Used Thing Head")?;
    let things = read_things(c, used_thing_head)?;
    c.tag(b"DLRW", "WRLD")?;
    Ok(World { header, num_object_controls, cells, used_thing_head, things })
}

fn read_header(c: &mut Cursor) -> DecodeResult<WorldHeader> {
    let f = |name: &str| format!("WRLD header {name}");
    Ok(WorldHeader {
        version: c.u32(&f("version"))?,
        arrival_vehicles: [
            c.u16(&f("mArrivalVehicle_Size1"))?,
            c.u16(&f("mArrivalVehicle_Size2"))?,
            c.u16(&f("mArrivalVehicle_Size3"))?,
        ],
        bank_account: c.u16(&f("mBankAccount"))?,
        current_arrival_vehicle: c.u16(&f("mCurrentArrivalVehicle"))?,
        game_tick: c.u32(&f("mGameTick"))?,
        mechanic_hq: c.u16(&f("mMechanicHQ"))?,
        park_analyser: c.u16(&f("mParkAnalyser"))?,
        park_closed: c.u32(&f("mParkClosed"))?,
        visitors_to_date: c.u32(&f("mNumberOfVisitorsToDate"))?,
        park_gates: c.u16(&f("mParkGates"))?,
        traffic_lights: c.u16(&f("mTrafficLights"))?,
        random_seed: c.u32(&f("mRandomSeed"))?,
        research_lab: c.u16(&f("mResearchLab"))?,
        staff_hq: c.u16(&f("mStaffHQ"))?,
        tag_system: c.u16(&f("mTagSystem"))?,
        ui_msg_receiver: c.u16(&f("mUIMsgReceiver"))?,
        weather: c.u16(&f("mWeather"))?,
        world_state: c.u32(&f("mWorldState"))?,
        first_staff: [
            c.u16(&f("mFirstHandyman"))?,
            c.u16(&f("mFirstMechanic"))?,
            c.u16(&f("mFirstEntertainer"))?,
            c.u16(&f("mFirstGuard"))?,
            c.u16(&f("mFirstResearcher"))?,
        ],
        first_object: c.u16(&f("mFirstObject"))?,
    })
}

/// Walks the 16,384 cells by their status bits; each must end on the next cell's status byte,
/// which holds no bit but the three sub-record bits. Field names are static and the cell is
/// named only when a read fails, so the walk allocates nothing per field.
fn read_cells(c: &mut Cursor) -> DecodeResult<Vec<Cell>> {
    // The least the map can take is one status byte a cell; checked before the allocation.
    c.r.bytes(c.pos, CELL_COUNT as u64, "WRLD map")?;
    let mut cells = Vec::with_capacity(CELL_COUNT);
    for index in 0..CELL_COUNT {
        let cell = read_cell(c, index)
            .map_err(|e| e.within(&format!("WRLD cell[{index}] ({}, {})", index % MAP_SIZE, index / MAP_SIZE)))?;
        cells.push(cell);
    }
    Ok(cells)
}

fn read_cell(c: &mut Cursor, index: usize) -> DecodeResult<Cell> {
    let at = c.pos;
    let status = c.u8("status")?;
    if status & !(STATUS_MAP | STATUS_TRACK | STATUS_EFFECTS) != 0 {
        let why = if index == 0 {
            format!("status byte {status:#04x} has bits beyond 0x7")
        } else {
            format!(
                "status byte {status:#04x} has bits beyond 0x7: the cell before it did not end on this cell's status byte"
            )
        };
        return Err(c.r.invalid("status", at, why));
    }
    // Each sub-record is fetched as one checked slice and its fields taken from it.
    let map = if status & STATUS_MAP != 0 {
        let b = c.skip(MAP_RECORD_LEN, "map sub-record")?;
        Some(MapCell { base: tile_base(b), litter: le32(b, 29), status_flags: le8(b, 45), who: le16(b, 50) })
    } else {
        None
    };
    let track = if status & STATUS_TRACK != 0 {
        let b = c.skip(TRACK_RECORD_LEN, "track sub-record")?;
        Some((tile_base(b), le16(b, 29)))
    } else {
        None
    };
    let effects = if status & STATUS_EFFECTS != 0 {
        let b = c.skip(EFFECTS_RECORD_LEN, "effects sub-record")?;
        Some([0, 2, 4, 6, 8].map(|at| le16(b, at) as i16))
    } else {
        None
    };
    Ok(Cell { status, map, track, effects })
}

/// Little-endian fields of a slice already checked to hold them (a field past its end reads
/// 0, which the callers' fixed record sizes never reach).
fn le8(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

fn le16(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2).and_then(|s| s.try_into().ok()).map_or(0, u16::from_le_bytes)
}

fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).and_then(|s| s.try_into().ok()).map_or(0, u32::from_le_bytes)
}

/// The 29-byte tile base at the start of a map or track sub-record.
fn tile_base(b: &[u8]) -> TileBase {
    TileBase {
        direction: le8(b, 0),
        flags: le16(b, 1),
        mesh_instance: le32(b, 3),
        neighbours: le8(b, 7),
        overlap_counter: le16(b, 8),
        parent: le16(b, 10),
        tile: Tile { set: le32(b, 12), index: le32(b, 16), angle: le32(b, 20) },
        kind: le32(b, 24),
        hoarding_neighbours: le8(b, 28),
    }
}

/// Walks the thing list from the head, each record sized by its model, until a `Next` of 0.
/// Every record takes at least 16 bytes, so the walk ends within the payload.
fn read_things(c: &mut Cursor, head: u32) -> DecodeResult<Vec<Thing>> {
    let mut things = Vec::new();
    let mut id = head;
    while id != 0 {
        let start = c.pos;
        let field = |what: &str| format!("WRLD thing[{}] (id {id}) {what}", things.len());
        let next = c.r.u32(start, &field("Next"))?;
        let model = c.r.u32(start + 4, &field("thingmodel"))?;
        let x = c.r.u16(start + 8, &field("mX"))?;
        let y = c.r.u16(start + 10, &field("mY"))?;
        let (size, object) = if model == MODEL_PLACED_OBJECT {
            let (size, object) = read_placed_object(c, start, &field(""))?;
            (size, Some(Box::new(object)))
        } else {
            let size = fixed_thing_size(model).ok_or_else(|| {
                c.r.invalid(
                    field("thingmodel"),
                    start + 4,
                    format!(
                        "unknown thing model {model}: its record size is not known, so the list cannot be walked on"
                    ),
                )
            })?;
            (size, None)
        };
        c.r.bytes(start, size, &field(&format!("record of model {model} ({size} bytes)")))?;
        c.pos = start + size;
        let offset = u32::try_from(start).unwrap_or(u32::MAX);
        things.push(Thing { id, model, x, y, offset, object });
        id = next;
    }
    Ok(things)
}

/// A model-3 record: its fields and its size, which follows the six rings' counts.
fn read_placed_object(c: &Cursor, start: u64, field: &str) -> DecodeResult<(u64, PlacedObject)> {
    let r = &c.r;
    let f = |name: &str| format!("{field}{name}");
    let mut object = PlacedObject {
        angle: r.u32(start + 16, &f("mAngle"))?,
        item: r.u16(start + 20, &f("mId"))?,
        mesh_instance: r.u32(start + 54, &f("MeshInstanceID"))?,
        flags: r.u16(start + 58, &f("mFlags"))?,
        ride_script: r.u32(start + 192, &f("mRideScriptHandle"))?,
        track_ride: r.u32(start + 196, &f("mTrackRideHandle"))?,
        state: r.u32(start + 200, &f("mState"))?,
        top_left: r.u16(start + 204, &f("mTopLeft"))?,
        entry_pos: r.u16(start + 206, &f("mEntryPos"))?,
        next: r.u16(start + 208, &f("mNext"))?,
        exit_pos: r.u16(start + 218, &f("mExitPos"))?,
        ..PlacedObject::default()
    };
    // Rings at 228: two, a count, a ring, a count, three rings.
    let mut at = start + 228;
    for (ring, entries) in object.ring_entries.iter_mut().enumerate() {
        if ring == 2 || ring == 3 {
            r.u32(at, &f(if ring == 2 { "mNumCustomers" } else { "mNumWalkAways" }))?;
            at += 4;
        }
        let count = r.u32(at + 4, &f(&format!("ring[{ring}] mNumEntries")))?;
        let table = r.table(at + RING_HEAD_LEN, u64::from(count), 4, &f(&format!("ring[{ring}] mData")))?;
        *entries = count;
        at = table.end();
    }
    debug_assert_eq!(OBJECT_RINGS, object.ring_entries.len());
    // mOperatingCapacity ... mUpgradeBalloonSprite, then mUpgradeLevel as the last byte.
    let upgrade_at = at + 64;
    object.upgrade_level = r.u8(upgrade_at, &f("mUpgradeLevel"))?;
    Ok((upgrade_at + 1 - start, object))
}

/// The packed cell id `y * 128 + x + 1` unpacked, `None` for 0 or past the map.
pub fn unpack_cell(packed: u16) -> Option<(u8, u8)> {
    let index = usize::from(packed.checked_sub(1)?);
    (index < CELL_COUNT).then_some(((index % MAP_SIZE) as u8, (index / MAP_SIZE) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_entry_rings_make_the_measured_record() {
        // 228 + 6 heads of 13 + two counts + 65-byte tail + 720 bytes of entries = 1,099.
        assert_eq!(228 + 6 * RING_HEAD_LEN + 8 + 65 + 6 * 30 * 4, 1099);
    }

    #[test]
    fn packed_cells_unpack_one_based() {
        assert_eq!(unpack_cell(0), None);
        assert_eq!(unpack_cell(1), Some((0, 0)));
        assert_eq!(unpack_cell(15 * 128 + 58 + 1), Some((58, 15)));
        assert_eq!(unpack_cell(16385), None);
    }
}
