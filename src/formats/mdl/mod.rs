//! Quake `.mdl` (magic `IDPO`, version 6): placeholder until the decoder lands.

use std::path::Path;

use super::Pick;
use super::assets::Assets;
use super::error::{DecodeError, DecodeResult};
use crate::scene::Scene;

pub const FORMAT: &str = "quake1-mdl";

/// Decodes a Quake model into the scene.
pub fn decode(_data: &[u8]) -> DecodeResult<Scene> {
    Err(DecodeError::unsupported(FORMAT, "ident", 0, "Quake .mdl is not decoded yet"))
}

/// Opens a Quake model with its skins.
pub fn open(_path: &Path, data: &[u8], _assets: &mut Assets, _picks: &[Pick]) -> DecodeResult<Scene> {
    decode(data)
}
