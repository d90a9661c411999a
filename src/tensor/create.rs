//! Creation functions.

use super::{Tensor, TensorBase};
use crate::element::{Element, Float, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Dimension, IntoShape, Ix0, Ix1, Ix2, Layout, Order};
use crate::storage::{OwnedRepr, Storage};

impl<T: Element, D: Dimension> Tensor<T, D> {
    pub(crate) fn owned_from(data: Vec<T>, shape: D, order: Order, op: &'static str) -> Result<Self> {
        let layout = Layout::new_order(shape, order)?;
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

    /// A tensor of `shape` with every element `value`. Panics if the element count
    /// overflows (use [`Tensor::from_vec`] for a fallible path).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::full([2, 2], 7u8);
    /// assert_eq!(a.to_vec(), vec![7; 4]);
    /// ```
    pub fn full<Sh: IntoShape<Dim = D>>(shape: Sh, value: T) -> Self {
        Self::full_dim(shape.into_dim(), value)
    }

    pub(crate) fn full_dim(shape: D, value: T) -> Self {
        let layout = Layout::new_order(shape, Order::RowMajor).unwrap_or_else(|e| panic!("full: {e}"));
        TensorBase {
            storage: OwnedRepr(vec![value; layout.size()]),
            layout,
        }
    }

    /// A tensor of `shape` filled with `T::default()` (zero for numbers, `false` for bool).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f64, _>::zeros([2, 3]);
    /// let _: &Tensor<f64, Ix2> = &a;
    /// assert!(a.iter().all(|&x| x == 0.0));
    /// ```
    pub fn zeros<Sh: IntoShape<Dim = D>>(shape: Sh) -> Self {
        Self::full(shape, T::default())
    }

    /// Row-major tensor from a vector; `Err` if the length differs from the shape's size.
    /// Never copies `data`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    /// assert_eq!(a[[1, 0]], 4);
    /// assert!(Tensor::from_vec(vec![1, 2, 3], [2, 2]).is_err());
    /// ```
    pub fn from_vec<Sh: IntoShape<Dim = D>>(data: Vec<T>, shape: Sh) -> Result<Self> {
        Self::owned_from(data, shape.into_dim(), Order::RowMajor, "from_vec")
    }

    /// Tensor from a vector laid out in `order`; `Err` if sizes differ. Never copies.
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

    /// Row-major tensor copied from a slice; `Err` if sizes differ.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_slice(&[1.0, 2.0], [2]).unwrap();
    /// assert_eq!(a.to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn from_slice<Sh: IntoShape<Dim = D>>(data: &[T], shape: Sh) -> Result<Self> {
        Self::owned_from(data.to_vec(), shape.into_dim(), Order::RowMajor, "from_slice")
    }

    /// Tensor whose element at each index is `f(index)`, filled in row-major order.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::from_shape_fn([2, 3], |i: &[usize]| 10 * i[0] + i[1]);
    /// assert_eq!(a.to_vec(), vec![0, 1, 2, 10, 11, 12]);
    /// ```
    pub fn from_shape_fn<Sh: IntoShape<Dim = D>>(shape: Sh, mut f: impl FnMut(&[usize]) -> T) -> Self {
        let shape = shape.into_dim();
        let layout = Layout::new_order(shape, Order::RowMajor).unwrap_or_else(|e| panic!("from_shape_fn: {e}"));
        let n = layout.size();
        let mut data = Vec::with_capacity(n);
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
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([2, 2]);
    /// assert_eq!(Tensor::<f32, _>::zeros_like(&a).to_vec(), vec![0.0; 4]);
    /// ```
    pub fn zeros_like<S2: Storage>(other: &TensorBase<S2, D>) -> Self {
        Self::full_dim(other.dim().clone(), T::default())
    }

    /// A tensor with the shape of `other`, filled with `value`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::ones([3]);
    /// assert_eq!(Tensor::full_like(&a, 2i64).to_vec(), vec![2, 2, 2]);
    /// ```
    pub fn full_like<S2: Storage>(other: &TensorBase<S2, D>, value: T) -> Self {
        Self::full_dim(other.dim().clone(), value)
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
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<i32, _>::ones([3]).to_vec(), vec![1, 1, 1]);
    /// ```
    pub fn ones<Sh: IntoShape<Dim = D>>(shape: Sh) -> Self {
        Self::full(shape, T::one())
    }

    /// A tensor with the shape of `other`, filled with ones.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::<f32, _>::zeros([2]);
    /// assert_eq!(Tensor::<f64, _>::ones_like(&a).to_vec(), vec![1.0, 1.0]);
    /// ```
    pub fn ones_like<S2: Storage>(other: &TensorBase<S2, D>) -> Self {
        Self::full_dim(other.dim().clone(), T::one())
    }
}

impl<T: Float, D: Dimension> Tensor<T, D> {
    /// Uniform random values in `[0, 1)` from a caller-given generator (reproducible
    /// with a seeded RNG). Each value is a multiple of 2^-p (p = mantissa bits), so it
    /// is exact in `T` and never rounds up to 1.
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
    pub fn rand<Sh: IntoShape<Dim = D>, R: rand::Rng + ?Sized>(shape: Sh, rng: &mut R) -> Self {
        let bits = (1.0 - T::epsilon().to_f64().log2()).round() as u32; // mantissa digits
        let scale = (-(bits as f64)).exp2();
        let mut t = Self::zeros(shape);
        for x in t.storage.0.iter_mut() {
            let k = rng.random::<u64>() >> (64 - bits);
            *x = T::from_f64(k as f64 * scale);
        }
        t
    }

