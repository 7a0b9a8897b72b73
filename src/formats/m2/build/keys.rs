//! Which keys of a track a clip takes (the playing sequence's, or a global sequence's; none
//! where the sequence's `.anim` file is missing), the sequence-0 fallback for colours and
//! transparencies, and the key budget that bounds what clips may hold for the size of the input.

use crate::formats::m2::model::M2Model;
use crate::formats::m2::tracks::Track;
use crate::scene::anim::{CurveValue, sample_curve};
use crate::scene::{Curve, TrackTime};

/// Keys clips may play per byte of input (a global track plays in every clip). Clips view the
/// keys rather than copy them, but each entry's joint, report and sampling cost follow them.
pub(super) const CLIP_KEYS_PER_INPUT_BYTE: u64 = 16;

/// What one bone's entry in a clip (its joint tracks and track report, about 490 bytes: the
/// report holds its lists inline) counts against that key budget on top of its keys. A
/// global-sequence track plays in every clip, so a crafted file whose sequence and bone tables
/// overlap could otherwise ask for sequences × bones entries of one key each: gigabytes of
/// entries from a 1 MB file.
pub(super) const KEYS_PER_CLIP_ENTRY: u64 = 30;

/// Keys in one track's share of a clip (0 where the track does not play).
#[inline]
pub(super) fn keys_in<T>(taken: &Option<(Curve<T>, TrackTime)>) -> usize {
    taken.as_ref().map_or(0, |(keys, _)| keys.len())
}

/// Takes one clip entry of `keys` keys (plus [`KEYS_PER_CLIP_ENTRY`]) from `budget`; `false`,
/// leaving the budget as it is, where it does not fit.
#[inline]
pub(super) fn spend_keys(budget: &mut u64, keys: usize) -> bool {
    let cost = (keys as u64).saturating_add(KEYS_PER_CLIP_ENTRY);
    if cost > *budget {
        return false;
    }
    *budget -= cost;
    true
}

/// Which sequence's keys to take, and whether they were lost with a missing `.anim` file.
#[derive(Clone, Copy)]
pub(super) struct SequenceKeys {
    pub(super) index: usize,
    /// The sequence's .anim file is missing: only global-sequence tracks play, the rest of the
    /// model holds its bind pose.
    pub(super) missing: bool,
}

/// Keys of `track` for `sequence`, or `None` when the track does not animate it.
/// Only the playing sequence's own keys count, or the keys of the track's global sequence: a
/// track without keys in the sequence contributes nothing, so that component stays at rest
/// (no translation, identity rotation, scale 1). This follows WoW Model Viewer, where
/// `Animated::uses(anim)` is false and the bone takes no transform from the track, and
/// wow.export, where `has_trans`/`has_rot`/`has_scale` are false and the part stays identity.
/// A track of a sequence whose .anim file is missing is left out too (bind pose), unless it
/// is global. Values are used as stored: colours, alphas and texture transforms have no axes,
/// and bone keys were read in scene axes.
///
/// The keys are a view of the track's list, decoded once ([`Track::curve`]): a clip shares
/// them, and whether the track plays is read from its table of runs alone, so building the
/// clips of a model with many sequences and bones neither copies keys nor visits the keys of
/// tracks that do not play.
#[inline]
pub(super) fn clip_keys<T: Copy>(track: &Track<T>, sequence: SequenceKeys) -> Option<(Curve<T>, TrackTime)> {
    let (list, _, time) = clip_key_count(track, sequence)?;
    Some((track.curve(list), time))
}

/// Which of the track's lists [`clip_keys`] would view, its key count and timing, without
/// making the view.
#[inline]
pub(super) fn clip_key_count<T: Copy>(track: &Track<T>, sequence: SequenceKeys) -> Option<(usize, usize, TrackTime)> {
    if sequence.missing && track.global_sequence.is_none() {
        return None;
    }
    let (list, time) = track.playing(sequence.index);
    let keys = track.keys_in(list);
    (keys > 0).then_some((list, keys, time))
}

/// Where a unit's colour and transparency come from when the playing sequence has no keys:
/// sequence 0, as WoW Model Viewer reads them (`ModelRenderPass::init` asks
/// `color.uses(0)` and `getValue(0, animtime)`, likewise `transparency[..].trans`), and a
/// neutral value (white, opaque) where sequence 0 has none either. A colour's own alpha has no
/// such fallback: WMV reads it from the playing sequence alone (`opacity.uses(anim)`) and
/// otherwise keeps 1.
#[inline]
pub(super) fn fallback_sequence(model: &M2Model) -> SequenceKeys {
    SequenceKeys { index: 0, missing: model.anim_present.first().copied().flatten() == Some(false) }
}

/// A track's value at time 0 of `sequence` (of its loop, for a global track), or `neutral`
/// where it has no keys there.
pub(super) fn value_at_start<T: CurveValue>(track: &Track<T>, sequence: SequenceKeys, neutral: T) -> T {
    clip_keys(track, sequence).and_then(|(curve, _)| sample_curve(&curve, 0.0)).unwrap_or(neutral)
}
