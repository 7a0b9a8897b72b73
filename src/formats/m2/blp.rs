//! BLP2 textures (magic `BLP2`), the first mip level only: palettised with 0/1/4/8-bit alpha,
//! DXT1/3/5, and raw BGRA. Written here rather than taken from `wow-blp` so that it reads
//! through the one bounds-checked reader and cannot panic on damaged files. JPEG-content BLPs
//! (type 0) are reported as unsupported.

use crate::formats::error::{DecodeResult, ErrorKind};
use crate::formats::reader::Reader;

pub const FORMAT: &str = "blp2";
pub const MAGIC: [u8; 4] = *b"BLP2";
const HEADER_SIZE: u64 = 148;
const PALETTE_OFFSET: u64 = 148;
/// Side limit: WoW textures are at most 4096; anything larger is damage.
const MAX_SIDE: u32 = 8192;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Palette { alpha_bits: u8 },
    Dxt1,
    Dxt3,
    Dxt5,
    Raw,
}

impl Encoding {
    pub fn label(self) -> String {
        match self {
            Encoding::Palette { alpha_bits } => format!("palettised, {alpha_bits}-bit alpha"),
            Encoding::Dxt1 => "DXT1".into(),
            Encoding::Dxt3 => "DXT3".into(),
            Encoding::Dxt5 => "DXT5".into(),
            Encoding::Raw => "raw BGRA".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub width: u32,
    pub height: u32,
    pub encoding: Encoding,
    pub alpha_depth: u8,
    pub has_mips: bool,
    pub mip0_offset: u64,
    pub mip0_size: u64,
}

/// An RGBA8 image, rows top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads and checks the header (cheap: for sizes in `info`).
pub fn header(data: &[u8]) -> DecodeResult<Header> {
    let r = Reader::new(data, FORMAT);
    if r.bytes(0, 4, "magic")? != MAGIC {
        return Err(r.invalid("magic", 0, "not a BLP2 texture"));
    }
    r.bytes(0, HEADER_SIZE, "header")?;
    let content = r.u32(4, "content type")?;
    if content != 1 {
        return Err(r.error("content type", 4, ErrorKind::Unsupported("JPEG-content BLP".into())));
    }
    let compression = r.u8(8, "compression")?;
    let alpha_depth = r.u8(9, "alpha depth")?;
    let alpha_type = r.u8(10, "alpha type")?;
    let has_mips = r.u8(11, "has mips")? != 0;
    let width = r.u32(12, "width")?;
    let height = r.u32(16, "height")?;
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(r.invalid("width", 12, format!("size {width}x{height} is outside 1..={MAX_SIDE}")));
    }
    let encoding = match (compression, alpha_type) {
        (1, _) if matches!(alpha_depth, 0 | 1 | 4 | 8) => Encoding::Palette { alpha_bits: alpha_depth },
        (1, _) => return Err(r.invalid("alpha depth", 9, format!("{alpha_depth} is not 0, 1, 4 or 8"))),
        (2, 0) => Encoding::Dxt1,
        (2, 1) => Encoding::Dxt3,
        (2, 7) => Encoding::Dxt5,
        (2, t) => return Err(r.error("alpha type", 10, ErrorKind::Unsupported(format!("DXT alpha type {t}")))),
        (3, _) => Encoding::Raw,
        (c, _) => return Err(r.error("compression", 8, ErrorKind::Unsupported(format!("compression {c}")))),
    };
    Ok(Header {
        width,
        height,
        encoding,
        alpha_depth,
        has_mips,
        mip0_offset: u64::from(r.u32(20, "mip offset")?),
        mip0_size: u64::from(r.u32(84, "mip size")?),
    })
}

/// Decodes the first mip level to RGBA8.
pub fn decode(data: &[u8]) -> DecodeResult<Image> {
    let h = header(data)?;
    let r = Reader::new(data, FORMAT);
    // RGBA of the first level, with the smaller levels at most a third more.
    r.check_budget(u64::from(h.width) * u64::from(h.height) * 4 * 4 / 3, "width", 12)?;
    let (w, ht) = (u64::from(h.width), u64::from(h.height));
    let pixels = w * ht;
    let blocks = w.div_ceil(4) * ht.div_ceil(4);
    let needed = match h.encoding {
        Encoding::Palette { alpha_bits } => pixels + (pixels * u64::from(alpha_bits)).div_ceil(8),
        Encoding::Dxt1 => blocks * 8,
        Encoding::Dxt3 | Encoding::Dxt5 => blocks * 16,
        Encoding::Raw => pixels * 4,
    };
    // Check the bytes exist before allocating the image.
    let src = r.bytes(h.mip0_offset, needed, "mip 0")?;
    let mut rgba = vec![0u8; (pixels * 4) as usize];
    match h.encoding {
        Encoding::Palette { alpha_bits } => {
            let palette = r.bytes(PALETTE_OFFSET, 1024, "palette")?;
            let (indices, alpha) = src.split_at(pixels as usize);
            for (i, (out, &index)) in rgba.chunks_exact_mut(4).zip(indices).enumerate() {
                let p = usize::from(index) * 4;
                let color = palette.get(p..p + 4).unwrap_or(&[0, 0, 0, 0]);
                let a = match alpha_bits {
                    0 => 255,
                    1 => alpha.get(i / 8).map_or(255, |b| if b >> (i % 8) & 1 != 0 { 255 } else { 0 }),
                    4 => alpha.get(i / 2).map_or(255, |b| ((b >> ((i % 2) * 4)) & 0xF) * 17),
                    _ => alpha.get(i).copied().unwrap_or(255),
                };
                out.copy_from_slice(&[
                    color.get(2).copied().unwrap_or(0),
                    color.get(1).copied().unwrap_or(0),
                    color.first().copied().unwrap_or(0),
                    a,
                ]);
            }
        }
        Encoding::Raw => {
            for (out, bgra) in rgba.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
                if let [b, g, r, a] = *bgra {
                    out.copy_from_slice(&[r, g, b, a]);
                }
            }
        }
        Encoding::Dxt1 | Encoding::Dxt3 | Encoding::Dxt5 => {
            let block_size = if h.encoding == Encoding::Dxt1 { 8 } else { 16 };
            let blocks_x = w.div_ceil(4) as usize;
            for (b, block) in src.chunks_exact(block_size).enumerate() {
                let texels = decode_block(h.encoding, block, h.alpha_depth > 0);
                let (bx, by) = ((b % blocks_x) * 4, (b / blocks_x) * 4);
                for (k, texel) in texels.iter().enumerate() {
                    let (x, y) = (bx + k % 4, by + k / 4);
                    if x < h.width as usize && y < h.height as usize {
                        let at = (y * h.width as usize + x) * 4;
                        if let Some(out) = rgba.get_mut(at..at + 4) {
                            out.copy_from_slice(texel);
                        }
                    }
                }
            }
        }
    }
    Ok(Image { width: h.width, height: h.height, rgba })
}

