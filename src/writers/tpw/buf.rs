//! The byte buffer a TPW file is written into: zero-filled, growing at 4-byte-aligned ends,
//! with the integer narrowing and array packing the mesh and animation writers share.

use crate::formats::tpw::layout::*;

/// Every table the writer lays out starts on, and is padded to, this boundary.
pub(super) const ALIGN: u64 = 4;

/// A file under construction: zero-filled, growing at 4-byte-aligned ends.
pub(super) struct Buf {
    bytes: Vec<u8>,
}

impl Buf {
    pub(super) fn with_header() -> Self {
        let mut buf = Self { bytes: vec![0; HEADER_SIZE as usize] };
        buf.put(0, &MAGIC);
        buf
    }

    /// Appends `size` zero bytes (padded to 4) at the next 4-byte boundary; returns their offset.
    pub(super) fn reserve(&mut self, size: u64) -> u64 {
        let start = (self.bytes.len() as u64).next_multiple_of(ALIGN);
        self.bytes.resize((start + size.next_multiple_of(ALIGN)) as usize, 0);
        start
    }

    pub(super) fn append(&mut self, data: &[u8]) -> u64 {
        let at = self.reserve(data.len() as u64);
        self.put(at, data);
        at
    }

    pub(super) fn put(&mut self, at: u64, data: &[u8]) {
        let start = at as usize;
        let end = start + data.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        if let Some(dst) = self.bytes.get_mut(start..end) {
            dst.copy_from_slice(data);
        }
    }

    pub(super) fn u16(&mut self, at: u64, value: u16) {
        self.put(at, &value.to_le_bytes());
    }

    pub(super) fn u32(&mut self, at: u64, value: u32) {
        self.put(at, &value.to_le_bytes());
    }

    /// Stores a file offset as the u32 the format keeps.
    pub(super) fn offset(&mut self, at: u64, offset: u64) {
        self.u32(at, to_u32(offset));
    }

    pub(super) fn f32s(&mut self, at: u64, values: &[f32]) {
        for (i, v) in values.iter().enumerate() {
            self.put(at + 4 * i as u64, &v.to_le_bytes());
        }
    }

    pub(super) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

pub(super) fn to_u32(value: u64) -> u32 {
    debug_assert!(value <= u64::from(u32::MAX), "offset {value:#x} does not fit the format's u32");
    u32::try_from(value).unwrap_or(u32::MAX)
}

pub(super) fn to_u16(value: usize) -> u16 {
    debug_assert!(value <= usize::from(u16::MAX), "count {value} does not fit the format's u16");
    u16::try_from(value).unwrap_or(u16::MAX)
}

pub(super) fn u16s(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn u32s(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `data` zero-padded to at least 4 bytes, so a slot pointer always lands inside the file.
pub(super) fn write_batched<const N: usize>(buf: &mut Buf, items: &[[f32; N]]) -> u64 {
    if items.is_empty() {
        return 0;
    }
    let batch_size = N as u64 * 16;
    let at = buf.reserve(items.len().div_ceil(4) as u64 * batch_size);
    for (i, item) in items.iter().enumerate() {
        let (batch, lane) = ((i / 4) as u64, (i % 4) as u64);
        for (axis, value) in item.iter().enumerate() {
            buf.f32s(at + batch * batch_size + axis as u64 * 16 + lane * 4, &[*value]);
        }
    }
    at
}

pub(super) fn check_name(what: &str, name: &str) -> Result<(), String> {
    if !name.is_ascii() || name.contains('\0') || name.len() >= MAX_NAME_LEN as usize {
        return Err(format!("{what}: name {name:?} must be ASCII, without NUL, under {MAX_NAME_LEN} bytes"));
    }
    Ok(())
}
