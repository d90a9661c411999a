//! Small helpers shared by the `nn` functions: shape checks, contiguous access,
//! parallel task loops and the `f16`/`bf16` → `f32` bridge.

use crate::element::{Element, Float};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IntoShape};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use std::any::TypeId;
use std::borrow::Cow;

/// The elements in row-major order: borrowed when the tensor is row-major contiguous.
pub(crate) fn contiguous<T: Element, S: Storage<Elem = T>, D: Dimension>(x: &TensorBase<S, D>) -> Cow<'_, [T]> {
    match x.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(x.to_vec()),
    }
}

/// The shape as `N` lengths, or `Err` naming `op`, what was expected and the shape.
pub(crate) fn dims<const N: usize>(shape: &[usize], op: &'static str, what: &str) -> Result<[usize; N]> {
    <[usize; N]>::try_from(shape)
        .map_err(|_| Error::shape(op, format!("expected a {N}-D {what}, got shape {}", fmt_shape(shape))))
}

/// An owned row-major tensor from a vector whose length matches the shape.
pub(crate) fn owned<T: Element, Sh: IntoShape>(data: Vec<T>, shape: Sh) -> Tensor<T, Sh::Dim> {
    Tensor::from_vec(data, shape).expect("nn: output buffer sized from its shape")
}

/// An owned row-major tensor of rank type `D` from a vector whose length matches
/// `shape` (whose rank is `D`'s: the callers build it from an input of rank type `D`).
pub(crate) fn owned_dim<T: Element, D: Dimension>(data: Vec<T>, shape: &[usize]) -> Tensor<T, D> {
    let dim = D::from_dims(shape).expect("nn: output rank is the input's");
    Tensor::owned_from(data, dim, crate::Order::RowMajor, "nn").expect("nn: output buffer sized from its shape")
}

/// True for the element types the GEMM and vectorised kernels take natively.
pub(crate) fn is_native<T: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>()
}

/// `T` values as `f32` (for computing `f16`/`bf16` through `f32`).
pub(crate) fn to_f32<T: Float>(s: &[T]) -> Vec<f32> {
    s.iter().map(|&x| Float::to_f32(x)).collect()
}

/// `f32` values rounded to `T`.
pub(crate) fn from_f32<T: Float>(s: &[f32]) -> Vec<T> {
    s.iter().map(|&x| T::from_f32(x)).collect()
}

/// Runs `f(state, i)` for `i in 0..n`, split over at most
/// [`crate::threads::num_threads`] threads; `init` makes one scratch state per piece.
pub(crate) fn par_tasks<I>(n: usize, init: impl Fn() -> I + Sync, f: impl Fn(&mut I, usize) + Sync) {
    use rayon::prelude::*;
    let threads = crate::threads::num_threads();
    if threads <= 1 || n <= 1 {
        let mut st = init();
        (0..n).for_each(|i| f(&mut st, i));
    } else if threads >= rayon::current_num_threads() {
        (0..n).into_par_iter().for_each_init(&init, |st, i| f(st, i));
    } else {
        let chunks = threads.min(n);
        (0..chunks).into_par_iter().for_each(|c| {
            let mut st = init();
            (n * c / chunks..n * (c + 1) / chunks).for_each(|i| f(&mut st, i));
        });
    }
}

/// `Err` unless every listed value is nonzero.
pub(crate) fn check_nonzero(op: &'static str, what: &str, values: &[usize]) -> Result<()> {
    if values.contains(&0) {
        return Err(Error::value(op, format!("{what} must be nonzero, got {values:?}")));
    }
    Ok(())
}

/// PyTorch's output length `floor((len + 2p − d(k−1) − 1) / s) + 1`, or `Err` when the
/// dilated kernel is larger than the padded input.
pub(crate) fn out_len(
    op: &'static str,
    len: usize,
    k: usize,
    s: usize,
    p: usize,
    d: usize,
    shapes: &str,
) -> Result<usize> {
    let span = d * (k - 1) + 1;
    let padded = len + 2 * p;
    if span > padded {
        return Err(Error::shape(
            op,
            format!(
                "kernel of extent {span} (size {k}, dilation {d}) is larger than the padded input of length {padded} ({shapes})"
            ),
        ));
    }
    Ok((padded - span) / s + 1)
}

