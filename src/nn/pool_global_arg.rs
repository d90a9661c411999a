//! The arg-max of whole planes: adaptive max pooling to one output per plane (and any
//! pooling with indices whose one window covers the plane), in whole vectors: the
//! plane's maximum (NaN-propagating lane maxima, then the lanes' maximum), then the
//! first position equal to it from lane masks, 64 elements at a time. Planes of up to
//! 64 elements stay in registers between the two steps (a task runs many planes, so
//! the tail mask and the dispatch are paid once); longer ones are read twice from
//! cache. A plane holding a NaN takes its last NaN (PyTorch's rule), found in scalar
//! code. This replaces the rows-then-columns kernel of [`super::pool_rows`] there,
//! whose per-row setup and scalar column stage cost ~8× the read for a 7×7 plane.

use super::conv_block::Level;
use super::simd::{Scalar, Simd};
use super::util::par_tasks;
use crate::element::Float;
use crate::iter::SendPtr;
use num_traits::Float as _;
use std::mem::MaybeUninit;

/// The maximum of each of `planes` contiguous planes of `len` elements and its position
/// in the plane: the first maximum; if the plane holds a NaN, its last NaN.
pub(crate) fn plane_argmax<E: Float>(x: &[E], planes: usize, len: usize, level: Level) -> (Vec<E>, Vec<i64>) {
    assert!(len > 0 && x.len() >= planes * len, "pool: planes outside the input");
    let mut val = crate::memory::alloc::uninit_vec::<E>(planes);
    let mut idx = crate::memory::alloc::uninit_vec::<i64>(planes);
    let (vp, ip) = (SendPtr(val.as_mut_ptr()), SendPtr(idx.as_mut_ptr()));
    // Tasks of at least 32K elements (128 KiB of f32) where there is work for 4 tasks
    // per thread: a global pool of small planes is a few µs of reading, which a task
    // per plane (or per thread, on one small input) would spend in scheduling. A
    // shape rule, not a CPU one.
    let per = (1usize << 15)
        .div_ceil(len)
        .min(planes.div_ceil(4 * crate::threads::num_threads()))
        .max(1);
    par_tasks(
        planes.div_ceil(per),
        || (),
        |_, task| {
            let (p0, p1) = (task * per, ((task + 1) * per).min(planes));
            // SAFETY: entries p0..p1 of `val` and `idx` (p1 ≤ planes, their length),
            // written only by this task (tasks take disjoint runs of planes).
            let (v, i) = unsafe {
                (
                    std::slice::from_raw_parts_mut(vp.get().add(p0), p1 - p0),
                    std::slice::from_raw_parts_mut(ip.get().add(p0), p1 - p0),
                )
            };
            run(&x[p0 * len..p1 * len], len, v, i, level);
        },
    );
    // SAFETY: every plane's entries were written by its task.
    unsafe {
        (
            crate::memory::alloc::assume_init_vec(val),
            crate::memory::alloc::assume_init_vec(idx),
        )
    }
}

/// A run of planes on `level` (`f32` only on the x86 levels).
fn run<E: Float>(x: &[E], len: usize, val: &mut [MaybeUninit<E>], idx: &mut [MaybeUninit<i64>], level: Level) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x32) = super::util::cast_slice::<E, f32>(x) {
        // SAFETY: E is f32 (the cast above succeeded): the same layout.
        let v32 = unsafe { &mut *(std::ptr::from_mut(val) as *mut [MaybeUninit<f32>]) };
        match level {
            // SAFETY: the AVX-512 level was detected (or checked by the caller).
            Level::Avx512 => unsafe { x86::planes512(x32, len, v32, idx) },
            // SAFETY: AVX2 and FMA were detected (or checked by the caller).
            Level::Avx2 => unsafe { x86::planes256(x32, len, v32, idx) },
            // SAFETY: plain Rust.
            Level::Portable => unsafe { planes::<Scalar<f32>>(x32, len, v32, idx) },
        }
        return;
    }
    let _ = level;
    // SAFETY: plain Rust.
    unsafe { planes::<Scalar<E>>(x, len, val, idx) }
}

