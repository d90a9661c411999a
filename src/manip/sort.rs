//! Stable sorting along an axis: `sort`, `argsort` with NumPy's order (NaN last), and
//! `sort_descending`, `argsort_descending` with PyTorch's (NaN first).

use super::fsort;
use super::radix::{par_sort_run, sort_run};
use super::{alloc, axis_last, lane_offsets, restore_axis};
use crate::element::Element;
use crate::error::Result;
use crate::layout::transform::normalize_axis;
use crate::layout::{Dimension, IxDyn};
use crate::same_type;
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase, TensorView};
use half::{bf16, f16};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Element types with NumPy's sort order: integers, `bool` (`false < true`) and
/// floats, where `-0.0 == 0.0` and every NaN sorts after `+inf` (all NaNs equal).
///
/// The order is given by an unsigned key: `a` sorts before `b` exactly when
/// `a.sort_key() < b.sort_key()`, and elements NumPy calls equal have equal keys.
///
/// ```
/// use ferrotensor::manip::SortElement;
/// assert!((-1.0f32).sort_key() < 0.0f32.sort_key());
/// assert_eq!((-0.0f64).sort_key(), 0.0f64.sort_key());
/// assert!(f32::INFINITY.sort_key() < f32::NAN.sort_key());
/// assert!((-5i32).sort_key() < 3i32.sort_key());
/// ```
pub trait SortElement: Element {
    /// How many low bytes of [`SortElement::sort_key`] can differ between values.
    const KEY_BYTES: usize;
    /// The order key (see the trait documentation).
    fn sort_key(self) -> u64;
}

macro_rules! impl_sort_unsigned {
    ($($t:ty),*) => {$(
        impl SortElement for $t {
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn sort_key(self) -> u64 { self as u64 }
        }
    )*};
}
impl_sort_unsigned!(u8, u16, u32, u64, usize);

macro_rules! impl_sort_signed {
    ($($t:ty => $u:ty),*) => {$(
        impl SortElement for $t {
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn sort_key(self) -> u64 { ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64 }
        }
    )*};
}
impl_sort_signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

impl SortElement for bool {
    const KEY_BYTES: usize = 1;
    #[inline(always)]
    fn sort_key(self) -> u64 {
        self as u64
    }
}

/// Key of an IEEE float from its bits: flips negatives, sets the sign of positives;
/// zeros and NaNs are canonicalised first.
macro_rules! impl_sort_float {
    ($($t:ty => $u:ty, $bits:expr, $zero:expr),*) => {$(
        impl SortElement for $t {
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn sort_key(self) -> u64 {
                let x = if self == $zero { $zero } else { self };
                if x.is_nan() {
                    return <$u>::MAX as u64;
                }
                let b: $u = $bits(x);
                let sign: $u = 1 << (<$u>::BITS - 1);
                (if b & sign != 0 { !b } else { b | sign }) as u64
            }
        }
    )*};
}
impl_sort_float!(
    f32 => u32, f32::to_bits, 0.0f32,
    f64 => u64, f64::to_bits, 0.0f64,
    f16 => u16, f16::to_bits, f16::ZERO,
    bf16 => u16, bf16::to_bits, bf16::ZERO
);

/// Threads a sort of `elements` may use.
fn sort_threads(elements: usize) -> usize {
    if elements >= crate::iter::PARALLEL_THRESHOLD {
        crate::threads::num_threads()
    } else {
        1
    }
}

/// Calls `f(lane, lane_index)` for every lane (the last axis of `v`), in parallel for
/// large inputs, giving each call its own slice of the row-major output.
fn per_lane<O: Send, T: Element, W: Send>(
    v: &TensorView<'_, T, IxDyn>,
    out: &mut [O],
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(&mut W, &mut [O], isize) + Sync + Send,
) {
    let n = *v.shape().last().expect("lanes need an axis");
    let offs = lane_offsets(v.shape(), v.strides(), v.offset());
    if sort_threads(out.len()) > 1 {
        out.par_chunks_mut(n)
            .zip(offs.par_iter())
            .for_each_init(&init, |w, (lane, &o)| f(w, lane, o));
    } else {
        let mut w = init();
        for (lane, &o) in out.chunks_mut(n).zip(&offs) {
            f(&mut w, lane, o);
        }
    }
}

