//! The public API conventions: one fallibility rule, scalar operands, one way to pass
//! several tensors, rank types kept where known (checked at compile time by the
//! annotated `let`s), panics reported at the caller's line.

use ferrotensor::prelude::*;
use std::ops::{AddAssign, IndexMut};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

fn m23() -> Tensor<f64, Ix2> {
    Tensor::from_vec(vec![1.0, -2.0, 3.0, f64::NAN, 5.0, -6.0], [2, 3]).unwrap()
}

fn bits(v: Vec<f64>) -> Vec<u64> {
    v.into_iter()
        .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
        .collect()
}

#[test]
fn scalar_operands_equal_zero_d_tensor_operands() {
    let a = m23();
    let v = a.t(); // a strided operand
    let s = 2.0;
    let t = Tensor::scalar(s);
    macro_rules! same {
        ($($op:ident),*) => {$(
            assert_eq!(bits(v.$op(s).unwrap().to_vec()), bits(v.$op(&t).unwrap().to_vec()), stringify!($op));
        )*};
    }
    same!(
        try_add,
        try_sub,
        try_mul,
        try_div,
        maximum,
        minimum,
        fmax,
        fmin,
        pow,
        remainder,
        fmod,
        floor_divide,
        atan2,
        hypot,
        copysign
    );
    macro_rules! same_bool {
        ($($op:ident),*) => {$(
            assert_eq!(v.$op(s).unwrap().to_vec(), v.$op(&t).unwrap().to_vec(), stringify!($op));
        )*};
    }
    same_bool!(eq, ne, lt, le, gt, ge);
    assert_eq!(
        v.gt(s).unwrap().to_vec(),
        vec![false, false, false, true, true, false]
    );
    assert_eq!(
        v.isclose(-2.0, 0.0, 0.0, false).unwrap().to_vec(),
        vec![false, false, true, false, false, false]
    );
    assert!(!a.allclose(1.0, 1e-5, 1e-8, false).unwrap());
    let i = Tensor::from_vec(vec![6, 7, -8], [3]).unwrap();
    assert_eq!(i.try_shl(1).unwrap().to_vec(), vec![12, 14, -16]);
    assert_eq!(i.try_bitand(3).unwrap().to_vec(), vec![2, 3, 0]);
    assert_eq!(
        i.zip_map(2, |x, y| x * y).unwrap().to_vec(),
        vec![12, 14, -16]
    );
}

#[test]
fn operands_by_reference_or_by_value_of_every_kind() {
    let a = Tensor::from_vec(vec![1, 5, 3], [3]).unwrap();
    let b = Tensor::from_vec(vec![2, 2, 9], [3]).unwrap();
    let want = vec![2, 5, 9];
    assert_eq!(a.maximum(&b).unwrap().to_vec(), want);
    assert_eq!(a.maximum(b.view()).unwrap().to_vec(), want);
    assert_eq!(a.maximum(b.clone()).unwrap().to_vec(), want);
    assert_eq!(a.maximum(b.clone().into_shared()).unwrap().to_vec(), want);
    assert_eq!(a.maximum(b.reshape([3]).unwrap()).unwrap().to_vec(), want);
    assert_eq!(a.view().maximum(&b.view()).unwrap().to_vec(), want);
}

