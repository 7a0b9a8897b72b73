//! What the renderer does with decoded texture pixels; finding and decoding them is
//! `formats::assets`' work, reached through [`crate::scene::SceneImage::load`].
//!
//! - **Fallback.** A name that resolves nowhere, or a file that fails to decode, gets the engine's
//!   own answer: a deterministic 64x64 brown noise tile like TPW's `NotFound.tga`. That is never
//!   an error; the load report says what happened.
//! - **See-through classification.** [`classify_alpha`] tells cut-out art from true gradients,
//!   see its doc for the heuristic.

use image::{Rgba, RgbaImage};

/// The side of the fallback tile, as the engine's `NotFound.tga`.
pub const FALLBACK_SIZE: u32 = 64;

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

pub use crate::scene::{GRADIENT_SHARE, SeeThroughKind};

/// Decides between cut-out and blended drawing for a see-through (TPW bit 0x02) texture: the
/// scene's one rule ([`crate::scene::classify_see_through`]), which the exporters share.
pub fn classify_alpha(image: &RgbaImage) -> SeeThroughKind {
    crate::scene::classify_see_through(image.as_raw())
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
}
