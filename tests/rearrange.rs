//! einops-style `rearrange` against NumPy transposes and reshapes (golden cases in
//! tests/golden/rearrange.json), plus syntax, ellipsis and error cases.

use crate::common;
use ferrotensor::prelude::*;

#[test]
fn golden_rearrange_matches_numpy() {
    let cases = common::load("rearrange.json");
    let (mut views, mut copies) = (0, 0);
    for case in &cases {
        let x = common::base(case);
        let v = common::pre(&x, case);
        let sizes: Vec<(String, usize)> = case["sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_string(),
                    p[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        let sizes: Vec<(&str, usize)> = sizes.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let pattern = case["pattern"].as_str().unwrap();
        let r = v
            .rearrange_with(pattern, &sizes)
            .unwrap_or_else(|e| panic!("{e}, case {case}"));
        // Strides of length-1 axes are immaterial (einops adds them by reshape).
        let mut c = case.clone();
        if let Some(st) = case.get("strides") {
            let shape = common::usizes(&case["shape"]);
            let kept: Vec<i64> = common::i64s(st)
                .iter()
                .zip(&shape)
                .map(|(&s, &d)| if d == 1 { 0 } else { s })
                .collect();
            c["strides"] = kept.into();
        }
        assert_eq!(
            r.shape(),
            &common::usizes(&case["shape"])[..],
            "case {case}"
        );
        assert_eq!(r.to_vec(), common::i64s(&case["values"]), "case {case}");
        match case.get("view").and_then(|v| v.as_bool()) {
            Some(true) => {
                views += 1;
                assert!(r.is_view(), "NumPy gives a view, case {case}");
                assert!(std::ptr::eq(r.buffer(), x.buffer()));
                let got: Vec<i64> = r
                    .strides()
                    .iter()
                    .zip(r.shape())
                    .map(|(&s, &d)| if d == 1 { 0 } else { s as i64 })
                    .collect();
                assert_eq!(got, common::i64s(&c["strides"]), "strides, case {case}");
                assert_eq!(
                    r.offset() as i64,
                    case["offset"].as_i64().unwrap(),
                    "offset, case {case}"
                );
            }
            Some(false) => {
                copies += 1;
                assert!(!r.is_view(), "NumPy copies, case {case}");
            }
            None => {}
        }
        if sizes.is_empty() {
            assert_eq!(v.rearrange(pattern).unwrap().to_vec(), r.to_vec());
        }
    }
    assert!(views > 200 && copies > 80, "{views} views, {copies} copies");
}

#[test]
fn the_issue_examples() {
    let a = Tensor::<i32, _>::arange(2 * 3 * 4 * 5)
        .into_shape([2, 3, 4, 5])
        .unwrap();
    let p = a.rearrange("b h w c -> b c h w").unwrap();
    assert!(p.is_view());
    assert_eq!(p.to_vec(), a.permute(&[0, 3, 1, 2]).unwrap().to_vec());
    let f = a.rearrange("b c h w -> b (c h w)").unwrap();
    assert!(f.is_view());
    assert_eq!(f.shape(), &[2, 60]);
    let g = Tensor::<i32, _>::arange(2 * 12 * 3)
        .into_shape([2, 12, 3])
        .unwrap();
    let u = g
        .rearrange_with("b (h w) c -> b h w c", &[("h", 4)])
        .unwrap();
    assert!(u.is_view());
    assert_eq!(u.shape(), &[2, 4, 3, 3]);
    assert_eq!(u.to_vec(), g.to_vec());
}

#[test]
fn ellipsis_units_and_empty_groups() {
    let a = Tensor::<i32, _>::arange(24).into_shape([2, 3, 4]).unwrap();
    assert_eq!(
        a.rearrange("... c -> c ...").unwrap().to_vec(),
        a.moveaxis(-1, 0).unwrap().to_vec()
    );
    assert_eq!(a.rearrange("b ... -> b (...)").unwrap().shape(), &[2, 12]);
    assert_eq!(
        a.rearrange("b h w ... -> (b ...) h w").unwrap().shape(),
        &[2, 3, 4]
    );
    assert_eq!(
        a.rearrange("b h w -> b 1 h w ()").unwrap().shape(),
        &[2, 1, 3, 4, 1]
    );
    let one = a.unsqueeze(1).unwrap();
    let back = one.rearrange("b 1 h w -> b h w").unwrap();
    assert_eq!(back.to_vec(), a.to_vec());
    assert!(back.is_view());
    assert_eq!(
        one.rearrange("b () h w -> (h w) b").unwrap().shape(),
        &[12, 2]
    );
    let t = a.rearrange("b h w -> (w h) b").unwrap();
    assert!(!t.is_view());
    assert_eq!(t.to_vec()[..4], [0, 12, 4, 16]);
}

#[test]
fn errors_name_the_pattern() {
    let a = Tensor::<i32, _>::zeros([2, 6]);
    type Case<'a> = (&'a str, &'a [(&'a str, usize)], &'a str);
    let cases: &[Case] = &[
        ("b x -> b y", &[], "unknown axis 'y'"),
        ("b x -> b", &[], "'x' appears on the left"),
        ("b b -> b", &[], "duplicate axis 'b'"),
        ("b x -> x b b", &[], "duplicate axis 'b'"),
        ("b x y -> b x y", &[], "left side has 3 axes"),
        ("b (h w) -> b h w", &[], "more than one unknown"),
        ("b (h w) -> b h w", &[("h", 4)], "don't divide"),
        ("b (h w) -> b h w", &[("h", 2), ("w", 2)], "multiply to 4"),
        ("b x -> b x", &[("q", 1)], "doesn't use"),
        ("b x -> b x", &[("b", 3)], "multiply to 3"),
        ("b x b x", &[], "expected 'left -> right'"),
        ("b (x -> b x", &[], "unbalanced"),
        ("b ((x)) -> b x", &[], "nested"),
        ("b x -> b x 2", &[], "anonymous axis of length 2"),
        ("b x -> b x-1", &[], "invalid axis name"),
        (
            "b ... -> b",
            &[],
            "'...' on the left side but not on the right",
        ),
        ("b (...) -> b ...", &[], "inside parentheses"),
        ("... b ... -> b", &[], "only once"),
        ("b x -> b x -> b", &[], "only once"),
    ];
    for &(pattern, sizes, needle) in cases {
        let e = a.rearrange_with(pattern, sizes).unwrap_err().to_string();
        assert!(e.starts_with("rearrange:"), "{e}");
        assert!(e.contains(&format!("'{pattern}'")), "{pattern}: {e}");
        assert!(e.contains(needle), "{pattern}: expected {needle:?} in {e}");
    }
}

#[test]
fn works_on_every_ownership_kind() {
    let a = Tensor::<f32, _>::ones([2, 3]);
    let arc = a.clone().into_shared();
    assert_eq!(arc.rearrange("a b -> b a").unwrap().shape(), &[3, 2]);
    let mut m = a.clone();
    let mv = m.view_mut();
    assert_eq!(mv.rearrange("a b -> (a b)").unwrap().shape(), &[6]);
    let cow = a.view().into_cow();
    assert!(cow.rearrange("a b -> b a").unwrap().is_view());
}
