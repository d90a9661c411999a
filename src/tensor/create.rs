//! Creation functions.
//!
//! Every constructor that allocates comes in two forms: the plain one panics when the
//! tensor cannot exist (a shape past the [shape limits](crate::layout::check_shape), a
//! byte size past `isize::MAX`, or memory the allocator refuses), with a message naming
//! the operation and the shape; its `try_` twin returns that message as `Err`. None
//! aborts the process.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let e = Tensor::<f64, _>::try_zeros([0, 1 << 32, 1 << 32]).unwrap_err();
//! assert!(e.to_string().starts_with("zeros: shape (0, 4294967296, 4294967296) overflows"));
//! let e = Tensor::<f64, _>::try_zeros([1usize << 61]).unwrap_err();
//! assert!(e.to_string().contains("bytes exceed isize::MAX"));
//! ```

use super::{Tensor, TensorBase};
use crate::element::{Element, Float, Num};
use crate::error::{Error, Result, fmt_shape, unwrap_or_panic};
use crate::layout::{Dimension, IntoShape, Ix0, Ix1, Ix2, Layout, Order};
use crate::storage::alloc::{try_filled, try_with_capacity};
use crate::storage::{OwnedRepr, Storage};

impl<T: Element, D: Dimension> Tensor<T, D> {
    pub(crate) fn owned_from(data: Vec<T>, shape: D, order: Order, op: &'static str) -> Result<Self> {
        let layout = Layout::contiguous(shape, order, op)?;
        if data.len() != layout.size() {
            return Err(Error::shape(
                op,
                format!(
                    "{} elements do not fit shape {} of size {}",
                    data.len(),
                    fmt_shape(layout.shape()),
                    layout.size()
                ),
            ));
        }
        Ok(TensorBase {
            storage: OwnedRepr(data),
            layout,
        })
    }

    /// A tensor of `shape` with every element `value`.
    ///
    /// # Panics
    /// If the tensor cannot exist: the shape breaks a [shape
    /// limit](crate::layout::check_shape), its byte size exceeds `isize::MAX`, or the
    /// allocator refuses the memory. The message names the operation and the shape;
    /// [`Tensor::try_full`] returns it as `Err` instead.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::full([2, 2], 7u8);
    /// assert_eq!(a.to_vec(), vec![7; 4]);
    /// ```
    #[track_caller]
    pub fn full<Sh: IntoShape<Dim = D>>(shape: Sh, value: T) -> Self {
        unwrap_or_panic(Self::filled(shape.into_dim(), value, "full"))
    }

    /// [`Tensor::full`] that returns `Err` instead of panicking.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the shape breaks a [shape
    /// limit](crate::layout::check_shape); [`Error::Alloc`] if the byte size exceeds
    /// `isize::MAX` or the allocator refuses the memory.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::try_full([3], 1.5f32).unwrap().to_vec(), vec![1.5; 3]);
    /// let e = Tensor::try_full([1usize << 62, 4], 0u8).unwrap_err();
    /// assert!(e.to_string().starts_with("full: shape (4611686018427387904, 4) overflows"));
    /// ```
    pub fn try_full<Sh: IntoShape<Dim = D>>(shape: Sh, value: T) -> Result<Self> {
        Self::filled(shape.into_dim(), value, "full")
    }

    /// A row-major tensor of `shape` filled with `value`; errors name `op`.
    pub(crate) fn filled(shape: D, value: T, op: &'static str) -> Result<Self> {
        let layout = Layout::contiguous(shape, Order::RowMajor, op)?;
        let data = try_filled(layout.size(), value, layout.shape(), op)?;
        Ok(TensorBase {
            storage: OwnedRepr(data),
            layout,
        })
    }

    /// A tensor of `shape` filled with `T::default()` (zero for numbers, `false` for bool).
    /// The memory comes zeroed from the system, so a large tensor costs nothing until
    /// it is touched.
    ///
    /// # Panics
    /// If the tensor cannot exist: the shape breaks a [shape
    /// limit](crate::layout::check_shape), its byte size exceeds `isize::MAX`, or the
    /// allocator refuses the memory. The message names the operation and the shape;
    /// [`Tensor::try_zeros`] returns it as `Err` instead.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f64, _>::zeros([2, 3]);
    /// let _: &Tensor<f64, Ix2> = &a;
    /// assert!(a.iter().all(|&x| x == 0.0));
    /// ```
    ///
    /// ```should_panic
    /// use ferrotensor::prelude::*;
    /// // panics: "zeros: cannot allocate shape (1152921504606846976,) of float64: …"
    /// let a = Tensor::<f64, _>::zeros([1usize << 60]);
    /// ```
    #[track_caller]
    pub fn zeros<Sh: IntoShape<Dim = D>>(shape: Sh) -> Self {
        unwrap_or_panic(Self::filled(shape.into_dim(), T::default(), "zeros"))
    }

