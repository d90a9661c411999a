//! NumPy `einsum`: subscript parsing, diagonals and broadcasting as views, and pairwise
//! contractions (greedy by result size) as batched matrix products.

use super::contract::{contract, diagonal, into_cow, permuted, relayout_cow, sum_axes};
use super::matmul::dyn_view;
use crate::element::Num;
use crate::error::{Error, Result, fmt_shape};
use crate::layout::dim::{DimVec, StrideVec};
use crate::layout::{IxDyn, Layout};
use crate::manip::AsDynView;
use crate::storage::CowRepr;
use crate::tensor::{Tensor, TensorBase, TensorCow, TensorView};
use std::collections::HashMap;

/// Label ids: `A`–`Z` are 0–25, `a`–`z` 26–51 (so id order is ASCII order); the axes an
/// ellipsis stands for are `ELLIPSIS + i`, right-aligned across operands.
const ELLIPSIS: u32 = 1000;

fn err(msg: impl Into<String>) -> Error {
    Error::value("einsum", msg)
}

/// One subscript term: its letter ids and where its ellipsis stands, if any.
fn parse_term(s: &str) -> Result<(Vec<u32>, Option<usize>)> {
    let mut labels = Vec::new();
    let mut ell = None;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("...") {
            if ell.replace(labels.len()).is_some() {
                return Err(err(format!("subscripts '{s}' contain more than one ellipsis")));
            }
            rest = r;
            continue;
        }
        match c {
            'A'..='Z' => labels.push(c as u32 - 'A' as u32),
            'a'..='z' => labels.push(26 + c as u32 - 'a' as u32),
            ' ' => {}
            _ => return Err(err(format!("invalid subscript '{c}' in '{s}'"))),
        }
        rest = &rest[c.len_utf8()..];
    }
    Ok((labels, ell))
}

