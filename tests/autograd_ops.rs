//! Gradients of every element-wise, reduction, view and indexing operation on `Var`
//! against central finite differences in f64 (relative error ≤ 1e-6), on random
//! shapes with broadcasting both ways, size-1 and zero-length axes, strided, flipped
//! and permuted inputs, and shared sub-expressions.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` beside `&[x.clone(), y.clone()]`.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod autograd_support;

use autograd_support::*;
use ferrotensor::autograd::{self, Var};
use ferrotensor::prelude::*;

#[test]
fn binary_arithmetic_with_broadcasting_both_ways() {
    let mut r = rng(1);
    for (sa, sb) in broadcast_pairs(&mut r) {
        let a = randn(&sa, &mut r);
        // Keep divisors away from 0.
        let b = uniform(&sb, 0.5, 2.0, &mut r);
        let name = format!("{sa:?} op {sb:?}");
        gradcheck(&format!("add {name}"), &[a.clone(), b.clone()], |v| {
            v[0].try_add(&v[1])
        });
        gradcheck(&format!("sub {name}"), &[a.clone(), b.clone()], |v| {
            v[0].try_sub(&v[1])
        });
        gradcheck(&format!("mul {name}"), &[a.clone(), b.clone()], |v| {
            v[0].try_mul(&v[1])
        });
        gradcheck(&format!("div {name}"), &[a.clone(), b.clone()], |v| {
            v[0].try_div(&v[1])
        });
        gradcheck(&format!("operators {name}"), &[a.clone(), b.clone()], |v| {
            Ok(&(&v[0] * &v[1]) - &(&v[0] / &v[1]) + -&v[1])
        });
    }
}

#[test]
fn scalar_operands_on_either_side() {
    let mut r = rng(2);
    let x = uniform(&dims(3, &mut r), 0.5, 2.0, &mut r);
    gradcheck("x + s, s + x", &[x.clone()], |v| {
        Ok(&(&v[0] + 1.5) * &(2.5 + &v[0]))
    });
    gradcheck("x - s, s - x", &[x.clone()], |v| {
        Ok(&(&v[0] - 1.5) * &(2.5 - &v[0]))
    });
    gradcheck("x * s, s * x", &[x.clone()], |v| {
        Ok(&(&v[0] * 1.5) * &(-2.0 * &v[0]))
    });
    gradcheck("x / s, s / x", &[x.clone()], |v| {
        Ok(&(&v[0] / 1.5) + &(3.0 / &v[0]))
    });
    gradcheck("neg", &[x.clone()], |v| Ok(-&v[0]));
    gradcheck("owned operands", &[x.clone()], |v| {
        Ok((v[0].clone() + v[0].clone()) * v[0].clone() - v[0].clone() / 2.0)
    });
}

#[test]
fn element_wise_functions() {
    let mut r = rng(3);
    let shape = dims(3, &mut r);
    let x = randn(&shape, &mut r);
    let pos = uniform(&shape, 0.3, 3.0, &mut r);
    gradcheck("exp", &[x.clone()], |v| Ok(v[0].exp()));
    gradcheck("ln", &[pos.clone()], |v| Ok(v[0].ln()));
    gradcheck("tanh", &[x.clone()], |v| Ok(v[0].tanh()));
    gradcheck("sigmoid", &[x.clone()], |v| Ok(v[0].sigmoid()));
    gradcheck("relu", &[x.clone()], |v| Ok(v[0].relu()));
    gradcheck("sqrt", &[pos.clone()], |v| Ok(v[0].sqrt()));
    for p in [2.0, 3.0, 1.7, -0.5] {
        gradcheck(&format!("powf {p}"), &[pos.clone()], |v| Ok(v[0].powf(p)));
    }
    gradcheck("square", &[x.clone()], |v| Ok(v[0].square()));
    gradcheck("abs", &[x.clone()], |v| Ok(v[0].abs()));
    gradcheck("gelu", &[x.clone()], |v| Ok(v[0].gelu()));
    gradcheck("gelu_tanh", &[x.clone()], |v| Ok(v[0].gelu_tanh()));
    gradcheck("silu", &[x.clone()], |v| Ok(v[0].silu()));
    gradcheck("leaky_relu", &[x.clone()], |v| Ok(v[0].leaky_relu(0.1)));
    gradcheck("clip", &[x.clone()], |v| v[0].clip(-0.5, 0.7));
    gradcheck("nn-style functions", &[x.clone()], |v| {
        Ok(&(&autograd::gelu(&v[0]) + &autograd::silu(&v[0]))
            * &autograd::tanh(&autograd::leaky_relu(&v[0], 0.2)))
    });
}

