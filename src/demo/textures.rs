//! The demo's textures: small, procedural, tileable PNGs (value noise and a few patterns),
//! painted deterministically.

use std::f32::consts::{PI, TAU};

use image::{ExtendedColorType, ImageEncoder, codecs::png::PngEncoder};

pub(super) struct Texture {
    pub(super) name: &'static str,
    pub(super) paint: fn() -> Vec<u8>,
}

pub(super) const TEXTURES: [Texture; 9] = [
    Texture { name: "isle_grass", paint: grass_png },
    Texture { name: "isle_sand", paint: sand_png },
    Texture { name: "palm_bark", paint: bark_png },
    Texture { name: "palm_leaves", paint: leaves_png },
    Texture { name: "isle_ripple", paint: ripple_png },
    Texture { name: "sea_water", paint: sea_png },
    Texture { name: "gate_wood", paint: wood_png },
    Texture { name: "stone_blocks", paint: stone_png },
    Texture { name: "ftn_water", paint: fountain_water_png },
];

pub(super) fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h =
        (x as u32).wrapping_mul(0x8DA6_B343) ^ (y as u32).wrapping_mul(0xD816_3841) ^ seed.wrapping_mul(0xCB1A_B31F);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5BD1_E995);
    h ^= h >> 15;
    (h & 0xFF_FFFF) as f32 / 16_777_216.0
}

/// Value noise on a lattice of `period` cells per texture, wrapping so the texture tiles.
pub(super) fn noise(u: f32, v: f32, period: i32, seed: u32) -> f32 {
    let (x, y) = (u * period as f32, v * period as f32);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (smooth(fx), smooth(fy));
    let cell = |dx: i32, dy: i32| hash((x0 as i32 + dx).rem_euclid(period), (y0 as i32 + dy).rem_euclid(period), seed);
    let top = cell(0, 0) + (cell(1, 0) - cell(0, 0)) * sx;
    let bottom = cell(0, 1) + (cell(1, 1) - cell(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Four octaves of [`noise`], 0..1.
pub(super) fn fbm(u: f32, v: f32, period: i32, seed: u32) -> f32 {
    let mut sum = 0.0;
    let mut weight = 0.5;
    let mut total = 0.0;
    for octave in 0..4 {
        sum += weight * noise(u, v, period << octave, seed + octave as u32);
        total += weight;
        weight *= 0.5;
    }
    sum / total
}

pub(super) fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

pub(super) fn byte(x: f32) -> u8 {
    x.round().clamp(0.0, 255.0) as u8
}

/// Paints a `size` square texture; `texel(u, v)` gives RGBA with channels 0..255.
pub(super) fn paint(size: u32, alpha: bool, texel: impl Fn(f32, f32) -> [f32; 4]) -> Vec<u8> {
    let mut pixels = Vec::new();
    for y in 0..size {
        for x in 0..size {
            let rgba = texel((x as f32 + 0.5) / size as f32, (y as f32 + 0.5) / size as f32);
            let channels = if alpha { 4 } else { 3 };
            pixels.extend(rgba.iter().take(channels).map(|&c| byte(c)));
        }
    }
    let mut out = Vec::new();
    let color = if alpha { ExtendedColorType::Rgba8 } else { ExtendedColorType::Rgb8 };
    PngEncoder::new(&mut out).write_image(&pixels, size, size, color).expect("encoding a PNG into memory");
    out
}

pub(super) fn opaque(rgb: [f32; 3]) -> [f32; 4] {
    [rgb[0], rgb[1], rgb[2], 255.0]
}

pub(super) fn grass_png() -> Vec<u8> {
    paint(128, false, |u, v| {
        let patches = fbm(u, v, 4, 11);
        let blades = noise(u, v, 64, 12);
        let base = mix([62.0, 118.0, 44.0], [118.0, 150.0, 62.0], (patches - 0.35).clamp(0.0, 1.0) * 1.6);
        opaque(mix(base, [40.0, 88.0, 30.0], blades * 0.45))
    })
}

pub(super) fn sand_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let grain = noise(u, v, 32, 21);
        let ripples = 0.5 + 0.5 * (TAU * (4.0 * v + 0.6 * fbm(u, v, 4, 22))).sin();
        let base = mix([206.0, 182.0, 132.0], [232.0, 214.0, 168.0], grain);
        opaque(mix(base, [190.0, 164.0, 116.0], ripples * 0.25))
    })
}

pub(super) fn bark_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let fibres = noise(u, v * 0.25, 16, 31);
        let band = (v * 4.0).fract();
        let ring = if band < 0.12 { 1.0 - band / 0.12 } else { 0.0 };
        let base = mix([112.0, 82.0, 52.0], [146.0, 112.0, 74.0], fibres);
        opaque(mix(base, [62.0, 44.0, 28.0], ring * 0.8))
    })
}

