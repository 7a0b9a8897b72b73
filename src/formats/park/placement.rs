//! Where a placed item stands and what it plays (notes §4 and §5). A cell is 10 world units,
//! Y is up, world X = cell x × 10 and Z = cell y × 10. The stored angle `a` turns model point
//! (x, y, z) to (x·cos a + z·sin a, y, z·cos a − x·sin a); items are authored with their
//! footprint's corner at the model origin, and the root node's own translation is replaced by
//! the middle of the anchor cell plus R·(−5, 0, −5). Fixed items (`Info.DontApplyOffset`) are
//! authored in world coordinates and drawn at the origin. [OpenTPW convention, 90° measured.]

use glam::{Mat3, Mat4, Vec3};
use serde::Serialize;

use super::ride_system::{Channel, RideSlot};
use crate::formats::tpw::siblings::ROLES;

/// World units per map cell.
pub const CELL_SIZE: f32 = 10.0;
/// Frames a second of TPW clips.
pub const FPS: f64 = 30.0;

/// The turn of a stored angle in degrees; quarter turns are exact.
pub fn turn(angle_degrees: u32) -> Mat3 {
    let (sin, cos) = match angle_degrees % 360 {
        0 => (0.0, 1.0),
        90 => (1.0, 0.0),
        180 => (0.0, -1.0),
        270 => (-1.0, 0.0),
        other => (other as f32).to_radians().sin_cos(),
    };
    // Columns are the images of the model's axes: x → (cos, 0, −sin), z → (sin, 0, cos).
    Mat3::from_cols(Vec3::new(cos, 0.0, -sin), Vec3::Y, Vec3::new(sin, 0.0, cos))
}

/// The world matrix of a placed item anchored at `cell` (the high bytes of `mX`, `mY`), turned
/// by `angle_degrees`, on ground at `height`: it replaces the model root's own translation
/// (the root's rotation and scale stay under it).
pub fn world_from_item(cell: [u8; 2], angle_degrees: u32, height: f32) -> Mat4 {
    let r = turn(angle_degrees);
    let centre = Vec3::new((f32::from(cell[0]) + 0.5) * CELL_SIZE, height, (f32::from(cell[1]) + 0.5) * CELL_SIZE);
    let translation = centre + r * Vec3::new(-5.0, 0.0, -5.0);
    Mat4::from_cols(r.x_axis.extend(0.0), r.y_axis.extend(0.0), r.z_axis.extend(0.0), translation.extend(1.0))
}

/// `mTopLeft` as saves.md derives it: the anchor moved by `Info.MapOffsetX/Y`, the pair turned
/// by the angle and a half turn more. `None` off the map or for an angle not a quarter turn.
pub fn top_left(anchor: [u8; 2], map_offset: [i32; 2], angle_degrees: u32) -> Option<[u8; 2]> {
    let [x, y] = map_offset;
    let (dx, dy) = match angle_degrees % 360 {
        0 => (-x, -y),
        90 => (-y, x),
        180 => (x, y),
        270 => (y, -x),
        _ => return None,
    };
    let cx = i32::from(anchor[0]) + dx;
    let cy = i32::from(anchor[1]) + dy;
    Some([u8::try_from(cx).ok().filter(|v| *v < 128)?, u8::try_from(cy).ok().filter(|v| *v < 128)?])
}

/// How a channel's clip is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hold {
    /// Playing at its time (wrapping when it loops).
    Playing,
    /// Frozen on frame 0 (flag 0x2).
    FrozenFirst,
    /// Held on the last frame (flag 0x4, or 0x14).
    HeldLast,
}

/// One channel's clip as the save has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelPose {
    pub channel: usize,
    /// The role letter (`C D I L S M E U W B R O`).
    pub role: char,
    /// 0-based clip index in the role.
    pub clip: u32,
    /// The sibling clip's name, `<role><clip + 1>` (`M1`); the model's only clip of a role
    /// may be the bare `<stem><role>.md2`, which the viewer matches as clip 0.
    pub clip_name: String,
    /// Dword 4 less dword 3, in milliseconds.
    pub time_ms: i64,
    /// That time in frames at 30 a second, before any wrap or hold.
    pub frame: f64,
    pub looping: bool,
    pub hold: Hold,
    pub speed: f32,
    /// Flag 0x8: the role-0 clip has run past its end.
    pub construction_ended: bool,
}

/// What an item shows: its playing channels, or the construction clip's last frame where none
/// plays (how a finished item looks).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pose {
    pub channels: Vec<ChannelPose>,
    /// No channel plays a clip: show the last frame of the `C` clip.
    pub as_built: bool,
    /// Node indices the slot's node flag words hide.
    pub hidden_nodes: Vec<usize>,
    /// Channels whose role is past 12, left out.
    pub warnings: Vec<String>,
}

/// One channel's pose, `None` for an idle channel; `Err` for a role no letter names.
pub fn channel_pose(index: usize, channel: &Channel) -> Option<Result<ChannelPose, String>> {
    if channel.role == super::ride_system::IDLE_ROLE {
        return None;
    }
    let Some(&role) = ROLES.get(channel.role as usize) else {
        return Some(Err(format!("channel {index} has role {}, past the twelve letters and idle (12)", channel.role)));
    };
    let time_ms = channel.position_ms();
    let hold = if channel.held() {
        Hold::HeldLast
    } else if channel.frozen() {
        Hold::FrozenFirst
    } else {
        Hold::Playing
    };
    Some(Ok(ChannelPose {
        channel: index,
        role,
        clip: channel.clip,
        clip_name: format!("{role}{}", u64::from(channel.clip) + 1),
        time_ms,
        frame: time_ms as f64 * FPS / 1000.0,
        looping: channel.looping(),
        hold,
        speed: channel.speed,
        construction_ended: channel.flags & super::ride_system::CHANNEL_ROLE0_ENDED != 0,
    }))
}

/// The pose a ride-system slot records; with no slot, the as-built look.
pub fn pose_of(slot: Option<&RideSlot>) -> Pose {
    let Some(slot) = slot else { return Pose { as_built: true, ..Pose::default() } };
    let mut pose = Pose { hidden_nodes: slot.hidden_nodes(), ..Pose::default() };
    for (i, channel) in slot.channels.iter().enumerate() {
        match channel_pose(i, channel) {
            Some(Ok(p)) => pose.channels.push(p),
            Some(Err(why)) => pose.warnings.push(why),
            None => {}
        }
    }
    pose.as_built = pose.channels.is_empty();
    pose
}