    /// [`Tensor::zeros`] that returns `Err` instead of panicking.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the shape breaks a [shape
    /// limit](crate::layout::check_shape); [`Error::Alloc`] if the byte size exceeds
    /// `isize::MAX` or the allocator refuses the memory.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<i32, _>::try_zeros([2]).unwrap().to_vec(), vec![0, 0]);
    /// assert!(Tensor::<i32, _>::try_zeros([0, usize::MAX]).is_err());
    /// assert!(matches!(Tensor::<f64, _>::try_zeros([1usize << 61]), Err(Error::Alloc { .. })));
    /// ```
    pub fn try_zeros<Sh: IntoShape<Dim = D>>(shape: Sh) -> Result<Self> {
        Self::filled(shape.into_dim(), T::default(), "zeros")
    }

    /// Row-major tensor from a vector. Never copies `data`.
    ///
    /// # Errors
    /// If the shape breaks a [shape limit](crate::layout::check_shape) or its size
    /// differs from `data.len()`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// assert_eq!(a[[1, 0]], 4);
    /// assert!(Tensor::from_vec(vec![1, 2, 3], [2, 2]).is_err());
    /// assert!(Tensor::<f32, _>::from_vec(vec![], [0, usize::MAX]).is_err());
    /// ```
    pub fn from_vec<Sh: IntoShape<Dim = D>>(data: Vec<T>, shape: Sh) -> Result<Self> {
        Self::owned_from(data, shape.into_dim(), Order::RowMajor, "from_vec")
    }

    /// Tensor from a vector laid out in `order`. Never copies.
    ///
    /// # Errors
    /// If the shape breaks a [shape limit](crate::layout::check_shape) or its size
    /// differs from `data.len()`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec_order(vec![1, 2, 3, 4, 5, 6], [2, 3], Order::ColMajor).unwrap();
    /// assert_eq!(a[[0, 1]], 3);
    /// assert!(a.is_f_contiguous());
    /// ```
    pub fn from_vec_order<Sh: IntoShape<Dim = D>>(data: Vec<T>, shape: Sh, order: Order) -> Result<Self> {
        Self::owned_from(data, shape.into_dim(), order, "from_vec_order")
    }

    /// Row-major tensor copied from a slice.
    ///
    /// # Errors
    /// If the shape breaks a [shape limit](crate::layout::check_shape), its size
    /// differs from `data.len()`, or the allocator refuses the copy ([`Error::Alloc`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_slice(&[1.0, 2.0], [2]).unwrap();
    /// assert_eq!(a.to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn from_slice<Sh: IntoShape<Dim = D>>(data: &[T], shape: Sh) -> Result<Self> {
        let shape = shape.into_dim();
        let mut v = try_with_capacity(data.len(), shape.slice(), "from_slice")?;
        v.extend_from_slice(data);
        Self::owned_from(v, shape, Order::RowMajor, "from_slice")
    }

    /// Tensor whose element at each index is `f(index)`, filled in row-major order.
    ///
    /// # Panics
    /// If the tensor cannot exist (as [`Tensor::zeros`]), with a message naming the
    /// operation and the shape, or if `f` panics.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_shape_fn([2, 3], |i: &[usize]| 10 * i[0] + i[1]);
    /// assert_eq!(a.to_vec(), vec![0, 1, 2, 10, 11, 12]);
    /// ```
    #[track_caller]
    pub fn from_shape_fn<Sh: IntoShape<Dim = D>>(shape: Sh, mut f: impl FnMut(&[usize]) -> T) -> Self {
        const OP: &str = "from_shape_fn";
        let layout = unwrap_or_panic(Layout::contiguous(shape.into_dim(), Order::RowMajor, OP));
        let n = layout.size();
        let mut data = unwrap_or_panic(try_with_capacity(n, layout.shape(), OP));
        let dims = layout.shape();
        let mut idx = vec![0usize; dims.len()];
        for _ in 0..n {
            data.push(f(&idx));
            for ax in (0..dims.len()).rev() {
                idx[ax] += 1;
                if idx[ax] < dims[ax] {
                    break;
                }
                idx[ax] = 0;
            }
        }
        TensorBase {
            storage: OwnedRepr(data),
            layout,
        }
    }

    /// A tensor with the shape of `other`, filled with `T::default()`.
    ///
    /// # Panics
    /// If the allocator refuses the memory or its byte size exceeds `isize::MAX` (a
    /// broadcast view may name far more elements than its buffer holds); the message
    /// names the operation and the shape.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 2]);
    /// assert_eq!(Tensor::<f32, _>::zeros_like(&a).to_vec(), vec![0.0; 4]);
    /// ```
    #[track_caller]
    pub fn zeros_like<S2: Storage>(other: &TensorBase<S2, D>) -> Self {
        unwrap_or_panic(Self::filled(other.dim().clone(), T::default(), "zeros_like"))
    }

    /// A tensor with the shape of `other`, filled with `value`.
    ///
    /// # Panics
    /// As [`Tensor::zeros_like`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([3]);
    /// assert_eq!(Tensor::full_like(&a, 2i64).to_vec(), vec![2, 2, 2]);
    /// ```
    #[track_caller]
    pub fn full_like<S2: Storage>(other: &TensorBase<S2, D>, value: T) -> Self {
        unwrap_or_panic(Self::filled(other.dim().clone(), value, "full_like"))
    }
}

