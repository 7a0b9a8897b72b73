//! The file's layout: every part but the frames read and checked (header, skin names, texture
//! coordinates, triangles and their indices, the frame table's place, the OpenGL commands),
//! the texture coordinates and triangles kept as the file's own records.

use super::SKIN_NAME_LEN;
use super::gl_commands::walk_gl_commands;
use super::header::{Header, read_header};
use crate::formats::error::DecodeResult;
use crate::formats::reader::{Reader, Table};

/// A header offset as a file position; a negative one was refused with the header.
#[inline]
pub(super) fn offset(value: i32) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// A header count as a number of records; a negative one was refused with the header.
#[inline]
pub(super) fn count(value: i32) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Everything but the frames, validated; the frame table is checked but not decoded. Texture
/// coordinates and triangles stay the file's records, read where they are used.
pub(super) struct Layout<'a> {
    pub header: Header,
    pub skins: Vec<String>,
    pub st: &'a [[u8; 4]],
    pub triangles: &'a [[u8; 12]],
    pub frame_table: Table,
    /// The commands, where asked for ([`super::read`]); decoding only counts them.
    pub gl_commands: Vec<(bool, u32)>,
    pub gl_command_count: usize,
    pub warnings: Vec<String>,
}

/// A texture coordinate record: (s, t) in skin pixels.
#[inline]
pub(super) fn st_entry(&[s0, s1, t0, t1]: &[u8; 4]) -> [i16; 2] {
    [i16::from_le_bytes([s0, s1]), i16::from_le_bytes([t0, t1])]
}

/// A triangle record: (vertex indices, st indices), as stored (clockwise).
#[inline]
pub(super) fn triangle_indices(&[x0, x1, y0, y1, z0, z1, s0, s1, t0, t1, u0, u1]: &[u8; 12]) -> ([u16; 3], [u16; 3]) {
    ([[x0, x1], [y0, y1], [z0, z1]].map(u16::from_le_bytes), [[s0, s1], [t0, t1], [u0, u1]].map(u16::from_le_bytes))
}

/// The highest vertex index and the highest texture coordinate index over the triangle
/// records, read unsigned (a negative index is then above every valid one). Four triangles are
/// 48 bytes, 24 little-endian shorts, of which shorts 0–2, 6–8, 12–14 and 18–20 are vertex
/// indices; a maximum per short position over every group compiles to a few vector operations
/// per four triangles, and the positions are combined once at the end.
fn highest_triangle_indices(tri_bytes: &[u8]) -> (u16, u16) {
    const GROUP_SHORTS: usize = 24;
    let (groups, rest) = tri_bytes.as_chunks::<{ 2 * GROUP_SHORTS }>();
    // By value in and out, so the maxima stay in registers.
    let highest = groups.iter().fold([0u16; GROUP_SHORTS], |mut highest, group| {
        // One unaligned 48-byte load as shorts; `from_le` is nothing on little-endian machines.
        let shorts: [u16; GROUP_SHORTS] = bytemuck::pod_read_unaligned(group);
        for (high, &short) in highest.iter_mut().zip(&shorts) {
            *high = (*high).max(u16::from_le(short));
        }
        highest
    });
    // Opaque to the optimiser, which would otherwise fold the combining below into the loop and
    // shuffle every group into place.
    let highest = std::hint::black_box(highest);
    let (triangles, _) = rest.as_chunks::<12>();
    let (mut xyz, mut st) = (0u16, 0u16);
    // Threes of shorts alternate: vertex indices, then texture coordinate indices.
    for (i, three) in highest.as_chunks::<3>().0.iter().enumerate() {
        let high = three.iter().fold(0u16, |high, &v| high.max(v));
        if i % 2 == 0 {
            xyz = xyz.max(high);
        } else {
            st = st.max(high);
        }
    }
    for (v, t) in triangles.iter().map(triangle_indices) {
        xyz = v.iter().fold(xyz, |high, &i| high.max(i));
        st = t.iter().fold(st, |high, &i| high.max(i));
    }
    (xyz, st)
}

/// Whether [`read_layout`] keeps the OpenGL commands or only checks and counts them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum KeepCommands {
    Yes,
    No,
}

