//! Golden tests for take_along_axis / put_along_axis (NumPy), gather / scatter /
//! scatter_add / index_put (PyTorch semantics computed by the generator), nonzero,
//! argwhere and masked_fill.

use crate::manip_support;
use ferrotensor::prelude::*;
use manip_support::*;
use serde_json::Value;

fn ins<T: Gold>(c: &Value, i: usize) -> Tensor<T, IxDyn> {
    base::<T>(input(c, i))
}

#[test]
fn golden_along_axis() {
    run("take_along_axis", 25, |c| {
        let (a, i) = (ins::<f64>(c, 0), ins::<i64>(c, 1));
        let (av, iv) = (view(&a, input(c, 0)), view(&i, input(c, 1)));
        expect(c, av.take_along_axis(&iv, arg_i(c, "axis")), |t| {
            check(t, &c["out"][0])
        })
    });
    run("put_along_axis", 25, |c| {
        let (a, i, v) = (ins::<f64>(c, 0), ins::<i64>(c, 1), ins::<f64>(c, 2));
        let mut target = view(&a, input(c, 0)).to_owned();
        let (iv, vv) = (view(&i, input(c, 1)), view(&v, input(c, 2)));
        let r = target.put_along_axis(&iv, &vv, arg_i(c, "axis"));
        expect(c, r, |_| check(&target, &c["out"][0]))
    });
}

#[test]
fn golden_gather_scatter() {
    run("gather", 25, |c| {
        let (a, i) = (ins::<i64>(c, 0), ins::<i64>(c, 1));
        let (av, iv) = (view(&a, input(c, 0)), view(&i, input(c, 1)));
        expect(c, av.gather(arg_i(c, "axis"), &iv), |t| {
            check(t, &c["out"][0])
        })
    });
    for name in ["scatter", "scatter_add"] {
        run(name, 25, |c| {
            let (a, i, s) = (ins::<i64>(c, 0), ins::<i64>(c, 1), ins::<i64>(c, 2));
            let (av, iv, sv) = (
                view(&a, input(c, 0)),
                view(&i, input(c, 1)),
                view(&s, input(c, 2)),
            );
            let r = if name == "scatter" {
                av.scatter(arg_i(c, "axis"), &iv, &sv)
            } else {
                av.scatter_add(arg_i(c, "axis"), &iv, &sv)
            };
            expect(c, r, |t| check(t, &c["out"][0]))
        });
    }
    for name in ["index_put", "index_put_accumulate"] {
        run(name, 20, |c| {
            let (a, vals) = (ins::<i64>(c, 0), ins::<i64>(c, 1));
            let idx: Vec<Tensor<i64, IxDyn>> = (2..c["in"].as_array().unwrap().len())
                .map(|k| ins(c, k))
                .collect();
            let views: Vec<TensorView<'_, i64, IxDyn>> = idx
                .iter()
                .enumerate()
                .map(|(k, t)| view(t, input(c, k + 2)))
                .collect();
            let av = view(&a, input(c, 0));
            let r = if name == "index_put" {
                av.index_put(&views.iter().map(|t| t as _).collect::<Vec<_>>(), &vals)
            } else {
                av.index_put_accumulate(&views.iter().map(|t| t as _).collect::<Vec<_>>(), &vals)
            };
            expect(c, r, |t| check(t, &c["out"][0]))
        });
    }
}

#[test]
fn golden_nonzero_masked_fill() {
    run("nonzero", 15, |c| {
        let a = ins::<i64>(c, 0);
        expect(c, view(&a, input(c, 0)).nonzero(), |nz| check_all(nz, c))
    });
    run("argwhere", 15, |c| {
        let a = ins::<i64>(c, 0);
        check(&view(&a, input(c, 0)).argwhere(), &c["out"][0])
    });
    run("masked_fill", 15, |c| {
        let (a, m) = (ins::<f64>(c, 0), ins::<bool>(c, 1));
        let (av, mv) = (view(&a, input(c, 0)), view(&m, input(c, 1)));
        expect(c, av.masked_fill(&mv, -1.5), |t| check(t, &c["out"][0]))
    });
}

