//! The Quake palette that `.mdl` skins index: `gfx/palette.lmp` (768 bytes, 256 RGB triples)
//! found in the model's folder or one above it, else the standard one kept here as data.
//!
//! `palette.lmp` beside this file is the standard Quake palette: the 256 triples of
//! `g_aclrDefaultColorMap` in assimp's `code/AssetLib/MDL/MDLDefaultColorMap.h` (assimp,
//! BSD-3-Clause, commit 6562850), written out as 768 raw bytes (md5
//! 79bc149d4f2fb0bd68cd8400a3fd87d4, the same bytes as id's `gfx/palette.lmp`).

use std::path::Path;
use std::sync::Arc;

use crate::formats::assets::Assets;

/// 256 RGB triples.
pub type Palette = Arc<[u8; 768]>;

const STANDARD: &[u8; 768] = include_bytes!("palette.lmp");

/// The standard Quake palette.
pub fn standard() -> Palette {
    Arc::new(*STANDARD)
}

/// Where a game keeps its palette, relative to a folder on the way up from the model.
const PLACES: [&str; 3] = ["gfx/palette.lmp", "palette.lmp", "palette/palette.lmp"];

/// The first palette found in `model_dir` or above it, with where it came from; a file of the
/// wrong size is passed over.
pub fn find(model_dir: &Path, assets: &mut Assets) -> Option<(Palette, String)> {
    for base in model_dir.ancestors() {
        for place in PLACES {
            let Some(asset) = assets.file_at(base, place) else { continue };
            let Ok(bytes) = asset.read() else { continue };
            if let Ok(colours) = <[u8; 768]>::try_from(bytes.as_slice()) {
                return Some((Arc::new(colours), asset.location()));
            }
        }
    }
    None
}

/// RGBA pixels of a picture of palette indices. Index 255 is Quake's transparent colour only
/// for sprites and brush textures; model skins draw it opaque, as here.
pub fn to_rgba(indices: &[u8], colours: &[u8; 768]) -> Vec<u8> {
    let mut out = Vec::with_capacity(indices.len() * 4);
    for &i in indices {
        let at = usize::from(i) * 3;
        let rgb = colours.get(at..at + 3).unwrap_or(&[0, 0, 0]);
        out.extend_from_slice(rgb);
        out.push(255);
    }
    out
}
