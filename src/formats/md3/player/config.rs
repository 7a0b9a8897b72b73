//! A player's `animation.cfg` read as Quake 3's cgame reads it (`CG_ParseAnimationFile` in
//! ioquake3's `cg_players.c`): optional `sex`, `footsteps`, `headoffset x y z`, `fixedlegs`
//! and `fixedtorso` keywords, then `first count looping fps` for each animation in the fixed
//! order of [`ANIMATION_NAMES`]; `//` and `/* */` comments are skipped.
//!
//! The cgame's rules, kept here:
//! - `skip = first(LEGS_WALKCR) - first(TORSO_GESTURE)` is taken off the first frame of every
//!   `LEGS_` animation (`lower.md3` numbers its frames without the torso-only ones);
//! - a negative count plays the frames in reverse; a looping count of 0 does not loop;
//! - `fps` 0 becomes 1, and the frame time is the whole milliseconds `1000 / fps` (an `int`);
//! - the Team Arena gestures (`TORSO_GETFLAG` … `TORSO_NEGATIVE`) may be left out: each then
//!   copies `TORSO_GESTURE`; any other missing number fails the file.
//!
//! One departure, for mods: an unknown keyword skips the rest of its line (Turtle Arena's
//! `boundingbox -15 -15 -24 15 15 44` would otherwise start the frame numbers at `15`, as
//! the unmodified Quake 3 parser would misread it), with a note.

/// The animations of a Quake 3 player in the file's order (`animNumber_t`, `bg_public.h`).
pub const ANIMATION_NAMES: [&str; 31] = [
    "BOTH_DEATH1",
    "BOTH_DEAD1",
    "BOTH_DEATH2",
    "BOTH_DEAD2",
    "BOTH_DEATH3",
    "BOTH_DEAD3",
    "TORSO_GESTURE",
    "TORSO_ATTACK",
    "TORSO_ATTACK2",
    "TORSO_DROP",
    "TORSO_RAISE",
    "TORSO_STAND",
    "TORSO_STAND2",
    "LEGS_WALKCR",
    "LEGS_WALK",
    "LEGS_RUN",
    "LEGS_BACK",
    "LEGS_SWIM",
    "LEGS_JUMP",
    "LEGS_LAND",
    "LEGS_JUMPB",
    "LEGS_LANDB",
    "LEGS_IDLE",
    "LEGS_IDLECR",
    "LEGS_TURN",
    "TORSO_GETFLAG",
    "TORSO_GUARDBASE",
    "TORSO_PATROL",
    "TORSO_FOLLOWME",
    "TORSO_AFFIRMATIVE",
    "TORSO_NEGATIVE",
];

const TORSO_GESTURE: usize = 6;
const LEGS_WALKCR: usize = 13;
/// The first of Team Arena's gestures, which a file may leave out.
pub const TORSO_GETFLAG: usize = 25;

/// One animation as the cgame keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Animation {
    /// First frame in its part's `.md3` (the `LEGS_` skip already taken off).
    pub first_frame: i64,
    /// Frame count (made positive when the file gave it negative).
    pub frame_count: i64,
    /// The last this many frames repeat after the first pass; 0 holds the last frame.
    pub loop_frames: i64,
    /// Milliseconds per frame (`frameLerp`).
    pub frame_ms: i64,
    pub reversed: bool,
}

impl Animation {
    /// Frames per second the game plays at (`1000 / frameLerp`).
    pub fn rate(&self) -> f32 {
        1000.0 / self.frame_ms.max(1) as f32
    }
}

/// A parsed `animation.cfg`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimationConfig {
    /// `(name, animation)` in [`ANIMATION_NAMES`] order.
    pub animations: Vec<(&'static str, Animation)>,
    pub sex: Option<String>,
    pub footsteps: Option<String>,
    pub head_offset: Option<[f32; 3]>,
    /// How many animations the file gave (25 for Quake 3's, 31 with Team Arena's).
    pub given: usize,
    pub notes: Vec<String>,
}

