//! WCT tests: fixtures whose coefficients are worked out by hand (a flat channel of value v has
//! the single coefficient 2v/step at every smooth-smooth position), then round trips through
//! the encoder within the quantisation error, bounds, and a damage sweep.

use super::chunk::{encode_bilz, encode_lzss};
use super::*;
use crate::writers::wct::{WctOptions, encode, push_coefficient};

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
    // Scales n: Y 3 (step 1 + 3/2 = 2.5), A 2 (step 2 + 1 = 3). Y 81 → 2.5·81/2 = 101.25;
    // alpha 85 → 3·85/2 = 127.5, truncated. Padded to 128x128.
    let mut colour = flat_plane(128, 81);
    colour.extend(flat_plane(64, 0));
    colour.extend(flat_plane(64, 0));
    let alpha = flat_plane(128, 85);
    let h = WctHeader { alpha_byte: 1, bit_depth: 32, scales: [3, 0, 0, 2], ..header(128, 32) };
    let image = decode(&file(h, &encode_bilz(&colour), &encode_bilz(&alpha))).unwrap();
    assert_eq!((image.width, image.height), (128, 32));
    assert!(image.has_alpha);
    all_pixels(&image, [101, 101, 101, 127]);
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

/// The coefficient bytes of a `size`×`size` plane that is zero but for `(row, index, value)`.
fn sparse_plane(size: usize, set: &[(usize, usize, i16)]) -> Vec<u8> {
    let mut out = Vec::new();
    for row in 0..size {
        for index in 0..size {
            let value = set.iter().find(|&&(r, i, _)| (r, i) == (row, index)).map_or(0, |&(_, _, v)| v);
            push_coefficient(value, &mut out);
        }
    }
    out
}

#[test]
fn half_scale_follows_opentpw_row_and_alpha_column_passes() {
    // Worked by hand from OpenTPW's TextureFile.Decode.cs, not by this decoder. 8x8, half
    // scale, all scales 0, so every step is π/6 = k. Taps h0..h3 = (1+√3, 3+√3, 3−√3, 1−√3)/4√2
    // = 0.48296, 0.83652, 0.22414, −0.12941.
    //
    // Y: row 0 holds 500 at coefficient 0. Half-scale row step i reads coefficients i/2 and
    // i/2+1 (s1, w1) and those of step i−1, wrapping to 7 (s0, w0), and writes
    // s0·h2 + w0·h1 + s1·h0 + w1·h3 to sample i, so row 0 becomes 500k·(h0, h0+h2, h2, 0, …)
    // (step 0 reads s0 at 7/2 = 3: zero). A full-scale reading of the same row, pair (500, 0),
    // gives 500k·(h0, h1, h2, h3, 0, …) instead. The column pass (smooth row 0, all else zero)
    // multiplies that row by (h0, h1, h2, h3) down rows 0..3. Cb = Cr = 0, so R = G = B = Y,
    // truncated: row 0: 61.07 89.41 28.34; row 1: 105.77 154.86 49.09; row 2: 28.34 41.49
    // 13.15; row 3 negative (0).
    //
    // A: the same row 0, plus 100 at row 4 coefficient 0 and 500 at row 7 coefficient 3.
    // Half-scale alpha's column pass reads its detail rows from offset 64, past the plane:
    // all zero but sample 64, where the last row step of row 7 wrote its second output,
    // s0·h3 − w0·h0 + s1·h1 − w1·h2 with s0 = s1 = 500 (coefficient 7/2 = 3 for both steps 6
    // and 7): 500k·(h1+h3) = 185.12. So row 4 is never read, and column 0 gains
    // 185.12·(h3, −h2, h1, −h0) down rows 0..3: 61.07 − 23.96 = 37.11, 105.77 − 41.49 = 64.28,
    // 28.34 + 154.86 = 183.20, negative (0).
    let mut colour = sparse_plane(8, &[(0, 0, 500)]);
    colour.extend(sparse_plane(4, &[]));
    colour.extend(sparse_plane(4, &[]));
    let alpha = sparse_plane(8, &[(0, 0, 500), (4, 0, 100), (7, 3, 500)]);
    let h = WctHeader { flags: FLAG_COMPRESSED, alpha_byte: 1, bit_depth: 32, ..header(8, 8) };
    let image = decode(&file(h, &encode_bilz(&colour), &encode_bilz(&alpha))).unwrap();
    let luma: [[u8; 8]; 4] =
        [[61, 89, 28, 0, 0, 0, 0, 0], [105, 154, 49, 0, 0, 0, 0, 0], [28, 41, 13, 0, 0, 0, 0, 0], [0; 8]];
    let alpha: [[u8; 8]; 4] =
        [[37, 89, 28, 0, 0, 0, 0, 0], [64, 154, 49, 0, 0, 0, 0, 0], [183, 41, 13, 0, 0, 0, 0, 0], [0; 8]];
    for (i, px) in image.rgba.chunks_exact(4).enumerate() {
        let (row, col) = (i / 8, i % 8);
        let y = luma.get(row).map_or(0, |r| r[col]);
        let a = alpha.get(row).map_or(0, |r| r[col]);
        assert_eq!(px, [y, y, y, a], "pixel ({col}, {row})");
    }
}

