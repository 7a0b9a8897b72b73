//! Key sampling: where a time falls among a track's keys or frames, and the value blended
//! there (linear, spherical, Hermite and Bezier curves, path progress, morph blocks).

use glam::{Quat, Vec2, Vec3};

use crate::scene::{Curve, Interpolation, Key, MorphBlock, Path};

/// Index of the segment containing `time` and the blend factor within it; clamps outside.
pub(super) fn segment<T>(keys: &[Key<T>], time: f32) -> Option<(usize, usize, f32)> {
    let last = keys.len().checked_sub(1)?;
    let first = keys.first()?;
    if time <= first.time {
        return Some((0, 0, 0.0));
    }
    if keys.get(last).is_some_and(|k| time >= k.time) {
        return Some((last, last, 0.0));
    }
    let upper = keys.partition_point(|k| k.time <= time).min(last);
    let lower = upper.saturating_sub(1);
    let (t0, t1) = (keys.get(lower)?.time, keys.get(upper)?.time);
    let f = if t1 > t0 { (time - t0) / (t1 - t0) } else { 0.0 };
    Some((lower, upper, f))
}

/// Spherical interpolation along the shortest path; clamped outside the keys.
#[inline]
pub fn sample_quat(keys: &[Key<Quat>], time: f32) -> Option<Quat> {
    let (a, b, f) = segment(keys, time)?;
    let qa = keys.get(a)?.value;
    let mut qb = keys.get(b)?.value;
    if qa.dot(qb) < 0.0 {
        qb = -qb;
    }
    Some(qa.slerp(qb, f).normalize())
}

#[inline]
pub fn sample_vec2(keys: &[Key<Vec2>], time: f32) -> Option<Vec2> {
    let (a, b, f) = segment(keys, time)?;
    Some(keys.get(a)?.value.lerp(keys.get(b)?.value, f))
}

#[inline]
pub fn sample_vec3(keys: &[Key<Vec3>], time: f32) -> Option<Vec3> {
    let (a, b, f) = segment(keys, time)?;
    Some(keys.get(a)?.value.lerp(keys.get(b)?.value, f))
}

#[inline]
pub fn sample_f32(keys: &[Key<f32>], time: f32) -> Option<f32> {
    let (a, b, f) = segment(keys, time)?;
    let (va, vb) = (keys.get(a)?.value, keys.get(b)?.value);
    Some(va + (vb - va) * f)
}

/// Values a [`Curve`] can hold: linear blending, plus the sums and scalings cubic curves need.
pub trait CurveValue: Copy + std::ops::Add<Output = Self> + std::ops::Mul<f32, Output = Self> {
    /// The value a fraction `f` of the way from `a` to `b` (the linear case).
    fn blend(a: Self, b: Self, f: f32) -> Self;
    /// Puts a cubic combination back into the value's space (unit quaternions); `None` when it
    /// cannot be (a degenerate quaternion), so the sampler falls back to linear.
    fn settle(self) -> Option<Self> {
        Some(self)
    }
}

impl CurveValue for f32 {
    #[inline]
    fn blend(a: f32, b: f32, f: f32) -> f32 {
        a + (b - a) * f
    }
}

impl CurveValue for Vec3 {
    #[inline]
    fn blend(a: Vec3, b: Vec3, f: f32) -> Vec3 {
        a.lerp(b, f)
    }
}

impl CurveValue for Quat {
    #[inline]
    fn blend(a: Quat, b: Quat, f: f32) -> Quat {
        let b = if a.dot(b) < 0.0 { -b } else { b };
        a.slerp(b, f).normalize()
    }

    #[inline]
    fn settle(self) -> Option<Quat> {
        (self.is_finite() && self.length_squared() > 1e-12).then(|| self.normalize())
    }
}

/// Samples a curve at `time` (clamped outside its keys). Hermite and Bezier segments use the
/// out-tangent of the earlier key and the in-tangent of the later one; a curve without one
/// tangent pair per key plays linearly.
pub fn sample_curve<T: CurveValue>(curve: &Curve<T>, time: f32) -> Option<T> {
    let (a, b, r) = segment(&curve.keys, time)?;
    let (va, vb) = (curve.keys.get(a)?.value, curve.keys.get(b)?.value);
    if a == b {
        return Some(va);
    }
    let linear = T::blend(va, vb, r);
    if curve.interpolation == Interpolation::Linear || curve.tangents.len() != curve.keys.len() {
        return Some(linear);
    }
    let (Some(&[_, out_a]), Some(&[in_b, _])) = (curve.tangents.get(a), curve.tangents.get(b)) else {
        return Some(linear);
    };
    let (r2, r3) = (r * r, r * r * r);
    let cubic = match curve.interpolation {
        Interpolation::Hermite => {
            va * (2.0 * r3 - 3.0 * r2 + 1.0)
                + vb * (3.0 * r2 - 2.0 * r3)
                + out_a * (r3 - 2.0 * r2 + r)
                + in_b * (r3 - r2)
        }
        Interpolation::Bezier | Interpolation::Linear => {
            let s = 1.0 - r;
            va * (s * s * s) + out_a * (3.0 * r * s * s) + in_b * (3.0 * r2 * s) + vb * r3
        }
    };
    Some(cubic.settle().unwrap_or(linear))
}

