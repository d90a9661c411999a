//! The vectorised kernel behind pooling with indices (`max_pool{1,2,3}d_with_indices`,
//! `adaptive_max_pool{1,2,3}d`) and adaptive 1-/3-D average pooling: for each output
//! row `(od, oh)` of a plane,
//!
//! 1. the window's input rows `(d, h)` (row-major window order) are reduced column by
//!    column, whole vectors across the contiguous row: a sum, or an arg-max keeping per
//!    column the value and the ordinal of its row ([`Simd::argmax_step`]: first maximum,
//!    last NaN);
//! 2. each output reduces its window's columns of that row, in scalar code (the taps of
//!    a window, or an adaptive band, are a short run per output).
//!
//! Reducing rows first changes the order in which the window is visited, so step 2
//! breaks ties by the row ordinal: among equal maxima the smallest row, then the
//! leftmost column (row-major first); among NaNs the largest row, then the rightmost
//! (row-major last) — PyTorch's rule exactly. Tasks take runs of `(n, c)` planes'
//! output depths. AVX-512 and AVX2 for `f32` (picked at run time through the crate's ISA
//! level), portable for `f32` without them (and under Miri) and for `f64`;
//! `f16`/`bf16` go through `f32`.

use super::conv_block::Level;
use super::pool_global_arg::plane_argmax;
use super::pool_nd::Taps;
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, cast_vec, from_f32, par_tasks, to_f32};
use crate::element::{Float, Num};
use crate::iter::SendPtr;
use num_traits::{Float as _, ToPrimitive, Zero};
use std::mem::MaybeUninit;

/// The reduction of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Maximum and its index.
    Arg,
    /// Mean, divided by the override if given, else by the window's count.
    Avg(Option<usize>),
}

/// Row ordinals ride in the value lanes as floats: exact below 2^24 in `f32`.
const F32_EXACT: usize = 1 << 24;

/// The maximum of every window (or band) and its flat position `(d·H + h)·W + w` in
/// the input plane: the first maximum in window order; a NaN replaces the maximum, so
/// the last NaN wins (PyTorch).
pub(crate) fn max_with_indices<T: Float>(x: &[T], planes: usize, t: &Taps) -> (Vec<T>, Vec<i64>) {
    // One window covering the whole plane (a global pool): a flat arg-max per plane.
    if t.out() == [1, 1, 1]
        && (0..3).all(|a| t.taps[a][0].len() == t.input[a])
        && t.input[0] * t.input[1] * t.input[2] > 0
    {
        return plane_argmax(x, planes, t.input.iter().product(), Level::detect());
    }
    if let Some(x32) = cast_slice::<T, f32>(x)
        && t.max_rows() < F32_EXACT
    {
        let (v, i) = f32_at(Level::detect(), x32, planes, t, Mode::Arg);
        return (cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32")), i);
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        // SAFETY: plain Rust.
        let (v, i) = run(x64, planes, t, Mode::Arg, |a| unsafe { slice::<Scalar<f64>>(a) });
        return (cast_vec(v).unwrap_or_else(|_| unreachable!("T is f64")), i);
    }
    // f16/bf16 through f32, and f32 windows of 2^24 rows or more through f64 (exact).
    let x64: Vec<f64> = x.iter().map(|&v| Float::to_f64(v)).collect();
    let (v, i) = max_with_indices(&x64, planes, t);
    (v.into_iter().map(<T as Num>::from_f64).collect(), i)
}

/// The mean of every window (or band): its sum divided by `divisor` if given, else by
/// the window's count. `f16`/`bf16` sum in `f32`.
pub(crate) fn average<T: Float>(x: &[T], planes: usize, t: &Taps, divisor: Option<usize>) -> Vec<T> {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        let (v, _) = f32_at(Level::detect(), x32, planes, t, Mode::Avg(divisor));
        return cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32"));
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        // SAFETY: plain Rust.
        let (v, _) = run(x64, planes, t, Mode::Avg(divisor), |a| unsafe {
            slice::<Scalar<f64>>(a)
        });
        return cast_vec(v).unwrap_or_else(|_| unreachable!("T is f64"));
    }
    from_f32(&average(&to_f32(x), planes, t, divisor))
}

