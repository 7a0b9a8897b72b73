//! Where each field of a WAD archive sits: a 88-byte header, then one 40-byte record per
//! entry, then (wherever the header says) the filename block, then the data.

/// `DWFB`.
pub const MAGIC: &[u8; 4] = b"DWFB";
pub const VERSION: u32 = 2;

pub const HDR_VERSION: u64 = 4;
/// 64 bytes of padding follow the version.
pub const HDR_PADDING: u64 = 8;
pub const HDR_FILE_COUNT: u64 = 72;
/// Absolute offset of the filename block.
pub const HDR_NAMES_OFFSET: u64 = 76;
pub const HDR_NAMES_LENGTH: u64 = 80;
/// A u32 nobody has seen non-zero.
pub const HDR_RESERVED: u64 = 84;
pub const ENTRY_TABLE: u64 = 88;

pub const ENTRY_SIZE: u64 = 40;
/// Offsets within an entry record; the first u32 is unused.
pub const ENTRY_NAME_OFFSET: u64 = 4;
/// Includes the terminating NUL.
pub const ENTRY_NAME_LENGTH: u64 = 8;
pub const ENTRY_DATA_OFFSET: u64 = 12;
pub const ENTRY_DATA_LENGTH: u64 = 16;
pub const ENTRY_COMPRESSION: u64 = 20;
pub const ENTRY_SIZE_FIELD: u64 = 24;
// 12 zero bytes end the record.

pub const COMPRESSION_STORED: u32 = 0;
pub const COMPRESSION_REFPACK: u32 = 4;

/// The RefPack header TPW writes: flags `10`, magic `FB`, then a 24-bit big-endian size.
pub const REFPACK_FLAGS: u8 = 0x10;
pub const REFPACK_MAGIC: u8 = 0xFB;
