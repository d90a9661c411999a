//! Golden tests (NumPy) for concatenate / stack / hstack / vstack / dstack and the
//! view-returning split / chunk / unstack.

use crate::manip_support;
use ferrotensor::prelude::*;
use manip_support::*;
use serde_json::Value;

fn inputs<T: Gold>(case: &Value) -> Vec<Tensor<T, IxDyn>> {
    case["in"]
        .as_array()
        .unwrap()
        .iter()
        .map(base::<T>)
        .collect()
}

fn views<'a, T: Gold>(
    bases: &'a [Tensor<T, IxDyn>],
    case: &Value,
) -> Vec<TensorView<'a, T, IxDyn>> {
    bases
        .iter()
        .zip(case["in"].as_array().unwrap())
        .map(|(b, a)| view(b, a))
        .collect()
}

/// The list argument of the combining functions from a vector of views.
fn refs<'a, T: Element>(v: &'a [TensorView<'a, T, IxDyn>]) -> Vec<&'a dyn AsView<T, IxDyn>> {
    v.iter().map(|t| t as _).collect()
}

#[test]
fn golden_concatenate() {
    run("concatenate", 30, |c| {
        let b = inputs::<f64>(c);
        let v = views(&b, c);
        expect(c, concatenate(&refs(&v), arg_i(c, "axis")), |t| {
            check(t, &c["out"][0])
        })
    });
}

#[test]
fn golden_stack_family() {
    run("stack", 20, |c| {
        let b = inputs::<i64>(c);
        let v = views(&b, c);
        expect(c, stack(&refs(&v), arg_i(c, "axis")), |t| {
            check(t, &c["out"][0])
        })
    });
    for name in ["hstack", "vstack", "dstack"] {
        run(name, 10, |c| {
            let b = inputs::<i64>(c);
            let v = views(&b, c);
            let r = match name {
                "hstack" => hstack(&refs(&v)),
                "vstack" => vstack(&refs(&v)),
                _ => dstack(&refs(&v)),
            };
            expect(c, r, |t| check(t, &c["out"][0]))
        });
    }
}

#[test]
fn golden_split_chunk_unstack_are_views() {
    let shares = |parts: &[TensorView<'_, f64, IxDyn>], b: &Tensor<f64, IxDyn>| {
        let buf = b.buffer().as_ptr_range();
        parts
            .iter()
            .filter(|p| p.size() > 0)
            .all(|p| buf.contains(&p.as_ptr()))
    };
    run("split", 30, |c| {
        let b = inputs::<f64>(c);
        let v = view(&b[0], &c["in"][0]);
        let idx: Vec<isize> = c["args"]["indices"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_i64().unwrap() as isize).collect())
            .unwrap_or_default();
        let sections = match arg_opt(c, "count") {
            Some(n) => Sections::Count(n as usize),
            None => Sections::Indices(&idx),
        };
        expect(c, split(&v, sections, arg_i(c, "axis")), |parts| {
            if !shares(parts, &b[0]) {
                return Err("split copied".into());
            }
            check_all(parts, c)
        })
    });
    run("chunk", 15, |c| {
        let b = inputs::<f64>(c);
        let v = view(&b[0], &c["in"][0]);
        expect(
            c,
            chunk(&v, arg_i(c, "chunks") as usize, arg_i(c, "axis")),
            |parts| {
                if !shares(parts, &b[0]) {
                    return Err("chunk copied".into());
                }
                check_all(parts, c)
            },
        )
    });
    run("unstack", 10, |c| {
        let b = inputs::<f64>(c);
        let v = view(&b[0], &c["in"][0]);
        expect(c, unstack(&v, arg_i(c, "axis")), |parts| {
            if !shares(parts, &b[0]) {
                return Err("unstack copied".into());
            }
            check_all(parts, c)
        })
    });
}

#[test]
fn combining_any_ownership_kind() {
    let a = Tensor::<i32, _>::arange(4).into_shape([2, 2]).unwrap();
    let shared = a.clone().into_shared();
    let cow = a.reshape([2, 2]).unwrap();
    let c: Tensor<i32, Ix2> = concatenate(&[&a, &shared, &cow, &a.t()], 0).unwrap();
    assert_eq!(c.shape(), &[8, 2]);
    assert_eq!(&c.to_vec()[12..], &[0, 2, 1, 3]);
    let s: Tensor<i32, Ix3> = stack(&[&shared, &a.view()], 2).unwrap();
    assert_eq!(s.shape(), &[2, 2, 2]);
    assert_eq!(s.to_vec(), vec![0, 0, 1, 1, 2, 2, 3, 3]);
}

#[test]
fn combining_errors_name_the_operation_and_shapes() {
    let a = Tensor::<f32, _>::zeros([2, 3]);
    let b = Tensor::<f32, _>::zeros([3, 3]);
    let e = concatenate(&[&a, &b], 1).unwrap_err().to_string();
    assert!(
        e.starts_with("concatenate:") && e.contains("(2, 3)") && e.contains("(3, 3)"),
        "{e}"
    );
    let none: [&dyn AsView<f32, Ix2>; 0] = [];
    assert!(
        concatenate(&none, 0)
            .unwrap_err()
            .to_string()
            .contains("at least one")
    );
    assert!(concatenate(&[&a], 2).is_err());
    assert!(concatenate(&[&Tensor::scalar(1.0f32)], 0).is_err());
    let e = stack(&[&a, &b], 0).unwrap_err().to_string();
    assert!(e.starts_with("stack:") && e.contains("(3, 3)"), "{e}");
    assert!(stack(&[&a], 3).is_err());
    assert!(stack(&none, 0).is_err());
    assert!(vstack(&[&Tensor::<f32, _>::zeros([2]), &Tensor::<f32, _>::zeros([3])]).is_err());
    assert!(split(&a, Sections::Count(0), 0).is_err());
    assert!(split(&a, Sections::Count(1), 2).is_err());
    assert!(chunk(&a, 0, 0).is_err());
    // a fixed 0-d rank does not compile (no `RemoveAxis`); at dynamic rank it is an `Err`
    assert!(unstack(&Tensor::scalar(1.0f32).into_dyn(), 0).is_err());
}
