//! The KuiperInfer course's tensor test cases on `ChwTensor`.

use ferrotensor::nn::ChwTensor;
use ferrotensor::prelude::*;
use rand::SeedableRng;

fn seq(n: usize) -> Vec<f32> {
    (1..=n).map(|x| x as f32).collect()
}

#[test]
fn new_and_raw_shapes() {
    let t = ChwTensor::<f32>::new(3, 32, 32);
    assert_eq!(
        (t.channels(), t.rows(), t.cols(), t.size()),
        (3, 32, 32, 3 * 32 * 32)
    );
    assert_eq!(t.raw_shape(), vec![3, 32, 32]);
    assert_eq!(ChwTensor::<f32>::new(1, 1, 32).raw_shape(), vec![32]);
    assert_eq!(ChwTensor::<f32>::new(1, 32, 24).raw_shape(), vec![32, 24]);
    assert!(t.values(Order::RowMajor).iter().all(|&x| x == 0.0));
}

#[test]
fn fill_1_to_24_row_major_and_read_back() {
    let mut t = ChwTensor::<f32>::new(2, 3, 4);
    t.fill(&seq(24), Order::RowMajor).unwrap();
    assert_eq!(t.channel(0).to_vec(), seq(12));
    assert_eq!(t.channel(1).to_vec(), seq(24)[12..].to_vec());
    assert_eq!(t.at(0, 1, 0), 5.0);
    assert_eq!(t.at(1, 2, 3), 24.0);
    assert_eq!(t.values(Order::RowMajor), seq(24));
    // Column-major read: per channel, column by column.
    assert_eq!(
        t.values(Order::ColMajor)[..12],
        [
            1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0, 4.0, 8.0, 12.0
        ]
    );
    assert!(t.fill(&seq(23), Order::RowMajor).is_err());
}

#[test]
fn fill_column_major() {
    let mut t = ChwTensor::<i32>::new(2, 3, 4);
    let v: Vec<i32> = (1..=24).collect();
    t.fill(&v, Order::ColMajor).unwrap();
    // Channel 0, column 0 holds 1, 2, 3.
    assert_eq!(
        (t.at(0, 0, 0), t.at(0, 1, 0), t.at(0, 2, 0), t.at(0, 0, 1)),
        (1, 2, 3, 4)
    );
    assert_eq!(t.at(1, 0, 0), 13);
    assert_eq!(t.values(Order::ColMajor), v);
}

#[test]
fn column_major_read_of_2x5() {
    let mut t = ChwTensor::<i32>::new(1, 2, 5);
    t.fill(&(0..10).collect::<Vec<_>>(), Order::RowMajor)
        .unwrap();
    assert_eq!(
        t.values(Order::ColMajor),
        vec![0, 5, 1, 6, 2, 7, 3, 8, 4, 9]
    );
}

#[test]
fn reshape_2x3x4_to_4x3x2_row_major() {
    let mut t = ChwTensor::<f32>::new(2, 3, 4);
    t.fill(&seq(24), Order::RowMajor).unwrap();
    t.reshape(&[4, 3, 2], Order::RowMajor).unwrap();
    assert_eq!(t.shape(), [4, 3, 2]);
    assert_eq!(t.raw_shape(), vec![4, 3, 2]);
    assert_eq!(t.values(Order::RowMajor), seq(24));
    assert_eq!(t.channel(1).to_vec(), vec![7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    assert_eq!(t.at(3, 2, 1), 24.0);
    // 2-D and 1-D targets are stored with leading 1s.
    t.reshape(&[6, 4], Order::RowMajor).unwrap();
    assert_eq!((t.shape(), t.raw_shape()), ([1, 6, 4], vec![6, 4]));
    assert!(t.reshape(&[5, 5], Order::RowMajor).is_err());
    assert!(t.reshape(&[1, 2, 3, 4], Order::RowMajor).is_err());
    assert!(t.reshape(&[], Order::RowMajor).is_err());
}

#[test]
fn reshape_column_major_keeps_column_major_sequence() {
    let mut t = ChwTensor::<i32>::new(2, 3, 4);
    let v: Vec<i32> = (1..=24).collect();
    t.fill(&v, Order::RowMajor).unwrap();
    let before = t.values(Order::ColMajor);
    t.reshape(&[4, 3, 2], Order::ColMajor).unwrap();
    assert_eq!(t.values(Order::ColMajor), before);
    // Checked with NumPy: channel 0 of the result, filled column by column with
    // 1, 5, 9, 2, 6, 10 (channel 0's columns of the source).
    assert_eq!(t.channel(0).to_vec(), vec![1, 2, 5, 6, 9, 10]);
}

#[test]
fn flatten_both_orders() {
    let mut t = ChwTensor::<f32>::new(2, 3, 4);
    t.fill(&seq(24), Order::RowMajor).unwrap();
    let mut r = t.clone();
    r.flatten(Order::RowMajor);
    assert_eq!((r.shape(), r.raw_shape()), ([1, 1, 24], vec![24]));
    assert_eq!(r.values(Order::RowMajor), seq(24));
    let col = t.values(Order::ColMajor);
    t.flatten(Order::ColMajor);
    assert_eq!(t.raw_shape(), vec![24]);
    assert_eq!(t.values(Order::RowMajor), col);
}

#[test]
fn padding_3x4x5_ones_by_1_2_3_4() {
    let mut t = ChwTensor::<f32>::new(3, 4, 5);
    t.fill_value(1.0);
    t.padding([1, 2, 3, 4], 0.0);
    assert_eq!(t.shape(), [3, 7, 12]);
    assert_eq!(t.raw_shape(), vec![3, 7, 12]);
    for c in 0..3 {
        for r in 0..7 {
            for col in 0..12 {
                let inside = (1..5).contains(&r) && (3..8).contains(&col);
                assert_eq!(
                    t.at(c, r, col),
                    if inside { 1.0 } else { 0.0 },
                    "({c}, {r}, {col})"
                );
            }
        }
    }
    let total: f32 = t.values(Order::RowMajor).iter().sum();
    assert_eq!(total, 60.0);
}

#[test]
fn broadcast_add_and_multiply_3x224x224_with_3x1x1() {
    let mut a = ChwTensor::<f32>::new(3, 224, 224);
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    a.rand(&mut rng);
    let b = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3, 1, 1]).unwrap();
    let bb = b.broadcast_to([3, 224, 224]).unwrap();
    assert_eq!(bb.strides(), &[1, 0, 0]);
    let av = a.as_tensor();
    let sum: Vec<f32> = av.iter().zip(bb.iter()).map(|(x, y)| x + y).collect();
    let prod: Vec<f32> = av.iter().zip(bb.iter()).map(|(x, y)| x * y).collect();
    let sum = ChwTensor::from(Tensor::from_vec(sum, [3, 224, 224]).unwrap());
    let prod = ChwTensor::from(Tensor::from_vec(prod, [3, 224, 224]).unwrap());
    for c in 0..3 {
        for (r, col) in [(0, 0), (100, 17), (223, 223)] {
            let k = (c + 1) as f32;
            assert_eq!(sum.at(c, r, col), a.at(c, r, col) + k);
            assert_eq!(prod.at(c, r, col), a.at(c, r, col) * k);
        }
    }
}