/// Evaluates the Einstein summation `subscripts` over `operands`, with NumPy's grammar:
/// comma-separated input terms of letters (`a`–`z`, `A`–`Z`, distinct), an optional
/// `...` per term for broadcast axes, and an optional `->output`. Without `->` the output
/// is the ellipsis axes followed by the letters that appear once, in alphabetical
/// (ASCII) order. A letter repeated within a term takes the diagonal; letters missing
/// from the output are summed; length-1 axes broadcast.
///
/// The operands are a slice of references to tensors of any ownership kind and rank
/// (`&[&a, &b.t(), &v]`, see [`AsDynView`]); the result's rank depends on the
/// subscripts, so it is `IxDyn`. Diagonals, transposes and broadcasts are views; each
/// contraction of two operands is one batched matrix product over permuted, reshaped
/// views (copied only when NumPy's reshape would copy), never an elementwise
/// `m × k × n` temporary. With three or more operands the pair with the smallest result
/// is contracted first (NumPy's greedy order).
///
/// `Err` for malformed subscripts, a term whose length differs from its operand's rank,
/// an output letter absent from the inputs or repeated, or lengths that don't match.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::linalg::einsum;
/// let a = Tensor::<f64, _>::arange(6).into_shape([2, 3]).unwrap();
/// let b = Tensor::<f64, _>::arange(12).into_shape([3, 4]).unwrap();
/// let c = einsum("ij,jk->ik", &[&a, &b]).unwrap();
/// assert_eq!(c.to_vec(), a.matmul(&b).unwrap().to_vec());
/// let v = Tensor::<f64, _>::ones([3]);
/// assert_eq!(einsum("ij,j->i", &[&a, &v.view()]).unwrap().to_vec(), vec![3.0, 12.0]);
/// let m = Tensor::<i32, _>::arange(9).into_shape([3, 3]).unwrap();
/// assert_eq!(einsum("ii", &[&m]).unwrap().to_scalar().unwrap(), 12);  // trace
/// assert_eq!(einsum("ii->i", &[&m]).unwrap().to_vec(), vec![0, 4, 8]); // diagonal
/// assert_eq!(einsum("ij->ji", &[&m]).unwrap()[&[0, 1][..]], 3);
/// assert!(einsum("ij,jk", &[&m]).is_err());
/// ```
pub fn einsum<T: Num>(subscripts: &str, operands: &[&dyn AsDynView<T>]) -> Result<Tensor<T, IxDyn>> {
    let operands: Vec<TensorView<'_, T, IxDyn>> = operands.iter().map(|o| o.as_dyn_view()).collect();
    let operands = &operands[..];
    let (lhs, rhs) = match subscripts.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (subscripts, None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(err(format!(
            "'{subscripts}' names {} operands but {} were given",
            terms.len(),
            operands.len()
        )));
    }
    // Expand each term's ellipsis into right-aligned ellipsis ids.
    let parsed: Vec<(Vec<u32>, Option<usize>)> = terms.iter().map(|t| parse_term(t)).collect::<Result<_>>()?;
    let mut n_ell = 0;
    for ((labels, ell), op) in parsed.iter().zip(operands) {
        let nd = op.ndim();
        if nd < labels.len() || (ell.is_none() && nd != labels.len()) {
            return Err(err(format!(
                "subscripts '{subscripts}': a term has {} letters for an operand of shape {}",
                labels.len(),
                fmt_shape(op.shape())
            )));
        }
        n_ell = n_ell.max(nd - labels.len());
    }
    let mut ids: Vec<Vec<u32>> = Vec::with_capacity(parsed.len());
    for ((labels, ell), op) in parsed.iter().zip(operands) {
        let mut v = labels.clone();
        if let Some(p) = ell {
            let e = op.ndim() - labels.len();
            let fill = (n_ell - e..n_ell).map(|i| ELLIPSIS + i as u32);
            v.splice(*p..*p, fill);
        }
        ids.push(v);
    }
    // Lengths per label (length-1 axes broadcast).
    let mut size: HashMap<u32, usize> = HashMap::new();
    for (v, op) in ids.iter().zip(operands) {
        for (&l, &d) in v.iter().zip(op.shape()) {
            let cur = size.entry(l).or_insert(d);
            if *cur == 1 {
                *cur = d;
            } else if d != 1 && d != *cur {
                return Err(Error::shape(
                    "einsum",
                    format!(
                        "'{subscripts}': operands could not be broadcast together: a subscript has lengths {} and {d}",
                        *cur
                    ),
                ));
            }
        }
    }
    let output = output_labels(rhs, &ids, n_ell, &size, subscripts)?;

    let mut work: Vec<(TensorCow<'_, T, IxDyn>, Vec<u32>)> = Vec::with_capacity(operands.len());
    for (v, op) in ids.into_iter().zip(operands) {
        let cow = TensorBase {
            storage: CowRepr::View(op.storage.0),
            layout: op.layout.clone().into_dyn(),
        };
        work.push(prepare(cow, v, &size, subscripts)?);
    }
    for i in 0..work.len() {
        sum_unique(&mut work, i, &output)?;
    }
    while work.len() > 1 {
        let (i, j) = greedy_pair(&work, &output, &size);
        let (b, lb) = work.remove(j);
        let (a, la) = work.remove(i);
        let kept = |l: &u32| output.contains(l) || work.iter().any(|(_, w)| w.contains(l));
        let pos = |v: &[u32], l: u32| v.iter().position(|&x| x == l).expect("label of the term");
        let (mut ba, mut bb, mut fa, mut fb, mut ca, mut cb, mut labels) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for (ia, &l) in la.iter().enumerate() {
            if lb.contains(&l) {
                if kept(&l) {
                    ba.push(ia);
                    bb.push(pos(&lb, l));
                    labels.push(l);
                } else {
                    ca.push(ia);
                    cb.push(pos(&lb, l));
                }
            } else {
                fa.push(ia);
            }
        }
        labels.extend(fa.iter().map(|&i| la[i]));
        fb.extend((0..lb.len()).filter(|&i| !la.contains(&lb[i])));
        labels.extend(fb.iter().map(|&i| lb[i]));
        let r = contract(&dyn_view(&a), &dyn_view(&b), &ba, &bb, &fa, &fb, &ca, &cb)?;
        work.push((into_cow(r), labels));
        let last = work.len() - 1;
        sum_unique(&mut work, last, &output)?;
    }
    let (t, labels) = work.pop().expect("at least one operand");
    let perm: Vec<usize> = output
        .iter()
        .map(|l| labels.iter().position(|x| x == l).expect("output label present"))
        .collect();
    Ok(permuted(&dyn_view(&t), &perm).to_owned())
}

/// The output labels: explicit, or NumPy's implicit rule.
fn output_labels(
    rhs: Option<&str>,
    ids: &[Vec<u32>],
    n_ell: usize,
    size: &HashMap<u32, usize>,
    subscripts: &str,
) -> Result<Vec<u32>> {
    let ell_ids = (0..n_ell).map(|i| ELLIPSIS + i as u32);
    let Some(rhs) = rhs else {
        let mut once: Vec<u32> = size
            .keys()
            .copied()
            .filter(|&l| l < ELLIPSIS && ids.iter().flatten().filter(|&&x| x == l).count() == 1)
            .collect();
        once.sort_unstable();
        return Ok(ell_ids.chain(once).collect());
    };
    let (mut labels, ell) = parse_term(rhs)?;
    match ell {
        Some(p) => {
            labels.splice(p..p, ell_ids);
        }
        None if n_ell > 0 => {
            return Err(err(format!(
                "'{subscripts}': output has more dimensions than subscripts given, but no '...' ellipsis to broadcast the extra dimensions"
            )));
        }
        None => {}
    }
    for (i, l) in labels.iter().enumerate() {
        if labels[..i].contains(l) {
            return Err(err(format!("'{subscripts}': output subscript repeated")));
        }
        if !size.contains_key(l) {
            return Err(err(format!(
                "'{subscripts}': output subscript does not appear in the inputs"
            )));
        }
    }
    Ok(labels)
}

/// Takes diagonals of repeated labels and broadcasts length-1 axes (views only).
fn prepare<'a, T: Num>(
    mut t: TensorCow<'a, T, IxDyn>,
    mut labels: Vec<u32>,
    size: &HashMap<u32, usize>,
    subscripts: &str,
) -> Result<(TensorCow<'a, T, IxDyn>, Vec<u32>)> {
    while let Some((x, y)) = (0..labels.len())
        .flat_map(|y| (0..y).map(move |x| (x, y)))
        .find(|&(x, y)| labels[x] == labels[y])
    {
        if t.shape()[x] != t.shape()[y] {
            return Err(Error::shape(
                "einsum",
                format!(
                    "'{subscripts}': repeated subscript needs equal lengths, got {} and {} in shape {}",
                    t.shape()[x],
                    t.shape()[y],
                    fmt_shape(t.shape())
                ),
            ));
        }
        let layout = diagonal(&dyn_view(&t), x, y).layout;
        t = relayout_cow(t, layout);
        labels.remove(y);
    }
    let mut shape: DimVec = t.shape().into();
    let mut strides: StrideVec = t.strides().into();
    for (i, l) in labels.iter().enumerate() {
        if shape[i] == 1 && size[l] != 1 {
            shape[i] = size[l];
            strides[i] = 0;
        }
    }
    let layout = Layout::new(IxDyn(shape), strides, t.layout.offset);
    Ok((relayout_cow(t, layout), labels))
}

