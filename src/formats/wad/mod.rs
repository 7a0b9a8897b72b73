//! Theme Park World `.wad` archives (magic `DWFB`, version 2), where a real install keeps its
//! models and textures. An archive is read into a [`WadIndex`] (entry table plus filename
//! block, every offset checked against the file) and browsed like a folder; members are read
//! out stored (type 0) or RefPack-decompressed (type 4) on demand.
//!
//! - [`layout`]: offsets and sizes of the header and the entry table.
//! - The encoder for fixtures and the built-in demo is [`crate::writers::wad`] (no WAD file is public).
//! - [`path`]: addressing a member as a path through the archive (`data/x.wad/models/a.MD2`).
//!
//! Names in the file use `\` and a `dir\` prefix places that entry and every entry after it
//! into `dir` until another prefix appears. Members are exposed with `/` separators.

pub mod layout;
pub mod path;

use std::collections::HashMap;

use layout::*;

use crate::formats::error::{DecodeError, DecodeResult, ErrorKind};
use crate::formats::reader::Reader;

pub const FORMAT: &str = "wad";

/// How an entry's bytes are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Stored,
    RefPack,
    /// A type this reader does not know; listing shows it, reading it is an error.
    Unknown(u32),
}

impl Compression {
    pub fn from_type(value: u32) -> Self {
        match value {
            COMPRESSION_STORED => Self::Stored,
            COMPRESSION_REFPACK => Self::RefPack,
            other => Self::Unknown(other),
        }
    }

    pub fn type_value(self) -> u32 {
        match self {
            Self::Stored => COMPRESSION_STORED,
            Self::RefPack => COMPRESSION_REFPACK,
            Self::Unknown(v) => v,
        }
    }

    pub fn label(self) -> String {
        match self {
            Self::Stored => "stored".into(),
            Self::RefPack => "refpack".into(),
            Self::Unknown(v) => format!("type {v}"),
        }
    }
}

/// One member of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WadEntry {
    /// Index in the entry table.
    pub index: usize,
    /// The member's path inside the archive, directories joined with `/`.
    pub path: String,
    /// Where its stored bytes start in the archive.
    pub data_offset: u64,
    /// Bytes in the archive.
    pub stored_size: u64,
    /// Bytes once decompressed, as the entry table states.
    pub size: u64,
    pub compression: Compression,
}

impl WadEntry {
    /// The file name without its directories.
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// The directory part (`""` at the root).
    pub fn dir(&self) -> &str {
        self.path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
    }

    /// Where the entry record sits in the archive, for error messages.
    pub fn record_offset(&self) -> u64 {
        ENTRY_TABLE + (self.index as u64) * ENTRY_SIZE
    }
}

/// The checked entry table of one archive: members in table order, a case-insensitive lookup,
/// and the non-fatal oddities found while reading it.
#[derive(Debug, Clone, Default)]
pub struct WadIndex {
    pub version: u32,
    pub entries: Vec<WadEntry>,
    pub warnings: Vec<String>,
    /// Lower-cased member path to its entry.
    by_path: HashMap<String, usize>,
}

/// Whether `data` starts like a WAD archive.
pub fn is_wad(data: &[u8]) -> bool {
    data.starts_with(MAGIC)
}

/// Reads the header, the entry table and the filename block. Every entry's data range is
/// checked against the file here, so [`read_entry`] only has the compressed stream to doubt.
pub fn read_index(data: &[u8]) -> DecodeResult<WadIndex> {
    read_index_with(data, DataPastEnd::Refuse)
}

/// As [`read_index`], for salvaging what a damaged archive still holds (`extract`): an entry
/// whose data runs past the end (a cut-off archive) is a warning, and that member alone fails
/// when [`read_entry`] reads it, so the members before it can still be written out.
pub fn read_index_salvaging(data: &[u8]) -> DecodeResult<WadIndex> {
    read_index_with(data, DataPastEnd::Warn)
}

/// What [`read_index_with`] does with an entry whose data runs past the end of the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DataPastEnd {
    Refuse,
    Warn,
}

