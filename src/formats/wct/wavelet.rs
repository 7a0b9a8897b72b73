//! The periodic Daubechies-4 wavelet WCT images are coded with, decoded as OpenTPW's
//! `TextureFile` does (`TextureFile.Decode.cs`), index for index and in its float order: a
//! channel is a `size`×`size` plane undone rows first (the channel's dequantisation step
//! folded into the row taps), then columns, whose smooth half is rows `0..size/2` of the row
//! output and whose detail half follows it.
//!
//! The header's scale flag changes the row pass. Full scale reads each row as `size/2`
//! interleaved (smooth, detail) pairs. Half scale runs `size` steps, step `i` reading the
//! coefficients at `i/2` and `i/2 + 1` (and step `i−1`'s, wrapping to `size−1`) and writing
//! sample `i`: only the first `size/2 + 1` coefficients of a row count, and step `i`'s second
//! output lands on sample `i+1`, where step `i+1` overwrites it; the last row's lands one
//! past the plane. Half-scale alpha's column pass takes its detail rows from there on (offset
//! `size²`), so it reads that one sample and zeros.

/// The four D4 taps, `(1+√3, 3+√3, 3−√3, 1−√3) / 4√2`, worked out in f64 and rounded to f32
/// as OpenTPW's `D4Coefficients` does (the literal is √3 to f64 precision, what `Math.Sqrt`
/// gives).
const H: [f64; 4] = {
    const S3: f64 = 1.732_050_807_568_877_2;
    const D: f64 = 4.0 * std::f64::consts::SQRT_2;
    [(1.0 + S3) / D, (3.0 + S3) / D, (3.0 - S3) / D, (1.0 - S3) / D]
};

/// The taps scaled by a dequantisation step, each rounded to f32 before the scaling.
#[derive(Clone, Copy)]
struct Taps([f32; 4]);

impl Taps {
    fn scaled(k: f32) -> Self {
        Self(H.map(|h| h as f32 * k))
    }

    /// One inverse step, from the (smooth, detail) pairs `s0, w0` (previous) and `s1, w1`:
    /// OpenTPW's `ApplyScalingCoefficientsInv` and `ApplyWaveCoefficientsInv`, summed left to
    /// right.
    #[inline(always)]
    fn inverse(self, s0: f32, w0: f32, s1: f32, w1: f32) -> (f32, f32) {
        let [h0, h1, h2, h3] = self.0;
        (s0 * h2 + w0 * h1 + s1 * h0 + w1 * h3, s0 * h3 + w0 * -h0 + s1 * h1 + w1 * -h2)
    }
}

/// How a plane's coefficients are laid out: the header's scale flag, and whether the plane is
/// the alpha channel (whose column pass reads elsewhere in half-scale mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub half_scale: bool,
    pub alpha: bool,
}

impl Layout {
    pub const FULL: Self = Self { half_scale: false, alpha: false };

    /// Where the column pass's detail rows start in the row pass's output.
    fn detail_offset(self, size: usize) -> usize {
        if self.half_scale && self.alpha { size * size } else { size * (size / 2) }
    }
}

/// The full-scale row pass: `size/2` interleaved pairs in, `size` samples out.
fn full_scale_row(row: &[f32], out: &mut [f32], taps: Taps) {
    let half = row.len() / 2;
    let pairs = row.chunks_exact(2);
    let previous = pairs.clone().cycle().skip(half.saturating_sub(1));
    for ((pair, prev), dest) in pairs.zip(previous).zip(out.chunks_exact_mut(2)) {
        if let ([s, w], [sp, wp], [even, odd]) = (pair, prev, dest) {
            (*even, *odd) = taps.inverse(*sp, *wp, *s, *w);
        }
    }
}

/// The half-scale row pass: `size` steps, step `i` reading coefficients `i/2`, `i/2 + 1`
/// and those of step `i−1` (step `size−1` for the first). Returns the last step's second
/// output, which OpenTPW writes one past the row.
fn half_scale_row(row: &[f32], out: &mut [f32], taps: Taps) -> f32 {
    let size = row.len();
    let at = |n: usize| row.get(n).copied().unwrap_or(0.0);
    let mut spill = 0.0;
    for (i, dest) in out.iter_mut().enumerate().take(size) {
        let p = if i == 0 { size - 1 } else { i - 1 };
        let (even, odd) = taps.inverse(at(p / 2), at(p / 2 + 1), at(i / 2), at(i / 2 + 1));
        *dest = even;
        spill = odd;
    }
    spill
}

