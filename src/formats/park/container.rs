//! The save container (`.TPWS`, `.INTS`, `.TPWI`): version, language, legal text, the magic
//! `01 22 19 85` at 0x605, the online flag, and the `BILZ` block whose zlib stream inflates to
//! the payload the modules are read from (saves.md, "File format").

use std::io::Read;

use crate::formats::error::{DecodeResult, ErrorKind};
use crate::formats::reader::Reader;

/// The format name in every error about the file itself.
pub const FORMAT: &str = "TPW save";

pub const VERSION_OFFSET: u64 = 0x000;
pub const LANGUAGE_OFFSET: u64 = 0x004;
pub const LEGAL_TEXT_OFFSET: u64 = 0x005;
pub const LEGAL_TEXT_LEN: usize = 0x500;
pub const RESERVED_LEN: usize = 0x100;
pub const MAGIC_OFFSET: u64 = 0x605;
/// Stored big-endian: the loader reads it through `ntohl`.
pub const MAGIC: [u8; 4] = [0x01, 0x22, 0x19, 0x85];
pub const ONLINE_OFFSET: u64 = 0x609;
pub const BILZ_OFFSET: u64 = 0x60D;
pub const BILZ_TAG: [u8; 4] = *b"BILZ";
pub const INFLATED_SIZE_OFFSET: u64 = 0x611;
pub const BLOCK_SIZE_OFFSET: u64 = 0x615;
pub const DEFLATE_PARAMS_OFFSET: u64 = 0x619;
/// Window bits, memory level and two noughts, as the game writes them.
pub const DEFLATE_PARAMS: [u32; 4] = [15, 9, 0, 0];
pub const STREAM_OFFSET: u64 = 0x629;
/// The version of the shipped park (`.TPWI`) and of parks saved in play.
pub const SHIPPED_VERSION: u32 = 400;
pub const SAVED_VERSION: u32 = 500;

/// What the container says about the file, and the inflated payload.
#[derive(Debug, Clone)]
pub struct Container {
    pub version: u32,
    /// 0 English ... 6 Japanese, the language the game ran in.
    pub language: u8,
    pub inflated_size: u32,
    pub payload: Vec<u8>,
    pub warnings: Vec<String>,
}

/// Whether `data` holds a park save: the magic at 0x605 and `BILZ` at 0x60D, whatever the name.
pub fn is_save(data: &[u8]) -> bool {
    let at = |offset: u64, len: usize| data.get(offset as usize..offset as usize + len);
    at(MAGIC_OFFSET, 4) == Some(MAGIC.as_slice()) && at(BILZ_OFFSET, 4) == Some(BILZ_TAG.as_slice())
}

/// Reads and checks the container and inflates its payload. The inflated size is checked
/// against the allocation budget (four times over, for what the modules decode from it)
/// before anything of that size is allocated, and the stream must inflate to exactly it.
pub fn read_container(data: &[u8]) -> DecodeResult<Container> {
    let r = Reader::new(data, FORMAT);
    let mut warnings = Vec::new();
    let version = r.u32(VERSION_OFFSET, "version")?;
    if version > SAVED_VERSION {
        return Err(r.error(
            "version",
            VERSION_OFFSET,
            ErrorKind::Unsupported(format!("version {version} is newer than 500, the last the game wrote")),
        ));
    }
    if version != SHIPPED_VERSION && version != SAVED_VERSION {
        warnings.push(format!("container version {version}; the game writes 400 (shipped) or 500 (saved)"));
    }
    let language = r.u8(LANGUAGE_OFFSET, "language")?;
    r.bytes(LEGAL_TEXT_OFFSET, LEGAL_TEXT_LEN as u64, "legal text")?;
    let magic = r.bytes(MAGIC_OFFSET, 4, "magic")?;
    if magic != MAGIC {
        return Err(r.invalid("magic", MAGIC_OFFSET, format!("{magic:02X?} is not 01 22 19 85")));
    }
    let online = r.u32(ONLINE_OFFSET, "online flag")?;
    if online != 0 {
        return Err(r.error(
            "online flag",
            ONLINE_OFFSET,
            ErrorKind::Unsupported(format!("{online}: an online save's author header follows, which is not read")),
        ));
    }
    let tag = r.bytes(BILZ_OFFSET, 4, "BILZ tag")?;
    if tag != BILZ_TAG {
        return Err(r.invalid("BILZ tag", BILZ_OFFSET, "the compressed block does not open with BILZ"));
    }
    let inflated_size = r.u32(INFLATED_SIZE_OFFSET, "inflated size")?;
    let block_size = r.u32(BLOCK_SIZE_OFFSET, "block size")?;
    if BILZ_OFFSET + u64::from(block_size) != r.len() {
        return Err(r.invalid(
            "block size",
            BLOCK_SIZE_OFFSET,
            format!("0x60D + {block_size} should be the file's length, {}", r.len()),
        ));
    }
    let mut params = [0u32; 4];
    for (i, value) in params.iter_mut().enumerate() {
        *value = r.u32(DEFLATE_PARAMS_OFFSET + 4 * i as u64, "deflate parameters")?;
    }
    if params != DEFLATE_PARAMS {
        warnings.push(format!("deflate parameters {params:?}; the game writes {DEFLATE_PARAMS:?}"));
    }
    r.check_budget(u64::from(inflated_size).saturating_mul(4), "inflated size", INFLATED_SIZE_OFFSET)?;
    let stream = r.bytes(STREAM_OFFSET, r.len().saturating_sub(STREAM_OFFSET), "zlib stream")?;
    let payload = inflate(stream, inflated_size).map_err(|why| r.invalid("zlib stream", STREAM_OFFSET, why))?;
    Ok(Container { version, language, inflated_size, payload, warnings })
}

/// Inflates `stream`, which must give exactly `size` bytes; never reads more than one past it.
fn inflate(stream: &[u8], size: u32) -> Result<Vec<u8>, String> {
    let mut payload = Vec::with_capacity(size as usize);
    let mut decoder = flate2::read::ZlibDecoder::new(stream).take(u64::from(size) + 1);
    decoder.read_to_end(&mut payload).map_err(|e| format!("does not inflate ({})", crate::archive::io_reason(&e)))?;
    if payload.len() as u64 != u64::from(size) {
        let got =
            if payload.len() as u64 > u64::from(size) { "more than".to_string() } else { payload.len().to_string() };
        return Err(format!("inflates to {got} bytes where the header says {size}"));
    }
    Ok(payload)
}
