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
/// The calling thread takes part: the other threads are asked for as rayon spawns and
/// every thread takes the next task from a shared counter, so a thread that starts late
/// (a sleeping pool thread takes tens of microseconds to wake, far longer when another
/// process holds its core) simply takes fewer. When the counter is exhausted the caller
/// waits only for helpers that are running a task; a helper that has not started by
/// then finds the loop closed and returns without running anything, so a late helper
/// never delays the caller (a rayon scope would wait for it to start, and at batch 1 a
/// network makes tens of such loops, each a fraction of a millisecond). A panic in a
/// task is raised on the caller after every running helper has left the loop.
pub(crate) fn par_tasks<I>(n: usize, init: impl Fn() -> I + Sync, f: impl Fn(&mut I, usize) + Sync) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = crate::threads::num_threads().min(n);
    if threads <= 1 {
        let mut st = init();
        (0..n).for_each(|i| f(&mut st, i));
        return;
    }
    let next = AtomicUsize::new(0);
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
    let gate = std::sync::Arc::new(Gate::new(&work));
    // Closes the gate (waiting for running helpers) also when the caller's own tasks
    // panic: the helpers borrow `work` from this frame.
    struct CloseOnDrop<'a>(&'a Gate);
    impl Drop for CloseOnDrop<'_> {
        fn drop(&mut self) {
            self.0.close();
        }
    }
    {
        let _close = CloseOnDrop(&gate);
        for _ in 1..threads {
            let gate = std::sync::Arc::clone(&gate);
            rayon::spawn(move || gate.run());
        }
        work();
    }
    if let Some(p) = gate.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
        std::panic::resume_unwind(p);
    }
}

/// The entry of [`par_tasks`]' helpers: the loop's work (borrowed from the caller's
/// frame, lifetime erased) and a state word, [`Gate::CLOSED`] plus the number of
/// helpers inside. A helper enters only while the gate is open; the caller closes it
/// once no helper is inside, after which nothing reads `work` again.
struct Gate {
    work: *const (dyn Fn() + Sync + 'static),
    state: std::sync::atomic::AtomicUsize,
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `work` points to a `Sync` closure and is only called by helpers that entered
// the gate while it was open; the caller keeps the closure alive until the gate is
// closed with no helper inside (`close`). The other fields are `Send + Sync`.
unsafe impl Send for Gate {}
// SAFETY: as above.
unsafe impl Sync for Gate {}

impl Gate {
    const CLOSED: usize = 1 << (usize::BITS - 1);

    fn new<'a>(work: &'a (dyn Fn() + Sync + 'a)) -> Self {
        let p: *const (dyn Fn() + Sync + 'a) = work;
        // SAFETY: only the lifetime bound changes (same fat-pointer layout); the pointer
        // is dereferenced only while the gate is open, which `par_tasks` ends (by
        // `close`, also on unwinding) before `work` goes out of scope.
        let work =
            unsafe { std::mem::transmute::<*const (dyn Fn() + Sync + 'a), *const (dyn Fn() + Sync + 'static)>(p) };
        Gate {
            work,
            state: std::sync::atomic::AtomicUsize::new(0),
            panic: std::sync::Mutex::new(None),
        }
    }

    /// A helper: runs the loop if the gate is still open, and records a panic.
    fn run(&self) {
        use std::sync::atomic::Ordering;
        let mut s = self.state.load(Ordering::Relaxed);
        loop {
            if s & Self::CLOSED != 0 {
                return;
            }
            match self
                .state
                .compare_exchange_weak(s, s + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        // SAFETY: the gate was open when this helper entered, so the caller has not
        // finished `close` and keeps `work` alive until this helper leaves (below).
        let work = unsafe { &*self.work };
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            *self.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        }
        self.state.fetch_sub(1, Ordering::Release);
    }

    /// Waits until no helper is inside, then closes the gate to later ones. Helpers
    /// inside are running tasks (they leave when the counter is exhausted), so the
    /// wait is at most their last task: spin briefly, then yield the core (the helper
    /// may be waiting for it).
    fn close(&self) {
        use std::sync::atomic::Ordering;
        let mut spins = 0u32;
        while self
            .state
            .compare_exchange_weak(0, Self::CLOSED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            if spins < 1 << 10 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
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

    /// The same in a two-thread pool of its own (so that a helper exists also where the
    /// global pool has one thread, as under Miri), from a pool thread.
    #[test]
    fn par_tasks_in_a_two_thread_pool() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
        let n = if cfg!(miri) { 12 } else { 500 };
        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..if cfg!(miri) { 2 } else { 50 } {
            pool.install(|| par_tasks(n, || (), |_, i| _ = hits[i].fetch_add(1, Ordering::Relaxed)));
        }
        let want = if cfg!(miri) { 2 } else { 50 };
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == want));
    }

    /// A panic in any task reaches the caller (after the loop is closed), with its message.
    #[test]
    fn par_tasks_raises_a_task_panic_on_the_caller() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
        for bad in [0, 7] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    par_tasks(
                        8,
                        || (),
                        |_, i| {
                            assert!(i != bad, "task {i} failed");
                        },
                    )
                })
            }));
            let msg = r.expect_err("the panic propagates");
            let text = msg.downcast_ref::<String>().map(String::as_str).unwrap_or("");
            assert_eq!(text, format!("task {bad} failed"));
        }
    }

    /// A helper that arrives after the caller closed the loop runs nothing (it would
    /// read the caller's finished frame); one that arrives before runs the work.
    #[test]
    fn gate_runs_work_only_while_open() {
        let ran = AtomicUsize::new(0);
        let work = || _ = ran.fetch_add(1, Ordering::Relaxed);
        let gate = super::Gate::new(&work);
        gate.run();
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        gate.close();
        gate.run();
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        assert_eq!(gate.state.load(Ordering::Relaxed), super::Gate::CLOSED);
    }
}
