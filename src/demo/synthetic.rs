//! A synthetic park of many small models for contact sheets and their benchmarks.

use std::f32::consts::PI;

use glam::Vec3;

use super::geometry::{Builder, cuboid, turn_y};
use crate::writers::tpw::{MeshFile, TextureSpec};

/// `count` small TPW models named `synth_0000.MD2`, … : each a stack of one to four boxes
/// whose sizes, offsets and turn follow from its index (a fixed hash, so the set is the same
/// on every run), textured with the demo's `stone_blocks` and `gate_wood` (write
/// [`files`] beside them for the textures to resolve). A TPW install holds about 2,300 models.
pub fn synthetic_park(count: usize) -> Vec<(String, Vec<u8>)> {
    (0..count).map(|i| (format!("synth_{i:04}.MD2"), synthetic_model(i).to_bytes())).collect()
}

fn synthetic_model(index: usize) -> MeshFile {
    // SplitMix64 steps: well-spread values from consecutive indices.
    let mut state = (index as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut b = Builder::default();
    let boxes = 1 + (next() * 4.0) as usize;
    let mut floor = 0.0;
    for level in 0..boxes {
        b.material(level % 2);
        let half = Vec3::new(0.3 + next() * 1.2, 0.0, 0.3 + next() * 1.2);
        let height = 0.2 + next() * 1.5;
        let shift = Vec3::new(next() - 0.5, 0.0, next() - 0.5) * 0.6;
        let min = Vec3::new(-half.x, floor, -half.z) + shift;
        let max = Vec3::new(half.x, floor + height, half.z) + shift;
        cuboid(&mut b, min, max, 0.5);
        floor += height;
    }
    MeshFile {
        textures: vec![TextureSpec::opaque("stone_blocks"), TextureSpec::opaque("gate_wood")],
        meshes: vec![b.finish("stack", None, turn_y(next() * PI))],
        ..MeshFile::default()
    }
}
