//! The two codings of a WCT chunk: `BILZ` (a 28-byte header, then a zlib stream, inflated by
//! `flate2`) and the game's own LZSS (16-bit little-endian words read low bit first; flag 0 is
//! an 8-bit literal, flag 1 a 12-bit back-offset, 0 ending the stream, and a 7-bit length − 1).
//! Both stop at a byte limit the caller derives from the image size, so a hostile chunk cannot
//! make us allocate more than the largest legal coefficient stream.

use std::io::Read;

use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

use super::FORMAT;

pub const BILZ_MAGIC: &[u8; 4] = b"BILZ";
pub const BILZ_HEADER: u64 = 28;

/// The LZSS window: 12-bit offsets.
pub const LZSS_MAX_OFFSET: usize = 4095;
/// 7-bit lengths, plus one.
pub const LZSS_MAX_LENGTH: usize = 128;

/// How a chunk is coded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkCoding {
    Bilz,
    Lzss,
    /// Coefficient bytes as they are (header flag bit 4 clear).
    Raw,
}

/// Decodes one chunk to coefficient bytes. `at` is the chunk's offset in the file (for
/// errors), `field` names it, `limit` is the most bytes it may decode to.
pub fn decode_chunk(
    chunk: &[u8],
    compressed: bool,
    at: u64,
    field: &str,
    limit: usize,
) -> DecodeResult<(Vec<u8>, ChunkCoding)> {
    if chunk.starts_with(BILZ_MAGIC) {
        return inflate_bilz(chunk, at, field, limit).map(|v| (v, ChunkCoding::Bilz));
    }
    if !compressed {
        return Ok((chunk.to_vec(), ChunkCoding::Raw));
    }
    decode_lzss(chunk, limit).map(|v| (v, ChunkCoding::Lzss)).map_err(|(offset, why)| {
        crate::formats::error::DecodeError::invalid(FORMAT, format!("{field} (LZSS)"), at + offset as u64, why)
    })
}

fn inflate_bilz(chunk: &[u8], at: u64, field: &str, limit: usize) -> DecodeResult<Vec<u8>> {
    let r = Reader::new(chunk, FORMAT);
    let error_at =
        |e: crate::formats::error::DecodeError| crate::formats::error::DecodeError { offset: at + e.offset, ..e };
    let stated = r.u32(4, &format!("{field} BILZ decompressed size")).map_err(error_at)?;
    r.bytes(0, BILZ_HEADER, &format!("{field} BILZ header")).map_err(error_at)?;
    if stated as usize > limit {
        return Err(error_at(r.invalid(
            format!("{field} BILZ decompressed size"),
            4,
            format!("{stated} bytes is more than an image this size can hold ({limit})"),
        )));
    }
    let stream = chunk.get(BILZ_HEADER as usize..).unwrap_or(&[]);
    let mut out = Vec::with_capacity(stated as usize);
    let mut decoder = flate2::read::ZlibDecoder::new(stream);
    if let Err(e) = (&mut decoder).take(limit as u64 + 1).read_to_end(&mut out) {
        // Our wording, not flate2's: where the inflater stood, and what kind of failure.
        let why = match e.kind() {
            std::io::ErrorKind::UnexpectedEof => "ends before its last block".to_string(),
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
                "is not a valid zlib stream (bad header, block or checksum)".to_string()
            }
            kind => format!("cannot be read ({kind})"),
        };
        return Err(error_at(r.invalid(format!("{field} zlib stream"), BILZ_HEADER + decoder.total_in(), why)));
    }
    if out.len() > limit {
        return Err(error_at(r.invalid(
            format!("{field} zlib stream"),
            BILZ_HEADER,
            format!("inflates past the largest coefficient data for this size ({limit} bytes)"),
        )));
    }
    Ok(out)
}

/// Reads bits low first from 16-bit little-endian words, fetching a word only when the bits
/// in hand run short (as the game does, so a stream may end on a partly used word).
struct BitReader<'a> {
    words: std::slice::ChunksExact<'a, u8>,
    consumed: usize,
    value: u32,
    available: u32,
}

impl<'a> BitReader<'a> {
    fn new(data: &'a [u8]) -> Self {
        Self { words: data.chunks_exact(2), consumed: 0, value: 0, available: 0 }
    }

    fn bits(&mut self, count: u32) -> Option<u32> {
        if self.available < count {
            let word = self.words.next()?;
            let word = u32::from(u16::from_le_bytes([*word.first()?, *word.get(1)?]));
            self.consumed += 2;
            self.value |= word << self.available;
            self.available += 16;
        }
        let out = self.value & ((1 << count) - 1);
        self.value >>= count;
        self.available -= count;
        Some(out)
    }
}

/// The game's LZSS. Errors carry the byte offset in the chunk where the reader stood.
pub fn decode_lzss(data: &[u8], limit: usize) -> Result<Vec<u8>, (usize, String)> {
    let mut bits = BitReader::new(data);
    let mut out: Vec<u8> = Vec::with_capacity(limit.min(data.len().saturating_mul(8)));
    let ended = |b: &BitReader| (b.consumed, "stream ends without its end marker".to_string());
    loop {
        if bits.bits(1).ok_or_else(|| ended(&bits))? == 0 {
            let literal = bits.bits(8).ok_or_else(|| ended(&bits))?;
            out.push(literal as u8);
        } else {
            let offset = bits.bits(12).ok_or_else(|| ended(&bits))? as usize;
            if offset == 0 {
                return Ok(out);
            }
            let length = bits.bits(7).ok_or_else(|| ended(&bits))? as usize + 1;
            let start = out.len().checked_sub(offset).ok_or_else(|| {
                (bits.consumed, format!("back-reference {offset} bytes before the start of the output"))
            })?;
            // Byte by byte: a copy may overlap what it writes, repeating a short run.
            for i in start..start + length {
                let byte = out.get(i).copied().unwrap_or(0);
                out.push(byte);
            }
        }
        if out.len() > limit {
            return Err((
                bits.consumed,
                format!("decodes past the largest coefficient data for this size ({limit} bytes)"),
            ));
        }
    }
}

