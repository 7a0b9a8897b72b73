//! The typed error every decoder returns: which format, which field, which byte offset, and why.

use std::fmt;

/// What went wrong with one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A read of `needed` bytes at the offset runs past the end of the `len`-byte file.
    OutOfBounds { needed: u64, len: u64 },
    /// An offset or size computation overflowed.
    Overflow,
    /// The value is present but not allowed (bad magic, count over a limit, index out of range...).
    Invalid(String),
    /// The file is well formed but uses a variant this reader does not handle.
    Unsupported(String),
}

/// A decode failure, precise enough for a one-line message: format, field, offset and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub format: &'static str,
    pub field: String,
    pub offset: u64,
    pub kind: ErrorKind,
}

impl DecodeError {
    pub fn new(format: &'static str, field: impl Into<String>, offset: u64, kind: ErrorKind) -> Self {
        Self { format, field: field.into(), offset, kind }
    }

    pub fn invalid(format: &'static str, field: impl Into<String>, offset: u64, why: impl Into<String>) -> Self {
        Self::new(format, field, offset, ErrorKind::Invalid(why.into()))
    }

    pub fn unsupported(format: &'static str, field: impl Into<String>, offset: u64, why: impl Into<String>) -> Self {
        Self::new(format, field, offset, ErrorKind::Unsupported(why.into()))
    }

    /// Prefixes the field name with its enclosing record, e.g. `mesh[3]` + `vertex data`.
    pub fn within(mut self, record: &str) -> Self {
        self.field = format!("{record}.{}", self.field);
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} at offset {:#x}: ", self.format, self.field, self.offset)?;
        match &self.kind {
            ErrorKind::OutOfBounds { needed, len } => {
                write!(f, "needs {needed} bytes, past the end of the {len}-byte file")
            }
            ErrorKind::Overflow => write!(f, "offset or size overflows"),
            ErrorKind::Invalid(why) => write!(f, "{why}"),
            ErrorKind::Unsupported(why) => write!(f, "unsupported: {why}"),
        }
    }
}

impl std::error::Error for DecodeError {}

pub type DecodeResult<T> = Result<T, DecodeError>;
