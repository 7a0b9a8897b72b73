//! Texture lookup, decoding and classification, with no format knowledge: callers hand over a
//! texture name as a file states it plus an ordered list of folders, and get back pixels.
//!
//! - **Resolution.** A name is tried in each folder in order (the model's folder, a `textures/`
//!   folder beside it, then folders the user adds). Within a folder the comparison ignores case,
//!   and the name is tried as given, then with its extension swapped for `.png`, `.tga`, `.bmp`
//!   and `.pcx` (a TPW `.tga` or bare name tries `.wct` first). Folders may be directories
//!   inside `.wad` archives (see [`crate::formats::vfs`]). Names that carry a path
//!   (`models/tank/skin.pcx`, `data\\foo.tga`) are tried by their base name, which is the
//!   Quake II fallback.
//! - **Fallback.** A name that resolves nowhere, or a file that fails to decode, gets the engine's
//!   own answer: a deterministic 64x64 brown noise tile like TPW's `NotFound.tga`. That is never
//!   an error; the load report says what happened.
//! - **See-through classification.** [`classify_alpha`] tells cut-out art from true gradients,
//!   see its doc for the heuristic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use image::{Rgba, RgbaImage};

/// The side of the fallback tile, as the engine's `NotFound.tga`.
pub const FALLBACK_SIZE: u32 = 64;

/// Extensions tried for a texture name, in order of preference.
pub const IMAGE_EXTENSIONS: [&str; 8] = ["png", "tga", "bmp", "pcx", "jpg", "jpeg", "blp", "wct"];

/// The engine's fallback for an unresolved texture: a 64x64 brown noise tile. Deterministic
/// (a fixed-seed integer hash per texel), so golden images that show it stay stable.
pub fn fallback_tile() -> RgbaImage {
    const BROWN: [i32; 3] = [112, 78, 46];
    RgbaImage::from_fn(FALLBACK_SIZE, FALLBACK_SIZE, |x, y| {
        let noise = texel_hash(x, y);
        // Luminance noise of about ±20 levels, plus a little independent red jitter.
        let shade = (noise & 0x3f) as i32 - 32;
        let red_jitter = ((noise >> 8) & 0x0f) as i32 - 8;
        let channel = |base: i32, extra: i32| (base + shade * 5 / 8 + extra).clamp(0, 255) as u8;
        Rgba([channel(BROWN[0], red_jitter), channel(BROWN[1], 0), channel(BROWN[2], 0), 255])
    })
}

/// A well-mixed 32-bit hash of a texel coordinate (the `lowbias32` finaliser).
fn texel_hash(x: u32, y: u32) -> u32 {
    let mut h = x.wrapping_mul(0x9e37_79b9) ^ y.wrapping_mul(0x85eb_ca6b) ^ 0x5bd1_e995;
    h ^= h >> 16;
    h = h.wrapping_mul(0x7feb_352d);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846c_a68b);
    h ^= h >> 16;
    h
}

/// How a see-through texture should be drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeeThroughKind {
    /// Alpha is (nearly) all fully clear or fully opaque: alpha test, depth write.
    CutOut,
    /// Alpha holds real gradients: sorted blending without depth write.
    Blended,
}

/// Share of texels with partial alpha above which a texture counts as a true gradient.
pub const GRADIENT_SHARE: f32 = 0.25;

/// Alpha values strictly between these count as partial (a little slack on both ends, since
/// compressed or resampled cut-out art rarely lands exactly on 0 and 255).
const PARTIAL_ALPHA: std::ops::RangeInclusive<u8> = 24..=231;

/// Decides between cut-out and blended drawing for a see-through (TPW bit 0x02) texture.
///
/// The heuristic: cut-out art (palm fronds, grass, bats) is made of fully clear and fully
/// opaque texels, with partial alpha only along the antialiased rims of its shapes, a small
/// share of the image. Gradient art (ripple rings, sea, antenna cone) has partial alpha over
/// much of its area. So a texture is [`SeeThroughKind::Blended`] when more than
/// [`GRADIENT_SHARE`] of its texels have alpha in 24..=231, else [`SeeThroughKind::CutOut`].
/// A texture with no alpha at all is a cut-out that happens to hide nothing, which draws
/// exactly as opaque with correct depth.
pub fn classify_alpha(image: &RgbaImage) -> SeeThroughKind {
    let total = image.pixels().len();
    if total == 0 {
        return SeeThroughKind::CutOut;
    }
    let partial = image.pixels().filter(|p| PARTIAL_ALPHA.contains(&p.0[3])).count();
    if partial as f32 > GRADIENT_SHARE * total as f32 { SeeThroughKind::Blended } else { SeeThroughKind::CutOut }
}

