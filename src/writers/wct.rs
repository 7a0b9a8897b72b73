//! Encodes RGBA images as `.wct`: RGB to YCbCr (chroma averaged over 2x2 blocks), edge
//! padding to the power-of-two square, the forward D4 transform (for half scale, the
//! least-squares fit of the decoder's half-scale row pass), quantisation by the header's steps,
//! the coefficient byte coding, then a `BILZ` or LZSS chunk.

use crate::formats::wct::chunk::{ChunkCoding, encode_bilz, encode_lzss};
use crate::formats::wct::wavelet::{forward_2d, forward_2d_half_scale};
use crate::formats::wct::{FLAG_COMPRESSED, FLAG_FULL_SCALE, WctHeader, dequantisation, padded_size};

/// Encoder settings.
#[derive(Debug, Clone, Copy)]
pub struct WctOptions {
    pub coding: ChunkCoding,
    /// Write an alpha chunk (alpha byte 1).
    pub alpha: bool,
    /// Full scale (flag bit 0). Half scale multiplies every step by π/6 and its rows hold
    /// only `size/2 + 1` coefficients each, so it keeps about half the detail across.
    pub full_scale: bool,
    /// The header's quantisation numbers n for Y, Cb, Cr, A.
    pub scales: [i16; 4],
}

impl Default for WctOptions {
    fn default() -> Self {
        Self { coding: ChunkCoding::Bilz, alpha: false, full_scale: true, scales: [0; 4] }
    }
}

/// The `.wct` bytes for a `width`×`height` RGBA8 image (rows top first). Missing pixels read
/// as opaque black.
pub fn encode(rgba: &[u8], width: u32, height: u32, options: WctOptions) -> Vec<u8> {
    let size = padded_size(width, height) as usize;
    let (w, h) = (width.max(1) as usize, height.max(1) as usize);
    // Edge padding: the pixel nearest inside the image, so padding adds no hard edge.
    let pixel = |x: usize, y: usize| -> [f32; 4] {
        let at = (y.min(h - 1) * w + x.min(w - 1)) * 4;
        let px = rgba.get(at..at + 4).unwrap_or(&[0, 0, 0, 255]);
        std::array::from_fn(|i| f32::from(px.get(i).copied().unwrap_or(255)))
    };
    let mut luma = vec![0.0f32; size * size];
    let mut alpha = vec![0.0f32; size * size];
    for (i, (l, a)) in luma.iter_mut().zip(alpha.iter_mut()).enumerate() {
        let [r, g, b, al] = pixel(i % size, i / size);
        // Half a level up: the decoder truncates, so what it gives back is rounded.
        *l = 0.299 * r + 0.587 * g + 0.114 * b + 0.5;
        *a = al + 0.5;
    }
    let half = size / 2;
    let mut cb = vec![0.0f32; half * half];
    let mut cr = vec![0.0f32; half * half];
    for (i, (b_diff, r_diff)) in cb.iter_mut().zip(cr.iter_mut()).enumerate() {
        let (cx, cy) = (i % half * 2, i / half * 2);
        for (x, y) in [(cx, cy), (cx + 1, cy), (cx, cy + 1), (cx + 1, cy + 1)] {
            let [r, g, b, _] = pixel(x, y);
            *b_diff += (-0.168_736 * r - 0.331_264 * g + 0.5 * b) / 4.0;
            *r_diff += (0.5 * r - 0.418_688 * g - 0.081_312 * b) / 4.0;
        }
    }

    let mut header = WctHeader {
        flags: if options.full_scale { FLAG_FULL_SCALE } else { 0 }
            | if options.coding == ChunkCoding::Raw { 0 } else { FLAG_COMPRESSED },
        alpha_byte: u8::from(options.alpha),
        bit_depth: if options.alpha { 32 } else { 24 },
        version: 1,
        width: width as i16,
        height: height as i16,
        scales: options.scales,
        colour_size: 0,
        alpha_size: 0,
        checksum: 0,
    };
    let steps = dequantisation(&header);
    let mut colour = Vec::new();
    let half_scale = !options.full_scale;
    code_plane(&luma, size, steps[0], half_scale.then_some(false), &mut colour);
    code_plane(&cb, half, steps[1], half_scale.then_some(false), &mut colour);
    code_plane(&cr, half, steps[2], half_scale.then_some(false), &mut colour);
    let colour = pack(&colour, options.coding);
    let alpha_chunk = if options.alpha {
        let mut bytes = Vec::new();
        code_plane(&alpha, size, steps[3], half_scale.then_some(true), &mut bytes);
        pack(&bytes, options.coding)
    } else {
        Vec::new()
    };
    header.colour_size = colour.len() as i32;
    header.alpha_size = alpha_chunk.len() as i32;
    let mut out = header.write();
    out.extend_from_slice(&colour);
    out.extend_from_slice(&alpha_chunk);
    out
}

/// Transforms, quantises (the row pass carries the step) and byte-codes one plane.
/// `half_scale_alpha` is `None` at full scale, else whether the plane is alpha.
fn code_plane(plane: &[f32], size: usize, step: f32, half_scale_alpha: Option<bool>, out: &mut Vec<u8>) {
    let coefficients = match half_scale_alpha {
        None => forward_2d(plane, size),
        Some(alpha) => forward_2d_half_scale(plane, size, alpha),
    };
    for value in coefficients {
        push_coefficient((value / step).round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16, out);
    }
}

/// A signed byte, or `0x80` and a little-endian i16 for values outside −127..=127.
pub fn push_coefficient(value: i16, out: &mut Vec<u8>) {
    match i8::try_from(value) {
        Ok(small) if small != i8::MIN => out.push(small as u8),
        _ => {
            out.push(0x80);
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
}

fn pack(bytes: &[u8], coding: ChunkCoding) -> Vec<u8> {
    match coding {
        ChunkCoding::Bilz => encode_bilz(bytes),
        ChunkCoding::Lzss => encode_lzss(bytes),
        ChunkCoding::Raw => bytes.to_vec(),
    }
}
