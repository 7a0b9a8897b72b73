//! M2Track reading: `{u16 interpolation, i16 globalSequence, M2Array<M2Array<u32>> timestamps,
//! M2Array<M2Array<T>> values}`, with one inner pair per sequence. Inner arrays point into the
//! .m2 or, for sequences whose keyframes live outside it, into that sequence's `.anim` file.
//!
//! A damaged track is local damage: it becomes a warning and an empty track, never an error.
//! Compressed values are turned into floats here, so nothing downstream sees the packed form.

use std::cell::Cell;

use glam::{Quat, Vec3};

use super::axes;
use super::layout::*;
use crate::formats::reader::Reader;
use crate::scene::{Curve, Interpolation, Key, SharedSlice, TrackTime};

/// Interpolation types. 2 and 3 store each value as a (value, in-tangent, out-tangent) triple.
/// The sources disagree on which is which: WoW Model Viewer reads 2 as Hermite and 3 as
/// Bezier, the wow-m2 crate the reverse. We follow WMV, the reader the spec's other rules
/// (compressed quaternions, blend modes) come from and the one WotLK-era files were checked
/// against; [`curve_interpolation`] is the one place that decides. A segment between keys A
/// and B uses A's out-tangent and B's in-tangent, as a Hermite or Bezier segment does (WMV's
/// Hermite takes both from A, in a path it notes only cameras use).
pub const INTERP_NONE: u16 = 0;
pub const INTERP_LINEAR: u16 = 1;
pub const INTERP_HERMITE: u16 = 2;
pub const INTERP_BEZIER: u16 = 3;

/// The scene's interpolation for a track's type (step is expanded into linear keys).
pub fn curve_interpolation(interpolation: u16) -> Interpolation {
    match interpolation {
        INTERP_HERMITE => Interpolation::Hermite,
        INTERP_BEZIER => Interpolation::Bezier,
        _ => Interpolation::Linear,
    }
}

/// Decodes a compressed quaternion component: `(v < 0 ? v + 32768 : v - 32767) / 32767`.
pub fn quat_component(v: i16) -> f32 {
    let v = i32::from(v);
    // Without a branch, so that four components decode side by side: a negative `v` gains
    // 65535 from its sign mask (v - 32767 + 65535 = v + 32768).
    let shifted = v - 32767 + ((v >> 31) & 0xFFFF);
    shifted as f32 / 32767.0
}

/// The stored form of a component in -1..=1: the inverse of [`quat_component`], for writers
/// of test and benchmark files.
pub fn pack_quat_component(c: f32) -> i16 {
    let v = (c.clamp(-1.0, 1.0) * 32767.0).round() as i32;
    (if c > 0.0 { v - 32768 } else { v + 32767 }) as i16
}

/// Four i16 in x, y, z, w order, decoded and normalised (identity when degenerate).
pub fn compressed_quat(raw: [i16; 4]) -> Quat {
    let [x, y, z, w] = raw.map(quat_component);
    let q = Quat::from_xyzw(x, y, z, w);
    // Components of whole shorts over 32767 are always finite; only a zero length is degenerate.
    if q.length_squared() > 1e-12 { q.normalize() } else { Quat::IDENTITY }
}

/// Fixed-point shorts (alpha): `i16 / 32767`.
pub fn fixed16(v: i16) -> f32 {
    f32::from(v) / 32767.0
}

/// How one value of a track type is stored. Each kind is its own type, so the track reader is
/// compiled once per kind with its parser inlined into the key loop (a call through a
/// function pointer per key was an eighth of decoding a character's tracks).
pub trait ValueKind: Copy {
    type Value: Copy;
    /// Bytes of one stored value.
    const SIZE: u64;
    fn parse(b: &[u8]) -> Option<Self::Value>;
    /// Tangents of Hermite and Bezier keys: the same storage, but not normalised.
    fn tangent(b: &[u8]) -> Option<Self::Value>;
}