/// The tokens of the text as `COM_Parse` splits them, each with its line number: comments
/// skipped, a quoted string one token.
fn tokens(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() || c.is_control() => {}
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                    }
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let word: String = chars.by_ref().take_while(|&c| c != '"').collect();
                line += word.matches('\n').count();
                out.push((line, word));
            }
            c => {
                let mut word = c.to_string();
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || next.is_control() {
                        break;
                    }
                    word.push(next);
                    chars.next();
                }
                out.push((line, word));
            }
        }
    }
    out
}

/// C's `atoi`: leading blanks, a sign, then digits; anything else ends it (`"12x"` is 12,
/// `"x"` is 0), held to an `int`'s range.
fn atoi(token: &str) -> i64 {
    let t = token.trim_start();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let value = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .fold(0i64, |v, d| v.saturating_mul(10).saturating_add(i64::from(d.to_digit(10).unwrap_or(0))));
    // The game's numbers are C ints.
    (sign * value).clamp(i64::from(i32::MIN), i64::from(i32::MAX))
}

/// C's `atof` on the longest leading number (`"20.5fps"` is 20.5, `"x"` is 0).
fn atof(token: &str) -> f64 {
    let t = token.trim();
    (1..=t.len()).rev().filter_map(|end| t.get(..end)?.parse::<f64>().ok()).next().unwrap_or(0.0)
}