/// The `f32` kernel on `level` (the tests run every level the CPU has).
fn f32_at(level: Level, x: &[f32], planes: usize, t: &Taps, m: Mode) -> (Vec<f32>, Vec<i64>) {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the AVX-512 level was detected (or checked by the caller).
        Level::Avx512 => run(x, planes, t, m, |a| unsafe { x86::slice512(a) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 and FMA were detected (or checked by the caller).
        Level::Avx2 => run(x, planes, t, m, |a| unsafe { x86::slice256(a) }),
        // SAFETY: plain Rust.
        Level::Portable => run(x, planes, t, m, |a| unsafe { slice::<Scalar<f32>>(a) }),
    }
}

/// One task's work: output depth `od` of one plane.
struct SliceArgs<'a, E> {
    x: &'a [E],
    t: &'a Taps,
    m: Mode,
    od: usize,
    out: &'a mut [MaybeUninit<E>],
    /// `OH·OW` indices for [`Mode::Arg`], else empty.
    idx: &'a mut [MaybeUninit<i64>],
    sc: &'a mut Scratch<E>,
}

/// Per-task buffers: one row of column results and the window's rows.
struct Scratch<E> {
    val: Vec<E>,
    tag: Vec<E>,
    rows: Vec<usize>,
}

fn run<E: Float>(x: &[E], planes: usize, t: &Taps, m: Mode, f: impl Fn(SliceArgs<'_, E>) + Sync) -> (Vec<E>, Vec<i64>) {
    let [_, h, w] = t.input;
    let [od_n, oh, ow] = t.out();
    let (in_plane, slice_len) = (t.input.iter().product::<usize>(), oh * ow);
    let len = planes * od_n * slice_len;
    let mut out = crate::memory::alloc::uninit_vec::<E>(len);
    let mut idx = crate::memory::alloc::uninit_vec::<i64>(if m == Mode::Arg { len } else { 0 });
    if len > 0 {
        assert!(
            x.len() >= planes * in_plane && t.input[0] * h * w == in_plane,
            "pool: planes outside the input"
        );
        let (optr, iptr) = (SendPtr(out.as_mut_ptr()), SendPtr(idx.as_mut_ptr()));
        let ilen = if m == Mode::Arg { slice_len } else { 0 };
        // Slack for a whole vector past the row's last column.
        let padded = w + 16;
        // Runs of whole slices, at least 16K input elements per task where there is
        // enough work for 4 tasks per thread (a 7×7 plane alone is far too little work
        // for a task from a shared counter; a shape rule, not a CPU one).
        let slices = planes * od_n;
        let per = ((1 << 14) / in_plane.max(1))
            .min(slices.div_ceil(4 * crate::threads::num_threads()))
            .max(1);
        par_tasks(
            slices.div_ceil(per),
            || Scratch {
                val: vec![E::zero(); padded],
                tag: vec![E::zero(); padded],
                rows: Vec::new(),
            },
            |sc, run| {
                for task in run * per..((run + 1) * per).min(slices) {
                    let (pl, d) = (task / od_n, task % od_n);
                    // SAFETY: output slice `task` (plane pl, depth d) of `out` and of
                    // `idx` (`ilen` = 0 when there are no indices), written only by this
                    // task.
                    let (o, i) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(optr.get().add(task * slice_len), slice_len),
                            std::slice::from_raw_parts_mut(iptr.get().add(task * ilen), ilen),
                        )
                    };
                    f(SliceArgs {
                        x: &x[pl * in_plane..][..in_plane],
                        t,
                        m,
                        od: d,
                        out: o,
                        idx: i,
                        sc,
                    });
                }
            },
        );
    }
    // SAFETY: every task wrote its whole `OH × OW` slice of values (and of indices in
    // `Mode::Arg`; otherwise `idx` is empty), so all elements are initialised.
    unsafe {
        (
            crate::memory::alloc::assume_init_vec(out),
            crate::memory::alloc::assume_init_vec(idx),
        )
    }
}

