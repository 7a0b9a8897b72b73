//! The ride system module (`SYSR`): what every model in the park is doing. Its own length says
//! where its tag is; its slots are walked one by one, an empty slot one byte, a present one
//! sized by its node and lookup counts and by the item's channel count, which the save does
//! not hold (the item's `NumSimultAnims`), so the walk takes a lookup from item id to it
//! (saves.md, "The ride system module").

use serde::Serialize;

use super::cursor::Cursor;
use crate::formats::error::DecodeResult;

pub const SLOT_PRESENT: u8 = 1;
pub const SLOT_EMPTY: u8 = 0;
pub const SLOT_HEAD_LEN: u64 = 0x37;
pub const LOOKUP_LEN: u64 = 8;
pub const CHANNEL_DWORDS: usize = 11;
pub const CHANNEL_LEN: u64 = 44;
/// The role a channel running nothing holds.
pub const IDLE_ROLE: u32 = 12;
/// Queue pieces are items 17000 + tile index and run one channel.
pub const QUEUE_ITEM_BASE: u32 = 17000;
/// Make flags of a placed object, a fixed one and a queue piece.
pub const MADE_PLACED: u32 = 0x32F;
pub const MADE_FIXED: u32 = 0x361;
pub const MADE_QUEUE: u32 = 0x33A;
/// Channel flags as the engine records them.
pub const CHANNEL_LOOP: u32 = 0x1;
pub const CHANNEL_FROZEN: u32 = 0x2;
pub const CHANNEL_HELD: u32 = 0x4;
pub const CHANNEL_ROLE0_ENDED: u32 = 0x8;
pub const CHANNEL_HELD_AGAIN: u32 = 0x10;
/// A node flag word's hidden bit.
pub const NODE_HIDDEN: u32 = 0x1;

/// One animation channel, the 11 dwords as stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Channel {
    pub flags: u32,
    /// 0..=11 by the letters `C D I L S M E U W B R O`; 12 running nothing.
    pub role: u32,
    /// 0-based, as TRIGANIM counts it.
    pub clip: u32,
    pub start_ms: u32,
    pub clip_time_ms: u32,
    pub third_stamp_ms: u32,
    pub speed: f32,
    pub queued_role: u32,
    pub queued_clip: u32,
    pub queued_flags: u32,
    pub queued_speed: f32,
}

impl Channel {
    /// How far into its clip the channel was: dword 4 less dword 3, in milliseconds.
    pub fn position_ms(&self) -> i64 {
        i64::from(self.clip_time_ms) - i64::from(self.start_ms)
    }

    pub fn is_idle(&self) -> bool {
        self.role >= IDLE_ROLE
    }

    pub fn looping(&self) -> bool {
        self.flags & CHANNEL_LOOP != 0
    }

    pub fn frozen(&self) -> bool {
        self.flags & CHANNEL_FROZEN != 0
    }

    /// Held on its last frame: `0x4`, or `0x14` as the game also saves it.
    pub fn held(&self) -> bool {
        self.flags & CHANNEL_HELD != 0
    }
}

/// One present slot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RideSlot {
    /// The slot's index; a `MeshInstanceID` of `index + 1` names it.
    pub index: u32,
    pub item: u32,
    /// `mTopLeft`'s cell, across and down.
    pub cell: [u32; 2],
    pub footprint: [u32; 2],
    pub make_flags: u32,
    pub script: u32,
    pub hoarding_flags: u32,
    pub hoarding_progress: f32,
    pub angle: u32,
    pub lookup_count: u16,
    pub shared_flags: u32,
    pub attached: u32,
    /// One word per node; bit `0x1` hidden.
    pub node_flags: Vec<u32>,
    pub channels: Vec<Channel>,
}

impl RideSlot {
    /// The indices of the nodes whose flag word hides them.
    pub fn hidden_nodes(&self) -> Vec<usize> {
        self.node_flags.iter().enumerate().filter(|(_, w)| *w & NODE_HIDDEN != 0).map(|(i, _)| i).collect()
    }
}

/// The ride system as read: its counts, the present slots walked, and where the walk stopped
/// early when an item's channel count was unknown.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RideSystem {
    pub present: u32,
    pub empty: u32,
    pub cursor: u32,
    pub slots: Vec<RideSlot>,
    /// Why the slot walk stopped before the end (the module's tag is still checked by its length).
    pub stopped: Option<String>,
}

impl RideSystem {
    /// The present slot that a `MeshInstanceID` (slot + 1) names.
    pub fn slot_of_instance(&self, mesh_instance: u32) -> Option<&RideSlot> {
        let index = mesh_instance.checked_sub(1)?;
        self.slots.binary_search_by_key(&index, |s| s.index).ok().and_then(|i| self.slots.get(i))
    }
}

/// The channel count of queue pieces, which saves.md measures as one; every other item's comes
/// from the caller's lookup.
pub fn known_channel_count(item: u32) -> Option<u32> {
    (QUEUE_ITEM_BASE..=QUEUE_ITEM_BASE + 7).contains(&item).then_some(1)
}

