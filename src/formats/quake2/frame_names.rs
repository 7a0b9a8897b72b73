//! Frame names, the hot part of reading the frame block: each 16-byte name field's length and
//! the length of its clip's name from SSE2 masks ([`name_lengths`]), the clip as a key that
//! compares in one word ([`clip_key`]), and one UTF-8 check over all the names
//! ([`set_frame_names`]).

use crate::formats::frame_clips::UNNAMED_CLIP;
use crate::scene::FrameTable;

/// A 16-byte name field's length up to its first NUL (16 when it has none), and how much of
/// that name its clip keeps ([`clip_length`](crate::formats::frame_clips::clip_length): the name minus trailing
/// digits, all of it when all are digits), from two per-byte masks ([`field_masks`]), with no
/// loop and no branch per byte.
#[inline]
pub(super) fn name_lengths(field: &[u8; 16]) -> (usize, usize) {
    let (nul, digit) = field_masks(field);
    let length = (nul | 1 << 16).trailing_zeros();
    let in_name = (1u32 << length) - 1;
    let not_digits = !digit & in_name;
    let kept = if not_digits == 0 { length } else { u32::BITS - not_digits.leading_zeros() };
    (length as usize, kept as usize)
}

/// Bit `i` set where byte `i` of the field is NUL, and where it is an ASCII digit: a compare
/// each and one gather of the lanes' top bits (SSE2, part of every x86-64 processor). The
/// byte-at-a-time loops this replaces were most of the names pass.
#[cfg(target_arch = "x86_64")]
fn field_masks(field: &[u8; 16]) -> (u32, u32) {
    // SAFETY: SSE2 is part of the x86-64 baseline, so every processor this runs on has it.
    unsafe { field_masks_sse2(field) }
}

/// [`field_masks`] in SSE2 instructions; a `target_feature` function, so callers vouch for SSE2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn field_masks_sse2(field: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8,
    };
    let bytes: __m128i = bytemuck::cast(*field);
    let nul = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128()));
    // A digit is 0x30..=0x39: at most 9 once 0x30 is taken away (wrapping), read unsigned.
    let past_zero_char = _mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8));
    let digit = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(past_zero_char, _mm_set1_epi8(9)), past_zero_char));
    (nul as u32 & 0xFFFF, digit as u32 & 0xFFFF)
}

