//! Storing a direct-convolution block: the valid positions of each block row go to the
//! output rows they belong to (see [`super::conv_phase::pieces`]); the virtual columns
//! past each row's end are dropped.

use super::conv_block::Level;
use super::conv_phase::{LANES, Piece};

/// Stores the first `rows` rows of a block (`width` positions per row): for every piece
/// and row `r`, the set lanes `l` of `block[r·width + 16·v + l]` to `dst + r·rs + off + l`.
///
/// # Safety
/// Every such destination is valid for writes and not accessed by anyone else during the
/// call; `block` holds `rows` rows; every piece's lanes lie inside its row.
pub(crate) unsafe fn scatter(
    level: Level,
    block: &[f32],
    width: usize,
    rows: usize,
    dst: *mut f32,
    rs: usize,
    pieces: &[Piece],
) {
    debug_assert!(block.len() >= rows * width);
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => {
            // SAFETY: the level's features were detected; the destinations are the
            // caller's contract.
            unsafe { x86::scatter512(block, width, rows, dst, rs, pieces) }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => {
            // SAFETY: as for AVX-512 above.
            unsafe { x86::scatter256(block, width, rows, dst, rs, pieces) }
        }
        // SAFETY: the caller's contract.
        Level::Portable => unsafe { scatter_body(block, width, rows, dst, rs, pieces) },
    }
}

/// The body of [`scatter`]: each piece is one contiguous run of lanes.
///
/// # Safety
/// As [`scatter`].
#[inline(always)]
unsafe fn scatter_body(block: &[f32], width: usize, rows: usize, dst: *mut f32, rs: usize, pieces: &[Piece]) {
    for (r, row) in block.chunks_exact(width).enumerate().take(rows) {
        for pc in pieces {
            let (l, len) = (pc.mask.trailing_zeros() as usize, pc.mask.count_ones() as usize);
            let d = dst.wrapping_add(r * rs).wrapping_offset(pc.off + l as isize);
            // SAFETY: lanes l..l + len of the piece are set (pieces are contiguous runs):
            // valid destinations of row r < rows by the caller's contract.
            unsafe { copy_run(&row[LANES * pc.v + l..][..len], d) };
        }
    }
}

/// Copies `src` (at most [`LANES`] elements) to `dst` with fixed-size moves: an
/// `N`-element copy, or two overlapping `N / 2`-element ones, ... (a variable-length
/// loop would become a `memcpy` call, which costs more than the copy).
///
/// # Safety
/// `dst..dst + src.len()` is valid for writes and does not overlap `src`.
#[inline(always)]
unsafe fn copy_run(src: &[f32], dst: *mut f32) {
    /// Copies the first and the last `N` elements (all of them when `N ≤ len ≤ 2N`).
    ///
    /// # Safety
    /// As [`copy_run`], with `N ≤ src.len()`.
    #[inline(always)]
    unsafe fn ends<const N: usize>(src: &[f32], dst: *mut f32) {
        let len = src.len();
        let (a, b): (&[f32; N], &[f32; N]) = (
            src[..N].try_into().expect("N elements"),
            src[len - N..].try_into().expect("N elements"),
        );
        // SAFETY: both ranges lie inside dst..dst + len (N ≤ len), the caller's contract.
        unsafe {
            dst.cast::<[f32; N]>().write_unaligned(*a);
            dst.add(len - N).cast::<[f32; N]>().write_unaligned(*b);
        }
    }
    let len = src.len();
    debug_assert!(len <= LANES);
    // SAFETY: (all arms) the caller's contract, and each arm's N ≤ len.
    unsafe {
        match len {
            16.. => ends::<16>(src, dst),
            8..16 => ends::<8>(src, dst),
            4..8 => ends::<4>(src, dst),
            2..4 => ends::<2>(src, dst),
            1 => ends::<1>(src, dst),
            _ => {}
        }
    }
}

/// [`scatter_body`] compiled for the x86 levels (its fixed-size moves become single
/// vector moves).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Piece, scatter_body};

    /// # Safety
    /// AVX-512F is available, and the contract of [`super::scatter`].
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn scatter512(
        block: &[f32],
        width: usize,
        rows: usize,
        dst: *mut f32,
        rs: usize,
        pieces: &[Piece],
    ) {
        // SAFETY: the caller's contract.
        unsafe { scatter_body(block, width, rows, dst, rs, pieces) }
    }

    /// # Safety
    /// AVX2 is available, and the contract of [`super::scatter`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn scatter256(
        block: &[f32],
        width: usize,
        rows: usize,
        dst: *mut f32,
        rs: usize,
        pieces: &[Piece],
    ) {
        // SAFETY: the caller's contract.
        unsafe { scatter_body(block, width, rows, dst, rs, pieces) }
    }
}