impl<T: Element, D: Dimension> IntoShape for &TensorBase<OwnedRepr<T>, D> {
    type Dim = D;
    fn into_dim(self) -> D {
        self.dim().clone()
    }
}

impl<T: Num, D: Dimension> Tensor<T, D> {
    /// A tensor of `shape` filled with ones.
    ///
    /// # Panics
    /// If the tensor cannot exist, as [`Tensor::zeros`]; [`Tensor::try_ones`] returns
    /// `Err` instead.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<i32, _>::ones([3]).to_vec(), vec![1, 1, 1]);
    /// ```
    #[track_caller]
    pub fn ones<Sh: IntoShape<Dim = D>>(shape: Sh) -> Self {
        unwrap_or_panic(Self::filled(shape.into_dim(), T::one(), "ones"))
    }

    /// [`Tensor::ones`] that returns `Err` instead of panicking.
    ///
    /// # Errors
    /// As [`Tensor::try_zeros`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<u8, _>::try_ones([2]).unwrap().to_vec(), vec![1, 1]);
    /// assert!(Tensor::<u8, _>::try_ones(vec![1; 65]).is_err());
    /// ```
    pub fn try_ones<Sh: IntoShape<Dim = D>>(shape: Sh) -> Result<Self> {
        Self::filled(shape.into_dim(), T::one(), "ones")
    }

    /// A tensor with the shape of `other`, filled with ones.
    ///
    /// # Panics
    /// As [`Tensor::zeros_like`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// assert_eq!(Tensor::<f64, _>::ones_like(&a).to_vec(), vec![1.0, 1.0]);
    /// ```
    #[track_caller]
    pub fn ones_like<S2: Storage>(other: &TensorBase<S2, D>) -> Self {
        unwrap_or_panic(Self::filled(other.dim().clone(), T::one(), "ones_like"))
    }
}

impl<T: Float, D: Dimension> Tensor<T, D> {
    /// Uniform random values in `[0, 1)` from a caller-given generator (reproducible
    /// with a seeded RNG). Each value is a multiple of 2^-p (p = mantissa bits), so it
    /// is exact in `T` and never rounds up to 1.
    ///
    /// # Panics
    /// If the tensor cannot exist, as [`Tensor::zeros`] (the message names `rand`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    /// let a = Tensor::<f32, _>::rand([100], &mut rng);
    /// assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// let mut rng2 = rand::rngs::StdRng::seed_from_u64(7);
    /// assert_eq!(a.to_vec(), Tensor::<f32, _>::rand([100], &mut rng2).to_vec());
    /// ```
    #[track_caller]
    pub fn rand<Sh: IntoShape<Dim = D>, R: rand::Rng + ?Sized>(shape: Sh, rng: &mut R) -> Self {
        let bits = (1.0 - T::epsilon().to_f64().log2()).round() as u32; // mantissa digits
        let scale = (-(bits as f64)).exp2();
        let mut t = unwrap_or_panic(Self::filled(shape.into_dim(), T::zero(), "rand"));
        for x in t.storage.0.iter_mut() {
            let k = rng.random::<u64>() >> (64 - bits);
            *x = T::from_f64(k as f64 * scale);
        }
        t
    }