/// [`field_masks`] a byte at a time, for other processors (and as the tests' reference).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn field_masks_by_byte(field: &[u8; 16]) -> (u32, u32) {
    field.iter().enumerate().fold((0, 0), |(nul, digit), (i, &b)| {
        (nul | u32::from(b == 0) << i, digit | u32::from(b.is_ascii_digit()) << i)
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn field_masks(field: &[u8; 16]) -> (u32, u32) {
    field_masks_by_byte(field)
}

/// `masks[n]` keeps the low `n` bytes of a 16-byte word, for [`clip_key`]: a table look-up
/// instead of a 128-bit shift by a variable amount, which was most of that function's cost.
pub(super) fn clip_masks() -> [u128; 17] {
    std::array::from_fn(|kept| u128::MAX.checked_shr(128 - 8 * kept as u32).unwrap_or(0))
}

/// The clip of a frame whose name field is `field`, its name `length` bytes long of which the
/// clip keeps `kept` ([`name_lengths`]), as a key that compares whole in one word: the clip's
/// name as [`group_frames`](crate::formats::frame_clips::group_frames) finds it ([`UNNAMED_CLIP`] when the name is empty) masked out of
/// the field, and its length. `masks` is [`clip_masks`].
#[inline]
pub(super) fn clip_key(field: &[u8; 16], (length, kept): (usize, usize), masks: &[u128; 17]) -> (u128, usize) {
    let (bytes, kept) = match length {
        0 => {
            let mut unnamed = [0u8; 16];
            unnamed.iter_mut().zip(UNNAMED_CLIP.as_bytes()).for_each(|(to, &from)| *to = from);
            (unnamed, UNNAMED_CLIP.len().min(16))
        }
        _ => (*field, kept),
    };
    let mask = masks.get(kept).copied().unwrap_or(u128::MAX);
    (u128::from_le_bytes(bytes) & mask, kept)
}

/// Stores the frame names gathered as bytes: one UTF-8 check over all of them, as names are
/// ASCII in practice. Joined names can be valid where one alone is not (`a\xC3` + `\xA9`), so
/// the joined text also needs every name to start and end on a character boundary; otherwise
/// each name is made valid on its own (lossy).
/// Returns whether the names were kept as stored.
#[inline]
pub(super) fn set_frame_names(table: &mut FrameTable, name_bytes: Vec<u8>) -> bool {
    // In ASCII text, the usual case, every place is a character boundary.
    let whole_names = |text: &String| {
        text.is_ascii()
            || table
                .name_ranges
                .iter()
                .all(|&(a, b)| text.is_char_boundary(a as usize) && text.is_char_boundary(b as usize))
    };
    match String::from_utf8(name_bytes) {
        Ok(text) if whole_names(&text) => {
            table.name_text = text;
            true
        }
        not_whole => {
            let bytes = not_whole.map_or_else(|e| e.into_bytes(), String::into_bytes);
            let mut text = String::with_capacity(bytes.len());
            for range in &mut table.name_ranges {
                let name = bytes.get(range.0 as usize..range.1 as usize).unwrap_or(&[]);
                let start = text.len() as u32;
                text.push_str(&String::from_utf8_lossy(name));
                *range = (start, text.len() as u32);
            }
            table.name_text = text;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::super::test_fixtures::small_spec;
    use super::*;
    use crate::formats::frame_clips::group_frames;
    use crate::scene::{Channel, Scene};
    use crate::writers::quake2 as writer;

    /// Every frame's name, from the frame table the clips share.
    fn frame_names(scene: &Scene) -> Vec<Option<&str>> {
        let Channel::PackedFrames(packed) = &scene.clips[0].channels[0] else { panic!("packed frames") };
        (0..packed.table.name_ranges.len()).map(|f| packed.table.name(f)).collect()
    }

    #[test]
    fn a_name_ends_at_its_first_nul_and_its_clip_at_its_trailing_digits() {
        let reference = |field: &[u8; 16]| {
            let length = field.iter().position(|&b| b == 0).unwrap_or(16);
            (length, crate::formats::frame_clips::clip_length(&field[..length]))
        };
        for len in 0..=16 {
            for fill in [0u8, 1, b'7', 0x80, 0xFF] {
                let mut field = [fill; 16];
                field[..len].copy_from_slice(&b"stand01_abcdef12"[..len]);
                if len < 16 {
                    field[len] = 0;
                }
                assert_eq!(name_lengths(&field), reference(&field), "{len} bytes, then {fill:#x}");
            }
        }
        // Every byte value at every place, after a name of digits, of letters, and of both.
        for base in [*b"0123456789012345", *b"abcdefghijklmnop", *b"run12\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"]
        {
            for at in 0..16 {
                for value in 0..=255u8 {
                    let mut field = base;
                    field[at] = value;
                    assert_eq!(field_masks(&field), field_masks_by_byte(&field), "{field:?}");
                    assert_eq!(name_lengths(&field), reference(&field), "{field:?}");
                }
            }
        }
        assert_eq!(name_lengths(b"stand01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (7, 5));
        assert_eq!(name_lengths(b"1234\x0056\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (4, 4));
        assert_eq!(name_lengths(b"a\x00b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (1, 1));
        assert_eq!(name_lengths(&[b'9'; 16]), (16, 16));
    }

    #[test]
    fn clip_masks_keep_the_low_bytes() {
        let masks = clip_masks();
        for (kept, &mask) in masks.iter().enumerate() {
            let bytes = mask.to_le_bytes();
            assert!(bytes[..kept].iter().all(|&b| b == 0xFF) && bytes[kept..].iter().all(|&b| b == 0), "{kept}");
        }
    }

    /// Frame names are checked as UTF-8 together; a name that is not valid is made valid on its
    /// own and the others keep their text and place.
    #[test]
    fn a_frame_name_that_is_not_utf8_is_replaced_alone() {
        let mut spec = small_spec();
        spec.frames.push(spec.frames[0].clone());
        spec.frames[2].name = "walk1".into();
        let mut bytes = spec.to_bytes();
        let ofs_frames = i32::from_le_bytes(bytes[56..60].try_into().unwrap()) as usize;
        let frame_size = i32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        bytes[ofs_frames + frame_size + 24 + 1] = 0xFF;
        let scene = decode(&bytes).expect("decodes");
        let names = frame_names(&scene);
        assert_eq!(names, [Some("run1"), Some("r\u{FFFD}n2"), Some("walk1")]);
        let clips: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(clips, ["run", "r\u{FFFD}n", "walk"]);

        // Two names invalid alone but valid joined ("a\xC3" + "\xA9" reads "aé") stay apart.
        let mut spec = small_spec();
        spec.frames[0].name = "a?".into();
        spec.frames[1].name = "?".into();
        let mut bytes = spec.to_bytes();
        bytes[ofs_frames + 24 + 1] = 0xC3;
        bytes[ofs_frames + frame_size + 24] = 0xA9;
        let scene = decode(&bytes).expect("decodes");
        let names = frame_names(&scene);
        assert_eq!(names, [Some("a\u{FFFD}"), Some("\u{FFFD}")]);
    }

    /// Clips found from the name fields as words are the clips [`group_frames`] finds from the
    /// names as text, for names that trip each rule: trailing digits, all digits, empty names
    /// and a name spelled like the unnamed clip, a name filling all 16 bytes, a clip name that
    /// comes back, multi-byte characters.
    #[test]
    fn clips_from_name_words_match_clips_from_names() {
        let lists: [&[&str]; 8] = [
            &["stand01", "stand02", "run1", "stand03", "stand04"],
            &["", "", "all", "all7", "", "x"],
            &["123", "124", "124", "a1b2", "a1b3", "a1b"],
            &["abcdefghijklmnop", "abcdefghijklmnop", "abcdefghijklmno1", "abcdefghijklmno2"],
            &["abcdefghijklmno", "abcdefghijklmno9", "abcdefghijklmn99"],
            &["dé1", "dé2", "dé", "d", "é", "é1"],
            &["run", "run1", "run", "walk", "run2"],
            &["0", "", "1", "00", "a0", "a"],
        ];
        for names in lists {
            let mut spec = small_spec();
            let template = spec.frames[0].clone();
            spec.frames =
                names.iter().map(|&name| writer::FrameSpec { name: name.into(), ..template.clone() }).collect();
            let mut bytes = spec.to_bytes();
            // The writer ends every name with a NUL; a name of 16 bytes fills its field instead.
            let ofs_frames = i32::from_le_bytes(bytes[56..60].try_into().unwrap()) as usize;
            let frame_size = i32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
            for (f, name) in names.iter().enumerate().filter(|(_, name)| name.len() == 16) {
                let at = ofs_frames + f * frame_size + 24;
                bytes[at..at + 16].copy_from_slice(name.as_bytes());
            }
            let scene = decode(&bytes).expect("decodes");
            let stored = frame_names(&scene);
            assert_eq!(stored, names.iter().map(|&n| Some(n)).collect::<Vec<_>>());
            let expected = group_frames(names.iter().copied());
            let clips: Vec<(String, usize, usize)> =
                scene.clips.iter().map(|c| (c.name.clone(), c.start as usize, c.end as usize)).collect();
            assert_eq!(clips, expected, "{names:?}");
        }
    }
}
