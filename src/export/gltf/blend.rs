//! Rotation keys that survive a component-wise blend. glTF asks a player to slerp between
//! LINEAR rotation keys, but some importers (Blender keys each quaternion component on its own
//! linear curve) play a normalised linear blend (nlerp) instead. Both agree at the keys and at
//! the midpoint, and stray apart in between by an amount that grows with the cube of the angle
//! between the keys: a door swinging 90° between two keys is visibly off. This module finds
//! the fewest equal steps that bring every interval's nlerp within the tolerance of its slerp.
//!
//! The written keys are also kept in one hemisphere (`ClipWriter::rotations`), so slerp and nlerp
//! both take the short way.

use glam::Quat;

use super::decompose::Trs;
use super::sampling::SampleBudget;

/// Most steps one interval is split into: a 180° turn needs about 70 at a 1e-5 tolerance.
const MAX_STEPS: usize = 256;

/// The largest angle (radians, as a rotation) by which nlerp between two rotations `angle`
/// apart strays from slerp between them, over the whole interval.
///
/// With `φ = angle / 2` the angle between the unit quaternions, nlerp at blend `f` lies on the
/// same great circle at `α(f) = atan2(f·sin φ, 1 − f + f·cos φ)`, slerp at `f·φ`. The gap
/// `f·φ − α(f)` is zero at both ends and the middle, and largest where `α'(f) = φ`, which
/// reduces to `f(1 − f) = (1 − sin φ / φ) / (2(1 − cos φ))`. A rotation is twice its
/// quaternion's angle, hence the factor 2.
pub fn nlerp_deviation(angle: f64) -> f64 {
    let phi = 0.5 * angle.abs().min(std::f64::consts::TAU - angle.abs());
    if phi < 1e-6 {
        // The gap shrinks as φ³/40 or so: far below any tolerance here.
        return 0.0;
    }
    let product = (1.0 - phi.sin() / phi) / (2.0 * (1.0 - phi.cos()));
    let f = 0.5 * (1.0 - (1.0 - 4.0 * product).max(0.0).sqrt());
    let alpha = (f * phi.sin()).atan2(1.0 - f + f * phi.cos());
    2.0 * (f * phi - alpha).abs()
}

/// The fewest equal slerp steps an interval turning by `angle` needs so that nlerp within each
/// step moves a point `lever` from the pivot by at most `tolerance`.
pub fn steps_needed(angle: f64, lever: f64, tolerance: f64) -> usize {
    (1..=MAX_STEPS).find(|&n| nlerp_deviation(angle / n as f64) * lever <= tolerance).unwrap_or(MAX_STEPS)
}

/// The angle (radians, as a rotation) between two unit quaternions, either sign.
fn rotation_angle(a: Quat, b: Quat) -> f64 {
    let dot = f64::from(a.dot(b)).abs().min(1.0);
    2.0 * dot.acos()
}

/// `times` with keys added between adjacent ones until an nlerp of the rotations `local_at`
/// gives there stays within `tolerance` of their slerp, for points up to `lever` from the
/// pivot. Each interval gets the fewest equal time steps its angle needs; where the curve is
/// not a uniform slerp in time (sampled curves), a step that still turns too far is split
/// again, once. The added times draw on `budget`.
pub(super) fn nlerp_safe_times(
    times: Vec<f32>,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, lever]: [f32; 2],
    budget: &mut SampleBudget,
) -> Vec<f32> {
    let rotations: Vec<Quat> = times.iter().map(|&t| local_at(t).rotation.normalize()).collect();
    let mut out = Vec::with_capacity(times.len());
    for (pair, turn) in times.windows(2).zip(rotations.windows(2)) {
        let (&[t0, t1], &[r0, r1]) = (pair, turn) else { continue };
        out.push(t0);
        split(t0, t1, rotation_angle(r0, r1), 1, local_at, [tolerance, lever], budget, &mut out);
    }
    out.extend(times.last().copied());
    out
}