/// Every plane of `x` (planes of `len` elements): planes of at most 64 elements in
/// registers (one load per element), longer ones (and one-lane vectors) by [`argmax`].
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn planes<S: Simd>(x: &[S::E], len: usize, val: &mut [MaybeUninit<S::E>], idx: &mut [MaybeUninit<i64>]) {
    assert!(
        x.len() >= val.len() * len && idx.len() >= val.len(),
        "pool: planes outside the input"
    );
    let (l, nv) = (S::LANES, len.div_ceil(S::LANES));
    // SAFETY: the features are the caller's contract (every arm).
    unsafe {
        match nv {
            1 if l > 1 => small::<S, 1>(x, len, val, idx),
            2 if l > 1 => small::<S, 2>(x, len, val, idx),
            3 if l > 1 => small::<S, 3>(x, len, val, idx),
            4 if l > 1 => small::<S, 4>(x, len, val, idx),
            5 if l == 8 => small::<S, 5>(x, len, val, idx),
            6 if l == 8 => small::<S, 6>(x, len, val, idx),
            7 if l == 8 => small::<S, 7>(x, len, val, idx),
            8 if l == 8 => small::<S, 8>(x, len, val, idx),
            _ => {
                for (pl, (v, i)) in val.iter_mut().zip(idx.iter_mut()).enumerate() {
                    let (m, at) = argmax::<S>(&x[pl * len..][..len]);
                    v.write(m);
                    i.write(at as i64);
                }
            }
        }
    }
}

/// Planes of `NV` vectors (`(NV − 1)·LANES < len ≤ NV·LANES ≤ 64`), each loaded once:
/// the maximum of the vectors, then the first lane equal to it from their lane masks.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn small<S: Simd, const NV: usize>(
    x: &[S::E],
    len: usize,
    val: &mut [MaybeUninit<S::E>],
    idx: &mut [MaybeUninit<i64>],
) {
    let l = S::LANES;
    assert!(
        NV * l <= 64 && (NV - 1) * l < len && len <= NV * l && x.len() >= val.len() * len,
        "pool: planes outside the input"
    );
    let tail = (len - (NV - 1) * l) as isize;
    let all = ((1u64 << l) - 1) as u32;
    for (pl, (vo, io)) in val.iter_mut().zip(idx.iter_mut()).enumerate() {
        let p = &x[pl * len..][..len];
        // SAFETY: vectors j < NV − 1 read p[j·l .. (j + 1)·l] ⊆ p ((NV − 1)·l < len);
        // the last reads only its lanes below `tail` (masked), also inside p; the
        // features are the caller's contract.
        unsafe {
            let fill = S::splat(S::E::neg_infinity());
            let v: [S::V; NV] = std::array::from_fn(|j| {
                if j + 1 < NV {
                    S::load(p.as_ptr().add(j * l))
                } else {
                    S::load_range_fill(p.as_ptr().add(j * l), 0, tail, fill)
                }
            });
            let mut acc = v[0];
            for &w in &v[1..] {
                acc = S::max(acc, w);
            }
            if S::eq_mask(acc, acc) != all {
                let at = p.iter().rposition(|v| v.is_nan()).unwrap_or(0);
                vo.write(p[at]);
                io.write(at as i64);
                continue;
            }
            let m = S::splat(S::max_lanes(acc));
            let mut bits = 0u64;
            for (j, &w) in v.iter().enumerate() {
                bits |= u64::from(S::eq_mask(w, m)) << (j * l);
            }
            // The maximum is one of the plane's lanes (the fill lanes are −∞ and come
            // after every real lane), so `bits` ≠ 0 and `at` < len.
            let at = bits.trailing_zeros() as usize;
            vo.write(p[at]);
            io.write(at as i64);
        }
    }
}

