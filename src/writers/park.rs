//! Writes Theme Park World parks for fixtures and the demo: a save (the container and the
//! module chain the reader reads, deflated through flate2, up to the ride system and a minimal
//! track-rides module after it) and a synthetic install (a theme's category `.sam` files and
//! item WADs, each with its `<stem>.sam`, a `<stem>.md2` floor plate and a construction clip).
//! The save spec reuses the reader's own record types, so a round trip compares like with like.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::formats::park::chain::Clock;
use crate::formats::park::container::{
    BILZ_OFFSET, BILZ_TAG, DEFLATE_PARAMS, LEGAL_TEXT_LEN, MAGIC, RESERVED_LEN, SAVED_VERSION, STREAM_OFFSET,
};
use crate::formats::park::ride_system::{Channel, IDLE_ROLE, MADE_PLACED, MADE_QUEUE, QUEUE_ITEM_BASE, RideSlot};
use crate::formats::park::world::{
    CELL_COUNT, Cell, MAP_SIZE, MapCell, PlacedObject, STATUS_MAP, STATUS_TRACK, Thing, Tile, TileBase, WorldHeader,
    fixed_thing_size,
};
use crate::writers::tpw::{AnimFile, MaterialSpec, MeshFile, MeshSpec};
use crate::writers::wad::{WadMember, write_wad};

/// The bare ground tile every unbuilt cell carries.
pub const BARE_GROUND: Tile = Tile { set: 0, index: 55, angle: 0 };

/// Everything a written save holds.
#[derive(Debug, Clone)]
pub struct SaveSpec {
    pub version: u32,
    pub recording: Vec<u8>,
    pub header: WorldHeader,
    /// Cells by index (`y * 128 + x`); every other cell is [`default_cell`].
    pub cells: BTreeMap<usize, Cell>,
    /// In chain order; the first is the list's head. A model-3 thing needs its `object`.
    pub things: Vec<Thing>,
    pub clock: Clock,
    /// The ride system's slots in order, `None` empty. A slot's `index` is not written (its
    /// place is its index); each present slot's channel count is `channels.len()`.
    pub slots: Vec<Option<RideSlot>>,
    /// The cell written where `cells` has none ([`default_cell`], as the game writes them;
    /// an empty status-0 cell makes a small payload for fuzz seeds).
    pub bare_cell: Cell,
}

impl Default for SaveSpec {
    fn default() -> Self {
        Self {
            version: SAVED_VERSION,
            recording: vec![0; 12],
            header: WorldHeader { version: 2, park_closed: 1, ..WorldHeader::default() },
            cells: BTreeMap::new(),
            things: Vec::new(),
            clock: Clock::default(),
            slots: Vec::new(),
            bare_cell: default_cell(),
        }
    }
}

/// A cell as the game writes a bare one: status 3, bare ground, no segment.
pub fn default_cell() -> Cell {
    let base = TileBase { tile: BARE_GROUND, ..TileBase::default() };
    Cell {
        status: STATUS_MAP | STATUS_TRACK,
        map: Some(MapCell { base, ..MapCell::default() }),
        track: Some((TileBase::default(), 0xFFFF)),
        effects: None,
    }
}

/// A little-endian field writer at fixed offsets of a record.
struct Record(Vec<u8>);

impl Record {
    fn new(len: usize) -> Self {
        Self(vec![0; len])
    }

    fn put(&mut self, at: usize, bytes: &[u8]) {
        if self.0.len() < at + bytes.len() {
            self.0.resize(at + bytes.len(), 0);
        }
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn u8(&mut self, at: usize, v: u8) {
        self.put(at, &[v]);
    }

    fn u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes());
    }

    fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes());
    }
}

/// The whole file: the container around the deflated payload.
pub fn write_save(spec: &SaveSpec) -> Vec<u8> {
    write_container(spec.version, &payload(spec))
}