#[test]
fn non_differentiable_points_follow_pytorch() {
    let x = Var::new(Tensor::from_vec(vec![-1.0f64, 0.0, 1.0], [3]).unwrap());
    let grad = |y: Var<f64>| y.sum().backward().unwrap().get(&x).unwrap().to_vec();
    assert_eq!(grad(x.relu()), vec![0.0, 0.0, 1.0]);
    assert_eq!(grad(x.abs()), vec![-1.0, 0.0, 1.0]);
    assert_eq!(grad(x.leaky_relu(0.1)), vec![0.1, 0.1, 1.0]);
    assert_eq!(grad(x.clip(-1.0, 0.0).unwrap()), vec![1.0, 1.0, 0.0]); // bounds included
    let (lo, hi) = (
        Var::new(Tensor::from_vec(vec![0.0f64], [1]).unwrap()),
        Var::new(Tensor::from_vec(vec![0.5f64, 0.5, -2.0], [3]).unwrap()),
    );
    let g = x.clip(&lo, &hi).unwrap().sum().backward().unwrap();
    // x = -1 takes min; x = 0 = min stays x; x = 1 takes max; min > max gives max (NumPy)
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.0, 1.0, 0.0]);
    assert_eq!(g.get(&lo).unwrap().to_vec(), vec![1.0]);
    assert_eq!(g.get(&hi).unwrap().to_vec(), vec![0.0, 0.0, 1.0]);
    let y = Var::new(Tensor::from_vec(vec![0.0f64, 2.0, 1.0], [3]).unwrap());
    let g = x.maximum(&y).unwrap().sum().backward().unwrap();
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.0, 0.0, 0.5]);
    assert_eq!(g.get(&y).unwrap().to_vec(), vec![1.0, 1.0, 0.5]);
    let g = x.minimum(&y).unwrap().sum().backward().unwrap();
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 1.0, 0.5]);
    assert_eq!(g.get(&y).unwrap().to_vec(), vec![0.0, 0.0, 0.5]);
    // max_axes splits among ties, as torch.amax
    let t = Var::new(Tensor::from_vec(vec![3.0f64, 1.0, 3.0, 3.0], [4]).unwrap());
    let g = t.max_axes(&[0], false).unwrap().sum().backward().unwrap();
    let third = 1.0 / 3.0;
    assert_eq!(g.get(&t).unwrap().to_vec(), vec![third, 0.0, third, third]);
}

#[test]
fn maximum_minimum_where_with_broadcasting_and_scalars() {
    let mut r = rng(4);
    for (sa, sb) in broadcast_pairs(&mut r) {
        let (a, b) = (randn(&sa, &mut r), randn(&sb, &mut r));
        let name = format!("{sa:?} {sb:?}");
        gradcheck(&format!("maximum {name}"), &[a.clone(), b.clone()], |v| {
            v[0].maximum(&v[1])
        });
        gradcheck(&format!("minimum {name}"), &[a.clone(), b.clone()], |v| {
            v[0].minimum(&v[1])
        });
        let cond = a.mapv(|x| x > 0.0);
        gradcheck(&format!("where {name}"), &[a.clone(), b.clone()], |v| {
            autograd::where_(&cond, &v[0], &v[1])
        });
    }
    // clip with Var bounds: each of the three operands broadcast against the others.
    for (sx, slo, shi) in [
        (vec![3, 4], vec![4], vec![3, 1]),
        (vec![4], vec![3, 1], vec![]),
        (vec![1, 4], vec![3, 4], vec![4]),
        (vec![0, 4], vec![1], vec![4]),
    ] {
        let x = randn(&sx, &mut r);
        let lo = uniform(&slo, -1.0, 0.0, &mut r);
        let hi = uniform(&shi, 0.1, 1.0, &mut r);
        gradcheck(&format!("clip {sx:?} {slo:?} {shi:?}"), &[x, lo, hi], |v| {
            v[0].clip(&v[1], &v[2])
        });
    }
    let x = randn(&[3, 4], &mut r);
    gradcheck(
        "clip with one Var bound",
        &[x.clone(), uniform(&[4], 0.0, 0.5, &mut r)],
        |v| v[0].clip(-0.3, &v[1]),
    );
    gradcheck("maximum scalar", &[x.clone()], |v| v[0].maximum(0.25));
    gradcheck("minimum scalar", &[x.clone()], |v| v[0].minimum(-0.25));
    let cond = Tensor::from_vec(vec![true, false, true, false], [4]).unwrap();
    gradcheck("where scalar, broadcast cond", &[x.clone()], |v| {
        autograd::where_(&cond, 2.0, &v[0])
    });
}