/// One output slice `(plane, od)`: per output row, the rows' column reduction into the
/// scratch row (vectorised), then each output's columns (scalar).
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn slice<S: Simd>(a: SliceArgs<'_, S::E>) {
    let n = S::LANES;
    let [_, h, w] = a.t.input;
    let [_, oh_n, ow_n] = a.t.out();
    let arg = a.m == Mode::Arg;
    let sc = a.sc;
    assert!(
        a.out.len() >= oh_n * ow_n
            && (!arg || a.idx.len() >= oh_n * ow_n)
            && sc.val.len() >= w.next_multiple_of(n)
            && sc.tag.len() >= w.next_multiple_of(n)
            && a.x.len() >= a.t.input[0] * h * w,
        "pool: slice outside its buffers"
    );
    let ninf = S::E::neg_infinity();
    for oh in 0..oh_n {
        sc.rows.clear();
        for &d in &a.t.taps[0][a.od] {
            sc.rows.extend(a.t.taps[1][oh].iter().map(|&r| (d * h + r) * w));
        }
        assert!(!sc.rows.is_empty(), "pool: a window without rows");
        // 1. The rows, column by column (a single row is read where it lies).
        let (vals, tags): (&[S::E], Option<&[S::E]>) = if let [r] = sc.rows[..] {
            (&a.x[r..r + w], None)
        } else {
            // SAFETY: every row offset + w lies inside the plane `x` (row < D·H), and
            // loads past column w are masked; stores stay inside `val`/`tag`, whose
            // length covers `w` rounded up to whole vectors (asserted); the features
            // are the caller's contract.
            unsafe {
                let xp = a.x.as_ptr();
                let fill = S::splat(if arg { ninf } else { S::E::zero() });
                for x0 in (0..w).step_by(n) {
                    let hi = (w - x0) as isize;
                    let ld = |r: usize| {
                        if x0 + n <= w {
                            S::load(xp.add(r + x0))
                        } else {
                            S::load_range_fill(xp.add(r + x0), 0, hi, fill)
                        }
                    };
                    let mut acc = ld(sc.rows[0]);
                    if arg {
                        let mut tag = S::splat(S::E::zero());
                        for (i, &r) in sc.rows.iter().enumerate().skip(1) {
                            (acc, tag) = S::argmax_step(acc, tag, ld(r), S::splat(<S::E as Num>::from_usize(i)));
                        }
                        S::store(sc.tag.as_mut_ptr().add(x0), tag);
                    } else {
                        for &r in &sc.rows[1..] {
                            acc = S::add(acc, ld(r));
                        }
                    }
                    S::store(sc.val.as_mut_ptr().add(x0), acc);
                }
            }
            (&sc.val[..w], if arg { Some(&sc.tag[..w]) } else { None })
        };
        // 2. Each output over its columns.
        let base = oh * ow_n;
        for (ow, cols) in a.t.taps[2].iter().enumerate() {
            if arg {
                let (mut best, mut br, mut bc) = (vals[cols[0]], 0, cols[0]);
                if let Some(tags) = tags {
                    // Several rows: the column stage sees each column's winner, whose
                    // comparisons branch well (measured: the branch-free form of this
                    // rule was 1.3× slower on the 3×3/2 pool).
                    br = ToPrimitive::to_usize(&tags[bc]).unwrap_or(0);
                    for &c in &cols[1..] {
                        let (v, r) = (vals[c], ToPrimitive::to_usize(&tags[c]).unwrap_or(0));
                        let take = if v.is_nan() {
                            !best.is_nan() || r >= br
                        } else {
                            !best.is_nan() && (v > best || (v == best && r < br))
                        };
                        if take {
                            (best, br, bc) = (v, r, c);
                        }
                    }
                } else {
                    // One row: column order is window order; branch-free selects (on
                    // random data the comparisons are coin flips).
                    for &c in &cols[1..] {
                        let v = vals[c];
                        let take = (v > best) | v.is_nan();
                        best = if take { v } else { best };
                        bc = if take { c } else { bc };
                    }
                }
                a.out[base + ow].write(best);
                a.idx[base + ow].write((sc.rows[br] + bc) as i64);
            } else {
                let sum = cols.iter().fold(S::E::zero(), |s, &c| s + vals[c]);
                let at = (a.od * oh_n + oh) * ow_n + ow;
                let div = match a.m {
                    Mode::Avg(Some(dv)) => dv,
                    _ => a.t.count(at),
                };
                a.out[base + ow].write(sum / <S::E as Num>::from_usize(div));
            }
        }
    }
}

