//! PCX images (Quake II skins): 8-bit RLE with a 256-colour palette at the end, and 24-bit
//! three-plane RLE. Hand-written because the `image` crate dropped PCX and the standalone
//! crate rejects palettes whose marker byte is not 0x0C, which real skins need: such a file
//! is accepted when its image data ends before the final 768 bytes that hold the palette.

use image::RgbaImage;

use crate::formats::error::{DecodeError, DecodeResult};
use crate::formats::reader::Reader;

const FORMAT: &str = "pcx";
const HEADER_SIZE: u64 = 128;
const PALETTE_SIZE: u64 = 768;
/// RLE runs hold at most 63 bytes per 2 file bytes; more pixels than this cannot be present.
const MAX_EXPANSION: u64 = 32;

pub fn decode(data: &[u8]) -> DecodeResult<RgbaImage> {
    let r = Reader::new(data, FORMAT);
    if r.u8(0, "manufacturer")? != 0x0A {
        return Err(r.invalid("manufacturer", 0, "not a PCX file (expected 0x0A)"));
    }
    if r.u8(2, "encoding")? != 1 {
        return Err(DecodeError::unsupported(FORMAT, "encoding", 2, "only RLE-encoded PCX is supported"));
    }
    let bits = r.u8(3, "bits per pixel")?;
    let (x0, y0, x1, y1) = (r.u16(4, "xmin")?, r.u16(6, "ymin")?, r.u16(8, "xmax")?, r.u16(10, "ymax")?);
    let planes = u64::from(r.u8(65, "planes")?);
    let bytes_per_line = u64::from(r.u16(66, "bytes per line")?);
    if x1 < x0 || y1 < y0 {
        return Err(r.invalid("window", 4, format!("empty image window {x0},{y0}..{x1},{y1}")));
    }
    let width = u64::from(x1 - x0) + 1;
    let height = u64::from(y1 - y0) + 1;
    if bits != 8 || !(planes == 1 || planes == 3) {
        return Err(DecodeError::unsupported(FORMAT, "bits per pixel", 3, format!("{bits}-bit x {planes} planes")));
    }
    if bytes_per_line < width {
        return Err(r.invalid("bytes per line", 66, format!("{bytes_per_line} is less than the width {width}")));
    }
    let line = bytes_per_line * planes;
    let total = line.checked_mul(height).ok_or_else(|| r.invalid("height", 10, "image size overflows"))?;
    if total > r.len().saturating_mul(MAX_EXPANSION) {
        return Err(r.invalid(
            "window",
            4,
            format!("{width}x{height} is more than {} bytes of RLE could hold", r.len()),
        ));
    }

    // Expand the RLE stream.
    let body = r.bytes(HEADER_SIZE, r.len().saturating_sub(HEADER_SIZE), "image data")?;
    let mut pixels = Vec::with_capacity(total as usize);
    let mut consumed = 0usize;
    let mut bytes = body.iter();
    while (pixels.len() as u64) < total {
        let Some(&b) = bytes.next() else {
            return Err(r.invalid("image data", HEADER_SIZE + consumed as u64, "RLE data ends before the image does"));
        };
        consumed += 1;
        if b & 0xC0 == 0xC0 {
            let Some(&value) = bytes.next() else {
                return Err(r.invalid("image data", HEADER_SIZE + consumed as u64, "RLE run has no value byte"));
            };
            consumed += 1;
            let run = usize::from(b & 0x3F).min((total as usize).saturating_sub(pixels.len()));
            pixels.extend(std::iter::repeat_n(value, run));
        } else {
            pixels.push(b);
        }
    }
    let data_end = HEADER_SIZE + consumed as u64;

    let mut out = RgbaImage::new(width as u32, height as u32);
    if planes == 1 {
        let palette_start = r
            .len()
            .checked_sub(PALETTE_SIZE)
            .filter(|&p| p >= HEADER_SIZE)
            .ok_or_else(|| r.invalid("palette", r.len(), "the file is too short to end with a 768-byte palette"))?;
        let marker_ok = palette_start > 0 && r.u8(palette_start - 1, "palette marker")? == 0x0C;
        if !marker_ok && data_end > palette_start {
            return Err(r.invalid(
                "palette",
                palette_start,
                "no 0x0C marker, and the image data overlaps the last 768 bytes, so they are not a palette",
            ));
        }
        let palette = r.bytes(palette_start, PALETTE_SIZE, "palette")?;
        for (y, row) in pixels.chunks_exact(line as usize).enumerate() {
            for (x, &index) in row.iter().take(width as usize).enumerate() {
                let at = usize::from(index) * 3;
                let rgb = palette.get(at..at + 3).unwrap_or(&[0, 0, 0]);
                let [red, green, blue] = [0, 1, 2].map(|k| rgb.get(k).copied().unwrap_or(0));
                out.put_pixel(x as u32, y as u32, image::Rgba([red, green, blue, 255]));
            }
        }
    } else {
        let plane = bytes_per_line as usize;
        for (y, row) in pixels.chunks_exact(line as usize).enumerate() {
            for x in 0..width as usize {
                let channel = |p: usize| row.get(p * plane + x).copied().unwrap_or(0);
                out.put_pixel(x as u32, y as u32, image::Rgba([channel(0), channel(1), channel(2), 255]));
            }
        }
    }
    Ok(out)
}