#[test]
fn reductions_over_every_axis_choice() {
    let mut r = rng(5);
    let shape = dims(3, &mut r);
    let x = randn(&shape, &mut r);
    let big = randn(&[3, 4, 5], &mut r);
    gradcheck("sum", &[x.clone()], |v| Ok(v[0].sum()));
    gradcheck("mean", &[x.clone()], |v| Ok(v[0].mean()));
    for axes in [
        vec![0],
        vec![1],
        vec![-1],
        vec![0, 2],
        vec![],
        vec![0, 1, 2],
    ] {
        for keep in [false, true] {
            let n = format!("{axes:?} keepdims={keep}");
            gradcheck(&format!("sum_axes {n}"), &[x.clone()], |v| {
                v[0].sum_axes(&axes, keep)
            });
            gradcheck(&format!("mean_axes {n}"), &[x.clone()], |v| {
                v[0].mean_axes(&axes, keep)
            });
            gradcheck(&format!("max_axes {n}"), &[x.clone()], |v| {
                v[0].max_axes(&axes, keep)
            });
            gradcheck(&format!("min_axes {n}"), &[x.clone()], |v| {
                v[0].min_axes(&axes, keep)
            });
            // Moments of nothing (no axes) are 0 or NaN: not differentiable.
            for ddof in [0, 1].into_iter().filter(|_| !axes.is_empty()) {
                gradcheck(&format!("var_axes {n} ddof={ddof}"), &[big.clone()], |v| {
                    v[0].var_axes(&axes, keep, ddof)
                });
                gradcheck(&format!("std_axes {n} ddof={ddof}"), &[big.clone()], |v| {
                    v[0].std_axes(&axes, keep, ddof)
                });
            }
        }
    }
    for ddof in [0.0, 1.0, 0.5] {
        gradcheck(&format!("var ddof={ddof}"), &[x.clone()], |v| {
            Ok(v[0].var(ddof))
        });
        gradcheck(&format!("std ddof={ddof}"), &[x.clone()], |v| {
            Ok(v[0].std(ddof))
        });
    }
    for axis in [0, 1, 2, -1] {
        gradcheck(&format!("cumsum {axis}"), &[x.clone()], |v| {
            v[0].cumsum(axis)
        });
    }
    // Zero-length axes: sums give zeros, gradients keep the shape.
    let e = randn(&[0, 3], &mut r);
    gradcheck("sum_axes over empty", &[e.clone()], |v| {
        v[0].sum_axes(&[0], false)
    });
    gradcheck("mean_axes keeps empty", &[e.clone()], |v| {
        v[0].mean_axes(&[1], true)
    });
    gradcheck("sum of empty", &[e.clone()], |v| Ok(v[0].sum()));
}

#[test]
fn views_map_gradients_back_exactly() {
    let mut r = rng(6);
    let x = randn(&[3, 4, 5], &mut r);
    gradcheck("reshape (view)", &[x.clone()], |v| v[0].reshape([4, 15]));
    gradcheck("reshape of a permuted input (copy)", &[x.clone()], |v| {
        v[0].permute(&[2, 0, 1])?.reshape(vec![60])
    });
    gradcheck("permute", &[x.clone()], |v| v[0].permute(&[1, -1, 0]));
    gradcheck("t", &[x.clone()], |v| Ok(v[0].t()));
    gradcheck("slice with steps", &[x.clone()], |v| {
        Ok(v[0].slice(s![1.., ..;2, 4..0;-2]))
    });
    gradcheck("slice with index and new axis", &[x.clone()], |v| {
        Ok(v[0].slice(s![-1, NewAxis, .., 3]))
    });
    gradcheck("slice with ellipsis", &[x.clone()], |v| {
        Ok(v[0].slice(s![Ellipsis, ..;-1]))
    });
    gradcheck("flip", &[x.clone()], |v| v[0].flip(1));
    gradcheck("broadcast_to", &[randn(&[4, 1], &mut r)], |v| {
        v[0].broadcast_to([2, 4, 3])
    });
    gradcheck("squeeze", &[randn(&[1, 3, 1, 2], &mut r)], |v| {
        Ok(v[0].squeeze())
    });
    gradcheck("unsqueeze", &[x.clone()], |v| v[0].unsqueeze(-2));
    gradcheck("views composed", &[x.clone()], |v| {
        let y = v[0]
            .flip(0)?
            .permute(&[2, 1, 0])?
            .slice(s![..;-2, 1..3, ..]);
        let z = y.unsqueeze(0)?.broadcast_to([2, 3, 2, 3])?;
        Ok(&z * &y)
    });
    gradcheck(
        "empty slice",
        &[x.clone()],
        |v| Ok(v[0].slice(s![2..2, ..])),
    );
}