#[test]
fn where_and_clip_take_scalars_and_tensors() {
    let a = m23();
    let mask = a.gt(0.0).unwrap();
    let w: Tensor<f64, Ix2> = where_(&mask, &a, 0.0).unwrap();
    assert_eq!(w.to_vec(), vec![1.0, 0.0, 3.0, 0.0, 5.0, 0.0]);
    let w2: Tensor<f64, Ix2> = where_(&mask, -1.0, &a).unwrap();
    assert_eq!(
        bits(w2.to_vec()),
        bits(vec![-1.0, -2.0, -1.0, f64::NAN, -1.0, -6.0])
    );
    let w3: Tensor<f64, Ix2> = where_(&mask, 1.0, 0.0).unwrap();
    assert_eq!(w3.sum(), 3.0);
    let row = Tensor::from_vec(vec![0.0, -1.0, 2.0], [3]).unwrap();
    let c: Tensor<f64, Ix2> = a.clip(&row, 4.0).unwrap();
    assert_eq!(
        bits(c.to_vec()),
        bits(vec![1.0, -1.0, 3.0, f64::NAN, 4.0, 2.0])
    );
    let e = where_(&mask, &a, &Tensor::<f64, _>::zeros([2])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "where: operands could not be broadcast together with shapes (2, 3) (2, 3) (2,)"
    );
}

#[test]
fn named_ops_return_errors_naming_the_operation_and_shapes() {
    let a = m23();
    let b = Tensor::<f64, _>::zeros([4]);
    for (got, op) in [
        (a.maximum(&b).map(|_| ()), "maximum"),
        (a.pow(&b).map(|_| ()), "power"),
        (a.try_add(&b).map(|_| ()), "add"),
        (a.remainder(&b).map(|_| ()), "remainder"),
        (a.lt(&b).map(|_| ()), "less"),
        (a.isclose(&b, 0.0, 0.0, false).map(|_| ()), "isclose"),
    ] {
        assert_eq!(
            got.unwrap_err().to_string(),
            format!("{op}: operands could not be broadcast together with shapes (2, 3) (4,)")
        );
    }
    let i = Tensor::from_vec(vec![1, 2], [2]).unwrap();
    assert_eq!(
        i.try_div(0).unwrap_err().to_string(),
        "divide: integer division by zero (divisor of shape ())"
    );
    assert!(i.sum_axis(1).unwrap_err().to_string().starts_with("sum:"));
    assert!(
        a.argmax_axis(-3)
            .unwrap_err()
            .to_string()
            .starts_with("argmax:")
    );
    let mut m = a.clone();
    let e = m
        .try_add_assign(Tensor::<f64, _>::zeros([2, 2, 3]))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("add: non-broadcastable output"), "{e}");
    assert!(
        a.try_get([2, 0])
            .unwrap_err()
            .to_string()
            .contains("out of bounds for shape (2, 3)")
    );
}

