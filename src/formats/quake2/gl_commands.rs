//! The OpenGL command list (strips and fans naming vertices): walked and checked to its zero
//! word. The game draws from it, but the decoder builds triangles from the triangle records, so
//! a broken list is only a warning.

use super::header::Header;
use super::layout::{count, offset};
use crate::formats::reader::Reader;

/// Walks the command list to its zero word, checking every count and vertex index, and hands
/// each command (is a strip, vertex count) to `visit`; returns how many there were. The list
/// is fetched once as a checked slice of words. Vertex indices are checked with no branch per
/// command: the walk keeps the highest index seen (a negative one reads as a huge unsigned
/// one), and only a list that fails is walked again for its first bad command. So `visit` may
/// see commands of a list that then fails; the caller drops them.
pub(super) fn walk_gl_commands(r: &Reader, h: &Header, mut visit: impl FnMut(bool, u32)) -> Result<usize, String> {
    let word_count = count(h.num_glcmds);
    if word_count == 0 {
        return Ok(0);
    }
    let bytes =
        r.bytes(offset(h.ofs_glcmds), word_count.saturating_mul(4), "OpenGL commands").map_err(|e| e.to_string())?;
    let (words, _) = bytes.as_chunks::<4>();
    let limit = u32::try_from(h.num_xyz).unwrap_or(0);
    let mut commands = 0usize;
    let mut highest = 0u32;
    let mut rest = words;
    let problem = loop {
        let Some((&first, after)) = rest.split_first() else {
            break format!("no terminating zero within {word_count} words");
        };
        let n = i32::from_le_bytes(first);
        if n == 0 {
            break String::new();
        }
        let Some((body, next)) = command_body(n, after) else {
            break format!("command at word {} runs past the list", words.len() - rest.len());
        };
        // Each vertex is three words: s, t and the vertex index.
        highest = highest_index(body, highest);
        rest = next;
        visit(n > 0, n.unsigned_abs());
        commands += 1;
    };
    // A bad index comes before whatever ended the walk, so it is the first problem.
    if highest >= limit {
        return Err(first_bad_command(words, h.num_xyz));
    }
    if problem.is_empty() { Ok(commands) } else { Err(problem) }
}

/// The highest vertex index among a command's vertices and `highest`, four vertices a step:
/// fewer loop instructions per vertex than one at a time, for commands of a few vertices each.
fn highest_index(body: &[[Word; 3]], highest: u32) -> u32 {
    let index = |&[_, _, index]: &[Word; 3]| u32::from_le_bytes(index);
    let (fours, rest) = body.as_chunks::<4>();
    let highest =
        fours.iter().fold(highest, |high, [a, b, c, d]| high.max(index(a).max(index(b)).max(index(c).max(index(d)))));
    rest.iter().fold(highest, |high, vertex| high.max(index(vertex)))
}

/// One little-endian word of the command list.
type Word = [u8; 4];

/// The vertices of a command of `n` (its sign says strip or fan) from the words after its
/// count, and the words after them; `None` when they run past the list.
fn command_body(n: i32, after: &[Word]) -> Option<(&[[Word; 3]], &[Word])> {
    let body_words = usize::try_from(n.unsigned_abs()).ok()?.checked_mul(3).filter(|&w| w <= after.len())?;
    let (body, next) = after.split_at(body_words);
    Some((body.as_chunks::<3>().0, next))
}

