//! The one bounds-checked little-endian reader that every format decodes through.
//!
//! Every read names the field it is for, so a failure becomes a [`DecodeError`] with the
//! format, the field and the byte offset. Offsets and sizes taken from the file are `u64`
//! or `u32` and are combined with checked arithmetic before anything is touched; nothing
//! here indexes or slices without `get`.

use super::error::{DecodeError, DecodeResult, ErrorKind};

/// A read-only view of a whole file, for one format.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    data: &'a [u8],
    format: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], format: &'static str) -> Self {
        Self { data, format }
    }

    pub fn format(&self) -> &'static str {
        self.format
    }

    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn error(&self, field: impl Into<String>, offset: u64, kind: ErrorKind) -> DecodeError {
        DecodeError::new(self.format, field, offset, kind)
    }

    pub fn invalid(&self, field: impl Into<String>, offset: u64, why: impl Into<String>) -> DecodeError {
        DecodeError::invalid(self.format, field, offset, why)
    }

    /// `len` bytes at `offset`, or an out-of-bounds error naming `field`. Zero bytes are
    /// always available. Inlined, like the scalar reads below, into every decoder's loops
    /// (without it, whether a decoder's calls inline changes with how the crate is split
    /// into codegen units: a change elsewhere once cost the M2 track reader a sixth).
    #[inline]
    pub fn bytes(&self, offset: u64, len: u64, field: &str) -> DecodeResult<&'a [u8]> {
        if len == 0 {
            return Ok(&[]);
        }
        let end = offset.checked_add(len).ok_or_else(|| self.error(field, offset, ErrorKind::Overflow))?;
        let out_of_bounds = || self.error(field, offset, ErrorKind::OutOfBounds { needed: len, len: self.len() });
        let start = usize::try_from(offset).map_err(|_| out_of_bounds())?;
        let end = usize::try_from(end).map_err(|_| out_of_bounds())?;
        self.data.get(start..end).ok_or_else(out_of_bounds)
    }

    /// `count` little-endian u16s at `offset`, checked as one slice and converted in one pass
    /// (exact-size, vectorised).
    pub fn u16s(&self, offset: u64, count: u64, field: &str) -> DecodeResult<Vec<u16>> {
        let len = count.checked_mul(2).ok_or_else(|| self.error(field, offset, ErrorKind::Overflow))?;
        let (pairs, _) = self.bytes(offset, len, field)?.as_chunks::<2>();
        Ok(pairs.iter().map(|&pair| u16::from_le_bytes(pair)).collect())
    }

    #[inline]
    fn array<const N: usize>(&self, offset: u64, field: &str) -> DecodeResult<[u8; N]> {
        let bytes = self.bytes(offset, N as u64, field)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    #[inline]
    pub fn u8(&self, offset: u64, field: &str) -> DecodeResult<u8> {
        Ok(u8::from_le_bytes(self.array::<1>(offset, field)?))
    }

    #[inline]
    pub fn u16(&self, offset: u64, field: &str) -> DecodeResult<u16> {
        Ok(u16::from_le_bytes(self.array(offset, field)?))
    }

    #[inline]
    pub fn i16(&self, offset: u64, field: &str) -> DecodeResult<i16> {
        Ok(i16::from_le_bytes(self.array(offset, field)?))
    }

    #[inline]
    pub fn u32(&self, offset: u64, field: &str) -> DecodeResult<u32> {
        Ok(u32::from_le_bytes(self.array(offset, field)?))
    }

    #[inline]
    pub fn i32(&self, offset: u64, field: &str) -> DecodeResult<i32> {
        Ok(i32::from_le_bytes(self.array(offset, field)?))
    }

    #[inline]
    pub fn f32(&self, offset: u64, field: &str) -> DecodeResult<f32> {
        Ok(f32::from_le_bytes(self.array(offset, field)?))
    }

    /// `N` consecutive little-endian floats.
    pub fn f32s<const N: usize>(&self, offset: u64, field: &str) -> DecodeResult<[f32; N]> {
        let bytes = self.bytes(offset, (N as u64) * 4, field)?;
        let mut out = [0f32; N];
        for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            let mut word = [0u8; 4];
            word.copy_from_slice(chunk);
            *value = f32::from_le_bytes(word);
        }
        Ok(out)
    }

    /// Checks a size the file implies but does not hold (decoded pixels, expanded streams)
    /// against [`allocation_budget`] for this input, before anything of that size is allocated:
    /// the one limit every decode stays under, as image-rs's `Limits` bounds its decoders.
    pub fn check_budget(&self, bytes: u64, field: &str, offset: u64) -> DecodeResult<()> {
        let budget = allocation_budget(usize::try_from(self.len()).unwrap_or(usize::MAX)) as u64;
        if bytes > budget {
            return Err(self.invalid(
                field,
                offset,
                format!("needs {bytes} bytes decoded, more than the {budget} a {}-byte file may use", self.len()),
            ));
        }
        Ok(())
    }

    /// Checks that `count` records of `stride` bytes fit at `offset` and returns the byte span.
    /// Call this before allocating anything sized by `count`.
    pub fn table(&self, offset: u64, count: u64, stride: u64, field: &str) -> DecodeResult<Table> {
        let size = count.checked_mul(stride).ok_or_else(|| self.error(field, offset, ErrorKind::Overflow))?;
        // An empty table's offset is never dereferenced, so it need not point into the file.
        if size > 0 {
            self.bytes(offset, size, field)?;
        }
        Ok(Table { offset, count, stride })
    }

    /// A NUL-terminated string of at most `max_len` bytes (the terminator may be missing
    /// when the string fills `max_len`). Non-ASCII bytes are replaced, never rejected.
    pub fn cstr(&self, offset: u64, max_len: u64, field: &str) -> DecodeResult<String> {
        let available = self.len().saturating_sub(offset);
        if offset >= self.len() {
            return Err(self.error(field, offset, ErrorKind::OutOfBounds { needed: 1, len: self.len() }));
        }
        let bytes = self.bytes(offset, max_len.min(available), field)?;
        let text = match bytes.iter().position(|&b| b == 0) {
            Some(end) => bytes.get(..end).unwrap_or(bytes),
            None if bytes.len() as u64 == max_len => bytes,
            None => {
                return Err(self.invalid(field, offset, "string has no terminator before the end of the file"));
            }
        };
        Ok(String::from_utf8_lossy(text).into_owned())
    }
}