#[test]
fn rank_types_are_kept_where_known() {
    let a = Tensor::<f64, _>::ones([2, 3]);
    let v = Tensor::<f64>::arange(3);
    let m = Tensor::<f64, _>::eye(3);
    let x = Tensor::<f64, _>::ones([4, 2, 3]);
    // Broadcasting: the larger rank, either order; IxDyn stays IxDyn.
    let r: Tensor<f64, Ix2> = &a + &v;
    let r2: Tensor<f64, Ix2> = &v * &a;
    let r3: Tensor<f64, Ix3> = &x - &v;
    let r4: Tensor<bool, Ix2> = a.gt(&v).unwrap();
    let r5: Tensor<f64, Ix2> = a.maximum(&v).unwrap();
    let d: Tensor<f64, IxDyn> = &a + &v.clone().into_dyn();
    let sc: Tensor<f64, Ix2> = a.pow(2.0).unwrap();
    assert_eq!(
        (r.shape(), r2.shape(), r3.shape(), r4.shape(), r5.shape()),
        (
            &[2, 3][..],
            &[2, 3][..],
            &[4, 2, 3][..],
            &[2, 3][..],
            &[2, 3][..]
        )
    );
    assert_eq!((d.shape(), sc.shape()), (&[2, 3][..], &[2, 3][..]));
    // Single-axis reductions remove one axis.
    let s: Tensor<f64, Ix1> = a.sum_axis(0).unwrap();
    let s3: Tensor<f64, Ix2> = x.mean_axis(-1).unwrap();
    let s1: Tensor<f64, Ix0> = v.max_axis(0).unwrap();
    let am: Tensor<usize, Ix2> = x.argmax_axis(1).unwrap();
    let vr: Tensor<f64, Ix1> = a.var_axis(1, 1).unwrap();
    let al: Tensor<bool, Ix1> = a.all_axis(0).unwrap();
    let f: Tensor<f64, Ix1> = a.fold_axis(1, 0.0, |acc, y| acc + y).unwrap();
    assert_eq!(
        (s.to_vec(), s3.shape(), s1.to_scalar().unwrap()),
        (vec![2.0; 3], &[4, 2][..], 2.0)
    );
    assert_eq!(
        (am.shape(), vr.to_vec(), al.to_vec(), f.to_vec()),
        (&[4, 3][..], vec![0.0; 2], vec![true; 3], vec![3.0; 2])
    );
    // Products.
    let p: Tensor<f64, Ix2> = a.matmul(&m).unwrap();
    let pv: Tensor<f64, Ix1> = a.matmul(&v).unwrap();
    let vp: Tensor<f64, Ix1> = v.matmul(&m).unwrap();
    let vv: Tensor<f64, Ix0> = v.matmul(&v).unwrap();
    let bp: Tensor<f64, Ix3> = x.matmul(&m).unwrap();
    let op: Tensor<f64, Ix2> = &a % &m;
    let dt: Tensor<f64, Ix3> = x.dot(&m).unwrap();
    let o: Tensor<f64, Ix2> = v.outer(&v).unwrap();
    let tr: Tensor<f64, Ix1> = x.trace().unwrap();
    assert_eq!(
        (p.shape(), pv.shape(), vp.shape(), vv.to_scalar().unwrap()),
        (&[2, 3][..], &[2][..], &[3][..], 5.0)
    );
    assert_eq!(
        (bp.shape(), op.shape(), dt.shape(), o.shape(), tr.shape()),
        (
            &[4, 2, 3][..],
            &[2, 3][..],
            &[4, 2, 3][..],
            &[3, 3][..],
            &[3][..]
        )
    );
    // Combining.
    let c: Tensor<f64, Ix2> = concatenate(&[&a, &a.view()], 1).unwrap();
    let st: Tensor<f64, Ix3> = stack(&[&a, &a], 0).unwrap();
    let hs: Tensor<f64, Ix1> = hstack(&[&v, &v]).unwrap();
    let vs: Tensor<f64, Ix2> = vstack(&[&v, &v]).unwrap();
    let ds: Tensor<f64, Ix3> = dstack(&[&a, &a]).unwrap();
    assert_eq!(
        (c.shape(), st.shape(), hs.shape(), vs.shape(), ds.shape()),
        (
            &[2, 6][..],
            &[2, 2, 3][..],
            &[6][..],
            &[2, 3][..],
            &[2, 3, 2][..]
        )
    );
    // diag flips between vector and matrix; unstack removes the axis.
    let dg: Tensor<f64, Ix2> = v.diag(-1).unwrap();
    let dv: Tensor<f64, Ix1> = dg.diag(-1).unwrap();
    let us: Vec<TensorView<'_, f64, Ix2>> = unstack(&x, 1).unwrap();
    let dd: Tensor<f64, IxDyn> = v.clone().into_dyn().diag(0).unwrap();
    assert_eq!(
        (dg.shape(), dv.to_vec(), us.len(), us[1].shape(), dd.shape()),
        (&[4, 4][..], v.to_vec(), 2, &[4, 3][..], &[3, 3][..])
    );
    // unsqueeze adds one axis, diagonal removes one; IxDyn stays IxDyn.
    let u: TensorView<'_, f64, Ix3> = a.unsqueeze(-1).unwrap();
    let ones6 = Tensor::<f64, _>::ones([1; 6]);
    let u6: TensorView<'_, f64, IxDyn> = ones6.unsqueeze(0).unwrap();
    let dgv: TensorView<'_, f64, Ix2> = x.diagonal(0, 1, 2).unwrap();
    let mut mm = m.clone();
    let dgm: TensorMut<'_, f64, Ix1> = mm.diagonal_mut(1, 0, 1).unwrap();
    let ddy: TensorView<'_, f64, IxDyn> = x.view().into_dyn().diagonal(0, 0, 2).unwrap();
    assert_eq!(
        (u.shape(), u6.ndim(), dgv.shape(), dgm.shape(), ddy.shape()),
        (&[2, 3, 1][..], 7, &[4, 2][..], &[2][..], &[2, 3][..])
    );
    // Linear algebra keeps the input's rank type.
    let inv: Tensor<f64, Ix2> = ferrotensor::linalg::inv(&m).unwrap();
    let det: Tensor<f64, Ix0> = ferrotensor::linalg::det(&m).unwrap();
    let bdet: Tensor<f64, Ix1> =
        ferrotensor::linalg::det(&Tensor::<f64, _>::ones([5, 2, 2])).unwrap();
    let sol: Tensor<f64, Ix1> = ferrotensor::linalg::solve(&m, &v).unwrap();
    assert_eq!(
        (
            inv.to_vec(),
            det.to_scalar().unwrap(),
            bdet.shape(),
            sol.to_vec()
        ),
        (m.to_vec(), 1.0, &[5][..], v.to_vec())
    );
}

