//! Axis-aligned bounding boxes ([`Aabb`]) of points, meshes and poses.

use glam::{Mat4, Vec3};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Default for Aabb {
    /// The empty box, which any union replaces.
    fn default() -> Self {
        Aabb::EMPTY
    }
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    /// The box of the finite points; a point with a NaN or infinite coordinate is left out.
    pub fn from_points(points: &[Vec3]) -> Aabb {
        use glam::Vec3A;
        // A branch, not a select: points are finite all but never, so it is always guessed
        // right, and it costs three instructions where building the select's mask cost eight.
        fn grow([min, max]: &mut [Vec3A; 2], p: Vec3) {
            let p = Vec3A::from(p);
            if p.is_finite() {
                *min = min.min(p);
                *max = max.max(p);
            }
        }
        // Four boxes grown side by side, then merged: a single box waited on its previous
        // point at every point. (Where +0 and -0 tie for a bound, which sign it keeps may
        // differ from a single box's; nothing reads the sign of a bound.)
        let mut boxes = [[Vec3A::from(Aabb::EMPTY.min), Vec3A::from(Aabb::EMPTY.max)]; 4];
        let (groups, rest) = points.as_chunks::<4>();
        for group in groups {
            for (bounds, &p) in boxes.iter_mut().zip(group) {
                grow(bounds, p);
            }
        }
        let [mut first, others @ ..] = boxes;
        for &p in rest {
            grow(&mut first, p);
        }
        let [min, max] =
            others.iter().fold(first, |[min, max], [other_min, other_max]| [min.min(*other_min), max.max(*other_max)]);
        Aabb { min: min.into(), max: max.into() }
    }

    pub fn include(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    pub fn size(&self) -> Vec3 {
        if self.is_empty() { Vec3::ZERO } else { self.max - self.min }
    }

    /// The box around this box's eight corners after `m`.
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let mut out = Aabb::EMPTY;
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            );
            out.include(m.transform_point3(c));
        }
        out
    }

    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-box bounds equal a one-point-at-a-time fold that leaves out non-finite points,
    /// at every length (whole groups of four and the rest) and wherever the odd points fall.
    #[test]
    fn bounds_match_a_plain_fold_and_skip_non_finite_points() {
        let odd = [0.5, -3.0, f32::NAN, 7.25, -0.0, f32::INFINITY, 2.0, -1e30, f32::NEG_INFINITY, 4.0, 0.0];
        let points: Vec<Vec3> = (0..40)
            .map(|i| Vec3::new(odd[i % odd.len()], odd[(i * 3 + 1) % odd.len()], odd[(i * 7 + 4) % odd.len()]))
            .collect();
        for length in 0..=points.len() {
            let slice = &points[..length];
            let mut want = Aabb::EMPTY;
            for p in slice.iter().filter(|p| p.is_finite()) {
                want.min = want.min.min(*p);
                want.max = want.max.max(*p);
            }
            let got = Aabb::from_points(slice);
            // `==` counts +0 and -0 as equal: which one a tied bound keeps is left open.
            assert!(got.min == want.min && got.max == want.max, "{length}: {got:?} against {want:?}");
        }
        assert!(Aabb::from_points(&[]).is_empty());
    }
}
