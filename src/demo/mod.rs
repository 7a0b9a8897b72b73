//! The built-in demo. No Theme Park World game files are public, so the project ships its own,
//! made by its own writers ([`crate::writers::tpw`], [`crate::writers::park`], the WAD and WCT
//! encoders) with procedural textures. It has two halves:
//!
//! - **The park** ([`PARK_SAVE`], what the viewer opens by default): a synthetic jungle install
//!   under `data/levels/jungle/` (the category `.sam` files; one WAD per item in `rides/`,
//!   `shops/`, `sideshow/` and `features/`, each with its `.sam`, model, clips and `.wct`
//!   textures; the ground's `terrain.wad` and `queue.wad`) and a save `demo.TPWS` beside it
//!   placing fourteen items at every quarter turn with a path, a queue, an item held on a clip,
//!   looping ones, one whose WAD is missing and a hidden node. See `park`, `items`, `ground`.
//! - **The models** (`models`), loose and in `park.wad`: `island.MD2` (sheared palm dummies,
//!   see-through water scrolled by `islandM1.MD2`), `gate.MD2` (built by `gateC.MD2`, doors swung
//!   eased by `gateM1.MD2` and back by `gateM2.MD2` while the sign blinks) and `fountain.MD2`
//!   (`fountainM1.MD2`: a water morph in the track's own box and a five-key UV flow). The same
//!   models, wrapped as items, stand in the park. `park.wad` holds them RefPack-compressed
//!   under `models/` with the textures as `.wct` under `textures/`, as an install is browsed.
//!
//! [`generate`] and [`generate_park`] build every file deterministically (`cargo run --example
//! make_demo` writes them to `assets/demo/`); [`files`] and [`park_files`] are the committed
//! copies embedded in the binary, and [`extract`] writes them to a temp folder so the viewer and
//! CLI open them by path with their siblings and install.

mod geometry;
mod ground;
mod items;
mod models;
mod park;
mod synthetic;
mod textures;

use std::path::PathBuf;

pub use park::{PARK_SAVE, generate_park};
pub use synthetic::synthetic_park;

use models::{fountain, fountain_m1, gate, gate_construction, gate_swing, island, island_m1};
use textures::TEXTURES;

/// The model to open first: inside the demo archive, as a real install keeps its models.
pub const MAIN_MODEL: &str = "park.wad/models/island.MD2";

/// The demo park as a TPW archive: the models (RefPack) under `models\`, the textures as
/// `.wct` (stored) under `textures\`.
pub const ARCHIVE: &str = "park.wad";

macro_rules! embed {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/", $name)))),*]
    };
}

static FILES: &[(&str, &[u8])] = embed!(
    "island.MD2",
    "islandM1.MD2",
    "gate.MD2",
    "gateC.MD2",
    "gateM1.MD2",
    "gateM2.MD2",
    "fountain.MD2",
    "fountainM1.MD2",
    "isle_grass.png",
    "isle_sand.png",
    "palm_bark.png",
    "palm_leaves.png",
    "isle_ripple.png",
    "sea_water.png",
    "gate_wood.png",
    "stone_blocks.png",
    "ftn_water.png",
    "park.wad",
);

static PARK_FILES: &[(&str, &[u8])] = embed!(
    "data/levels/jungle/rides/Rides.sam",
    "data/levels/jungle/rides/carousel.wad",
    "data/levels/jungle/shops/Shops.sam",
    "data/levels/jungle/shops/kiosk.wad",
    "data/levels/jungle/sideshow/SideShow.sam",
    "data/levels/jungle/sideshow/hoopla.wad",
    "data/levels/jungle/features/Features.sam",
    "data/levels/jungle/features/gate.wad",
    "data/levels/jungle/features/fountain.wad",
    "data/levels/jungle/features/isle.wad",
    "data/levels/jungle/features/palm.wad",
    "data/levels/jungle/terrain.wad",
    "data/levels/jungle/queue.wad",
    "demo.TPWS",
);

/// The demo's model files as committed under `assets/demo/`, by file name.
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    FILES
}

/// The demo park's files as committed under `assets/demo/`, by path (`/`-separated) under it.
pub fn park_files() -> &'static [(&'static str, &'static [u8])] {
    PARK_FILES
}

/// The folder [`extract`] writes to: `mdview-demo-<crate version>` under the OS temp dir.
pub fn folder() -> PathBuf {
    std::env::temp_dir().join(format!("mdview-demo-{}", env!("CARGO_PKG_VERSION")))
}

/// Writes the demo files and the park to [`folder`] (rewriting any that differ, removing models that are not
/// part of the demo) and returns the folder. Each file is written under a unique temporary name
/// and renamed, so concurrent extractions never see a half-written file.
pub fn extract() -> std::io::Result<PathBuf> {
    let dir = folder();
    std::fs::create_dir_all(&dir)?;
    // A model left over from an older demo would be picked up as a sibling animation.
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let is_model = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md2"));
        if is_model && !files().iter().any(|(n, _)| *n == name) {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    for (name, data) in files().iter().chain(park_files()) {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == *data) {
            continue;
        }
        let Some(file_name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { continue };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let temp =
            path.with_file_name(format!(".{file_name}.{}.{:?}.tmp", std::process::id(), std::thread::current().id()));
        std::fs::write(&temp, data)?;
        std::fs::rename(&temp, &path)?;
    }
    Ok(dir)
}

/// Builds every demo file, in the order of [`files`].
pub fn generate() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        ("island.MD2".to_string(), island().to_bytes()),
        ("islandM1.MD2".to_string(), island_m1().to_bytes()),
        ("gate.MD2".to_string(), gate().to_bytes()),
        ("gateC.MD2".to_string(), gate_construction().to_bytes()),
        ("gateM1.MD2".to_string(), gate_swing(false).to_bytes()),
        ("gateM2.MD2".to_string(), gate_swing(true).to_bytes()),
        ("fountain.MD2".to_string(), fountain().to_bytes()),
        ("fountainM1.MD2".to_string(), fountain_m1().to_bytes()),
    ];
    for texture in TEXTURES {
        out.push((format!("{}.png", texture.name), (texture.paint)()));
    }
    let archive = park_wad(&out);
    out.push((ARCHIVE.to_string(), archive));
    out
}

/// The archive of the demo: each model RefPack-compressed under `models/`, each PNG texture
/// encoded as `.wct` (BILZ chunks, alpha where the PNG has it) under `textures/`.
fn park_wad(loose: &[(String, Vec<u8>)]) -> Vec<u8> {
    use crate::writers::wad::{WadMember, write_wad};
    let mut members = Vec::new();
    for (name, data) in loose {
        if name.ends_with(".MD2") {
            members.push(WadMember::compressed(format!("models/{name}"), data));
        } else if let Some(stem) = name.strip_suffix(".png")
            && let Some(wct) = wct_of_png(data)
        {
            members.push(WadMember::stored(format!("textures/{stem}.wct"), &wct));
        }
    }
    write_wad(&members)
}

/// A PNG texture as `.wct` (BILZ chunks, alpha where the PNG has it); `None` if it does not decode.
fn wct_of_png(png: &[u8]) -> Option<Vec<u8>> {
    use crate::writers::wct::{WctOptions, encode};
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png).ok()?;
    let alpha = image.color().has_alpha();
    let rgba = image.to_rgba8();
    let options = WctOptions { alpha, ..WctOptions::default() };
    Some(encode(rgba.as_raw(), rgba.width(), rgba.height(), options))
}