/// Packs bits low first into 16-bit little-endian words.
#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    value: u64,
    filled: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, count: u32) {
        self.value |= u64::from(value & ((1 << count) - 1)) << self.filled;
        self.filled += count;
        while self.filled >= 16 {
            self.out.extend_from_slice(&(self.value as u16).to_le_bytes());
            self.value >>= 16;
            self.filled -= 16;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.filled > 0 {
            self.out.extend_from_slice(&(self.value as u16).to_le_bytes());
        }
        self.out
    }
}

/// Encodes with the game's LZSS: greedy longest matches (at least 3 bytes) found through a
/// hash chain over 3-byte prefixes.
pub fn encode_lzss(data: &[u8]) -> Vec<u8> {
    let mut writer = BitWriter::default();
    let mut chains = MatchChains::new(data.len());
    let mut at = 0;
    while at < data.len() {
        let (offset, length) = chains.longest_match(data, at);
        if length >= 3 {
            writer.put(1, 1);
            writer.put(offset as u32, 12);
            writer.put((length - 1) as u32, 7);
            for i in at..at + length {
                chains.insert(data, i);
            }
            at += length;
        } else {
            writer.put(0, 1);
            writer.put(u32::from(data.get(at).copied().unwrap_or(0)), 8);
            chains.insert(data, at);
            at += 1;
        }
    }
    writer.put(1, 1);
    writer.put(0, 12);
    writer.finish()
}

/// Earlier positions of each 3-byte prefix, newest first.
struct MatchChains {
    head: std::collections::HashMap<[u8; 3], usize>,
    previous: Vec<Option<usize>>,
}

impl MatchChains {
    const STEPS: usize = 64;

    fn new(len: usize) -> Self {
        Self { head: std::collections::HashMap::new(), previous: vec![None; len] }
    }

    fn key(data: &[u8], at: usize) -> Option<[u8; 3]> {
        data.get(at..at.checked_add(3)?)?.try_into().ok()
    }

    fn insert(&mut self, data: &[u8], at: usize) {
        if let Some(key) = Self::key(data, at) {
            let old = self.head.insert(key, at);
            if let Some(slot) = self.previous.get_mut(at) {
                *slot = old;
            }
        }
    }

    fn longest_match(&self, data: &[u8], at: usize) -> (usize, usize) {
        let mut best = (0, 0);
        let Some(key) = Self::key(data, at) else { return best };
        let mut candidate = self.head.get(&key).copied();
        let ahead = data.get(at..).unwrap_or(&[]);
        for _ in 0..Self::STEPS {
            let Some(from) = candidate else { break };
            if at - from > LZSS_MAX_OFFSET {
                break;
            }
            let behind = data.get(from..).unwrap_or(&[]);
            let length = behind.iter().zip(ahead).take(LZSS_MAX_LENGTH).take_while(|(a, b)| a == b).count();
            if length > best.1 {
                best = (at - from, length);
            }
            candidate = self.previous.get(from).copied().flatten();
        }
        best
    }
}

/// A `BILZ` chunk: the 28-byte header (magic, decompressed size, stream size, zlib's window
/// bits 15 and memory level 9, two unused words), then the zlib stream.
pub fn encode_bilz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let stream = encoder.write_all(data).and_then(|_| encoder.finish()).unwrap_or_default();
    let mut out = BILZ_MAGIC.to_vec();
    for value in [data.len() as u32, stream.len() as u32, 15, 9, 0, 0] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&stream);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_packed_lzss_decodes() {
        // Bits, low first: 0 'a', 0 'b', 1 offset 2 length 3+1, 1 offset 0 (end). Packed by
        // hand: 0x41_8015_88C2 as four little-endian words.
        let words = [0xC2, 0x88, 0x15, 0x80, 0x41, 0x00, 0x00, 0x00];
        assert_eq!(decode_lzss(&words, 100).unwrap(), b"ababab");
        // The same stream cut before its end marker's last word.
        assert!(decode_lzss(&words[..6], 100).unwrap_err().1.contains("end marker"));
    }

    #[test]
    fn back_reference_before_the_start_is_an_error() {
        // 1, offset 5 at the very start.
        let value: u32 = 1 | (5 << 1);
        let bytes = [(value & 0xFF) as u8, (value >> 8) as u8, 0, 0];
        let err = decode_lzss(&bytes, 100).unwrap_err();
        assert!(err.1.contains("before the start"), "{err:?}");
    }

    #[test]
    fn lzss_and_bilz_round_trip_and_respect_limits() {
        let data: Vec<u8> = (0..3000u32).map(|i| ((i / 5) % 7) as u8 * 9).collect();
        let packed = encode_lzss(&data);
        assert!(packed.len() < data.len() / 2, "{} bytes", packed.len());
        assert_eq!(decode_lzss(&packed, data.len()).unwrap(), data);
        assert!(decode_lzss(&packed, 100).is_err());
        let bilz = encode_bilz(&data);
        let (inflated, coding) = decode_chunk(&bilz, true, 0, "colour", data.len()).unwrap();
        assert_eq!((inflated, coding), (data.clone(), ChunkCoding::Bilz));
        assert!(decode_chunk(&bilz, true, 0, "colour", 100).is_err());
    }
}