/// Declares a [`ValueKind`] type and the constant that names it at call sites.
macro_rules! value_kind {
    ($(#[$doc:meta])* $constant:ident: $kind:ident, $value:ty, $size:expr, parse $parse:expr, tangent $tangent:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $kind;

        impl ValueKind for $kind {
            type Value = $value;
            const SIZE: u64 = $size;
            #[inline]
            fn parse(b: &[u8]) -> Option<$value> {
                let parse: fn(&[u8]) -> Option<$value> = $parse;
                parse(b)
            }
            #[inline]
            fn tangent(b: &[u8]) -> Option<$value> {
                let tangent: fn(&[u8]) -> Option<$value> = $tangent;
                tangent(b)
            }
        }

        $(#[$doc])*
        pub const $constant: $kind = $kind;
    };
}

fn arr<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

fn f32_at(b: &[u8], at: usize) -> Option<f32> {
    arr::<4>(b, at).map(f32::from_le_bytes)
}

fn i16_at(b: &[u8], at: usize) -> Option<i16> {
    arr::<2>(b, at).map(i16::from_le_bytes)
}

fn vec3_at(b: &[u8]) -> Option<Vec3> {
    let v = Vec3::new(f32_at(b, 0)?, f32_at(b, 4)?, f32_at(b, 8)?);
    v.is_finite().then_some(v)
}

fn raw_float_quat(b: &[u8]) -> Option<Quat> {
    let q = Quat::from_xyzw(f32_at(b, 0)?, f32_at(b, 4)?, f32_at(b, 8)?, f32_at(b, 12)?);
    q.is_finite().then_some(q)
}

/// The four shorts of a packed quaternion, x, y, z, w.
fn packed_shorts(b: &[u8]) -> Option<[i16; 4]> {
    let (&[x0, x1, y0, y1, z0, z1, w0, w1], _) = b.split_first_chunk::<8>()?;
    Some([[x0, x1], [y0, y1], [z0, z1], [w0, w1]].map(i16::from_le_bytes))
}

fn packed_quat(b: &[u8]) -> Option<Quat> {
    packed_shorts(b).map(compressed_quat)
}

/// A packed tangent: the components as stored, not normalised.
fn packed_quat_tangent(b: &[u8]) -> Option<Quat> {
    let [x, y, z, w] = packed_shorts(b)?.map(quat_component);
    Some(Quat::from_xyzw(x, y, z, w))
}

fn fixed16_at(b: &[u8]) -> Option<f32> {
    Some(fixed16(i16_at(b, 0)?))
}

fn float_at(b: &[u8]) -> Option<f32> {
    f32_at(b, 0).filter(|v| v.is_finite())
}

value_kind!(VEC3: Vec3Values, Vec3, 12, parse vec3_at, tangent vec3_at);

value_kind!(COMPRESSED_QUAT: PackedQuatValues, Quat, 8, parse packed_quat, tangent packed_quat_tangent);

value_kind!(
    /// Bone tracks are read straight into scene axes ([`super::axes`]), values and tangents
    /// alike: each key is turned while it is in hand, so clips later view the keys without
    /// touching them again (a character's keys are megabytes, read back from cache misses).
    BONE_TRANSLATION_KEYS: BoneTranslationValues, Vec3, 12,
    parse |b| vec3_at(b).map(axes::position),
    tangent |b| vec3_at(b).map(axes::position)
);

value_kind!(
    /// A bone's packed rotation keys, in scene axes (see [`BONE_TRANSLATION_KEYS`]).
    BONE_ROTATION_KEYS: BoneRotationValues, Quat, 8,
    parse |b| packed_quat(b).map(axes::rotation),
    tangent |b| packed_quat_tangent(b).map(axes::rotation)
);

value_kind!(
    /// A bone's scale keys, in scene axes (see [`BONE_TRANSLATION_KEYS`]).
    BONE_SCALE_KEYS: BoneScaleValues, Vec3, 12,
    parse |b| vec3_at(b).map(axes::scale),
    tangent |b| vec3_at(b).map(axes::scale)
);

value_kind!(
    FLOAT_QUAT: FloatQuatValues, Quat, 16,
    parse |b| raw_float_quat(b).filter(|q| q.length_squared() > 1e-12).map(Quat::normalize),
    tangent raw_float_quat
);

value_kind!(FIXED16: Fixed16Values, f32, 2, parse fixed16_at, tangent fixed16_at);

value_kind!(FLOAT: FloatValues, f32, 4, parse float_at, tangent float_at);

/// One decoded track: keys per sequence, or one key list looping on a global sequence.
///
/// Every sequence's keys sit in one list, decoded once, and each sequence is a run of it;
/// [`Track::curve`] hands out a sequence's keys as a view of that list, so the clips of a model
/// with 147 sequences share its tracks' keys instead of holding copies, and asking whether a
/// sequence has keys reads only the small table of runs.
#[derive(Debug, Clone)]
pub struct Track<T> {
    pub interpolation: u16,
    pub global_sequence: Option<usize>,
    /// Loop length in ms when `global_sequence` is set (0 when the index was out of range).
    pub global_period: u32,
    keys: SharedSlice<Key<T>>,
    /// Hermite and Bezier tangents, at the same indices as `keys`; empty for other tracks.
    tangents: SharedSlice<[T; 2]>,
    /// Per sequence (a global track: sequence 0's list only), its run of `keys`: start and
    /// length, both within `keys`.
    runs: Vec<(u32, u32)>,
}

impl<T> Default for Track<T> {
    fn default() -> Self {
        Self {
            interpolation: INTERP_NONE,
            global_sequence: None,
            global_period: 0,
            keys: SharedSlice::default(),
            tangents: SharedSlice::default(),
            runs: Vec::new(),
        }
    }
}

/// Two tracks are equal when they play the same: same settings and the same keys in each
/// sequence, however their lists are laid out.
impl<T: Copy + PartialEq> PartialEq for Track<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.interpolation, self.global_sequence, self.global_period)
            == (other.interpolation, other.global_sequence, other.global_period)
            && self.sequence_count() == other.sequence_count()
            && self.curves().eq(other.curves())
    }
}