#[test]
fn strided_flipped_and_permuted_leaves() {
    let mut r = rng(7);
    let base = randn(&[3, 4], &mut r);
    for (kind, leaf) in [
        ("column-major", col_major(&base)),
        ("flipped", flipped_storage(&base)),
    ] {
        assert!(!leaf.is_contiguous(), "{kind}");
        let w = randn(&[4, 2], &mut r);
        gradcheck(&format!("{kind} matmul"), &[leaf.clone(), w.clone()], |v| {
            v[0].matmul(&v[1])
        });
        gradcheck(&format!("{kind} exp + sum_axes"), &[leaf.clone()], |v| {
            v[0].exp().sum_axes(&[1], true)
        });
        gradcheck(
            &format!("{kind} broadcast add"),
            &[leaf.clone(), randn(&[4], &mut r)],
            |v| v[0].try_add(&v[1]),
        );
        gradcheck(&format!("{kind} reshape"), &[leaf.clone()], |v| {
            v[0].reshape([2, 6])
        });
        gradcheck(&format!("{kind} slice"), &[leaf.clone()], |v| {
            Ok(v[0].slice(s![..;-1, 1..]))
        });
    }
}

#[test]
fn shared_sub_expressions_accumulate() {
    let mut r = rng(8);
    let x = randn(&[3, 4], &mut r);
    let b = randn(&[4], &mut r);
    gradcheck("diamond", &[x.clone(), b.clone()], |v| {
        let y = &v[0] * &v[1]; // used three times below
        let z = &(&y.exp() * &y) + &y.tanh();
        Ok(&(&z + &y.sum_axes(&[0], true)?) - &v[0])
    });
    gradcheck("same var on both sides", &[x.clone()], |v| {
        Ok(&(&v[0] * &v[0]) + &(&v[0] / &v[0].exp()))
    });
    gradcheck("view and base together", &[x.clone()], |v| {
        Ok(&v[0] * &v[0].flip(1)?.t().t())
    });
    // One leaf reached by many paths: gradient accumulates exactly.
    let leaf = Var::new(Tensor::from_vec(vec![2.0f64], [1]).unwrap());
    let mut acc = leaf.clone();
    for _ in 0..10 {
        acc = &acc + &leaf;
    }
    assert_eq!(
        acc.sum().backward().unwrap().get(&leaf).unwrap().to_vec(),
        vec![11.0]
    );
}

#[test]
fn indexing_and_joining() {
    let mut r = rng(9);
    let x = randn(&[4, 3], &mut r);
    gradcheck("index_select repeated", &[x.clone()], |v| {
        v[0].index_select(0, &[3, 0, 3, -1, 1])
    });
    gradcheck("index_select axis 1", &[x.clone()], |v| {
        v[0].index_select(1, &[2, 2])
    });
    gradcheck("index_select empty", &[x.clone()], |v| {
        v[0].index_select(0, &[])
    });
    let idx = Tensor::from_vec(vec![0i64, 2, 2, 1, 0, 0], [2, 3]).unwrap();
    gradcheck("gather axis 1", &[x.clone()], |v| v[0].gather(1, &idx));
    let idx0 = Tensor::from_vec(vec![3i64, 3, 0], [1, 3]).unwrap();
    gradcheck("gather axis 0", &[x.clone()], |v| v[0].gather(0, &idx0));
    for mode in [
        PadMode::Constant(0.5),
        PadMode::Edge,
        PadMode::Reflect,
        PadMode::Symmetric,
        PadMode::Wrap,
    ] {
        gradcheck(&format!("pad {mode:?}"), &[x.clone()], |v| {
            v[0].pad(&[(2, 1), (0, 4)], mode)
        });
        gradcheck(&format!("pad one pair {mode:?}"), &[x.clone()], |v| {
            v[0].pad(&[(1, 2)], mode)
        });
    }
    let (a, b, c) = (
        randn(&[2, 3], &mut r),
        randn(&[1, 3], &mut r),
        randn(&[0, 3], &mut r),
    );
    gradcheck(
        "concatenate axis 0",
        &[a.clone(), b.clone(), c.clone()],
        |v| autograd::concatenate(&[&v[0], &v[1], &v[2]], 0),
    );
    gradcheck("concatenate axis -1 owned", &[a.clone(), a.clone()], |v| {
        autograd::concatenate(&[v[0].exp(), v[1].clone()], -1)
    });
}

