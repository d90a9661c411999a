//! Golden tests (NumPy) for pad, repeat, tile, roll, tril, triu, diag, meshgrid, diff.

use crate::manip_support;
use ferrotensor::prelude::*;
use manip_support::*;
use serde_json::Value;

fn one<T: Gold>(c: &Value) -> Tensor<T, IxDyn> {
    base::<T>(input(c, 0))
}

#[test]
fn golden_pad() {
    run("pad", 50, |c| {
        let b = one::<f64>(c);
        let v = view(&b, input(c, 0));
        let widths: Vec<(usize, usize)> = c["args"]["widths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w[0].as_u64().unwrap() as usize,
                    w[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        let mode = match c["args"]["mode"].as_str().unwrap() {
            "constant" => PadMode::Constant(c["args"]["value"].as_f64().unwrap()),
            "edge" => PadMode::Edge,
            "reflect" => PadMode::Reflect,
            "symmetric" => PadMode::Symmetric,
            _ => PadMode::Wrap,
        };
        expect(c, v.pad(&widths, mode), |t| check(t, &c["out"][0]))
    });
}

#[test]
fn golden_repeat_tile_roll() {
    run("repeat", 20, |c| {
        let b = one::<i64>(c);
        let v = view(&b, input(c, 0));
        expect(
            c,
            v.repeat(&args_usize(c, "repeats"), arg_opt(c, "axis")),
            |t| check(t, &c["out"][0]),
        )
    });
    run("tile", 15, |c| {
        let b = one::<i64>(c);
        let v = view(&b, input(c, 0));
        expect(c, v.tile(&args_usize(c, "reps")), |t| {
            check(t, &c["out"][0])
        })
    });
    run("roll", 20, |c| {
        let b = one::<i64>(c);
        let v = view(&b, input(c, 0));
        expect(c, v.roll(arg_i(c, "shift"), arg_opt(c, "axis")), |t| {
            check(t, &c["out"][0])
        })
    });
}

#[test]
fn golden_tril_triu_diag() {
    for name in ["tril", "triu"] {
        run(name, 10, |c| {
            let b = one::<i64>(c);
            let v = view(&b, input(c, 0));
            let k = arg_i(c, "k");
            let r = if name == "tril" { v.tril(k) } else { v.triu(k) };
            expect(c, r, |t| check(t, &c["out"][0]))
        });
    }
    run("diag", 15, |c| {
        let b = one::<f64>(c);
        let v = view(&b, input(c, 0));
        expect(c, v.diag(arg_i(c, "k")), |t| check(t, &c["out"][0]))
    });
}

#[test]
fn golden_meshgrid_diff() {
    run("meshgrid", 10, |c| {
        let bases: Vec<Tensor<i64, IxDyn>> = c["in"]
            .as_array()
            .unwrap()
            .iter()
            .map(base::<i64>)
            .collect();
        let views: Vec<TensorView<'_, i64, IxDyn>> = bases
            .iter()
            .zip(c["in"].as_array().unwrap())
            .map(|(b, a)| view(b, a))
            .collect();
        let ind = if c["args"]["indexing"] == "ij" {
            Indexing::Ij
        } else {
            Indexing::Xy
        };
        expect(
            c,
            meshgrid(&views.iter().map(|t| t as _).collect::<Vec<_>>(), ind),
            |g| check_all(g, c),
        )
    });
    run("diff", 20, |c| {
        let (n, axis) = (arg_i(c, "n") as usize, arg_i(c, "axis"));
        if dtype(c, 0) == "i64" {
            let b = one::<i64>(c);
            expect(c, view(&b, input(c, 0)).diff(n, axis), |t| {
                check(t, &c["out"][0])
            })
        } else {
            let b = one::<f64>(c);
            expect(c, view(&b, input(c, 0)).diff(n, axis), |t| {
                check(t, &c["out"][0])
            })
        }
    });
}

#[test]
fn shape_ops_keep_fixed_rank_and_reject_bad_input() {
    let a = Tensor::<f32, _>::ones([2, 3]);
    let p: Tensor<f32, Ix2> = a.pad(&[(1, 1), (0, 2)], PadMode::Symmetric).unwrap();
    assert_eq!(p.shape(), &[4, 5]);
    let r: Tensor<f32, Ix2> = a.roll(-7, Some(1)).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    let e = a
        .pad(&[(1, 1), (1, 1), (1, 1)], PadMode::Edge)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("pad:") && e.contains("(2, 3)"), "{e}");
    let z = Tensor::<f32, _>::zeros([0, 2]);
    assert!(z.pad(&[(1, 0), (0, 0)], PadMode::Wrap).is_err());
    assert_eq!(
        z.pad(&[(1, 0), (0, 0)], PadMode::Constant(2.0))
            .unwrap()
            .to_vec(),
        vec![2.0, 2.0]
    );
    assert!(a.repeat(&[1, 1], Some(1)).is_err());
    assert!(a.repeat(&[1], Some(2)).is_err());
    assert!(a.roll(1, Some(2)).is_err());
    assert!(Tensor::<f32, _>::ones([3]).tril(0).is_err());
    // fixed ranks other than 1 and 2 do not compile (no `DiagDim`); at dynamic rank they are an `Err`
    assert!(
        Tensor::<f32, _>::ones([2, 2, 2])
            .into_dyn()
            .diag(0)
            .is_err()
    );
    assert!(Tensor::scalar(1.0f32).diff(1, 0).is_err());
    assert!(a.diff(1, 2).is_err());
    // a large pad runs the parallel path and matches the serial one
    let big = Tensor::<f32, _>::from_shape_fn([700, 300], |i| (i[0] * 300 + i[1]) as f32);
    let par = big.pad(&[(3, 2), (5, 4)], PadMode::Reflect).unwrap();
    let ser =
        ferrotensor::with_num_threads(1, || big.pad(&[(3, 2), (5, 4)], PadMode::Reflect).unwrap());
    assert_eq!(par.to_vec(), ser.to_vec());
    assert_eq!(par[[0, 0]], big[[3, 5]]);
}