#[test]
fn at_and_channel_bounds_panic_with_shape() {
    let t = ChwTensor::<f32>::new(2, 3, 4);
    let e = std::panic::catch_unwind(|| t.at(2, 0, 0)).unwrap_err();
    let msg = e.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("(2, 0, 0)") && msg.contains("(2, 3, 4)"),
        "{msg}"
    );
    assert!(std::panic::catch_unwind(|| t.at(0, 0, 4)).is_err());
    assert!(std::panic::catch_unwind(|| t.channel(2).to_vec()).is_err());
    let mut m = t.clone();
    assert!(std::panic::catch_unwind(move || *m.at_mut(0, 3, 0) = 1.0).is_err());
}

#[test]
fn conversions_do_not_copy() {
    let x = Tensor::<f32, _>::from_shape_fn([2, 3, 4], |i| (i[0] * 12 + i[1] * 4 + i[2]) as f32);
    let p = x.as_ptr();
    let t = ChwTensor::from(x);
    assert_eq!(t.as_tensor().as_ptr(), p);
    assert_eq!(t.channel(1).as_ptr(), p.wrapping_add(12));
    assert_eq!(t.at(1, 2, 3), 23.0);
    assert_eq!(t.raw_shape(), vec![2, 3, 4]);
    let back: Tensor<f32, Ix3> = t.into();
    assert_eq!(back.as_ptr(), p);
    // A non-contiguous tensor is compacted.
    let y = Tensor::<i32, _>::from_shape_fn([4, 3, 2], |i| (i[0] * 6 + i[1] * 2 + i[2]) as i32);
    let yt = y
        .permute(&[2, 1, 0])
        .unwrap()
        .to_owned()
        .permute(&[2, 1, 0])
        .unwrap()
        .to_owned();
    let c = ChwTensor::from(yt);
    assert_eq!(c.values(Order::RowMajor), (0..24).collect::<Vec<_>>());
}

#[test]
fn transform_fill_value_and_random_fills() {
    let mut t = ChwTensor::<f64>::new(2, 8, 8);
    t.fill_value(2.0);
    t.transform(|x| x * 3.0 + 1.0);
    assert!(t.values(Order::RowMajor).iter().all(|&x| x == 7.0));
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    t.randu(-1.0, 1.0, &mut rng);
    let v = t.values(Order::RowMajor);
    assert!(v.iter().all(|&x| (-1.0..1.0).contains(&x)));
    assert!(v.iter().any(|&x| x < -0.5) && v.iter().any(|&x| x > 0.5));
    let mut big = ChwTensor::<f32>::new(3, 100, 100);
    big.randn(5.0, 0.5, &mut rng);
    let v = big.values(Order::RowMajor);
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / v.len() as f64;
    assert!(
        (mean - 5.0).abs() < 0.02 && (var.sqrt() - 0.5).abs() < 0.02,
        "{mean} {var}"
    );
    // Same seed, same values.
    let (mut a, mut b) = (
        ChwTensor::<f32>::new(1, 4, 4),
        ChwTensor::<f32>::new(1, 4, 4),
    );
    a.rand(&mut rand::rngs::StdRng::seed_from_u64(1));
    b.rand(&mut rand::rngs::StdRng::seed_from_u64(1));
    assert_eq!(a.values(Order::RowMajor), b.values(Order::RowMajor));
}

#[test]
fn display_per_channel() {
    let mut t = ChwTensor::<f32>::new(2, 2, 2);
    t.fill(&seq(8), Order::RowMajor).unwrap();
    assert_eq!(
        t.to_string(),
        "channel 0:\n[[1. 2.]\n [3. 4.]]\nchannel 1:\n[[5. 6.]\n [7. 8.]]"
    );
}
