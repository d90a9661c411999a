//! Creation functions against NumPy's answers.

use ferrotensor::prelude::*;
use rand::SeedableRng;

#[test]
fn shapes_choose_rank() {
    let a: Tensor<f64, Ix2> = Tensor::<f64, _>::zeros([2, 3]);
    let b: Tensor<f64, IxDyn> = Tensor::<f64, _>::zeros(vec![2, 3]);
    let c: Tensor<f64, IxDyn> = Tensor::<f64, _>::zeros(&[2usize, 3][..]);
    let d: Tensor<f64, Ix2> = Tensor::<f64, _>::zeros(&[2usize, 3]);
    assert_eq!(a.shape(), b.shape());
    assert_eq!(c.shape(), d.shape());
    assert!(!b.dim().spilled());
}

#[test]
fn arange_step_follows_numpy_length_rule() {
    // np.arange(0, 1, 0.1) has 10 elements; np.arange(1, 0, 0.1) none; np.arange(0, 1.0000001, 0.1) 11.
    assert_eq!(Tensor::arange_step(0.0, 1.0, 0.1).size(), 10);
    assert_eq!(Tensor::arange_step(1.0, 0.0, 0.1).size(), 0);
    assert_eq!(Tensor::arange_step(0.0, 1.0000001, 0.1).size(), 11);
    assert_eq!(Tensor::arange_step(-3i64, 4, 3).to_vec(), vec![-3, 0, 3]);
    assert_eq!(
        Tensor::arange_step(10u8, 0, 255u8.wrapping_add(0)).size(),
        0
    );
    assert_eq!(Tensor::arange_step(0i32, 10, 3).to_vec(), vec![0, 3, 6, 9]);
    assert_eq!(Tensor::arange_step(0i32, -10, -4).to_vec(), vec![0, -4, -8]);
    let f = Tensor::arange_step(0.5f32, 2.0, 0.5);
    assert_eq!(f.to_vec(), vec![0.5, 1.0, 1.5]);
}

#[test]
fn linspace_matches_numpy() {
    assert_eq!(Tensor::linspace(0.0, 1.0, 0).size(), 0);
    assert_eq!(Tensor::linspace(2.0, 3.0, 1).to_vec(), vec![2.0]);
    let l = Tensor::linspace(-1.0f64, 1.0, 7).to_vec();
    let expect = [
        -1.0,
        -0.6666666666666667,
        -0.33333333333333337,
        0.0,
        0.33333333333333326,
        0.6666666666666665,
        1.0,
    ];
    for (a, b) in l.iter().zip(expect) {
        assert!((a - b).abs() < 1e-15, "{a} vs {b}");
    }
}

#[test]
fn eye_full_like_and_from_shape_fn() {
    let e = Tensor::<f32, _>::eye(3);
    assert_eq!(e.to_vec(), vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    assert_eq!(Tensor::<f32, _>::eye(0).shape(), &[0, 0]);
    let f = Tensor::full_like(&e, 9i8);
    assert_eq!(f.shape(), &[3, 3]);
    assert!(f.iter().all(|&x| x == 9));
    let g = Tensor::from_shape_fn(vec![2, 2, 2], |i: &[usize]| i.iter().sum::<usize>());
    assert_eq!(g.to_vec(), vec![0, 1, 1, 2, 1, 2, 2, 3]);
    assert_eq!(Tensor::from_shape_fn([0, 3], |_: &[usize]| 1).size(), 0);
}

#[test]
fn from_vec_errors_name_sizes_and_shape() {
    let e = Tensor::from_vec(vec![1, 2, 3], [2, 2])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("from_vec") && e.contains("(2, 2)") && e.contains('3'),
        "{e}"
    );
    assert!(Tensor::from_vec(Vec::<u8>::new(), [usize::MAX, 2]).is_err());
}

#[test]
fn rand_and_randn_are_reproducible_and_in_range() {
    let mut r1 = rand::rngs::StdRng::seed_from_u64(42);
    let mut r2 = rand::rngs::StdRng::seed_from_u64(42);
    let a = Tensor::<f64, _>::rand([1000], &mut r1);
    let b = Tensor::<f64, _>::rand([1000], &mut r2);
    assert_eq!(a.to_vec(), b.to_vec());
    assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)));
    let h = Tensor::<half::f16, _>::rand([1000], &mut r1);
    assert!(h.iter().all(|&x| x.to_f32() >= 0.0 && x.to_f32() < 1.0));
    let n = Tensor::<f32, _>::randn([20000], &mut r1);
    let mean = n.iter().map(|&x| x as f64).sum::<f64>() / 20000.0;
    let var = n.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / 20000.0;
    assert!(
        mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
        "mean {mean} var {var}"
    );
}

#[test]
fn index_access_and_errors() {
    let mut a = Tensor::from_vec((0..24).collect::<Vec<i64>>(), vec![2, 3, 4]).unwrap();
    assert_eq!(a[&[1, 2, 3][..]], 23);
    assert_eq!(a[[1, 0, 0]], 12);
    a[&[0, 0, 1][..]] = -1;
    assert_eq!(a.get([0, 0, 1]), Some(&-1));
    assert_eq!(a.get([0, 3, 0]), None);
    assert_eq!(
        a.get([0, 0]),
        None,
        "wrong rank is None, not a wrong element"
    );
    let r = std::panic::catch_unwind(|| a[[2, 0, 0]]);
    assert!(r.is_err());
}

#[test]
fn indexed_iter_on_strided_view() {
    let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), [2, 3]).unwrap();
    let items: Vec<([usize; 2], i32)> = a.t().indexed_iter().map(|(i, &x)| (i, x)).collect();
    assert_eq!(
        items,
        vec![
            ([0, 0], 0),
            ([0, 1], 3),
            ([1, 0], 1),
            ([1, 1], 4),
            ([2, 0], 2),
            ([2, 1], 5)
        ]
    );
}