/// Where path progress puts a node at `time`: the position and direction of travel on `path`,
/// or `None` outside the values' window (see [`Channel::NodePathProgress`](crate::scene::Channel::NodePathProgress)).
pub fn sample_path_progress(path: &Path, start: f32, values: &[f32], time: f32) -> Option<(Vec3, Vec3)> {
    let offset = time - start;
    let last = values.len().checked_sub(1)?;
    if !(0.0..=last as f32).contains(&offset) {
        return None;
    }
    let lower = (offset.floor() as usize).min(last);
    let upper = (lower + 1).min(last);
    let f = offset - lower as f32;
    let (a, mut b) = (*values.get(lower)?, *values.get(upper)?);
    // More than 50 apart: blend the short way round the wrap at 100.
    if b - a > 50.0 {
        b -= 100.0;
    } else if a - b > 50.0 {
        b += 100.0;
    }
    let value = a + (b - a) * f;
    let percent = (value + 1000.0).rem_euclid(100.0);
    let segments = path.segments();
    if segments == 0 {
        return path.points.first().map(|&p| (p, Vec3::ZERO));
    }
    let x = percent * segments as f32 * 0.01;
    let segment = (x.trunc() as usize).min(segments - 1);
    path.sample(segment, (x - segment as f32).clamp(0.0, 1.0))
}

pub(super) fn last_at_or_before<T>(keys: &[Key<T>], time: f32) -> Option<&Key<T>> {
    let n = keys.partition_point(|k| k.time <= time);
    n.checked_sub(1).and_then(|i| keys.get(i))
}

/// As [`frame_segment`]; where the frames `wrap`, the frame after the last is the first, one
/// unit on: a time within that unit blends the last frame into the first.
#[inline]
pub(super) fn wrapped_frame_segment(times: &[f32], time: f32, wrap: bool) -> Option<(usize, usize, f32)> {
    let last = times.len().checked_sub(1)?;
    let last_time = *times.get(last)?;
    if wrap && last > 0 && time > last_time && time <= last_time + 1.0 {
        return Some((last, 0, time - last_time));
    }
    frame_segment(times, time)
}

#[inline]
pub(super) fn frame_segment(times: &[f32], time: f32) -> Option<(usize, usize, f32)> {
    let last = times.len().checked_sub(1)?;
    if time <= *times.first()? {
        return Some((0, 0, 0.0));
    }
    if time >= *times.get(last)? {
        return Some((last, last, 0.0));
    }
    let upper = times.partition_point(|&t| t <= time).min(last);
    let lower = upper.saturating_sub(1);
    let (t0, t1) = (*times.get(lower)?, *times.get(upper)?);
    Some((lower, upper, if t1 > t0 { (time - t0) / (t1 - t0) } else { 0.0 }))
}

