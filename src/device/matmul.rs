//! `matmul` of device tensors with NumPy's rules (1-D promotion, batch broadcasting),
//! a shared-memory tiled kernel that reads both operands through their strides.

use super::element::{DType, DeviceNum};
use super::launch::{Kernel, Launch, Params};
use super::map::{F16_HELPERS, load_fn, same_device, store_fn};
use super::tensor::DeviceTensor;
use crate::error::{Error, Result, fmt_shape};
use crate::iter::plan::Plan;
use crate::layout::transform::{broadcast_layout, broadcast_shapes, unsqueeze_layout};
use crate::layout::{Dimension, IxDyn, Layout};

const MATMUL: &str = include_str!("kernels/matmul.wgsl");
const TILE: usize = 64;

impl<T: DeviceNum, D: Dimension> DeviceTensor<T, D> {
    /// Matrix product with NumPy's `matmul` rules: 1-D operands are promoted (and the
    /// added axis removed from the result), leading axes are batch axes broadcast
    /// together. Floats accumulate in `f32`, integers wrap. `Err` (the CPU's message)
    /// for 0-d operands, mismatched inner lengths or batch shapes that do not
    /// broadcast, or operands on different devices.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// # let Ok(dev) = ferrotensor::device::Device::wgpu() else { return };
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap().to_device(&dev).unwrap();
    /// let p = a.matmul(&a.t()).unwrap();
    /// assert_eq!(p.to_host().unwrap().to_vec(), vec![14.0, 32.0, 32.0, 77.0]);
    /// let e = a.matmul(&a).unwrap_err();
    /// assert_eq!(e.to_string(), "matmul: shapes (2, 3) and (2, 3) are not aligned: 3 != 2");
    /// ```
    pub fn matmul<D2: Dimension>(&self, rhs: &DeviceTensor<T, D2>) -> Result<DeviceTensor<T, IxDyn>> {
        const OP: &str = "matmul";
        same_device(OP, self, rhs)?;
        let (sa, sb) = (self.shape(), rhs.shape());
        for (i, s) in [sa, sb].iter().enumerate() {
            if s.is_empty() {
                return Err(Error::shape(
                    OP,
                    format!(
                        "shapes {} and {}: operand {i} does not have enough dimensions (has 0, requires at least 1)",
                        fmt_shape(sa),
                        fmt_shape(sb)
                    ),
                ));
            }
        }
        let mut la = self.layout.clone().into_dyn();
        let mut lb = rhs.layout.clone().into_dyn();
        if sa.len() == 1 {
            la = unsqueeze_layout(&la, 0)?;
        }
        if sb.len() == 1 {
            lb = unsqueeze_layout(&lb, -1)?;
        }
        let (na, nb) = (la.ndim(), lb.ndim());
        let (m, k, k2, n) = (
            la.shape()[na - 2],
            la.shape()[na - 1],
            lb.shape()[nb - 2],
            lb.shape()[nb - 1],
        );
        if k != k2 {
            return Err(Error::shape(
                OP,
                format!(
                    "shapes {} and {} are not aligned: {k} != {k2}",
                    fmt_shape(sa),
                    fmt_shape(sb)
                ),
            ));
        }
        let batch = broadcast_shapes(&la.shape()[..na - 2], &lb.shape()[..nb - 2], OP).map_err(|_| {
            Error::shape(
                OP,
                format!(
                    "shapes {} and {} have batch dimensions {} and {} that cannot be broadcast together",
                    fmt_shape(sa),
                    fmt_shape(sb),
                    fmt_shape(&la.shape()[..na - 2]),
                    fmt_shape(&lb.shape()[..nb - 2])
                ),
            )
        })?;
        let full = |l: &Layout<IxDyn>, tail: [usize; 2]| {
            let mut s = batch.to_vec();
            s.extend(tail);
            broadcast_layout(l, &s, OP)
        };
        let (la, lb) = (full(&la, [m, k])?, full(&lb, [k, n])?);
        let mut out_shape = batch.to_vec();
        if sa.len() > 1 {
            out_shape.push(m);
        }
        if sb.len() > 1 {
            out_shape.push(n);
        }
        let dev = self.device();
        let out = DeviceTensor::<T, IxDyn>::alloc(dev, IxDyn::from(&out_shape[..]), OP)?;
        if out.size() == 0 {
            return Ok(out);
        }
        // k == 0 leaves the zero-filled output: the empty sum.
        let nbatch: usize = batch.iter().product();
        let r = batch.len();
        let plan = Plan::<2>::new(&batch, [&la.strides()[..r], &lb.strides()[..r]], [0, 0], false);
        let mut bshape: Vec<usize> = plan.outer.to_vec();
        bshape.push(plan.inner_len);
        let bstr = |q: usize| {
            let mut s: Vec<isize> = plan.outer_strides[q].to_vec();
            s.push(plan.inner[q]);
            s
        };
        let (tiles_m, tiles_n) = (m.div_ceil(TILE), n.div_ceil(TILE));
        let mut params = Params::default();
        params
            .u(m)
            .u(n)
            .u(k)
            .u(bshape.len())
            .u(tiles_m)
            .u(tiles_n)
            .u(nbatch)
            .u(la.offset())
            .i(la.strides()[r])
            .i(la.strides()[r + 1])
            .u(lb.offset())
            .i(lb.strides()[r])
            .i(lb.strides()[r + 1])
            .us(&bshape)
            .is(&bstr(0))
            .is(&bstr(1));
        let f16 = T::DTYPE == DType::F16;
        let acc = match T::DTYPE {
            DType::F32 | DType::F16 => "f32",
            DType::I32 => "i32",
            _ => "u32",
        };
        let kernel = Kernel {
            name: "matmul",
            source: MATMUL,
            entry: "main",
            subst: &[
                ("T", T::DTYPE.wgsl()),
                ("ACC", acc),
                ("LOAD", load_fn(T::DTYPE)),
                ("STORE", store_fn(T::DTYPE)),
                ("HELPERS", if f16 { F16_HELPERS } else { "" }),
            ],
            f16,
            reads: 3,
            writes: 1,
        };
        let mut launch = Launch::new(dev, OP);
        launch.dispatch(
            &kernel,
            &params,
            &[&self.buffer.raw, &rhs.buffer.raw, &out.buffer.raw],
            nbatch * tiles_m * tiles_n,
        )?;
        launch.submit()?;
        Ok(out)
    }
}
