//! Clips from frame names, for formats whose files are a flat list of named frames (Quake II
//! `.md2`, Quake 3 `.mdr`): a frame's clip is its name minus trailing digits, and consecutive
//! frames of one clip form one range.

/// Frames with an empty name belong to a clip of this name.
pub const UNNAMED_CLIP: &str = "all";

/// The clip a frame belongs to: its name minus trailing digits (`stand01` → `stand`); a name
/// that is all digits stays whole.
pub fn clip_of(frame_name: &str) -> &str {
    // Every byte after the last non-digit is an ASCII digit, so the cut is always at a
    // character boundary.
    frame_name.get(..clip_length(frame_name.as_bytes())).unwrap_or(frame_name)
}

/// How many bytes of a frame name its clip keeps ([`clip_of`]), for names read as bytes.
pub fn clip_length(frame_name: &[u8]) -> usize {
    frame_name.iter().rposition(|b| !b.is_ascii_digit()).map_or(frame_name.len(), |last| last + 1)
}

/// Consecutive frames sharing a clip name, as `(name, first, last)`. A name that comes back
/// after another clip gets a `#2`, `#3`… suffix, so every clip is one contiguous range.
pub fn group_frames<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(String, usize, usize)> {
    let mut runs: Vec<(&str, usize, usize)> = Vec::new();
    for (index, name) in names.into_iter().enumerate() {
        let base = if name.is_empty() { UNNAMED_CLIP } else { clip_of(name) };
        match runs.last_mut() {
            Some(run) if run.0 == base => run.2 = index,
            _ => runs.push((base, index, index)),
        }
    }
    name_runs(runs)
}

/// Names runs of frames, `(clip name, first, last)`, as [`group_frames`] does: a name that
/// comes back gets a `#2`, `#3`… suffix. Neighbouring runs must have different names, as runs
/// are not merged here (two neighbouring `x` runs would come out as `x` and `x#2`). For formats
/// that find the runs themselves, faster than from each frame's name as text.
pub fn name_runs<'a>(runs: impl IntoIterator<Item = (&'a str, usize, usize)>) -> Vec<(String, usize, usize)> {
    let runs = runs.into_iter();
    let mut clips: Vec<(String, usize, usize)> = Vec::with_capacity(runs.size_hint().0);
    // Each clip's base name and how often it has started: a model has tens of clips, so a scan
    // beats hashing every new one.
    let mut uses: Vec<(&str, usize)> = Vec::with_capacity(clips.capacity());
    for (base, first, last) in runs {
        let n = match uses.iter_mut().find(|(seen, _)| *seen == base) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                uses.push((base, 1));
                1
            }
        };
        let unique = if n == 1 { base.to_string() } else { format!("{base}#{n}") };
        clips.push((unique, first, last));
    }
    clips
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_drop_trailing_digits() {
        assert_eq!(clip_of("stand01"), "stand");
        assert_eq!(clip_of("crpain4"), "crpain");
        assert_eq!(clip_of("123"), "123");
        assert_eq!(clip_of("dé1"), "dé");
        assert_eq!(clip_of("é"), "é");
        assert_eq!(clip_of(""), "");
    }

    #[test]
    fn a_reused_name_starts_a_new_clip_and_keeps_its_frames_together() {
        let names = ["stand1", "stand2", "run1", "stand3", "stand4", ""];
        assert_eq!(
            group_frames(names),
            [
                ("stand".to_string(), 0, 1),
                ("run".to_string(), 2, 2),
                ("stand#2".to_string(), 3, 4),
                (UNNAMED_CLIP.to_string(), 5, 5)
            ]
        );
    }
}