/// A little-endian u16 at `at` within an already-checked slice (`None` past its end). For hot
/// loops over a table fetched once with [`Reader::bytes`].
/// The most a decode of `input_len` bytes may allocate: 512 bytes per input byte plus 64 MiB.
/// Counts are checked against the bytes that hold them ([`Reader::table`]); sizes a file only
/// implies (an image's pixels) against this ([`Reader::check_budget`]); the fuzz targets
/// measure every decode's peak heap against it with a counting allocator.
pub fn allocation_budget(input_len: usize) -> usize {
    const PER_INPUT_BYTE: usize = 512;
    const CONSTANT: usize = 64 << 20;
    input_len.saturating_mul(PER_INPUT_BYTE).saturating_add(CONSTANT)
}

pub fn le_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([*b.first()?, *b.get(1)?]))
}

/// A little-endian f32 at `at` within an already-checked slice (`None` past its end).
pub fn le_f32(bytes: &[u8], at: usize) -> Option<f32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(f32::from_le_bytes(b))
}

/// A checked table of fixed-size records; `record(i)` gives the offset of record `i`.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    pub offset: u64,
    pub count: u64,
    pub stride: u64,
}

impl Table {
    /// Offset of record `index`; the table was checked at construction, so this cannot overflow
    /// for `index < count`. Out-of-range indices saturate and fail at the read.
    pub fn record(&self, index: u64) -> u64 {
        index.saturating_mul(self.stride).saturating_add(self.offset)
    }

    pub fn end(&self) -> u64 {
        self.count.saturating_mul(self.stride).saturating_add(self.offset)
    }

    /// Whether `offset` lies inside the table on a record boundary; gives the record index.
    pub fn index_of(&self, offset: u64) -> Option<u64> {
        let rel = offset.checked_sub(self.offset)?;
        if self.stride == 0 || rel % self.stride != 0 {
            return None;
        }
        let index = rel / self.stride;
        (index < self.count).then_some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_values() {
        let data = [0x46, 0x5D, 0xD1, 0x1C, 0x00, 0x00, 0x80, 0x3F];
        let r = Reader::new(&data, "test");
        assert_eq!(r.u32(0, "magic"), Ok(0x1CD1_5D46));
        assert_eq!(r.u16(0, "half"), Ok(0x5D46));
        assert_eq!(r.f32(4, "one"), Ok(1.0));
    }

    #[test]
    fn out_of_bounds_names_field_and_offset() {
        let data = [0u8; 6];
        let r = Reader::new(&data, "test");
        let err = r.u32(4, "count").unwrap_err();
        assert_eq!(err.field, "count");
        assert_eq!(err.offset, 4);
        assert_eq!(err.kind, ErrorKind::OutOfBounds { needed: 4, len: 6 });
        assert!(err.to_string().contains("count at offset 0x4"));
    }

    #[test]
    fn huge_offsets_and_counts_fail_without_overflow() {
        let data = [0u8; 16];
        let r = Reader::new(&data, "test");
        assert!(r.u32(u64::MAX - 1, "x").is_err());
        assert_eq!(r.table(0, u64::MAX, 8, "t").unwrap_err().kind, ErrorKind::Overflow);
        assert!(r.table(0, 3, 8, "t").is_err());
        assert!(r.table(0, 2, 8, "t").is_ok());
    }

    #[test]
    fn cstr_stops_at_nul_or_limit() {
        let data = *b"abc\0defgh";
        let r = Reader::new(&data, "test");
        assert_eq!(r.cstr(0, 20, "name").unwrap(), "abc");
        assert_eq!(r.cstr(4, 3, "name").unwrap(), "def");
        assert!(r.cstr(4, 20, "name").is_err());
        assert!(r.cstr(9, 20, "name").is_err());
    }

    #[test]
    fn table_index_of_respects_stride_and_count() {
        let t = Table { offset: 100, count: 3, stride: 8 };
        assert_eq!(t.index_of(100), Some(0));
        assert_eq!(t.index_of(116), Some(2));
        assert_eq!(t.index_of(124), None);
        assert_eq!(t.index_of(104), None);
        assert_eq!(t.index_of(99), None);
    }
}
