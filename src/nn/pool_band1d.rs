//! 1-D pooling over bands that tile each row: output `g` of a row reads `g·k .. g·k + k`
//! (adaptive 1-D pooling when the length is a multiple of the output's, and windows
//! with kernel = stride, no padding). For `k` of 2, 4 or 8, `k` vectors of a row are
//! split into their `k` phases by rounds of even/odd shuffles ([`Simd::even_odd`]):
//! phase `j` holds element `j` of `LANES` consecutive bands, so a vector of outputs is
//! `k − 1` lane-wise steps, in the bands' own order (the sum is PyTorch's left to right;
//! the arg-max keeps the first maximum and the last NaN). Other `k`, the row's last
//! bands and `f16`/`bf16` run a scalar loop with the same order.

use super::conv_block::Level;
use super::simd::{Scalar, Simd};
use super::util::{cast_slice, cast_vec, par_tasks};
use crate::element::{Float, Num};
use crate::iter::SendPtr;
use num_traits::{Float as _, ToPrimitive, Zero};
use std::mem::MaybeUninit;

/// The reduction of one call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Mean,
    Arg,
}

/// The mean of every band of `k` elements of the rows of `x` (rows of `row` elements,
/// a multiple of `k`).
pub(crate) fn band_means<T: Float>(x: &[T], row: usize, k: usize) -> Vec<T> {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        let (v, _) = f32_at(Level::detect(), x32, row, k, Mode::Mean);
        return cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32"));
    }
    if !super::util::is_native::<T>() {
        // f16/bf16 sum in f32.
        return super::util::from_f32(&band_means(&super::util::to_f32(x), row, k));
    }
    // SAFETY: plain Rust.
    run(x, row, k, Mode::Mean, |a| unsafe { band_row::<Scalar<T>>(a) }).0
}

/// The maximum of every band of `k` elements of the rows of `x` and its position in the
/// row: the first maximum; a NaN replaces the maximum (the last NaN wins, PyTorch).
pub(crate) fn band_argmax<T: Float>(x: &[T], row: usize, k: usize) -> (Vec<T>, Vec<i64>) {
    if let Some(x32) = cast_slice::<T, f32>(x) {
        let (v, i) = f32_at(Level::detect(), x32, row, k, Mode::Arg);
        return (cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32")), i);
    }
    // SAFETY: plain Rust.
    run(x, row, k, Mode::Arg, |a| unsafe { band_row::<Scalar<T>>(a) })
}

/// The `f32` kernel on `level` (the tests run every level the CPU has).
fn f32_at(level: Level, x: &[f32], row: usize, k: usize, m: Mode) -> (Vec<f32>, Vec<i64>) {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the AVX-512 level was detected (or checked by the caller).
        Level::Avx512 => run(x, row, k, m, |a| unsafe { x86::row512(a) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 and FMA were detected (or checked by the caller).
        Level::Avx2 => run(x, row, k, m, |a| unsafe { x86::row256(a) }),
        // SAFETY: plain Rust.
        Level::Portable => run(x, row, k, m, |a| unsafe { band_row::<Scalar<f32>>(a) }),
    }
}

/// One row's work.
struct RowArgs<'a, E> {
    x: &'a [E],
    k: usize,
    m: Mode,
    out: &'a mut [MaybeUninit<E>],
    /// One index per output for [`Mode::Arg`], else empty.
    idx: &'a mut [MaybeUninit<i64>],
}

fn run<E: Float>(x: &[E], row: usize, k: usize, m: Mode, f: impl Fn(RowArgs<'_, E>) + Sync) -> (Vec<E>, Vec<i64>) {
    assert!(
        k > 0 && row.is_multiple_of(k) && x.len().is_multiple_of(row.max(1)),
        "pool: bands do not tile the rows"
    );
    let (rows, per_row) = (x.len() / row.max(1), row / k);
    let len = rows * per_row;
    let mut out = crate::memory::alloc::uninit_vec::<E>(len);
    let ilen = if m == Mode::Arg { per_row } else { 0 };
    let mut idx = crate::memory::alloc::uninit_vec::<i64>(rows * ilen);
    if len > 0 {
        let (optr, iptr) = (SendPtr(out.as_mut_ptr()), SendPtr(idx.as_mut_ptr()));
        // Runs of rows of at least 32K input elements where there is work for 4 tasks
        // per thread (a shape rule, as the other pooling kernels').
        let per = ((1usize << 15).div_ceil(row))
            .min(rows.div_ceil(4 * crate::threads::num_threads()))
            .max(1);
        par_tasks(
            rows.div_ceil(per),
            || (),
            |_, task| {
                for r in task * per..((task + 1) * per).min(rows) {
                    // SAFETY: row r's outputs (and indices; `ilen` = 0 without them),
                    // written only by this task.
                    let (o, i) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(optr.get().add(r * per_row), per_row),
                            std::slice::from_raw_parts_mut(iptr.get().add(r * ilen), ilen),
                        )
                    };
                    f(RowArgs {
                        x: &x[r * row..][..row],
                        k,
                        m,
                        out: o,
                        idx: i,
                    });
                }
            },
        );
    }
    // SAFETY: every task wrote its rows' outputs (and indices in `Mode::Arg`; `idx` is
    // empty otherwise).
    unsafe {
        (
            crate::memory::alloc::assume_init_vec(out),
            crate::memory::alloc::assume_init_vec(idx),
        )
    }
}

