//! Keyframes and curves: a [`Key`] at a time, how a [`Curve`] moves between its keys, and the
//! keys and tangents it holds.

use serde::Serialize;

use super::SharedSlice;

/// A keyframe of type `T` at a (fractional) time in the clip's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key<T> {
    pub time: f32,
    pub value: T,
}

/// How a [`Curve`] moves between its keys. Step keys are stored as doubled linear keys by the
/// decoders, so they need no variant of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interpolation {
    #[default]
    Linear,
    /// Cubic Hermite: `h00·v₀ + h01·v₁ + h10·out₀ + h11·in₁`, with `r` in 0..1 over the segment.
    Hermite,
    /// Cubic Bezier with control points `v₀, out₀, in₁, v₁`.
    Bezier,
}

/// Keys and how to interpolate them. Hermite and Bezier curves carry one `[in, out]` tangent
/// pair per key; a curve whose tangents do not match its keys plays linearly. Both lists may
/// be views shared with other curves ([`SharedSlice`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve<T> {
    pub keys: SharedSlice<Key<T>>,
    pub interpolation: Interpolation,
    pub tangents: SharedSlice<[T; 2]>,
}

impl<T> Default for Curve<T> {
    fn default() -> Self {
        Self { keys: SharedSlice::default(), interpolation: Interpolation::Linear, tangents: SharedSlice::default() }
    }
}

impl<T> Curve<T> {
    pub fn linear(keys: Vec<Key<T>>) -> Self {
        Self { keys: keys.into(), interpolation: Interpolation::Linear, tangents: SharedSlice::default() }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
