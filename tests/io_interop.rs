//! ndarray and serde interop (features `ndarray`, `serde`; run with
//! `cargo test --features ndarray,serde --test io_interop`).

#[cfg(feature = "ndarray")]
mod nd {
    use ferrotensor::prelude::*;
    use ndarray::{Array, ArrayView, IxDyn as NIxDyn, ShapeBuilder, s as nds};

    fn layouts() -> Vec<(String, TensorView<'static, i64>)> {
        let a: &'static Tensor<i64, IxDyn> = Box::leak(Box::new(
            Tensor::<i64, _>::arange(60)
                .into_shape(vec![3, 4, 5])
                .unwrap(),
        ));
        vec![
            ("contiguous".into(), a.view()),
            ("transposed".into(), a.t().into_dyn()),
            ("permuted".into(), a.permute(&[1, 0, 2]).unwrap().into_dyn()),
            ("flipped".into(), a.flip(1).unwrap().into_dyn()),
            ("stepped".into(), a.slice(s![1.., ..;2, 4..;-3])),
            (
                "broadcast".into(),
                a.slice(s![0, NewAxis, .., 1])
                    .broadcast_to(vec![3, 4])
                    .unwrap(),
            ),
            ("empty".into(), a.slice(s![.., 2..2, ..])),
            ("scalar".into(), a.slice(s![2, 3, 4])),
        ]
    }

    #[test]
    fn tensor_views_become_ndarray_views_without_copy() {
        for (name, v) in layouts() {
            let nd: ArrayView<'_, i64, NIxDyn> = v.clone().into();
            assert_eq!(nd.shape(), v.shape(), "{name}");
            assert_eq!(nd.iter().copied().collect::<Vec<_>>(), v.to_vec(), "{name}");
            if v.size() > 0 {
                assert_eq!(nd.as_ptr(), v.as_ptr(), "{name}: must share memory");
                assert_eq!(nd.strides(), v.strides(), "{name}");
            }
            assert_eq!(
                v.as_ndarray().iter().copied().collect::<Vec<_>>(),
                v.to_vec(),
                "{name}"
            );
        }
    }

    #[test]
    fn ndarray_views_become_tensor_views() {
        let base = Array::from_shape_vec((3, 4, 5), (0..60i64).collect()).unwrap();
        let contiguous_in_memory = [
            base.view().into_dyn(),
            base.t().into_dyn(),
            base.view().permuted_axes([2, 0, 1]).into_dyn(),
            base.slice(nds![..;-1, .., ..;-1]).into_dyn(),
            base.slice(nds![1..2, .., ..]).into_dyn(),
        ];
        for (i, nd) in contiguous_in_memory.into_iter().enumerate() {
            let v = TensorView::try_from(nd.clone()).unwrap_or_else(|e| panic!("case {i}: {e}"));
            assert_eq!(v.as_ptr(), nd.as_ptr(), "case {i}");
            assert_eq!(
                v.to_vec(),
                nd.iter().copied().collect::<Vec<_>>(),
                "case {i}"
            );
            let c: TensorCow<'_, i64> = nd.into();
            assert!(c.is_view(), "case {i}");
        }
        let gapped = base.slice(nds![.., 1..3, ..;2]).into_dyn();
        assert!(TensorView::try_from(gapped.clone()).is_err());
        let c: TensorCow<'_, i64> = gapped.clone().into();
        assert!(!c.is_view());
        assert_eq!(c.to_vec(), gapped.iter().copied().collect::<Vec<_>>());
    }

    #[test]
    fn owned_arrays_move_both_ways() {
        let f = Array::from_shape_vec((2, 3).f(), vec![1.0f32, 2., 3., 4., 5., 6.]).unwrap();
        let p = f.as_ptr();
        let t: Tensor<f32> = f.into();
        assert_eq!(t.as_ptr(), p);
        assert!(t.is_f_contiguous());
        assert_eq!(t.to_vec(), vec![1., 3., 5., 2., 4., 6.]);
        let back: Array<f32, NIxDyn> = t.into();
        assert_eq!(back.as_ptr(), p);
        assert_eq!(back.strides(), &[1, 2]);
        // A sliced owned ndarray (negative strides, an offset) keeps its buffer.
        let mut a = Array::from_shape_vec((4, 3), (0..12).collect::<Vec<i32>>()).unwrap();
        a.slice_collapse(nds![1..;-2, ..]);
        let want: Vec<i32> = a.iter().copied().collect();
        let t: Tensor<i32> = a.into();
        assert_eq!(t.to_vec(), want);
        // Back: its lowest element is not the buffer start, so this one copies.
        let back: Array<i32, NIxDyn> = t.into();
        assert_eq!(back.iter().copied().collect::<Vec<_>>(), want);
    }
}

#[cfg(feature = "serde")]
mod serde_tests {
    use ferrotensor::prelude::*;

    #[test]
    fn shape_and_row_major_data() {
        let a = Tensor::from_vec_order(
            (0..6).map(|x| x as f64 * 0.5).collect(),
            [2, 3],
            Order::ColMajor,
        )
        .unwrap();
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["shape"], serde_json::json!([2, 3]));
        assert_eq!(
            json["data"],
            serde_json::json!([0.0, 1.0, 2.0, 0.5, 1.5, 2.5])
        );
        let b: Tensor<f64, Ix2> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(b.to_vec(), a.to_vec());
        let d: Tensor<f64> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(d.shape(), &[2, 3]);
        assert!(serde_json::from_value::<Tensor<f64, Ix3>>(json).is_err());
        let s: Tensor<bool, Ix0> = serde_json::from_str(r#"{"shape":[],"data":[true]}"#).unwrap();
        assert!(s.to_scalar().unwrap());
        for bad in [
            r#"{"shape":[2],"data":[1,2,3]}"#,
            r#"{"shape":[2]}"#,
            r#"{"shape":[1],"data":[1],"x":0}"#,
            r#"{"shape":[18446744073709551615,2],"data":[]}"#,
        ] {
            assert!(serde_json::from_str::<Tensor<i32>>(bad).is_err(), "{bad}");
        }
        let v = Tensor::<i32, _>::arange(4);
        assert_eq!(
            serde_json::to_string(&v.slice(s![..;-2])).unwrap(),
            r#"{"shape":[2],"data":[3,1]}"#
        );
    }
}
