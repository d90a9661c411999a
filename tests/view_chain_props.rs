//! Property test: random chains of view operations (slicing, `step_by`, `narrow`,
//! `flip`, `permute`, `broadcast_to`, `unsqueeze`, `squeeze`, `diagonal`, reshape, `t`)
//! with extreme arguments (`isize::MIN`/`MAX`, `usize::MAX`, zero-length axes). Every
//! step must either return a clean `Err` exactly when a naive model says the operation
//! is invalid, or a view whose layout stays inside its buffer and whose elements equal
//! a naive gather: the model maps each output index back to the base tensor's index
//! one operation at a time, with Python's slicing rules written out in `i128`.

use ferrotensor::layout::MAX_NDIM;
use ferrotensor::prelude::*;
use proptest::prelude::*;

/// Maps an output index to the input index of one operation.
type IndexMap = Box<dyn Fn(&[usize]) -> Vec<usize>>;

#[derive(Clone, Debug)]
enum Item {
    Range(Option<isize>, Option<isize>, isize),
    Index(isize),
    NewAxis,
    Ellipsis,
}

#[derive(Clone, Debug)]
enum Op {
    Slice(Vec<Item>),
    StepBy(usize, isize),
    Narrow(usize, isize, usize),
    Flip(usize),
    Permute(usize),
    BroadcastLead(Vec<usize>),
    BroadcastStretch(usize, usize),
    Unsqueeze(isize),
    Squeeze,
    Diagonal(isize, usize, usize),
    Reshape(usize),
    T,
}

fn extreme_isize() -> impl Strategy<Value = isize> {
    prop_oneof![
        2 => -6isize..7,
        1 => prop::sample::select(vec![isize::MIN, isize::MIN + 1, isize::MAX - 1, isize::MAX, -(1 << 32), 1 << 32]),
    ]
}

fn extreme_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 0usize..5,
        1 => prop::sample::select(vec![usize::MAX, isize::MAX as usize, 1 << 62, 1 << 32, 1 << 31]),
    ]
}

fn nonzero_step() -> impl Strategy<Value = isize> {
    extreme_isize().prop_map(|s| if s == 0 { 1 } else { s })
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        4 => (prop::option::of(extreme_isize()), prop::option::of(extreme_isize()), nonzero_step())
            .prop_map(|(a, b, s)| Item::Range(a, b, s)),
        2 => extreme_isize().prop_map(Item::Index),
        1 => Just(Item::NewAxis),
        1 => Just(Item::Ellipsis),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::collection::vec(item(), 0..4).prop_map(Op::Slice),
        2 => (0usize..8, nonzero_step()).prop_map(|(a, s)| Op::StepBy(a, s)),
        2 => (0usize..8, extreme_isize(), extreme_usize()).prop_map(|(a, s, l)| Op::Narrow(a, s, l)),
        1 => (0usize..8).prop_map(Op::Flip),
        1 => any::<usize>().prop_map(Op::Permute),
        2 => prop::collection::vec(extreme_usize(), 0..3).prop_map(Op::BroadcastLead),
        2 => (0usize..8, extreme_usize()).prop_map(|(a, n)| Op::BroadcastStretch(a, n)),
        1 => extreme_isize().prop_map(Op::Unsqueeze),
        1 => Just(Op::Squeeze),
        1 => (extreme_isize(), 0usize..8, 0usize..8).prop_map(|(k, a, b)| Op::Diagonal(k, a, b)),
        1 => any::<usize>().prop_map(Op::Reshape),
        1 => Just(Op::T),
    ]
}

/// Python's `slice(start, stop, step).indices(n)` and `len(range(...))` as CPython
/// writes them (Objects/sliceobject.c), in `i128`: (first index, step, length).
fn python_slice(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    n: usize,
) -> (i128, i128, usize) {
    let (n, step) = (n as i128, step as i128);
    let (lower, upper) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let fix = |v: Option<isize>, default: i128| match v {
        None => default,
        Some(v) if (v as i128) < 0 => (v as i128 + n).max(lower),
        Some(v) => (v as i128).min(upper),
    };
    let s = fix(start, if step < 0 { upper } else { lower });
    let e = fix(stop, if step < 0 { lower } else { upper });
    let len = if step < 0 {
        if e < s { (s - e - 1) / -step + 1 } else { 0 }
    } else if s < e {
        (e - s - 1) / step + 1
    } else {
        0
    };
    (s, step, len as usize)
}