/// Names the first command with a vertex index outside `0..num_xyz`, walking commands already
/// known to fit the list.
fn first_bad_command(words: &[Word], num_xyz: i32) -> String {
    let mut rest = words;
    while let Some((&first, after)) = rest.split_first() {
        let n = i32::from_le_bytes(first);
        let Some((body, next)) = command_body(n, after).filter(|_| n != 0) else { break };
        let bad = body.iter().map(|&[_, _, index]| i32::from_le_bytes(index)).find(|&i| i < 0 || i >= num_xyz);
        if let Some(index) = bad {
            return format!("command at word {} names vertex {index}", words.len() - rest.len());
        }
        rest = next;
    }
    // Unreachable: the first walk saw a bad index among these commands.
    debug_assert!(false, "no bad command found again");
    "a command names a vertex past the model".to_string()
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::small_spec;
    use super::super::{decode, read};
    use super::*;

    /// A broken command list is ignored with a warning that says where and why; the model
    /// still decodes.
    #[test]
    fn a_broken_command_list_is_a_warning_naming_the_command() {
        let spec = small_spec();
        let bytes = spec.to_bytes();
        let ofs_glcmds = i32::from_le_bytes(bytes[60..64].try_into().unwrap()) as usize;
        let warning_for = |patch: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = bytes.clone();
            patch(&mut bytes);
            let scene = decode(&bytes).expect("the model decodes without its command list");
            scene.warnings.iter().find(|w| w.starts_with("OpenGL command list ignored")).cloned().unwrap_or_default()
        };
        let word = |bytes: &mut Vec<u8>, index: usize, value: i32| {
            bytes[ofs_glcmds + 4 * index..ofs_glcmds + 4 * index + 4].copy_from_slice(&value.to_le_bytes())
        };
        // Two fans of three vertices (words 0..=9 and 10..=19), then the zero word.
        assert_eq!(warning_for(&|_| ()), "");
        let text = warning_for(&|b| word(b, 16, 3));
        assert!(text.ends_with("command at word 10 names vertex 3"), "{text}");
        let text = warning_for(&|b| word(b, 3, -2));
        assert!(text.ends_with("command at word 0 names vertex -2"), "{text}");
        let text = warning_for(&|b| word(b, 10, 4));
        assert!(text.ends_with("command at word 10 runs past the list"), "{text}");
        let text = warning_for(&|b| word(b, 10, i32::MIN));
        assert!(text.ends_with("command at word 10 runs past the list"), "{text}");
        let text = warning_for(&|b| word(b, 20, 1));
        assert!(text.ends_with("command at word 20 runs past the list"), "{text}");
        // The first problem in list order is named, whichever kind it is.
        let text = warning_for(&|b| {
            word(b, 16, -1);
            word(b, 20, 1)
        });
        assert!(text.ends_with("command at word 10 names vertex -1"), "{text}");
        let text = warning_for(&|b| {
            word(b, 3, 7);
            word(b, 16, 9)
        });
        assert!(text.ends_with("command at word 0 names vertex 7"), "{text}");
        // num_glcmds one short: the list ends after the second fan, before its zero word.
        let text = warning_for(&|b| b[36..40].copy_from_slice(&20i32.to_le_bytes()));
        assert!(text.ends_with("no terminating zero within 20 words"), "{text}");
        // Decoding counts the commands that `read` lists, and counts none of a broken list.
        let parsed = |bytes: &[u8]| {
            let raw = decode(bytes).unwrap().raw;
            raw.iter().find(|f| f.name == "gl commands parsed").map(|f| f.value)
        };
        assert_eq!(read(&bytes).unwrap().gl_commands, [(false, 3), (false, 3)]);
        assert_eq!(parsed(&bytes), Some(2));
        let mut broken = bytes.clone();
        word(&mut broken, 16, 3);
        assert!(read(&broken).unwrap().gl_commands.is_empty());
        assert_eq!(parsed(&broken), Some(0));
    }

    /// The four-at-a-time highest command index matches a plain fold at every length and
    /// every position of the highest one, including indices that read as negative.
    #[test]
    fn the_highest_command_index_matches_a_plain_fold() {
        for length in 0..11 {
            for at in 0..length.max(1) {
                for high in [7u32, 0x8000_0000, u32::MAX] {
                    let body: Vec<[Word; 3]> = (0..length)
                        .map(|v| {
                            let index = if v == at { high } else { v as u32 % 5 };
                            [[9; 4], [0xFF; 4], index.to_le_bytes()]
                        })
                        .collect();
                    let plain = body.iter().fold(2, |h: u32, v| h.max(u32::from_le_bytes(v[2])));
                    assert_eq!(highest_index(&body, 2), plain, "length {length}, at {at}");
                }
            }
        }
    }
}