/// The folders searched for a model's textures, in order: the model's folder, a `textures/`
/// folder beside it, then `extra` (folders the user added). For a model inside a `.wad`
/// archive, [`archive_search_dirs`] comes first.
pub fn search_dirs(model_path: Option<&Path>, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let member = model_path.and_then(crate::formats::wad::path::split_member_path);
    if let Some(member) = &member {
        dirs.extend(archive_search_dirs(member));
    }
    let loose = member.as_ref().map(|m| m.archive.as_path()).or(model_path);
    if let Some(parent) = loose.and_then(Path::parent) {
        let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
        dirs.push(parent.to_path_buf());
        dirs.push(parent.join("textures"));
    }
    dirs.extend(extra.iter().cloned());
    dirs
}

/// Where TPW keeps textures for a model inside an archive: the same archive's `textures\`
/// then `stexture\` (the low-detail set) and the model's own directory; then the theme's shared
/// texture archives beside it (`sharetex.wad`, then `ssharete.wad`); then the other archives
/// of that folder, in name order. Within each archive, its other directories follow those.
/// Loose files come after (see [`search_dirs`]).
pub fn archive_search_dirs(member: &crate::formats::wad::path::MemberPath) -> Vec<PathBuf> {
    // Each archive: `textures\`, `stexture\`, its root, then every other directory in it.
    let in_archive = |archive: &Path| {
        let join = |dir: &str| crate::formats::vfs::join_member(archive, dir);
        let mut dirs = vec![join("textures"), join("stexture"), archive.to_path_buf()];
        let mut pending = crate::formats::vfs::list_dirs(archive);
        pending.sort();
        while let Some(dir) = pending.pop() {
            pending.extend(crate::formats::vfs::list_dirs(&dir));
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs
    };
    let mut dirs = in_archive(&member.archive);
    if let Some((dir, _)) = member.member.rsplit_once('/') {
        dirs.insert(2, crate::formats::vfs::join_member(&member.archive, dir));
    }
    let folder = member.archive.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut others: Vec<PathBuf> = crate::formats::vfs::list_files(folder)
        .into_iter()
        .filter(|p| crate::formats::wad::path::has_wad_extension(p) && *p != member.archive)
        .collect();
    others.sort_by_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let rank = match name.as_str() {
            "sharetex.wad" => 0,
            "ssharete.wad" => 1,
            _ => 2,
        };
        (rank, name)
    });
    for other in others {
        dirs.extend(in_archive(&other));
    }
    dirs
}

/// Finds texture files by name in an ordered list of folders, case-insensitively. Each folder
/// is listed once and its listing kept, so resolving many names costs one directory read per
/// folder.
#[derive(Debug, Default)]
pub struct TextureResolver {
    dirs: Vec<PathBuf>,
    /// Per folder: lower-cased file name to the real path.
    listings: HashMap<PathBuf, HashMap<String, PathBuf>>,
}

impl TextureResolver {
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs, listings: HashMap::new() }
    }

    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The first file that matches `name` (see the module doc for the order), if any.
    pub fn resolve(&mut self, name: &str) -> Option<PathBuf> {
        let candidates = candidate_file_names(name);
        if candidates.is_empty() {
            return None;
        }
        let dirs = self.dirs.clone();
        for dir in &dirs {
            let listing = self.listing(dir);
            if let Some(found) = candidates.iter().find_map(|c| listing.get(c)) {
                return Some(found.clone());
            }
        }
        None
    }

    fn listing(&mut self, dir: &Path) -> &HashMap<String, PathBuf> {
        self.listings.entry(dir.to_path_buf()).or_insert_with(|| {
            let mut files = HashMap::new();
            // Through the archive seam: a folder may be a directory inside a `.wad`.
            for path in crate::formats::vfs::list_files(dir) {
                let Some(name) = path.file_name() else { continue };
                let lower = name.to_string_lossy().to_lowercase();
                // Keep the first of two names that differ only in case: listing order
                // is not stable, so prefer the one that sorts first.
                files.entry(lower).and_modify(|p: &mut PathBuf| *p = p.clone().min(path.clone())).or_insert(path);
            }
            files
        })
    }
}

