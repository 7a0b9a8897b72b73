//! The check that every normal index in every frame is within the 162-entry table: one pass
//! over the whole frame block that keeps the highest byte at each of 64 positions, on 64-byte
//! aligned loads, with AVX2 where the CPU has it. Only a block that fails is searched frame by
//! frame, for the warnings.

use super::{FRAME_HEADER_SIZE, normals};

/// Bytes folded per step of the normal scan: four 16-byte vectors, or two 32-byte ones with AVX2.
const SCAN_WIDTH: usize = 64;

/// The first normal index past the 162-entry table.
const FIRST_BAD_NORMAL: u8 = normals::NORMALS.len() as u8;

/// Whether any frame of the frame block (`count` frames of `stride` bytes, each a 40-byte
/// header then `vertex_bytes` of packed vertices) names a normal past the table. One pass over
/// every whole frame keeps the highest byte at each of 64 positions (two sets of them, one by
/// address and one from a record boundary: [`normal_scan`]); only normal bytes reach every
/// fourth position of each set, which is checked once at the end. With AVX2 (checked at run
/// time) the same code folds 32 bytes per instruction instead of 16.
#[inline]
pub(super) fn any_normal_past_table(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if cpu_avx2::get() {
        // SAFETY: the CPU has AVX2 and the OS keeps its registers, checked just above.
        return unsafe { normal_scan_avx2(block, stride, count, vertex_bytes) };
    }
    normal_scan(block, stride, count, vertex_bytes)
}

// AVX2 asked with two CPUID instructions. `is_x86_feature_detected!` runs about nine on its first
// call, and each one traps to the hypervisor on a virtual machine (7 µs apiece on the one measured),
// so that first call took 60 µs, three times hunter's whole decode, in every `mdview` process
// that opened a Quake II model.
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpu_avx2, "avx2");

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn normal_scan_avx2(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    normal_scan(block, stride, count, vertex_bytes)
}

#[inline(always)]
fn normal_scan(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    // The records of every frame sit at the same place within 4 bytes only when the stride is
    // a multiple of 4, as in every known file. Otherwise, and for frames of a few steps each (a
    // weapon's, where the extra loads below cost more than they save), each frame is folded
    // from its own first record.
    if !stride.is_multiple_of(4) || vertex_bytes < 4 * SCAN_WIDTH {
        return unaligned_normal_scan(block, stride, count, vertex_bytes);
    }
    // Loads at addresses that are multiples of 64, as a load across a cache line costs two. A
    // frame's records are folded as the whole 64-byte blocks that start at such addresses,
    // where a byte sits in the position its address gives modulo 64, so that the normal bytes
    // of every frame share the same 16 positions; and where bytes lie before the first block or
    // after the last, as the records' first or last 64 bytes, folded apart, where the positions
    // count from a record boundary as in [`unaligned_normal_scan`].
    let mut aligned = [0u8; SCAN_WIDTH];
    let mut edges = [0u8; SCAN_WIDTH];
    // Whole frames only, as in [`unaligned_normal_scan`] and the per-frame search after it.
    for frame in block.chunks_exact(stride.max(1)).take(count) {
        let Some(records) = frame_records(frame, vertex_bytes) else { continue };
        // At least 256 bytes (checked above), so both are there.
        let (Some(first), Some(last)) = (records.first_chunk::<SCAN_WIDTH>(), records.last_chunk::<SCAN_WIDTH>())
        else {
            continue;
        };
        let skipped = (SCAN_WIDTH - records.as_ptr() as usize % SCAN_WIDTH) % SCAN_WIDTH;
        let (steps, left) = records.get(skipped..).unwrap_or(&[]).as_chunks::<SCAN_WIDTH>();
        if skipped > 0 {
            edges = fold_scan_step(edges, first);
        }
        if !left.is_empty() {
            edges = fold_scan_step(edges, last);
        }
        // Two steps per turn, for fewer loop instructions per byte.
        let (pairs, rest) = steps.as_chunks::<2>();
        aligned = pairs.iter().fold(aligned, |highest, [one, two]| fold_scan_step(fold_scan_step(highest, one), two));
        if let Some(step) = rest.first() {
            aligned = fold_scan_step(aligned, step);
        }
    }
    // Opaque to the optimiser: knowing that only every fourth position is read below, it would
    // otherwise gather normal bytes one at a time instead of folding whole vectors.
    let (aligned, edges) = std::hint::black_box((aligned, edges));
    // Every frame's records start 40 bytes after a multiple of the stride, itself a multiple of 4.
    let aligned_normal = (block.as_ptr() as usize).wrapping_add(FRAME_HEADER_SIZE as usize + 3) % 4;
    aligned.iter().skip(aligned_normal).step_by(4).any(|&byte| byte >= FIRST_BAD_NORMAL)
        || edges.iter().skip(3).step_by(4).any(|&byte| byte >= FIRST_BAD_NORMAL)
}

/// The highest of `highest` and `bytes`, position by position.
#[inline(always)]
fn fold_scan_step(mut highest: [u8; SCAN_WIDTH], bytes: &[u8; SCAN_WIDTH]) -> [u8; SCAN_WIDTH] {
    for (high, &byte) in highest.iter_mut().zip(bytes) {
        *high = (*high).max(byte);
    }
    highest
}