/// `s` as a slice of `U` when `T` and `U` are the same type.
pub(crate) fn cast_slice<T: 'static, U: 'static>(s: &[T]) -> Option<&[U]> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        // SAFETY: `T` and `U` are the same type, so layout, alignment and validity agree.
        Some(unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<U>(), s.len()) })
    } else {
        None
    }
}

/// `v` as a vector of `U` when `T` and `U` are the same type (no copy).
pub(crate) fn cast_vec<T: 'static, U: 'static>(v: Vec<T>) -> std::result::Result<Vec<U>, Vec<T>> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        let mut v = std::mem::ManuallyDrop::new(v);
        // SAFETY: `T` and `U` are the same type; the parts come from a live Vec that is
        // not dropped (ManuallyDrop), so ownership moves to the new Vec.
        Ok(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<U>(), v.len(), v.capacity()) })
    } else {
        Err(v)
    }
}

/// Splits a shape at `axis` into `(outer, axis length, inner)` element counts.
pub(crate) fn split_at_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// Elements per parallel piece of an element-wise pass.
const CHUNK: usize = 1 << 16;

/// Runs `f` on consecutive chunks of `data`, in parallel above [`CHUNK`] elements.
pub(crate) fn par_chunks<E: Send>(data: &mut [E], f: impl Fn(&mut [E]) + Sync) {
    let n = data.len();
    let ptr = crate::iter::SendPtr(data.as_mut_ptr());
    par_tasks(
        n.div_ceil(CHUNK),
        || (),
        |_, t| {
            let (a, b) = (t * CHUNK, ((t + 1) * CHUNK).min(n));
            // SAFETY: chunk t is inside `data` and no other task touches it.
            f(unsafe { std::slice::from_raw_parts_mut(ptr.get().add(a), b - a) })
        },
    );
}

/// Runs `f(first_row, rows)` on consecutive runs of whole rows of `row` elements of
/// `data`, in parallel above [`CHUNK`] elements.
pub(crate) fn par_chunks_rows<E: Send>(data: &mut [E], row: usize, f: impl Fn(usize, &mut [E]) + Sync) {
    let rows = data.len() / row.max(1);
    let per = (CHUNK / row.max(1)).max(1);
    let ptr = crate::iter::SendPtr(data.as_mut_ptr());
    par_tasks(
        rows.div_ceil(per),
        || (),
        |_, t| {
            let (a, b) = (t * per, ((t + 1) * per).min(rows));
            // SAFETY: rows a..b are inside `data` and no other task touches them.
            f(a, unsafe {
                std::slice::from_raw_parts_mut(ptr.get().add(a * row), (b - a) * row)
            })
        },
    );
}

/// An owned row-major copy of `x` with the same rank type, transformed in place by the
/// `f32` or `f64` kernel (other float types go through `f32`).
pub(crate) fn map_float<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    k32: impl Fn(&mut [f32]) + Sync,
    k64: impl Fn(&mut [f64]) + Sync,
) -> Tensor<T, D> {
    let v = contiguous(x).into_owned();
    let data: Vec<T> = match cast_vec::<T, f32>(v) {
        Ok(mut v) => {
            par_chunks(&mut v, &k32);
            cast_vec(v).unwrap_or_else(|_| unreachable!())
        }
        Err(v) => match cast_vec::<T, f64>(v) {
            Ok(mut v) => {
                par_chunks(&mut v, &k64);
                cast_vec(v).unwrap_or_else(|_| unreachable!())
            }
            Err(v) => {
                let mut w = to_f32(&v);
                par_chunks(&mut w, &k32);
                from_f32(&w)
            }
        },
    };
    Tensor::owned_from(data, x.dim().clone(), crate::Order::RowMajor, "nn").expect("same shape")
}

/// The indices `i` in `[lo, hi)` ⊆ `[0, count)` for which `i·s + off` lies in
/// `[0, limit)`: the output columns a kernel tap reads inside the input (or, for a
/// transposed convolution, the input columns that land inside the output).
pub(crate) fn valid_range(off: isize, s: usize, limit: usize, count: usize) -> (usize, usize) {
    let s = s as isize;
    let lo = if off >= 0 { 0 } else { ((-off + s - 1) / s) as usize };
    let last = limit as isize - 1 - off;
    let hi = if last < 0 { 0 } else { (last / s + 1) as usize };
    let lo = lo.min(count);
    (lo, hi.clamp(lo, count))
}
