//! Channels: one animated property of one target per [`Channel`] variant, with the key data
//! the variants hold (morph blocks, UV slots, easing ramps, joint tracks) and how a track reads
//! time.

use glam::{Mat4, Quat, Vec2, Vec3};

use super::{Curve, Key, PackedFrames, Path};

/// Morph keys for a set of source vertices that share key times (one TPW morph record):
/// `positions[key * vertices.len() + k]` is the absolute position of source vertex
/// `vertices[k]` at `times[key]`. Sharing the times lets a frame find its segment once per
/// block instead of once per vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphBlock {
    pub times: Vec<f32>,
    pub vertices: Vec<u32>,
    pub positions: Vec<Vec3>,
}

/// One UV slot's keys (TPW UV animation): render vertex `slot` takes `(u, v)` from `keys`,
/// blended linearly between the keys around the time and held at the first and last key
/// outside them. The value replaces the stored UV.
#[derive(Debug, Clone, PartialEq)]
pub struct UvSlotKeys {
    pub slot: u32,
    pub keys: Vec<Key<Vec2>>,
}

/// An easing curve for one segment of rotation keys (TPW): a 10-point ramp
/// `0, c[0]/255, ..., c[7]/255, 1` over 9 equal steps of the even fraction. Curves may dip
/// (not monotonic); they are played as stored. See [`EaseRamp::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EaseRamp(pub [u8; 8]);

impl EaseRamp {
    /// The engine's step count, just under 9 so that `t = 1` stays in the 9th segment and
    /// returns 1 (an exact 9 would fall into a 10th and jump back to `c[7]`).
    pub const STEPS: f32 = 8.999_995;
    /// The engine's byte scale, the f32 nearest 1/255 (0.003921568859368563; f32 division rounds to nearest).
    pub const BYTE_SCALE: f32 = 1.0 / 255.0;

    /// Maps the even fraction `t` (0..=1) between two keys onto the ramp:
    /// `x = t * STEPS`, `s = trunc(x)`, `r = x - s`; the segment `(a, b)` is `(0, c0)` for
    /// s = 0, `(c[s-1], c[s])` for 1 <= s <= 7 and `(c7, 1)` for s >= 8; the result is
    /// `a + (b - a) * r`.
    pub fn apply(&self, t: f32) -> f32 {
        let x = t * Self::STEPS;
        let step = x.trunc();
        let r = x - step;
        let byte = |i: usize| f32::from(self.0.get(i).copied().unwrap_or(0)) * Self::BYTE_SCALE;
        let (a, b) = match step as i32 {
            i32::MIN..=0 => (0.0, byte(0)),
            s @ 1..=7 => (byte(s as usize - 1), byte(s as usize)),
            _ => (byte(7), 1.0),
        };
        a + (b - a) * r
    }
}