/// Undoes the transform of one plane in place. `k` scales the row pass (the dequantisation).
/// `plane.len()` must be `size * size` with `size` a power of two of at least 4.
pub fn inverse_2d(plane: &mut [f32], scratch: &mut Vec<f32>, size: usize, k: f32, layout: Layout) {
    let half = size / 2;
    let area = size * size;
    let detail_at = layout.detail_offset(size);
    // The row output, plus the zeros half-scale alpha's column pass reads past it.
    scratch.clear();
    scratch.resize(detail_at + half * size, 0.0);
    let taps = Taps::scaled(k);
    let mut spill = 0.0;
    for (row, out) in plane.chunks_exact(size).zip(scratch.chunks_exact_mut(size)) {
        if layout.half_scale {
            spill = half_scale_row(row, out, taps);
        } else {
            full_scale_row(row, out, taps);
        }
    }
    if layout.half_scale
        && let Some(past) = scratch.get_mut(area)
    {
        *past = spill;
    }
    // Columns, a whole row at a time: output rows 2j and 2j+1 come from smooth rows j−1, j
    // and detail rows j−1, j.
    let unit = Taps::scaled(1.0);
    let row_at = |start: usize| scratch.get(start..start + size);
    let mut out_rows = plane.chunks_exact_mut(size);
    for j in 0..half {
        let p = (j + half - 1) % half;
        let (Some(sp), Some(wp), Some(s), Some(w)) =
            (row_at(p * size), row_at(detail_at + p * size), row_at(j * size), row_at(detail_at + j * size))
        else {
            return;
        };
        let (Some(even), Some(odd)) = (out_rows.next(), out_rows.next()) else { return };
        let inputs = sp.iter().zip(wp.iter()).zip(s.iter().zip(w.iter()));
        for ((((sp, wp), (s, w)), e), o) in inputs.zip(even.iter_mut()).zip(odd.iter_mut()) {
            (*e, *o) = unit.inverse(*sp, *wp, *s, *w);
        }
    }
}

/// One forward step: the pair `i` from the samples `2i .. 2i+3`.
#[inline(always)]
fn forward_step(x0: f32, x1: f32, x2: f32, x3: f32) -> (f32, f32) {
    let [h0, h1, h2, h3] = H.map(|h| h as f32);
    (h0 * x0 + h1 * x1 + h2 * x2 + h3 * x3, h3 * x0 - h2 * x1 + h1 * x2 - h0 * x3)
}

/// The forward column transform: smooth rows `0..size/2`, detail rows after them.
fn forward_columns(plane: &[f32], size: usize) -> Vec<f32> {
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
    columns
}