/// A palm frond along V (base at v = 1, tip at v = 0) with hard 0/255 alpha: a rib down the
/// middle and slanted leaflets inside a leaf-shaped outline.
pub(super) fn leaves_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let along = 1.0 - v;
        let d = (u - 0.5).abs();
        let outline = 0.48 * (PI * along.clamp(0.0, 1.0)).sin().powf(0.6);
        let rib = d < 0.035 && along > 0.02 && along < 0.97;
        let leaflet = (along * 9.0 + d * 6.0).fract() < 0.7;
        let inside = rib || (leaflet && d < outline && d > 0.02);
        let shade = fbm(u, v, 4, 41);
        let colour = if rib {
            [150.0, 170.0, 70.0]
        } else {
            mix([38.0, 104.0, 34.0], [96.0, 162.0, 58.0], (1.0 - d * 2.0) * 0.6 + shade * 0.4)
        };
        [colour[0], colour[1], colour[2], if inside { 255.0 } else { 0.0 }]
    })
}

/// Shore foam: white, alpha a smooth gradient from the inner edge (v = 0) outwards, with soft
/// crests; tiles along U, which is the direction it scrolls.
pub(super) fn ripple_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let fade_in = (v / 0.08).clamp(0.0, 1.0);
        let fade_out = (1.0 - v).clamp(0.0, 1.0).powf(1.3);
        let crest = 0.5 + 0.5 * (TAU * (3.0 * v + 0.12 * (TAU * 2.0 * u).sin())).sin();
        let alpha = 255.0 * fade_in * fade_out * (0.35 + 0.65 * crest);
        [236.0, 246.0, 250.0, alpha]
    })
}

pub(super) fn sea_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let waves = fbm(u, v, 4, 51);
        let crest = (0.5 + 0.5 * (TAU * (u + v + 0.5 * waves)).sin()).powf(3.0);
        let colour = mix([22.0, 88.0, 140.0], [92.0, 170.0, 204.0], waves * 0.6 + crest * 0.4);
        [colour[0], colour[1], colour[2], 140.0 + 90.0 * (0.5 * waves + 0.5 * crest)]
    })
}

pub(super) fn wood_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let plank = (u * 4.0).floor();
        let across = (u * 4.0).fract();
        let tone = hash(plank as i32, 0, 61);
        let grain = 0.5 + 0.5 * (TAU * (across * 3.0 + 2.0 * fbm(u, v, 4, 62))).sin();
        let base = mix([118.0, 78.0, 42.0], [158.0, 108.0, 62.0], tone * 0.6 + grain * 0.4);
        let gap = if !(0.05..=0.95).contains(&across) { 0.7 } else { 0.0 };
        opaque(mix(base, [44.0, 30.0, 18.0], gap))
    })
}

pub(super) fn stone_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let row = (v * 4.0).floor();
        let offset = if row as i32 % 2 == 1 { 0.25 } else { 0.0 };
        let column = ((u + offset) * 2.0).floor();
        let (fu, fv) = (((u + offset) * 2.0).fract(), (v * 4.0).fract());
        let mortar = !(0.04..=0.96).contains(&fu) || !(0.07..=0.93).contains(&fv);
        let tone = hash(column as i32 % 2, row as i32, 71);
        let grit = fbm(u, v, 8, 72);
        let base = mix([128.0, 124.0, 116.0], [176.0, 170.0, 158.0], tone * 0.5 + grit * 0.5);
        opaque(if mortar { [92.0, 88.0, 82.0] } else { base })
    })
}

pub(super) fn fountain_water_png() -> Vec<u8> {
    paint(64, true, |u, v| {
        let caustic = fbm(u, v, 4, 81);
        let lines = (1.0 - (2.0 * (caustic * 6.0).fract() - 1.0).abs()).powf(4.0);
        let colour = mix([92.0, 168.0, 204.0], [214.0, 240.0, 250.0], lines * 0.8);
        [colour[0], colour[1], colour[2], 120.0 + 80.0 * caustic + 40.0 * lines]
    })
}

/// Textures only the park's own items use (not shipped loose).
pub(super) const PARK_TEXTURES: [Texture; 1] = [Texture { name: "canopy_stripes", paint: stripes_png }];

/// A circus canopy: red and cream stripes along U with a faint weave.
fn stripes_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let red = (u * 8.0).fract() < 0.5;
        let weave = noise(u, v, 32, 91);
        let base = if red { [186.0, 38.0, 44.0] } else { [238.0, 226.0, 196.0] };
        opaque(mix(base, [90.0, 60.0, 50.0], weave * 0.18))
    })
}

/// The park's lawn: a calm grass, broad patches and no blades, so a whole park of it stays
/// restful (and a screenshot of it small).
pub(super) fn lawn_png() -> Vec<u8> {
    paint(64, false, |u, v| {
        let patches = noise(u, v, 2, 13) * 0.7 + noise(u, v, 4, 14) * 0.3;
        opaque(mix([74.0, 128.0, 52.0], [104.0, 148.0, 64.0], patches))
    })
}
