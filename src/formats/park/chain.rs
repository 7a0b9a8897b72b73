//! The modules between the world and the ride system, walked only to reach `SYSR` with every
//! tag checked: the sprite table (`TPCS` … `CSPS`), particles (`LCTP` … `TRAP`), the message
//! centre (`SSEM`), the clock (`KOLC`), "vanilla time" (`TNAV`) and the game system (`SYSG`)
//! (saves.md, from "The sprite table" to "The game system module").

use super::cursor::Cursor;
use crate::formats::error::DecodeResult;

/// The two clock readings of `KOLC`, in milliseconds: the clock ride scripts and animation
/// channels read, and the second stopwatch a channel with flag `0x40` reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Clock {
    pub game_ms: u32,
    pub stopwatch_ms: u32,
}

/// Walks from just after `DLRW` to just after `SYSG`, returning the clock.
pub fn read_chain_to_ride_system(c: &mut Cursor) -> DecodeResult<Clock> {
    sprite_table(c)?;
    particles(c)?;
    messages(c)?;
    let clock = Clock { game_ms: c.u32("KOLC game clock")?, stopwatch_ms: c.u32("KOLC stopwatch")? };
    c.tag(b"KOLC", "KOLC")?;
    c.u32("TNAV real-time clock")?;
    c.tag(b"TNAV", "TNAV")?;
    c.skip(36, "SYSG nine dwords")?;
    c.tag(b"SYSG", "SYSG")?;
    Ok(clock)
}

/// `TPCS`, record size, slot count, one handle a slot, one record per non-zero handle.
fn sprite_table(c: &mut Cursor) -> DecodeResult<()> {
    let at = c.pos;
    if c.skip(4, "CSPS magic")? != b"TPCS" {
        return Err(c.r.invalid("CSPS magic", at, "the sprite table does not open with TPCS"));
    }
    let record_size = c.u32("CSPS record size")?;
    let slots = c.u32("CSPS slot count")?;
    let handles_at = c.pos;
    let handles = c.r.table(handles_at, u64::from(slots), 4, "CSPS slot handles")?;
    let mut live = 0u64;
    for slot in 0..u64::from(slots) {
        if c.r.u32(handles.record(slot), "CSPS slot handle")? != 0 {
            live += 1;
        }
    }
    c.pos = handles.end();
    c.skip_table(live, u64::from(record_size), "CSPS sprite records")?;
    c.tag(b"CSPS", "CSPS")
}

/// `LCTP`, enabled; when enabled the live system and templates, each behind its size, and the
/// particle pool's count, which the game always writes as 0.
fn particles(c: &mut Cursor) -> DecodeResult<()> {
    let at = c.pos;
    if c.skip(4, "TRAP magic")? != b"LCTP" {
        return Err(c.r.invalid("TRAP magic", at, "the particles module does not open with LCTP"));
    }
    if c.u32("TRAP enabled")? != 0 {
        let live = c.u32("TRAP live system size")?;
        c.skip(u64::from(live), "TRAP live system")?;
        let templates = c.u32("TRAP templates size")?;
        c.skip(u64::from(templates), "TRAP templates")?;
        let pool_at = c.pos;
        let pool = c.u32("TRAP pool size")?;
        if pool != 0 {
            return Err(c.r.invalid(
                "TRAP pool size",
                pool_at,
                format!("{pool}: the game always writes an empty pool, and a full one's layout is not known"),
            ));
        }
    }
    c.tag(b"TRAP", "TRAP")
}

/// A set count, then per set a count and that many u16 thing ids.
fn messages(c: &mut Cursor) -> DecodeResult<()> {
    let sets = c.u32("SSEM set count")?;
    // Each set takes at least its 4-byte count, so the loop is bounded by the payload.
    c.r.table(c.pos, u64::from(sets), 4, "SSEM sets")?;
    for set in 0..sets {
        let count = c.u32(&format!("SSEM set[{set}] count"))?;
        c.skip_table(u64::from(count), 2, &format!("SSEM set[{set}] thing ids"))?;
    }
    c.tag(b"SSEM", "SSEM")
}