/// [`normal_scan`] for a stride that is not a multiple of 4 and for frames of under 256 bytes of
/// records: each frame folded from its own first record, so that positions 3, 7, … 63 only
/// ever see normal bytes.
#[inline(always)]
fn unaligned_normal_scan(block: &[u8], stride: usize, count: usize, vertex_bytes: usize) -> bool {
    let mut highest = [0u8; SCAN_WIDTH];
    let mut short_bad = false;
    for frame in block.chunks_exact(stride.max(1)).take(count) {
        let Some(records) = frame_records(frame, vertex_bytes) else { continue };
        let (steps, _) = records.as_chunks::<SCAN_WIDTH>();
        highest = steps.iter().fold(highest, fold_scan_step);
        // The last 64 bytes once more instead of a tail loop: they start on a record boundary
        // (the length is a multiple of 4), so their positions line up, and a maximum does not
        // mind bytes seen twice.
        match records.last_chunk::<SCAN_WIDTH>() {
            Some(last) => highest = fold_scan_step(highest, last),
            None => short_bad |= has_normal_past_table(records),
        }
    }
    // Opaque to the optimiser, as in [`normal_scan`].
    let highest = std::hint::black_box(highest);
    short_bad || highest.chunks_exact(4).any(|lanes| lanes.get(3) >= Some(&FIRST_BAD_NORMAL))
}

/// A frame's packed vertices: `vertex_bytes` after its 40-byte header.
pub(super) fn frame_records(frame: &[u8], vertex_bytes: usize) -> Option<&[u8]> {
    let header = FRAME_HEADER_SIZE as usize;
    frame.get(header..header.saturating_add(vertex_bytes))
}

/// Whether one frame's packed vertices (4-byte records, normal index in byte 3) name a normal
/// past the table; run per frame only once [`any_normal_past_table`] found one.
pub(super) fn has_normal_past_table(records: &[u8]) -> bool {
    records.chunks_exact(4).any(|record| record.get(3) >= Some(&FIRST_BAD_NORMAL))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-query AVX2 check says what the standard library's full detection says.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_check_agrees_with_the_standard_library() {
        assert_eq!(cpu_avx2::get(), std::arch::is_x86_feature_detected!("avx2"));
    }

    /// Every build of the scan sees the normal byte of every record, wherever it falls (in an
    /// aligned 64-byte block, a frame's first or last 64 bytes, or a short frame), and never a
    /// header, position or padding byte, wherever the block lies within a 64-byte line.
    #[test]
    fn the_normal_scan_reads_only_normal_bytes() {
        type Scan = fn(&[u8], usize, usize, usize) -> bool;
        let scans: [(&str, Scan); 3] = [
            // AVX2 where the CPU has it.
            ("dispatched", any_normal_past_table),
            ("baseline", normal_scan),
            ("per frame", unaligned_normal_scan),
        ];
        // Up to 63 vertices (under 256 bytes of records) take the per-frame fold; 64 and more
        // the aligned one.
        for vertices in [0usize, 1, 3, 4, 5, 15, 16, 17, 20, 33, 63, 64, 100, 393] {
            // A stride of records only; one with two padding bytes, which puts each frame's
            // records at another place within 4 bytes; and one of 24, which with 64 vertices
            // makes the stride 5 × 64, so that at offset 24 every frame's records start and end
            // on a multiple of 64 and no edge is folded.
            for padding in [0usize, 2, 24] {
                let stride = 40 + vertices * 4 + padding;
                // The block at several places within a 64-byte line, by address, as a file's
                // frames can be.
                for (frames, offset) in
                    [1usize, 3].into_iter().flat_map(|f| [0usize, 1, 2, 3, 24, 29, 62].map(|o| (f, o)))
                {
                    // Headers and padding whose bytes are all past the table, as a float's sign can be.
                    let mut buffer = vec![255u8; SCAN_WIDTH + stride * frames];
                    let shift = (offset + SCAN_WIDTH - buffer.as_ptr() as usize % SCAN_WIDTH) % SCAN_WIDTH;
                    let block_len = stride * frames;
                    for frame in buffer[shift..shift + block_len].chunks_exact_mut(stride) {
                        for (v, record) in frame[40..40 + vertices * 4].chunks_exact_mut(4).enumerate() {
                            // Position bytes are all past the table; normals are in range, one the last.
                            let normal = if v == vertices / 2 { 161 } else { (v % 7) as u8 };
                            record.copy_from_slice(&[255, 254, 162, normal]);
                        }
                    }
                    for (scan, any_bad) in scans {
                        let case =
                            format!("{scan}: {vertices} vertices, stride {stride}, {frames} frames, at {offset}");
                        let block = &buffer[shift..shift + block_len];
                        assert_eq!(block.as_ptr() as usize % SCAN_WIDTH, offset, "{case}");
                        assert!(!any_bad(block, stride, frames, vertices * 4), "{case}");
                        for at in (0..frames).flat_map(|f| (0..vertices).map(move |v| f * stride + 40 + v * 4 + 3)) {
                            let kept = buffer[shift + at];
                            for bad in [162, 255] {
                                buffer[shift + at] = bad;
                                let block = &buffer[shift..shift + block_len];
                                assert!(any_bad(block, stride, frames, vertices * 4), "{case}, byte {at}");
                                let frame = &block[at / stride * stride + 40..][..vertices * 4];
                                assert!(has_normal_past_table(frame), "{case}, byte {at}");
                            }
                            buffer[shift + at] = kept;
                        }
                    }
                }
            }
        }
    }
}
