//! Which texture corner each corner of a ground cell or path tile takes: the cell record's
//! quarter turns and mirror (OpenTPW's `ParkGround.PermuteCorners`, its reading of the engine's
//! `FUN_0056f4f0`) and a path tile's stored angle (OpenTPW's `ParkPaths.TurnCorners`).
//!
//! Corners are taken in the order (x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1) of the cell's
//! grid, and unturned they carry the texture corners (0, 0), (1, 0), (1, 1), (0, 1). What is
//! permuted is which corner supplies which texture coordinate.

use glam::Vec2;

/// Texture corners in corner order, unturned.
pub const CORNER_UVS: [Vec2; 4] = [Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 1.0)];

/// Cell record flag: mirror, applied before the turn; a diagonal reflection that exchanges the
/// texture corners of (x + 1, y) and (x, y + 1).
pub const CELL_MIRROR: u16 = 0x40;
/// Cell record flags: one, two or three quarter turns (one field; other values turn nothing).
pub const CELL_TURN_MASK: u16 = 0x38;
pub const CELL_QUARTER: u16 = 0x08;
pub const CELL_HALF: u16 = 0x10;
pub const CELL_THREE_QUARTERS: u16 = 0x20;
/// Cell record flag: the cell draws nothing (the river, the banks, the fixed roads), as index 0 does.
pub const CELL_NOT_DRAWN: u16 = 0x1;
/// Cell record flag: the corner colour is halved (drawn at half brightness here).
pub const CELL_HALF_COLOUR: u16 = 0x0400;

/// One quarter turn of the ring: each corner takes the texture corner its predecessor had.
fn quarter(c: [Vec2; 4]) -> [Vec2; 4] {
    [c[3], c[0], c[1], c[2]]
}

/// The texture corner of each cell corner for a cell record's flags, and whether the turn field
/// holds no turn or a single one (any other value is drawn unturned).
pub fn cell_corner_uvs(flags: u16) -> ([Vec2; 4], bool) {
    let mut c = CORNER_UVS;
    if flags & CELL_MIRROR != 0 {
        c.swap(1, 3);
    }
    let (turned, known) = match flags & CELL_TURN_MASK {
        0 => (c, true),
        CELL_QUARTER => (quarter(c), true),
        CELL_HALF => (quarter(quarter(c)), true),
        CELL_THREE_QUARTERS => (quarter(quarter(quarter(c))), true),
        _ => (c, false),
    };
    (turned, known)
}

/// The texture corner of each corner of a path tile stored at `angle_degrees`: one quarter
/// turn of the same ring per 90°, the same way as the cell record's 0x08 (OpenTPW's reading,
/// checked there against straight paths running east–west and north–south).
pub fn path_corner_uvs(angle_degrees: u32) -> [Vec2; 4] {
    let mut c = CORNER_UVS;
    for _ in 0..(angle_degrees / 90) % 4 {
        c = quarter(c);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uv(u: f32, v: f32) -> Vec2 {
        Vec2::new(u, v)
    }

    #[test]
    fn cell_turns_and_mirror_permute_the_texture_corners() {
        let plain = [uv(0.0, 0.0), uv(1.0, 0.0), uv(1.0, 1.0), uv(0.0, 1.0)];
        assert_eq!(cell_corner_uvs(0), (plain, true));
        // One quarter: (x, y) takes the texture corner (x, y + 1) had.
        assert_eq!(cell_corner_uvs(0x08).0, [uv(0.0, 1.0), uv(0.0, 0.0), uv(1.0, 0.0), uv(1.0, 1.0)]);
        assert_eq!(cell_corner_uvs(0x10).0, [uv(1.0, 1.0), uv(0.0, 1.0), uv(0.0, 0.0), uv(1.0, 0.0)]);
        assert_eq!(cell_corner_uvs(0x20).0, [uv(1.0, 0.0), uv(1.0, 1.0), uv(0.0, 1.0), uv(0.0, 0.0)]);
        // Mirror alone: the diagonal reflection, (u, v) → (v, u).
        assert_eq!(cell_corner_uvs(0x40).0, [uv(0.0, 0.0), uv(0.0, 1.0), uv(1.0, 1.0), uv(1.0, 0.0)]);
        // Mirror first, then a quarter: [0, 3, 2, 1] turned is [1, 0, 3, 2].
        assert_eq!(cell_corner_uvs(0x48).0, [uv(1.0, 0.0), uv(0.0, 0.0), uv(0.0, 1.0), uv(1.0, 1.0)]);
        // Flags outside the turn field and mirror change nothing; two turn bits are no turn.
        assert_eq!(cell_corner_uvs(0x0400 | 0x4), (plain, true));
        assert_eq!(cell_corner_uvs(0x18), (plain, false));
    }

    #[test]
    fn path_angles_turn_a_quarter_per_ninety_degrees() {
        assert_eq!(path_corner_uvs(0), CORNER_UVS);
        assert_eq!(path_corner_uvs(90), cell_corner_uvs(0x08).0);
        assert_eq!(path_corner_uvs(180), cell_corner_uvs(0x10).0);
        assert_eq!(path_corner_uvs(270), cell_corner_uvs(0x20).0);
        assert_eq!(path_corner_uvs(360), CORNER_UVS);
    }
}
