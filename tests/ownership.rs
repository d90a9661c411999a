//! Pointer-identity tests for every conversion's copy / no-copy promise.

use ferrotensor::prelude::*;

#[test]
fn seed_example_arange_reshape_inplace_view_into_owned() {
    let a = Tensor::<i32>::arange(12);
    let p0 = a.as_ptr();
    let mut b = a.into_shape([3, 4]).unwrap();
    assert_eq!(
        b.as_ptr(),
        p0,
        "into_shape of a contiguous owned tensor must not copy"
    );
    for x in b.iter_mut() {
        *x += 1;
    }
    assert_eq!(b.as_ptr(), p0, "in-place update must not copy");
    assert_eq!(b[[2, 3]], 12);
    let v = b.view();
    assert_eq!(v.as_ptr(), p0);
    let c = v.into_owned();
    assert_ne!(c.as_ptr(), p0, "into_owned of a view always copies");
    assert_eq!(c.to_vec(), (1..=12).collect::<Vec<_>>());
}

#[test]
fn owned_conversions_never_copy() {
    let a = Tensor::<f64, _>::ones([4, 5]);
    let p = a.as_ptr();
    let a = a.into_owned();
    assert_eq!(a.as_ptr(), p);
    let cow = a.into_cow();
    assert!(!cow.is_view());
    assert_eq!(cow.as_ptr(), p);
    let a = cow.into_owned();
    assert_eq!(a.as_ptr(), p);
    let shared = a.into_shared();
    assert_eq!(shared.as_ptr(), p);
    let a = shared.into_owned();
    assert_eq!(
        a.as_ptr(),
        p,
        "a unique shared tensor unwraps without copying"
    );
    let mut a = a.into_dyn();
    assert_eq!(a.as_ptr(), p);
    assert_eq!(a.view_mut().as_ptr(), p);
    let v = a.into_vec();
    assert_eq!(v.as_ptr(), p);
}

#[test]
fn view_into_owned_compacts_to_viewed_elements() {
    let a = Tensor::<i32>::arange(100).into_shape([10, 10]).unwrap();
    let v = a.slice(s![2..4, ..;3]);
    let o = v.into_owned();
    let (data, layout) = o.into_raw_parts();
    assert_eq!(data.len(), 8, "only the viewed elements are copied");
    assert_eq!(data, vec![20, 23, 26, 29, 30, 33, 36, 39]);
    assert_eq!(layout.strides(), &[4, 1]);
}

#[test]
fn view_into_shared_copies() {
    let a = Tensor::<f32, _>::zeros([3]);
    let s = a.view().into_shared();
    assert_ne!(s.as_ptr(), a.as_ptr());
}

#[test]
fn shared_copies_only_when_shared() {
    let s = Tensor::<f32, _>::zeros([2, 3]).into_shared();
    let s2 = s.clone();
    assert_eq!(s.as_ptr(), s2.as_ptr());
    let o = s.into_owned();
    assert_ne!(
        o.as_ptr(),
        s2.as_ptr(),
        "a shared buffer with other references is copied"
    );
    let p = s2.as_ptr();
    let o2 = s2.into_owned();
    assert_eq!(o2.as_ptr(), p, "the last reference unwraps without copying");
}

#[test]
fn shared_write_copies_only_when_shared() {
    let mut s = Tensor::<f32, _>::zeros([4]).into_shared();
    let p = s.as_ptr();
    s[[0]] = 1.0;
    assert_eq!(s.as_ptr(), p, "unique: written in place");
    let keep = s.clone();
    s[[1]] = 2.0;
    assert_ne!(s.as_ptr(), p, "shared: copied on write");
    assert_eq!(keep.to_vec(), vec![1.0, 0.0, 0.0, 0.0]);
    assert_eq!(s.to_vec(), vec![1.0, 2.0, 0.0, 0.0]);
}