/// NumPy's shape rules: at most 64 axes, nonzero lengths multiply within isize.
fn shape_ok(shape: &[usize]) -> bool {
    shape.len() <= MAX_NDIM
        && shape
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1u128, |p, &d| {
                Some(p * d as u128).filter(|&p| p <= isize::MAX as u128)
            })
            .is_some()
}

fn normalize(i: isize, n: usize) -> Option<usize> {
    let j = if i < 0 {
        i as i128 + n as i128
    } else {
        i as i128
    };
    (0..n as i128).contains(&j).then_some(j as usize)
}

/// The model of one operation on a view of shape `shape`: `None` if the operation is
/// invalid, else the output shape and the map from output to input indices.
fn model(op: &Op, shape: &[usize]) -> Option<(Vec<usize>, IndexMap)> {
    let nd = shape.len();
    let ax = |a: usize| if nd == 0 { None } else { Some(a % nd) };
    match op {
        Op::Slice(items) => {
            let ellipses = items.iter().filter(|i| matches!(i, Item::Ellipsis)).count();
            let consuming = items
                .iter()
                .filter(|i| matches!(i, Item::Range(..) | Item::Index(_)))
                .count();
            if ellipses > 1 || consuming > nd {
                return None;
            }
            // Expand: the ellipsis (or the end) stands for the unnamed axes.
            let mut expanded = Vec::new();
            for it in items {
                match it {
                    Item::Ellipsis => expanded.extend(std::iter::repeat_n(
                        Item::Range(None, None, 1),
                        nd - consuming,
                    )),
                    other => expanded.push(other.clone()),
                }
            }
            if ellipses == 0 {
                expanded.extend(std::iter::repeat_n(
                    Item::Range(None, None, 1),
                    nd - consuming,
                ));
            }
            // Per output axis: where it comes from.
            enum Src {
                Fixed(usize, usize),
                Range(usize, i128, i128),
                New,
            }
            let (mut out_shape, mut srcs, mut fixed) = (Vec::new(), Vec::new(), Vec::new());
            let mut a = 0;
            for it in expanded {
                match it {
                    Item::NewAxis => {
                        out_shape.push(1);
                        srcs.push(Src::New);
                    }
                    Item::Index(i) => {
                        fixed.push(Src::Fixed(a, normalize(i, shape[a])?));
                        a += 1;
                    }
                    Item::Range(s, e, st) => {
                        let (first, step, len) = python_slice(s, e, st, shape[a]);
                        out_shape.push(len);
                        srcs.push(Src::Range(a, first, step));
                        a += 1;
                    }
                    Item::Ellipsis => unreachable!(),
                }
            }
            if out_shape.len() > MAX_NDIM {
                return None;
            }
            let n_in = nd;
            let map: IndexMap = Box::new(move |idx: &[usize]| {
                let mut old = vec![0usize; n_in];
                for f in &fixed {
                    if let Src::Fixed(a, j) = f {
                        old[*a] = *j;
                    }
                }
                for (k, src) in srcs.iter().enumerate() {
                    if let Src::Range(a, first, step) = src {
                        old[*a] = (first + idx[k] as i128 * step) as usize;
                    }
                }
                old
            });
            Some((out_shape, map))
        }
        Op::StepBy(a, step) => {
            let a = ax(*a)?;
            model(
                &Op::Slice(slice_one_axis(nd, a, Item::Range(None, None, *step))),
                shape,
            )
        }
        Op::Narrow(a, start, len) => {
            let a = ax(*a)?;
            let n = shape[a];
            let s = if *start < 0 {
                *start as i128 + n as i128
            } else {
                *start as i128
            };
            if s < 0 || s > n as i128 || *len as i128 > n as i128 - s {
                return None;
            }
            let mut out = shape.to_vec();
            out[a] = *len;
            let s = s as usize;
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut old = idx.to_vec();
                    old[a] += s;
                    old
                }),
            ))
        }
        Op::Flip(a) => {
            let a = ax(*a)?;
            let n = shape[a];
            Some((
                shape.to_vec(),
                Box::new(move |idx: &[usize]| {
                    let mut old = idx.to_vec();
                    old[a] = n - 1 - idx[a];
                    old
                }),
            ))
        }
        Op::Permute(seed) => {
            let perm = permutation(nd, *seed);
            let out = perm.iter().map(|&p| shape[p]).collect();
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut old = vec![0; idx.len()];
                    for (k, &p) in perm.iter().enumerate() {
                        old[p] = idx[k];
                    }
                    old
                }),
            ))
        }
        Op::T => model(&Op::Permute(usize::MAX), shape),
        Op::BroadcastLead(lead) => {
            let out: Vec<usize> = lead.iter().chain(shape).copied().collect();
            if !shape_ok(&out) {
                return None;
            }
            let k = lead.len();
            Some((out, Box::new(move |idx: &[usize]| idx[k..].to_vec())))
        }
        Op::BroadcastStretch(a, n) => {
            let a = ax(*a)?;
            let mut out = shape.to_vec();
            if shape[a] != 1 && shape[a] != *n {
                return None;
            }
            out[a] = *n;
            if !shape_ok(&out) {
                return None;
            }
            let was_one = shape[a] == 1;
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut old = idx.to_vec();
                    if was_one {
                        old[a] = 0;
                    }
                    old
                }),
            ))
        }
        Op::Unsqueeze(a) => {
            let a = normalize(*a, nd + 1)?;
            if nd + 1 > MAX_NDIM {
                return None;
            }
            let mut out = shape.to_vec();
            out.insert(a, 1);
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut old = idx.to_vec();
                    old.remove(a);
                    old
                }),
            ))
        }
        Op::Squeeze => {
            let keep: Vec<bool> = shape.iter().map(|&d| d != 1).collect();
            let out = shape.iter().copied().filter(|&d| d != 1).collect();
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut it = idx.iter();
                    keep.iter()
                        .map(|&k| if k { *it.next().unwrap() } else { 0 })
                        .collect()
                }),
            ))
        }
        Op::Diagonal(k, a1, a2) => {
            if nd < 2 || ax(*a1)? == ax(*a2)? {
                return None;
            }
            let (a1, a2, k) = (ax(*a1)?, ax(*a2)?, *k as i128);
            let (n1, n2) = (shape[a1] as i128, shape[a2] as i128);
            let len = if k >= 0 {
                n1.min(n2 - k)
            } else {
                (n1 + k).min(n2)
            }
            .max(0) as usize;
            let rest: Vec<usize> = (0..nd).filter(|&a| a != a1 && a != a2).collect();
            let mut out: Vec<usize> = rest.iter().map(|&a| shape[a]).collect();
            out.push(len);
            Some((
                out,
                Box::new(move |idx: &[usize]| {
                    let mut old = vec![0; nd];
                    for (j, &a) in rest.iter().enumerate() {
                        old[a] = idx[j];
                    }
                    let d = idx[idx.len() - 1] as i128;
                    old[a1] = (d + (-k).max(0)) as usize;
                    old[a2] = (d + k.max(0)) as usize;
                    old
                }),
            ))
        }
        Op::Reshape(seed) => {
            let new = reshape_target(shape, *seed);
            let size = |s: &[usize]| s.iter().map(|&d| d as u128).product::<u128>();
            if !shape_ok(&new) || size(&new) != size(shape) {
                return None;
            }
            let (old_shape, new_shape) = (shape.to_vec(), new.clone());
            Some((
                new,
                Box::new(move |idx: &[usize]| {
                    let flat = idx
                        .iter()
                        .zip(&new_shape)
                        .fold(0u128, |f, (&i, &d)| f * d as u128 + i as u128);
                    let mut rest = flat;
                    let mut old = vec![0; old_shape.len()];
                    for a in (0..old_shape.len()).rev() {
                        old[a] = (rest % old_shape[a] as u128) as usize;
                        rest /= old_shape[a] as u128;
                    }
                    old
                }),
            ))
        }
    }
}