impl<T: Copy> Track<T> {
    /// A track from one curve per sequence (for writers of test and benchmark models). The
    /// track's `interpolation` decides how every curve plays; tangents are kept when the track
    /// is cubic and every curve has one pair per key.
    /// `None` when the curves hold 2³² keys or more together (a run is two `u32`s).
    pub fn from_curves(
        interpolation: u16,
        global_sequence: Option<usize>,
        global_period: u32,
        curves: Vec<Curve<T>>,
    ) -> Option<Self> {
        let cubic = interpolation >= INTERP_HERMITE && curves.iter().all(|c| c.tangents.len() == c.keys.len());
        let mut keys = Vec::new();
        let mut tangents = Vec::new();
        let mut runs = Vec::with_capacity(curves.len());
        for curve in &curves {
            let start = u32::try_from(keys.len()).ok()?;
            keys.extend_from_slice(&curve.keys);
            if cubic {
                tangents.extend_from_slice(&curve.tangents);
            }
            runs.push((start, u32::try_from(curve.keys.len()).ok()?));
        }
        u32::try_from(keys.len()).ok()?;
        Some(Self { interpolation, global_sequence, global_period, keys: keys.into(), tangents: tangents.into(), runs })
    }

    /// Sequences (or, for a global track, lists) the track holds keys for.
    pub fn sequence_count(&self) -> usize {
        self.runs.len()
    }

    /// Keys stored for `sequence` (0 out of range), read from the table of runs alone.
    pub fn keys_in(&self, sequence: usize) -> usize {
        self.runs.get(sequence).map_or(0, |&(_, len)| len as usize)
    }

    /// The keys of `sequence` as a view of the track's list (empty out of range).
    pub fn curve(&self, sequence: usize) -> Curve<T> {
        let Some(&(start, len)) = self.runs.get(sequence) else { return Curve::default() };
        let run = start as usize..start as usize + len as usize;
        Curve {
            keys: self.keys.subview(run.clone()).unwrap_or_default(),
            interpolation: curve_interpolation(self.interpolation),
            tangents: self.tangents.subview(run).unwrap_or_default(),
        }
    }

    /// Every sequence's keys, in order.
    pub fn curves(&self) -> impl Iterator<Item = Curve<T>> + '_ {
        (0..self.runs.len()).map(|sequence| self.curve(sequence))
    }

    /// Which of the track's lists plays in `sequence` (a global track: its one list, whatever
    /// the sequence), and how it reads time.
    pub fn playing(&self, sequence: usize) -> (usize, TrackTime) {
        match self.global_sequence {
            Some(_) => (0, TrackTime::Loop { period: self.global_period as f32 }),
            None => (sequence, TrackTime::Clip),
        }
    }

    /// The first stored value of any sequence: the static value for the rest pose.
    pub fn first_value(&self) -> Option<T> {
        let &(start, _) = self.runs.iter().find(|&&(_, len)| len > 0)?;
        self.keys.get(start as usize).map(|k| k.value)
    }

    pub fn key_count(&self) -> usize {
        self.runs.iter().map(|&(_, len)| len as usize).sum()
    }

    pub fn is_animated(&self) -> bool {
        self.runs.iter().any(|&(_, len)| len > 0)
    }
}

/// Where each sequence's keyframes live.
#[derive(Clone, Copy)]
pub enum KeySource<'a> {
    /// Inner arrays point into this file (the .m2, or the sequence's .anim).
    File(Reader<'a>),
    /// The .anim file is missing: the sequence plays the rest pose.
    Missing,
}