#[test]
fn several_tensors_mix_ownership_kinds_and_ranks() {
    let a = Tensor::<i32, _>::from_shape_fn([2, 2], |i| (i[0] * 2 + i[1]) as i32);
    let shared = a.clone().into_shared();
    let cow = a.reshape([2, 2]).unwrap();
    let mut owned = a.clone();
    let tmut = owned.view_mut();
    let c = concatenate(&[&a, &a.view(), &shared, &cow, &tmut, &a.t()], 0).unwrap();
    assert_eq!(c.shape(), &[12, 2]);
    assert_eq!(&c.to_vec()[20..], &[0, 2, 1, 3]);
    // A Vec of tensors, by the documented idiom.
    let parts: Vec<Tensor<i32, Ix2>> = vec![a.clone(), a.clone(), a.clone()];
    let s: Tensor<i32, Ix3> = stack(&parts.iter().map(|t| t as _).collect::<Vec<_>>(), 0).unwrap();
    assert_eq!(s.shape(), &[3, 2, 2]);
    // Mixed ranks where the operation allows them.
    let v = Tensor::from_vec(vec![1, 1], [2]).unwrap();
    let mv = ferrotensor::linalg::einsum("ij,j->i", &[&a, &v.view()]).unwrap();
    assert_eq!(mv.to_vec(), vec![1, 5]);
    let three = ferrotensor::linalg::einsum("ij,jk,k->i", &[&a, &shared, &v]).unwrap();
    assert_eq!(three.to_vec(), vec![5, 17]); // a · a · (1, 1)
    let g = meshgrid(
        &[&v, &Tensor::from_vec(vec![7, 8, 9], vec![3]).unwrap()],
        Indexing::Ij,
    )
    .unwrap();
    assert_eq!(g[1].shape(), &[2, 3]);
    let rows = Tensor::from_vec(vec![0i64, 1], [2]).unwrap();
    let cols = Tensor::from_vec(vec![1i64], vec![1]).unwrap();
    let p = a
        .index_put(&[&rows, &cols.view()], &Tensor::scalar(9))
        .unwrap();
    assert_eq!(p.to_vec(), vec![0, 9, 2, 9]);
}

