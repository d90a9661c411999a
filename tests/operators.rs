//! Operators between every ownership kind and with scalars; output rank types; buffer
//! reuse; panics with the `try_` messages; integer semantics; compound assignment.

use ferrotensor::prelude::*;

fn t2() -> Tensor<f64, Ix2> {
    Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap()
}

#[test]
fn every_ownership_kind_combines_with_every_other() {
    let a = t2();
    let want = vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0];
    let v: TensorView<'_, f64, Ix2> = a.view();
    let arc: TensorArc<f64, Ix2> = a.clone().into_shared();
    let cow: TensorCow<'_, f64, Ix2> = a.view().into_cow();
    let mut m_src = a.clone();
    let m: TensorMut<'_, f64, Ix2> = m_src.view_mut();
    assert_eq!((&a + &a).to_vec(), want);
    assert_eq!((&a + &v).to_vec(), want);
    assert_eq!((&v + &a).to_vec(), want);
    assert_eq!((v.clone() + v.clone()).to_vec(), want);
    assert_eq!((&v + v.clone()).to_vec(), want);
    assert_eq!((a.clone() + &v).to_vec(), want);
    assert_eq!((a.clone() + a.clone()).to_vec(), want);
    assert_eq!((&arc + &arc).to_vec(), want);
    assert_eq!((arc.clone() + &a).to_vec(), want);
    assert_eq!((&a + arc.clone()).to_vec(), want);
    assert_eq!((&cow + &m).to_vec(), want);
    assert_eq!((cow.clone() + m).to_vec(), want);
    let r: Tensor<f64, Ix2> = &a - &v;
    assert_eq!(r.to_vec(), vec![0.0; 6]);
    let p: Tensor<f64, Ix2> = &a * &a;
    assert_eq!(p.to_vec()[5], 36.0);
    let q: Tensor<f64, Ix2> = &a / &a;
    assert_eq!(q.to_vec(), vec![1.0; 6]);
}

#[test]
fn scalars_on_either_side_keep_the_rank_type() {
    let a = t2();
    let b: Tensor<f64, Ix2> = &a + 1.0;
    let c: Tensor<f64, Ix2> = 10.0 - &a;
    let d: Tensor<f64, Ix2> = 2.0 * a.view();
    let e: Tensor<f64, Ix2> = 6.0 / a.clone();
    assert_eq!(b.to_vec(), vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!(c.to_vec(), vec![9.0, 8.0, 7.0, 6.0, 5.0, 4.0]);
    assert_eq!(d.to_vec()[2], 6.0);
    assert_eq!(e.to_vec()[..3], [6.0, 3.0, 2.0]);
    let i = Tensor::from_vec(vec![1i32, 2, 3], [3]).unwrap();
    assert_eq!((7 - &i).to_vec(), vec![6, 5, 4]);
    assert_eq!((&i * 3).to_vec(), vec![3, 6, 9]);
    let u = Tensor::from_vec(vec![250u8, 3], [2]).unwrap();
    assert_eq!((&u + 10u8).to_vec(), vec![4, 13], "integers wrap as NumPy");
    assert_eq!((2u8 * &u).to_vec(), vec![244, 6]);
}

#[test]
fn different_ranks_keep_the_larger_rank() {
    let a = t2();
    let row = Tensor::from_vec(vec![1.0, 0.0, -1.0], [3]).unwrap();
    let c: Tensor<f64, Ix2> = &a + &row;
    assert_eq!(c.to_vec(), vec![2.0, 2.0, 2.0, 5.0, 5.0, 5.0]);
    let c: Tensor<f64, Ix2> = &row + &a;
    assert_eq!(c.to_vec(), vec![2.0, 2.0, 2.0, 5.0, 5.0, 5.0]);
    let c: Tensor<f64, IxDyn> = &a + &row.clone().into_dyn();
    assert_eq!(c.to_vec(), vec![2.0, 2.0, 2.0, 5.0, 5.0, 5.0]);
    let col = Tensor::from_vec(vec![10.0, 20.0], vec![2, 1]).unwrap();
    let d: Tensor<f64, IxDyn> = &a * &col;
    assert_eq!(d.to_vec(), vec![10.0, 20.0, 30.0, 80.0, 100.0, 120.0]);
}

#[test]
fn owned_operands_reuse_their_buffer() {
    let a = Tensor::<f32, _>::ones([64, 64]);
    let p = a.as_ptr();
    let b = a + 1.0;
    assert_eq!(b.as_ptr(), p, "scalar op on an owned tensor");
    let c = b + &Tensor::<f32, _>::ones([64]);
    assert_eq!(c.as_ptr(), p, "left operand reused");
    let other = Tensor::<f32, _>::ones([64, 64]);
    let d = other.view() * c;
    assert_eq!(d.as_ptr(), p, "right operand reused");
    assert_eq!(d.to_vec()[0], 3.0);
    // a smaller owned operand cannot hold the result
    let small = Tensor::<f32, _>::ones([64]);
    let sp = small.as_ptr();
    let e = small + &d;
    assert_ne!(e.as_ptr(), sp);
    assert_eq!(e.shape(), &[64, 64]);
    // a shared buffer with another reference is not reused
    let s = Tensor::<f32, _>::ones([8]).into_shared();
    let s2 = s.clone();
    let r = s + 1.0;
    assert_ne!(r.as_ptr(), s2.as_ptr());
    assert_eq!(s2.to_vec(), vec![1.0; 8]);
}

#[test]
#[should_panic(expected = "add: operands could not be broadcast together with shapes (2, 3) (2,)")]
fn mismatched_shapes_panic_with_the_try_message() {
    let _ = &t2() + &Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
}

#[test]
#[should_panic(expected = "divide: integer division by zero")]
fn integer_division_by_zero_panics() {
    let a = Tensor::from_vec(vec![1, 2], [2]).unwrap();
    let _ = &a / &Tensor::from_vec(vec![1, 0], [2]).unwrap();
}

#[test]
#[should_panic(expected = "divide: integer division by zero")]
fn integer_division_by_zero_scalar_panics() {
    let _ = Tensor::from_vec(vec![1, 2], [2]).unwrap() / 0;
}

#[test]
fn integer_division_truncates_and_try_div_reports_zero() {
    let a = Tensor::from_vec(vec![-7i64, 7, i64::MIN], [3]).unwrap();
    let b = Tensor::from_vec(vec![2i64, -2, -1], [3]).unwrap();
    assert_eq!((&a / &b).to_vec(), vec![-3, -3, i64::MIN]);
    let e = a
        .try_div(&Tensor::from_vec(vec![0i64], [1]).unwrap())
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("divide: integer division by zero"),
        "{e}"
    );
    let f = Tensor::from_vec(vec![1.0f64, -1.0, 0.0], [3]).unwrap() / 0.0;
    let v = f.to_vec();
    assert_eq!((v[0], v[1]), (f64::INFINITY, f64::NEG_INFINITY));
    assert!(v[2].is_nan());
}

