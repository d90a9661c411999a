//! Corresponding-dimension broadcasting (`broadcast_op`): matmul and softmax rebuilt
//! from it, as in the easytensor seed, plus its errors.

use ferrotensor::prelude::*;

#[test]
fn matmul_rebuilt_from_pairing_then_summing_the_middle_axis() {
    let (m, k, n) = (3, 4, 5);
    let a = Tensor::<f64, _>::from_shape_fn([m, k], |i: &[usize]| (i[0] * k + i[1]) as f64 - 5.0);
    let b =
        Tensor::<f64, _>::from_shape_fn([k, n], |i: &[usize]| (i[0] as f64 * 0.5) - i[1] as f64);
    let p = a.broadcast_op(&b, &[(1, 0)], |x, y| x * y).unwrap();
    assert_eq!(p.shape(), &[m, k, n]);
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| p[&[i, l, j][..]]).sum();
        }
    }
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|l| a[[i, l]] * b[[l, j]]).sum();
            assert_eq!(c[i * n + j], want);
        }
    }
    // pairing with a transposed view works the same
    let bt = b.t().to_owned();
    let p2 = a.broadcast_op(&bt.t(), &[(1, 0)], |x, y| x * y).unwrap();
    assert_eq!(p2.to_vec(), p.to_vec());
}

#[test]
fn softmax_rebuilt_from_broadcast_op() {
    let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, -1.0, 0.0, 1000.0], [2, 3]).unwrap();
    let rows: Vec<Vec<f64>> = (0..2)
        .map(|i| (0..3).map(|j| x[[i, j]]).collect())
        .collect();
    let max = Tensor::from_vec(
        rows.iter()
            .map(|r| r.iter().cloned().fold(f64::MIN, f64::max))
            .collect(),
        [2],
    )
    .unwrap();
    let shifted = x.broadcast_op(&max, &[(0, 0)], |v, m| v - m).unwrap();
    assert_eq!(shifted.shape(), &[2, 3]);
    let e = shifted.exp();
    let sums = Tensor::from_vec(
        (0..2)
            .map(|i| (0..3).map(|j| e[&[i, j][..]]).sum::<f64>())
            .collect(),
        [2],
    )
    .unwrap();
    let s = e.broadcast_op(&sums, &[(0, 0)], |v, t| v / t).unwrap();
    let want0: Vec<f64> = {
        let z: f64 = [1.0f64, 2.0, 3.0].iter().map(|v| (v - 3.0).exp()).sum();
        [1.0f64, 2.0, 3.0]
            .iter()
            .map(|v| (v - 3.0).exp() / z)
            .collect()
    };
    for j in 0..3 {
        assert!((s[&[0, j][..]] - want0[j]).abs() < 1e-15);
    }
    assert_eq!(s[&[1, 2][..]], 1.0, "stable for large inputs");
}

#[test]
fn outer_product_and_errors() {
    let a = Tensor::from_vec(vec![1, 2, 3], [3]).unwrap();
    let b = Tensor::from_vec(vec![10, 100], [2]).unwrap();
    let o = a.broadcast_op(&b, &[], |x, y| x * y).unwrap();
    assert_eq!(o.shape(), &[3, 2]);
    assert_eq!(o.to_vec(), vec![10, 100, 20, 200, 30, 300]);
    assert!(
        a.broadcast_op(&b, &[(0, 0)], |x, y| x + y)
            .unwrap_err()
            .to_string()
            .contains("lengths 3 and 2")
    );
    assert!(a.broadcast_op(&b, &[(1, 0)], |x, y| x + y).is_err());
    assert!(a.broadcast_op(&b, &[(0, 0), (0, 0)], |x, y| x + y).is_err());
    // a length-1 axis pairs with any length
    let one = Tensor::from_vec(vec![5], [1]).unwrap();
    assert_eq!(
        one.broadcast_op(&b, &[(0, 0)], |x, y| x + y)
            .unwrap()
            .to_vec(),
        vec![15, 105]
    );
}