    /// Standard normal random values (mean 0, standard deviation 1) from a
    /// caller-given generator.
    ///
    /// # Panics
    /// If the tensor cannot exist, as [`Tensor::zeros`] (the message names `randn`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    /// let a = Tensor::<f64, _>::randn([10000], &mut rng);
    /// let mean = a.iter().sum::<f64>() / 10000.0;
    /// assert!(mean.abs() < 0.05);
    /// ```
    #[track_caller]
    pub fn randn<Sh: IntoShape<Dim = D>, R: rand::Rng + ?Sized>(shape: Sh, rng: &mut R) -> Self {
        use rand_distr::Distribution;
        let mut t = unwrap_or_panic(Self::filled(shape.into_dim(), T::zero(), "randn"));
        for x in t.storage.0.iter_mut() {
            let v: f64 = rand_distr::StandardNormal.sample(rng);
            *x = T::from_f64(v);
        }
        t
    }
}

impl<T: Num> Tensor<T> {
    /// `0, 1, …, n-1` as `T`: a 1-D `Tensor<T, Ix1>` (NumPy `arange(n)`).
    ///
    /// Defined on `Tensor<T>` (the default rank parameter) so that naming only the
    /// element type is enough: `Tensor::<f32>::arange(3)`, `Tensor::<i64, _>::arange(3)`
    /// and `Tensor::arange(3)` (element type inferred) all give `Tensor<_, Ix1>`.
    ///
    /// # Panics
    /// If the tensor cannot exist, as [`Tensor::zeros`] (the message names `arange`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a: Tensor<f32, Ix1> = Tensor::<f32>::arange(3);
    /// assert_eq!(a.to_vec(), vec![0.0, 1.0, 2.0]);
    /// let b: Tensor<i64, Ix1> = Tensor::arange(2);
    /// assert_eq!(b.to_vec(), vec![0, 1]);
    /// ```
    #[track_caller]
    pub fn arange(n: usize) -> Tensor<T, Ix1> {
        let mut data = unwrap_or_panic(try_with_capacity(n, &[n], "arange"));
        data.extend((0..n).map(T::from_usize));
        unwrap_or_panic(Tensor::owned_from(data, [n], Order::RowMajor, "arange"))
    }
}

impl<T: Num + PartialOrd> Tensor<T, Ix1> {
    /// NumPy's `arange(start, stop, step)`: length `ceil((stop - start) / step)` (0 if
    /// negative), element `i` is `start + i * step`.
    ///
    /// # Panics
    /// If `step` is zero, if a float bound or step is NaN or infinite (NumPy: "cannot
    /// compute length"), or if the tensor cannot exist (as [`Tensor::zeros`]);
    /// [`Tensor::try_arange_step`] returns these as `Err`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::arange_step(0.0, 1.0, 0.25);
    /// assert_eq!(a.to_vec(), vec![0.0, 0.25, 0.5, 0.75]);
    /// assert_eq!(Tensor::arange_step(5, 0, -2).to_vec(), vec![5, 3, 1]);
    /// ```
    ///
    /// ```should_panic
    /// use ferrotensor::prelude::*;
    /// // panics: "arange_step: step must not be zero, got arange(0.0, 1.0, 0.0)"
    /// let a = Tensor::arange_step(0.0, 1.0, 0.0);
    /// ```
    #[track_caller]
    pub fn arange_step(start: T, stop: T, step: T) -> Self {
        unwrap_or_panic(Self::try_arange_step(start, stop, step))
    }

    /// [`Tensor::arange_step`] that returns `Err` instead of panicking.
    ///
    /// # Errors
    /// [`Error::Value`] for a zero step or a NaN or infinite float bound or step;
    /// [`Error::Overflow`] or [`Error::Alloc`] if the length is too large for memory.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::try_arange_step(0, 6, 2).unwrap().to_vec(), vec![0, 2, 4]);
    /// assert!(Tensor::try_arange_step(0.0, f64::INFINITY, 1.0).is_err());
    /// assert!(Tensor::try_arange_step(0.0, 1.0, f64::NAN).is_err());
    /// let e = Tensor::try_arange_step(1, 2, 0).unwrap_err();
    /// assert_eq!(e.to_string(), "arange_step: step must not be zero, got arange(1, 2, 0)");
    /// ```
    pub fn try_arange_step(start: T, stop: T, step: T) -> Result<Self> {
        const OP: &str = "arange_step";
        if step == T::zero() {
            return Err(Error::value(
                OP,
                format!("step must not be zero, got arange({start:?}, {stop:?}, {step:?})"),
            ));
        }
        let n = arange_len(start, stop, step)?;
        let mut data = try_with_capacity(n, &[n], OP)?;
        data.extend((0..n).map(|i| start.wadd(T::from_usize(i).wmul(step))));
        Tensor::owned_from(data, [n], Order::RowMajor, OP)
    }
}