fn slice_one_axis(nd: usize, a: usize, it: Item) -> Vec<Item> {
    let mut items = vec![Item::Range(None, None, 1); nd];
    items[a] = it;
    items
}

/// A permutation of `0..nd` from a seed; `usize::MAX` gives the reversal (`t`).
fn permutation(nd: usize, seed: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..nd).collect();
    if seed == usize::MAX {
        p.reverse();
        return p;
    }
    let mut s = seed;
    for i in (1..nd).rev() {
        p.swap(i, s % (i + 1));
        s /= i + 1;
    }
    p
}

/// A target shape for reshape from a seed: a factorisation of the size, the shape with
/// ones added or removed, or a deliberately bad shape (wrong size, overflowing).
fn reshape_target(shape: &[usize], seed: usize) -> Vec<usize> {
    let size: u128 = shape.iter().map(|&d| d as u128).product();
    match seed % 5 {
        0 => vec![size.min(usize::MAX as u128) as usize],
        1 => {
            let mut v: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
            v.insert((seed / 5) % (v.len() + 1), 1);
            v
        }
        2 if size > 0 && size <= 1 << 20 => {
            let size = size as usize;
            let f = (2..=size)
                .find(|f| size.is_multiple_of(*f) && (seed / 5).is_multiple_of(2))
                .unwrap_or(1);
            vec![f, size / f]
        }
        3 => vec![0, usize::MAX],
        _ => vec![size.min(usize::MAX as u128) as usize + 1],
    }
}