#[test]
fn bitwise_and_logical_operators() {
    let a = Tensor::from_vec(vec![true, true, false, false], [4]).unwrap();
    let b = Tensor::from_vec(vec![true, false, true, false], [4]).unwrap();
    assert_eq!((&a & &b).to_vec(), vec![true, false, false, false]);
    assert_eq!((&a | &b).to_vec(), vec![true, true, true, false]);
    assert_eq!((&a ^ &b).to_vec(), vec![false, true, true, false]);
    assert_eq!((!&a).to_vec(), vec![false, false, true, true]);
    let i = Tensor::from_vec(vec![0b1100u8, 0b1010], [2]).unwrap();
    assert_eq!((&i & 0b0110u8).to_vec(), vec![0b0100, 0b0010]);
    assert_eq!((0b0001u8 | &i).to_vec(), vec![0b1101, 0b1011]);
    assert_eq!((!i).to_vec(), vec![0b1111_0011, 0b1111_0101]);
    let mut m = a.clone();
    m ^= true;
    assert_eq!(m.to_vec(), vec![false, false, true, true]);
}

#[test]
fn compound_assignment_on_writable_kinds() {
    let mut a = t2();
    a += &Tensor::from_vec(vec![1.0, 1.0, 1.0], [3]).unwrap();
    a -= 1.0;
    a *= 2.0;
    a /= &Tensor::from_vec(vec![2.0], [1]).unwrap();
    assert_eq!(a.to_vec(), t2().to_vec());
    {
        let mut m = a.slice_mut(s![.., 1..]);
        m += 100.0;
        m *= &Tensor::from_vec(vec![1.0, -1.0], [2]).unwrap();
    }
    assert_eq!(a.to_vec(), vec![1.0, 102.0, -103.0, 4.0, 105.0, -106.0]);
    let mut arc = t2().into_shared();
    let other = arc.clone();
    arc -= &other;
    assert_eq!(arc.to_vec(), vec![0.0; 6]);
    assert_eq!(other.to_vec(), t2().to_vec());
    let base = t2();
    let mut cow = base.view().into_cow();
    cow += 1.0;
    assert!(!cow.is_view());
    assert_eq!(cow.to_vec()[0], 2.0);
    let e = a
        .try_add_assign(Tensor::<f64, _>::ones([4, 2, 3]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "add: non-broadcastable output operand with shape (2, 3) doesn't match the broadcast shape (4, 2, 3)"
    );
    let mut i = Tensor::from_vec(vec![4, 6], [2]).unwrap();
    assert!(
        i.try_div_assign(Tensor::from_vec(vec![0], [1]).unwrap())
            .is_err()
    );
    assert_eq!(i.to_vec(), vec![4, 6], "nothing written before the error");
}

#[test]
#[should_panic(expected = "non-broadcastable output")]
fn compound_assignment_panics_when_the_left_would_grow() {
    let mut a = Tensor::<f32, _>::ones([3]);
    a += &Tensor::<f32, _>::ones([2, 3]);
}

#[test]
fn negation_wraps_for_integers() {
    let a = Tensor::from_vec(vec![1u8, 0], [2]).unwrap();
    assert_eq!((-&a).to_vec(), vec![255, 0]);
    assert_eq!(
        (-Tensor::from_vec(vec![i8::MIN, 5], [2]).unwrap()).to_vec(),
        vec![i8::MIN, -5]
    );
}
