//! The arg-max of whole planes: adaptive max pooling to one output per plane (and any
//! pooling with indices whose one window covers the plane). A plane is read twice
//! from cache, in whole vectors: its maximum (NaN-propagating lane maxima, then the
//! lanes' maximum), then the first position equal to it, found from lane masks 64
//! elements at a time. A plane holding a NaN takes its last NaN (PyTorch's rule), found
//! in scalar code. This replaces the rows-then-columns kernel of [`super::pool_rows`]
//! there, whose per-row setup and scalar column stage cost ~8× the read for a 7×7 plane.

use super::conv_block::Level;
use super::simd::{Scalar, Simd};
use super::util::par_tasks;
use crate::element::Float;
use crate::iter::SendPtr;
use num_traits::Float as _;

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
            for pl in task * per..((task + 1) * per).min(planes) {
                let p = &x[pl * len..][..len];
                let (v, i) = one(p, level);
                // SAFETY: entry `pl` of `val` and `idx`, written only by this task
                // (tasks take disjoint runs of planes; pl < planes = their length).
                unsafe {
                    vp.get().add(pl).write(std::mem::MaybeUninit::new(v));
                    ip.get().add(pl).write(std::mem::MaybeUninit::new(i as i64));
                }
            }
        },
    );
    // SAFETY: every plane's entry was written above.
    unsafe {
        (
            crate::memory::alloc::assume_init_vec(val),
            crate::memory::alloc::assume_init_vec(idx),
        )
    }
}

/// One plane on `level` (`f32` only on the x86 levels).
#[inline]
fn one<E: Float>(p: &[E], level: Level) -> (E, usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p32) = super::util::cast_slice::<E, f32>(p) {
        let (v, i) = match level {
            // SAFETY: the AVX-512 level was detected (or checked by the caller).
            Level::Avx512 => unsafe { x86::argmax512(p32) },
            // SAFETY: AVX2 and FMA were detected (or checked by the caller).
            Level::Avx2 => unsafe { x86::argmax256(p32) },
            // SAFETY: plain Rust.
            Level::Portable => unsafe { argmax::<Scalar<f32>>(p32) },
        };
        return (<E as crate::element::Num>::from_f64(f64::from(v)), i);
    }
    let _ = level;
    // SAFETY: plain Rust.
    unsafe { argmax::<Scalar<E>>(p) }
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
    // SAFETY (both passes): full loads read `i..i + l ≤ n`, the last partial vector only
    // its lanes below `n - i` (masked); the features are the caller's contract.
    let ld = |i: usize| unsafe {
        if i + l <= n {
            S::load(ptr.add(i))
        } else {
            S::load_range_fill(ptr.add(i), 0, (n - i) as isize, S::splat(S::E::neg_infinity()))
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
    use super::argmax;

    /// # Safety
    /// AVX-512F is available.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn argmax512(p: &[f32]) -> (f32, usize) {
        // SAFETY: the features are enabled here.
        unsafe { argmax::<Avx512>(p) }
    }

    /// # Safety
    /// AVX2 and FMA are available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn argmax256(p: &[f32]) -> (f32, usize) {
        // SAFETY: the features are enabled here.
        unsafe { argmax::<Avx2>(p) }
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
        #[cfg_attr(miri, allow(unused_mut))]
        let mut levels = vec![Level::Portable];
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use crate::cpu::{Isa, detected_isa};
            if detected_isa() >= Isa::Avx2 {
                levels.push(Level::Avx2);
            }
            if detected_isa() >= Isa::Avx512 {
                levels.push(Level::Avx512);
            }
        }
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
