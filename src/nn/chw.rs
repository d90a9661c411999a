//! [`ChwTensor`]: the KuiperInfer course's `(channels, rows, cols)` tensor, on top of
//! `Tensor<T, Ix3>`.

use crate::element::{Element, Num};
use crate::error::{Error, Result, fmt_shape};
use crate::layout::{Ix2, Ix3, Layout, Order};
use crate::storage::ViewRepr;
use crate::tensor::{Tensor, TensorBase, TensorView};

/// A `(channels, rows, cols)` tensor with the KuiperInfer API: element access by
/// `(channel, row, col)`, fills and read-outs in row- or column-major order, in-place
/// reshape, flatten and padding, and the *raw shape* the course reports (`[n]` for a
/// `(1, 1, n)` tensor, `[r, c]` for `(1, r, c)`, and after `reshape` the dims as given).
///
/// The data is one row-major `Tensor<T, Ix3>`; [`ChwTensor::as_tensor`] views it and
/// `From` converts both ways without copying.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::ChwTensor;
/// let mut t = ChwTensor::<f32>::new(2, 3, 4);
/// let v: Vec<f32> = (1..=24).map(|x| x as f32).collect();
/// t.fill(&v, Order::RowMajor)?;
/// assert_eq!(t.at(1, 0, 0), 13.0);
/// assert_eq!(t.channel(0).to_vec()[..4], [1.0, 2.0, 3.0, 4.0]);
/// t.reshape(&[4, 3, 2], Order::RowMajor)?;
/// assert_eq!(t.raw_shape(), vec![4, 3, 2]);
/// assert_eq!(t.values(Order::RowMajor), v);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone)]
pub struct ChwTensor<T> {
    pub(super) data: Tensor<T, Ix3>,
    pub(super) raw: Vec<usize>,
}

/// KuiperInfer's raw shape of a freshly built `(c, r, w)` tensor.
fn default_raw(c: usize, r: usize, w: usize) -> Vec<usize> {
    match (c, r) {
        (1, 1) => vec![w],
        (1, _) => vec![r, w],
        _ => vec![c, r, w],
    }
}

impl<T: Element> ChwTensor<T> {
    /// Channels.
    ///
    /// ```
    /// assert_eq!(ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4).channels(), 2);
    /// ```
    pub fn channels(&self) -> usize {
        self.data.shape()[0]
    }
    /// Rows per channel.
    ///
    /// ```
    /// assert_eq!(ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4).rows(), 3);
    /// ```
    pub fn rows(&self) -> usize {
        self.data.shape()[1]
    }
    /// Columns per row.
    ///
    /// ```
    /// assert_eq!(ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4).cols(), 4);
    /// ```
    pub fn cols(&self) -> usize {
        self.data.shape()[2]
    }
    /// Number of elements.
    ///
    /// ```
    /// assert_eq!(ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4).size(), 24);
    /// ```
    pub fn size(&self) -> usize {
        self.data.size()
    }
    /// The shape `[channels, rows, cols]`.
    ///
    /// ```
    /// assert_eq!(ferrotensor::nn::ChwTensor::<f32>::new(1, 1, 5).shape(), [1, 1, 5]);
    /// ```
    pub fn shape(&self) -> [usize; 3] {
        *self.data.dim()
    }
    /// The KuiperInfer raw shape: `[n]` for `(1, 1, n)`, `[r, c]` for `(1, r, c)`,
    /// `[c, r, col]` otherwise; after [`ChwTensor::reshape`] the dims as given.
    ///
    /// ```
    /// use ferrotensor::nn::ChwTensor;
    /// assert_eq!(ChwTensor::<f32>::new(1, 1, 5).raw_shape(), vec![5]);
    /// assert_eq!(ChwTensor::<f32>::new(1, 2, 5).raw_shape(), vec![2, 5]);
    /// assert_eq!(ChwTensor::<f32>::new(3, 2, 5).raw_shape(), vec![3, 2, 5]);
    /// ```
    pub fn raw_shape(&self) -> Vec<usize> {
        self.raw.clone()
    }