#[test]
fn gelu_is_exact_everywhere_and_gelu_tanh_is_the_approximation() {
    let x = Tensor::<f64, _>::from_shape_fn([401], |i| i[0] as f64 / 40.0 - 5.0);
    let exact = |v: f64| 0.5 * v * libm::erfc(-v / std::f64::consts::SQRT_2);
    let g = x.gelu().to_vec();
    let n = ferrotensor::nn::gelu(&x).to_vec();
    for ((gi, ni), xi) in g.iter().zip(&n).zip(x.to_vec()) {
        let w = exact(xi);
        assert!(
            (gi - w).abs() <= 1e-14 * w.abs(),
            "gelu({xi}) = {gi}, exact {w}"
        );
        assert!(
            (gi - ni).abs() <= 1e-15 * w.abs(),
            "tensor gelu and nn::gelu agree at {xi}: {gi} vs {ni}"
        );
    }
    let t = x.gelu_tanh().to_vec();
    let nt = ferrotensor::nn::gelu_tanh(&x).to_vec();
    let c = (2.0 / std::f64::consts::PI).sqrt();
    for ((ti, ni), xi) in t.iter().zip(&nt).zip(x.to_vec()) {
        let w = 0.5 * xi * (1.0 + (c * (xi + 0.044715 * xi * xi * xi)).tanh());
        assert!((ti - w).abs() <= 1e-14, "gelu_tanh({xi}) = {ti}, want {w}");
        assert!(
            (ti - ni).abs() <= 1e-14,
            "tensor gelu_tanh and nn::gelu_tanh agree at {xi}"
        );
    }
    // f32: both forms agree with nn's to a few ulp.
    let x32 = x.cast::<f32>();
    for (a, b) in x32
        .gelu()
        .to_vec()
        .iter()
        .zip(ferrotensor::nn::gelu(&x32).to_vec())
    {
        assert!(
            (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1e-30),
            "{a} vs {b}"
        );
    }
    for (a, b) in x32
        .gelu_tanh()
        .to_vec()
        .iter()
        .zip(ferrotensor::nn::gelu_tanh(&x32).to_vec())
    {
        assert!(
            (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1e-30),
            "{a} vs {b}"
        );
    }
    #[allow(deprecated)]
    let old = x.gelu_erf().to_vec();
    assert_eq!(old, g);
}

#[test]
fn arange_infers_its_rank_and_deprecated_names_still_work() {
    let a: Tensor<i64, Ix1> = Tensor::<i64>::arange(4);
    let b: Tensor<f32, Ix1> = Tensor::arange(2);
    let c = Tensor::<u8, _>::arange(3);
    assert_eq!(
        (a.to_vec(), b.to_vec(), c.to_vec()),
        (vec![0, 1, 2, 3], vec![0.0, 1.0], vec![0, 1, 2])
    );
    #[allow(deprecated)]
    let g = a.try_gt(1).unwrap();
    assert_eq!(g.to_vec(), a.gt(1).unwrap().to_vec());
}

/// Where the last panic of this thread was reported (the panic hook is process-wide,
/// so the tests that read it take this lock; panics of other threads, i.e. of the other
/// tests of this binary, go to the previous hook).
static HOOK: Mutex<()> = Mutex::new(());

fn panic_line(f: impl FnOnce()) -> (String, u32, String) {
    let _g = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let seen = std::sync::Arc::new(Mutex::new(None));
    let s2 = seen.clone();
    let prev = std::sync::Arc::new(std::panic::take_hook());
    let (prev2, me) = (prev.clone(), std::thread::current().id());
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() != me {
            return prev2(info);
        }
        let loc = info.location().map(|l| (l.file().to_string(), l.line()));
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        *s2.lock().unwrap() = loc.map(|(f, l)| (f, l, msg));
    }));
    let r = catch_unwind(AssertUnwindSafe(f));
    drop(std::panic::take_hook()); // ours, which holds the other reference to `prev`
    std::panic::set_hook(
        std::sync::Arc::try_unwrap(prev).unwrap_or_else(|_| unreachable!("hook dropped")),
    );
    assert!(r.is_err(), "expected a panic");
    seen.lock().unwrap().take().expect("panic location")
}

/// A closure that triggers a panic and returns where it was reported.
type PanicCase<'a> = Box<dyn FnOnce() -> (String, u32, String) + 'a>;

