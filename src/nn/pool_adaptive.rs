//! Adaptive and global average pooling. Per `(n, c)` plane (in parallel) and output
//! row: the rows of the output row's band are summed into one row (whole vectors), then
//! each output cell sums its columns of that row and divides by its cell's size.

use super::conv_block::Level;
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, cast_vec, contiguous, dims, from_f32, owned_dim, par_tasks, to_f32};
use crate::element::{Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::Dimension;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use num_traits::Zero;

/// Adaptive average pooling (PyTorch's `adaptive_avg_pool2d`): output cell `(i, j)`
/// averages input rows `floor(i·H/OH) .. ceil((i+1)·H/OH)` and the columns likewise.
/// The result has the input's rank type. `Err` for a non-4-D input or an empty input
/// plane with a nonempty output.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec((1..=9).map(|v| v as f32).collect(), [1, 1, 3, 3])?;
/// let y = ferrotensor::nn::adaptive_avg_pool2d(&x, [2, 2])?;
/// assert_eq!(y.to_vec(), vec![3.0, 4.0, 6.0, 7.0]);
/// let g = ferrotensor::nn::adaptive_avg_pool2d(&x, [1, 1])?;
/// assert_eq!(g.to_vec(), vec![5.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn adaptive_avg_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    output_size: [usize; 2],
) -> Result<Tensor<T, D>> {
    adaptive("adaptive_avg_pool2d", x, output_size)
}

/// Global average pooling: the mean of every `(n, c)` plane, as `(N, C, 1, 1)` of the
/// input's rank type (ONNX's `GlobalAveragePool`; [`adaptive_avg_pool2d`] with output
/// size `[1, 1]`). `Err` for a non-4-D input or an empty plane.
///
/// ```
/// use ferrotensor::prelude::*;
/// let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 6.0], [1, 2, 1, 2])?;
/// let y = ferrotensor::nn::global_avg_pool2d(&x)?;
/// assert_eq!(y.shape(), &[1, 2, 1, 1]);
/// assert_eq!(y.to_vec(), vec![1.5, 4.5]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn global_avg_pool2d<T: Float, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Result<Tensor<T, D>> {
    adaptive("global_avg_pool2d", x, [1, 1])
}