/// One row: whole vectors of bands for `k` ∈ {2, 4, 8}, then the rest in scalar code.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn band_row<S: Simd>(mut a: RowArgs<'_, S::E>) {
    let done = match a.k {
        // SAFETY: the features are the caller's contract.
        2 => unsafe { vectors::<S, 2>(&mut a) },
        // SAFETY: as above.
        4 => unsafe { vectors::<S, 4>(&mut a) },
        // SAFETY: as above.
        8 => unsafe { vectors::<S, 8>(&mut a) },
        _ => 0,
    };
    let k = a.k;
    let kf = <S::E as Num>::from_usize(k);
    for (g, o) in a.out.iter_mut().enumerate().skip(done) {
        let band = &a.x[g * k..][..k];
        if a.m == Mode::Mean {
            o.write(band.iter().fold(S::E::zero(), |s, &v| s + v) / kf);
        } else {
            let (mut best, mut at) = (band[0], 0);
            for (j, &v) in band.iter().enumerate().skip(1) {
                // Branch-free: on random data the comparison is a coin flip.
                let take = (v > best) | v.is_nan();
                best = if take { v } else { best };
                at = if take { j } else { at };
            }
            o.write(best);
            a.idx[g].write((g * k + at) as i64);
        }
    }
}

/// The row's first whole vectors of bands of `K` elements; returns how many bands.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn vectors<S: Simd, const K: usize>(a: &mut RowArgs<'_, S::E>) -> usize {
    let l = S::LANES;
    let n = a.out.len();
    assert!(
        a.x.len() >= n * K && (a.m == Mode::Mean || a.idx.len() >= n),
        "pool: bands outside the row"
    );
    let mut tags = [S::E::zero(); 16];
    assert!(l <= tags.len(), "pool: more lanes than the tag buffer");
    let mut g = 0;
    while g + l <= n {
        // SAFETY: the K vectors read x[g·K .. (g + l)·K] ⊆ the row (asserted); the
        // stores write outputs g .. g + l < n (and `tags`, of ≥ l lanes); the features
        // are the caller's contract.
        unsafe {
            let p = a.x.as_ptr().add(g * K);
            let v = phases::<S, K>(std::array::from_fn(|j| S::load(p.add(j * l))));
            let dst = a.out.as_mut_ptr().add(g).cast::<S::E>();
            if a.m == Mode::Mean {
                let mut s = v[0];
                for &x in &v[1..] {
                    s = S::add(s, x);
                }
                S::store(dst, S::div(s, S::splat(<S::E as Num>::from_usize(K))));
            } else {
                let (mut best, mut tag) = (v[0], S::splat(S::E::zero()));
                for (j, &x) in v.iter().enumerate().skip(1) {
                    (best, tag) = S::argmax_step(best, tag, x, S::splat(<S::E as Num>::from_usize(j)));
                }
                S::store(dst, best);
                S::store(tags.as_mut_ptr(), tag);
                for (lane, &t) in tags[..l].iter().enumerate() {
                    let at = (g + lane) * K + ToPrimitive::to_usize(&t).unwrap_or(0);
                    a.idx[g + lane].write(at as i64);
                }
            }
        }
        g += l;
    }
    g
}