/// Where the model says element `idx` of the current view comes from in the base.
fn base_index(maps: &[IndexMap], idx: &[usize]) -> Vec<usize> {
    maps.iter().rev().fold(idx.to_vec(), |i, m| m(&i))
}

/// Applies `op` to `v`. A reshape that needs a copy ends the chain (`Ok(None)` with
/// the copy checked by the caller through `copied`).
fn apply<'a>(
    op: &Op,
    v: &TensorView<'a, i64>,
    copied: &mut Option<Tensor<i64>>,
) -> Result<Option<TensorView<'a, i64>>, Error> {
    let nd = v.ndim();
    let ax = |a: usize| (a % nd.max(1)) as isize;
    let items = |its: &[Item]| -> Vec<SliceItem> {
        its.iter()
            .map(|it| match *it {
                Item::Range(start, stop, step) => SliceItem::Range { start, stop, step },
                Item::Index(i) => SliceItem::Index(i),
                Item::NewAxis => SliceItem::NewAxis,
                Item::Ellipsis => SliceItem::Ellipsis,
            })
            .collect()
    };
    let view = match op {
        Op::Slice(its) => v.try_slice(items(its))?,
        Op::StepBy(a, s) if nd > 0 => v.step_by(ax(*a), *s)?,
        Op::Narrow(a, s, l) if nd > 0 => v.narrow(ax(*a), *s, *l)?,
        Op::Flip(a) if nd > 0 => v.flip(ax(*a))?,
        Op::Permute(seed) => v.permute(
            &permutation(nd, *seed)
                .iter()
                .map(|&p| p as isize)
                .collect::<Vec<_>>(),
        )?,
        Op::T => v.t(),
        Op::BroadcastLead(lead) => v
            .clone()
            .broadcast_to(lead.iter().chain(v.shape()).copied().collect::<Vec<_>>())?,
        Op::BroadcastStretch(a, n) if nd > 0 => {
            let mut s = v.shape().to_vec();
            s[a % nd] = *n;
            v.clone().broadcast_to(s)?
        }
        Op::Unsqueeze(a) => v.unsqueeze(*a)?,
        Op::Squeeze => v.squeeze(),
        Op::Diagonal(k, a1, a2) => v.diagonal(*k, ax(*a1), ax(*a2))?,
        Op::Reshape(seed) => {
            let target = reshape_target(v.shape(), *seed);
            match v.reshape_view(target.clone()) {
                Ok(r) => r,
                Err(_) => {
                    *copied = Some(v.reshape(target)?.into_owned());
                    return Ok(None);
                }
            }
        }
        // Axis operations on a 0-d view: nothing to do.
        _ => return Ok(Some(v.clone())),
    };
    Ok(Some(view))
}