fn adaptive<T: Float, S: Storage<Elem = T>, D: Dimension>(
    op: &'static str,
    x: &TensorBase<S, D>,
    output_size: [usize; 2],
) -> Result<Tensor<T, D>> {
    let [n, c, h, w] = dims::<4>(x.shape(), op, "input (N, C, H, W)")?;
    let [oh, ow] = output_size;
    if (h == 0 || w == 0) && oh * ow > 0 {
        return Err(Error::shape(
            op,
            format!(
                "empty input plane {} for output size {output_size:?}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let data = contiguous(x);
    if oh == 1 && ow == 1 {
        return Ok(owned_dim(global_planes(&data, n * c, h * w), &[n, c, 1, 1]));
    }
    let g = Bands::new(h, w, oh, ow);
    let out: Vec<T> = if let Some(x32) = cast_slice::<T, f32>(&data) {
        cast_vec(adaptive_f32(x32, n * c, &g)).unwrap_or_else(|_| unreachable!("T is f32"))
    } else if let Some(x64) = cast_slice::<T, f64>(&data) {
        // SAFETY: plain Rust.
        let out = run(x64, n * c, &g, |x, g, o, r| unsafe { plane::<Scalar<f64>>(x, g, o, r) });
        cast_vec(out).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        from_f32(&adaptive_f32(&to_f32(&data), n * c, &g))
    };
    Ok(owned_dim(out, &[n, c, oh, ow]))
}

/// The mean of each of `planes` contiguous planes of `hw` elements (also the 1-D and
/// 3-D global averages).
pub(crate) fn global_planes<T: Float>(x: &[T], planes: usize, hw: usize) -> Vec<T> {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        return cast_vec(global_f32(x32, planes, hw)).unwrap_or_else(|_| unreachable!("T is f32"));
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        // SAFETY: plain Rust.
        let out = run_global(x64, planes, hw, |x, o| unsafe { means::<Scalar<f64>>(x, hw, o) });
        return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f64"));
    }
    from_f32(&global_f32(&to_f32(x), planes, hw))
}

fn global_f32(x: &[f32], planes: usize, hw: usize) -> Vec<f32> {
    match Level::detect() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512F was detected.
        Level::Avx512 => run_global(x, planes, hw, |x, o| unsafe { x86::means512(x, hw, o) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 and FMA were detected.
        Level::Avx2 => run_global(x, planes, hw, |x, o| unsafe { x86::means256(x, hw, o) }),
        // SAFETY: plain Rust.
        Level::Portable => run_global(x, planes, hw, |x, o| unsafe { means::<Scalar<f32>>(x, hw, o) }),
    }
}

/// Runs `f` on runs of whole planes in parallel: at least 16K input elements per task
/// (one 7×7 plane is far too little work to be worth taking a task from a shared
/// counter), at most four tasks per thread.
fn run_global<E: Float>(x: &[E], planes: usize, hw: usize, f: impl Fn(&[E], &mut [E]) + Sync) -> Vec<E> {
    let mut out = vec![E::zero(); planes];
    if planes == 0 || hw == 0 {
        return out;
    }
    let tasks = (planes * hw / (1 << 14)).clamp(1, 4 * crate::threads::num_threads());
    let per = planes.div_ceil(tasks);
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        planes.div_ceil(per),
        || (),
        |_, t| {
            let (p0, p1) = (t * per, ((t + 1) * per).min(planes));
            // SAFETY: planes p0..p1 of `out`, written only by this task.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(p0), p1 - p0) };
            f(&x[p0 * hw..p1 * hw], o);
        },
    );
    out
}

/// `out[p]` = the mean of plane `p` of `x` (`out.len()` planes of `hw` contiguous
/// elements): whole vectors summed in four accumulators, the tail masked, then across
/// the lanes. NaN propagates through the sums.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn means<S: Simd>(x: &[S::E], hw: usize, out: &mut [S::E]) {
    let n = S::LANES;
    assert!(x.len() >= out.len() * hw, "global_avg_pool2d: planes outside the input");
    let div = S::E::from_usize(hw);
    for (pl, o) in out.iter_mut().enumerate() {
        // SAFETY: the loads read elements k < hw of plane pl (the last one masked to
        // them), inside `x` as asserted; the features are the caller's contract.
        unsafe {
            let p = x.as_ptr().add(pl * hw);
            let z = S::splat(S::E::zero());
            let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
            let mut k = 0;
            // Four chains for the large planes (3-D global averages read ~50K elements
            // per plane), so no add waits on the one before it.
            while k + 4 * n <= hw {
                a0 = S::add(a0, S::load(p.add(k)));
                a1 = S::add(a1, S::load(p.add(k + n)));
                a2 = S::add(a2, S::load(p.add(k + 2 * n)));
                a3 = S::add(a3, S::load(p.add(k + 3 * n)));
                k += 4 * n;
            }
            while k + n <= hw {
                a0 = S::add(a0, S::load(p.add(k)));
                k += n;
            }
            if k < hw {
                a1 = S::add(a1, S::load_range(p.add(k), 0, (hw - k) as isize));
            }
            *o = S::sum_lanes(S::add(S::add(a0, a2), S::add(a1, a3))) / div;
        }
    }
}

/// The input bands of every output row and column.
pub(crate) struct Bands {
    h: usize,
    w: usize,
    rows: Vec<(usize, usize)>,
    cols: Vec<(usize, usize)>,
}

impl Bands {
    fn new(h: usize, w: usize, oh: usize, ow: usize) -> Self {
        let band = |o: usize, len: usize| -> Vec<(usize, usize)> {
            (0..o).map(|i| (i * len / o, ((i + 1) * len).div_ceil(o))).collect()
        };
        Bands {
            h,
            w,
            rows: band(oh, h),
            cols: band(ow, w),
        }
    }
}

fn adaptive_f32(x: &[f32], planes: usize, g: &Bands) -> Vec<f32> {
    match Level::detect() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512F was detected.
        Level::Avx512 => run(x, planes, g, |x, g, o, r| unsafe { x86::plane512(x, g, o, r) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 and FMA were detected.
        Level::Avx2 => run(x, planes, g, |x, g, o, r| unsafe { x86::plane256(x, g, o, r) }),
        // SAFETY: plain Rust.
        Level::Portable => run(x, planes, g, |x, g, o, r| unsafe { plane::<Scalar<f32>>(x, g, o, r) }),
    }
}

fn run<E: Float>(x: &[E], planes: usize, g: &Bands, f: impl Fn(&[E], &Bands, &mut [E], &mut [E]) + Sync) -> Vec<E> {
    let (hw, ohw) = (g.h * g.w, g.rows.len() * g.cols.len());
    let mut out = vec![E::zero(); planes * ohw];
    if out.is_empty() {
        return out;
    }
    let optr = SendPtr(out.as_mut_ptr());
    par_tasks(
        planes,
        || vec![E::zero(); g.w + 16],
        |row, pl| {
            // SAFETY: plane `pl` of `out`, written only by this task.
            let o = unsafe { std::slice::from_raw_parts_mut(optr.get().add(pl * ohw), ohw) };
            f(&x[pl * hw..][..hw], g, o, row);
        },
    );
    out
}

/// One plane: `x` `H × W` into `out` `OH × OW`, with `row` a scratch row of `W` elements
/// plus a vector of slack.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn plane<S: Simd>(x: &[S::E], g: &Bands, out: &mut [S::E], row: &mut [S::E]) {
    let (n, w) = (S::LANES, g.w);
    assert!(
        x.len() >= g.h * w && out.len() >= g.rows.len() * g.cols.len() && row.len() >= w + n,
        "adaptive_avg_pool2d: plane outside its buffers"
    );
    let ow = g.cols.len();
    for (i, &(r0, r1)) in g.rows.iter().enumerate() {
        // SAFETY: the loads read lanes inside rows r0..r1 < H of `x` and the row buffer
        // (a vector of slack); the stores write the first W elements of `row`; the
        // features are the caller's contract.
        unsafe {
            let rp = row.as_mut_ptr();
            for x0 in (0..w).step_by(n) {
                let mut acc = S::splat(S::E::zero());
                for r in r0..r1 {
                    acc = S::add(acc, S::load_range(x.as_ptr().add(r * w + x0), 0, (w - x0) as isize));
                }
                S::store_first(rp.add(x0), acc, n.min(w - x0));
            }
        }
        for (j, &(c0, c1)) in g.cols.iter().enumerate() {
            let sum = row[c0..c1].iter().fold(S::E::zero(), |a, &v| a + v);
            out[i * ow + j] = sum / S::E::from_usize((r1 - r0) * (c1 - c0));
        }
    }
}

/// The plane kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{Bands, means, plane};

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn means512(x: &[f32], hw: usize, out: &mut [f32]) {
        // SAFETY: the features are enabled here.
        unsafe { means::<Avx512>(x, hw, out) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn means256(x: &[f32], hw: usize, out: &mut [f32]) {
        // SAFETY: the features are enabled here.
        unsafe { means::<Avx2>(x, hw, out) }
    }

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn plane512(x: &[f32], g: &Bands, out: &mut [f32], row: &mut [f32]) {
        // SAFETY: the features are enabled here.
        unsafe { plane::<Avx512>(x, g, out, row) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn plane256(x: &[f32], g: &Bands, out: &mut [f32], row: &mut [f32]) {
        // SAFETY: the features are enabled here.
        unsafe { plane::<Avx2>(x, g, out, row) }
    }
}