/// Lower-cased file names to look for, best first: the base name as given when it already
/// names an image (or the `.wct` for a `.tga` or bare name, as TPW means it), then the stem
/// with each known extension. An unknown extension is also kept as part of the stem, in case
/// the art was saved as `name.ext.png`.
fn candidate_file_names(name: &str) -> Vec<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("").trim().to_lowercase();
    if base.is_empty() {
        return Vec::new();
    }
    let (stem, extension) = match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), Some(ext.to_string())),
        _ => (base.clone(), None),
    };
    let mut out = Vec::new();
    // TPW writes `.tga` (or nothing) where the install has a `.wct` of that name.
    if extension.as_deref().is_none_or(|e| e == "tga") {
        out.push(format!("{stem}.wct"));
    }
    let known = extension.as_deref().is_some_and(|e| IMAGE_EXTENSIONS.contains(&e));
    if known {
        out.push(base.clone());
    }
    for ext in IMAGE_EXTENSIONS {
        out.push(format!("{stem}.{ext}"));
    }
    if extension.is_some() && !known {
        for ext in IMAGE_EXTENSIONS {
            out.push(format!("{base}.{ext}"));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|name| seen.insert(name.clone()));
    out
}

/// Decodes an image file to RGBA8. The content decides the format (the extension is only a
/// hint); PCX, which the `image` crate lacks, is decoded here.
pub fn load_image(path: &Path) -> Result<RgbaImage> {
    let bytes = crate::formats::vfs::read(path).with_context(|| format!("reading {}", path.display()))?;
    // WCT has no magic bytes: the extension says to try it, the header's shape confirms.
    let is_wct_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("wct"));
    if is_wct_name && crate::formats::wct::looks_like_wct(&bytes) {
        let wct = crate::formats::wct::decode(&bytes).map_err(|e| anyhow!(e))?;
        return RgbaImage::from_raw(wct.width, wct.height, wct.rgba)
            .ok_or_else(|| anyhow!("WCT {} decoded to the wrong size", path.display()));
    }
    if bytes.first() == Some(&0x0a) && bytes.get(2) == Some(&1) {
        return decode_pcx(&bytes).with_context(|| format!("decoding PCX {}", path.display()));
    }
    if bytes.starts_with(b"BLP2") {
        // WoW textures, through the checked BLP2 decoder.
        let blp = crate::formats::m2::blp::decode(&bytes).map_err(|e| anyhow!(e))?;
        return RgbaImage::from_raw(blp.width, blp.height, blp.rgba)
            .ok_or_else(|| anyhow!("BLP {} decoded to the wrong size", path.display()));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(&bytes));
    // TGA has no magic bytes, so the extension is the starting guess that content overrides.
    if let Ok(format) = image::ImageFormat::from_path(path) {
        reader.set_format(format);
    }
    let image = reader
        .with_guessed_format()
        .context("guessing image format")?
        .decode()
        .with_context(|| format!("decoding {}", path.display()))?;
    Ok(image.to_rgba8())
}

/// Decodes a PCX (the Quake II skin format) through the one checked PCX decoder, which also
/// accepts a palette without its 0x0C marker when the image data stays clear of it.
pub fn decode_pcx(bytes: &[u8]) -> Result<RgbaImage> {
    crate::formats::quake2::pcx::decode(bytes).map_err(|e| anyhow!(e))
}