/// The container around `payload`, deflated at level 6 as the game does (window 15; flate2
/// picks its own memory level, which the game does not need matched).
pub fn write_container(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    encoder.write_all(payload).expect("deflating into memory cannot fail");
    let stream = encoder.finish().expect("deflating into memory cannot fail");
    let mut out = Vec::with_capacity(STREAM_OFFSET as usize + stream.len());
    out.extend_from_slice(&version.to_le_bytes());
    out.push(0);
    let legal: Vec<u8> = "mdview fixture".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut text = vec![0u8; LEGAL_TEXT_LEN];
    text[..legal.len()].copy_from_slice(&legal);
    out.extend_from_slice(&text);
    out.extend_from_slice(&[0; RESERVED_LEN]);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&0u32.to_le_bytes());
    debug_assert_eq!(out.len() as u64, BILZ_OFFSET);
    out.extend_from_slice(&BILZ_TAG);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    let block = (STREAM_OFFSET - BILZ_OFFSET) as usize + stream.len();
    out.extend_from_slice(&(block as u32).to_le_bytes());
    for value in DEFLATE_PARAMS {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&stream);
    out
}

/// The inflated payload: the action recording, then the modules to `SYSR` and `KART`.
pub fn payload(spec: &SaveSpec) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(spec.recording.len() as u32).to_le_bytes());
    out.extend_from_slice(&spec.recording);
    world(spec, &mut out);
    chain(spec, &mut out);
    ride_system(&spec.slots, &mut out);
    out.extend_from_slice(b"SYSR");
    // KART: the root chunk alone (type 1, own size 12, whole size 12), as a park without a track ride.
    out.extend_from_slice(&12u32.to_le_bytes());
    for v in [1u32, 12, 12] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(b"KART");
    out
}

fn world(spec: &SaveSpec, out: &mut Vec<u8>) {
    let h = &spec.header;
    let mut w = |bytes: &[u8]| out.extend_from_slice(bytes);
    w(&h.version.to_le_bytes());
    for v in h.arrival_vehicles {
        w(&v.to_le_bytes());
    }
    w(&h.bank_account.to_le_bytes());
    w(&h.current_arrival_vehicle.to_le_bytes());
    w(&h.game_tick.to_le_bytes());
    w(&h.mechanic_hq.to_le_bytes());
    w(&h.park_analyser.to_le_bytes());
    w(&h.park_closed.to_le_bytes());
    w(&h.visitors_to_date.to_le_bytes());
    w(&h.park_gates.to_le_bytes());
    w(&h.traffic_lights.to_le_bytes());
    w(&h.random_seed.to_le_bytes());
    for v in [h.research_lab, h.staff_hq, h.tag_system, h.ui_msg_receiver, h.weather] {
        w(&v.to_le_bytes());
    }
    w(&h.world_state.to_le_bytes());
    for v in h.first_staff {
        w(&v.to_le_bytes());
    }
    w(&h.first_object.to_le_bytes());
    // Object controls (150 × 32), their count and search key, the staff pool, clock and arrival.
    let objects = spec.things.iter().filter(|t| t.object.is_some()).count() as u32;
    w(&[0; 150 * 32]);
    w(&objects.to_le_bytes());
    w(&0u16.to_le_bytes());
    w(&[0; 32 * 20]);
    w(&[0; 76]);
    for index in 0..CELL_COUNT {
        let cell = spec.cells.get(&index).copied().unwrap_or(spec.bare_cell);
        write_cell(&cell, out);
    }
    out.extend_from_slice(&spec.things.first().map_or(0, |t| t.id).to_le_bytes());
    for (i, thing) in spec.things.iter().enumerate() {
        let next = spec.things.get(i + 1).map_or(0, |t| t.id);
        out.extend_from_slice(&thing_record(thing, next));
    }
    out.extend_from_slice(b"DLRW");
}

fn tile_base(base: &TileBase) -> Record {
    let mut r = Record::new(29);
    r.u8(0, base.direction);
    r.u16(1, base.flags);
    r.u32(3, base.mesh_instance);
    r.u8(7, base.neighbours);
    r.u16(8, base.overlap_counter);
    r.u16(10, base.parent);
    r.u32(12, base.tile.set);
    r.u32(16, base.tile.index);
    r.u32(20, base.tile.angle);
    r.u32(24, base.kind);
    r.u8(28, base.hoarding_neighbours);
    r
}

