//! Theme Park World parks: the save reader (`.TPWS`, `.INTS`, `.TPWI`, known by the container
//! magic at 0x605 and `BILZ` at 0x60D), the `.sam` parser, the item catalogue of an install,
//! and the placement rule that turns a save into a [`Park`]: every placed item with its world
//! matrix, its catalogue entry and the pose it plays, the paths and queues by cell, and what
//! cannot be shown and why. The park is plain data; the viewer, renderer and export draw it.
//!
//! Sources: `shared/specs/tpw-park-notes.md` and OpenTPW.FileFormats' `saves.md` and `sam.md`.

pub mod assemble;
pub mod build;
pub mod catalogue;
pub mod chain;
pub mod container;
pub mod cursor;
pub mod ground;
pub mod placement;
pub mod ride_system;
pub mod sam;
pub mod world;

pub use assemble::{Park, PathCell, PlacedItem, QueueCell, Unshown, open_park};
pub use build::{open_park_scene, park_scene};
pub use catalogue::{Catalogue, CatalogueEntry, ItemKind, find_install};
pub use chain::Clock;
pub use container::is_save;
pub use ride_system::{Channel, RideSlot, RideSystem};
pub use world::{Cell, MapCell, Thing, Tile, World, WorldHeader};

use crate::formats::error::DecodeResult;

/// A save as read: the container's fields, the action recording's size, the world, the clock,
/// and the ride system.
#[derive(Debug, Clone)]
pub struct Save {
    pub version: u32,
    pub language: u8,
    pub inflated_size: u32,
    /// `mLoadedPublishedPark` and the length of the untagged action recording.
    pub loaded_published_park: u32,
    pub recording_len: u32,
    pub world: World,
    pub clock: Clock,
    pub ride_system: RideSystem,
    /// Non-fatal oddities, one line each.
    pub warnings: Vec<String>,
}

/// Reads a save with no catalogue: only queue pieces' channel counts are known, so the ride
/// system's walk stops at the first other item (see [`read_save_with`]).
pub fn read_save(bytes: &[u8]) -> DecodeResult<Save> {
    read_save_with(bytes, &|_| None)
}

/// Reads a save, the ride system's channels sized by `channels` (an item id's
/// `NumSimultAnims`, e.g. [`Catalogue::channel_count`]). A damaged save is one error naming
/// the module, the field and the offset (a payload offset once past the container).
pub fn read_save_with(bytes: &[u8], channels: &dyn Fn(u32) -> Option<u32>) -> DecodeResult<Save> {
    let container = container::read_container(bytes)?;
    let mut save = read_payload(&container.payload, channels)?;
    save.version = container.version;
    save.language = container.language;
    save.inflated_size = container.inflated_size;
    save.warnings.splice(0..0, container.warnings);
    Ok(save)
}

/// Reads an inflated payload on its own (the fuzz target's way past the zlib stream); the
/// container's fields read 0 but the payload's length.
pub fn read_payload(payload: &[u8], channels: &dyn Fn(u32) -> Option<u32>) -> DecodeResult<Save> {
    let mut warnings = Vec::new();
    let mut c = cursor::Cursor::new(payload, 0);
    let loaded_published_park = c.u32("action recording mLoadedPublishedPark")?;
    let recording_len = c.u32("action recording size")?;
    c.skip(u64::from(recording_len), "action recording")?;
    let world = world::read_world(&mut c)?;
    if world.header.version != 2 {
        warnings.push(format!("world header version {}; the game writes 2", world.header.version));
    }
    let clock = chain::read_chain_to_ride_system(&mut c)?;
    let ride_system = ride_system::read_ride_system(&mut c, channels)?;
    if let Some(why) = &ride_system.stopped {
        warnings.push(format!("ride system walk stopped at {why}"));
    }
    Ok(Save {
        version: 0,
        language: 0,
        inflated_size: u32::try_from(payload.len()).unwrap_or(u32::MAX),
        loaded_published_park,
        recording_len,
        world,
        clock,
        ride_system,
        warnings,
    })
}