#[test]
fn arange_step_refuses_zero_and_non_finite_steps() {
    // The `try_` twin: `Err` naming the operation and the arguments.
    for (r, want) in [
        (
            Tensor::try_arange_step(1, 2, 0).map(|_| ()),
            "arange(1, 2, 0)",
        ),
        (
            Tensor::try_arange_step(0.0, 1.0, 0.0).map(|_| ()),
            "arange(0.0, 1.0, 0.0)",
        ),
        (
            Tensor::try_arange_step(0.0f32, 1.0, -0.0).map(|_| ()),
            "arange(0.0, 1.0, -0.0)",
        ),
        (
            Tensor::try_arange_step(0.0, 1.0, f64::NAN).map(|_| ()),
            "arange(0.0, 1.0, NaN)",
        ),
        (
            Tensor::try_arange_step(0.0, 1.0, f64::INFINITY).map(|_| ()),
            "arange(0.0, 1.0, inf)",
        ),
        (
            Tensor::try_arange_step(0.0, -1.0, f64::NEG_INFINITY).map(|_| ()),
            "arange(0.0, -1.0, -inf)",
        ),
    ] {
        let e = r.expect_err(want);
        assert!(matches!(e, Error::Value { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.starts_with("arange_step: ") && msg.contains(want),
            "{msg}"
        );
    }
    // The plain constructor panics with the same message, at the caller's line.
    let here = file!();
    let (zero, start) = (|| drop(Tensor::arange_step(3i64, 9, 0)), line!());
    let (nan, end) = (|| drop(Tensor::arange_step(0.0f32, 1.0, f32::NAN)), line!());
    for f in [Box::new(zero) as Box<dyn FnOnce()>, Box::new(nan)] {
        let (file, l, msg) = panic_line(f);
        assert_eq!(
            (file.as_str(), start <= l && l <= end),
            (here, true),
            "{msg}"
        );
        assert!(msg.starts_with("arange_step: "), "{msg}");
    }
    assert_eq!(
        panic_line(|| drop(Tensor::arange_step(3i64, 9, 0))).2,
        "arange_step: step must not be zero, got arange(3, 9, 0)"
    );
}

#[test]
fn operator_and_index_panics_point_at_the_caller() {
    let a = m23();
    let b = Tensor::<f64, _>::zeros([4]);
    let i = Tensor::from_vec(vec![1i32, 2], [2]).unwrap();
    let j = Tensor::from_vec(vec![1i32, 2, 3], [3]).unwrap();
    let (here, start) = (file!(), line!());
    let cases: Vec<PanicCase> = vec![
        Box::new(|| panic_line(|| drop(&a + &b))),
        Box::new(|| panic_line(|| drop(a.clone() * b.view()))),
        Box::new(|| panic_line(|| drop(&a % &b))),
        Box::new(|| panic_line(|| drop(&i << &j))),
        Box::new(|| panic_line(|| drop(&i >> -1))),
        Box::new(|| panic_line(|| drop(3 << &(&i - 2)))),
        Box::new(|| panic_line(|| drop(&i / 0))),
        Box::new(|| panic_line(|| _ = std::hint::black_box(a[[2, 0]]))),
        Box::new(|| panic_line(|| _ = std::hint::black_box(a[&[0, 0, 0][..]]))),
        Box::new(|| panic_line(|| a.clone().add_assign(&b))),
        Box::new(|| panic_line(|| *a.clone().index_mut([0, 9]) = 1.0)),
    ];
    let end = line!();
    for f in cases {
        // Reported in this file, inside this test (not in the library's source).
        let (file, l, msg) = f();
        assert_eq!(file.as_str(), here, "panic reported at the caller: {msg}");
        assert!(start < l && l < end, "line {l} is not in the test: {msg}");
        assert!(
            !msg.is_empty() && msg.contains(':'),
            "the message names the operation: {msg}"
        );
    }
}