/// Parses the text; `Err` names what is missing, as the game refuses such a file.
pub fn parse(text: &str) -> Result<AnimationConfig, String> {
    let tokens = tokens(text);
    let mut config = AnimationConfig::default();
    let mut at = 0;
    let mut skipped = Vec::new();
    let word = |i: usize| tokens.get(i).map(|(_, w)| w.as_str());
    while let Some(token) = word(at) {
        let lower = token.to_ascii_lowercase();
        match lower.as_str() {
            "footsteps" | "sex" => {
                let value = word(at + 1).map(str::to_string);
                if lower == "sex" {
                    config.sex = value
                } else {
                    config.footsteps = value
                }
                at += 2;
            }
            "headoffset" => {
                let mut offset = [0.0f32; 3];
                for (k, slot) in offset.iter_mut().enumerate() {
                    *slot = word(at + 1 + k).map_or(0.0, |w| atof(w) as f32);
                }
                config.head_offset = Some(offset);
                at += 4;
            }
            "fixedlegs" | "fixedtorso" => at += 1,
            _ if token.starts_with(|c: char| c.is_ascii_digit()) => break,
            _ => {
                // Not Quake 3's: skip the rest of the line (see the module doc).
                let line = tokens.get(at).map_or(0, |(l, _)| *l);
                skipped.push(format!("{token} (line {line})"));
                while tokens.get(at).is_some_and(|(l, _)| *l == line) {
                    at += 1;
                }
            }
        }
    }

    if !skipped.is_empty() {
        config.notes.push(format!("animation.cfg: lines of keywords Quake 3 lacks skipped: {}", skipped.join(", ")));
    }
    let mut animations: Vec<Animation> = Vec::with_capacity(ANIMATION_NAMES.len());
    let mut skip = 0;
    let gesture = |animations: &[Animation]| animations.get(TORSO_GESTURE).copied().unwrap_or_default();
    for (i, name) in ANIMATION_NAMES.iter().enumerate() {
        let Some(first) = word(at) else {
            if i >= TORSO_GETFLAG {
                animations.push(Animation { reversed: false, ..gesture(&animations) });
                continue;
            }
            return Err(format!("animation.cfg: no frame numbers for {name} (animation {i})"));
        };
        let values: Vec<&str> = (1..4).filter_map(|k| word(at + k)).collect();
        let [count, looping, fps] = values.as_slice() else {
            return Err(format!("animation.cfg: {name} has fewer than 4 numbers"));
        };
        at += 4;
        config.given = i + 1;
        let mut first_frame = atoi(first);
        if i == LEGS_WALKCR {
            skip = first_frame - gesture(&animations).first_frame;
        }
        if (LEGS_WALKCR..TORSO_GETFLAG).contains(&i) {
            first_frame -= skip;
        }
        let count = atoi(count);
        let fps = atof(fps);
        let fps = if fps == 0.0 { 1.0 } else { fps };
        // `frameLerp` is an int: 1000 / 15 plays at 66 ms a frame.
        let frame_ms = (1000.0 / fps) as i64;
        if frame_ms <= 0 {
            config
                .notes
                .push(format!("animation.cfg: {name} at {fps} fps has no whole milliseconds per frame; 1 ms used"));
        }
        animations.push(Animation {
            first_frame,
            frame_count: count.abs(),
            loop_frames: atoi(looping),
            frame_ms: frame_ms.max(1),
            reversed: count < 0,
        });
    }
    if word(at).is_some() {
        config.notes.push(format!("animation.cfg: {} numbers after TORSO_NEGATIVE ignored", tokens.len() - at));
    }
    config.animations = ANIMATION_NAMES.iter().copied().zip(animations).collect();
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(first_frames: &[i64]) -> String {
        first_frames.iter().map(|f| format!("{f} 2 2 10\n")).collect()
    }

    #[test]
    fn legs_frames_skip_the_torso_only_frames() {
        // 6 BOTH, 7 TORSO from 10 (gesture) to 40, legs from 50: skip = 50 - 10 = 40.
        let firsts: Vec<i64> = (0..25).map(|i| if i < 6 { i * 2 } else { 10 * (i - 5) }).collect();
        let text = format!("sex f\nfootsteps boot\nheadoffset 1 2 3\n// frames\n{}", lines(&firsts));
        let config = parse(&text).unwrap();
        let get = |name: &str| config.animations.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(get("TORSO_GESTURE").first_frame, 10);
        assert_eq!(get("LEGS_WALKCR").first_frame, 80 - 70);
        assert_eq!(get("LEGS_TURN").first_frame, 190 - 70);
        assert_eq!(config.sex.as_deref(), Some("f"));
        assert_eq!(config.head_offset, Some([1.0, 2.0, 3.0]));
        // The Team Arena gestures copy TORSO_GESTURE (no skip: they are torso frames).
        assert_eq!(get("TORSO_NEGATIVE"), get("TORSO_GESTURE"));
        assert!(config.notes.is_empty(), "{:?}", config.notes);
    }

    #[test]
    fn negative_counts_reverse_and_zero_fps_is_one() {
        let mut text = lines(&[0; 25]);
        text = text.replacen("0 2 2 10", "3 -4 0 0", 1);
        text = text.replacen("0 2 2 10", "0 1 0 15", 1);
        let config = parse(&text).unwrap();
        let (_, death) = config.animations[0];
        assert_eq!((death.first_frame, death.frame_count, death.reversed, death.frame_ms), (3, 4, true, 1000));
        // 1000 / 15 in whole milliseconds.
        assert_eq!(config.animations[1].1.frame_ms, 66);
    }

    #[test]
    fn missing_numbers_fail_and_mod_keywords_skip_their_line() {
        assert!(parse(&lines(&[0; 24])).unwrap_err().contains("LEGS_TURN"));
        let text = format!("boundingbox -15 -15 -24 15 15 44\nspeed 320 /* c */\n{}", lines(&[0; 25]));
        let config = parse(&text).unwrap();
        assert_eq!(
            config.notes,
            ["animation.cfg: lines of keywords Quake 3 lacks skipped: boundingbox (line 1), speed (line 2)"]
        );
        assert_eq!(config.animations[0].1.frame_count, 2);
        assert_eq!(atoi("12x"), 12);
        assert_eq!(atoi("-99999999999999999999"), i64::from(i32::MIN));
        assert_eq!(atof("20.5fps"), 20.5);
    }

    #[test]
    fn damaged_text_never_panics() {
        let good = format!("sex m\nheadoffset 1 2 3\n{}", lines(&[7; 25]));
        for cut in 0..good.len() {
            let _ = parse(good.get(..cut).unwrap_or(""));
        }
        for bad in ["\"unterminated", "/* open", "0 -2147483648 nan inf\n", "headoffset", "\u{0}\u{1}/"] {
            let _ = parse(&format!("{bad} {}", lines(&[2147483647; 25])));
        }
    }
}
