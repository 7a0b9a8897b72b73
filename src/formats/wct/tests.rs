//! WCT tests: fixtures whose coefficients are worked out by hand (a flat channel of value v has
//! the single coefficient 2v/step at every smooth-smooth position), then round trips through
//! the encoder within the quantisation error, bounds, and a damage sweep.

use super::chunk::{encode_bilz, encode_lzss};
use super::encoder::{WctOptions, encode, push_coefficient};
use super::*;

/// The coefficient bytes of a flat `size`×`size` channel whose smooth-smooth coefficient is
/// `dc`: rows `0..size/2` hold pairs `(dc, 0)`, the detail rows hold zeros.
fn flat_plane(size: usize, dc: i16) -> Vec<u8> {
    let mut out = Vec::new();
    for row in 0..size {
        for _ in 0..size / 2 {
            push_coefficient(if row < size / 2 { dc } else { 0 }, &mut out);
            out.push(0);
        }
    }
    out
}

fn file(header: WctHeader, colour: &[u8], alpha: &[u8]) -> Vec<u8> {
    let header = WctHeader { colour_size: colour.len() as i32, alpha_size: alpha.len() as i32, ..header };
    let mut out = header.write();
    out.extend_from_slice(colour);
    out.extend_from_slice(alpha);
    out
}

fn header(width: i16, height: i16) -> WctHeader {
    WctHeader {
        flags: FLAG_FULL_SCALE | FLAG_COMPRESSED,
        alpha_byte: 0,
        bit_depth: 24,
        version: 1,
        width,
        height,
        scales: [0; 4],
        colour_size: 0,
        alpha_size: 0,
        checksum: 0,
    }
}

fn all_pixels(image: &WctImage, expected: [u8; 4]) {
    assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize);
    for (i, px) in image.rgba.chunks_exact(4).enumerate() {
        assert_eq!(px, expected, "pixel {i}");
    }
}

#[test]
fn coefficient_byte_coding() {
    let mut out = Vec::new();
    for v in [5, -3, 127, -127, -128, 200, -300] {
        push_coefficient(v, &mut out);
    }
    assert_eq!(out, [5, 0xFD, 0x7F, 0x81, 0x80, 0x80, 0xFF, 0x80, 0xC8, 0x00, 0x80, 0xD4, 0xFE]);
}

#[test]
fn one_by_one_grey_pads_to_eight() {
    // Y = 100: coefficient 200 (escaped: 80 C8 00). Raw coding (flag bit 4 clear).
    let mut colour = flat_plane(8, 200);
    assert_eq!(&colour[..4], [0x80, 0xC8, 0x00, 0x00]);
    assert_eq!(colour.len(), 4 * 16 + 4 * 8);
    colour.extend(flat_plane(4, 0));
    colour.extend(flat_plane(4, 0));
    let data = file(WctHeader { flags: FLAG_FULL_SCALE, ..header(1, 1) }, &colour, &[]);
    let image = decode(&data).unwrap();
    assert_eq!((image.width, image.height, image.colour_coding), (1, 1, ChunkCoding::Raw));
    assert_eq!(image.rgba, [100, 100, 100, 255]);
    assert!(!image.has_alpha);
}

#[test]
fn sixty_four_square_opaque_bilz() {
    // Y 100, Cb 0, Cr 50: R = 100 + 1.402·50 = 170.1, G = 100 − 0.714136·50 = 64.29, B = 100.
    let mut colour = flat_plane(64, 200);
    colour.extend(flat_plane(32, 0));
    colour.extend(flat_plane(32, 100));
    let data = file(header(64, 64), &encode_bilz(&colour), &[]);
    let image = decode(&data).unwrap();
    assert_eq!(image.colour_coding, ChunkCoding::Bilz);
    all_pixels(&image, [170, 64, 100, 255]);
}

#[test]
fn one_twenty_eight_by_thirty_two_with_alpha() {
    // Scales n: Y 2 (step 1 + 2/2 = 2), A 1 (step 1 + 1 = 2). Y 100 → 2·100/2 = 100;
    // alpha 128 → 2·128/2 = 128. Padded to 128x128.
    let mut colour = flat_plane(128, 100);
    colour.extend(flat_plane(64, 0));
    colour.extend(flat_plane(64, 0));
    let alpha = flat_plane(128, 128);
    let h = WctHeader { alpha_byte: 1, bit_depth: 32, scales: [2, 0, 0, 1], ..header(128, 32) };
    let image = decode(&file(h, &encode_bilz(&colour), &encode_bilz(&alpha))).unwrap();
    assert_eq!((image.width, image.height), (128, 32));
    assert!(image.has_alpha);
    all_pixels(&image, [100, 100, 100, 128]);
}

#[test]
fn alpha_chunk_is_ignored_unless_the_alpha_byte_is_one() {
    let mut colour = flat_plane(8, 200);
    colour.extend(flat_plane(4, 0));
    colour.extend(flat_plane(4, 0));
    let alpha = flat_plane(8, 20);
    let h = WctHeader { alpha_byte: 2, bit_depth: 32, ..header(8, 8) };
    let image = decode(&file(h, &encode_bilz(&colour), &encode_bilz(&alpha))).unwrap();
    all_pixels(&image, [100, 100, 100, 255]);
    assert!(!image.has_alpha && image.warnings.iter().any(|w| w.contains("alpha byte 2")));
}