/// The chain of mip levels below `image` (box-filtered halvings down to 1x1), for sampling
/// without shimmer when the model is small on screen.
pub fn mip_chain(image: &RgbaImage) -> Vec<RgbaImage> {
    let mut levels = Vec::new();
    let mut current = image.clone();
    while current.width() > 1 || current.height() > 1 {
        let (w, h) = ((current.width() / 2).max(1), (current.height() / 2).max(1));
        let next = image::imageops::resize(&current, w, h, image::imageops::FilterType::Triangle);
        levels.push(next.clone());
        current = next;
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_tile_is_deterministic_brown_noise() {
        let a = fallback_tile();
        let b = fallback_tile();
        assert_eq!(a.dimensions(), (64, 64));
        assert_eq!(a.as_raw(), b.as_raw(), "the tile must not change between calls");
        // Pin the exact pixels so a change to the generator is a deliberate one (goldens show it).
        let fnv =
            a.as_raw().iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3));
        assert_eq!(fnv, FALLBACK_FNV, "fallback tile changed: update FALLBACK_FNV if intended (got {fnv:#x})");
        let n = f64::from(64 * 64);
        let mean = |c: usize| a.pixels().map(|p| f64::from(p.0[c])).sum::<f64>() / n;
        let (r, g, b) = (mean(0), mean(1), mean(2));
        assert!(r > g && g > b, "brown: red > green > blue, got {r} {g} {b}");
        assert!(a.pixels().all(|p| p.0[3] == 255), "opaque");
        let distinct: std::collections::HashSet<_> = a.pixels().map(|p| p.0).collect();
        assert!(distinct.len() > 32, "noise, not a flat colour");
    }

    const FALLBACK_FNV: u64 = 0x91f7_7bf7_b549_3d7b;

    fn with_alpha(f: impl Fn(u32, u32) -> u8) -> RgbaImage {
        RgbaImage::from_fn(32, 32, |x, y| Rgba([200, 200, 200, f(x, y)]))
    }

    #[test]
    fn cut_out_and_gradient_alpha_are_told_apart() {
        // A disc with a one-texel soft rim: cut-out.
        let disc = with_alpha(|x, y| {
            let d = ((x as f32 - 16.0).powi(2) + (y as f32 - 16.0).powi(2)).sqrt();
            if d < 10.0 {
                255
            } else if d < 11.0 {
                128
            } else {
                0
            }
        });
        assert_eq!(classify_alpha(&disc), SeeThroughKind::CutOut);
        // A radial ramp (a ripple ring): blended.
        let ramp = with_alpha(|x, _| (x * 8).min(255) as u8);
        assert_eq!(classify_alpha(&ramp), SeeThroughKind::Blended);
        // No alpha at all: a cut-out that hides nothing.
        assert_eq!(classify_alpha(&with_alpha(|_, _| 255)), SeeThroughKind::CutOut);
        // Uniform half alpha (a tinted glass sheet): blended.
        assert_eq!(classify_alpha(&with_alpha(|_, _| 128)), SeeThroughKind::Blended);
    }

    #[test]
    fn candidates_try_known_extensions_case_insensitively() {
        assert_eq!(
            candidate_file_names("Palm01"),
            [
                "palm01.wct",
                "palm01.png",
                "palm01.tga",
                "palm01.bmp",
                "palm01.pcx",
                "palm01.jpg",
                "palm01.jpeg",
                "palm01.blp"
            ]
        );
        // A `.tga` name means the `.wct` of that name first.
        assert_eq!(candidate_file_names("Sea.TGA").first().map(String::as_str), Some("sea.wct"));
        let q2 = candidate_file_names("models/monsters/tank/Skin.PCX");
        assert_eq!(q2.first().map(String::as_str), Some("skin.pcx"));
        assert!(q2.contains(&"skin.png".to_string()));
        let wct = candidate_file_names("sea.wct");
        assert_eq!(wct.first().map(String::as_str), Some("sea.wct"));
        assert!(wct.contains(&"sea.png".to_string()));
        assert!(candidate_file_names("").is_empty());
    }

    #[test]
    fn resolver_searches_folders_in_order() {
        let root = std::env::temp_dir().join(format!("mdview-tex-{}", std::process::id()));
        let textures = root.join("textures");
        let extra = root.join("extra");
        std::fs::create_dir_all(&textures).unwrap();
        std::fs::create_dir_all(&extra).unwrap();
        let tile = fallback_tile();
        tile.save(textures.join("Grass.TGA")).unwrap();
        tile.save(extra.join("grass.png")).unwrap();
        tile.save(extra.join("rock.bmp")).unwrap();
        let model = root.join("island.md2");
        let mut resolver = TextureResolver::new(search_dirs(Some(&model), std::slice::from_ref(&extra)));
        assert_eq!(resolver.resolve("GRASS"), Some(textures.join("Grass.TGA")));
        assert_eq!(resolver.resolve("rock"), Some(extra.join("rock.bmp")));
        assert_eq!(resolver.resolve("missing"), None);
        let loaded = load_image(&textures.join("Grass.TGA")).unwrap();
        assert_eq!(loaded.dimensions(), (64, 64));
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn pcx_decodes_runs_and_palette() {
        // 4x2 image: row 0 is a run of four index-1 texels, row 1 is literal 0,1,2,3.
        let mut bytes = vec![0u8; 128];
        bytes[0] = 0x0a;
        bytes[1] = 5;
        bytes[2] = 1;
        bytes[3] = 8;
        bytes[8] = 3; // xmax
        bytes[10] = 1; // ymax
        bytes[65] = 1;
        bytes[66] = 4; // bytes per line
        bytes.extend([0xc4, 1, 0, 1, 2, 3]);
        bytes.push(0x0c);
        let mut palette = vec![0u8; 768];
        palette[3..6].copy_from_slice(&[255, 0, 0]);
        palette[6..9].copy_from_slice(&[0, 255, 0]);
        bytes.extend(palette);
        let image = decode_pcx(&bytes).unwrap();
        assert_eq!(image.dimensions(), (4, 2));
        assert_eq!(image.get_pixel(3, 0).0, [255, 0, 0, 255]);
        assert_eq!(image.get_pixel(2, 1).0, [0, 255, 0, 255]);
        // Truncations fail cleanly.
        for len in 0..bytes.len() {
            let _ = decode_pcx(&bytes[..len]);
        }
    }
}
