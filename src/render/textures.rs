//! What the renderer does with decoded texture pixels; finding and decoding them is
//! `formats::assets`' work, reached through [`crate::scene::SceneImage::load`].
//!
//! - **Fallback.** A name that resolves nowhere, or a file that fails to decode, gets the engine's
//!   own answer: a deterministic 64x64 brown noise tile like TPW's `NotFound.tga`. That is never
//!   an error; the load report says what happened.
//! - **See-through classification.** [`classify_alpha`] tells cut-out art from true gradients,
//!   see its doc for the heuristic.

use image::RgbaImage;

pub use crate::scene::fallback::FALLBACK_SIZE;

/// The engine's fallback for an unresolved texture ([`crate::scene::fallback::fallback_tile`],
/// which the glTF export embeds too), as an image to upload.
pub fn fallback_tile() -> RgbaImage {
    let tile = crate::scene::fallback::fallback_tile();
    RgbaImage::from_raw(tile.width, tile.height, tile.rgba).unwrap_or_else(|| RgbaImage::new(1, 1))
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
    use image::Rgba;

    #[test]
    fn fallback_tile_uploads_the_scene_tile() {
        let tile = fallback_tile();
        assert_eq!(tile.dimensions(), (FALLBACK_SIZE, FALLBACK_SIZE));
        assert_eq!(tile.as_raw(), &crate::scene::fallback::fallback_tile().rgba);
    }

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
