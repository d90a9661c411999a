//! Reductions of device tensors over any axes, with `keepdims`: `sum mean max min`
//! (`_axes` and whole-tensor forms) and `argmax argmin` (one axis, or flattened).
//! Each output is reduced by a workgroup tree (long reductions split into chunks
//! reduced again by a second pass) or by one thread per output; the input is read
//! through its layout. Floats accumulate in `f32`; integers wrap. `max`/`min`
//! propagate NaN, `argmax`/`argmin` report the first NaN (as the CPU and NumPy).

use super::buffer::DeviceBuffer;
use super::element::{DType, DeviceElement, DeviceFloat, DeviceNum};
use super::launch::{Kernel, Launch, Params};
use super::map::{F16_HELPERS, load_fn, store_fn};
use super::tensor::DeviceTensor;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::plan::Plan;
use crate::layout::{Dimension, Ix0, IxDyn};
use crate::reduce::{Spec, empty_err};

const REDUCE: &str = include_str!("kernels/reduce.wgsl");
/// Elements one workgroup reduces per pass.
const CHUNK: usize = 256 * 16;
/// Reductions at most this long run one thread per output.
const SHORT: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Sum,
    Mean,
    Max,
    Min,
    ArgMax,
    ArgMin,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Sum => "sum",
            Kind::Mean => "mean",
            Kind::Max => "max",
            Kind::Min => "min",
            Kind::ArgMax => "argmax",
            Kind::ArgMin => "argmin",
        }
    }
    fn is_arg(self) -> bool {
        matches!(self, Kind::ArgMax | Kind::ArgMin)
    }
}

/// WGSL pieces of a reduction of `dtype`: accumulator type, identity, combine body.
fn pieces(kind: Kind, dtype: DType) -> (&'static str, String, String) {
    let float = dtype.is_float();
    let acc = match dtype {
        DType::F32 | DType::F16 => "f32",
        DType::I32 => "i32",
        _ => "u32",
    };
    let (lo, hi) = match dtype {
        DType::I32 => ("i32(-2147483647 - 1)", "2147483647i"),
        DType::U32 | DType::Bool => ("0u", "4294967295u"),
        _ => ("-inf()", "inf()"),
    };
    let nan = |x: &str| {
        if float {
            format!("is_nan({x}.v)")
        } else {
            "false".to_string()
        }
    };
    let (na, nb) = (nan("a"), nan("b"));
    let gt = if matches!(kind, Kind::Max | Kind::ArgMax) {
        ">"
    } else {
        "<"
    };
    let identity = match kind {
        Kind::Sum | Kind::Mean => format!("{acc}(0)"),
        Kind::Max | Kind::ArgMax => lo.to_string(),
        Kind::Min | Kind::ArgMin => hi.to_string(),
    };
    let combine = match kind {
        Kind::Sum | Kind::Mean => "return Acc(a.v + b.v, 0u);".to_string(),
        Kind::Max | Kind::Min => format!(
            "if ({na}) {{ return a; }}
    if ({nb}) {{ return b; }}
    if (a.v {gt} b.v) {{ return a; }}
    return b;"
        ),
        Kind::ArgMax | Kind::ArgMin => format!(
            "let na = {na};
    let nb = {nb};
    if (na && nb) {{ if (a.i < b.i) {{ return a; }} return b; }}
    if (na) {{ return a; }}
    if (nb) {{ return b; }}
    if (a.v {gt} b.v) {{ return a; }}
    if (b.v {gt} a.v) {{ return b; }}
    if (a.i < b.i) {{ return a; }}
    return b;"
        ),
    };
    (acc, identity, combine)
}

/// Kept and reduced axes of `x` coalesced separately: (shape, strides) of each.
type Axes = (Vec<usize>, Vec<isize>);

fn coalesced(shape: &[usize], strides: &[isize]) -> Axes {
    let plan = Plan::<1>::new(shape, [strides], [0], false);
    if plan.empty {
        return (vec![0], vec![0]);
    }
    let mut s: Vec<usize> = plan.outer.to_vec();
    s.push(plan.inner_len);
    let mut st: Vec<isize> = plan.outer_strides[0].to_vec();
    st.push(plan.inner[0]);
    (s, st)
}