/// One animated property of one target.
#[derive(Debug, Clone)]
pub enum Channel {
    /// The node's absolute local orientation (TPW rotation): the animated local matrix is
    /// `local · U⁻¹ · R(q)` in column-vector terms, where `U` is the orthonormal polar factor
    /// of the authored 3x3 made a proper rotation (`-U` for a mirrored node, so the mirror
    /// stays; [`crate::scene::math::authored_orientation_inverse`]), and `authored_inverse`
    /// stores `U⁻¹` padded to 4x4. Scale, shear and
    /// translation stay exactly as authored. An identity `authored_inverse` composes the key
    /// with the authored rotation instead (TPW additive models: `local · R(q)`). Slerp between
    /// keys; outside them the nearest key holds.
    NodeRotation { node: usize, authored_inverse: Mat4, keys: Vec<Key<Quat>> },
    /// Like [`Channel::NodeRotation`], with an easing curve per segment (TPW rotation keys
    /// with a curve id): between keys `i` and `i + 1` the even fraction `t` first goes through
    /// `ease[i]` ([`EaseRamp::apply`]; `None` leaves it even), then drives the slerp. The lower
    /// key's curve governs; the last key's entry is unused. Outside the keys the nearest key holds.
    NodeRotationEased { node: usize, authored_inverse: Mat4, keys: Vec<Key<Quat>>, ease: Vec<Option<EaseRamp>> },
    /// The node's translation relative to its parent from a curve (TPW position, linear or
    /// Bezier with the tangents as inner control points). Before the first key the node is left
    /// as it is; after the last key the last value holds. The value replaces the translation, or
    /// under `additive` is added to the authored translation.
    NodePosition { node: usize, curve: Curve<Vec3>, additive: bool },
    /// Sets the lengths of the node's three basis axes (the local matrix's first three columns,
    /// each rescaled along its own direction; translation and directions stay) to a linear blend
    /// of the keys around the time; the nearest key holds outside them (TPW scale).
    NodeAxisScale { node: usize, keys: Vec<Key<Vec3>> },
    /// Moves the node along `path` (TPW path progress). `values[i]` is a percentage of the path
    /// at time `start + i`; the channel acts only for times in `start..=start + values.len() - 1`
    /// and leaves the node alone outside. Between two values the blend is linear, the short way
    /// round the 100 % wrap when they are more than 50 apart. The percentage wraps into 0..100
    /// (`(v + 1000) mod 100`), becomes `p * segments / 100`, whose whole part is the segment
    /// (clamped to the last) and fraction the place in it ([`Path::sample`]). The point replaces
    /// the node's translation (added to it under `additive`); under `face_along` the node's
    /// basis turns so that +Z points along the direction of travel and +X stays horizontal
    /// (`Y × Z`), each axis keeping its length (the notes don't state the engine's frame; this
    /// one is ours).
    NodePathProgress { node: usize, path: Path, start: f32, values: Vec<f32>, face_along: bool, additive: bool },
    /// Whole local placements keyed per frame (Quake 3 tags): between two keys each column of
    /// the matrix (three axes and the origin) blends linearly and each axis is then made unit
    /// length again, as `R_LerpTag` does, so the blend may shear a little where a slerp would
    /// not; outside the keys the nearest holds. The value replaces the node's local.
    NodeFrames { node: usize, keys: Vec<Key<Mat4>> },
    /// Node visibility switches: the last key at or before the time decides; before the first key
    /// the node keeps what it had. Hiding a node hides its own mesh only, not its children.
    NodeVisibility { node: usize, keys: Vec<Key<bool>> },
    /// Per-source-vertex positions, linearly interpolated (TPW vertex morph).
    VertexMorph { mesh: usize, blocks: Vec<MorphBlock> },
    /// Whole frames of source positions (TPW raw vertex frames): frame `f` holds
    /// `positions[f * vertex_count..][..vertex_count]` at `times[f]`, blended linearly between
    /// neighbouring frames and held outside them. The positions replace the source positions, or
    /// under `additive` are added to them.
    VertexFrames { mesh: usize, times: Vec<f32>, vertex_count: usize, positions: Vec<Vec3>, additive: bool },
    /// Whole-mesh keyframes kept quantised as the file stores them (Quake II): see
    /// [`PackedFrames`]. Linearly interpolated between neighbouring frames.
    PackedFrames(PackedFrames),
    /// Keyed UVs of render vertices (TPW UV animation), see [`UvSlotKeys`].
    UvKeys { mesh: usize, slots: Vec<UvSlotKeys> },
    /// Per-frame joint matrices (MDR), `frames[f][joint]` in model space, blended linearly.
    BoneFrames { skeleton: usize, times: Vec<f32>, frames: Vec<Vec<Mat4>> },
    /// Keyed joint TRS about the joint's pivot (M2), times in the clip's units.
    BoneTracks { skeleton: usize, joints: Vec<JointTracks> },
    /// A material's RGB replaced by keyed values (M2 colour tracks); see
    /// [`anim::Pose::material_colors`](super::anim::Pose::material_colors).
    MaterialColor { material: usize, keys: Curve<Vec3>, time: TrackTime },
    /// A material's alpha from keyed values in 0..=1 (M2 colour alpha and transparency tracks):
    /// the product of a clip's alpha channels on one material replaces its base alpha.
    MaterialAlpha { material: usize, keys: Curve<f32>, time: TrackTime },
    /// A material's texture-coordinate transform (M2 texture animation): translation, then rotation
    /// and scale about the texture centre (0.5, 0.5); see
    /// [`anim::Pose::uv_transforms`](super::anim::Pose::uv_transforms).
    UvTransform {
        material: usize,
        translation: Curve<Vec3>,
        rotation: Curve<Quat>,
        scale: Curve<Vec3>,
        /// Timing of translation, rotation and scale.
        time: [TrackTime; 3],
    },
}