fn rgb565(c: u16) -> [u8; 3] {
    let r = ((c >> 11) & 31) as u8;
    let g = ((c >> 5) & 63) as u8;
    let b = (c & 31) as u8;
    [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]
}

fn u16_le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b.get(at).copied().unwrap_or(0), b.get(at + 1).copied().unwrap_or(0)])
}

/// The 16 texels of one DXT block, row by row.
fn decode_block(encoding: Encoding, block: &[u8], dxt1_alpha: bool) -> [[u8; 4]; 16] {
    let color_at = if encoding == Encoding::Dxt1 { 0 } else { 8 };
    let c0 = u16_le(block, color_at);
    let c1 = u16_le(block, color_at + 2);
    let (p0, p1) = (rgb565(c0), rgb565(c1));
    let mix = |a: u8, b: u8, wa: u16, wb: u16| ((u16::from(a) * wa + u16::from(b) * wb) / (wa + wb)) as u8;
    let mut palette = [[p0[0], p0[1], p0[2], 255], [p1[0], p1[1], p1[2], 255], [0; 4], [0; 4]];
    // DXT1's three-colour mode (c0 <= c1) has a transparent fourth entry; DXT3/5 never use it.
    if c0 > c1 || encoding != Encoding::Dxt1 {
        palette[2] = [mix(p0[0], p1[0], 2, 1), mix(p0[1], p1[1], 2, 1), mix(p0[2], p1[2], 2, 1), 255];
        palette[3] = [mix(p0[0], p1[0], 1, 2), mix(p0[1], p1[1], 1, 2), mix(p0[2], p1[2], 1, 2), 255];
    } else {
        palette[2] = [mix(p0[0], p1[0], 1, 1), mix(p0[1], p1[1], 1, 1), mix(p0[2], p1[2], 1, 1), 255];
        palette[3] = [0, 0, 0, if dxt1_alpha { 0 } else { 255 }];
    }
    let bits = u32::from_le_bytes([
        block.get(color_at + 4).copied().unwrap_or(0),
        block.get(color_at + 5).copied().unwrap_or(0),
        block.get(color_at + 6).copied().unwrap_or(0),
        block.get(color_at + 7).copied().unwrap_or(0),
    ]);
    let mut out = [[0u8; 4]; 16];
    for (k, texel) in out.iter_mut().enumerate() {
        *texel = palette.get(((bits >> (2 * k)) & 3) as usize).copied().unwrap_or([0; 4]);
    }
    match encoding {
        Encoding::Dxt3 => {
            for (k, texel) in out.iter_mut().enumerate() {
                let byte = block.get(k / 2).copied().unwrap_or(0);
                texel[3] = ((byte >> ((k % 2) * 4)) & 0xF) * 17;
            }
        }
        Encoding::Dxt5 => {
            let (a0, a1) = (block.first().copied().unwrap_or(0), block.get(1).copied().unwrap_or(0));
            let mut alphas = [a0, a1, 0, 0, 0, 0, 0, 0];
            let lerp = |i: u16, n: u16| ((u16::from(a0) * (n - i) + u16::from(a1) * i) / n) as u8;
            if a0 > a1 {
                for (i, slot) in (1..7u16).zip(alphas.iter_mut().skip(2)) {
                    *slot = lerp(i, 7);
                }
            } else {
                for (i, slot) in (1..5u16).zip(alphas.iter_mut().skip(2)) {
                    *slot = lerp(i, 5);
                }
                // Entries 6 and 7 are fixed: fully transparent and fully opaque.
                if let Some(tail) = alphas.get_mut(6..8) {
                    tail.copy_from_slice(&[0, 255]);
                }
            }
            let mut index_bits = 0u64;
            for i in 0..6 {
                index_bits |= u64::from(block.get(2 + i).copied().unwrap_or(0)) << (8 * i);
            }
            for (k, texel) in out.iter_mut().enumerate() {
                texel[3] = alphas.get(((index_bits >> (3 * k)) & 7) as usize).copied().unwrap_or(255);
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blp(compression: u8, alpha_depth: u8, alpha_type: u8, w: u32, h: u32, palette: &[u8], mip: &[u8]) -> Vec<u8> {
        let mut d = vec![0u8; 148 + 1024];
        d[..4].copy_from_slice(b"BLP2");
        d[4..8].copy_from_slice(&1u32.to_le_bytes());
        d[8] = compression;
        d[9] = alpha_depth;
        d[10] = alpha_type;
        d[12..16].copy_from_slice(&w.to_le_bytes());
        d[16..20].copy_from_slice(&h.to_le_bytes());
        d[20..24].copy_from_slice(&(1172u32).to_le_bytes());
        d[84..88].copy_from_slice(&(mip.len() as u32).to_le_bytes());
        d[148..148 + palette.len()].copy_from_slice(palette);
        d.extend_from_slice(mip);
        d
    }

    #[test]
    fn palettised_with_4_bit_alpha() {
        // Palette entry 1 is pure red (BGRA).
        let palette = [0, 0, 0, 255, 0, 0, 255, 255];
        let mip = [1, 0, 0xF0]; // two pixels (2x1), alpha nibbles 0 and 15
        let img = decode(&blp(1, 4, 0, 2, 1, &palette, &mip)).unwrap();
        assert_eq!(img.rgba, vec![255, 0, 0, 0, 0, 0, 0, 255]);
    }

    #[test]
    fn palettised_with_1_bit_alpha() {
        let palette = [10, 20, 30, 0];
        let mip = [0, 0, 0b10];
        let img = decode(&blp(1, 1, 0, 2, 1, &palette, &mip)).unwrap();
        assert_eq!(img.rgba, vec![30, 20, 10, 0, 30, 20, 10, 255]);
    }

    #[test]
    fn dxt1_solid_block() {
        // c0 = pure white, c1 = black, all indices 0.
        let block = [0xFF, 0xFF, 0, 0, 0, 0, 0, 0];
        let img = decode(&blp(2, 0, 0, 4, 4, &[], &block)).unwrap();
        assert!(img.rgba.chunks(4).all(|p| p == [255, 255, 255, 255]));
    }

    #[test]
    fn dxt5_alpha_endpoints() {
        // a0 = 255, a1 = 0, all alpha indices 1 (→ a1 = 0); colour white.
        let mut block = [0u8; 16];
        block[0] = 255;
        block[1] = 0;
        let idx: u64 = (0..16).fold(0, |acc, k| acc | (1u64 << (3 * k)));
        block[2..8].copy_from_slice(&idx.to_le_bytes()[..6]);
        block[8] = 0xFF;
        block[9] = 0xFF;
        let img = decode(&blp(2, 8, 7, 4, 4, &[], &block)).unwrap();
        assert!(img.rgba.chunks(4).all(|p| p == [255, 255, 255, 0]));
    }

    #[test]
    fn raw_and_limits() {
        let img = decode(&blp(3, 8, 0, 1, 1, &[], &[1, 2, 3, 4])).unwrap();
        assert_eq!(img.rgba, vec![3, 2, 1, 4]);
        assert!(decode(&blp(3, 8, 0, 100_000, 1, &[], &[])).is_err());
        assert!(decode(&blp(3, 8, 0, 2, 2, &[], &[1, 2, 3, 4])).is_err(), "mip shorter than the image");
    }

    #[test]
    fn a_size_past_the_allocation_budget_is_refused_before_decoding() {
        // A 148-byte BLP2 header claiming 8192x8192 raw texels: 358 MB of RGBA from a tiny file.
        let mut data = vec![0u8; HEADER_SIZE as usize];
        data[0..4].copy_from_slice(b"BLP2");
        data[4] = 1; // direct content
        data[8] = 3; // raw
        data[12..16].copy_from_slice(&8192u32.to_le_bytes());
        data[16..20].copy_from_slice(&8192u32.to_le_bytes());
        let error = decode(&data).expect_err("refused").to_string();
        assert!(error.contains("more than the") && error.contains("width"), "{error}");
    }
}