/// Reads the header, the skin names, the texture coordinates and triangles (every index
/// checked) and the frame table's place, and walks the command list.
#[inline]
pub(super) fn read_layout<'a>(r: &Reader<'a>, keep: KeepCommands) -> DecodeResult<Layout<'a>> {
    let mut warnings = Vec::new();
    let h = read_header(r, &mut warnings)?;
    let num_xyz = count(h.num_xyz);
    let num_st = count(h.num_st);

    let skin_table = r.table(offset(h.ofs_skins), count(h.num_skins), SKIN_NAME_LEN, "skins")?;
    let skins = (0..skin_table.count)
        .map(|i| r.cstr(skin_table.record(i), SKIN_NAME_LEN, "skin name"))
        .collect::<DecodeResult<Vec<_>>>()?;

    let st_table = r.table(offset(h.ofs_st), num_st, 4, "texture coordinates")?;
    let st_bytes = r.bytes(st_table.offset, st_table.end() - st_table.offset, "texture coordinates")?;
    let (st, _) = st_bytes.as_chunks::<4>();

    let tri_table = r.table(offset(h.ofs_tris), count(h.num_tris), 12, "triangles")?;
    let tri_bytes = r.bytes(tri_table.offset, tri_table.end() - tri_table.offset, "triangles")?;
    // Indices are signed shorts: one below both the count and 32768 is valid. The highest index
    // of each kind is kept with no branch per triangle (the loop vectorises); only a file that
    // fails is searched for its first bad triangle.
    let xyz_limit = num_xyz.min(0x8000) as u16;
    let st_limit = num_st.min(0x8000) as u16;
    let (triangles, _) = tri_bytes.as_chunks::<12>();
    let (highest_xyz, highest_st) = highest_triangle_indices(tri_bytes);
    if highest_xyz >= xyz_limit || highest_st >= st_limit {
        for (i, (xyz, sts)) in triangles.iter().map(triangle_indices).enumerate() {
            let at = tri_table.record(i as u64);
            if let Some(&bad) = xyz.iter().find(|&&v| v >= xyz_limit) {
                return Err(r.invalid(
                    "triangle vertex index",
                    at,
                    format!("triangle {i} names vertex {} of {num_xyz}", bad as i16),
                ));
            }
            if let Some(&bad) = sts.iter().find(|&&v| v >= st_limit) {
                return Err(r.invalid(
                    "triangle texture coordinate index",
                    at + 6,
                    format!("triangle {i} names texture coordinate {} of {num_st}", bad as i16),
                ));
            }
        }
    }

    let frame_table = r.table(offset(h.ofs_frames), count(h.num_frames), count(h.frame_size), "frames")?;
    let mut gl_commands = Vec::new();
    let walked = match keep {
        KeepCommands::Yes => walk_gl_commands(r, &h, |is_strip, vertices| gl_commands.push((is_strip, vertices))),
        KeepCommands::No => walk_gl_commands(r, &h, |_, _| {}),
    };
    let gl_command_count = match walked {
        Ok(count) => count,
        Err(e) => {
            warnings.push(format!("OpenGL command list ignored: {e}"));
            gl_commands.clear();
            0
        }
    };
    Ok(Layout { header: h, skins, st, triangles, frame_table, gl_commands, gl_command_count, warnings })
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::super::test_fixtures::small_spec;
    use super::*;

    fn error_text(bytes: &[u8]) -> String {
        decode(bytes).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn the_highest_indices_match_a_plain_loop_at_every_position_and_length() {
        for triangles in [0usize, 1, 3, 4, 5, 8, 9, 13] {
            for marked in 0..triangles * 6 {
                for value in [1u16, 0x7FFF, 0x8000, 0xFFFF] {
                    // Small distinct values everywhere, and `value` at one short.
                    let mut shorts: Vec<u16> = (0..triangles * 6).map(|i| (i % 5) as u16).collect();
                    shorts[marked] = value;
                    let bytes: Vec<u8> = shorts.iter().flat_map(|s| s.to_le_bytes()).collect();
                    let plain = |kind: usize| {
                        shorts.iter().enumerate().filter(|(i, _)| (i % 6 < 3) == (kind == 0)).map(|(_, &s)| s).max()
                    };
                    let expected = (plain(0).unwrap_or(0), plain(1).unwrap_or(0));
                    assert_eq!(highest_triangle_indices(&bytes), expected, "{triangles} triangles, short {marked}");
                }
            }
        }
    }

    /// The first bad triangle in file order is named, its vertex index checked before its st.
    #[test]
    fn a_bad_triangle_index_names_the_first_bad_triangle() {
        let mut spec = small_spec();
        spec.triangles[1].1[2] = 4;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 1 names texture coordinate 4 of 4"), "{text}");
        spec.triangles[1].0[0] = -1;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 1 names vertex -1 of 3"), "{text}");
        spec.triangles[0].0[1] = 3;
        let text = error_text(&spec.to_bytes());
        assert!(text.contains("triangle 0 names vertex 3 of 3"), "{text}");
    }
}