/// [`TensorBase::sort`] for `f32` (lanes below `2^32` elements): `buf` is `v`'s
/// buffer, `out` the row-major result of `v`'s shape. One lane is sorted by the
/// parallel radix sort, many lanes each on one thread, in parallel.
fn sort_f32<T: Element>(v: &TensorView<'_, T, IxDyn>, buf: &[f32], out: &mut [f32]) {
    let n = *v.shape().last().expect("lanes need an axis");
    let st = v.strides()[v.ndim() - 1];
    let lane_of = |o: isize, c: &mut Vec<f32>| -> bool {
        if st == 1 {
            return true;
        }
        c.clear();
        c.extend((0..n).map(|i| buf[(o + i as isize * st) as usize]));
        false
    };
    if out.len() == n {
        let o = v.offset() as isize;
        let mut c = Vec::new();
        let src = if lane_of(o, &mut c) {
            &buf[o as usize..o as usize + n]
        } else {
            &c[..]
        };
        match long_lane_chunks(n) {
            Some(chunks) => fsort::sort_long(src, out, chunks),
            None => fsort::sort_lane(src, out, &mut Vec::new(), &mut Vec::new()),
        }
        return;
    }
    per_lane(
        v,
        out,
        || (Vec::new(), Vec::new(), Vec::new()),
        |(a, b, c), lane, o| {
            let src = if lane_of(o, c) {
                &buf[o as usize..o as usize + n]
            } else {
                &c[..]
            };
            fsort::sort_lane(src, lane, a, b);
        },
    );
}

/// How many pieces [`fsort::sort_long`] splits a single `f32` lane of `n` into, or
/// `None` when the lane is short enough for one in-cache [`fsort::sort_lane`].
fn long_lane_chunks(n: usize) -> Option<usize> {
    match sort_threads(n) {
        1 if n < 1 << 16 => None,
        1 => Some(1),
        threads => Some(4 * threads),
    }
}

/// The sort of a single long contiguous `f32` lane (`v` holds one lane of `n`), into a
/// fresh uninitialised buffer that the radix sort fills: no zeroing pass over the
/// output. `None` for anything else (those go through [`sort_f32`]).
fn sort_long_f32<T: Element>(v: &TensorView<'_, T, IxDyn>, n: usize) -> Result<Option<Vec<T>>> {
    let Some(buf) = same_type::slice::<T, f32>(v.storage.0) else {
        return Ok(None);
    };
    if v.size() != n || n > u32::MAX as usize || v.strides()[v.ndim() - 1] != 1 {
        return Ok(None);
    }
    let Some(chunks) = long_lane_chunks(n) else {
        return Ok(None);
    };
    crate::layout::byte_size::<T>(n)?;
    let o = v.offset();
    let mut out = crate::memory::alloc::uninit_vec::<T>(n);
    // SAFETY: `T` is `f32` (checked by `same_type::slice`), so the buffer is reinterpreted as itself.
    let out_f = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<f32>>(), n) };
    fsort::sort_long_uninit(&buf[o..o + n], out_f, chunks);
    // SAFETY: `sort_long_uninit` wrote every element.
    Ok(Some(unsafe { crate::memory::alloc::assume_init_vec(out) }))
}

/// The radix key of the ascending or descending order: a descending sort is the
/// stable ascending sort of the complemented key (within its `KEY_BYTES` low bytes),
/// so equal elements keep their order and NaNs (the largest key) come first.
fn order_key<T: SortElement>(descending: bool) -> impl Fn(&T) -> u64 + Sync + Copy {
    let mask = if T::KEY_BYTES >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * T::KEY_BYTES)) - 1
    };
    let flip = if descending { mask } else { 0 };
    move |x: &T| x.sort_key() ^ flip
}

impl<T: SortElement, S: Storage<Elem = T>, D: Dimension> TensorBase<S, D> {
    /// A sorted copy along `axis` (NumPy `sort(kind="stable")`): ascending, `-0.0`
    /// equal to `0.0`, NaNs last. Independent lanes are sorted in parallel, a single
    /// long lane by a parallel radix sort. `Err` for an axis out of range (also for a
    /// 0-d input).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![3.0, f64::NAN, -1.0, 2.0], [2, 2]).unwrap();
    /// let c = a.sort(0).unwrap().to_vec();              // columns [3, -1] and [NaN, 2]
    /// assert_eq!(c[..3], [-1.0, 2.0, 3.0]);
    /// assert!(c[3].is_nan());
    /// let s = a.sort(-1).unwrap().to_vec();
    /// assert_eq!((s[0], s[2], s[3]), (3.0, -1.0, 2.0));
    /// assert!(s[1].is_nan());
    /// ```
    pub fn sort(&self, axis: isize) -> Result<Tensor<T, D>> {
        self.sort_impl(axis, false, "sort")
    }

    /// A sorted copy along `axis`, largest first (PyTorch `sort(dim, descending=True,
    /// stable=True)`): stable — equal elements (and `-0.0`/`0.0`) keep their order —
    /// and NaNs first, as PyTorch places them (NaN counts as the largest value). NumPy
    /// has no descending sort; `np.sort(a)[::-1]` gives the same values except that it
    /// reverses the order of equal elements. `Err` for an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0, f64::NAN, 3.0, -0.0, 0.0, 3.0], [6]).unwrap();
    /// let s = a.sort_descending(0).unwrap().to_vec();
    /// assert!(s[0].is_nan());
    /// assert_eq!(s[1..], [3.0, 3.0, 1.0, -0.0, 0.0]);
    /// assert!(s[4].is_sign_negative(), "-0.0 came first in the input: stable");
    /// ```
    pub fn sort_descending(&self, axis: isize) -> Result<Tensor<T, D>> {
        self.sort_impl(axis, true, "sort_descending")
    }

