//! Writes WAD archives, for fixtures and the built-in demo: stored and RefPack entries, with
//! directories expressed the way the game's archives do it (a `dir\` prefix on the first
//! entry of each directory, plain names after it).
//!
//! Layout written: header, entry table, filename block, then each entry's data in table order.

use crate::formats::wad::layout::*;

/// One member to write.
#[derive(Debug, Clone)]
pub struct WadMember {
    /// Path inside the archive, `/` or `\` between directories.
    pub path: String,
    /// The bytes as they go into the archive (already compressed for RefPack members).
    pub stored: Vec<u8>,
    pub compression_type: u32,
    /// The decompressed size the entry table states.
    pub size: u32,
}

impl WadMember {
    pub fn stored(path: impl Into<String>, data: &[u8]) -> Self {
        Self { path: path.into(), stored: data.to_vec(), compression_type: COMPRESSION_STORED, size: len32(data) }
    }

    /// RefPack-compressed through the `refpack` crate, with TPW's header (`10 FB` + u24 size).
    pub fn compressed(path: impl Into<String>, data: &[u8]) -> Self {
        let stored = refpack::easy_compress::<refpack::format::SimEA>(data, refpack::CompressionOptions::Fast)
            .unwrap_or_else(|_| data.to_vec());
        Self { path: path.into(), stored, compression_type: COMPRESSION_REFPACK, size: len32(data) }
    }
}

fn len32(data: &[u8]) -> u32 {
    u32::try_from(data.len()).unwrap_or(u32::MAX)
}

/// Splits a member path into its directory (`\`-joined) and name.
fn split(path: &str) -> (String, String) {
    let path = path.replace('/', "\\");
    match path.rsplit_once('\\') {
        Some((dir, name)) => (dir.to_string(), name.to_string()),
        None => (String::new(), path),
    }
}

/// The archive bytes for `members`. Root members are written first and each directory's
/// members together (a name without a prefix inherits the previous directory, so the root
/// cannot be returned to); within that, the given order is kept.
pub fn write_wad(members: &[WadMember]) -> Vec<u8> {
    let mut ordered: Vec<(String, String, &WadMember)> = members
        .iter()
        .map(|m| {
            let (dir, name) = split(&m.path);
            (dir, name, m)
        })
        .collect();
    ordered.sort_by(|a, b| a.0.is_empty().cmp(&b.0.is_empty()).reverse().then_with(|| a.0.cmp(&b.0)));

    let mut names = Vec::new();
    let mut name_spans = Vec::new();
    let mut previous_dir = String::new();
    for (dir, name, _) in &ordered {
        let written = if *dir != previous_dir { format!("{dir}\\{name}") } else { name.clone() };
        previous_dir = dir.clone();
        name_spans.push((names.len(), written.len() + 1));
        names.extend_from_slice(written.as_bytes());
        names.push(0);
    }

    let table_end = ENTRY_TABLE as usize + ENTRY_SIZE as usize * ordered.len();
    let names_offset = table_end;
    let mut data_offset = names_offset + names.len();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.resize(HDR_FILE_COUNT as usize, 0);
    put(&mut out, ordered.len());
    put(&mut out, names_offset);
    put(&mut out, names.len());
    put(&mut out, 0);
    for ((_, _, member), (name_at, name_len)) in ordered.iter().zip(&name_spans) {
        put(&mut out, 0);
        put(&mut out, names_offset + name_at);
        put(&mut out, *name_len);
        put(&mut out, data_offset);
        put(&mut out, member.stored.len());
        out.extend_from_slice(&member.compression_type.to_le_bytes());
        out.extend_from_slice(&member.size.to_le_bytes());
        out.extend_from_slice(&[0; 12]);
        data_offset += member.stored.len();
    }
    out.extend_from_slice(&names);
    for (_, _, member) in &ordered {
        out.extend_from_slice(&member.stored);
    }
    out
}

fn put(out: &mut Vec<u8>, value: usize) {
    out.extend_from_slice(&u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes());
}