/// Reads `SYSR` from `c` (its length dword first), leaving `c` after the `SYSR` tag. `channels`
/// gives an item's channel count; an item it does not know stops the slot walk with a note
/// in [`RideSystem::stopped`], and the tag is then reached by the module's length.
pub fn read_ride_system(c: &mut Cursor, channels: &dyn Fn(u32) -> Option<u32>) -> DecodeResult<RideSystem> {
    let length_at = c.pos;
    let length = c.u32("SYSR length")?;
    let end = length_at + 4 + u64::from(length);
    c.r.bytes(c.pos, u64::from(length), "SYSR module")?;
    let mut system = RideSystem {
        present: c.u32("SYSR present count")?,
        empty: c.u32("SYSR empty count")?,
        cursor: c.u32("SYSR cursor")?,
        ..RideSystem::default()
    };
    let slots = u64::from(system.present) + u64::from(system.empty);
    // Every slot takes at least its tag byte.
    c.r.table(c.pos, slots, 1, "SYSR slots")?;
    for index in 0..slots {
        let at = c.pos;
        let field = |what: &str| format!("SYSR slot[{index}] {what}");
        match c.u8(&field("tag"))? {
            SLOT_EMPTY => {}
            SLOT_PRESENT => match read_slot(c, index as u32, channels)? {
                Ok(slot) => system.slots.push(slot),
                Err(item) => {
                    system.stopped = Some(format!(
                        "slot {index} (item {item}): the item's NumSimultAnims is not known, so its channels cannot be sized; {} of {} present slots read",
                        system.slots.len(),
                        system.present
                    ));
                    c.pos = end;
                    c.tag(b"SYSR", "SYSR")?;
                    return Ok(system);
                }
            },
            other => return Err(c.r.invalid(field("tag"), at, format!("slot tag {other} is neither 0 (empty) nor 1"))),
        }
        if c.pos > end {
            return Err(c.r.invalid(field("record"), at, "the slot runs past the module's stated length"));
        }
    }
    if c.pos != end {
        return Err(c.r.invalid(
            "SYSR length",
            length_at,
            format!("the slots end at {:#x}, where the length says {end:#x}", c.pos),
        ));
    }
    if system.slots.len() as u64 != u64::from(system.present) {
        return Err(c.r.invalid(
            "SYSR present count",
            length_at + 4,
            format!("{} present slots where the count says {}", system.slots.len(), system.present),
        ));
    }
    c.tag(b"SYSR", "SYSR")?;
    Ok(system)
}

/// A present slot after its tag; `Err(item)` when the item's channel count is unknown.
fn read_slot(c: &mut Cursor, index: u32, channels: &dyn Fn(u32) -> Option<u32>) -> DecodeResult<Result<RideSlot, u32>> {
    let f = |what: &str| format!("SYSR slot[{index}] {what}");
    let item = c.u32(&f("item id"))?;
    let cell = [c.u32(&f("cell x"))?, c.u32(&f("cell y"))?];
    let footprint = [c.u32(&f("footprint across"))?, c.u32(&f("footprint down"))?];
    let make_flags = c.u32(&f("make flags"))?;
    let script = c.u32(&f("script handle"))?;
    let hoarding_flags = c.u32(&f("hoarding flags"))?;
    c.u16(&f("undescribed word"))?;
    let hoarding_progress = c.f32(&f("hoarding progress"))?;
    let angle = c.u32(&f("angle"))?;
    let node_count = c.u16(&f("node flag count"))?;
    let lookup_count = c.u16(&f("lookup count"))?;
    let shared_flags = c.u32(&f("shared flags"))?;
    let attached = c.u32(&f("attached count"))?;
    c.skip_table(u64::from(lookup_count), LOOKUP_LEN, &f("lookup records"))?;
    let words = c.r.table(c.pos, u64::from(node_count), 4, &f("node flag words"))?;
    let node_flags = (0..u64::from(node_count))
        .map(|i| c.r.u32(words.record(i), "node flag word"))
        .collect::<DecodeResult<Vec<u32>>>()?;
    c.pos = words.end();
    let Some(count) = known_channel_count(item).or_else(|| channels(item)) else { return Ok(Err(item)) };
    let table = c.r.table(c.pos, u64::from(count), CHANNEL_LEN, &f("channels"))?;
    let mut list = Vec::with_capacity(count as usize);
    for i in 0..u64::from(count) {
        let at = table.record(i);
        let mut dwords = [0u32; CHANNEL_DWORDS];
        for (k, dword) in dwords.iter_mut().enumerate() {
            *dword = c.r.u32(at + 4 * k as u64, "channel dword").map_err(|e| e.within(&f(&format!("channel[{i}]"))))?;
        }
        let [
            flags,
            role,
            clip,
            start_ms,
            clip_time_ms,
            third_stamp_ms,
            speed,
            queued_role,
            queued_clip,
            queued_flags,
            queued_speed,
        ] = dwords;
        list.push(Channel {
            flags,
            role,
            clip,
            start_ms,
            clip_time_ms,
            third_stamp_ms,
            speed: f32::from_bits(speed),
            queued_role,
            queued_clip,
            queued_flags,
            queued_speed: f32::from_bits(queued_speed),
        });
    }
    c.pos = table.end();
    Ok(Ok(RideSlot {
        index,
        item,
        cell,
        footprint,
        make_flags,
        script,
        hoarding_flags,
        hoarding_progress,
        angle,
        lookup_count,
        shared_flags,
        attached,
        node_flags,
        channels: list,
    }))
}