    fn check_index(&self, c: usize, r: usize, col: usize, op: &str) {
        let [cc, rr, ww] = self.shape();
        if c >= cc || r >= rr || col >= ww {
            panic!(
                "ChwTensor::{op}: index ({c}, {r}, {col}) is out of range for shape {}",
                fmt_shape(&[cc, rr, ww])
            );
        }
    }

    /// The element at `(channel, row, col)`; panics with the index and the shape when
    /// out of range.
    ///
    /// ```
    /// let t = ferrotensor::nn::ChwTensor::<f32>::new(1, 2, 2);
    /// assert_eq!(t.at(0, 1, 1), 0.0);
    /// assert!(std::panic::catch_unwind(|| t.at(0, 2, 0)).is_err());
    /// ```
    pub fn at(&self, c: usize, r: usize, col: usize) -> T {
        self.check_index(c, r, col, "at");
        self.data.as_slice().expect("ChwTensor data is row-major")[(c * self.rows() + r) * self.cols() + col]
    }

    /// A mutable reference to the element at `(channel, row, col)`; panics when out of
    /// range.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(2, 2, 2);
    /// *t.at_mut(1, 0, 1) = 7;
    /// assert_eq!(t.at(1, 0, 1), 7);
    /// ```
    pub fn at_mut(&mut self, c: usize, r: usize, col: usize) -> &mut T {
        self.check_index(c, r, col, "at_mut");
        let (rows, cols) = (self.rows(), self.cols());
        &mut self.data.as_slice_mut().expect("ChwTensor data is row-major")[(c * rows + r) * cols + col]
    }