fn read_index_with(data: &[u8], past_end: DataPastEnd) -> DecodeResult<WadIndex> {
    let r = Reader::new(data, FORMAT);
    let magic = r.bytes(0, 4, "magic")?;
    if magic != MAGIC {
        return Err(r.invalid("magic", 0, "not a WAD archive (expected \"DWFB\")"));
    }
    let version = r.u32(HDR_VERSION, "version")?;
    let count = u64::from(r.u32(HDR_FILE_COUNT, "file count")?);
    let names_offset = u64::from(r.u32(HDR_NAMES_OFFSET, "filename block offset")?);
    let names_len = u64::from(r.u32(HDR_NAMES_LENGTH, "filename block length")?);
    let mut warnings = Vec::new();
    if version != VERSION {
        warnings.push(format!("WAD version {version}, expected {VERSION}; read as version {VERSION}"));
    }
    let table = r.table(ENTRY_TABLE, count, ENTRY_SIZE, "entry table")?;
    let names = r.bytes(names_offset, names_len, "filename block")?;
    let names = Reader::new(names, FORMAT);

    let mut entries = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut by_path = HashMap::with_capacity(entries.capacity());
    let mut dirs: HashMap<String, ()> = HashMap::new();
    let mut current_dir = String::new();
    for index in 0..count {
        let at = table.record(index);
        let field = |name: &str| format!("entry[{index}].{name}");
        let name_offset = u64::from(r.u32(at + ENTRY_NAME_OFFSET, &field("name offset"))?);
        let name_len = u64::from(r.u32(at + ENTRY_NAME_LENGTH, &field("name length"))?);
        let data_offset = u64::from(r.u32(at + ENTRY_DATA_OFFSET, &field("data offset"))?);
        let stored_size = u64::from(r.u32(at + ENTRY_DATA_LENGTH, &field("data length"))?);
        let compression = Compression::from_type(r.u32(at + ENTRY_COMPRESSION, &field("compression"))?);
        let stated_size = u64::from(r.u32(at + ENTRY_SIZE_FIELD, &field("decompressed size"))?);
        // The game's stored entries state 0 here (OpenTPW's notes on the format): their size
        // is what the archive holds.
        let size = match compression {
            Compression::Stored if stated_size == 0 => stored_size,
            _ => stated_size,
        };

        // Name offsets are absolute in the file; they must fall inside the filename block.
        let relative = name_offset.checked_sub(names_offset).ok_or_else(|| {
            r.invalid(field("name offset"), at + ENTRY_NAME_OFFSET, "points before the filename block")
        })?;
        let raw_name = names
            .cstr(relative, name_len.max(1), &field("name"))
            .map_err(|e| DecodeError { offset: name_offset, ..e })?;
        if let Err(e) = r.bytes(data_offset, stored_size, &field("data")) {
            match past_end {
                DataPastEnd::Refuse => return Err(e),
                DataPastEnd::Warn => warnings.push(format!("entry {index} ({raw_name}): {e}; it cannot be read")),
            }
        }
        if compression == Compression::Stored && size != stored_size {
            warnings.push(format!(
                "entry {index} ({raw_name}): stored, but its sizes differ ({stored_size} in the archive, {size} stated)"
            ));
        }

        let (dir, name) = split_raw_name(&raw_name, &mut current_dir)
            .map_err(|why| r.invalid(field("name"), name_offset, format!("{raw_name:?}: {why}")))?;
        if name.is_empty() {
            return Err(r.invalid(field("name"), name_offset, format!("{raw_name:?}: empty file name")));
        }
        let path = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
        let lower = path.to_ascii_lowercase();
        // A member whose path is also a directory of another member would make the folder
        // tree contain itself: `models` the file and `models/` the folder.
        if dirs.contains_key(&lower) {
            return Err(r.invalid(field("name"), name_offset, format!("{path:?} is both a file and a directory")));
        }
        let mut prefix = String::new();
        for part in dir.split('/').filter(|p| !p.is_empty()) {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(&part.to_ascii_lowercase());
            if by_path.contains_key(&prefix) {
                return Err(r.invalid(
                    field("name"),
                    name_offset,
                    format!("directory {prefix:?} is also a file earlier in the archive"),
                ));
            }
            dirs.insert(prefix.clone(), ());
        }
        let entry_index = entries.len();
        if by_path.insert(lower, entry_index).is_some() {
            warnings.push(format!("entry {index}: {path} appears twice; the later one is used"));
        }
        entries.push(WadEntry { index: entry_index, path, data_offset, stored_size, size, compression });
    }
    Ok(WadIndex { version, entries, warnings, by_path })
}

