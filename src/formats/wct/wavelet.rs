//! The periodic Daubechies-4 wavelet WCT images are coded with, in the game's layout: a
//! channel is a `size`×`size` plane whose rows hold interleaved (smooth, detail) pairs, and
//! whose first `size/2` rows are the smooth half of the column transform and the last
//! `size/2` the detail half. Decoding undoes the rows first (with the channel's dequantisation
//! scale folded into the filter), then the columns.

/// The four D4 taps, `(1+√3, 3+√3, 3−√3, 1−√3) / 4√2`.
const H: [f32; 4] = {
    const S3: f32 = 1.732_050_8;
    const D: f32 = 4.0 * std::f32::consts::SQRT_2;
    [(1.0 + S3) / D, (3.0 + S3) / D, (3.0 - S3) / D, (1.0 - S3) / D]
};

/// One inverse step: the two samples at `2i`, `2i+1` from the pairs `i−1` and `i`.
#[inline(always)]
fn inverse_step(s_prev: f32, w_prev: f32, s: f32, w: f32, k: f32) -> (f32, f32) {
    let [h0, h1, h2, h3] = H;
    let even = h2 * s_prev + h1 * w_prev + h0 * s + h3 * w;
    let odd = h3 * s_prev - h0 * w_prev + h1 * s - h2 * w;
    (even * k, odd * k)
}

/// One forward step: the pair `i` from the samples `2i .. 2i+3`.
#[inline(always)]
fn forward_step(x0: f32, x1: f32, x2: f32, x3: f32) -> (f32, f32) {
    let [h0, h1, h2, h3] = H;
    (h0 * x0 + h1 * x1 + h2 * x2 + h3 * x3, h3 * x0 - h2 * x1 + h1 * x2 - h0 * x3)
}

/// Undoes the transform of one plane in place. `k` scales the row pass (the dequantisation).
/// `plane.len()` must be `size * size` with `size` a power of two of at least 4.
pub fn inverse_2d(plane: &mut [f32], scratch: &mut Vec<f32>, size: usize, k: f32) {
    let half = size / 2;
    scratch.clear();
    scratch.resize(plane.len(), 0.0);
    // Rows: interleaved pairs in `plane`, samples out to `scratch`.
    for (row, out) in plane.chunks_exact(size).zip(scratch.chunks_exact_mut(size)) {
        let pairs = row.chunks_exact(2);
        let previous = pairs.clone().cycle().skip(half.saturating_sub(1));
        for ((pair, prev), dest) in pairs.zip(previous).zip(out.chunks_exact_mut(2)) {
            if let ([s, w], [sp, wp], [even, odd]) = (pair, prev, dest) {
                (*even, *odd) = inverse_step(*sp, *wp, *s, *w, k);
            }
        }
    }
    // Columns, a whole row at a time: output rows 2j and 2j+1 come from smooth rows j−1, j
    // and detail rows j−1, j (rows `half + …` of the scratch plane).
    let rows: Vec<&[f32]> = scratch.chunks_exact(size).collect();
    let (smooth, detail) = rows.split_at(half.min(rows.len()));
    let mut out_rows = plane.chunks_exact_mut(size);
    for j in 0..half {
        let p = (j + half - 1) % half;
        let (Some(sp), Some(wp), Some(s), Some(w)) = (smooth.get(p), detail.get(p), smooth.get(j), detail.get(j))
        else {
            return;
        };
        let (Some(even), Some(odd)) = (out_rows.next(), out_rows.next()) else { return };
        let inputs = sp.iter().zip(wp.iter()).zip(s.iter().zip(w.iter()));
        for ((((sp, wp), (s, w)), e), o) in inputs.zip(even.iter_mut()).zip(odd.iter_mut()) {
            (*e, *o) = inverse_step(*sp, *wp, *s, *w, 1.0);
        }
    }
}

/// The forward transform the decoder undoes: columns first, then rows, leaving the layout
/// [`inverse_2d`] reads.
pub fn forward_2d(plane: &[f32], size: usize) -> Vec<f32> {
    let half = size / 2;
    let mut columns = vec![0.0f32; plane.len()];
    let rows: Vec<&[f32]> = plane.chunks_exact(size).collect();
    for j in 0..half {
        let pick = |n: usize| rows.get((2 * j + n) % size).copied().unwrap_or(&[]);
        let (x0, x1, x2, x3) = (pick(0), pick(1), pick(2), pick(3));
        for c in 0..size {
            let at = |r: &[f32]| r.get(c).copied().unwrap_or(0.0);
            let (s, w) = forward_step(at(x0), at(x1), at(x2), at(x3));
            if let Some(v) = columns.get_mut(j * size + c) {
                *v = s;
            }
            if let Some(v) = columns.get_mut((j + half) * size + c) {
                *v = w;
            }
        }
    }
    let mut out = vec![0.0f32; plane.len()];
    for (row, dest) in columns.chunks_exact(size).zip(out.chunks_exact_mut(size)) {
        for (i, pair) in dest.chunks_exact_mut(2).enumerate() {
            let x = |n: usize| row.get((2 * i + n) % size).copied().unwrap_or(0.0);
            let (s, w) = forward_step(x(0), x(1), x(2), x(3));
            if let [ps, pw] = pair {
                (*ps, *pw) = (s, w);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_are_orthonormal() {
        let sum: f32 = H.iter().sum();
        let energy: f32 = H.iter().map(|h| h * h).sum();
        assert!((sum - std::f32::consts::SQRT_2).abs() < 1e-6);
        assert!((energy - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_lone_dc_coefficient_decodes_to_a_flat_plane() {
        // Hand-computed: a constant v transforms to 2v at every (smooth row, smooth column)
        // position and 0 elsewhere, since the taps sum to √2 and the detail taps to 0.
        let size = 8;
        let mut plane = vec![0.0; size * size];
        for r in 0..size / 2 {
            for i in 0..size / 2 {
                plane[r * size + 2 * i] = 2.0 * 37.0;
            }
        }
        inverse_2d(&mut plane, &mut Vec::new(), size, 1.0);
        assert!(plane.iter().all(|v| (v - 37.0).abs() < 1e-4), "{plane:?}");
    }

    #[test]
    fn forward_then_inverse_is_the_identity() {
        let size = 16;
        let plane: Vec<f32> = (0..size * size).map(|i| ((i * 37) % 255) as f32).collect();
        let mut coefficients = forward_2d(&plane, size);
        inverse_2d(&mut coefficients, &mut Vec::new(), size, 1.0);
        for (a, b) in plane.iter().zip(&coefficients) {
            assert!((a - b).abs() < 1e-2, "{a} vs {b}");
        }
    }
}
