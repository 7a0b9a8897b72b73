//! Theme Park World `.wct` textures: a 28-byte header, a colour chunk and an optional alpha
//! chunk, each `BILZ` (zlib) or LZSS coded, holding wavelet coefficients of a YCbCr image
//! (chroma at half resolution) padded to a power-of-two square of at least 8.
//!
//! - [`chunk`]: the two chunk codings.
//! - [`wavelet`]: the Daubechies-4 transform and its layout.
//! - The forward path, for fixtures and the demo, is [`crate::writers::wct`] (no WCT file is public).
//!
//! Decoding follows the public reverse engineering (OpenTPW's `TextureFile`) exactly: its
//! half-scale row pass and alpha column pass (see [`wavelet`]), its float arithmetic, and its
//! truncation of each output channel to a byte. The checksum is not verified: its algorithm is
//! unknown.

pub mod chunk;
pub mod wavelet;

use crate::formats::error::{DecodeError, DecodeResult};
use crate::formats::reader::Reader;

pub use chunk::ChunkCoding;

pub const FORMAT: &str = "wct";
pub const HEADER_SIZE: u64 = 28;

/// Header flag bits.
pub const FLAG_FULL_SCALE: u8 = 0x01;
pub const FLAG_COMPRESSED: u8 = 0x10;

/// The largest width or height accepted (game textures are at most 256).
pub const MAX_SIDE: i16 = 2048;

/// The 28-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WctHeader {
    pub flags: u8,
    /// Alpha is decoded only when this is 1.
    pub alpha_byte: u8,
    pub bit_depth: u8,
    pub version: u8,
    pub width: i16,
    pub height: i16,
    /// Quantisation steps for Y, Cb, Cr and A.
    pub scales: [i16; 4],
    pub colour_size: i32,
    pub alpha_size: i32,
    pub checksum: i32,
}

impl WctHeader {
    pub fn read(r: &Reader) -> DecodeResult<Self> {
        let mut scales = [0i16; 4];
        for (i, (scale, name)) in scales.iter_mut().zip(["Y", "Cb", "Cr", "A"]).enumerate() {
            *scale = r.i16(8 + 2 * i as u64, &format!("{name} quantisation scale"))?;
        }
        Ok(Self {
            flags: r.u8(0, "flags")?,
            alpha_byte: r.u8(1, "alpha byte")?,
            bit_depth: r.u8(2, "bit depth")?,
            version: r.u8(3, "version")?,
            width: r.i16(4, "width")?,
            height: r.i16(6, "height")?,
            scales,
            colour_size: r.i32(16, "colour chunk size")?,
            alpha_size: r.i32(20, "alpha chunk size")?,
            checksum: r.i32(24, "checksum")?,
        })
    }

    pub fn write(&self) -> Vec<u8> {
        let mut out = vec![self.flags, self.alpha_byte, self.bit_depth, self.version];
        out.extend_from_slice(&self.width.to_le_bytes());
        out.extend_from_slice(&self.height.to_le_bytes());
        for scale in self.scales {
            out.extend_from_slice(&scale.to_le_bytes());
        }
        for value in [self.colour_size, self.alpha_size, self.checksum] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out
    }

    pub fn has_alpha(&self) -> bool {
        self.alpha_byte == 1
    }

    pub fn full_scale(&self) -> bool {
        self.flags & FLAG_FULL_SCALE != 0
    }
}

/// The side of the padded square: the next power of two of the larger side, at least 8.
pub fn padded_size(width: u32, height: u32) -> u32 {
    width.max(height).max(1).next_power_of_two().max(8)
}

/// Dequantisation steps from the header's scales: Y `1 + n/2`, chroma `1 + n/4`, alpha `n + 1`,
/// all times π/6 in half-scale mode.
pub fn dequantisation(header: &WctHeader) -> [f32; 4] {
    let [y, cb, cr, a] = header.scales.map(f32::from);
    let half = if header.full_scale() { 1.0 } else { std::f32::consts::PI / 6.0 };
    [(1.0 + 0.5 * y) * half, (1.0 + 0.25 * cb) * half, (1.0 + 0.25 * cr) * half, (a + 1.0) * half]
}

/// A decoded texture, RGBA8, rows top first.
#[derive(Debug, Clone, PartialEq)]
pub struct WctImage {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Whether the file carries an alpha channel (its alpha byte is 1).
    pub has_alpha: bool,
    pub header: WctHeader,
    pub colour_coding: ChunkCoding,
    pub warnings: Vec<String>,
}

