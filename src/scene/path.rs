//! Paths a node can travel along (TPW), and the point and direction of travel at a place on them.

use glam::Vec3;
use serde::Serialize;

/// How a [`Path`] runs through its points (TPW path type bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// Cubic Bezier: segment `s` uses points `3s, 3s+1, 3s+2, 3s+3`, indices wrapping modulo
    /// the point count; `points / 3` segments (minus 1 when open).
    Bezier,
    /// Straight lines: segment `s` runs from point `s` to `s + 1`; `points` segments (minus 1
    /// when open).
    Straight,
    /// Uniform Catmull-Rom through points `s-1, s, s+1, s+2` (wrapping when closed, clamped
    /// when open); `points` segments (minus 1 when open). The engine has this sampler but no
    /// shipped path uses it, so its exact form is ours.
    CatmullRom,
}

/// A path a node can travel along, in the space of its path node (the follower's parent).
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub kind: PathKind,
    /// The last segment returns to point 0.
    pub closed: bool,
    pub points: Vec<Vec3>,
}

impl Path {
    /// The number of segments the engine divides the path into.
    pub fn segments(&self) -> usize {
        let n = self.points.len();
        let whole = match self.kind {
            PathKind::Bezier => n / 3,
            PathKind::Straight | PathKind::CatmullRom => n,
        };
        if self.closed { whole } else { whole.saturating_sub(1) }
    }

    /// Position and direction of travel (unnormalised, zero where the path stalls) at fraction
    /// `r` (0..=1) of segment `segment`.
    pub fn sample(&self, segment: usize, r: f32) -> Option<(Vec3, Vec3)> {
        let n = self.points.len();
        if n == 0 {
            return None;
        }
        let wrap = |i: usize| self.points.get(i % n).copied();
        match self.kind {
            PathKind::Bezier => {
                let first = segment.checked_mul(3)?;
                let [p0, p1, p2, p3] = [wrap(first)?, wrap(first + 1)?, wrap(first + 2)?, wrap(first + 3)?];
                let s = 1.0 - r;
                let position = p0 * (s * s * s) + p1 * (3.0 * s * s * r) + p2 * (3.0 * s * r * r) + p3 * (r * r * r);
                let direction = (p1 - p0) * (3.0 * s * s) + (p2 - p1) * (6.0 * s * r) + (p3 - p2) * (3.0 * r * r);
                Some((position, direction))
            }
            PathKind::Straight => {
                let (a, b) = (wrap(segment)?, wrap(segment + 1)?);
                Some((a.lerp(b, r), b - a))
            }
            PathKind::CatmullRom => {
                let at = |i: isize| -> Option<Vec3> {
                    let i = if self.closed { i.rem_euclid(n as isize) } else { i.clamp(0, n as isize - 1) };
                    self.points.get(i as usize).copied()
                };
                let s = segment as isize;
                let [p0, p1, p2, p3] = [at(s - 1)?, at(s)?, at(s + 1)?, at(s + 2)?];
                let (r2, r3) = (r * r, r * r * r);
                let position = (p1 * 2.0
                    + (p2 - p0) * r
                    + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * r2
                    + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * r3)
                    * 0.5;
                let direction = ((p2 - p0)
                    + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * (2.0 * r)
                    + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * (3.0 * r2))
                    * 0.5;
                Some((position, direction))
            }
        }
    }
}