#[test]
fn half_scale_multiplies_the_steps_by_pi_over_six() {
    // Y coefficient 100 at step π/6: 100·(π/6)/2 = 26.18.
    let mut colour = flat_plane(16, 100);
    colour.extend(flat_plane(8, 0));
    colour.extend(flat_plane(8, 0));
    let h = WctHeader { flags: FLAG_COMPRESSED, ..header(16, 16) };
    all_pixels(&decode(&file(h, &encode_bilz(&colour), &[])).unwrap(), [26, 26, 26, 255]);
}

#[test]
fn lzss_coded_chunk() {
    let mut colour = flat_plane(32, 160);
    colour.extend(flat_plane(16, -40));
    colour.extend(flat_plane(16, 0));
    // Cb −20: R 80, G 80 + 0.344136·20 = 86.88, B 80 − 1.772·20 = 44.56.
    let packed = encode_lzss(&colour);
    assert!(packed.len() < colour.len() / 4);
    let image = decode(&file(header(20, 30), &packed, &[])).unwrap();
    assert_eq!(image.colour_coding, ChunkCoding::Lzss);
    all_pixels(&image, [80, 87, 45, 255]);
}

fn test_picture(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let checker = if (x / 8 + y / 8) % 2 == 0 { 40 } else { 0 };
            out.extend_from_slice(&[
                (x * 255 / width.max(2)) as u8,
                (y * 255 / height.max(2)) as u8,
                (120 + checker) as u8,
                ((x + y) * 255 / (width + height)) as u8,
            ]);
        }
    }
    out
}

fn max_error(a: &[u8], b: &[u8], channels: std::ops::Range<usize>) -> u8 {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .flat_map(|(p, q)| channels.clone().map(move |c| p[c].abs_diff(q[c])))
        .max()
        .unwrap_or(0)
}

fn mean_error(a: &[u8], b: &[u8]) -> f32 {
    let total: u32 = a.iter().zip(b).map(|(p, q)| u32::from(p.abs_diff(*q))).sum();
    total as f32 / a.len() as f32
}

#[test]
fn encoder_round_trips_within_the_quantisation_error() {
    for (w, h, options) in [
        (64, 64, WctOptions::default()),
        (128, 32, WctOptions { alpha: true, ..Default::default() }),
        (50, 20, WctOptions { alpha: true, coding: ChunkCoding::Lzss, ..Default::default() }),
        (64, 64, WctOptions { full_scale: false, ..Default::default() }),
        (1, 1, WctOptions::default()),
    ] {
        let picture = test_picture(w, h);
        let image = decode(&encode(&picture, w, h, options)).unwrap();
        assert_eq!((image.width, image.height, image.has_alpha), (w, h, options.alpha));
        // Luma at step 1 is within a level or two; chroma is averaged over 2x2 blocks, so
        // the checker's edges cost more there.
        let mean = mean_error(
            &image.rgba,
            &picture
                .iter()
                .enumerate()
                .map(|(i, &v)| if i % 4 == 3 && !options.alpha { 255 } else { v })
                .collect::<Vec<_>>(),
        );
        assert!(mean < 2.5, "{w}x{h} {options:?}: mean error {mean}");
        assert!(max_error(&image.rgba, &picture, 0..3) <= 24, "{w}x{h} {options:?}");
        if options.alpha {
            assert!(max_error(&image.rgba, &picture, 3..4) <= 2, "{w}x{h} alpha");
        }
    }
}

#[test]
fn coarser_steps_cost_accuracy_but_shrink_the_file() {
    let picture = test_picture(64, 64);
    let fine = encode(&picture, 64, 64, WctOptions::default());
    let coarse = encode(&picture, 64, 64, WctOptions { scales: [8, 8, 8, 0], ..Default::default() });
    assert!(coarse.len() < fine.len());
    let error = |data: &[u8]| {
        mean_error(
            &decode(data).unwrap().rgba,
            &picture.iter().enumerate().map(|(i, &v)| if i % 4 == 3 { 255 } else { v }).collect::<Vec<_>>(),
        )
    };
    assert!(error(&coarse) > error(&fine));
    assert!(error(&coarse) < 6.0);
}

#[test]
fn sides_are_bounded_before_allocating() {
    let colour = [0u8; 4];
    for (w, h, field) in [(0, 8, "width"), (-4, 8, "width"), (8, 4096, "height")] {
        let err = decode(&file(header(w, h), &colour, &[])).unwrap_err();
        assert_eq!(err.field, field);
    }
    let mut data = file(header(8, 8), &colour, &[]);
    data[16] = 200; // colour chunk size past the end
    assert_eq!(decode(&data).unwrap_err().field, "colour chunk");
    let h = WctHeader { alpha_byte: 1, ..header(8, 8) };
    let data = file(h, &encode_bilz(&[0; 96]), &[]);
    assert!(decode(&data).unwrap_err().to_string().contains("alpha"));
}

#[test]
fn coefficient_data_that_ends_early_is_an_error() {
    let colour = flat_plane(8, 200);
    let err = decode(&file(header(8, 8), &encode_bilz(&colour), &[])).unwrap_err();
    assert!(err.to_string().contains("Cb coefficients"), "{err}");
}

#[test]
fn every_truncation_and_bit_flip_fails_cleanly() {
    let picture = test_picture(12, 10);
    for options in [
        WctOptions { alpha: true, ..Default::default() },
        WctOptions { alpha: true, coding: ChunkCoding::Lzss, ..Default::default() },
    ] {
        let good = encode(&picture, 12, 10, options);
        assert!(decode(&good).is_ok());
        for len in 0..good.len() {
            assert!(decode(&good[..len]).is_err(), "truncated to {len}");
        }
        for at in 0..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[at] ^= 1 << bit;
                if let Ok(image) = decode(&bad) {
                    assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize);
                }
            }
        }
    }
}
