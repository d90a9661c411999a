//! 3-D max and average pooling (without indices) as a depth reduction followed by the
//! vectorised 2-D kernel: for each `(n, c)` plane and output depth `od`, the `H × W`
//! slices of the window's in-bounds depths are reduced into one slice (whole vectors
//! over the contiguous `H·W` elements; NaN propagates through the maximum), which
//! [`super::pool_kernel::plane`] then pools over `H × W` with the window's last two
//! axes. An average is divided once, by its `H × W` count times its depth count (or by
//! a divisor override), in the 2-D kernel.
//!
//! The input is read slice by slice in memory order, each slice once: a task walks its
//! plane's depths in order and adds each slice into the open output depths whose window
//! holds it (at most `⌈span / stride⌉` at a time, in a ring of slice buffers), finishing
//! an output depth at its last tap. So the plane is one sequential stream (the hardware
//! prefetchers' best case) instead of a new start at every window's first slice, and a
//! slice shared by two windows is read from memory once. The taps are combined in
//! window order, as the window kernel does, so the results are the same bits.

use super::conv_block::Level;
use super::pool_geom::PoolGeom;
use super::pool_kernel::{Reduce, Scratch, plane};
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, cast_vec, from_f32, par_tasks, to_f32};
use crate::element::Float;
use crate::iter::SendPtr;
use num_traits::Zero;
use std::mem::MaybeUninit;
use std::ops::Range;

/// Pools `planes` row-major `D × H × W` planes of `x` with `g` and `r` (for an average,
/// `count_include_pad` counts the depth padding as PyTorch does), into `OD × OH × OW`
/// planes.
pub(crate) fn pool3d_planes<T: Float>(x: &[T], planes: usize, g: &PoolGeom<3>, r: Reduce) -> Vec<T> {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        let out = match Level::detect() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX-512F was detected.
            Level::Avx512 => run(x32, planes, g, r, |a| unsafe { x86::task512(a) }),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 and FMA were detected.
            Level::Avx2 => run(x32, planes, g, r, |a| unsafe { x86::task256(a) }),
            // SAFETY: plain Rust.
            Level::Portable => run(x32, planes, g, r, |a| unsafe { task::<Scalar<f32>>(a) }),
        };
        return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f32"));
    }
    if let Some(x64) = cast_slice::<T, f64>(x) {
        // SAFETY: plain Rust.
        let out = run(x64, planes, g, r, |a| unsafe { task::<Scalar<f64>>(a) });
        return cast_vec(out).unwrap_or_else(|_| unreachable!("T is f64"));
    }
    from_f32(&pool3d_planes(&to_f32(x), planes, g, r))
}

/// A task's buffers, kept across its thread's tasks.
pub(crate) struct State<E> {
    /// The ring of open output depths' partial slices (`H·W` each).
    bufs: Vec<Vec<E>>,
    /// Per output depth of the task: its first and last in-bounds tap and their count.
    spans: Vec<(usize, usize, usize)>,
    sc: Scratch<E>,
}

/// One task's work: output depths `ods` of one plane.
pub(crate) struct TaskArgs<'a, E> {
    /// The plane, `D × H × W`.
    x: &'a [E],
    g: &'a PoolGeom<3>,
    g2: &'a PoolGeom<2>,
    r: Reduce,
    ods: Range<usize>,
    /// Output depths `ods` of the plane, `OH × OW` each.
    out: &'a mut [MaybeUninit<E>],
    st: &'a mut State<E>,
}

/// The 2-D geometry of the last two axes.
fn last_two(g: &PoolGeom<3>) -> PoolGeom<2> {
    PoolGeom {
        input: [g.input[1], g.input[2]],
        out: [g.out[1], g.out[2]],
        k: [g.k[1], g.k[2]],
        s: [g.s[1], g.s[2]],
        p: [g.p[1], g.p[2]],
        d: [g.d[1], g.d[2]],
    }
}