#[test]
fn gather_errors_and_edge_cases() {
    let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    let e = a
        .gather(1, &Tensor::from_vec(vec![3i64], [1, 1]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("gather:") && e.contains("index 3"), "{e}");
    assert!(
        a.gather(0, &Tensor::from_vec(vec![0i64; 4], [1, 4]).unwrap())
            .is_err()
    );
    assert!(
        a.gather(0, &Tensor::from_vec(vec![0i64; 2], [2]).unwrap())
            .is_err()
    );
    assert!(
        a.gather(2, &Tensor::from_vec(vec![0i64; 2], [1, 2]).unwrap())
            .is_err()
    );
    let idx = Tensor::from_vec(vec![0i64, 5], [1, 2]).unwrap();
    assert!(a.scatter(1, &idx, &a).is_err());
    let e = a
        .take_along_axis(&Tensor::from_vec(vec![0usize; 3], [3]).unwrap(), 0)
        .unwrap_err();
    assert!(e.to_string().starts_with("take_along_axis:"), "{e}");
    assert!(
        a.take_along_axis(&Tensor::from_vec(vec![0usize; 6], [3, 2]).unwrap(), 0)
            .is_err()
    );
    assert_eq!(
        a.take_along_axis(&Tensor::from_vec(vec![1usize; 3], [3, 1]).unwrap(), 0)
            .unwrap()
            .shape(),
        &[3, 3]
    );
    // put_along_axis writes nothing on error
    let mut b = a.clone();
    let bad = Tensor::from_vec(vec![0i64, 9], [2, 1]).unwrap();
    assert!(b.put_along_axis(&bad, &Tensor::scalar(0), 1).is_err());
    assert_eq!(b.to_vec(), a.to_vec());
    // put_along_axis on a mutable view writes through
    let mut c = a.clone();
    c.view_mut()
        .put_along_axis(
            &Tensor::from_vec(vec![1usize], [1, 1]).unwrap(),
            &Tensor::scalar(0),
            0,
        )
        .unwrap();
    assert_eq!(c.to_vec(), vec![1, 2, 3, 0, 0, 0]); // the (1, 1) index broadcasts over axis 1
    let i = Tensor::from_vec(vec![0i64, 1], [2]).unwrap();
    assert!(a.index_put(&[&i, &i, &i], &Tensor::scalar(0)).is_err());
    assert!(
        a.index_put(
            &[&Tensor::from_vec(vec![2i64], [1]).unwrap()],
            &Tensor::scalar(0)
        )
        .is_err()
    );
    assert!(
        a.index_put(&[&i], &Tensor::from_vec(vec![1, 2], [2]).unwrap())
            .is_err()
    );
    let empty: [&dyn AsDynView<i64>; 0] = [];
    assert!(a.index_put(&empty, &Tensor::scalar(0)).is_err());
    assert!(Tensor::scalar(1).nonzero().is_err());
    assert_eq!(Tensor::scalar(1).argwhere().shape(), &[1, 0]);
    assert_eq!(Tensor::scalar(0).argwhere().shape(), &[0, 0]);
    let f = Tensor::from_vec(vec![0.0, -0.0, f64::NAN], [3]).unwrap();
    assert_eq!(f.nonzero().unwrap()[0].to_vec(), vec![2]);
    let m = Tensor::from_vec(vec![true, false, true], [3]).unwrap();
    assert_eq!(
        a.masked_fill(&m, 0).unwrap().to_vec(),
        vec![0, 2, 0, 0, 5, 0]
    );
    let m = Tensor::from_vec(vec![true, false], [2]).unwrap();
    let e = a.masked_fill(&m, 0).unwrap_err().to_string();
    assert!(
        e.starts_with("masked_fill:") && e.contains("(2,)") && e.contains("(2, 3)"),
        "{e}"
    );
}