fn write_cell(cell: &Cell, out: &mut Vec<u8>) {
    out.push(cell.status);
    if let Some(map) = &cell.map {
        let mut r = tile_base(&map.base);
        r.0.resize(52, 0);
        r.u32(29, map.litter);
        r.u8(45, map.status_flags);
        r.u16(50, map.who);
        out.extend_from_slice(&r.0);
    }
    if let Some((base, segment)) = &cell.track {
        let mut r = tile_base(base);
        r.u16(29, *segment);
        out.extend_from_slice(&r.0);
    }
    if let Some(effects) = &cell.effects {
        for word in effects {
            out.extend_from_slice(&word.to_le_bytes());
        }
    }
}

/// One thing's record: the shared 16 bytes, then a placed object's fields and rings, or zeros
/// to its model's size (an unknown model gets the 16 bytes alone).
pub fn thing_record(thing: &Thing, next: u32) -> Vec<u8> {
    let mut r = Record::new(16);
    r.u32(0, next);
    r.u32(4, thing.model);
    r.u16(8, thing.x);
    r.u16(10, thing.y);
    match &thing.object {
        Some(o) => placed_object(&mut r, o),
        None => r.0.resize(fixed_thing_size(thing.model).unwrap_or(16) as usize, 0),
    }
    r.0
}

fn placed_object(r: &mut Record, o: &PlacedObject) {
    r.u32(16, o.angle);
    r.u16(20, o.item);
    r.u32(54, o.mesh_instance);
    r.u16(58, o.flags);
    r.u32(192, o.ride_script);
    r.u32(196, o.track_ride);
    r.u32(200, o.state);
    r.u16(204, o.top_left);
    r.u16(206, o.entry_pos);
    r.u16(208, o.next);
    r.u16(218, o.exit_pos);
    let mut at = 228;
    for (ring, &entries) in o.ring_entries.iter().enumerate() {
        if ring == 2 || ring == 3 {
            r.u32(at, 0);
            at += 4;
        }
        r.u32(at, 1);
        r.u32(at + 4, entries);
        r.u8(at + 8, 1);
        at += 13;
        for k in 0..entries {
            r.u32(at, k);
            at += 4;
        }
    }
    r.u8(at + 64, o.upgrade_level);
}

/// `TPCS` with one live sprite, particles with small images, an empty message centre, the
/// clock, vanilla time and the game system.
fn chain(spec: &SaveSpec, out: &mut Vec<u8>) {
    let mut w = |bytes: &[u8]| out.extend_from_slice(bytes);
    w(b"TPCS");
    w(&0x118u32.to_le_bytes());
    w(&3u32.to_le_bytes());
    for handle in [0u32, 0x0012_3400, 0] {
        w(&handle.to_le_bytes());
    }
    w(&[0; 0x118]);
    w(b"CSPS");
    w(b"LCTP");
    for v in [1u32, 8] {
        w(&v.to_le_bytes());
    }
    w(&[0; 8]);
    w(&4u32.to_le_bytes());
    w(&[0; 4]);
    w(&0u32.to_le_bytes());
    w(b"TRAP");
    w(&29u32.to_le_bytes());
    let objects: Vec<u16> = spec.things.iter().filter(|t| t.object.is_some()).map(|t| t.id as u16).collect();
    for set in 0..29u32 {
        let ids: &[u16] = if set == 0xb { &objects } else { &[] };
        w(&(ids.len() as u32).to_le_bytes());
        for id in ids {
            w(&id.to_le_bytes());
        }
    }
    w(b"SSEM");
    w(&spec.clock.game_ms.to_le_bytes());
    w(&spec.clock.stopwatch_ms.to_le_bytes());
    w(b"KOLC");
    w(&spec.clock.game_ms.to_le_bytes());
    w(b"TNAV");
    w(&[0; 36]);
    w(b"SYSG");
}

fn ride_system(slots: &[Option<RideSlot>], out: &mut Vec<u8>) {
    let mut body = Vec::new();
    let present = slots.iter().flatten().count() as u32;
    let empty = slots.len() as u32 - present;
    let cursor = slots.iter().position(Option::is_none).unwrap_or(slots.len()) as u32;
    for v in [present, empty, cursor] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    for slot in slots {
        match slot {
            None => body.push(0),
            Some(s) => body.extend_from_slice(&slot_record(s)),
        }
    }
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
}