/// Tasks of whole planes when there are at least four per thread, else each plane's
/// output depths split into equal runs (a shape rule: a plane is one stream of reads,
/// and splitting it re-reads the slices two runs share).
fn run<E: Float>(x: &[E], planes: usize, g: &PoolGeom<3>, r: Reduce, f: impl Fn(TaskArgs<'_, E>) + Sync) -> Vec<E> {
    let (ind, od) = (g.input[0], g.out[0]);
    let (hw, ohw) = (g.input[1] * g.input[2], g.out[1] * g.out[2]);
    let len = planes * od * ohw;
    let mut out = crate::memory::alloc::uninit_vec::<E>(len);
    if len > 0 {
        assert!(x.len() >= planes * ind * hw, "pool3d: planes outside the input");
        let g2 = last_two(g);
        let want = 4 * crate::threads::num_threads();
        let runs = if planes >= want {
            1
        } else {
            want.div_ceil(planes).min(od)
        };
        let per = od.div_ceil(runs);
        let runs = od.div_ceil(per);
        let optr = SendPtr(out.as_mut_ptr());
        par_tasks(
            planes * runs,
            || State {
                bufs: Vec::new(),
                spans: Vec::new(),
                sc: Scratch::new(&g2, 16),
            },
            |st, t| {
                let (pl, run) = (t / runs, t % runs);
                let ods = run * per..((run + 1) * per).min(od);
                // SAFETY: output depths `ods` of plane `pl` of `out`, written only by
                // this task.
                let o = unsafe {
                    std::slice::from_raw_parts_mut(optr.get().add((pl * od + ods.start) * ohw), ods.len() * ohw)
                };
                f(TaskArgs {
                    x: &x[pl * ind * hw..][..ind * hw],
                    g,
                    g2: &g2,
                    r,
                    ods,
                    out: o,
                    st,
                });
            },
        );
    }
    // SAFETY: every task wrote its output depths' whole `OH × OW` slices (each output
    // depth has at least one in-bounds tap, and is finished at its last; the 2-D plane
    // kernel writes its full output), so all `len` elements are initialised.
    unsafe { crate::memory::alloc::assume_init_vec(out) }
}

/// One task: the depths of the task's windows in order, each slice added into the open
/// output depths that hold it, each output depth pooled by the 2-D kernel at its last
/// tap (from the input slice itself when it has only one).
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn task<S: Simd>(a: TaskArgs<'_, S::E>) {
    let TaskArgs {
        x,
        g,
        g2,
        r,
        ods,
        out,
        st,
    } = a;
    let (hw, ohw) = (g.input[1] * g.input[2], g.out[1] * g.out[2]);
    let (s, p, dil) = (g.s[0], g.p[0], g.d[0]);
    let span = (g.k[0] - 1) * dil + 1;
    // At most ⌈span / s⌉ windows hold a depth: a ring one longer never reuses an open
    // output depth's buffer.
    let ring = span.div_ceil(s) + 1;
    st.bufs.resize_with(ring, Vec::new);
    for b in &mut st.bufs {
        b.resize(hw, S::E::zero());
    }
    st.spans.clear();
    for od in ods.clone() {
        let (mut first, mut last, mut count) = (usize::MAX, 0, 0);
        for t in g.taps(0, od) {
            first = first.min(t);
            last = t;
            count += 1;
        }
        st.spans.push((first, last, count));
    }
    assert!(
        x.len() >= g.input[0] * hw
            && out.len() >= ods.len() * ohw
            && st.spans.iter().all(|&(_, last, count)| count > 0 && last < g.input[0]),
        "pool3d: task outside its buffers"
    );
    // With padding and a dilated depth, a later window may end before an earlier one.
    let d0 = st.spans.iter().map(|sp| sp.0).min().unwrap_or(0);
    let Some(d1) = st.spans.iter().map(|sp| sp.1).max() else {
        return;
    };
    let max = r == Reduce::Max;
    for d in d0..=d1 {
        // Windows od·s − p ..= od·s − p + span − 1 that hold d.
        let lo = (d + p + 1).saturating_sub(span).div_ceil(s).max(ods.start);
        let hi = ((d + p) / s).min(ods.end - 1);
        let src = &x[d * hw..][..hw];
        for od in lo..=hi {
            if (d + p - od * s) % dil != 0 {
                continue;
            }
            let (first, last, count) = st.spans[od - ods.start];
            let o = &mut out[(od - ods.start) * ohw..][..ohw];
            if count == 1 {
                // SAFETY: the features are the caller's contract.
                unsafe { finish::<S>(src, g, g2, r, od, count, o, &mut st.sc) };
                continue;
            }
            let buf = &mut st.bufs[od % ring];
            if d == first {
                buf.copy_from_slice(src);
            } else {
                // SAFETY: the features are the caller's contract; both are H·W long.
                unsafe { combine::<S>(buf, src, max) };
            }
            if d == last {
                // SAFETY: the features are the caller's contract.
                unsafe { finish::<S>(&st.bufs[od % ring], g, g2, r, od, count, o, &mut st.sc) };
            }
        }
    }
}

/// `buf[i] = max(buf[i], src[i])` (or the sum), whole vectors and a masked tail.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn combine<S: Simd>(buf: &mut [S::E], src: &[S::E], max: bool) {
    let (n, len) = (S::LANES, buf.len().min(src.len()));
    let (bp, sp) = (buf.as_mut_ptr(), src.as_ptr());
    // SAFETY: full vectors at k with k + n ≤ len, the tail's lanes below len; both
    // slices hold `len` elements; the features are the caller's contract.
    unsafe {
        let op = |a, b| if max { S::max(a, b) } else { S::add(a, b) };
        let mut k = 0;
        while k + n <= len {
            S::store(bp.add(k), op(S::load(bp.add(k)), S::load(sp.add(k))));
            k += n;
        }
        if k < len {
            let rem = (len - k) as isize;
            let v = op(S::load_range(bp.add(k), 0, rem), S::load_range(sp.add(k), 0, rem));
            S::store_first(bp.add(k), v, len - k);
        }
    }
}