#[test]
fn constants_get_no_gradient_and_detach_cuts_the_graph() {
    let x = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2]).unwrap());
    let c = Var::constant(Tensor::from_vec(vec![3.0f64, 4.0], [2]).unwrap());
    let y = &(&x * &c) + &c.exp();
    assert!(y.requires_grad());
    assert!(!(&c * 2.0).requires_grad());
    let g = y.sum().backward().unwrap();
    assert!(g.get(&c).is_none());
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![3.0, 4.0]);
    let g = (&x * &x.detach()).sum().backward().unwrap();
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0, 2.0]);
    // Backward can run again on the kept graph, with the same result.
    let loss = (&x * &x).sum();
    let (g1, g2) = (loss.backward().unwrap(), loss.backward().unwrap());
    assert_eq!(g1.get(&x).unwrap().to_vec(), g2.get(&x).unwrap().to_vec());
}

#[test]
fn deep_graphs_neither_overflow_the_stack_nor_leak() {
    let x = Var::new(Tensor::from_vec(vec![1.0f64], [1]).unwrap());
    let mut y = x.clone();
    for _ in 0..100_000 {
        y = &y * 1.0;
    }
    let g = y.sum().backward().unwrap();
    assert_eq!(g.get(&x).unwrap().to_vec(), vec![1.0]);
    drop(y); // iterative drop of the 100 000-node chain
    assert!(x.is_leaf());
}

