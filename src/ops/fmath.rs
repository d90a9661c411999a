//! Dispatch of float math to the per-type implementations: `f32` and `f64` call their
//! own functions (the vectorised [`VMath`](crate::kernels::vmath::VMath) slice kernels on
//! unit-stride runs where one exists), `f16` and `bf16` compute through `f32`.

use crate::element::Float;
use crate::iter::zip::{Src, map_new_cost, map_new_slices};
use crate::layout::{Dimension, Layout, Order};
use crate::same_type;
use crate::storage::{OwnedRepr, Storage};
use crate::tensor::{Tensor, TensorBase};

/// A slice kernel `dst[i] = f(src[i])`.
pub(crate) type SliceFn<F> = fn(&[F], &mut [F]);

/// One float function in its `f32` and `f64` forms, with optional slice kernels.
pub(crate) struct FloatFn<F32, F64> {
    pub f32: F32,
    pub f64: F64,
    pub slices: Option<(SliceFn<f32>, SliceFn<f64>)>,
    /// Relative cost per element (1 = an add), for the parallel threshold.
    pub cost: usize,
}

/// Applies a float function to every element of `a` into a new row-major tensor.
pub(crate) fn float_map<T, S, D, F32, F64>(a: &TensorBase<S, D>, f: FloatFn<F32, F64>) -> Tensor<T, D>
where
    T: Float,
    S: Storage<Elem = T>,
    D: Dimension,
    F32: Fn(f32) -> f32 + Sync,
    F64: Fn(f64) -> f64 + Sync,
{
    let (shape, buf) = (a.shape(), a.storage.buffer());
    let (strides, off) = (a.strides(), a.offset());
    let data: Vec<T> = if let Some(b) = same_type::slice::<T, f64>(buf) {
        let src = Src::new(b, strides, off);
        let v = match f.slices {
            Some((_, s64)) => map_new_slices(shape, src, f.cost, &f.f64, s64),
            None => map_new_cost(shape, src, f.cost, &f.f64),
        };
        same_type::vec(v).unwrap_or_else(|_| unreachable!("T is f64"))
    } else if let Some(b) = same_type::slice::<T, f32>(buf) {
        let src = Src::new(b, strides, off);
        let v = match f.slices {
            Some((s32, _)) => map_new_slices(shape, src, f.cost, &f.f32, s32),
            None => map_new_cost(shape, src, f.cost, &f.f32),
        };
        same_type::vec(v).unwrap_or_else(|_| unreachable!("T is f32"))
    } else {
        let g = &f.f32;
        map_new_cost(shape, Src::new(buf, strides, off), f.cost, |x: T| {
            T::from_f32(g(x.to_f32()))
        })
    };
    TensorBase {
        storage: OwnedRepr(data),
        layout: Layout::new_order(a.layout.shape.clone(), Order::RowMajor).expect("valid shape"),
    }
}

/// Scalar `f32` functions beyond `std` and `vmath`.
pub(crate) mod f32x {
    /// `max(x, 0)`, NaN stays NaN.
    #[inline(always)]
    pub fn relu(x: f32) -> f32 {
        if x < 0.0 { 0.0 } else { x }
    }
    /// `ln(1 + e^x)` computed stably.
    #[inline(always)]
    pub fn softplus(x: f32) -> f32 {
        if x.is_nan() {
            return x;
        }
        x.max(0.0) + (-x.abs()).exp().ln_1p()
    }
}

/// Scalar `f64` functions beyond `std` and `vmath`.
pub(crate) mod f64x {
    /// `max(x, 0)`, NaN stays NaN.
    #[inline(always)]
    pub fn relu(x: f64) -> f64 {
        if x < 0.0 { 0.0 } else { x }
    }
    /// `ln(1 + e^x)` computed stably.
    #[inline(always)]
    pub fn softplus(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        x.max(0.0) + (-x.abs()).exp().ln_1p()
    }
}

/// `f64` `gelu`, `gelu_erf` and `silu` with `+inf ↦ +inf`: the `vmath` kernels currently
/// return NaN there (their documented limit is `+inf`); this wrapper keeps the results
/// right until they are fixed.
pub(crate) mod f64fix {
    use crate::kernels::vmath::VMath;

    #[inline(always)]
    fn fix(x: f64, y: f64) -> f64 {
        if x == f64::INFINITY { x } else { y }
    }
    fn fix_slice(src: &[f64], dst: &mut [f64]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = fix(s, *d);
        }
    }
    macro_rules! fixed {
        ($($s:ident $v:ident $sl:ident;)*) => {$(
            #[inline(always)]
            pub fn $s(x: f64) -> f64 {
                fix(x, f64::$v(x))
            }
            pub fn $sl(src: &[f64], dst: &mut [f64]) {
                f64::$sl(src, dst);
                fix_slice(src, dst);
            }
        )*};
    }
    fixed! {
        gelu vgelu gelu_slice;
        gelu_erf vgelu_erf gelu_erf_slice;
        silu vsilu silu_slice;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    fn twice32(s: &[f32], d: &mut [f32]) {
        for (d, s) in d.iter_mut().zip(s) {
            *d = s * 2.0;
        }
    }
    fn twice64(s: &[f64], d: &mut [f64]) {
        for (d, s) in d.iter_mut().zip(s) {
            *d = s * 2.0;
        }
    }

    type Twice = FloatFn<fn(f32) -> f32, fn(f64) -> f64>;

    fn twice() -> Twice {
        FloatFn {
            f32: |x| x * 2.0,
            f64: |x| x * 2.0,
            slices: Some((twice32, twice64)),
            cost: 1,
        }
    }

    #[test]
    fn float_map_dispatches_each_type_and_layout() {
        let a = Tensor::from_vec((0..6).map(|x| x as f64).collect(), [2, 3]).unwrap();
        assert_eq!(float_map(&a.t(), twice()).to_vec(), vec![0.0, 6.0, 2.0, 8.0, 4.0, 10.0]);
        let b = Tensor::from_vec((0..6).map(|x| x as f32).collect(), [6]).unwrap();
        assert_eq!(float_map(&b, twice()).to_vec(), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let h = Tensor::from_vec(vec![f16::from_f32(1.5)], [1]).unwrap();
        assert_eq!(float_map(&h, twice()).to_vec(), vec![f16::from_f32(3.0)]);
        assert_eq!(same_type::slice::<f32, f64>(&[1.0f32]), None);
    }
}