/// NumPy's arange length, exact for integers and computed in f64 for floats; `Err` if
/// it cannot be computed (a NaN or infinite float) or exceeds `isize::MAX`.
fn arange_len<T: Num + PartialOrd>(start: T, stop: T, step: T) -> Result<usize> {
    let too_long = |len: &dyn std::fmt::Display| {
        Error::overflow(
            "arange_step",
            format!("arange({start:?}, {stop:?}, {step:?}) has {len} elements, more than isize::MAX"),
        )
    };
    let len = if T::IS_INT {
        let (s, e, st) = (start.as_i128(), stop.as_i128(), step.as_i128());
        let len = if st > 0 {
            (e - s + st - 1).div_euclid(st)
        } else {
            (s - e - st - 1).div_euclid(-st)
        };
        if len > isize::MAX as i128 {
            return Err(too_long(&len));
        }
        len.max(0) as usize
    } else {
        let (s, e, st) = (start.as_f64(), stop.as_f64(), step.as_f64());
        let len = ((e - s) / st).ceil();
        if !s.is_finite() || !e.is_finite() || !st.is_finite() || len.is_nan() {
            return Err(Error::value(
                "arange_step",
                format!(
                    "cannot compute the length of arange({start:?}, {stop:?}, {step:?}): bounds and step must be finite"
                ),
            ));
        }
        if len >= isize::MAX as f64 {
            return Err(too_long(&len));
        }
        if len > 0.0 { len as usize } else { 0 }
    };
    Ok(len)
}

impl<T: Float> Tensor<T, Ix1> {
    /// `num` evenly spaced values from `start` to `stop` inclusive (NumPy `linspace`).
    ///
    /// # Panics
    /// If `start` or `stop` is NaN or infinite (NumPy fills with NaN instead; here it
    /// is refused as a likely bug), or if the tensor cannot exist (as
    /// [`Tensor::zeros`]); [`Tensor::try_linspace`] returns these as `Err`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::linspace(0.0, 1.0, 5).to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    #[track_caller]
    pub fn linspace(start: T, stop: T, num: usize) -> Self {
        unwrap_or_panic(Self::try_linspace(start, stop, num))
    }

    /// [`Tensor::linspace`] that returns `Err` instead of panicking.
    ///
    /// # Errors
    /// [`Error::Value`] for a NaN or infinite bound; [`Error::Overflow`] or
    /// [`Error::Alloc`] if `num` elements do not fit in memory.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::try_linspace(1.0f32, 2.0, 3).unwrap().to_vec(), vec![1.0, 1.5, 2.0]);
    /// assert!(Tensor::try_linspace(0.0, f64::NAN, 3).is_err());
    /// assert!(Tensor::try_linspace(0.0f64, 1.0, usize::MAX).is_err());
    /// ```
    pub fn try_linspace(start: T, stop: T, num: usize) -> Result<Self> {
        const OP: &str = "linspace";
        let (s, e) = (start.to_f64(), stop.to_f64());
        if !s.is_finite() || !e.is_finite() {
            return Err(Error::value(
                OP,
                format!("start and stop must be finite, got {start:?} and {stop:?}"),
            ));
        }
        crate::layout::check_shape(&[num], OP)?;
        let div = num.saturating_sub(1).max(1) as f64;
        let step = (e - s) / div;
        let mut data = try_with_capacity(num, &[num], OP)?;
        data.extend((0..num).map(|i| T::from_f64(s + i as f64 * step)));
        if num > 1 {
            data[num - 1] = stop;
        }
        Tensor::owned_from(data, [num], Order::RowMajor, OP)
    }
}

impl<T: Num> Tensor<T, Ix2> {
    /// The `n × n` identity matrix.
    ///
    /// # Panics
    /// If the tensor cannot exist, as [`Tensor::zeros`] (the message names `eye`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<i32, _>::eye(2).to_vec(), vec![1, 0, 0, 1]);
    /// ```
    #[track_caller]
    pub fn eye(n: usize) -> Self {
        let mut t = unwrap_or_panic(Tensor::filled([n, n], T::zero(), "eye"));
        for i in 0..n {
            t.storage.0[i * n + i] = T::one();
        }
        t
    }
}

impl<T: Element> Tensor<T, Ix0> {
    /// A 0-d tensor holding `v`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let s = Tensor::scalar(2.5);
    /// assert_eq!(s.ndim(), 0);
    /// assert_eq!(s.to_scalar().unwrap(), 2.5);
    /// ```
    pub fn scalar(v: T) -> Self {
        Tensor::from_vec(vec![v], []).expect("one element")
    }
}
