//! Quake 3 `.mdr` (`RDM5`): skeletal models with levels of detail, plain or compressed frames of
//! bone matrices, tags, and vertices skinned on the CPU from per-bone offsets.
//!
//! - [`layout`]: every offset and record size the spec and the engine notes state.
//! - [`decode`](mod@decode): the file into its records, validated (see its doc for what is checked).
//! - [`mapping`]: the records onto the scene (axes, skins, LODs, tags, clips).
//! - The encoder for fixtures and the demo model is [`crate::writers::mdr`] (no `.mdr` files are public).

pub mod decode;
pub mod layout;
pub mod mapping;

use crate::formats::error::DecodeResult;
use crate::scene::Scene;

pub const FORMAT: &str = "quake3-mdr";

/// Decodes a whole `.mdr` file into a scene.
pub fn decode(data: &[u8]) -> DecodeResult<Scene> {
    decode::parse(data).map(|model| mapping::to_scene(&model))
}