pub(super) fn sample_morph_block(block: &MorphBlock, time: f32, out: &mut [Vec3]) {
    let Some((a, b, f)) = frame_segment(&block.times, time) else { return };
    let width = block.vertices.len();
    let (Some(from), Some(to)) =
        (block.positions.get(a * width..(a + 1) * width), block.positions.get(b * width..(b + 1) * width))
    else {
        return;
    };
    for ((&vertex, pa), pb) in block.vertices.iter().zip(from).zip(to) {
        if let Some(v) = out.get_mut(vertex as usize) {
            *v = pa.lerp(*pb, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(values: &[(f32, Quat)]) -> Vec<Key<Quat>> {
        values.iter().map(|&(time, value)| Key { time, value }).collect()
    }

    fn scalar_curve(interpolation: Interpolation, values: [f32; 2], tangents: [[f32; 2]; 2]) -> Curve<f32> {
        Curve {
            keys: vec![Key { time: 0.0, value: values[0] }, Key { time: 10.0, value: values[1] }].into(),
            interpolation,
            tangents: tangents.to_vec().into(),
        }
    }

    #[test]
    fn hermite_uses_the_out_tangent_of_the_first_key_and_the_in_tangent_of_the_second() {
        // r = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125.
        let curve = scalar_curve(Interpolation::Hermite, [0.0, 1.0], [[99.0, 2.0], [0.0, 99.0]]);
        assert!((sample_curve(&curve, 5.0).unwrap() - 0.75).abs() < 1e-6);
        // r = 0.25: h00 = 0.84375, h01 = 0.15625, h10 = 0.140625, h11 = -0.046875.
        let curve = scalar_curve(Interpolation::Hermite, [2.0, 4.0], [[0.0, 1.0], [3.0, 0.0]]);
        let expected = 2.0 * 0.84375 + 4.0 * 0.15625 + 0.140625 - 3.0 * 0.046875;
        assert!((sample_curve(&curve, 2.5).unwrap() - expected).abs() < 1e-6);
        assert_eq!(sample_curve(&curve, -1.0), Some(2.0));
        assert_eq!(sample_curve(&curve, 11.0), Some(4.0));
    }

    #[test]
    fn bezier_uses_tangents_as_inner_control_points() {
        // Control points 0, 1, 1, 0 at r = 0.5: 3·0.5·0.25 + 3·0.25·0.5 = 0.75.
        let curve = scalar_curve(Interpolation::Bezier, [0.0, 0.0], [[99.0, 1.0], [1.0, 99.0]]);
        assert!((sample_curve(&curve, 5.0).unwrap() - 0.75).abs() < 1e-6);
        // Missing tangents play linearly.
        let mut curve = scalar_curve(Interpolation::Bezier, [0.0, 1.0], [[0.0; 2]; 2]);
        curve.tangents = Default::default();
        assert!((sample_curve(&curve, 2.5).unwrap() - 0.25).abs() < 1e-6);
    }

    #[test]
    fn cubic_quaternions_come_out_unit_length() {
        let (a, b) = (Quat::IDENTITY, Quat::from_rotation_z(1.0));
        let curve = Curve {
            keys: vec![Key { time: 0.0, value: a }, Key { time: 1.0, value: b }].into(),
            interpolation: Interpolation::Hermite,
            tangents: vec![[Quat::from_xyzw(0.0, 0.0, 0.0, 0.0); 2]; 2].into(),
        };
        let q = sample_curve(&curve, 0.3).unwrap();
        assert!((q.length() - 1.0).abs() < 1e-5);
        // Zero tangents: the value follows smoothstep between the keys, so it sits between them.
        assert!(q.angle_between(a) < 1.0 && q.angle_between(b) < 1.0);
    }

    #[test]
    fn quat_sampling_clamps_and_slerps() {
        let k = keys(&[(0.0, Quat::IDENTITY), (10.0, Quat::from_rotation_y(std::f32::consts::FRAC_PI_2))]);
        assert!(sample_quat(&k, -5.0).unwrap().abs_diff_eq(Quat::IDENTITY, 1e-6));
        assert!(sample_quat(&k, 50.0).unwrap().abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-6));
        let mid = sample_quat(&k, 5.0).unwrap();
        assert!(mid.abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4), 1e-5));
    }

    #[test]
    fn quat_sampling_takes_the_shortest_path() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3);
        let k = keys(&[(0.0, a), (1.0, b)]);
        let mid = sample_quat(&k, 0.5).unwrap();
        let expected = Quat::from_rotation_y(0.2);
        assert!(mid.abs_diff_eq(expected, 1e-5) || mid.abs_diff_eq(-expected, 1e-5));
    }

    #[test]
    fn path_progress_wraps_and_takes_the_short_way() {
        let path = Path {
            kind: crate::scene::PathKind::Straight,
            closed: false,
            points: vec![Vec3::ZERO, Vec3::X * 10.0, Vec3::new(10.0, 0.0, 10.0)],
        };
        assert_eq!(path.segments(), 2);
        let at = |values: &[f32], time: f32| sample_path_progress(&path, 0.0, values, time).map(|(p, _)| p);
        // 25 % of 2 segments: segment 0 at 0.5.
        assert!(at(&[25.0], 0.0).unwrap().abs_diff_eq(Vec3::new(5.0, 0.0, 0.0), 1e-5));
        // -10 wraps to 90 %: segment 1 at 0.8.
        assert!(at(&[-10.0], 0.0).unwrap().abs_diff_eq(Vec3::new(10.0, 0.0, 8.0), 1e-4));
        // 95 -> 5 is 90 apart: halfway is 100, which wraps to 0.
        assert!(at(&[95.0, 5.0], 0.5).unwrap().abs_diff_eq(Vec3::ZERO, 1e-4));
        // Outside the window nothing applies.
        assert!(at(&[95.0, 5.0], 1.5).is_none() && at(&[95.0, 5.0], -0.5).is_none());
    }

    #[test]
    fn visibility_uses_last_key_at_or_before() {
        let k = vec![Key { time: 2.0, value: false }, Key { time: 5.0, value: true }];
        assert!(last_at_or_before(&k, 1.0).is_none());
        assert!(!last_at_or_before(&k, 2.0).unwrap().value);
        assert!(last_at_or_before(&k, 7.0).unwrap().value);
    }
}