    /// [`sort`](TensorBase::sort) or [`sort_descending`](TensorBase::sort_descending).
    fn sort_impl(&self, axis: isize, descending: bool, op: &'static str) -> Result<Tensor<T, D>> {
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let v = axis_last(&self.view(), ax);
        let moved = v.shape().to_vec();
        let n = moved[moved.len() - 1];
        if !descending && let Some(out) = sort_long_f32(&v, n)? {
            return restore_axis(out, &moved, ax, op);
        }
        let mut out = alloc::<T>(&moved, op)?;
        if out.is_empty() {
            return restore_axis(out, &moved, ax, op);
        }
        if !descending
            && let (Some(buf), Some(o)) = (
                same_type::slice::<T, f32>(v.storage.0),
                same_type::slice_mut::<T, f32>(&mut out),
            )
            && n <= u32::MAX as usize
        {
            sort_f32(&v, buf, o);
            return restore_axis(out, &moved, ax, op);
        }
        let key = order_key::<T>(descending);
        let (buf, st) = (v.storage.0, v.strides()[v.ndim() - 1]);
        if out.len() == n {
            // One lane: copy it, then sort it on all threads.
            super::copy_into(&mut out, &super::c_strides(&moved), 0, &v);
            let mut tmp = alloc::<T>(&moved, op)?;
            if par_sort_run(&mut out, &mut tmp, T::KEY_BYTES, sort_threads(n), &key) {
                out = tmp;
            }
        } else {
            per_lane(
                &v,
                &mut out,
                || vec![T::default(); n],
                |tmp, lane, o| {
                    for (i, x) in lane.iter_mut().enumerate() {
                        *x = buf[(o + i as isize * st) as usize];
                    }
                    if sort_run(lane, tmp, T::KEY_BYTES, &key) {
                        lane.copy_from_slice(tmp);
                    }
                },
            );
        }
        restore_axis(out, &moved, ax, op)
    }

    /// The indices that sort each lane along `axis` (NumPy `argsort(kind="stable")`):
    /// equal elements keep their order, NaNs come last. `Err` for an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2, 1, 2, 1], [4]).unwrap();
    /// assert_eq!(a.argsort(0).unwrap().to_vec(), vec![1, 3, 0, 2]);
    /// ```
    pub fn argsort(&self, axis: isize) -> Result<Tensor<usize, D>> {
        self.argsort_impl(axis, false, "argsort")
    }

    /// The indices that sort each lane along `axis` largest first (PyTorch
    /// `argsort(dim, descending=True, stable=True)`): equal elements keep their order,
    /// NaNs come first (see [`sort_descending`](TensorBase::sort_descending)). `Err`
    /// for an axis out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![2, 1, 2, 1], [4]).unwrap();
    /// assert_eq!(a.argsort_descending(0).unwrap().to_vec(), vec![0, 2, 1, 3]);
    /// let f = Tensor::from_vec(vec![0.5, f32::NAN, 2.0], [3]).unwrap();
    /// assert_eq!(f.argsort_descending(-1).unwrap().to_vec(), vec![1, 2, 0]);
    /// ```
    pub fn argsort_descending(&self, axis: isize) -> Result<Tensor<usize, D>> {
        self.argsort_impl(axis, true, "argsort_descending")
    }

    /// [`argsort`](TensorBase::argsort) or [`argsort_descending`](TensorBase::argsort_descending).
    fn argsort_impl(&self, axis: isize, descending: bool, op: &'static str) -> Result<Tensor<usize, D>> {
        let ax = normalize_axis(axis, self.ndim(), op)?;
        let v = axis_last(&self.view(), ax);
        let moved = v.shape().to_vec();
        let n = moved[moved.len() - 1];
        let mut out = alloc::<usize>(&moved, op)?;
        if out.is_empty() {
            return restore_axis(out, &moved, ax, op);
        }
        let key = order_key::<T>(descending);
        let pair_key = |p: &(u64, usize)| p.0;
        let (buf, st) = (v.storage.0, v.strides()[v.ndim() - 1]);
        let threads = if out.len() == n { sort_threads(n) } else { 1 };
        per_lane(
            &v,
            &mut out,
            || (vec![(0u64, 0usize); n], vec![(0u64, 0usize); n]),
            |(pairs, tmp), lane, o| {
                for (i, p) in pairs.iter_mut().enumerate() {
                    *p = (key(&buf[(o + i as isize * st) as usize]), i);
                }
                let sorted = if par_sort_run(pairs, tmp, T::KEY_BYTES, threads, &pair_key) {
                    &*tmp
                } else {
                    &*pairs
                };
                for (x, p) in lane.iter_mut().zip(sorted) {
                    *x = p.1;
                }
            },
        );
        restore_axis(out, &moved, ax, op)
    }
}