/// One pass: reduces `src` (kept / reduced axes, offset) into `chunks` partials per
/// output, or into the result when `chunks == 1`.
struct Pass {
    src: wgpu::Buffer,
    src_dtype: DType,
    /// Whether `src` holds the caller's elements (else accumulators of an earlier pass).
    first: bool,
    src_idx: Option<wgpu::Buffer>,
    offset: usize,
    kept: Axes,
    red: Axes,
    chunks: usize,
    thread: bool,
}

/// The accumulator type of a reduction of `dtype` as a device type.
fn acc_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F32 | DType::F16 => DType::F32,
        DType::I32 => DType::I32,
        _ => DType::U32,
    }
}

/// Runs `kind` over `axes` (`None`: all) of `x`; the result has element type `U`.
fn reduce<T: DeviceElement, U: DeviceElement, D: Dimension>(
    x: &DeviceTensor<T, D>,
    axes: Option<&[isize]>,
    keepdims: bool,
    kind: Kind,
) -> Result<DeviceTensor<U, IxDyn>> {
    let op = kind.name();
    let spec = Spec::new(x.shape(), axes, op)?;
    let out_shape = if keepdims { &spec.keep_shape } else { &spec.out_shape };
    let dev = x.device();
    let out = DeviceTensor::<U, IxDyn>::alloc(dev, IxDyn::from(&out_shape[..]), op)?;
    let (m, l) = (out.size(), spec.n_red);
    if m == 0 {
        return Ok(out);
    }
    if l == 0 && kind.is_arg() {
        return Err(Error::value(
            op,
            format!(
                "attempt to get {op} of an empty sequence (shape {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    if l == 0 && matches!(kind, Kind::Max | Kind::Min) {
        return Err(empty_err(op, x.shape()));
    }
    let split = |reduced: bool| -> (Vec<usize>, Vec<isize>) {
        x.shape()
            .iter()
            .zip(x.strides())
            .zip(&spec.mask)
            .filter(|&(_, &r)| r == reduced)
            .map(|((&d, &s), _)| (d, s))
            .unzip()
    };
    let (ks, kst) = split(false);
    let (rs, rst) = split(true);
    let kept = coalesced(&ks, &kst);
    let red = coalesced(&rs, &rst);
    // Outputs adjacent in memory over a strided reduction: neighbouring threads read
    // neighbouring elements, so one thread per output coalesces its loads.
    let unit = |a: &Axes| a.1.last().is_some_and(|&s| s.abs() == 1);
    let thread = l <= SHORT || (m >= 4096 && unit(&kept) && !unit(&red));
    let mut launch = Launch::new(dev, op);
    let mut pass = Pass {
        src: x.buffer.raw.clone(),
        src_dtype: T::DTYPE,
        first: true,
        src_idx: None,
        offset: x.offset(),
        kept,
        red,
        chunks: if thread { 1 } else { l.div_ceil(CHUNK) },
        thread,
    };
    let acc = acc_dtype(T::DTYPE);
    loop {
        let c = pass.chunks;
        let what = || format!("{} partial results of {op}", m * c);
        let idx_len = if kind.is_arg() && c > 1 { m * c } else { 1 };
        let dst_idx = DeviceBuffer::alloc(dev, DType::U32, idx_len, op, &what)?;
        let dst = if c == 1 {
            out.buffer.clone()
        } else {
            DeviceBuffer::alloc(dev, acc, m * c, op, &what)?
        };
        run_pass::<U>(&mut launch, &pass, kind, (m, l), &dst.raw, &dst_idx.raw, dev)?;
        if c == 1 {
            break;
        }
        // The next pass reads the partials: M rows of C accumulators.
        pass = Pass {
            src: dst.raw.clone(),
            src_dtype: acc,
            first: false,
            src_idx: kind.is_arg().then(|| dst_idx.raw.clone()),
            offset: 0,
            kept: (vec![m], vec![c as isize]),
            red: (vec![c], vec![1]),
            chunks: c.div_ceil(CHUNK),
            thread: false,
        };
    }
    launch.submit()?;
    Ok(out)
}

/// Records one pass of `kind` writing `dst` (and `dst_idx` for arg reductions).
fn run_pass<U: DeviceElement>(
    launch: &mut Launch<'_>,
    pass: &Pass,
    kind: Kind,
    (m, total): (usize, usize),
    dst: &wgpu::Buffer,
    dst_idx: &wgpu::Buffer,
    dev: &super::Device,
) -> Result<()> {
    let (acc, identity, combine) = pieces(kind, pass.src_dtype);
    let last = pass.chunks == 1;
    let (dst_ty, fin) = if !last {
        (acc.to_string(), "a.v".to_string())
    } else if kind.is_arg() {
        ("u32".to_string(), "a.i".to_string())
    } else if kind == Kind::Mean {
        (
            U::DTYPE.wgsl().to_string(),
            format!("{}(select(a.v / f32(count), nan(), count == 0u))", store_fn(U::DTYPE)),
        )
    } else {
        (U::DTYPE.wgsl().to_string(), format!("{}(a.v)", store_fn(U::DTYPE)))
    };
    let index = if !kind.is_arg() {
        "0u"
    } else if pass.first {
        "j"
    } else {
        "src_idx[p]"
    };
    let f16 = pass.src_dtype == DType::F16 || U::DTYPE == DType::F16;
    let load = if pass.first { load_fn(pass.src_dtype) } else { "" };
    let kernel = Kernel {
        name: "reduce",
        source: REDUCE,
        entry: if pass.thread { "main_thread" } else { "main_group" },
        subst: &[
            ("SRC", pass.src_dtype.wgsl()),
            ("DST", &dst_ty),
            ("ACC", acc),
            ("COMBINE", &combine),
            ("IDENTITY", &identity),
            ("LOAD", load),
            ("INDEX", index),
            ("FINAL", &fin),
            ("HELPERS", if f16 { F16_HELPERS } else { "" }),
        ],
        f16,
        reads: 3,
        writes: 2,
    };
    let mut params = Params::default();
    params
        .u(m)
        .u(pass.red.0.iter().product())
        .u(pass.chunks)
        .u(CHUNK)
        .u(pass.kept.0.len())
        .u(pass.red.0.len())
        .u(pass.offset)
        .u(total)
        .us(&pass.kept.0)
        .is(&pass.kept.1)
        .us(&pass.red.0)
        .is(&pass.red.1);
    let src_idx = pass.src_idx.as_ref().unwrap_or(dst_idx);
    // A pass never reads and writes one buffer; the scratch index buffer stands in
    // for an unused input.
    let scratch;
    let src_idx = if std::ptr::eq(src_idx, dst_idx) {
        scratch = DeviceBuffer::alloc(dev, DType::U32, 1, kind.name(), &|| "an index scratch".into())?;
        &scratch.raw
    } else {
        src_idx
    };
    let groups = if pass.thread { m.div_ceil(256) } else { m * pass.chunks };
    launch.dispatch(&kernel, &params, &[&pass.src, src_idx, dst, dst_idx], groups)
}

impl<T: DeviceNum, D: Dimension> DeviceTensor<T, D> {
    /// Sum over `axes` (negative count from the end; `&[]` reduces nothing), keeping
    /// them as length 1 if `keepdims`. Integers wrap; floats accumulate in `f32` by a
    /// tree (the order differs from the CPU's, so the last bits may). `Err` for a bad
    /// axis or a device failure.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec((0..6).collect(), [2, 3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.sum_axes(&[1], false).unwrap().to_host().unwrap().to_vec(), vec![3, 12]);
    /// assert_eq!(g.sum_axes(&[-2], true).unwrap().shape(), &[1, 3]);
    /// assert!(g.sum_axes(&[0, 0], false).is_err());
    /// ```
    pub fn sum_axes(&self, axes: &[isize], keepdims: bool) -> Result<DeviceTensor<T, IxDyn>> {
        reduce(self, Some(axes), keepdims, Kind::Sum)
    }

    /// Sum of all elements as a 0-d device tensor (0 for an empty tensor).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::<i32, _>::arange(5).to_device(&dev).unwrap();
    /// assert_eq!(g.sum().unwrap().to_host().unwrap().to_scalar().unwrap(), 10);
    /// ```
    pub fn sum(&self) -> Result<DeviceTensor<T, Ix0>> {
        reduce(self, None, false, Kind::Sum)?.into_dim()
    }

    /// Maximum over `axes` (NaN if any element is NaN); `Err` for an empty reduction.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 7, 3, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.max_axes(&[0], false).unwrap().to_host().unwrap().to_vec(), vec![3, 7]);
    /// ```
    pub fn max_axes(&self, axes: &[isize], keepdims: bool) -> Result<DeviceTensor<T, IxDyn>> {
        reduce(self, Some(axes), keepdims, Kind::Max)
    }

    /// Minimum over `axes` (NaN if any element is NaN); `Err` for an empty reduction.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 7, 3, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.min_axes(&[1], true).unwrap().to_host().unwrap().to_vec(), vec![1, 3]);
    /// ```
    pub fn min_axes(&self, axes: &[isize], keepdims: bool) -> Result<DeviceTensor<T, IxDyn>> {
        reduce(self, Some(axes), keepdims, Kind::Min)
    }

    /// Maximum of all elements as a 0-d tensor; `Err` if empty.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1.0f32, 7.0, 3.0], [3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.max().unwrap().to_host().unwrap().to_scalar().unwrap(), 7.0);
    /// assert!(Tensor::<f32, _>::zeros([0]).to_device(&dev).unwrap().max().is_err());
    /// ```
    pub fn max(&self) -> Result<DeviceTensor<T, Ix0>> {
        reduce(self, None, false, Kind::Max)?.into_dim()
    }

    /// Minimum of all elements as a 0-d tensor; `Err` if empty.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![4u32, 2, 9], [3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.min().unwrap().to_host().unwrap().to_scalar().unwrap(), 2);
    /// ```
    pub fn min(&self) -> Result<DeviceTensor<T, Ix0>> {
        reduce(self, None, false, Kind::Min)?.into_dim()
    }

    /// Index of the largest element along `axis` (the first one on ties; the first NaN
    /// if any) as `u32` (the CPU returns `usize`); `Err` for an empty axis.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 7, 7, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.argmax_axis(1, false).unwrap().to_host().unwrap().to_vec(), vec![1, 0]);
    /// ```
    pub fn argmax_axis(&self, axis: isize, keepdims: bool) -> Result<DeviceTensor<u32, IxDyn>> {
        reduce(self, Some(&[axis]), keepdims, Kind::ArgMax)
    }

    /// Index of the smallest element along `axis` (first on ties, first NaN if any).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 7, 7, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.argmin_axis(0, true).unwrap().to_host().unwrap().to_vec(), vec![0, 1]);
    /// ```
    pub fn argmin_axis(&self, axis: isize, keepdims: bool) -> Result<DeviceTensor<u32, IxDyn>> {
        reduce(self, Some(&[axis]), keepdims, Kind::ArgMin)
    }

    /// Flat (row-major) index of the largest element as a 0-d `u32` tensor; `Err` if
    /// empty.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1, 7, 9, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.t().argmax().unwrap().to_host().unwrap().to_scalar().unwrap(), 1);
    /// ```
    pub fn argmax(&self) -> Result<DeviceTensor<u32, Ix0>> {
        reduce(self, None, false, Kind::ArgMax)?.into_dim()
    }

    /// Flat (row-major) index of the smallest element as a 0-d `u32` tensor.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![5, 7, 1, 4], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.argmin().unwrap().to_host().unwrap().to_scalar().unwrap(), 2);
    /// ```
    pub fn argmin(&self) -> Result<DeviceTensor<u32, Ix0>> {
        reduce(self, None, false, Kind::ArgMin)?.into_dim()
    }
}

impl<T: DeviceFloat, D: Dimension> DeviceTensor<T, D> {
    /// Mean over `axes` (NaN for an empty reduction, as NumPy).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 6.0], [2, 2]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.mean_axes(&[0], false).unwrap().to_host().unwrap().to_vec(), vec![2.0, 4.0]);
    /// ```
    pub fn mean_axes(&self, axes: &[isize], keepdims: bool) -> Result<DeviceTensor<T, IxDyn>> {
        reduce(self, Some(axes), keepdims, Kind::Mean)
    }

    /// Mean of all elements as a 0-d tensor (NaN if empty).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let g = Tensor::from_vec(vec![1.0f32, 2.0, 6.0], [3]).unwrap().to_device(&dev).unwrap();
    /// assert_eq!(g.mean().unwrap().to_host().unwrap().to_scalar().unwrap(), 3.0);
    /// ```
    pub fn mean(&self) -> Result<DeviceTensor<T, Ix0>> {
        reduce(self, None, false, Kind::Mean)?.into_dim()
    }
}