/// Splits one raw name into its directory and file name, updating the directory that later
/// entries inherit. Refuses names that would climb out of the archive (`..`, `.`, a drive or
/// a leading separator), since `extract` writes these paths to disk.
fn split_raw_name<'a>(raw: &'a str, current_dir: &mut String) -> Result<(String, &'a str), String> {
    let normalised = raw.trim_end_matches('\0');
    let (dir, name) = match normalised.rsplit_once(['\\', '/']) {
        Some((dir, name)) => {
            if dir.is_empty() || dir.contains(':') {
                return Err("directory is absolute".into());
            }
            let mut parts = Vec::new();
            for part in dir.split(['\\', '/']) {
                match part {
                    "" => return Err("empty directory name".into()),
                    "." | ".." => return Err("directory name refers to itself or its parent (a cycle)".into()),
                    p => parts.push(p),
                }
            }
            *current_dir = parts.join("/");
            (current_dir.clone(), name)
        }
        None => (current_dir.clone(), normalised),
    };
    if name == "." || name == ".." || name.contains(':') {
        return Err("file name refers to a directory".into());
    }
    Ok((dir, name))
}

impl WadIndex {
    /// The entry at `path` (either separator, any case), if the archive has it.
    pub fn find(&self, path: &str) -> Option<&WadEntry> {
        let key = path.trim_matches(['/', '\\']).replace('\\', "/").to_ascii_lowercase();
        self.by_path.get(&key).and_then(|&i| self.entries.get(i))
    }

    /// The directories and files directly inside `dir` (`""` for the root), each sorted
    /// case-insensitively; directories are given by name, files by entry.
    pub fn list_dir(&self, dir: &str) -> (Vec<String>, Vec<&WadEntry>) {
        let dir = dir.trim_matches(['/', '\\']).replace('\\', "/").to_ascii_lowercase();
        let mut subdirs: Vec<String> = Vec::new();
        let mut files = Vec::new();
        for entry in &self.entries {
            let lower = entry.path.to_ascii_lowercase();
            let rest = if dir.is_empty() {
                Some(entry.path.as_str())
            } else {
                lower.strip_prefix(&dir).and_then(|r| r.strip_prefix('/')).and_then(|_| entry.path.get(dir.len() + 1..))
            };
            let Some(rest) = rest else { continue };
            match rest.split_once('/') {
                Some((sub, _)) => {
                    if !subdirs.iter().any(|s| s.eq_ignore_ascii_case(sub)) {
                        subdirs.push(sub.to_string());
                    }
                }
                None => files.push(entry),
            }
        }
        subdirs.sort_by_key(|s| s.to_ascii_lowercase());
        files.sort_by_key(|e| e.path.to_ascii_lowercase());
        (subdirs, files)
    }

    /// Whether `dir` is a directory of the archive (the root always is).
    pub fn has_dir(&self, dir: &str) -> bool {
        let dir = dir.trim_matches(['/', '\\']).replace('\\', "/").to_ascii_lowercase();
        dir.is_empty()
            || self.entries.iter().any(|e| {
                let lower = e.path.to_ascii_lowercase();
                lower.strip_prefix(&dir).is_some_and(|rest| rest.starts_with('/'))
            })
    }
}

/// An archive held in memory: its bytes and its checked index.
#[derive(Debug, Clone)]
pub struct WadArchive {
    pub data: Vec<u8>,
    pub index: WadIndex,
}

impl WadArchive {
    pub fn from_bytes(data: Vec<u8>) -> DecodeResult<Self> {
        let index = read_index(&data)?;
        Ok(Self { data, index })
    }

    /// As [`WadArchive::from_bytes`], keeping the members a cut-off archive still holds
    /// ([`read_index_salvaging`]).
    pub fn salvaging(data: Vec<u8>) -> DecodeResult<Self> {
        let index = read_index_salvaging(&data)?;
        Ok(Self { data, index })
    }

    /// The decompressed bytes of the member at `path`, `None` when there is no such member.
    pub fn read(&self, path: &str) -> Option<DecodeResult<Vec<u8>>> {
        self.index.find(path).map(|entry| read_entry(&self.data, entry))
    }
}