/// Whether the bytes look like a WCT header: no magic exists, so the shape of the header
/// decides (sides in range, a positive colour chunk that fits the file).
pub fn looks_like_wct(data: &[u8]) -> bool {
    let r = Reader::new(data, FORMAT);
    let Ok(h) = WctHeader::read(&r) else { return false };
    (1..=MAX_SIDE).contains(&h.width)
        && (1..=MAX_SIDE).contains(&h.height)
        && h.colour_size > 0
        && h.alpha_size >= 0
        && (HEADER_SIZE as i64 + i64::from(h.colour_size) + i64::from(h.alpha_size)) <= data.len() as i64
}

/// Decodes a `.wct` file.
pub fn decode(data: &[u8]) -> DecodeResult<WctImage> {
    let r = Reader::new(data, FORMAT);
    let header = WctHeader::read(&r)?;
    for (value, name, at) in [(header.width, "width", 4), (header.height, "height", 6)] {
        if !(1..=MAX_SIDE).contains(&value) {
            return Err(r.invalid(name, at, format!("{value} is outside 1..={MAX_SIDE}")));
        }
    }
    let (width, height) = (header.width as u32, header.height as u32);
    let size = padded_size(width, height) as usize;
    // Float planes of the padded square (luma, alpha, both chroma and the transform's
    // scratch, 4 in all) and the RGBA result.
    r.check_budget((size as u64).pow(2) * (4 * 4 + 4), "width", 4)?;
    let colour_size = u64::try_from(header.colour_size)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| r.invalid("colour chunk size", 16, format!("{} is not a chunk size", header.colour_size)))?;
    let alpha_size = u64::try_from(header.alpha_size)
        .map_err(|_| r.invalid("alpha chunk size", 20, format!("{} is not a chunk size", header.alpha_size)))?;
    let colour_chunk = r.bytes(HEADER_SIZE, colour_size, "colour chunk")?;
    let mut warnings = Vec::new();

    // Each coefficient takes at most 3 bytes (an escape and an i16).
    let luma = size * size;
    let chroma = (size / 2) * (size / 2);
    let colour_limit = 3 * (luma + 2 * chroma);
    let compressed = is_compressed(&header, colour_chunk, luma + 2 * chroma, &mut warnings);
    let (colour, colour_coding) =
        chunk::decode_chunk(colour_chunk, compressed, HEADER_SIZE, "colour chunk", colour_limit)?;
    let steps = dequantisation(&header);
    let mut coefficients = Coefficients { data: &colour, at: 0, chunk_offset: HEADER_SIZE, field: "colour chunk" };
    let mut scratch = Vec::new();
    let colour_layout = wavelet::Layout { half_scale: !header.full_scale(), alpha: false };
    let y = coefficients.plane(size, steps[0], &mut scratch, "Y", colour_layout)?;
    let cb = coefficients.plane(size / 2, steps[1], &mut scratch, "Cb", colour_layout)?;
    let cr = coefficients.plane(size / 2, steps[2], &mut scratch, "Cr", colour_layout)?;
    if coefficients.at < colour.len() {
        warnings.push(format!("colour chunk: {} bytes after the last coefficient", colour.len() - coefficients.at));
    }

    let alpha = if header.has_alpha() {
        let alpha_at = HEADER_SIZE + colour_size;
        let alpha_chunk = r.bytes(alpha_at, alpha_size, "alpha chunk")?;
        if alpha_chunk.is_empty() {
            return Err(r.invalid(
                "alpha chunk size",
                20,
                "the alpha byte says there is alpha, but the chunk is empty",
            ));
        }
        let compressed = is_compressed(&header, alpha_chunk, luma, &mut warnings);
        let (alpha, _) = chunk::decode_chunk(alpha_chunk, compressed, alpha_at, "alpha chunk", 3 * luma)?;
        let mut coefficients = Coefficients { data: &alpha, at: 0, chunk_offset: alpha_at, field: "alpha chunk" };
        let layout = wavelet::Layout { half_scale: !header.full_scale(), alpha: true };
        Some(coefficients.plane(size, steps[3], &mut scratch, "A", layout)?)
    } else {
        if header.alpha_byte != 0 {
            warnings.push(format!("alpha byte {} (only 1 means alpha); alpha ignored", header.alpha_byte));
        }
        None
    };

    let rgba = to_rgba(width as usize, height as usize, size, &y, &cb, &cr, alpha.as_deref());
    Ok(WctImage { width, height, rgba, has_alpha: alpha.is_some(), header, colour_coding, warnings })
}