/// The `K` phases of `K` consecutive vectors (`K` a power of two): element `j` of each
/// of their `LANES` bands of `K` elements, in band order, as vector `j`. Rounds of
/// even/odd over consecutive pairs, evens first: after log2 K rounds the order is
/// the identity.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
pub(super) unsafe fn phases<S: Simd, const K: usize>(mut v: [S::V; K]) -> [S::V; K] {
    let mut m = K;
    while m > 1 {
        let mut w = v;
        for i in 0..K / 2 {
            // SAFETY: the features are the caller's contract.
            let (e, o) = unsafe { S::even_odd(v[2 * i], v[2 * i + 1]) };
            w[i] = e;
            w[K / 2 + i] = o;
        }
        v = w;
        m /= 2;
    }
    v
}

/// The row kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::{RowArgs, band_row};

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn row512(a: RowArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { band_row::<Avx512>(a) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn row256(a: RowArgs<'_, f32>) {
        // SAFETY: the features are enabled here.
        unsafe { band_row::<Avx2>(a) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definitions: left-to-right sums; the first maximum, the last NaN.
    fn definition(x: &[f64], k: usize) -> (Vec<f64>, Vec<(f64, usize)>) {
        let row_len = x.len();
        let mut means = vec![];
        let mut args = vec![];
        for g in 0..row_len / k {
            let band = &x[g * k..][..k];
            means.push(band.iter().fold(0.0, |s, &v| s + v) / k as f64);
            let (mut best, mut at) = (f64::NEG_INFINITY, g * k);
            for (j, &v) in band.iter().enumerate() {
                if v > best || v.is_nan() {
                    (best, at) = (v, g * k + j);
                }
            }
            args.push((best, at));
        }
        (means, args)
    }

    #[test]
    fn bands_reduce_in_order_with_pytorchs_tie_and_nan_rule() {
        let levels = Level::tested();
        let ks: &[usize] = if cfg!(miri) { &[1, 2, 3, 4] } else { &[1, 2, 3, 4, 5, 8] };
        for &k in ks {
            // Rows of 37 bands (vectors plus a scalar tail); ties, −∞, NaN.
            let (rows, row) = (3, 37 * k);
            let x: Vec<f64> = (0..rows * row)
                .map(|i| match i * 37 % 53 {
                    0 => f64::NAN,
                    1 => f64::NEG_INFINITY,
                    v => (v % 5) as f64 - 2.0 + 0.25 * (i % 3) as f64,
                })
                .collect();
            let fin: Vec<f64> = x.iter().map(|&v| if v.is_finite() { v } else { 0.5 }).collect();
            let same = |v: f64, w: f64| (v.is_nan() && w.is_nan()) || v == w;
            let mut want_m = vec![];
            let mut want_a = vec![];
            for r in 0..rows {
                want_m.extend(definition(&fin[r * row..][..row], k).0);
                want_a.extend(definition(&x[r * row..][..row], k).1);
            }
            let m = band_means(&fin, row, k);
            assert!(m.iter().zip(&want_m).all(|(a, b)| (a - b).abs() <= 1e-12), "f64 k {k}");
            let (v, i) = band_argmax(&x, row, k);
            for (g, w) in want_a.iter().enumerate() {
                assert!(same(v[g], w.0) && i[g] == w.1 as i64, "f64 k {k} band {g}");
            }
            let (x32, f32s): (Vec<f32>, Vec<f32>) = x.iter().zip(&fin).map(|(&a, &b)| (a as f32, b as f32)).unzip();
            for &level in &levels {
                let (m, _) = f32_at(level, &f32s, row, k, Mode::Mean);
                assert!(
                    m.iter().zip(&want_m).all(|(&a, b)| (f64::from(a) - b).abs() <= 1e-6),
                    "{level:?} k {k}"
                );
                let (v, i) = f32_at(level, &x32, row, k, Mode::Arg);
                for (g, w) in want_a.iter().enumerate() {
                    assert!(
                        same(f64::from(v[g]), w.0) && i[g] == w.1 as i64,
                        "{level:?} k {k} band {g}: {} {} against {w:?}",
                        v[g],
                        i[g]
                    );
                }
            }
        }
    }
}