/// Encodes an 8-bit palettised PCX (for fixtures and tests).
pub fn encode_indexed(width: u16, height: u16, indices: &[u8], palette: &[[u8; 3]; 256], marker: u8) -> Vec<u8> {
    let mut out = vec![0u8; HEADER_SIZE as usize];
    let header: [(usize, &[u8]); 8] = [
        (0, &[0x0A, 5, 1, 8]),
        (8, &(width - 1).to_le_bytes()),
        (10, &(height - 1).to_le_bytes()),
        (12, &72u16.to_le_bytes()),
        (14, &72u16.to_le_bytes()),
        (65, &[1]),
        (66, &width.to_le_bytes()),
        (68, &1u16.to_le_bytes()),
    ];
    for (at, bytes) in header {
        for (k, b) in bytes.iter().enumerate() {
            if let Some(slot) = out.get_mut(at + k) {
                *slot = *b;
            }
        }
    }
    for row in indices.chunks(usize::from(width)) {
        let mut i = 0;
        while i < row.len() {
            let value = row.get(i).copied().unwrap_or(0);
            let run = row.iter().skip(i).take(63).take_while(|&&v| v == value).count();
            if run > 1 || value & 0xC0 == 0xC0 {
                out.extend([0xC0 | run as u8, value]);
            } else {
                out.push(value);
            }
            i += run.max(1);
        }
    }
    out.push(marker);
    out.extend(palette.iter().flatten());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn palette() -> [[u8; 3]; 256] {
        let mut p = [[0u8; 3]; 256];
        for (i, c) in p.iter_mut().enumerate() {
            *c = [i as u8, 255 - i as u8, (i * 7) as u8];
        }
        p
    }

    #[test]
    fn decodes_rle_and_the_trailing_palette() {
        let indices = [1, 1, 1, 200, 5, 5, 0xC5, 9];
        let bytes = encode_indexed(4, 2, &indices, &palette(), 0x0C);
        let img = decode(&bytes).unwrap();
        assert_eq!(img.dimensions(), (4, 2));
        assert_eq!(img.get_pixel(0, 0).0, [1, 254, 7, 255]);
        assert_eq!(img.get_pixel(3, 0).0, [200, 55, (200 * 7) as u8, 255]);
        assert_eq!(img.get_pixel(2, 1).0, [0xC5, 255 - 0xC5, (0xC5 * 7) as u8, 255]);
    }

    #[test]
    fn accepts_a_wrong_marker_only_when_the_palette_is_clear_of_the_data() {
        let indices = [3u8; 16];
        let bytes = encode_indexed(4, 4, &indices, &palette(), 0x00);
        assert_eq!(decode(&bytes).unwrap().get_pixel(1, 1).0, [3, 252, 21, 255]);
        // Cut the file so the data runs into the last 768 bytes: no longer a palette.
        let cut = &bytes[..bytes.len() - 2];
        assert!(decode(cut).is_err());
    }

    #[test]
    fn huge_windows_are_refused_before_allocating() {
        let mut bytes = encode_indexed(4, 4, &[0; 16], &palette(), 0x0C);
        bytes[8..10].copy_from_slice(&0xFFFFu16.to_le_bytes());
        bytes[10..12].copy_from_slice(&0xFFFFu16.to_le_bytes());
        bytes[66..68].copy_from_slice(&0xFFFFu16.to_le_bytes());
        assert!(decode(&bytes).is_err());
    }
}