/// Checks a result against the model: layout inside its buffer, every element (or,
/// for huge views, a sample) equal to the base element the model names.
fn check(
    t: &TensorView<'_, i64>,
    shape: &[usize],
    maps: &[IndexMap],
    base: &[i64],
    base_shape: &[usize],
    seed: u64,
) {
    assert_eq!(t.shape(), shape);
    t.layout()
        .check_in_buffer(t.buffer().len(), "check")
        .unwrap();
    let expect = |idx: &[usize]| {
        let b = base_index(maps, idx);
        let flat = b.iter().zip(base_shape).fold(0usize, |f, (&i, &d)| {
            assert!(i < d, "model index {b:?} outside base shape {base_shape:?}");
            f * d + i
        });
        base[flat]
    };
    let size: u128 = shape.iter().map(|&d| d as u128).product();
    if size <= 256 {
        let mut want = Vec::new();
        for flat in 0..size as usize {
            want.push(expect(
                &ferrotensor::layout::unravel_index(flat, shape).unwrap(),
            ));
        }
        assert_eq!(t.to_vec(), want);
        assert_eq!(t.iter().copied().collect::<Vec<_>>(), want);
    } else {
        let mut s = seed | 1;
        for k in 0..64 {
            let idx: Vec<usize> = shape
                .iter()
                .map(|&d| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    match k {
                        0 => 0,
                        1 => d - 1,
                        _ => (s % d as u64) as usize,
                    }
                })
                .collect();
            assert_eq!(
                t.get(&idx[..]),
                Some(&expect(&idx)),
                "index {idx:?} of shape {shape:?}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    #[test]
    fn view_chains_are_errors_or_correct_views(
        base_shape in prop::collection::vec(0usize..5, 0..4),
        ops in prop::collection::vec(op(), 1..8),
        seed in any::<u64>(),
    ) {
        let n: usize = base_shape.iter().product();
        let base = Tensor::from_vec((0..n as i64).collect::<Vec<_>>(), base_shape.clone()).unwrap();
        let buf = base.to_vec();
        let mut v = base.view().into_dyn();
        let mut maps: Vec<IndexMap> = Vec::new();
        for op in &ops {
            let expected = if v.ndim() == 0 && matches!(op, Op::StepBy(..) | Op::Narrow(..) | Op::Flip(_) | Op::BroadcastStretch(..)) {
                Some((v.shape().to_vec(), Box::new(|i: &[usize]| i.to_vec()) as IndexMap))
            } else {
                model(op, v.shape())
            };
            // A valid reshape that must copy a huge (broadcast) view would allocate far
            // more than this machine has: skip it.
            if let Op::Reshape(seed) = op
                && expected.is_some()
                && v.size() > 1 << 16
                && v.reshape_view(reshape_target(v.shape(), *seed)).is_err()
            {
                continue;
            }
            let mut copied = None;
            let got = apply(op, &v, &mut copied);
            match (got, expected) {
                (Err(e), None) => {
                    // A clean error that names an operation.
                    let msg = e.to_string();
                    prop_assert!(msg.contains(": "), "{}", msg);
                    continue;
                }
                (Err(e), Some((shape, _))) => {
                    prop_assert!(false, "{:?} on shape {:?} failed: {}; the model expects shape {:?}", op, v.shape(), e, shape);
                }
                (Ok(_), None) => {
                    prop_assert!(false, "{:?} on shape {:?} succeeded; the model expects an error", op, v.shape());
                }
                (Ok(next), Some((shape, map))) => {
                    maps.push(map);
                    match next {
                        Some(next) => {
                            check(&next, &shape, &maps, &buf, &base_shape, seed);
                            v = next;
                        }
                        None => {
                            let c = copied.expect("a reshape copy");
                            check(&c.view(), &shape, &maps, &buf, &base_shape, seed);
                            break;
                        }
                    }
                }
            }
        }
    }
}