/// Reads tracks against the model's sequences, with a budget on decoded keys so that arrays
/// shared by many references cannot make a small file allocate without bound.
pub struct TrackReader<'a> {
    pub m2: Reader<'a>,
    /// Per sequence: the sequence whose inner arrays it uses (aliases resolved) and their file.
    pub sources: Vec<(usize, KeySource<'a>)>,
    pub global_periods: Vec<u32>,
    budget: Cell<u64>,
}

/// Keys decoded per byte of input before the budget stops decoding.
const KEYS_PER_INPUT_BYTE: u64 = 4;

impl<'a> TrackReader<'a> {
    pub fn new(m2: Reader<'a>, sources: Vec<(usize, KeySource<'a>)>, global_periods: Vec<u32>, input_len: u64) -> Self {
        let budget = input_len.saturating_mul(KEYS_PER_INPUT_BYTE).max(1 << 16);
        Self { m2, sources, global_periods, budget: Cell::new(budget) }
    }

    /// Reads the track header at `at` in the .m2. Damage becomes a warning and an empty track.
    pub fn read<K: ValueKind>(&self, at: u64, kind: K, field: &str, warnings: &mut Vec<String>) -> Track<K::Value> {
        match self.try_read(at, kind, field, warnings) {
            Ok(track) => track,
            Err(why) => {
                warnings.push(format!("{field} at {at:#x}: {why}; track ignored"));
                Track::default()
            }
        }
    }

    fn try_read<K: ValueKind>(
        &self,
        at: u64,
        _kind: K,
        field: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Track<K::Value>, String> {
        let r = &self.m2;
        let e = |e: crate::formats::DecodeError| e.to_string();
        let interpolation = r.u16(at + TRACK_INTERPOLATION, field).map_err(e)?;
        let global = r.i16(at + TRACK_GLOBAL_SEQUENCE, field).map_err(e)?;
        let (ts_count, ts_offset) = m2array(r, at + TRACK_TIMESTAMPS, field)?;
        let (val_count, val_offset) = m2array(r, at + TRACK_VALUES, field)?;
        if interpolation > 3 {
            return Err(format!("interpolation type {interpolation} is not 0..=3"));
        }
        let value_size = if interpolation >= 2 { K::SIZE * 3 } else { K::SIZE };
        let mut track = Track { interpolation, ..Track::default() };
        let outer_count = ts_count.min(val_count);
        if ts_count != val_count {
            warnings.push(format!(
                "{field} at {at:#x}: {ts_count} timestamp lists but {val_count} value lists; using {outer_count}"
            ));
        }
        if global >= 0 {
            let g = global as usize;
            track.global_sequence = Some(g);
            match self.global_periods.get(g) {
                Some(&p) => track.global_period = p,
                None => warnings.push(format!(
                    "{field} at {at:#x}: global sequence {g} out of range (model has {}); plays time 0",
                    self.global_periods.len()
                )),
            }
        }
        // Outer arrays are in the .m2 whatever the sequence; checked once here, then each
        // sequence's {count, offset} pairs are read from these slices.
        let outer_len = outer_count.checked_mul(M2ARRAY_SIZE).ok_or("list count overflows")?;
        let timestamp_lists = r.bytes(ts_offset, outer_len, field).map_err(e)?;
        let value_lists = r.bytes(val_offset, outer_len, field).map_err(e)?;
        let wanted = if track.global_sequence.is_some() { outer_count.min(1) } else { self.sources.len() as u64 };
        if track.global_sequence.is_none() && outer_count > self.sources.len() as u64 {
            warnings.push(format!(
                "{field} at {at:#x}: {outer_count} key lists for {} sequences; extra lists ignored",
                self.sources.len()
            ));
        }
        // First each sequence's stored times and values are found and checked, then every
        // sequence's keys are read into one list for the track, sized once, and each sequence's
        // curve views its run of it. (`None`: no keys are read for that sequence.)
        let mut stored: Vec<Option<(&[u8], &[u8])>> = Vec::with_capacity(wanted as usize);
        let step = interpolation == INTERP_NONE;
        // Keys the list may hold: each sequence's stored keys, and for a step track the key
        // repeated before each change (see below).
        let mut capacity: u64 = 0;
        for seq in 0..wanted {
            // Global tracks use sequence 0's arrays in the .m2; others follow aliases and .anim files.
            let (data_seq, source) = if track.global_sequence.is_some() {
                (0, KeySource::File(*r))
            } else {
                self.sources.get(seq as usize).copied().unwrap_or((seq as usize, KeySource::Missing))
            };
            let data_seq = data_seq as u64;
            let (true, KeySource::File(file)) = (data_seq < outer_count, source) else {
                stored.push(None);
                continue;
            };
            // In range: data_seq < outer_count, and both slices hold outer_count pairs.
            let pair = |lists: &[u8]| {
                let at = usize::try_from(data_seq).ok()?.checked_mul(M2ARRAY_SIZE as usize)?;
                let count = u32::from_le_bytes(arr::<4>(lists, at)?);
                let offset = u32::from_le_bytes(arr::<4>(lists, at.checked_add(4)?)?);
                Some((u64::from(count), u64::from(offset)))
            };
            let (Some((n_ts, o_ts)), Some((n_val, o_val))) = (pair(timestamp_lists), pair(value_lists)) else {
                return Err(format!("sequence {seq}'s key lists lie outside the list tables"));
            };
            let n = n_ts.min(n_val);
            if n_ts != n_val {
                warnings.push(format!(
                    "{field} at {at:#x}, sequence {seq}: {n_ts} timestamps but {n_val} values; using {n}"
                ));
            }
            let times = file.bytes(o_ts, n.checked_mul(4).ok_or("key count overflows")?, field).map_err(e)?;
            let values =
                file.bytes(o_val, n.checked_mul(value_size).ok_or("key count overflows")?, field).map_err(e)?;
            let left = self.budget.get();
            if n > left {
                return Err("too many keys for the size of the input (shared key arrays?)".into());
            }
            self.budget.set(left - n);
            // n is a u32 count, so 2n - 1 cannot overflow.
            let expanded = if step && n >= 2 { 2 * n - 1 } else { n };
            capacity = capacity.checked_add(expanded).ok_or("key count overflows")?;
            stored.push(Some((times, values)));
        }
        // Within the key budget (twice it for step tracks), and the bytes of every key are
        // there. Runs are u32s, so the whole list must fit in one.
        let too_many = |_| "too many keys for one track".to_string();
        let capacity = usize::try_from(u32::try_from(capacity).map_err(too_many)?).map_err(too_many)?;
        let cubic = interpolation >= INTERP_HERMITE;
        let mut keys: Vec<Key<K::Value>> = Vec::with_capacity(capacity);
        let mut tangents: Vec<[K::Value; 2]> = Vec::with_capacity(if cubic { capacity } else { 0 });
        let mut runs: Vec<(u32, u32)> = Vec::with_capacity(stored.len());
        // One sequence's step keys before `hold_steps` (one list for the whole track).
        let mut parsed_steps: Vec<Key<K::Value>> = Vec::new();
        let size = K::SIZE as usize;
        for found in stored {
            let first = keys.len();
            if let Some((times, values)) = found {
                for (t, v) in times.chunks_exact(4).zip(values.chunks_exact(value_size as usize)) {
                    let time = u32::from_le_bytes(t.try_into().map_err(|_| "short timestamp")?);
                    let Some(value) = K::parse(v) else { continue };
                    if cubic {
                        // (value, in-tangent, out-tangent); a key whose tangents do not parse is
                        // dropped with them, so keys and tangents stay paired.
                        let incoming = v.get(size..2 * size).and_then(K::tangent);
                        let outgoing = v.get(2 * size..3 * size).and_then(K::tangent);
                        let (Some(incoming), Some(outgoing)) = (incoming, outgoing) else { continue };
                        tangents.push([incoming, outgoing]);
                    }
                    keys.push(Key { time: time as f32, value });
                }
                if step && keys.len() - first >= 2 {
                    // Outside the key loop, which stays as tight as for linear tracks.
                    parsed_steps.clear();
                    parsed_steps.extend(keys.drain(first..));
                    hold_steps(&parsed_steps, &mut keys);
                }
            }
            runs.push((u32::try_from(first).map_err(too_many)?, u32::try_from(keys.len() - first).map_err(too_many)?));
        }
        track.keys = keys.into();
        track.tangents = tangents.into();
        track.runs = runs;
        Ok(track)
    }
}