#[test]
fn half_scale_without_alpha_leaves_alpha_opaque() {
    // The colour part of the fixture above, no alpha chunk: the same luma, alpha 255.
    let mut colour = sparse_plane(8, &[(0, 0, 500)]);
    colour.extend(sparse_plane(4, &[]));
    colour.extend(sparse_plane(4, &[]));
    let h = WctHeader { flags: FLAG_COMPRESSED, ..header(3, 2) };
    let image = decode(&file(h, &encode_lzss(&colour), &[])).unwrap();
    let expected: Vec<u8> = [61, 89, 28, 105, 154, 49].iter().flat_map(|&y| [y, y, y, 255]).collect();
    assert_eq!(image.rgba, expected);
}

#[test]
fn output_is_truncated_not_rounded() {
    // Y coefficient 201 at step 1: Y = 100.5; Cr 50. R = 100.5 + 1.402·50 = 170.6,
    // G = 100.5 − 0.714136·50 = 64.79, B = 100.5: OpenTPW's byte cast gives 170, 64, 100.
    let mut colour = flat_plane(8, 201);
    colour.extend(flat_plane(4, 0));
    colour.extend(flat_plane(4, 100));
    all_pixels(&decode(&file(header(8, 8), &encode_bilz(&colour), &[])).unwrap(), [170, 64, 100, 255]);
}

#[test]
fn lzss_coded_chunk() {
    let mut colour = flat_plane(32, 161);
    colour.extend(flat_plane(16, -40));
    colour.extend(flat_plane(16, 0));
    // Y 80.5, Cb −20: R 80.5, G 80.5 + 0.344136·20 = 87.38, B 80.5 − 1.772·20 = 45.06, each
    // truncated.
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

/// A picture with no detail finer than half-scale rows can hold: smooth gradients, and alpha
/// that varies across only (half-scale alpha keeps no column detail at all).
fn smooth_picture(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
            let wave = |phase: f32| (100.0 + 60.0 * (std::f32::consts::TAU * (fx + phase)).sin() * fy) as u8;
            let alpha = (100.0 + 60.0 * (std::f32::consts::TAU * (fx + 0.6)).sin()) as u8;
            out.extend_from_slice(&[wave(0.0), wave(0.3), (40.0 + 150.0 * fy) as u8, alpha]);
        }
    }
    out
}

#[test]
fn half_scale_encoder_agrees_with_the_half_scale_decoder() {
    // Half-scale rows hold size/2 + 1 coefficients and half-scale alpha no column detail, so
    // only smooth pictures come back closely; the checker picture loses its edges.
    for (w, h, options) in [
        (64, 64, WctOptions { full_scale: false, ..Default::default() }),
        (64, 32, WctOptions { full_scale: false, alpha: true, coding: ChunkCoding::Lzss, ..Default::default() }),
    ] {
        let picture = smooth_picture(w, h);
        let image = decode(&encode(&picture, w, h, options)).unwrap();
        assert_eq!((image.width, image.height, image.has_alpha), (w, h, options.alpha));
        let opaque = |p: &[u8]| -> Vec<u8> {
            p.iter().enumerate().map(|(i, &v)| if i % 4 == 3 && !options.alpha { 255 } else { v }).collect()
        };
        let mean = mean_error(&image.rgba, &opaque(&picture));
        let (colour, alpha) = (max_error(&image.rgba, &picture, 0..3), max_error(&image.rgba, &opaque(&picture), 3..4));
        assert!(mean < 1.5, "{w}x{h} {options:?}: mean error {mean}");
        assert!(colour <= 8 && alpha <= 8, "{w}x{h} {options:?}: max error {colour}, alpha {alpha}");
        let checker = test_picture(w, h);
        let rough = mean_error(&decode(&encode(&checker, w, h, options)).unwrap().rgba, &opaque(&checker));
        assert!(rough < 8.0, "{w}x{h} checker: mean error {rough}");
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

#[test]
fn lzss_chunks_decode_whatever_flag_bit_four_says() {
    // OpenTPW takes every chunk that is not BILZ for LZSS. The half-scale fixture's colour,
    // LZSS-coded, with bit 4 clear: still LZSS, with a warning. Exact raw coefficients with
    // the bit clear stay raw (one_by_one_grey_pads_to_eight).
    let mut colour = sparse_plane(8, &[(0, 0, 500)]);
    colour.extend(sparse_plane(4, &[]));
    colour.extend(sparse_plane(4, &[]));
    let h = WctHeader { flags: 0, ..header(3, 2) };
    let image = decode(&file(h, &encode_lzss(&colour), &[])).unwrap();
    assert_eq!(image.colour_coding, ChunkCoding::Lzss);
    assert!(image.warnings.iter().any(|w| w.contains("LZSS")), "{:?}", image.warnings);
    let expected: Vec<u8> = [61, 89, 28, 105, 154, 49].iter().flat_map(|&y| [y, y, y, 255]).collect();
    assert_eq!(image.rgba, expected);
}