    /// Standard normal random values (mean 0, standard deviation 1) from a
    /// caller-given generator.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    /// let a = Tensor::<f64, _>::randn([10000], &mut rng);
    /// let mean = a.iter().sum::<f64>() / 10000.0;
    /// assert!(mean.abs() < 0.05);
    /// ```
    pub fn randn<Sh: IntoShape<Dim = D>, R: rand::Rng + ?Sized>(shape: Sh, rng: &mut R) -> Self {
        use rand_distr::Distribution;
        let mut t = Self::zeros(shape);
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
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a: Tensor<f32, Ix1> = Tensor::<f32>::arange(3);
    /// assert_eq!(a.to_vec(), vec![0.0, 1.0, 2.0]);
    /// let b: Tensor<i64, Ix1> = Tensor::arange(2);
    /// assert_eq!(b.to_vec(), vec![0, 1]);
    /// ```
    pub fn arange(n: usize) -> Tensor<T, Ix1> {
        let data = (0..n).map(T::from_usize).collect();
        Tensor::from_vec(data, [n]).expect("length matches")
    }
}

impl<T: Num + PartialOrd> Tensor<T, Ix1> {
    /// NumPy's `arange(start, stop, step)`: length `ceil((stop - start) / step)` (0 if
    /// negative), element `i` is `start + i * step`. Panics if `step` is zero.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let a = Tensor::arange_step(0.0, 1.0, 0.25);
    /// assert_eq!(a.to_vec(), vec![0.0, 0.25, 0.5, 0.75]);
    /// assert_eq!(Tensor::arange_step(5, 0, -2).to_vec(), vec![5, 3, 1]);
    /// ```
    pub fn arange_step(start: T, stop: T, step: T) -> Self {
        assert!(step != T::zero(), "arange_step: step must not be zero");
        let n = arange_len(start, stop, step);
        let data = (0..n).map(|i| start.wadd(T::from_usize(i).wmul(step))).collect();
        Tensor::from_vec(data, [n]).expect("length matches")
    }
}

/// NumPy's arange length, exact for integers and computed in f64 for floats.
fn arange_len<T: Num + PartialOrd>(start: T, stop: T, step: T) -> usize {
    if T::IS_INT {
        let (s, e, st) = (start.as_i128(), stop.as_i128(), step.as_i128());
        let len = if st > 0 {
            (e - s + st - 1).div_euclid(st)
        } else {
            (s - e - st - 1).div_euclid(-st)
        };
        len.max(0) as usize
    } else {
        let len = ((stop.as_f64() - start.as_f64()) / step.as_f64()).ceil();
        if len > 0.0 { len as usize } else { 0 }
    }
}

impl<T: Float> Tensor<T, Ix1> {
    /// `num` evenly spaced values from `start` to `stop` inclusive (NumPy `linspace`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::linspace(0.0, 1.0, 5).to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    pub fn linspace(start: T, stop: T, num: usize) -> Self {
        let (s, e) = (start.to_f64(), stop.to_f64());
        let div = num.saturating_sub(1).max(1) as f64;
        let step = (e - s) / div;
        let mut data: Vec<T> = (0..num).map(|i| T::from_f64(s + i as f64 * step)).collect();
        if num > 1 {
            data[num - 1] = stop;
        }
        Tensor::from_vec(data, [num]).expect("length matches")
    }
}

impl<T: Num> Tensor<T, Ix2> {
    /// The `n × n` identity matrix.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// assert_eq!(Tensor::<i32, _>::eye(2).to_vec(), vec![1, 0, 0, 1]);
    /// ```
    pub fn eye(n: usize) -> Self {
        let mut t = Tensor::zeros([n, n]);
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
