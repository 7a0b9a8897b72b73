//! The engine's answer to a texture that resolves nowhere or fails to decode: a deterministic
//! 64x64 brown noise tile like TPW's `NotFound.tga`. The renderer draws it and the glTF export
//! embeds it, so a file plays what the viewer shows (a UV scroll still moves a visible texture).

use super::Image;

/// The side of the fallback tile, as the engine's `NotFound.tga`.
pub const FALLBACK_SIZE: u32 = 64;

/// Where [`fallback_tile`]'s pixels say they came from.
pub const FALLBACK_LOCATION: &str = "fallback tile";

/// The fallback tile's pixels. Deterministic (a fixed-seed integer hash per texel), so golden
/// images that show it stay stable.
pub fn fallback_tile() -> Image {
    const BROWN: [i32; 3] = [112, 78, 46];
    let mut rgba = Vec::with_capacity((FALLBACK_SIZE * FALLBACK_SIZE * 4) as usize);
    for y in 0..FALLBACK_SIZE {
        for x in 0..FALLBACK_SIZE {
            let noise = texel_hash(x, y);
            // Luminance noise of about ±20 levels, plus a little independent red jitter.
            let shade = (noise & 0x3f) as i32 - 32;
            let red_jitter = ((noise >> 8) & 0x0f) as i32 - 8;
            let channel = |base: i32, extra: i32| (base + shade * 5 / 8 + extra).clamp(0, 255) as u8;
            rgba.extend_from_slice(&[channel(BROWN[0], red_jitter), channel(BROWN[1], 0), channel(BROWN[2], 0), 255]);
        }
    }
    Image { width: FALLBACK_SIZE, height: FALLBACK_SIZE, rgba, location: FALLBACK_LOCATION.into() }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_tile_is_deterministic_brown_noise() {
        let a = fallback_tile();
        let b = fallback_tile();
        assert_eq!((a.width, a.height), (64, 64));
        assert_eq!(a.rgba.len(), 64 * 64 * 4);
        assert_eq!(a.rgba, b.rgba, "the tile must not change between calls");
        // Pin the exact pixels so a change to the generator is a deliberate one (goldens show it).
        let fnv =
            a.rgba.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3));
        assert_eq!(fnv, FALLBACK_FNV, "fallback tile changed: update FALLBACK_FNV if intended (got {fnv:#x})");
        let texels: Vec<&[u8]> = a.rgba.chunks_exact(4).collect();
        let n = texels.len() as f64;
        let mean = |c: usize| texels.iter().map(|p| f64::from(p[c])).sum::<f64>() / n;
        let (r, g, b) = (mean(0), mean(1), mean(2));
        assert!(r > g && g > b, "brown: red > green > blue, got {r} {g} {b}");
        assert!(texels.iter().all(|p| p[3] == 255), "opaque");
        let distinct: std::collections::HashSet<&[u8]> = texels.iter().copied().collect();
        assert!(distinct.len() > 32, "noise, not a flat colour");
    }

    const FALLBACK_FNV: u64 = 0x91f7_7bf7_b549_3d7b;
}
