//! Animation clips: channels over a span of time, what the file said about each track, and
//! finding the clip a user asked for by name, file or number.

use serde::Serialize;

use super::{Channel, Scene};

/// What the file said about one track, whether or not it became channels; for `info` and
/// the panel.
#[derive(Debug, Clone, Serialize)]
pub struct TrackReport {
    pub index: u32,
    /// Target index as stored.
    pub target: u32,
    /// Shared with the skeleton: a model reports each bone once per clip.
    pub target_name: Option<std::sync::Arc<str>>,
    /// Channel kinds present: `rotation`, `morph`, `uv`, or `0x…` for undecoded flag bits.
    /// Borrowed where the kind is a fixed word, and up to three held inline (a bone's
    /// translation, rotation and scale): a character's 20,000 (bone, clip) reports allocate
    /// nothing for their lists.
    pub channels: smallvec::SmallVec<[std::borrow::Cow<'static, str>; 3]>,
    pub flags: u32,
    /// Raw slot pointers, by slot name.
    pub slots: Vec<(String, u32)>,
    /// Keys per kind, held inline as `channels` is.
    pub key_counts: smallvec::SmallVec<[(std::borrow::Cow<'static, str>, u32); 3]>,
    /// Each channel that could not play, as `kind: reason`.
    pub reasons: Vec<String>,
    /// Why the track (or one of its channels) was not played; `None` when everything decoded.
    pub skipped: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Clip {
    pub name: String,
    /// Where the clip came from (TPW sibling files).
    pub source: Option<std::path::PathBuf>,
    /// Clip start and end time in the clip's units (frames, or milliseconds for M2).
    pub start: f32,
    pub end: f32,
    /// Suggested playback rate in units per second.
    pub rate: f32,
    pub channels: Vec<Channel>,
    pub tracks: Vec<TrackReport>,
    pub warnings: Vec<String>,
}

/// [`Clip::rate`] of clips timed in milliseconds (M2).
pub const MILLISECONDS_PER_SECOND: f32 = 1000.0;

impl Clip {
    pub fn length(&self) -> f32 {
        (self.end - self.start).max(0.0)
    }

    /// Clip units past [`Clip::end`] through which a loop blends back into the start: one frame
    /// where a channel wraps ([`PackedFrames::wraps`](super::PackedFrames::wraps)) or carries its
    /// return frame ([`Clip::carries_return_frame`]), else none. A looping clip's period is its
    /// length plus this.
    pub fn loop_blend(&self) -> f32 {
        let wraps = self.channels.iter().any(|c| match c {
            Channel::PackedFrames(p) => p.wraps,
            other => self.carries_return_frame(other),
        });
        if wraps { 1.0 } else { 0.0 }
    }

    /// Whether `channel` holds whole frames ([`Channel::VertexFrames`]) whose last, one frame past
    /// [`Clip::end`], is its first again: the frame a loop returns to, which only a looping pose
    /// reaches (MD3 clips carry it so that their surfaces and tags blend back as Quake II's do).
    pub fn carries_return_frame(&self, channel: &Channel) -> bool {
        let Channel::VertexFrames { times, vertex_count, positions, .. } = channel else { return false };
        let (Some(&first), Some(&last)) = (times.first(), times.last()) else { return false };
        let last_frame = positions.len().checked_sub(*vertex_count).and_then(|from| positions.get(from..));
        times.len() >= 2
            && first == self.start
            && last == self.end + 1.0
            && positions.get(..*vertex_count) == last_frame
    }

    /// Whether the clip's times are milliseconds (M2) rather than frames.
    pub fn in_milliseconds(&self) -> bool {
        self.rate == MILLISECONDS_PER_SECOND
    }
}

/// Finds the clip a user asked for: a clip name (`M1`, `run`), a clip's source file name
/// (`gateM1.MD2`), or a path to that file; all case-insensitive. The error lists the choices.
pub fn resolve_clip(scene: &Scene, wanted: &str) -> Result<usize, String> {
    if let Some(i) = scene.clips.iter().position(|c| c.name.eq_ignore_ascii_case(wanted)) {
        return Ok(i);
    }
    let wanted_path = std::path::Path::new(wanted);
    let wanted_file = wanted_path.file_name().map(|n| n.to_string_lossy().to_lowercase());
    let wanted_canonical = wanted_path.canonicalize().ok();
    for (i, clip) in scene.clips.iter().enumerate() {
        let Some(source) = &clip.source else { continue };
        if wanted_canonical.is_some() && source.canonicalize().ok() == wanted_canonical {
            return Ok(i);
        }
        let file = source.file_name().map(|n| n.to_string_lossy().to_lowercase());
        if wanted_file.is_some() && file == wanted_file && wanted_path.components().count() == 1 {
            return Ok(i);
        }
    }
    if let Ok(i) = wanted.parse::<usize>()
        && i < scene.clips.len()
    {
        return Ok(i);
    }
    if let Some(&(_, i)) = scene.clip_aliases.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(wanted))
        && i < scene.clips.len()
    {
        return Ok(i);
    }
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    Err(if names.is_empty() {
        format!("animation '{wanted}' not found: this model has no animations")
    } else {
        format!("animation '{wanted}' not found; this model has: {}", names.join(", "))
    })
}
