//! A position in the inflated payload, moved on by every read: the modules are walked end to
//! end, so each read's offset is the sum of the sizes before it. All reads go through the
//! checked [`Reader`].

use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

/// The format name of errors inside the payload; offsets are payload offsets.
pub const PAYLOAD: &str = "TPW save payload";

pub struct Cursor<'a> {
    pub r: Reader<'a>,
    pub pos: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(payload: &'a [u8], pos: u64) -> Self {
        Self { r: Reader::new(payload, PAYLOAD), pos }
    }

    pub fn u8(&mut self, field: &str) -> DecodeResult<u8> {
        let v = self.r.u8(self.pos, field)?;
        self.pos += 1;
        Ok(v)
    }

    pub fn u16(&mut self, field: &str) -> DecodeResult<u16> {
        let v = self.r.u16(self.pos, field)?;
        self.pos += 2;
        Ok(v)
    }

    pub fn i16(&mut self, field: &str) -> DecodeResult<i16> {
        let v = self.r.i16(self.pos, field)?;
        self.pos += 2;
        Ok(v)
    }

    pub fn u32(&mut self, field: &str) -> DecodeResult<u32> {
        let v = self.r.u32(self.pos, field)?;
        self.pos += 4;
        Ok(v)
    }

    pub fn f32(&mut self, field: &str) -> DecodeResult<f32> {
        let v = self.r.f32(self.pos, field)?;
        self.pos += 4;
        Ok(v)
    }

    /// Steps over `len` bytes, checking that they are there.
    pub fn skip(&mut self, len: u64, field: &str) -> DecodeResult<&'a [u8]> {
        let bytes = self.r.bytes(self.pos, len, field)?;
        self.pos = self.pos.saturating_add(len);
        Ok(bytes)
    }

    /// Steps over `count` records of `stride` bytes, checked as one span.
    pub fn skip_table(&mut self, count: u64, stride: u64, field: &str) -> DecodeResult<()> {
        let table = self.r.table(self.pos, count, stride, field)?;
        self.pos = table.end();
        Ok(())
    }

    /// The module tag that must follow a module, compared as the bytes a dump shows (`DLRW`).
    pub fn tag(&mut self, tag: &[u8; 4], module: &str) -> DecodeResult<()> {
        let at = self.pos;
        let found = self.r.bytes(at, 4, &format!("{module} tag"))?;
        if found != tag {
            let shown: String = found.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
            return Err(self.r.invalid(
                format!("{module} tag"),
                at,
                format!(
                    "found \"{shown}\" where the module should end on \"{}\": a field before it was read with the wrong size",
                    String::from_utf8_lossy(tag)
                ),
            ));
        }
        self.pos += 4;
        Ok(())
    }
}