    /// Channel `c` as a `(rows, cols)` view (no copy); panics when `c` is out of range.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(2, 2, 3);
    /// t.fill_value(1.0);
    /// let ch: TensorView<'_, f32, Ix2> = t.channel(1);
    /// assert_eq!(ch.shape(), &[2, 3]);
    /// ```
    pub fn channel(&self, c: usize) -> TensorView<'_, T, Ix2> {
        let [cc, r, w] = self.shape();
        if c >= cc {
            panic!(
                "ChwTensor::channel: channel {c} is out of range for shape {}",
                fmt_shape(&[cc, r, w])
            );
        }
        let layout = Layout::new([r, w], [w as isize, 1], self.data.offset() + c * r * w);
        TensorBase::from_parts(ViewRepr(self.data.buffer()), layout, "channel")
            .expect("a channel lies inside its tensor")
    }

    /// A view of the data as a `(channels, rows, cols)` tensor (no copy).
    ///
    /// ```
    /// let t = ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4);
    /// assert_eq!(t.as_tensor().shape(), &[2, 3, 4]);
    /// ```
    pub fn as_tensor(&self) -> TensorView<'_, T, Ix3> {
        self.data.view()
    }

    /// The data as an owned `(channels, rows, cols)` tensor (no copy).
    ///
    /// ```
    /// let t = ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4);
    /// assert_eq!(t.into_tensor().shape(), &[2, 3, 4]);
    /// ```
    pub fn into_tensor(self) -> Tensor<T, Ix3> {
        self.data
    }

    fn slice(&self) -> &[T] {
        self.data.as_slice().expect("ChwTensor data is row-major")
    }
    fn slice_mut(&mut self) -> &mut [T] {
        self.data.as_slice_mut().expect("ChwTensor data is row-major")
    }

    /// Writes `values` into the tensor in `order`: row-major (per channel, row by row)
    /// or column-major (per channel, column by column, KuiperInfer's Armadillo order).
    /// `Err` if `values.len() != size()`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(1, 2, 3);
    /// t.fill(&[1, 2, 3, 4, 5, 6], Order::ColMajor)?;
    /// assert_eq!(t.values(Order::RowMajor), vec![1, 3, 5, 2, 4, 6]);
    /// assert!(t.fill(&[1, 2], Order::RowMajor).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn fill(&mut self, values: &[T], order: Order) -> Result<()> {
        if values.len() != self.size() {
            return Err(Error::shape(
                "ChwTensor::fill",
                format!(
                    "{} values do not fit shape {} of size {}",
                    values.len(),
                    fmt_shape(&self.shape()),
                    self.size()
                ),
            ));
        }
        let [_, r, w] = self.shape();
        let dst = self.slice_mut();
        match order {
            Order::RowMajor => dst.copy_from_slice(values),
            Order::ColMajor => {
                for (dc, vc) in dst.chunks_exact_mut(r * w).zip(values.chunks_exact(r * w)) {
                    for (j, col) in vc.chunks_exact(r).enumerate() {
                        for (i, &v) in col.iter().enumerate() {
                            dc[i * w + j] = v;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// All elements in `order` (see [`ChwTensor::fill`]).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(1, 2, 5);
    /// t.fill(&(0..10).collect::<Vec<_>>(), Order::RowMajor)?;
    /// assert_eq!(t.values(Order::ColMajor), vec![0, 5, 1, 6, 2, 7, 3, 8, 4, 9]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn values(&self, order: Order) -> Vec<T> {
        let [_, r, w] = self.shape();
        let src = self.slice();
        match order {
            Order::RowMajor => src.to_vec(),
            Order::ColMajor => {
                let mut out = Vec::with_capacity(src.len());
                if r * w > 0 {
                    for ch in src.chunks_exact(r * w) {
                        for j in 0..w {
                            out.extend((0..r).map(|i| ch[i * w + j]));
                        }
                    }
                }
                out
            }
        }
    }

    /// Reshapes in place to 1, 2 or 3 dims (`[n]` is stored as `(1, 1, n)`, `[a, b]` as
    /// `(1, a, b)`), keeping the row-major or the column-major element sequence. The raw
    /// shape becomes `dims`. `Err` for 0 or more than 3 dims or a different element
    /// count.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(1, 2, 3);
    /// t.fill(&[0, 1, 2, 3, 4, 5], Order::RowMajor)?;
    /// t.reshape(&[3, 2], Order::ColMajor)?;
    /// assert_eq!(t.values(Order::RowMajor), vec![0, 4, 3, 2, 1, 5]);
    /// assert!(t.reshape(&[4], Order::RowMajor).is_err());
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn reshape(&mut self, dims: &[usize], order: Order) -> Result<()> {
        let new = match *dims {
            [n] => [1, 1, n],
            [a, b] => [1, a, b],
            [c, a, b] => [c, a, b],
            _ => {
                return Err(Error::shape(
                    "ChwTensor::reshape",
                    format!("expected 1 to 3 dims, got {}", fmt_shape(dims)),
                ));
            }
        };
        if new.iter().product::<usize>() != self.size() {
            return Err(Error::shape(
                "ChwTensor::reshape",
                format!(
                    "cannot reshape {} elements of shape {} into {}",
                    self.size(),
                    fmt_shape(&self.shape()),
                    fmt_shape(dims)
                ),
            ));
        }
        let seq = (order == Order::ColMajor).then(|| self.values(Order::ColMajor));
        let (v, _) = std::mem::replace(&mut self.data, Tensor::from_vec(Vec::new(), [0, 0, 0])?).into_raw_parts();
        self.data = Tensor::from_vec(v, new)?;
        if let Some(seq) = seq {
            self.fill(&seq, Order::ColMajor)?;
        }
        self.raw = dims.to_vec();
        Ok(())
    }

    /// Flattens in place to `(1, 1, size)` (raw shape `[size]`), in row-major or
    /// column-major element order.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(1, 2, 2);
    /// t.fill(&[1, 2, 3, 4], Order::RowMajor)?;
    /// t.flatten(Order::ColMajor);
    /// assert_eq!(t.values(Order::RowMajor), vec![1, 3, 2, 4]);
    /// assert_eq!(t.raw_shape(), vec![4]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn flatten(&mut self, order: Order) {
        let n = self.size();
        self.reshape(&[n], order).expect("flatten keeps the element count");
    }

    /// Sets every element to `v`.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(2, 2, 2);
    /// t.fill_value(3.0);
    /// assert_eq!(t.at(1, 1, 1), 3.0);
    /// ```
    pub fn fill_value(&mut self, v: T) {
        self.slice_mut().fill(v);
    }

    /// Applies `f` to every element in place.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(1, 1, 3);
    /// t.fill_value(2.0);
    /// t.transform(|x| x * x - 1.0);
    /// assert_eq!(t.at(0, 0, 2), 3.0);
    /// ```
    pub fn transform(&mut self, f: impl Fn(T) -> T) {
        for x in self.slice_mut() {
            *x = f(*x);
        }
    }

    /// Pads every channel in place with `value`: `pads = [top, bottom, left, right]`.
    /// The raw shape becomes `[channels, rows, cols]` of the padded tensor.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(3, 4, 5);
    /// t.fill_value(1.0);
    /// t.padding([1, 2, 3, 4], 0.0);
    /// assert_eq!(t.shape(), [3, 7, 12]);
    /// assert_eq!((t.at(0, 0, 0), t.at(0, 1, 3), t.at(2, 4, 7)), (0.0, 1.0, 1.0));
    /// ```
    pub fn padding(&mut self, pads: [usize; 4], value: T) {
        let [c, r, w] = self.shape();
        let [top, bottom, left, right] = pads;
        let (nr, nw) = (r + top + bottom, w + left + right);
        let mut out = vec![value; c * nr * nw];
        let src = self.slice();
        for ch in 0..c {
            for i in 0..r {
                let d = (ch * nr + i + top) * nw + left;
                out[d..d + w].copy_from_slice(&src[(ch * r + i) * w..(ch * r + i + 1) * w]);
            }
        }
        self.data = Tensor::from_vec(out, [c, nr, nw]).expect("sized from the shape");
        self.raw = vec![c, nr, nw];
    }
}

impl<T: Num> ChwTensor<T> {
    /// A zero tensor of `(channels, rows, cols)`.
    ///
    /// ```
    /// let t = ferrotensor::nn::ChwTensor::<f64>::new(2, 3, 4);
    /// assert_eq!(t.shape(), [2, 3, 4]);
    /// assert_eq!(t.raw_shape(), vec![2, 3, 4]);
    /// ```
    pub fn new(channels: usize, rows: usize, cols: usize) -> Self {
        ChwTensor {
            data: Tensor::zeros([channels, rows, cols]),
            raw: default_raw(channels, rows, cols),
        }
    }

    /// Sets every element to one.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<i32>::new(1, 2, 2);
    /// t.ones();
    /// assert_eq!(t.values(ferrotensor::Order::RowMajor), vec![1; 4]);
    /// ```
    pub fn ones(&mut self) {
        self.fill_value(T::one());
    }
}

impl<T: Element> From<Tensor<T, Ix3>> for ChwTensor<T> {
    /// Wraps a `(channels, rows, cols)` tensor. No copy when it is row-major contiguous
    /// over its whole buffer (the usual case); other layouts are compacted first.
    fn from(t: Tensor<T, Ix3>) -> Self {
        let [c, r, w] = *t.dim();
        let data = if t.is_contiguous() && t.offset() == 0 && t.buffer().len() == t.size() {
            t
        } else {
            let shape = *t.dim();
            Tensor::from_vec(t.into_vec(), shape).expect("same size")
        };
        ChwTensor {
            data,
            raw: default_raw(c, r, w),
        }
    }
}

impl<T: Element> From<ChwTensor<T>> for Tensor<T, Ix3> {
    /// The data as a `(channels, rows, cols)` tensor, without copying.
    fn from(t: ChwTensor<T>) -> Self {
        t.data
    }
}