/// Step interpolation as linear keys: each value holds until the next key's time, where a key
/// of the old value precedes the new one. Appends the expanded `parsed` to `keys`.
fn hold_steps<T: Copy>(parsed: &[Key<T>], keys: &mut Vec<Key<T>>) {
    let mut previous: Option<T> = None;
    for key in parsed {
        if let Some(value) = previous {
            keys.push(Key { time: key.time, value });
        }
        keys.push(*key);
        previous = Some(key.value);
    }
}

/// `{count, offset}` at `at`.
pub fn m2array(r: &Reader, at: u64, field: &str) -> Result<(u64, u64), String> {
    let count = r.u32(at, field).map_err(|e| e.to_string())?;
    let offset = r.u32(at + 4, field).map_err(|e| e.to_string())?;
    Ok((u64::from(count), u64::from(offset)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::anim::{sample_quat, sample_vec3};

    #[test]
    fn compressed_quaternion_decodes_like_wmv() {
        assert_eq!(quat_component(32767), 0.0);
        assert_eq!(quat_component(-1), 1.0);
        assert_eq!(quat_component(-32768), 0.0);
        assert!((quat_component(0) + 1.0).abs() < 1e-6);
        // The branch-free form gives the stated formula for every short.
        for v in i16::MIN..=i16::MAX {
            let wide = i32::from(v);
            let stated = if wide < 0 { wide + 32768 } else { wide - 32767 };
            assert_eq!(quat_component(v), stated as f32 / 32767.0, "{v}");
        }
        for c in [-1.0, -0.5, 0.0, 0.25, 1.0] {
            assert!((quat_component(pack_quat_component(c)) - c).abs() < 1e-4, "{c}");
        }
        // Identity: x, y, z = 0 (stored 32767), w = 1 (stored -1).
        let q = compressed_quat([32767, 32767, 32767, -1]);
        assert!(q.abs_diff_eq(Quat::IDENTITY, 1e-6));
        // 90 degrees about Z: z = w = sqrt(1/2) ≈ 0.7071 → stored as v - 32768 = 23170 - 32768.
        let half = (0.5f32.sqrt() * 32767.0).round() as i32;
        let stored = (half - 32768) as i16;
        let q = compressed_quat([32767, 32767, stored, stored]);
        assert!(q.abs_diff_eq(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2), 1e-4), "{q:?}");
    }

    /// Bone keys come out in scene axes: the WoW-to-scene change of basis `S` (x, y, z) →
    /// (x, z, −y) applied to a position, and as `S·M·S⁻¹` to a rotation and a scale, values and
    /// tangents alike. Checked against the matrices, not against `axes`.
    #[test]
    fn bone_keys_are_read_in_scene_axes() {
        use glam::{Mat3, Vec3};
        let scene_from_wow = Mat3::from_cols(Vec3::X, Vec3::new(0.0, 0.0, -1.0), Vec3::Y);
        let vec3_bytes = |v: [f32; 3]| v.iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<u8>>();
        let wow = Vec3::new(1.0, 2.0, 3.0);
        let stored = vec3_bytes(wow.to_array());
        let expected = scene_from_wow * wow;
        assert_eq!(BoneTranslationValues::parse(&stored), Some(expected));
        assert_eq!(BoneTranslationValues::tangent(&stored), Some(expected));
        let scale = |parse: fn(&[u8]) -> Option<Vec3>| parse(&stored).map(Mat3::from_diagonal);
        let conjugated = scene_from_wow * Mat3::from_diagonal(wow) * scene_from_wow.transpose();
        assert!(scale(BoneScaleValues::parse).unwrap().abs_diff_eq(conjugated, 1e-6));
        assert_eq!(scale(BoneScaleValues::tangent), scale(BoneScaleValues::parse));
        // 90 degrees about WoW's up axis Z (stored z = w = sqrt(1/2)), which becomes a turn about
        // scene Y. (A turn about X would not do: the change of basis is itself one, so it would
        // leave that rotation as it is, mapped or not.)
        let half = ((0.5f32.sqrt() * 32767.0).round() as i32 - 32768) as i16;
        let stored: Vec<u8> = [32767, 32767, half, half].iter().flat_map(|c| c.to_le_bytes()).collect();
        let wow = compressed_quat([32767, 32767, half, half]);
        assert!(wow.abs_diff_eq(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2), 1e-4), "{wow:?}");
        let conjugated = scene_from_wow * Mat3::from_quat(wow) * scene_from_wow.transpose();
        assert!(conjugated.abs_diff_eq(Mat3::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-4));
        let turned = BoneRotationValues::parse(&stored).unwrap();
        assert!(Mat3::from_quat(turned).abs_diff_eq(conjugated, 1e-5), "{turned:?}");
        // The tangent is the same packed value, not normalised: equal to within the packing.
        let tangent = BoneRotationValues::tangent(&stored).unwrap();
        assert!(Mat3::from_quat(tangent.normalize()).abs_diff_eq(conjugated, 1e-4), "{tangent:?}");
        // A turn about a general axis pins the sign of every component of the map.
        let wow = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let stored: Vec<u8> = wow.to_array().map(pack_quat_component).iter().flat_map(|c| c.to_le_bytes()).collect();
        let conjugated = scene_from_wow * Mat3::from_quat(wow) * scene_from_wow.transpose();
        let turned = BoneRotationValues::parse(&stored).unwrap();
        assert!(Mat3::from_quat(turned).abs_diff_eq(conjugated, 1e-3), "{turned:?}");
        assert!(!Mat3::from_quat(turned).abs_diff_eq(Mat3::from_quat(wow), 0.1), "the map changes it");
    }

    /// Builds a tiny .m2-like buffer holding one vec3 track with 2 keys at 0 and 100 ms, tied
    /// to global sequence 0 (period 200 ms).
    #[test]
    fn two_key_track_with_a_global_sequence() {
        let mut data = vec![0u8; 0x100];
        let track_at = 0x10usize;
        let put_u32 = |d: &mut Vec<u8>, at: usize, v: u32| d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        data[track_at..track_at + 2].copy_from_slice(&1u16.to_le_bytes()); // linear
        data[track_at + 2..track_at + 4].copy_from_slice(&0i16.to_le_bytes()); // global sequence 0
        put_u32(&mut data, track_at + 4, 1);
        put_u32(&mut data, track_at + 8, 0x40);
        put_u32(&mut data, track_at + 12, 1);
        put_u32(&mut data, track_at + 16, 0x48);
        // Inner arrays.
        put_u32(&mut data, 0x40, 2);
        put_u32(&mut data, 0x44, 0x60);
        put_u32(&mut data, 0x48, 2);
        put_u32(&mut data, 0x4C, 0x70);
        put_u32(&mut data, 0x60, 0);
        put_u32(&mut data, 0x64, 100);
        for (i, v) in [0.0f32, 0.0, 0.0, 10.0, 20.0, 30.0].iter().enumerate() {
            data[0x70 + 4 * i..0x74 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        let r = Reader::new(&data, "wow-m2");
        let sources = vec![(0, KeySource::File(r)), (1, KeySource::Missing)];
        let reader = TrackReader::new(r, sources, vec![200], data.len() as u64);
        let mut warnings = Vec::new();
        let track = reader.read(track_at as u64, VEC3, "test track", &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(track.global_sequence, Some(0));
        // Any sequence (even one whose .anim is missing) plays the global keys, looping every 200 ms.
        let (list, time) = track.playing(1);
        let keys = &track.curve(list).keys;
        assert_eq!(keys.len(), 2);
        assert_eq!(time, TrackTime::Loop { period: 200.0 });
        let at = |t: f32| sample_vec3(keys, time.apply(t, t)).unwrap();
        assert!(at(50.0).abs_diff_eq(Vec3::new(5.0, 10.0, 15.0), 1e-5));
        assert!(at(250.0).abs_diff_eq(Vec3::new(5.0, 10.0, 15.0), 1e-5));
        assert!(at(150.0).abs_diff_eq(Vec3::new(10.0, 20.0, 30.0), 1e-5), "clamped after the last key");
    }

    /// Type 2 (Hermite, as WMV numbers it) keys carry (value, in, out) triples; the segment uses
    /// the first key's out-tangent and the second key's in-tangent.
    #[test]
    fn hermite_track_reads_value_and_tangent_triples() {
        let mut data = vec![0u8; 0x100];
        let put_u32 = |d: &mut Vec<u8>, at: usize, v: u32| d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        data[0x10..0x12].copy_from_slice(&INTERP_HERMITE.to_le_bytes());
        data[0x12..0x14].copy_from_slice(&(-1i16).to_le_bytes());
        put_u32(&mut data, 0x14, 1);
        put_u32(&mut data, 0x18, 0x40);
        put_u32(&mut data, 0x1C, 1);
        put_u32(&mut data, 0x20, 0x48);
        put_u32(&mut data, 0x40, 2);
        put_u32(&mut data, 0x44, 0x50);
        put_u32(&mut data, 0x48, 2);
        put_u32(&mut data, 0x4C, 0x60);
        put_u32(&mut data, 0x50, 0);
        put_u32(&mut data, 0x54, 100);
        // Key 0: value 0, in-tangent 9 (unused), out-tangent 2. Key 1: value 1, in 0, out 9.
        let triples = [[0.0f32, 9.0, 2.0], [1.0, 0.0, 9.0]];
        for (k, triple) in triples.iter().enumerate() {
            for (j, &component) in triple.iter().enumerate() {
                for axis in 0..3 {
                    let at = 0x60 + k * 36 + j * 12 + axis * 4;
                    data[at..at + 4].copy_from_slice(&component.to_le_bytes());
                }
            }
        }
        let r = Reader::new(&data, "wow-m2");
        let reader = TrackReader::new(r, vec![(0, KeySource::File(r))], vec![], data.len() as u64);
        let mut warnings = Vec::new();
        let track = reader.read(0x10, VEC3, "hermite track", &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let (list, TrackTime::Clip) = track.playing(0) else { panic!("not clip time") };
        let curve = track.curve(list);
        assert_eq!(curve.interpolation, Interpolation::Hermite);
        assert_eq!(curve.tangents, vec![[Vec3::splat(9.0), Vec3::splat(2.0)], [Vec3::ZERO, Vec3::splat(9.0)]]);
        // r = 0.5: 0.5·0 + 0.5·1 + 0.125·2 − 0.125·0 = 0.75.
        let mid = crate::scene::anim::sample_curve(&curve, 50.0).unwrap();
        assert!(mid.abs_diff_eq(Vec3::splat(0.75), 1e-6), "{mid:?}");
        assert_eq!(curve_interpolation(INTERP_BEZIER), Interpolation::Bezier);
    }

    /// A step track (interpolation 0) with 3 keys in sequence 0, 1 key in sequence 1 and 2 in
    /// sequence 2, all in one list: each value holds until the next key, and every sequence's
    /// run stays its own.
    #[test]
    fn step_interpolation_holds_values() {
        let mut data = vec![0u8; 0x200];
        let put_u32 = |d: &mut Vec<u8>, at: usize, v: u32| d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        data[0x12..0x14].copy_from_slice(&(-1i16).to_le_bytes());
        put_u32(&mut data, 0x14, 3);
        put_u32(&mut data, 0x18, 0x40);
        put_u32(&mut data, 0x1C, 3);
        put_u32(&mut data, 0x20, 0x60);
        let lists: [&[(u32, f32)]; 3] = [&[(0, 1.0), (10, 2.0), (20, 3.0)], &[(5, 7.0)], &[(0, 4.0), (30, 5.0)]];
        let mut at = 0x100;
        for (s, keys) in lists.iter().enumerate() {
            put_u32(&mut data, 0x40 + 8 * s, keys.len() as u32);
            put_u32(&mut data, 0x44 + 8 * s, at as u32);
            for (k, &(time, _)) in keys.iter().enumerate() {
                put_u32(&mut data, at + 4 * k, time);
            }
            at += 4 * keys.len();
            put_u32(&mut data, 0x60 + 8 * s, keys.len() as u32);
            put_u32(&mut data, 0x64 + 8 * s, at as u32);
            for (k, &(_, v)) in keys.iter().enumerate() {
                for axis in 0..3 {
                    data[at + 12 * k + 4 * axis..at + 12 * k + 4 * axis + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            at += 12 * keys.len();
        }
        let r = Reader::new(&data, "wow-m2");
        let sources = (0..3).map(|s| (s, KeySource::File(r))).collect();
        let reader = TrackReader::new(r, sources, vec![], data.len() as u64);
        let mut warnings = Vec::new();
        let track = reader.read(0x10, VEC3, "step track", &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let key = |time: f32, v: f32| Key { time, value: Vec3::splat(v) };
        let first = track.curve(0);
        assert_eq!(first.keys, vec![key(0.0, 1.0), key(10.0, 1.0), key(10.0, 2.0), key(20.0, 2.0), key(20.0, 3.0)]);
        assert_eq!(sample_vec3(&first.keys, 9.9), Some(Vec3::splat(1.0)));
        assert_eq!(sample_vec3(&first.keys, 10.0), Some(Vec3::splat(2.0)));
        assert_eq!(track.curve(1).keys, vec![key(5.0, 7.0)]);
        assert_eq!(track.curve(2).keys, vec![key(0.0, 4.0), key(30.0, 4.0), key(30.0, 5.0)]);
        assert_eq!((track.keys_in(0), track.keys_in(1), track.keys_in(2), track.key_count()), (5, 1, 3, 9));
        assert_eq!(track.first_value(), Some(Vec3::splat(1.0)));
        let q = Track::from_curves(
            INTERP_NONE,
            None,
            0,
            vec![Curve::linear(vec![Key { time: 0.0, value: Quat::IDENTITY }])],
        )
        .unwrap();
        assert_eq!(sample_quat(&q.curve(0).keys, 5.0), Some(Quat::IDENTITY));
    }

    #[test]
    fn damaged_track_is_a_warning() {
        let data = vec![0xFFu8; 40];
        let r = Reader::new(&data, "wow-m2");
        let reader = TrackReader::new(r, vec![(0, KeySource::File(r))], vec![], 40);
        let mut warnings = Vec::new();
        let track = reader.read(0, VEC3, "t", &mut warnings);
        assert!(!track.is_animated());
        assert_eq!(warnings.len(), 1);
    }
}
