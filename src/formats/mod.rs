//! Format detection and opening: a table of magic numbers, one module per format, and
//! [`open`], which turns a path into a [`Scene`] (with sibling animations attached where the
//! format has them). Detection reads the content; the extension is never consulted.

// File data is untrusted: no unwrap, no panicking index or slice anywhere in the decoders.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod error;
pub mod frame_clips;
pub mod m2;
pub mod mdr;
pub mod quake2;
pub mod quake_axes;
pub mod reader;
pub mod tpw;
pub mod vfs;
pub mod wad;
pub mod wct;

use std::path::Path;

pub use error::{DecodeError, DecodeResult, ErrorKind};

use crate::scene::{FormatKind, Scene};

/// One row per format: its magic bytes at offset 0 and what they select.
pub const MAGIC_TABLE: &[(&[u8; 4], FormatKind)] = &[
    (&[0x46, 0x5D, 0xD1, 0x1C], FormatKind::TpwMd2),
    (b"IDP2", FormatKind::Quake2Md2),
    (b"RDM5", FormatKind::Quake3Mdr),
    (b"MD20", FormatKind::WowM2),
    // Chunked M2 (Legion+): detected so that it gets a clear "unsupported version" error.
    (b"MD21", FormatKind::WowM2),
    (b"SKIN", FormatKind::WowSkin),
];

/// The format whose magic opens `data`, or an error that reports the first four bytes.
pub fn detect(data: &[u8]) -> DecodeResult<FormatKind> {
    let head = data.get(..4).ok_or_else(|| {
        DecodeError::new("unknown", "magic", 0, ErrorKind::OutOfBounds { needed: 4, len: data.len() as u64 })
    })?;
    MAGIC_TABLE.iter().find(|(magic, _)| magic.as_slice() == head).map(|&(_, kind)| kind).ok_or_else(|| {
        let hex: Vec<String> = head.iter().map(|b| format!("{b:02X}")).collect();
        let ascii: String = head.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
        DecodeError::invalid(
            "unknown",
            "magic",
            0,
            format!("not a known model format (first bytes {} \"{ascii}\")", hex.join(" ")),
        )
    })
}

/// Why opening a path failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: {source}")]
    Decode { path: String, source: DecodeError },
}

/// Decodes bytes of a detected format on their own, without looking for sibling files.
pub fn decode_bytes(data: &[u8]) -> DecodeResult<Scene> {
    match detect(data)? {
        FormatKind::TpwMd2 => tpw::decode(data),
        FormatKind::Quake2Md2 => quake2::decode(data),
        FormatKind::Quake3Mdr => mdr::decode(data),
        FormatKind::WowM2 => m2::decode(data),
        FormatKind::WowSkin => Err(m2::lone_skin_error(None)),
    }
}

/// A pick among a scene's [`OpenChoice`](crate::scene::OpenChoice)s: option `option` of the
/// choice keyed `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub key: String,
    pub option: usize,
}

/// Opens a model file: detects the format from its content, decodes it, and for formats
/// with companion files (TPW animations, M2 skins) finds and attaches them.
pub fn open(path: &Path) -> Result<Scene, OpenError> {
    open_with(path, &[])
}

/// As [`open`], with picks among the choices a previous open offered ([`Scene::choices`]);
/// picks a format does not offer are ignored.
pub fn open_with(path: &Path, picks: &[Pick]) -> Result<Scene, OpenError> {
    let display = path.display().to_string();
    // Through the archive seam: a path may lead into a `.wad` (`x.wad/models/gate.MD2`).
    let data = vfs::read(path).map_err(|source| OpenError::Io { path: display.clone(), source })?;
    if wad::is_wad(&data) {
        let source = DecodeError::invalid(
            wad::FORMAT,
            "magic",
            0,
            "a WAD archive is a folder of models: open a member (ARCHIVE.wad/dir/model.md2) or list it with `mdview info`",
        );
        return Err(OpenError::Decode { path: display, source });
    }
    let kind = detect(&data).map_err(|source| OpenError::Decode { path: display.clone(), source })?;
    let mut scene = match kind {
        FormatKind::TpwMd2 => tpw::open(path, &data),
        FormatKind::Quake2Md2 => quake2::open(path, &data),
        FormatKind::WowM2 => m2::open_with(path, &data, &m2::OpenOptions::from_picks(path, picks)),
        FormatKind::WowSkin => Err(m2::lone_skin_error(Some(path))),
        FormatKind::Quake3Mdr => mdr::decode(&data),
    }
    .map_err(|source| OpenError::Decode { path: display, source })?;
    scene.path = Some(path.to_path_buf());
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_uses_the_magic_table() {
        assert_eq!(detect(&[0x46, 0x5D, 0xD1, 0x1C, 0]), Ok(FormatKind::TpwMd2));
        assert_eq!(detect(b"IDP2...."), Ok(FormatKind::Quake2Md2));
        assert_eq!(detect(b"RDM5"), Ok(FormatKind::Quake3Mdr));
        assert_eq!(detect(b"MD20\x08\x01"), Ok(FormatKind::WowM2));
        assert_eq!(detect(b"SKIN"), Ok(FormatKind::WowSkin));
    }

    #[test]
    fn unknown_magic_reports_first_bytes() {
        let err = detect(b"PK\x03\x04rest").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("50 4B 03 04"), "{text}");
        assert_eq!(err.offset, 0);
    }

    #[test]
    fn short_file_is_an_error() {
        assert!(detect(b"ID").is_err());
    }
}