/// Sums term `i` over labels that no other term and not the output name.
fn sum_unique<T: Num>(work: &mut [(TensorCow<'_, T, IxDyn>, Vec<u32>)], i: usize, output: &[u32]) -> Result<()> {
    let labels = &work[i].1;
    let axes: Vec<usize> = (0..labels.len())
        .filter(|&a| {
            let l = labels[a];
            !output.contains(&l) && !work.iter().enumerate().any(|(k, (_, w))| k != i && w.contains(&l))
        })
        .collect();
    if axes.is_empty() {
        return Ok(());
    }
    let r = sum_axes(&dyn_view(&work[i].0), &axes)?;
    let labels: Vec<u32> = (0..labels.len())
        .filter(|a| !axes.contains(a))
        .map(|a| labels[a])
        .collect();
    work[i] = (into_cow(r), labels);
    Ok(())
}

/// The pair whose contraction has the fewest elements (first such pair on ties).
fn greedy_pair<T: Num>(
    work: &[(TensorCow<'_, T, IxDyn>, Vec<u32>)],
    output: &[u32],
    size: &HashMap<u32, usize>,
) -> (usize, usize) {
    let mut best = (0, 1, u128::MAX);
    for i in 0..work.len() {
        for j in i + 1..work.len() {
            let (li, lj) = (&work[i].1, &work[j].1);
            let mut cost: u128 = 1;
            let mut seen: Vec<u32> = Vec::new();
            for &l in li.iter().chain(lj) {
                let kept = output.contains(&l)
                    || work
                        .iter()
                        .enumerate()
                        .any(|(k, (_, w))| k != i && k != j && w.contains(&l));
                if kept && !seen.contains(&l) {
                    seen.push(l);
                    cost = cost.saturating_mul(size[&l] as u128);
                }
            }
            if cost < best.2 {
                best = (i, j, cost);
            }
        }
    }
    (best.0, best.1)
}