/// The slice kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{SliceArgs, slice};

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn slice512(a: SliceArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { slice::<Avx512>(a) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn slice256(a: SliceArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { slice::<Avx2>(a) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::pool_geom::PoolGeom;
    use super::super::pool_nd::{average_scalar, max_with_indices_scalar};
    use super::*;

    /// Windows (padding, dilation, strides, ceil-like edges) and adaptive bands.
    fn cases() -> Vec<Taps> {
        type Axes = [usize; 3];
        let geoms: &[(Axes, Axes, Axes, Axes, Axes)] = &[
            // input, kernel, stride, padding, dilation
            ([1, 5, 37], [1, 3, 3], [1, 2, 2], [0, 1, 1], [1, 1, 1]),
            ([3, 4, 19], [2, 3, 2], [1, 1, 3], [1, 1, 0], [1, 2, 1]),
            ([1, 1, 23], [1, 1, 4], [1, 1, 3], [0, 0, 2], [1, 1, 2]),
        ];
        let mut t: Vec<Taps> = geoms
            .iter()
            .flat_map(|&(input, k, s, p, d)| {
                let out = std::array::from_fn(|a| (input[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) / s[a] + 1);
                let g = PoolGeom::<3> { input, out, k, s, p, d };
                [Taps::window(&g, true), Taps::window(&g, false)]
            })
            .collect();
        t.push(Taps::adaptive([3, 5, 21], [2, 3, 4]));
        t.push(Taps::adaptive([1, 7, 17], [1, 3, 5]));
        t
    }

    /// Values with ties (few distinct values), −∞, and NaN in several rows of a window.
    fn data(n: usize, nan: bool) -> Vec<f64> {
        (0..n)
            .map(|i| match i * 37 % 53 {
                0 if nan => f64::NAN,
                1 => f64::NEG_INFINITY,
                v => (v % 7) as f64 - 3.0,
            })
            .collect()
    }

    #[test]
    fn rows_then_columns_equal_the_window_kernel() {
        let levels = Level::tested();
        let planes = 2;
        for t in cases() {
            let n = planes * t.input.iter().product::<usize>();
            for nan in [false, true] {
                let x = data(n, nan);
                let (wv, wi) = max_with_indices_scalar(&x, planes, &t);
                let (gv, gi) = max_with_indices(&x, planes, &t);
                assert_eq!(format!("{gv:?} {gi:?}"), format!("{wv:?} {wi:?}"), "f64 {:?}", t.input);
                let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                let w32: Vec<f32> = wv.iter().map(|&v| v as f32).collect();
                for &l in &levels {
                    let (gv, gi) = f32_at(l, &x32, planes, &t, Mode::Arg);
                    assert_eq!(
                        format!("{gv:?} {gi:?}"),
                        format!("{w32:?} {wi:?}"),
                        "{l:?} {:?}",
                        t.input
                    );
                }
                // Averages of finite data (−∞ and NaN would make every sum agree trivially).
                let xf: Vec<f64> = x.iter().map(|&v| if v.is_finite() { v } else { 0.5 }).collect();
                let xf32: Vec<f32> = xf.iter().map(|&v| v as f32).collect();
                for divisor in [None, Some(7)] {
                    let want = average_scalar(&xf, planes, &t, divisor);
                    let got = average(&xf, planes, &t, divisor);
                    for (a, b) in got.iter().zip(&want) {
                        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "avg {a} {b}");
                    }
                    for &l in &levels {
                        let (got, _) = f32_at(l, &xf32, planes, &t, Mode::Avg(divisor));
                        for (a, b) in got.iter().zip(&want) {
                            assert!((*a as f64 - b).abs() <= 1e-5 * (1.0 + b.abs()), "avg {l:?} {a} {b}");
                        }
                    }
                }
            }
        }
    }
}