/// Whether to decompress a chunk that is not `BILZ`. OpenTPW ignores flag bit 4 and takes
/// every such chunk for LZSS; we read it as raw coefficients only when the bit is clear and the
/// chunk is exactly `count` coefficients, and otherwise as LZSS, as OpenTPW does (with a
/// warning when that overrules the bit).
fn is_compressed(header: &WctHeader, chunk: &[u8], count: usize, warnings: &mut Vec<String>) -> bool {
    if header.flags & FLAG_COMPRESSED != 0 || chunk.starts_with(chunk::BILZ_MAGIC) {
        return true;
    }
    let (mut at, mut coefficients) = (0usize, 0usize);
    while at < chunk.len() && coefficients < count {
        at += if chunk.get(at) == Some(&0x80) { 3 } else { 1 };
        coefficients += 1;
    }
    let raw = at == chunk.len() && coefficients == count;
    if !raw {
        warnings
            .push("flags say uncompressed, but a chunk is not raw coefficients; read as LZSS, as OpenTPW does".into());
    }
    !raw
}

/// JPEG's YCbCr to RGB, with chroma sampled at half resolution. Each channel is clamped to
/// 0..=255 and truncated, as OpenTPW's `(byte)value.Clamp(0, 255)` does (NaN gives 0).
fn to_rgba(
    width: usize,
    height: usize,
    size: usize,
    y: &[f32],
    cb: &[f32],
    cr: &[f32],
    alpha: Option<&[f32]>,
) -> Vec<u8> {
    let half = size / 2;
    let byte = |v: f32| v.clamp(0.0, 255.0) as u8;
    let mut out = Vec::with_capacity(width * height * 4);
    for (row, luma_row) in y.chunks_exact(size).take(height).enumerate() {
        let chroma_at = (row / 2) * half;
        let cb_row = cb.get(chroma_at..chroma_at + half).unwrap_or(&[]);
        let cr_row = cr.get(chroma_at..chroma_at + half).unwrap_or(&[]);
        let alpha_row = alpha.and_then(|a| a.get(row * size..row * size + size));
        for (x, luma) in luma_row.iter().take(width).enumerate() {
            let b_diff = cb_row.get(x / 2).copied().unwrap_or(0.0);
            let r_diff = cr_row.get(x / 2).copied().unwrap_or(0.0);
            let a = alpha_row.and_then(|a| a.get(x)).map_or(255, |&v| byte(v));
            out.extend_from_slice(&[
                byte(luma + 1.402 * r_diff),
                byte(luma - 0.344_136 * b_diff - 0.714_136 * r_diff),
                byte(luma + 1.772 * b_diff),
                a,
            ]);
        }
    }
    out
}

/// A cursor over decoded coefficient bytes: signed bytes, `0x80` escaping a 16-bit value.
struct Coefficients<'a> {
    data: &'a [u8],
    at: usize,
    chunk_offset: u64,
    field: &'static str,
}

impl Coefficients<'_> {
    fn plane(
        &mut self,
        size: usize,
        step: f32,
        scratch: &mut Vec<f32>,
        channel: &str,
        layout: wavelet::Layout,
    ) -> DecodeResult<Vec<f32>> {
        let mut plane = Vec::with_capacity(size * size);
        let (data, field, chunk_offset) = (self.data, self.field, self.chunk_offset);
        let mut at = self.at;
        for index in 0..size * size {
            let ends = || {
                DecodeError::invalid(
                    FORMAT,
                    format!("{field} {channel} coefficients"),
                    chunk_offset,
                    format!("end after {index} of {} (at decoded byte {at})", size * size),
                )
            };
            let first = *data.get(at).ok_or_else(ends)?;
            let value = if first == 0x80 {
                let pair = data.get(at + 1..at + 3).ok_or_else(ends)?;
                let value = i16::from_le_bytes([*pair.first().ok_or_else(ends)?, *pair.get(1).ok_or_else(ends)?]);
                at += 3;
                f32::from(value)
            } else {
                at += 1;
                f32::from(first as i8)
            };
            plane.push(value);
        }
        self.at = at;
        wavelet::inverse_2d(&mut plane, scratch, size, step, layout);
        Ok(plane)
    }
}

#[cfg(test)]
mod tests;