#[test]
fn f32_gradients_match_f64() {
    let mut r = rng(10);
    let x64 = randn(&[5, 7], &mut r);
    let w64 = randn(&[7, 3], &mut r);
    let run64 = {
        let (x, w) = (Var::new(x64.clone()), Var::new(w64.clone()));
        let y = autograd::log_softmax(&x.matmul(&w).unwrap().tanh(), 1)
            .unwrap()
            .sum();
        y.backward().unwrap().get(&w).unwrap().to_vec()
    };
    let (x, w) = (Var::new(x64.cast::<f32>()), Var::new(w64.cast::<f32>()));
    let y = autograd::log_softmax(&x.matmul(&w).unwrap().tanh(), 1)
        .unwrap()
        .sum();
    let g32 = y.backward().unwrap().get(&w).unwrap().to_vec();
    for (a, b) in g32.iter().zip(&run64) {
        assert!((*a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
    }
}

/// One-input operations for the layout sweep; those marked need every axis at least 2
/// long (moments, extrema over an axis, indexing fixed rows).
fn one_input_ops() -> Vec<OneInput> {
    fn pos(v: &Var<f64>) -> Var<f64> {
        &v.square() + 0.5
    }
    vec![
        ("exp", |v| Ok(v.exp()), false),
        ("ln", |v| Ok(pos(v).ln()), false),
        ("tanh", |v| Ok(v.tanh()), false),
        ("sigmoid", |v| Ok(v.sigmoid()), false),
        ("relu", |v| Ok(v.relu()), false),
        ("sqrt", |v| Ok(pos(v).sqrt()), false),
        ("powf", |v| Ok(pos(v).powf(1.5)), false),
        ("square", |v| Ok(v.square()), false),
        ("abs", |v| Ok(v.abs()), false),
        ("gelu", |v| Ok(v.gelu()), false),
        ("gelu_tanh", |v| Ok(autograd::gelu_tanh(v)), false),
        ("silu", |v| Ok(v.silu()), false),
        ("leaky_relu", |v| Ok(v.leaky_relu(0.3)), false),
        ("clip", |v| v.clip(-0.4, 0.6), false),
        ("neg", |v| Ok(-v), false),
        ("scalars", |v| Ok(&(2.0 - v) * &(v + 1.0) / 3.0), false),
        ("rdiv", |v| Ok(1.0 / &pos(v)), false),
        ("sum", |v| Ok(v.sum()), false),
        ("mean", |v| Ok(v.mean()), true),
        ("sum_axes 0", |v| v.sum_axes(&[0], false), false),
        ("sum_axes -1 keepdims", |v| v.sum_axes(&[-1], true), false),
        ("mean_axes 1", |v| v.mean_axes(&[1], false), true),
        ("max_axes 1", |v| v.max_axes(&[1], false), true),
        ("min_axes 0 keepdims", |v| v.min_axes(&[0], true), true),
        ("var", |v| Ok(v.var(0)), true),
        ("var_axes 0 ddof 1", |v| v.var_axes(&[0], true, 1), true),
        ("std_axes 1", |v| v.std_axes(&[1], false, 0), true),
        ("cumsum 0", |v| v.cumsum(0), false),
        ("cumsum 1", |v| v.cumsum(1), false),
        ("reshape", |v| v.reshape(vec![v.size()]), false),
        ("permute", |v| v.permute(&[1, 0]), false),
        ("t", |v| Ok(v.t()), false),
        ("slice", |v| v.try_slice(s![..;-1, 1..]), false),
        (
            "broadcast_to",
            |v| v.broadcast_to(vec![2, v.shape()[0], v.shape()[1]]),
            false,
        ),
        ("unsqueeze", |v| v.unsqueeze(1), false),
        ("squeeze", |v| Ok(v.squeeze()), false),
        ("flip", |v| v.flip(1), false),
        ("index_select", |v| v.index_select(0, &[0, 0, -1]), true),
        (
            "gather",
            |v| v.gather(1, &Tensor::from_vec(vec![1i64, 0, 1], [1, 3]).unwrap()),
            true,
        ),
        ("pad", |v| v.pad(&[(1, 2), (2, 0)], PadMode::Reflect), true),
        ("softmax", |v| autograd::softmax(v, 1), false),
        ("log_softmax", |v| autograd::log_softmax(v, 0), false),
        (
            "layer_norm",
            |v| autograd::layer_norm(v, &[v.shape()[1]], None, None, 1e-5),
            true,
        ),
        ("x * x", |v| Ok(v * v), false),
        ("maximum", |v| v.maximum(0.1), false),
        (
            "minimum with its flip",
            |v| v.minimum(v.flip(0)?.mul_scalar(0.7)),
            false,
        ),
        (
            "where",
            |v| autograd::where_(&v.value().mapv(|x| x > 0.0), v, v.exp()),
            false,
        ),
        ("matmul x·xᵀ", |v| v.matmul(&v.t()), false),
        (
            "concatenate",
            |v| autograd::concatenate(&[v, &v.exp()], 0),
            false,
        ),
    ]
}

#[test]
fn layouts_read_the_base_values() {
    let base = randn(&[3, 2, 4], &mut rng(0));
    for (label, leaf, view) in layouts(&base) {
        let v = view(&Var::new(leaf));
        assert_eq!(v.value().to_vec(), base.to_vec(), "{label}");
    }
}

#[test]
fn every_one_input_op_on_every_layout_and_edge_shape() {
    let shapes = [vec![3, 4], vec![1, 4], vec![3, 1], vec![0, 4], vec![2, 0]];
    let checked = layout_sweep(11, &shapes, &one_input_ops(), |s| s.iter().any(|&d| d < 2));
    assert!(checked > 500, "{checked}");
}

#[test]
fn binary_ops_on_mixed_layouts() {
    let mut r = rng(12);
    let (a, b) = (randn(&[3, 4], &mut r), uniform(&[3, 4], 0.5, 2.0, &mut r));
    type Binary = (&'static str, fn(&Var<f64>, &Var<f64>) -> Result<Var<f64>>);
    let ops: [Binary; 7] = [
        ("add", |x, y| x.try_add(y)),
        ("sub", |x, y| x.try_sub(y)),
        ("mul", |x, y| x.try_mul(y)),
        ("div", |x, y| x.try_div(y)),
        ("maximum", |x, y| x.maximum(y)),
        ("minimum", |x, y| x.minimum(y)),
        ("matmul a·bᵀ", |x, y| x.matmul(&y.t())),
    ];
    for (la, leaf_a, view_a) in layouts(&a) {
        for (lb, leaf_b, view_b) in layouts(&b) {
            for (name, op) in ops {
                gradcheck(
                    &format!("{name} {la} with {lb}"),
                    &[leaf_a.clone(), leaf_b.clone()],
                    |v| op(&view_a(&v[0]), &view_b(&v[1])),
                );
            }
        }
    }
}
