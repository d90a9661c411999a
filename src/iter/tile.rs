//! Square tiles for transposing plans: each operand's tile is staged through an
//! L1-resident buffer in the order its memory runs.

use std::mem::MaybeUninit;

/// Side of the square tiles used for transposing plans. Each operand's tile is staged
/// through an L1-resident buffer (32×32 f32 = 4 KiB) in the order its memory runs, so a
/// transposed operand is read along its contiguous axis and every cache line is used
/// completely while it is loaded (walking it strided instead costs 3–7×, and
/// power-of-two strides make the lines of one tile collide in the same cache set).
pub(crate) const TILE: usize = 32;

/// A tile buffer, row-major with row length [`TILE`].
pub(crate) type TileBuf<T> = [MaybeUninit<T>; TILE * TILE];

#[inline(always)]
pub(crate) fn tile_buf<T>() -> TileBuf<T> {
    [const { MaybeUninit::uninit() }; TILE * TILE]
}

/// Copies the `rows`×`cols` tile whose element `(i, c)` is at `p + i·rs + c·cs` into
/// `buf[i·TILE + c]`, looping along whichever axis is contiguous in memory.
///
/// # Safety
/// Every element of the tile must be readable through `p`.
#[inline(always)]
pub(crate) unsafe fn stage<T: Copy>(p: *const T, rs: isize, cs: isize, rows: usize, cols: usize, buf: &mut TileBuf<T>) {
    // A full tile of a transposed operand: whole-line loads and in-register transposes
    // (the scalar column loop below costs most of a transposed binary operation).
    // SAFETY: the tile is readable (caller).
    if rs == 1 && rows == TILE && cols == TILE && unsafe { super::transpose::stage_tile(p, cs, buf) } {
        return;
    }
    // SAFETY: guaranteed by the caller; buffer indices are below TILE².
    unsafe {
        if cs.unsigned_abs() <= rs.unsigned_abs() {
            for i in 0..rows {
                let row = p.offset(i as isize * rs);
                for (c, b) in buf[i * TILE..i * TILE + cols].iter_mut().enumerate() {
                    b.write(*row.offset(c as isize * cs));
                }
            }
        } else {
            for c in 0..cols {
                let col = p.offset(c as isize * cs);
                for i in 0..rows {
                    buf[i * TILE + c].write(*col.offset(i as isize * rs));
                }
            }
        }
    }
}

/// Writes a staged tile back (the inverse of [`stage`]).
///
/// # Safety
/// Every element of the tile must be writable through `p` by this caller alone, and
/// the first `cols` entries of the first `rows` buffer rows initialised.
#[inline(always)]
pub(crate) unsafe fn unstage<T: Copy>(p: *mut T, rs: isize, cs: isize, rows: usize, cols: usize, buf: &TileBuf<T>) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if cs.unsigned_abs() <= rs.unsigned_abs() {
            for i in 0..rows {
                let row = p.offset(i as isize * rs);
                for c in 0..cols {
                    *row.offset(c as isize * cs) = buf[i * TILE + c].assume_init();
                }
            }
        } else {
            for c in 0..cols {
                let col = p.offset(c as isize * cs);
                for i in 0..rows {
                    *col.offset(i as isize * rs) = buf[i * TILE + c].assume_init();
                }
            }
        }
    }
}

/// Row `i` (first `cols` entries) of a staged tile.
///
/// # Safety
/// Those entries must be initialised.
#[inline(always)]
pub(crate) unsafe fn tile_row<T>(buf: &TileBuf<T>, i: usize, cols: usize) -> &[T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the entries are initialised (caller).
    unsafe { std::slice::from_raw_parts(buf.as_ptr().add(i * TILE) as *const T, cols) }
}

/// Mutable row `i` of a staged tile.
///
/// # Safety
/// As [`tile_row`].
#[inline(always)]
pub(crate) unsafe fn tile_row_mut<T>(buf: &mut TileBuf<T>, i: usize, cols: usize) -> &mut [T] {
    // SAFETY: as `tile_row`.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().add(i * TILE) as *mut T, cols) }
}
