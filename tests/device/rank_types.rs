//! The device tensor mirrors the CPU tensor's signatures: for each shared method, the
//! CPU and the device give the same rank type (checked at compile time: both results
//! go through `same`, which takes one rank type `D` for the two) and the same shape
//! (checked at run time when an adapter exists).

use crate::common::*;
use ferrotensor::device::{DeviceElement, DeviceTensor};
use ferrotensor::nn;
use ferrotensor::prelude::*;
use ferrotensor::storage::Storage;

/// Both results have rank type `D` (else this does not compile) and the same shape.
fn same<S: Storage, U: DeviceElement, D: Dimension>(
    cpu: &TensorBase<S, D>,
    dev: &DeviceTensor<U, D>,
    what: &str,
) {
    assert_eq!(cpu.shape(), dev.shape(), "{what}");
}

#[test]
fn shared_methods_give_the_cpu_rank_types() {
    let Some(dev) = device() else { return };
    let a2 = Tensor::from_vec((0..6).map(|x| x as f32 - 2.0).collect(), [2, 3]).unwrap();
    let b2 = Tensor::from_vec((0..12).map(|x| x as f32 * 0.5).collect(), [3, 4]).unwrap();
    let v3 = Tensor::from_vec(vec![1.0f32, -1.0, 2.0], [3]).unwrap();
    let s3 = Tensor::<f32, _>::ones([5, 3, 4]);
    let c4 = Tensor::<f32, _>::ones([2, 1, 3, 3]);
    let (ga2, gb2, gv3, gs3, gc4) = (
        a2.to_device(&dev).unwrap(),
        b2.to_device(&dev).unwrap(),
        v3.to_device(&dev).unwrap(),
        s3.to_device(&dev).unwrap(),
        c4.to_device(&dev).unwrap(),
    );

    let (s3t, gs3t) = (s3.swap_axes(1, 2).unwrap(), gs3.swap_axes(1, 2).unwrap()); // (5, 4, 3)

    // matmul: MatmulDim.
    same(
        &a2.matmul(&b2).unwrap(),
        &ga2.matmul(&gb2).unwrap(),
        "Ix2 @ Ix2",
    );
    same(
        &a2.matmul(&v3).unwrap(),
        &ga2.matmul(&gv3).unwrap(),
        "Ix2 @ Ix1",
    );
    same(
        &v3.matmul(&b2).unwrap(),
        &gv3.matmul(&gb2).unwrap(),
        "Ix1 @ Ix2",
    );
    same(
        &v3.matmul(&v3).unwrap(),
        &gv3.matmul(&gv3).unwrap(),
        "Ix1 @ Ix1",
    );
    same(
        &a2.matmul(&s3).unwrap(),
        &ga2.matmul(&gs3).unwrap(),
        "Ix2 @ Ix3",
    );
    same(
        &c4.matmul(&s3).unwrap(),
        &gc4.matmul(&gs3).unwrap(),
        "Ix4 @ Ix3",
    );
    same(
        &a2.view().into_dyn().matmul(&b2).unwrap(),
        &ga2.clone().into_dyn().matmul(&gb2).unwrap(),
        "IxDyn @ Ix2",
    );

    // Broadcasting: the larger of two fixed ranks (DimMax), a scalar keeps the rank.
    same(&(&a2 + &v3), &(&ga2 + &gv3), "Ix2 + Ix1");
    same(&(&v3 - &a2), &(&gv3 - &ga2), "Ix1 - Ix2");
    same(&(&v3 * &s3t), &(&gv3 * &gs3t), "Ix1 * Ix3");
    same(&(&a2 / 2.0), &(&ga2 / 2.0), "Ix2 / scalar");
    same(&(2.0 - &a2), &(2.0 - &ga2), "scalar - Ix2");
    same(&-&a2, &-&ga2, "-Ix2");
    same(
        &a2.try_add(&v3).unwrap(),
        &ga2.try_add(&gv3).unwrap(),
        "try_add Ix2 Ix1",
    );
    same(
        &v3.try_sub(&a2).unwrap(),
        &gv3.try_sub(&ga2).unwrap(),
        "try_sub Ix1 Ix2",
    );
    same(
        &a2.try_mul(3.0).unwrap(),
        &ga2.try_mul(3.0).unwrap(),
        "try_mul scalar",
    );
    same(
        &v3.try_div(&s3t).unwrap(),
        &gv3.try_div(&gs3t).unwrap(),
        "try_div Ix1 Ix3",
    );
    same(
        &a2.maximum(0.0).unwrap(),
        &ga2.maximum(0.0).unwrap(),
        "maximum scalar",
    );
    same(
        &v3.maximum(&a2).unwrap(),
        &gv3.maximum(&ga2).unwrap(),
        "maximum Ix1 Ix2",
    );
    same(
        &a2.minimum(v3.clone()).unwrap(),
        &ga2.minimum(gv3.clone()).unwrap(),
        "minimum by value",
    );
    same(
        &a2.minimum(1.0).unwrap(),
        &ga2.minimum(1.0).unwrap(),
        "minimum scalar",
    );

    // Comparisons: Result, scalar or tensor, broadcast rank.
    same(&a2.eq(0.0).unwrap(), &ga2.eq(0.0).unwrap(), "eq scalar");
    same(&a2.ne(&v3).unwrap(), &ga2.ne(&gv3).unwrap(), "ne Ix2 Ix1");
    same(&v3.lt(&a2).unwrap(), &gv3.lt(&ga2).unwrap(), "lt Ix1 Ix2");
    same(&a2.le(1.0).unwrap(), &ga2.le(1.0).unwrap(), "le scalar");
    same(&v3.gt(&s3t).unwrap(), &gv3.gt(&gs3t).unwrap(), "gt Ix1 Ix3");
    same(
        &a2.ge(v3.clone()).unwrap(),
        &ga2.ge(gv3.clone()).unwrap(),
        "ge by value",
    );

    // Single-axis reductions: IxN -> IxN-1; `*_axes`: IxDyn.
    same(
        &a2.argmax_axis(1).unwrap(),
        &ga2.argmax_axis(1).unwrap(),
        "argmax_axis",
    );
    same(
        &s3.argmin_axis(0).unwrap(),
        &gs3.argmin_axis(0).unwrap(),
        "argmin_axis",
    );
    same(
        &a2.sum_axis(0).unwrap(),
        &ga2.sum_axis(0).unwrap(),
        "sum_axis",
    );
    same(
        &s3.mean_axis(-1).unwrap(),
        &gs3.mean_axis(-1).unwrap(),
        "mean_axis",
    );
    same(
        &a2.max_axis(1).unwrap(),
        &ga2.max_axis(1).unwrap(),
        "max_axis",
    );
    same(
        &v3.min_axis(0).unwrap(),
        &gv3.min_axis(0).unwrap(),
        "min_axis",
    );
    same(
        &a2.sum_axes(&[0], true).unwrap(),
        &ga2.sum_axes(&[0], true).unwrap(),
        "sum_axes",
    );
    same(
        &a2.mean_axes(&[], false).unwrap(),
        &ga2.mean_axes(&[], false).unwrap(),
        "mean_axes",
    );
    same(
        &s3.max_axes(&[0, 2], false).unwrap(),
        &gs3.max_axes(&[0, 2], false).unwrap(),
        "max_axes",
    );
    same(
        &s3.min_axes(&[1], true).unwrap(),
        &gs3.min_axes(&[1], true).unwrap(),
        "min_axes",
    );

    // Element-wise: the input's rank type.
    same(&a2.exp(), &ga2.exp(), "exp");
    same(&a2.abs(), &ga2.abs(), "abs");
    same(&a2.neg(), &ga2.neg(), "neg");
    same(&v3.sqrt(), &gv3.sqrt(), "sqrt");
    same(&v3.ln(), &gv3.ln(), "ln");
    same(&v3.tanh(), &gv3.tanh(), "tanh");
    same(&a2.cast::<i32>(), &ga2.cast::<i32>().unwrap(), "cast");
    same(
        &a2.t().to_contiguous(),
        &ga2.t().to_contiguous().unwrap(),
        "to_contiguous",
    );
    same(
        &nn::softmax(&a2, -1).unwrap(),
        &ga2.softmax(-1).unwrap(),
        "softmax",
    );
    same(
        &nn::log_softmax(&s3, 0).unwrap(),
        &gs3.log_softmax(0).unwrap(),
        "log_softmax",
    );
    let (x4, w4) = (
        Tensor::<f32, _>::ones([1, 2, 5, 5]),
        Tensor::<f32, _>::ones([3, 2, 3, 3]),
    );
    let args = nn::Conv2dArgs::default();
    same(
        &nn::conv2d(&x4, &w4, None, &args).unwrap(),
        &ferrotensor::device::conv2d(
            &x4.to_device(&dev).unwrap(),
            &w4.to_device(&dev).unwrap(),
            None,
            &args,
        )
        .unwrap(),
        "conv2d",
    );
    same(&nn::relu(&a2), &ga2.relu(), "relu");
    same(&nn::sigmoid(&a2), &ga2.sigmoid(), "sigmoid");

    // Views.
    same(&a2.t(), &ga2.t(), "t");
    same(
        &s3.permute(&[2, 0, 1]).unwrap(),
        &gs3.permute(&[2, 0, 1]).unwrap(),
        "permute",
    );
    same(
        &s3.swap_axes(0, 2).unwrap(),
        &gs3.swap_axes(0, 2).unwrap(),
        "swap_axes",
    );
    same(
        &s3.moveaxis(0, -1).unwrap(),
        &gs3.moveaxis(0, -1).unwrap(),
        "moveaxis",
    );
    same(&a2.flip(1).unwrap(), &ga2.flip(1).unwrap(), "flip");
    same(
        &v3.broadcast_to([2, 3]).unwrap(),
        &gv3.broadcast_to([2, 3]).unwrap(),
        "broadcast_to",
    );
    same(
        &a2.reshape([3, 2]).unwrap(),
        &ga2.reshape([3, 2]).unwrap(),
        "reshape",
    );
    same(&a2.slice(s![.., 1..]), &ga2.slice(s![.., 1..]), "slice");
    same(
        &a2.try_slice(s![1]).unwrap(),
        &ga2.try_slice(s![1]).unwrap(),
        "try_slice",
    );
    same(&c4.squeeze(), &gc4.squeeze(), "squeeze");
    same(
        &v3.unsqueeze(0).unwrap(),
        &gv3.unsqueeze(0).unwrap(),
        "unsqueeze",
    );
}
