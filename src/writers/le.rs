//! Little-endian field helpers shared by the Quake writers (`.md3`, `.mdl`), whose headers and
//! records are runs of 32-bit integers and floats.

/// Appends each value as a little-endian `i32`.
pub(crate) fn i32s(out: &mut Vec<u8>, values: &[i32]) {
    for v in values {
        out.extend(v.to_le_bytes());
    }
}

/// Appends each value as a little-endian `f32`.
pub(crate) fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend(v.to_le_bytes());
    }
}

/// A count or offset as the `i32` the formats store (saturating: fixtures never reach it).
pub(crate) fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