/// Output depth `od` from its depth-reduced slice `src` (`count` taps): the 2-D kernel,
/// an average divided once by the whole window's count.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn finish<S: Simd>(
    src: &[S::E],
    g: &PoolGeom<3>,
    g2: &PoolGeom<2>,
    r: Reduce,
    od: usize,
    count: usize,
    out: &mut [MaybeUninit<S::E>],
    sc: &mut Scratch<S::E>,
) {
    // The depth count joins the 2-D kernel's divisor: one division, as PyTorch.
    sc.count_scale = match r {
        Reduce::Avg {
            count_include_pad: true,
            divisor: None,
        } => {
            let start = (od * g.s[0]) as isize - g.p[0] as isize;
            let end = (start + g.k[0] as isize).min((g.input[0] + g.p[0]) as isize);
            (end - start) as usize
        }
        Reduce::Avg {
            count_include_pad: false,
            divisor: None,
        } => count,
        _ => 1,
    };
    // SAFETY: the features are the caller's contract; `src` is H × W, `out` OH × OW,
    // `sc` sized for `g2`.
    unsafe { plane::<S>(src, g2, r, out, sc) };
}

/// The task kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{TaskArgs, task};

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn task512(a: TaskArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { task::<Avx512>(a) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn task256(a: TaskArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { task::<Avx2>(a) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::pool_nd::{Taps, average_scalar as average, max_with_indices_scalar as max_with_indices};

    /// Against the scalar window kernel (the definition) on windows with padding,
    /// dilation, ceil-mode-like edges and NaN, f32 and f64, every level.
    #[test]
    fn depth_then_plane_equals_the_window_kernel() {
        type Axes = [usize; 3];
        let geoms: &[(Axes, Axes, Axes, Axes, Axes)] = &[
            // input, kernel, stride, padding, dilation
            ([3, 5, 6], [2, 2, 2], [1, 2, 2], [1, 1, 0], [1, 1, 1]),
            ([4, 7, 9], [3, 3, 3], [2, 2, 1], [1, 1, 1], [1, 1, 1]),
            ([5, 4, 19], [3, 2, 3], [1, 1, 2], [1, 0, 1], [2, 1, 1]),
            ([1, 3, 3], [1, 3, 3], [1, 1, 1], [0, 1, 1], [1, 1, 1]),
            // The 3³/2 pad-1 pool and the 2³/2 adaptive bands; depths skipped by a
            // stride above the kernel.
            ([6, 5, 8], [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1]),
            ([4, 6, 8], [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1]),
            ([7, 4, 5], [1, 2, 2], [3, 2, 2], [0, 0, 0], [1, 1, 1]),
        ];
        // Two planes split into runs of output depths per task; nine on one thread
        // are whole-plane tasks. Miri runs two geometries (padding and a dilated
        // depth; the 3³/2 pool) on both.
        let geoms: Vec<_> = if cfg!(miri) {
            vec![geoms[2], geoms[4]]
        } else {
            geoms.to_vec()
        };
        for (planes, threads) in [(2, 2), (9, 1)] {
            for &(input, k, s, p, d) in &geoms {
                crate::with_num_threads(threads, || check(planes, input, k, s, p, d));
            }
        }
    }

    /// One geometry on `planes` planes, max and every average kind, f64 and f32.
    fn check(planes: usize, input: [usize; 3], k: [usize; 3], s: [usize; 3], p: [usize; 3], d: [usize; 3]) {
        {
            let out: [usize; 3] = std::array::from_fn(|a| (input[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) / s[a] + 1);
            let g = PoolGeom::<3> { input, out, k, s, p, d };
            let n: usize = planes * input.iter().product::<usize>();
            let mut x: Vec<f64> = (0..n).map(|v| ((v * 37 % 29) as f64 - 14.0) / 4.0).collect();
            x[n / 3] = f64::NAN;
            let (want, _) = max_with_indices(&x, planes, &Taps::window(&g, true));
            let got = pool3d_planes(&x, planes, &g, Reduce::Max);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "max {input:?} {k:?}");
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let got = pool3d_planes(&x32, planes, &g, Reduce::Max);
            let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            assert_eq!(format!("{got:?}"), format!("{want32:?}"), "max f32 {input:?} {k:?}");
            if d != [1, 1, 1] {
                return;
            }
            for (include, divisor) in [(true, None), (false, None), (true, Some(5))] {
                let r = Reduce::Avg {
                    count_include_pad: include,
                    divisor,
                };
                let want = average(&x, planes, &Taps::window(&g, include), divisor);
                let got = pool3d_planes(&x, planes, &g, r);
                for (a, b) in got.iter().zip(&want) {
                    assert!(
                        a.is_nan() && b.is_nan() || (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                        "avg {a} {b}"
                    );
                }
                let got = pool3d_planes(&x32, planes, &g, r);
                for (a, b) in got.iter().zip(&want) {
                    let a = *a as f64;
                    assert!(
                        a.is_nan() && b.is_nan() || (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                        "avg f32 {a} {b}"
                    );
                }
            }
        }
    }
}