/// The decompressed bytes of one entry. Errors name the entry by index and path, and give the
/// offset in the archive.
pub fn read_entry(data: &[u8], entry: &WadEntry) -> DecodeResult<Vec<u8>> {
    let r = Reader::new(data, FORMAT);
    let field = |what: &str| format!("entry[{}] {}: {what}", entry.index, entry.path);
    let stored = r.bytes(entry.data_offset, entry.stored_size, &field("data"))?;
    match entry.compression {
        Compression::Stored => Ok(stored.to_vec()),
        Compression::RefPack => decompress_refpack(stored, entry.size)
            .map_err(|(at, why)| r.invalid(field("refpack stream"), entry.data_offset.saturating_add(at), why)),
        Compression::Unknown(kind) => Err(DecodeError::new(
            FORMAT,
            field("compression"),
            entry.record_offset() + ENTRY_COMPRESSION,
            ErrorKind::Unsupported(format!("compression type {kind}")),
        )),
    }
}

/// The largest expansion RefPack allows: its longest command is 4 bytes for 1028 output bytes.
const REFPACK_MAX_RATIO: u64 = 257;

/// Decompresses one TPW RefPack stream (`10 FB`, a 24-bit big-endian size, then commands)
/// through the `refpack` crate, after checking the header ourselves: TPW only writes the
/// plain `0x10` flags byte, and the stated size must match the entry table and be reachable
/// from the stream's length before anything is allocated. Errors give an offset within the
/// stream.
fn decompress_refpack(stream: &[u8], expected: u64) -> Result<Vec<u8>, (u64, String)> {
    let flags = *stream.first().ok_or((0, "empty stream".to_string()))?;
    let magic = *stream.get(1).ok_or((1, "stream ends inside its header".to_string()))?;
    if flags != REFPACK_FLAGS || magic != REFPACK_MAGIC {
        return Err((0, format!("header {flags:02X} {magic:02X}, expected 10 FB")));
    }
    let size_bytes = stream.get(2..5).ok_or((2, "stream ends inside its header".to_string()))?;
    let declared = size_bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    if declared != expected {
        return Err((2, format!("stream says {declared} bytes, the entry table {expected}")));
    }
    let reachable = (stream.len() as u64).saturating_mul(REFPACK_MAX_RATIO);
    if declared > reachable {
        return Err((2, format!("{declared} bytes cannot come from a {}-byte stream", stream.len())));
    }
    let mut reader = std::io::Cursor::new(stream);
    let mut out = Vec::new();
    refpack::decompress::<refpack::format::SimEA>(&mut reader, &mut out)
        .map_err(|e| (reader.position(), refpack_reason(&e)))?;
    if out.len() as u64 != declared {
        let why = if out.len() as u64 > declared { "overruns" } else { "falls short of" };
        return Err((5, format!("stream {why} its declared size ({} bytes, declared {declared})", out.len())));
    }
    Ok(out)
}

/// Our one-line wording for the `refpack` crate's errors (its own text runs over two lines and
/// names its internals). The offset comes with it from the caller: where the stream reader
/// stood when the command failed.
fn refpack_reason(error: &refpack::RefPackError) -> String {
    use refpack::RefPackError as E;
    use refpack::data::DecodeError as D;
    match error {
        E::EmptyInput => "empty stream".into(),
        E::BadFlags(flags) => format!("header flags {flags:#04x} are not RefPack's"),
        E::BadMagic(magic) => format!("header magic {magic:#04x}, expected 0xFB"),
        E::ControlError { error: D::BadOffset, position } => {
            format!("a copy command at output byte {position} has offset 0")
        }
        E::ControlError { error: D::NegativePosition(length, offset), position } => format!(
            "a copy command at output byte {position} reaches {offset} bytes back, before the start of the \
             output ({length} bytes so far)"
        ),
        E::ControlError { error: D::BadLength(past), position } => {
            format!("a command at output byte {position} writes {past} bytes past the end of the output")
        }
        E::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => "stream ends inside a command".into(),
        E::Io(io) => format!("stream unreadable ({})", io.kind()),
    }
}

#[cfg(test)]
mod tests;
