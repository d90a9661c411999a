//! The element-wise engine of the device: one WGSL template that reads one or two
//! operands through any layout (strided, flipped, offset, broadcast) and writes a new
//! row-major tensor, made concrete per operation and element types.

use super::element::{DType, DeviceElement};
use super::launch::{Kernel, Launch, Params};
use super::tensor::{DeviceTensor, check_same_device};
use crate::error::Result;
use crate::iter::plan::Plan;
use crate::layout::{IxDyn, Layout};

const MAP: &str = include_str!("kernels/map.wgsl");

/// Threads per workgroup of the element-wise kernels.
pub(crate) const GROUP: usize = 256;

/// One operand of a map: a device tensor already broadcast to the output shape.
pub(crate) struct Operand<'a> {
    pub buffer: &'a wgpu::Buffer,
    /// WGSL element type of the buffer.
    pub ty: &'static str,
    /// WGSL conversion applied on load (`"f32"` for floats, `""` to keep the value).
    pub load: &'static str,
    pub layout: Layout<IxDyn>,
}

impl<'a> Operand<'a> {
    /// `t` read in its compute type.
    pub(crate) fn of<T: DeviceElement, D: crate::layout::Dimension>(t: &'a DeviceTensor<T, D>) -> Self {
        Operand {
            buffer: &t.buffer.raw,
            ty: T::DTYPE.wgsl(),
            load: load_fn(T::DTYPE),
            layout: t.layout.clone().into_dyn(),
        }
    }

    /// `t` read as its stored bits (`u32` words, or `f16` halves).
    pub(crate) fn raw<T: DeviceElement, D: crate::layout::Dimension>(t: &'a DeviceTensor<T, D>) -> Self {
        Operand {
            buffer: &t.buffer.raw,
            ty: raw_type(T::DTYPE),
            load: "",
            layout: t.layout.clone().into_dyn(),
        }
    }
}

/// The WGSL type that moves the stored bits of `dtype` unchanged.
pub(crate) fn raw_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "f16",
        _ => "u32",
    }
}

/// The layouts of `ops` over `shape` with length-1 axes dropped and adjacent axes
/// merged where every operand is contiguous across them (row-major order kept):
/// `(shape, [(offset, strides)])`.
fn coalesce(shape: &[usize], ops: &[Operand<'_>]) -> (Vec<usize>, Vec<(usize, Vec<isize>)>) {
    fn run<const N: usize>(shape: &[usize], ops: &[Operand<'_>]) -> (Vec<usize>, Vec<(usize, Vec<isize>)>) {
        let plan = Plan::<N>::new(
            shape,
            std::array::from_fn(|k| ops[k].layout.strides()),
            std::array::from_fn(|k| ops[k].layout.offset()),
            false,
        );
        let mut dims: Vec<usize> = plan.outer.to_vec();
        dims.push(plan.inner_len);
        let per = (0..N)
            .map(|k| {
                let mut s: Vec<isize> = plan.outer_strides[k].to_vec();
                s.push(plan.inner[k]);
                (plan.base[k] as usize, s)
            })
            .collect();
        (dims, per)
    }
    match ops.len() {
        1 => run::<1>(shape, ops),
        2 => run::<2>(shape, ops),
        n => unreachable!("map kernels take one or two operands, not {n}"),
    }
}

/// WGSL that converts a computed value to the storage type of `dtype` (floats are
/// computed in `f32`).
pub(crate) fn store_fn(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "to_f16",
        _ => "",
    }
}

/// WGSL that loads a stored value of `dtype` into its compute type.
pub(crate) fn load_fn(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 | DType::F32 => "f32",
        _ => "",
    }
}

/// Helpers every `f16` shader gets: exact conversion from `f32` with overflow to ±∞.
pub(crate) const F16_HELPERS: &str = "
fn to_f16(y: f32) -> f16 {
    // Finite values past the f16 range round to ±inf (the conversion leaves them open).
    if (abs(y) >= 65520.0 && !is_nan(y)) { return f16(select(inf(), -inf(), y < 0.0)); }
    return f16(y);
}
";

/// Runs `op_fn` (WGSL defining `fn op(...)`) over `ops` broadcast to `shape` and
/// returns the new row-major tensor of `U`. `name` identifies `op_fn` in the pipeline
/// cache.
pub(crate) fn map<U: DeviceElement>(
    op: &'static str,
    shape: &[usize],
    ops: &[Operand<'_>],
    op_fn: &str,
    dev: &super::Device,
) -> Result<DeviceTensor<U, IxDyn>> {
    map_as::<U>(op, shape, ops, op_fn, dev, U::DTYPE.wgsl(), store_fn(U::DTYPE))
}

/// [`map`] writing the output as WGSL type `out_ty` through the conversion `store`.
pub(crate) fn map_as<U: DeviceElement>(
    op: &'static str,
    shape: &[usize],
    ops: &[Operand<'_>],
    op_fn: &str,
    dev: &super::Device,
    out_ty: &str,
    store: &str,
) -> Result<DeviceTensor<U, IxDyn>> {
    let out = DeviceTensor::<U, IxDyn>::alloc(dev, IxDyn::from(shape), op)?;
    let n = out.size();
    if n == 0 {
        return Ok(out);
    }
    let (dims, per) = coalesce(shape, ops);
    let mut params = Params::default();
    params.u(n).u(dims.len()).us(&dims);
    for (offset, strides) in &per {
        params.u(*offset).is(strides);
    }
    let f16 = U::DTYPE == DType::F16 || ops.iter().any(|o| o.ty == "f16");
    let mut bindings = String::new();
    let mut args = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        bindings.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> src{k}: array<{}>;\n",
            k + 1,
            o.ty
        ));
        args.push(format!("{}(src{k}[operand_index(i, {k}u)])", o.load));
    }
    bindings.push_str(&format!(
        "@group(0) @binding({}) var<storage, read_write> dst: array<{}>;\n",
        ops.len() + 1,
        out_ty
    ));
    let opfn = if f16 {
        format!("{F16_HELPERS}\n{op_fn}")
    } else {
        op_fn.to_string()
    };
    let args = args.join(", ");
    let kernel = Kernel {
        name: "map",
        source: MAP,
        entry: "main",
        subst: &[
            ("N", &ops.len().to_string()),
            ("BINDINGS", &bindings),
            ("OPFN", &opfn),
            ("STORE", store),
            ("ARGS", &args),
        ],
        f16,
        reads: ops.len() + 1,
        writes: 1,
    };
    let mut buffers: Vec<&wgpu::Buffer> = ops.iter().map(|o| o.buffer).collect();
    buffers.push(&out.buffer.raw);
    let mut launch = Launch::new(dev, op);
    launch.dispatch(&kernel, &params, &buffers, n.div_ceil(GROUP))?;
    launch.submit()?;
    Ok(out)
}

/// `Err` unless `b` is on `a`'s device.
pub(crate) fn same_device<A: DeviceElement, B: DeviceElement, DA, DB>(
    op: &'static str,
    a: &DeviceTensor<A, DA>,
    b: &DeviceTensor<B, DB>,
) -> Result<()>
where
    DA: crate::layout::Dimension,
    DB: crate::layout::Dimension,
{
    check_same_device(op, a.device(), &[(a.device(), a.shape()), (b.device(), b.shape())])
}