/// A present slot's bytes, its tag first.
pub fn slot_record(s: &RideSlot) -> Vec<u8> {
    let mut r = Record::new(0x37);
    r.u8(0, 1);
    r.u32(0x01, s.item);
    r.u32(0x05, s.cell[0]);
    r.u32(0x09, s.cell[1]);
    r.u32(0x0D, s.footprint[0]);
    r.u32(0x11, s.footprint[1]);
    r.u32(0x15, s.make_flags);
    r.u32(0x19, s.script);
    r.u32(0x1D, s.hoarding_flags);
    r.put(0x23, &s.hoarding_progress.to_le_bytes());
    r.u32(0x27, s.angle);
    r.u16(0x2B, s.node_flags.len() as u16);
    r.u16(0x2D, s.lookup_count);
    r.u32(0x2F, s.shared_flags);
    r.u32(0x33, s.attached);
    let mut out = r.0;
    for _ in 0..s.lookup_count {
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(-1i32).to_le_bytes());
    }
    for word in &s.node_flags {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for c in &s.channels {
        for v in [c.flags, c.role, c.clip, c.start_ms, c.clip_time_ms, c.third_stamp_ms, c.speed.to_bits()] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [c.queued_role, c.queued_clip, c.queued_flags, c.queued_speed.to_bits()] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// An idle channel: role 12 now and queued.
pub fn idle_channel() -> Channel {
    Channel { role: IDLE_ROLE, queued_role: IDLE_ROLE, speed: 1.0, ..Channel::default() }
}

/// A queue piece's slot as the game makes one from its cell alone (saves.md, "A queue piece's record").
pub fn queue_slot(cell: [u8; 2], tile: Tile) -> RideSlot {
    RideSlot {
        index: 0,
        item: QUEUE_ITEM_BASE + tile.index,
        cell: [u32::from(cell[0]), u32::from(cell[1])],
        footprint: [1, 1],
        make_flags: MADE_QUEUE,
        script: 0,
        hoarding_flags: 0,
        hoarding_progress: 0.0,
        angle: (360 - tile.angle) % 360,
        lookup_count: 0,
        shared_flags: 0,
        attached: 0,
        node_flags: vec![0; if (5..=7).contains(&tile.index) { 4 } else { 2 }],
        channels: vec![Channel { role: IDLE_ROLE, queued_role: IDLE_ROLE, ..Channel::default() }],
    }
}

/// A placed object's slot: made `0x32F`, its cell and footprint, and the given channels.
pub fn object_slot(item: u32, cell: [u8; 2], footprint: [u32; 2], angle: u32, channels: Vec<Channel>) -> RideSlot {
    RideSlot {
        index: 0,
        item,
        cell: [u32::from(cell[0]), u32::from(cell[1])],
        footprint,
        make_flags: MADE_PLACED,
        script: 0,
        hoarding_flags: 0,
        hoarding_progress: 0.0,
        angle,
        lookup_count: 1,
        shared_flags: 0,
        attached: 0,
        node_flags: vec![0, 0],
        channels,
    }
}

/// A placed object's thing: anchored in the middle of `cell`, `mTopLeft` the anchor.
pub fn object_thing(id: u32, item: u16, cell: [u8; 2], angle: u32, mesh_instance: u32) -> Thing {
    let packed = u16::from(cell[1]) * MAP_SIZE as u16 + u16::from(cell[0]) + 1;
    Thing {
        id,
        model: 3,
        x: u16::from(cell[0]) << 8 | 0x80,
        y: u16::from(cell[1]) << 8 | 0x80,
        offset: 0,
        object: Some(Box::new(PlacedObject {
            angle,
            item,
            mesh_instance,
            top_left: packed,
            entry_pos: packed,
            exit_pos: packed,
            ring_entries: [30; 6],
            ..PlacedObject::default()
        })),
    }
}

/// A thing of another model at the unplaced sentinel.
pub fn plain_thing(id: u32, model: u32) -> Thing {
    Thing { id, model, x: 128, y: 128, offset: 0, object: None }
}

/// One item of a synthetic install.
#[derive(Debug, Clone)]
pub struct ItemSpec {
    pub theme: String,
    /// `rides`, `shops`, `sideshow`, `features` or `upgrades`.
    pub folder: String,
    pub stem: String,
    /// The item's own `.sam`.
    pub sam: String,
    /// Write `<stem>.md2` (a floor plate `across` × `down` cells from the origin) and `<stem>C1.md2`.
    pub model: Option<[u32; 2]>,
    /// Further members (`coaster.sam`, textures).
    pub extra: Vec<(String, Vec<u8>)>,
}

/// A synthetic install: category files by (theme, folder) and the items.
#[derive(Debug, Clone, Default)]
pub struct InstallSpec {
    pub categories: Vec<(String, String, String)>,
    pub items: Vec<ItemSpec>,
    /// Each theme's `terrain.wad` and `queue.wad` ([`crate::writers::park_ground`]).
    pub grounds: Vec<crate::writers::park_ground::GroundSpec>,
}

/// An item's floor plate: one quad over its footprint, authored from the model origin.
pub fn floor_plate(stem: &str, across: u32, down: u32) -> MeshFile {
    let (x, z) = (across as f32 * 10.0, down as f32 * 10.0);
    let mesh = MeshSpec {
        name: format!("{stem}_floor"),
        vertices: vec![[0.0, 0.0, 0.0], [x, 0.0, 0.0], [x, 0.0, z], [0.0, 0.0, z]],
        vertex_order: vec![0, 1, 2, 3],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        faces: vec![[0, 1, 2], [0, 2, 3]],
        materials: vec![MaterialSpec { texture: None, start: 0, end: 3 }],
        ..MeshSpec::default()
    };
    MeshFile { meshes: vec![mesh], ..MeshFile::default() }
}

/// An item's WAD: its `.sam`, its model and construction clip, and any extra members.
pub fn item_wad(item: &ItemSpec) -> Vec<u8> {
    let mut members = vec![WadMember::compressed(format!("{}.sam", item.stem), item.sam.as_bytes())];
    if let Some([across, down]) = item.model {
        members
            .push(WadMember::stored(format!("{}.md2", item.stem), &floor_plate(&item.stem, across, down).to_bytes()));
        let clip = AnimFile { last_frame: 15, ..AnimFile::default() };
        members.push(WadMember::stored(format!("{}C1.md2", item.stem), &clip.to_bytes()));
    }
    for (path, data) in &item.extra {
        members.push(WadMember::stored(path.clone(), data));
    }
    write_wad(&members)
}

/// Writes the install under `root`: `data/levels/<theme>/<folder>/` with the category files and
/// one WAD per item, and each theme's ground (`terrain.wad`, `queue.wad`).
pub fn write_install(root: &Path, spec: &InstallSpec) -> std::io::Result<()> {
    let levels = root.join("data").join("levels");
    for (theme, folder, text) in &spec.categories {
        let dir = levels.join(theme).join(folder);
        std::fs::create_dir_all(&dir)?;
        let name = crate::formats::park::catalogue::ITEM_FOLDERS
            .iter()
            .find(|(f, _, _)| f.eq_ignore_ascii_case(folder))
            .map_or("Category.sam", |(_, name, _)| name);
        std::fs::write(dir.join(name), text)?;
    }
    for item in &spec.items {
        let dir = levels.join(&item.theme).join(&item.folder);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{}.wad", item.stem)), item_wad(item))?;
    }
    for ground in &spec.grounds {
        crate::writers::park_ground::write_ground(root, ground)?;
    }
    Ok(())
}

/// The fixture theme's category files: one channel a category, choosable rides and sideshows.
const FIXTURE_CATEGORIES: [(&str, &str); 4] = [
    ("rides", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\nBumper.BumperType 0\n"),
    ("shops", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\n"),
    ("sideshow", "Info.NumSimultAnims 1\nInfo.IsChoosable 1\n"),
    ("features", "Info.NumSimultAnims 1\nInfo.IsChoosable 0 People CANNOT choose most features\n"),
];

fn shape(across: u32, down: u32) -> String {
    let row = "*".repeat(across as usize);
    let rows: Vec<String> = (0..down).map(|_| row.clone()).collect();
    format!("Info.Shape\n---\n{}\n---\n", rows.join("\n"))
}

/// A synthetic jungle: a ride, a three-lane sideshow, a staff room, a fountain, a rock with a
/// map offset, the bus (fixed), a track ride, a coaster and a shop whose WAD holds no model; and
/// its ground ([`crate::writers::park_ground::fixture_ground`]).
pub fn fixture_install() -> InstallSpec {
    let item = |folder: &str, stem: &str, sam: String, model: Option<[u32; 2]>| ItemSpec {
        theme: "jungle".into(),
        folder: folder.into(),
        stem: stem.into(),
        sam,
        model,
        extra: Vec::new(),
    };
    let mut coaster = item("rides", "coaster1", format!("Info.Id 1190\n{}", shape(3, 2)), Some([3, 2]));
    coaster.extra.push(("coaster.sam".into(), b"sCoasterType 1\n".to_vec()));
    InstallSpec {
        categories: FIXTURE_CATEGORIES.iter().map(|(f, t)| ("jungle".into(), f.to_string(), t.to_string())).collect(),
        items: vec![
            item("rides", "monkey", format!("Info.Id 1101 Crazy Ape\n{}", shape(4, 4)), Some([4, 4])),
            item("sideshow", "junspray", format!("Info.Id 1303\nInfo.NumSimultAnims 3\n{}", shape(3, 3)), Some([3, 3])),
            item("features", "staffrm", "Info.Id 1405\nInfo.Shape\n---\n**\n*2\n---\n".into(), Some([2, 2])),
            item("features", "fountain", format!("Info.Id 1402\n{}", shape(3, 3)), Some([3, 3])),
            item("features", "hollrock", format!("Info.Id 1427\nInfo.MapOffsetY 1\n{}", shape(2, 2)), Some([2, 2])),
            item("features", "bus", "Info.Id 1600\nInfo.DontApplyOffset 1\nInfo.WhichUIType 4\n".into(), Some([1, 1])),
            item("rides", "dinokart", format!("Info.Id 1181\nBumper.BumperType -4\n{}", shape(3, 3)), Some([3, 3])),
            coaster,
            item("shops", "nomodel", format!("Info.Id 1250\n{}", shape(1, 1)), None),
        ],
        grounds: vec![crate::writers::park_ground::fixture_ground("jungle")],
    }
}

/// The fixture install's catalogue built in memory, as a scan of the written install gives it.
pub fn fixture_catalogue() -> crate::formats::park::Catalogue {
    use crate::formats::park::catalogue::{ITEM_FOLDERS, entry_from_sam};
    use crate::formats::park::sam::Sam;
    let spec = fixture_install();
    let mut entries = Vec::new();
    for item in &spec.items {
        let Some((_, _, kind)) = ITEM_FOLDERS.iter().find(|(f, _, _)| *f == item.folder) else { continue };
        let category = spec.categories.iter().find(|(_, f, _)| *f == item.folder).map_or("", |(_, _, t)| t.as_str());
        let wad = Path::new("data/levels/jungle").join(&item.folder).join(format!("{}.wad", item.stem));
        if let Ok(mut entry) =
            entry_from_sam(&Sam::parse(&item.sam), &Sam::parse(category), "jungle", *kind, wad, &item.stem)
        {
            entry.model = item.model.map(|_| format!("{}.md2", item.stem));
            entry.coaster = item.extra.iter().any(|(p, _)| p == "coaster.sam");
            entries.push(entry);
        }
    }
    crate::formats::park::Catalogue::from_entries(entries)
}

/// A playing channel: role, clip, `time_ms` into it, with flags and speed.
pub fn playing(role: u32, clip: u32, time_ms: u32, flags: u32, speed: f32) -> Channel {
    Channel {
        flags,
        role,
        clip,
        start_ms: 100_000,
        clip_time_ms: 100_000 + time_ms,
        third_stamp_ms: 100_000 + time_ms,
        speed,
        queued_role: IDLE_ROLE,
        ..Channel::default()
    }
}

/// A park over [`fixture_install`]'s items: ten placed objects (one of an item no WAD names,
/// one not placed), three singleton things and a guest, two path cells, a queue cell with its
/// piece, an empty slot and a queue piece no cell names.
pub fn fixture_save() -> SaveSpec {
    let mut things = vec![plain_thing(1, 9), plain_thing(2, 10), plain_thing(3, 12)];
    let mut guest = plain_thing(4, 1);
    (guest.x, guest.y) = (47 << 8 | 0x40, 20 << 8 | 0x80);
    things.push(guest);
    let objects: [(u32, u16, [u8; 2], u32, u32); 10] = [
        (20, 1101, [40, 30], 0, 1),
        (21, 1303, [50, 30], 90, 2),
        (22, 1405, [58, 16], 90, 3),
        (23, 1402, [57, 19], 270, 4),
        (24, 1427, [30, 30], 180, 5),
        (25, 1600, [0, 0], 0, 6),
        (26, 1181, [20, 20], 0, 7),
        (27, 1190, [10, 10], 0, 8),
        (28, 1250, [60, 60], 0, 9),
        (29, 1299, [70, 70], 0, 0),
    ];
    for (id, item, cell, angle, instance) in objects {
        let mut thing = object_thing(id, item, cell, angle, instance);
        if let Some(object) = thing.object.as_mut() {
            object.next = if id < 29 { id as u16 + 1 } else { 0 };
            if item == 1427 {
                // Map offset (0, 1) at 180°: one row after the anchor.
                object.top_left = (u16::from(cell[1]) + 1) * 128 + u16::from(cell[0]) + 1;
            }
            if item == 1101 {
                object.ring_entries = [30, 30, 2, 30, 45, 30];
            }
        }
        if item == 1600 {
            (thing.x, thing.y) = (128, 128);
        }
        things.push(thing);
    }
    let slot = |item, cell, fp, angle, channels| Some(object_slot(item, cell, fp, angle, channels));
    let mut staff_room = object_slot(1405, [58, 15], [2, 2], 90, vec![idle_channel()]);
    staff_room.node_flags = vec![0x420, 0x1, 0xa2];
    let queue_tile = Tile { set: 2, index: 2, angle: 90 };
    let slots = vec![
        slot(1101, [40, 30], [4, 4], 0, vec![playing(2, 0, 1376, 0x1, 1.1)]),
        slot(
            1303,
            [50, 30],
            [3, 3],
            90,
            vec![playing(2, 0, 500, 0, 1.0), playing(2, 1, 600, 0, 1.0), playing(2, 2, 700, 0, 1.0)],
        ),
        Some(staff_room),
        slot(1402, [57, 17], [3, 3], 270, vec![playing(5, 1, 2000, 0x14, 1.0)]),
        slot(1427, [30, 31], [2, 2], 180, vec![idle_channel()]),
        Some(RideSlot {
            make_flags: crate::formats::park::ride_system::MADE_FIXED,
            ..object_slot(1600, [0, 0], [1, 1], 0, vec![playing(5, 1, 40, 0x2, 1.0)])
        }),
        slot(1181, [20, 20], [3, 3], 0, vec![idle_channel()]),
        slot(1190, [10, 10], [3, 2], 0, vec![idle_channel()]),
        slot(1250, [60, 60], [1, 1], 0, vec![idle_channel()]),
        None,
        Some(queue_slot([45, 31], queue_tile)),
        Some(queue_slot([90, 90], Tile { set: 2, index: 1, angle: 0 })),
    ];
    let mut cells = BTreeMap::new();
    let mut put = |x: usize, y: usize, f: &dyn Fn(&mut TileBase)| {
        let mut cell = default_cell();
        if let Some(map) = cell.map.as_mut() {
            f(&mut map.base);
        }
        cells.insert(y * MAP_SIZE + x, cell);
    };
    for x in [43, 44] {
        put(x, 31, &|b| {
            b.tile = Tile { set: 1, index: 5, angle: 90 };
            b.kind = 1;
            b.neighbours = 0x04 | 0x40;
        });
    }
    put(45, 31, &|b| {
        b.tile = queue_tile;
        b.kind = 3;
        b.mesh_instance = 11;
    });
    let header = WorldHeader {
        version: 2,
        game_tick: 755,
        park_closed: 0,
        bank_account: 3,
        staff_hq: 1,
        mechanic_hq: 2,
        first_object: 20,
        ..WorldHeader::default()
    };
    SaveSpec {
        header,
        cells,
        things,
        clock: Clock { game_ms: 114_374_804, stopwatch_ms: 114_876_286 },
        slots,
        ..SaveSpec::default()
    }
}
