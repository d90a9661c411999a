//! Small helpers shared by the `nn` functions: shape checks, contiguous access,
//! parallel task loops and the `f16`/`bf16` → `f32` bridge.

use crate::element::{Element, Float};
use crate::error::{Error, Result, fmt_shape};
use crate::iter::Src;
use crate::iter::zip::map_new_slices;
use crate::layout::{Dimension, IntoShape};
pub(crate) use crate::same_type::{slice as cast_slice, vec as cast_vec};
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
/// [`crate::threads::num_threads`] threads; `init` makes one scratch state per thread.
///
/// The calling thread takes part: the other threads are started as rayon spawns and
/// every thread takes the next task from a shared counter. Handing the whole loop to
/// rayon's pool instead (`into_par_iter` from a thread outside the pool) puts the
/// caller to sleep while the pool threads are woken, and wakes it again at the end:
/// two sleeps and wake-ups per call, which at batch 1 (tens of calls per network, each
/// a fraction of a millisecond) cost as much as the second core gains. Tasks are taken
/// one at a time, so a thread that starts late simply takes fewer.
pub(crate) fn par_tasks<I>(n: usize, init: impl Fn() -> I + Sync, f: impl Fn(&mut I, usize) + Sync) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = crate::threads::num_threads().min(n);
    if threads <= 1 {
        let mut st = init();
        (0..n).for_each(|i| f(&mut st, i));
        return;
    }
    let next = AtomicUsize::new(0);
    // Helpers still running (spawned and not yet out of their loop).
    let running = AtomicUsize::new(threads - 1);
    let work = || {
        let mut st = None;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                break;
            }
            f(st.get_or_insert_with(&init), i);
        }
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| {
                work();
                running.fetch_sub(1, Ordering::Release);
            });
        }
        work();
        // The caller, out of tasks, waits for the helpers' last tasks by spinning for a
        // short while before the scope puts it to sleep: a sleep ends with a wake-up
        // that costs tens of microseconds, a sizeable part of a layer at batch 1.
        let t0 = std::time::Instant::now();
        while running.load(Ordering::Acquire) != 0 && t0.elapsed() < SPIN_LIMIT {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
    });
}

/// How long [`par_tasks`]'s caller spins for the helpers' last tasks: a few wake-up
/// latencies of a sleeping thread (an operating-system cost, the same on every CPU).
const SPIN_LIMIT: std::time::Duration = std::time::Duration::from_micros(100);

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

/// Splits a shape at `axis` into `(outer, axis length, inner)` element counts.
pub(crate) fn split_at_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// Relative cost per element of an activation for the engine's parallel split (1 = an
/// add): activations split from 64 Ki elements.
const ACTIVATION_COST: usize = 2;

/// `k` (an in-place slice kernel) of every element of `x`, into a new row-major vector
/// through the engine (any layout; strided inputs are gathered in chunks).
fn map_with_kernel<E: Float>(x: Src<'_, E>, shape: &[usize], k: &(impl Fn(&mut [E]) + Sync)) -> Vec<E> {
    map_new_slices(
        shape,
        x,
        ACTIVATION_COST,
        |v| {
            let mut one = [v];
            k(&mut one);
            one[0]
        },
        |src, dst| {
            dst.copy_from_slice(src);
            k(dst)
        },
    )
}

/// Elements per parallel task of [`par_chunks_rows`].
const CHUNK: usize = 1 << 16;

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

/// A new row-major tensor with `x`'s shape and rank type: every element transformed by
/// the `f32` or `f64` in-place kernel (other float types go through `f32`), through the
/// engine.
pub(crate) fn map_float<T: Float, S: Storage<Elem = T>, D: Dimension>(
    x: &TensorBase<S, D>,
    k32: impl Fn(&mut [f32]) + Sync,
    k64: impl Fn(&mut [f64]) + Sync,
) -> Tensor<T, D> {
    let (buf, layout) = (x.storage.buffer(), &x.layout);
    let data: Vec<T> = if let Some(b) = cast_slice::<T, f32>(buf) {
        let v = map_with_kernel(Src::of(b, layout), x.shape(), &k32);
        cast_vec(v).unwrap_or_else(|_| unreachable!("T is f32"))
    } else if let Some(b) = cast_slice::<T, f64>(buf) {
        let v = map_with_kernel(Src::of(b, layout), x.shape(), &k64);
        cast_vec(v).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        // f16 and bf16: each chunk through f32.
        let k = |s: &mut [f32]| k32(s);
        map_new_slices(
            x.shape(),
            Src::of(buf, layout),
            ACTIVATION_COST,
            |v: T| {
                let mut one = [Float::to_f32(v)];
                k(&mut one);
                T::from_f32(one[0])
            },
            |src, dst| {
                const PART: usize = 256;
                let mut w = [0f32; PART];
                for (s, d) in src.chunks(PART).zip(dst.chunks_mut(PART)) {
                    let w = &mut w[..s.len()];
                    w.iter_mut().zip(s).for_each(|(w, &v)| *w = Float::to_f32(v));
                    k(w);
                    d.iter_mut().zip(w.iter()).for_each(|(d, &w)| *d = T::from_f32(w));
                }
            },
        )
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

/// `f32k` or `f64k` on the elements as their native type (other float types through
/// `f32`), returning the result as `T`.
pub(crate) fn native_float<T: Float>(
    data: &[T],
    f32k: impl FnOnce(&[f32]) -> Vec<f32>,
    f64k: impl FnOnce(&[f64]) -> Vec<f64>,
) -> Vec<T> {
    if let Some(xs) = cast_slice::<T, f32>(data) {
        cast_vec(f32k(xs)).unwrap_or_else(|_| unreachable!("T is f32"))
    } else if let Some(xs) = cast_slice::<T, f64>(data) {
        cast_vec(f64k(xs)).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        from_f32(&f32k(&to_f32(data)))
    }
}

#[cfg(test)]
mod tests {
    use super::par_tasks;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every task runs exactly once, on two threads, also when a task itself runs a
    /// parallel loop (from inside rayon's pool).
    #[test]
    fn par_tasks_runs_each_task_once_also_nested() {
        let hits: Vec<AtomicUsize> = (0..200).map(|_| AtomicUsize::new(0)).collect();
        let states = AtomicUsize::new(0);
        crate::with_num_threads(2, || {
            par_tasks(
                20,
                || states.fetch_add(1, Ordering::Relaxed),
                |_, i| {
                    crate::with_num_threads(2, || {
                        par_tasks(10, || (), |_, j| _ = hits[i * 10 + j].fetch_add(1, Ordering::Relaxed))
                    })
                },
            )
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        // One scratch state per thread that took a task, never one per task.
        let s = states.load(Ordering::Relaxed);
        assert!((1..=2).contains(&s), "{s} states for two threads");
    }
}