#[allow(clippy::too_many_arguments)]
fn split(
    t0: f32,
    t1: f32,
    angle: f64,
    again: u32,
    local_at: &dyn Fn(f32) -> Trs,
    [tolerance, lever]: [f32; 2],
    budget: &mut SampleBudget,
    out: &mut Vec<f32>,
) {
    let n = steps_needed(angle, f64::from(lever), f64::from(tolerance));
    if n < 2 {
        return;
    }
    if budget.left < n - 1 {
        budget.exhausted = true;
        return;
    }
    budget.left -= n - 1;
    let step = (t1 - t0) / n as f32;
    let mut previous = (t0, local_at(t0).rotation.normalize());
    for k in 1..=n {
        let t = if k == n { t1 } else { t0 + step * k as f32 };
        if t <= previous.0 {
            continue;
        }
        let rotation = local_at(t).rotation.normalize();
        if again > 0 {
            let turn = rotation_angle(previous.1, rotation);
            split(previous.0, t, turn, again - 1, local_at, [tolerance, lever], budget, out);
        }
        if k < n && t < t1 {
            out.push(t);
        }
        previous = (t, rotation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn nlerp(a: Quat, b: Quat, f: f32) -> Quat {
        let b = if a.dot(b) < 0.0 { -b } else { b };
        (a * (1.0 - f) + b * f).normalize()
    }

    /// The deviation found by sampling the blend finely (in f64: an f32 angle between nearly
    /// equal quaternions is noise), to check the closed form against.
    fn sampled_deviation(angle: f64) -> f64 {
        use glam::DQuat;
        let (a, b) = (DQuat::IDENTITY, DQuat::from_rotation_y(angle));
        (0..=2000)
            .map(|i| f64::from(i) / 2000.0)
            .map(|f| (a * (1.0 - f) + b * f).normalize().angle_between(a.slerp(b, f)))
            .fold(0.0, f64::max)
    }

    #[test]
    fn closed_form_matches_a_sampled_blend() {
        for degrees in [1.0f64, 10.0, 45.0, 90.0, 135.0, 170.0] {
            let angle = degrees.to_radians();
            let closed = nlerp_deviation(angle);
            let sampled = sampled_deviation(angle);
            assert!((closed - sampled).abs() < 1e-7 + 1e-3 * closed, "{degrees}°: closed {closed}, sampled {sampled}");
        }
        // 90° strays by 0.016 rad (0.92°), a quarter of the way in: a door 2 units wide is 0.032 off.
        let ninety = nlerp_deviation(std::f64::consts::FRAC_PI_2);
        assert!((0.0160..0.0161).contains(&ninety), "{ninety}");
        assert_eq!(nlerp_deviation(0.0), 0.0);
    }

    fn budget() -> SampleBudget {
        SampleBudget { left: 10_000, exhausted: false }
    }

    /// A node turning about Y at `degrees_per_unit`, as a slerp in time.
    fn turning(degrees: f32) -> impl Fn(f32) -> Trs {
        move |t: f32| Trs { rotation: Quat::from_rotation_y((degrees * t).to_radians()), ..Trs::IDENTITY }
    }

    /// Worst distance, at `lever`, between the nlerp of adjacent keys and the true pose.
    fn worst_error(times: &[f32], local_at: &dyn Fn(f32) -> Trs, lever: f32) -> f32 {
        let mut worst = 0f32;
        for pair in times.windows(2) {
            let [t0, t1] = *pair else { continue };
            let (a, b) = (local_at(t0).rotation, local_at(t1).rotation);
            for i in 0..=200 {
                let f = i as f32 / 200.0;
                let truth = local_at(t0 + (t1 - t0) * f).rotation;
                let played = nlerp(a, b, f);
                let point = Vec3::X * lever;
                worst = worst.max((played * point - truth * point).length());
            }
        }
        worst
    }

    #[test]
    fn a_ninety_degree_pair_gets_the_keys_the_bound_needs() {
        let local_at = turning(90.0);
        let (tolerance, lever) = (1e-5 * 4.0, 4.0);
        let before = worst_error(&[0.0, 1.0], &local_at, lever);
        assert!(before > 100.0 * tolerance, "a plain 90° pair is far off: {before}");
        let mut budget = budget();
        let times = nlerp_safe_times(vec![0.0, 1.0], &local_at, [tolerance, lever], &mut budget);
        let after = worst_error(&times, &local_at, lever);
        assert!(after <= tolerance * 1.05, "within the bound after insertion: {after} > {tolerance}");
        // The fewest: one key fewer (equal steps) breaks the bound.
        let n = times.len() - 1;
        assert_eq!(n, steps_needed(std::f64::consts::FRAC_PI_2, 4.0, 4e-5));
        let fewer: Vec<f32> = (0..n).map(|k| k as f32 / (n - 1) as f32).collect();
        assert!(worst_error(&fewer, &local_at, lever) > tolerance, "{n} steps are not more than needed");
        assert!((5..40).contains(&n), "{n} steps for 90°");
        assert_eq!(budget.left, 10_000 - (n - 1));
        assert!(times.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_five_degree_pair_gets_none() {
        let local_at = turning(5.0);
        let mut budget = budget();
        let times = nlerp_safe_times(vec![0.0, 1.0, 2.0], &local_at, [1e-5, 1.0], &mut budget);
        assert_eq!(times, vec![0.0, 1.0, 2.0]);
        assert_eq!(budget.left, 10_000);
    }

    #[test]
    fn keys_on_opposite_signs_count_the_short_way() {
        // q and −q are one rotation: no keys between them.
        let local_at = |t: f32| Trs {
            rotation: if t < 0.5 { Quat::from_rotation_y(0.1) } else { -Quat::from_rotation_y(0.1) },
            ..Trs::IDENTITY
        };
        let mut budget = budget();
        assert_eq!(nlerp_safe_times(vec![0.0, 1.0], &local_at, [1e-5, 1.0], &mut budget), vec![0.0, 1.0]);
    }

    #[test]
    fn an_empty_budget_adds_nothing_and_says_so() {
        let mut budget = SampleBudget { left: 2, exhausted: false };
        let times = nlerp_safe_times(vec![0.0, 1.0], &turning(90.0), [1e-5, 1.0], &mut budget);
        assert_eq!(times, vec![0.0, 1.0]);
        assert!(budget.exhausted);
    }
}