/// The forward transform the full-scale decoder undoes: columns first, then rows, leaving
/// the layout [`inverse_2d`] reads.
pub fn forward_2d(plane: &[f32], size: usize) -> Vec<f32> {
    let columns = forward_columns(plane, size);
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

/// Coefficients for a half-scale plane (at step 1). The half-scale row pass is not a
/// wavelet inverse and keeps only `size/2 + 1` coefficients of a row, so each row is the
/// least-squares fit of the column transform's row; for alpha only the smooth rows count
/// (its column pass reads no detail), and the others stay zero so the sample written past
/// the plane is zero too.
pub fn forward_2d_half_scale(plane: &[f32], size: usize, alpha: bool) -> Vec<f32> {
    let columns = forward_columns(plane, size);
    let fit = RowFit::new(size);
    let mut out = vec![0.0f32; plane.len()];
    for (r, (row, dest)) in columns.chunks_exact(size).zip(out.chunks_exact_mut(size)).enumerate() {
        if alpha && r >= size / 2 {
            continue;
        }
        for (coefficient, weights) in dest.iter_mut().zip(&fit.pseudo_inverse) {
            *coefficient = weights.iter().zip(row).map(|(w, &t)| w * f64::from(t)).sum::<f64>() as f32;
        }
    }
    out
}

/// The least-squares inverse of the half-scale row pass: `(MᵀM)⁻¹Mᵀ`, one row of weights per
/// coefficient that pass reads, where column `m` of `M` is the pass's output for a lone
/// coefficient `m`.
struct RowFit {
    pseudo_inverse: Vec<Vec<f64>>,
}

impl RowFit {
    fn new(size: usize) -> Self {
        let used = (size / 2 + 1).min(size);
        let taps = Taps::scaled(1.0);
        let basis: Vec<Vec<f64>> = (0..used)
            .map(|m| {
                let mut unit = vec![0.0f32; size];
                if let Some(v) = unit.get_mut(m) {
                    *v = 1.0;
                }
                let mut response = vec![0.0f32; size];
                half_scale_row(&unit, &mut response, taps);
                response.into_iter().map(f64::from).collect()
            })
            .collect();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let gram: Vec<Vec<f64>> = basis.iter().map(|a| basis.iter().map(|b| dot(a, b)).collect()).collect();
        let inverse = invert(gram);
        let pseudo_inverse = inverse
            .iter()
            .map(|weights| {
                (0..size)
                    .map(|i| weights.iter().zip(&basis).map(|(w, b)| w * b.get(i).copied().unwrap_or(0.0)).sum())
                    .collect()
            })
            .collect();
        Self { pseudo_inverse }
    }
}

/// Gauss-Jordan inversion with partial pivoting; a pivot near zero is skipped (its row of the
/// inverse stays zero), so a rank-deficient system still gives a usable fit.
fn invert(mut a: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| {
                let v = |r: usize| a.get(r).and_then(|row| row.get(col)).map_or(0.0, |v: &f64| v.abs());
                v(x).total_cmp(&v(y))
            })
            .unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a.get(col).and_then(|row| row.get(col)).copied().unwrap_or(0.0);
        if p.abs() < 1e-12 {
            continue;
        }
        let (a_row, inv_row) = match (a.get(col).cloned(), inv.get(col).cloned()) {
            (Some(x), Some(y)) => {
                (x.iter().map(|v| v / p).collect::<Vec<_>>(), y.iter().map(|v| v / p).collect::<Vec<_>>())
            }
            _ => continue,
        };
        for (r, (row, irow)) in a.iter_mut().zip(inv.iter_mut()).enumerate() {
            if r == col {
                row.clone_from(&a_row);
                irow.clone_from(&inv_row);
                continue;
            }
            let factor = row.get(col).copied().unwrap_or(0.0);
            for (v, pv) in row.iter_mut().zip(&a_row) {
                *v -= factor * pv;
            }
            for (v, pv) in irow.iter_mut().zip(&inv_row) {
                *v -= factor * pv;
            }
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_are_orthonormal() {
        let sum: f64 = H.iter().sum();
        let energy: f64 = H.iter().map(|h| h * h).sum();
        assert!((sum - std::f64::consts::SQRT_2).abs() < 1e-12);
        assert!((energy - 1.0).abs() < 1e-12);
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
        inverse_2d(&mut plane, &mut Vec::new(), size, 1.0, Layout::FULL);
        assert!(plane.iter().all(|v| (v - 37.0).abs() < 1e-4), "{plane:?}");
    }

    #[test]
    fn forward_then_inverse_is_the_identity() {
        let size = 16;
        let plane: Vec<f32> = (0..size * size).map(|i| ((i * 37) % 255) as f32).collect();
        let mut coefficients = forward_2d(&plane, size);
        inverse_2d(&mut coefficients, &mut Vec::new(), size, 1.0, Layout::FULL);
        for (a, b) in plane.iter().zip(&coefficients) {
            assert!((a - b).abs() < 1e-2, "{a} vs {b}");
        }
    }

    #[test]
    fn half_scale_fit_reproduces_what_the_row_pass_can_reach() {
        // A plane made by the half-scale decoder from random coefficients is in the reach of
        // the fit, so fitting and decoding again gives it back.
        for (size, alpha) in [(8, false), (16, false), (16, true)] {
            let mut seed = 12345u32;
            let mut plane: Vec<f32> = (0..size * size)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    let keep = i % size <= size / 2 && !(alpha && i / size >= size / 2);
                    if keep { (seed >> 16) as f32 / 512.0 - 64.0 } else { 0.0 }
                })
                .collect();
            let layout = Layout { half_scale: true, alpha };
            inverse_2d(&mut plane, &mut Vec::new(), size, 1.0, layout);
            let mut again = forward_2d_half_scale(&plane, size, alpha);
            inverse_2d(&mut again, &mut Vec::new(), size, 1.0, layout);
            for (a, b) in plane.iter().zip(&again) {
                assert!((a - b).abs() < 1e-2, "size {size} alpha {alpha}: {a} vs {b}");
            }
        }
    }
}