/// How a keyed track reads time. M2 tracks tied to a global sequence loop on their own period on
/// the global clock ([`anim::Pose::global_time`](super::anim::Pose::global_time)), whatever clip
/// plays, as the spec's track section, WoW Model Viewer and wow.export have it
/// (`globalTime % period`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TrackTime {
    /// The clip's time.
    #[default]
    Clip,
    /// `time % period` (a zero period samples time 0).
    Loop { period: f32 },
}

impl TrackTime {
    /// The time at which to sample a track with this timing when the clip is at `clip_time`
    /// and the global clock at `global_time`.
    pub fn apply(self, clip_time: f32, global_time: f32) -> f32 {
        match self {
            TrackTime::Clip => clip_time,
            TrackTime::Loop { period } if period > 0.0 && period.is_finite() => global_time.rem_euclid(period),
            TrackTime::Loop { .. } => 0.0,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct JointTracks {
    pub joint: usize,
    pub translation: Curve<Vec3>,
    pub rotation: Curve<Quat>,
    pub scale: Curve<Vec3>,
    /// Timing of translation, rotation and scale (M2 global sequences).
    pub timing: [TrackTime; 3],
}

impl Channel {
    /// The node whose local matrix this channel moves (rotation, position, scale and path
    /// channels; visibility only hides the node's mesh), if any.
    pub fn moved_node(&self) -> Option<usize> {
        match self {
            Channel::NodeRotation { node, .. }
            | Channel::NodeRotationEased { node, .. }
            | Channel::NodePosition { node, .. }
            | Channel::NodeAxisScale { node, .. }
            | Channel::NodePathProgress { node, .. }
            | Channel::NodeFrames { node, .. } => Some(*node),
            _ => None,
        }
    }

    /// A short name of the kind of motion, for the UI and `info`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Channel::NodeRotation { .. } => "rotation",
            Channel::NodeRotationEased { .. } => "eased-rotation",
            Channel::NodePosition { .. } => "position",
            Channel::NodeAxisScale { .. } => "scale",
            Channel::NodePathProgress { .. } => "path-progress",
            Channel::NodeFrames { .. } => "node-frames",
            Channel::VertexFrames { .. } => "vertex-frames",
            Channel::NodeVisibility { .. } => "visibility",
            Channel::VertexMorph { .. } => "morph",
            Channel::PackedFrames(_) => "frame-morph",
            Channel::UvKeys { .. } => "uv",
            Channel::BoneFrames { .. } => "bone-frames",
            Channel::BoneTracks { .. } => "bone-tracks",
            Channel::MaterialColor { .. } => "material-color",
            Channel::MaterialAlpha { .. } => "material-alpha",
            Channel::UvTransform { .. } => "uv-transform",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ease_ramps_keep_the_last_frame_and_their_dips() {
        let ramp = EaseRamp([32, 66, 105, 141, 176, 208, 233, 249]);
        assert_eq!(ramp.apply(0.0), 0.0);
        // Just under 9 steps keeps t = 1 in the last segment (c7 -> 1), ending at 1 (within its
        // f32 remainder), not falling back to c7 = 249/255.
        assert!((ramp.apply(1.0) - 1.0).abs() < 1e-5, "{}", ramp.apply(1.0));
        // t = 0.5: x = 4.4999976, s = 4, segment (141, 176).
        let expected = (141.0 + 35.0 * (0.5f32 * EaseRamp::STEPS - 4.0)) / 255.0;
        assert!((ramp.apply(0.5) - expected).abs() < 1e-6);
        // A dipping curve is played as stored: t = 2/9 + a little lands in (200, 120), going down.
        let dip = EaseRamp([200, 120, 60, 20, 40, 90, 180, 240]);
        assert!(dip.apply(0.25) < dip.apply(0.12));
    }
}
