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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_left_follows_the_offset_turned_and_half_turned() {
        // saves.md: an offset (x, y) is x columns and y rows before the anchor unturned; at 90°
        // y columns before and x rows after; at 180° x columns and y rows after; at 270° y
        // columns after and x rows before.
        assert_eq!(top_left([30, 30], [2, 1], 0), Some([28, 29]));
        assert_eq!(top_left([30, 30], [2, 1], 90), Some([29, 32]));
        assert_eq!(top_left([30, 30], [2, 1], 180), Some([32, 31]));
        assert_eq!(top_left([30, 30], [2, 1], 270), Some([31, 28]));
        assert_eq!(top_left([0, 0], [0, 1], 0), None);
        assert_eq!(top_left([5, 5], [0, 0], 45), None);
    }

    #[test]
    fn channels_pose_by_role_clip_time_and_flags() {
        let channel = |flags, role, clip| Channel {
            flags,
            role,
            clip,
            start_ms: 1_000,
            clip_time_ms: 2_000,
            speed: 1.5,
            ..Channel::default()
        };
        let looping = channel_pose(0, &channel(0x1, 5, 2)).unwrap().unwrap();
        assert_eq!((looping.role, looping.clip_name.as_str(), looping.time_ms), ('M', "M3", 1000));
        assert!((looping.frame - 30.0).abs() < 1e-9 && looping.looping && looping.hold == Hold::Playing);
        assert_eq!(channel_pose(0, &channel(0x14, 6, 0)).unwrap().unwrap().hold, Hold::HeldLast);
        assert_eq!(channel_pose(0, &channel(0xC, 0, 0)).unwrap().unwrap().hold, Hold::HeldLast);
        assert!(channel_pose(0, &channel(0xC, 0, 0)).unwrap().unwrap().construction_ended);
        assert_eq!(channel_pose(0, &channel(0x2, 11, 0)).unwrap().unwrap().hold, Hold::FrozenFirst);
        assert!(channel_pose(0, &channel(0, 12, 0)).is_none());
        assert!(channel_pose(0, &channel(0, 13, 0)).unwrap().is_err());
        let slot = RideSlot {
            index: 0,
            item: 1,
            cell: [0, 0],
            footprint: [1, 1],
            make_flags: 0,
            script: 0,
            hoarding_flags: 0,
            hoarding_progress: 0.0,
            angle: 0,
            lookup_count: 0,
            shared_flags: 0,
            attached: 0,
            node_flags: vec![0x400, 0x401, 0x20],
            channels: vec![channel(0, 12, 0)],
        };
        let pose = pose_of(Some(&slot));
        assert!(pose.as_built && pose.channels.is_empty());
        assert_eq!(pose.hidden_nodes, vec![1]);
        assert!(pose_of(None).as_built);
    }

    #[test]
    fn quarter_turns_are_exact() {
        for (angle, x_image) in [(0, Vec3::X), (90, Vec3::NEG_Z), (180, Vec3::NEG_X), (270, Vec3::Z)] {
            assert_eq!(turn(angle) * Vec3::X, x_image, "{angle}°");
        }
    }
}