#[test]
fn into_owned_keep_layout_keeps_strides() {
    let a = Tensor::from_vec_order((0..6).collect::<Vec<i32>>(), [2, 3], Order::ColMajor).unwrap();
    let p = a.as_ptr();
    let k = a.into_owned_keep_layout();
    assert_eq!(k.as_ptr(), p);
    assert_eq!(k.strides(), &[1, 2]);
    let s = k.into_shared();
    let other = s.clone();
    let k2 = s.into_owned_keep_layout();
    assert_eq!(
        k2.strides(),
        &[1, 2],
        "layout kept even when the shared buffer is copied"
    );
    assert_ne!(k2.as_ptr(), other.as_ptr());
    assert_eq!(k2.to_vec(), other.to_vec());
}

#[test]
fn cow_copies_on_first_write_only() {
    let a = Tensor::<i32>::arange(6);
    let mut c = a.view().into_cow();
    assert!(c.is_view());
    assert_eq!(c.as_ptr(), a.as_ptr());
    c[[0]] = 100;
    assert!(!c.is_view());
    assert_ne!(c.as_ptr(), a.as_ptr());
    let p = c.as_ptr();
    c[[1]] = 101;
    assert_eq!(c.as_ptr(), p, "second write in place");
    assert_eq!(a.to_vec(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(c.to_vec(), vec![100, 101, 2, 3, 4, 5]);
}

#[test]
fn cow_of_strided_view_compacts_on_write() {
    let a = Tensor::<i32>::arange(10);
    let v = a.slice(s![..;-3]);
    let mut c = v.into_cow();
    c.fill(7);
    assert_eq!(c.shape(), &[4]);
    assert!(c.is_contiguous());
    assert_eq!(c.to_vec(), vec![7; 4]);
    assert_eq!(a[[9]], 9);
}

#[test]
fn into_vec_copies_only_when_needed() {
    let a = Tensor::<i32>::arange(6).into_shape([2, 3]).unwrap();
    let t = a.t().to_owned();
    let p = t.as_ptr();
    let v = t.into_vec();
    assert_eq!(v.as_ptr(), p);
    let f = Tensor::from_vec_order((0..6).collect::<Vec<i32>>(), [2, 3], Order::ColMajor).unwrap();
    assert_eq!(
        f.into_vec(),
        vec![0, 2, 4, 1, 3, 5],
        "non-row-major memory is reordered"
    );
}

#[test]
fn views_share_memory_and_tensor_view_is_cheap_to_clone() {
    let a = Tensor::<f32, _>::zeros([3, 4]);
    let v: TensorView<'_, f32, Ix2> = a.view();
    let w = v.clone();
    assert_eq!(w.as_ptr(), a.as_ptr());
    let s = a.slice(s![1.., 2]);
    assert_eq!(s.offset(), 6);
    assert_eq!(s.buffer().as_ptr(), a.as_ptr());
}

#[test]
fn rank_conversions() {
    let a = Tensor::<f32, _>::zeros([2, 3]);
    let p = a.as_ptr();
    let d = a.into_dyn();
    assert_eq!(d.as_ptr(), p);
    assert!(d.clone().into_dim::<Ix3>().is_err());
    let back: Tensor<f32, Ix2> = d.into_dim().unwrap();
    assert_eq!(back.as_ptr(), p);
}

#[test]
fn to_scalar_any_rank() {
    assert_eq!(Tensor::scalar(3u8).to_scalar().unwrap(), 3);
    assert_eq!(
        Tensor::from_vec(vec![2.5], [1, 1, 1])
            .unwrap()
            .to_scalar()
            .unwrap(),
        2.5
    );
    assert!(Tensor::<f32, _>::zeros([0]).to_scalar().is_err());
    let e = Tensor::<f32, _>::zeros([2, 2])
        .to_scalar()
        .unwrap_err()
        .to_string();
    assert!(e.contains("to_scalar") && e.contains("(2, 2)"), "{e}");
}

#[test]
fn from_raw_parts_rejects_aliasing_and_out_of_buffer() {
    use ferrotensor::layout::Layout;
    assert!(Tensor::from_raw_parts(vec![0; 4], Layout::new([2usize, 2], [2isize, 1], 1)).is_err());
    assert!(Tensor::from_raw_parts(vec![0; 4], Layout::new([2usize, 2], [1isize, 1], 0)).is_err());
    let t = Tensor::from_raw_parts(vec![0, 1, 2, 3], Layout::new([2usize], [-2isize], 2)).unwrap();
    assert_eq!(t.to_vec(), vec![2, 0]);
}