/// The arg-max of one nonempty plane in vectors of `S`.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn argmax<S: Simd>(p: &[S::E]) -> (S::E, usize) {
    let (n, l) = (p.len(), S::LANES);
    let ptr = p.as_ptr();
    let all = ((1u64 << l) - 1) as u32;
    let ld = |i: usize| {
        // SAFETY: full loads read `i..i + l ≤ n`, the last partial vector only its lanes
        // below `n - i` (masked); the features are the caller's contract.
        unsafe {
            if i + l <= n {
                S::load(ptr.add(i))
            } else {
                S::load_range_fill(ptr.add(i), 0, (n - i) as isize, S::splat(S::E::neg_infinity()))
            }
        }
    };
    // 1. The maximum; NaN propagates into its lane.
    let mut acc = ld(0);
    for i in (l..n).step_by(l) {
        // SAFETY: the features are the caller's contract.
        acc = unsafe { S::max(acc, ld(i)) };
    }
    // SAFETY: as above.
    if unsafe { S::eq_mask(acc, acc) } != all {
        let at = p.iter().rposition(|v| v.is_nan()).unwrap_or(0);
        return (p[at], at);
    }
    // SAFETY: as above; `acc` holds no NaN.
    let m = unsafe { S::splat(S::max_lanes(acc)) };
    // 2. The first position equal to it, 64 elements at a time (one branch per 64 for
    // the small planes of a global pool, rather than one per vector).
    let step = 64 / l * l;
    let mut base = 0;
    while base < n {
        let mut bits = 0u64;
        for (j, i) in (base..(base + step).min(n)).step_by(l).enumerate() {
            // SAFETY: as above.
            bits |= u64::from(unsafe { S::eq_mask(ld(i), m) }) << (j * l);
        }
        if bits != 0 {
            let at = base + bits.trailing_zeros() as usize;
            return (p[at], at);
        }
        base += step;
    }
    unreachable!("pool: a plane's maximum is one of its elements")
}

/// The plane kernel compiled for each x86 level.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::simd::{Avx2, Avx512};
    use super::planes;
    use std::mem::MaybeUninit;

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn planes512(x: &[f32], len: usize, val: &mut [MaybeUninit<f32>], idx: &mut [MaybeUninit<i64>]) {
        // SAFETY: the features are enabled here.
        unsafe { planes::<Avx512>(x, len, val, idx) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn planes256(x: &[f32], len: usize, val: &mut [MaybeUninit<f32>], idx: &mut [MaybeUninit<i64>]) {
        // SAFETY: the features are enabled here.
        unsafe { planes::<Avx2>(x, len, val, idx) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: the first maximum; a NaN replaces the maximum (the last NaN).
    fn definition(p: &[f64]) -> (f64, usize) {
        let (mut best, mut at) = (f64::NEG_INFINITY, 0);
        for (i, &v) in p.iter().enumerate() {
            if v > best || v.is_nan() {
                (best, at) = (v, i);
            }
        }
        (best, at)
    }

    #[test]
    fn planes_give_the_first_maximum_and_the_last_nan() {
        let levels = Level::tested();
        // Plane lengths around the vector and 64-element steps; ties (few values),
        // −∞ planes, −0.0 against 0.0, NaN early, late and twice.
        let lens: &[usize] = if cfg!(miri) {
            &[1, 7, 49]
        } else {
            &[1, 7, 15, 16, 17, 49, 64, 65, 130, 200]
        };
        for &len in lens {
            let planes = 5;
            let mut x: Vec<f64> = (0..planes * len).map(|i| ((i * 37 % 11) % 4) as f64 - 2.0).collect();
            x[..len].fill(f64::NEG_INFINITY);
            if len > 3 {
                x[len..2 * len].fill(-0.0);
                x[len + len / 2] = 0.0;
                x[2 * len + 1] = f64::NAN;
                x[2 * len + len - 1] = f64::NAN;
                x[4 * len + len / 3] = f64::NAN;
            }
            let want: Vec<(f64, usize)> = x.chunks(len).map(definition).collect();
            let same =
                |v: f64, w: f64| (v.is_nan() && w.is_nan()) || (v == w && v.is_sign_negative() == w.is_sign_negative());
            let (v, i) = plane_argmax(&x, planes, len, Level::Portable);
            for p in 0..planes {
                assert!(
                    i[p] == want[p].1 as i64 && same(v[p], want[p].0),
                    "f64 len {len} plane {p}"
                );
            }
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            for &level in &levels {
                let (v, i) = plane_argmax(&x32, planes, len, level);
                for p in 0..planes {
                    assert_eq!(i[p], want[p].1 as i64, "{level:?} len {len} plane {p}");
                    assert!(
                        same(f64::from(v[p]), want[p].0),
                        "{level:?} len {len} plane {p}: {}",
                        v[p]
                    );
                }
            }
        }
    }
}
