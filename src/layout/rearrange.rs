//! einops-style `rearrange` as a layout transform.
//!
//! A pattern `"lhs -> rhs"` names the input axes on the left and the output axes on the
//! right. Axes are identifiers (`b`, `h2`, `batch_size`); parentheses group several
//! axes into one (`(h w)`: on the left an input axis is split, on the right output axes
//! are merged, first name outermost as in row-major order); `1` or `()` is an axis of
//! length 1; `...` stands for any number of axes (top level on the left, anywhere on
//! the right). The same names must appear on both sides, each once per side.
//!
//! The transform is: split every input axis into its named parts (always a view),
//! permute them into the right side's order (a view), then merge the groups of the
//! right side with NumPy's no-copy reshape rule: a view when the layout allows,
//! otherwise the caller copies.
//!
//! ```
//! use ferrotensor::layout::{Layout, Order, rearrange::rearrange_layout};
//! let l = Layout::new_order(ferrotensor::IxDyn::from(&[2usize, 3, 4][..]), Order::RowMajor).unwrap();
//! let r = rearrange_layout(&l, "b h w -> b w h", &[]).unwrap();
//! assert_eq!(r.view.unwrap().strides(), &[12, 1, 4]);
//! let r = rearrange_layout(&l, "b h w -> b (w h)", &[]).unwrap();
//! assert!(r.view.is_none());                    // merging transposed axes needs a copy
//! assert_eq!(r.out_shape, vec![2, 12]);
//! ```

use super::dim::StrideVec;
use super::{Dimension, IxDyn, Layout, Order};
use crate::error::{Error, Result, fmt_shape};

/// The result of planning a rearrangement.
///
/// ```
/// use ferrotensor::layout::{Layout, rearrange::rearrange_layout};
/// let l = Layout::new([6usize], [1isize], 0);
/// let r = rearrange_layout(&l, "(a b) -> b a", &[("a", 2)]).unwrap();
/// assert_eq!(r.permuted.shape(), &[3, 2]);
/// assert_eq!(r.out_shape, vec![3, 2]);
/// assert!(r.view.is_some());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rearranged {
    /// The input's layout split into its named axes and permuted into the right side's
    /// order (always a view of the input).
    pub permuted: Layout<IxDyn>,
    /// The output shape (one length per right-side group).
    pub out_shape: Vec<usize>,
    /// The output layout over the input's memory, or `None` when the right side's
    /// merges need a copy (read `permuted` in row-major order into `out_shape`).
    pub view: Option<Layout<IxDyn>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Atom {
    Name(String),
    One,
    Ellipsis,
}

/// One group of a pattern side: a top-level atom, or a parenthesised list.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    paren: bool,
    atoms: Vec<Atom>,
}

/// One side of a pattern: a list of groups.
type Side = Vec<Group>;

fn err(pattern: &str, msg: impl std::fmt::Display) -> Error {
    Error::value("rearrange", format!("pattern '{pattern}': {msg}"))
}

fn parse_side(pattern: &str, text: &str, left: bool) -> Result<Side> {
    let mut groups: Side = Vec::new();
    let mut open: Option<Vec<Atom>> = None;
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' {
            if open.is_some() {
                return Err(err(pattern, "nested parentheses are not allowed"));
            }
            open = Some(Vec::new());
            chars.next();
        } else if c == ')' {
            let atoms = open.take().ok_or_else(|| err(pattern, "unbalanced ')'"))?;
            groups.push(Group { paren: true, atoms });
            chars.next();
        } else {
            let mut end = i;
            while let Some(&(j, d)) = chars.peek() {
                if d.is_whitespace() || d == '(' || d == ')' {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            let tok = &text[i..end];
            let atom = if tok == "..." {
                if left && open.is_some() {
                    return Err(err(
                        pattern,
                        "'...' inside parentheses is only allowed on the right side",
                    ));
                }
                Atom::Ellipsis
            } else if tok == "1" {
                Atom::One
            } else if tok.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && tok.chars().all(|c| c.is_alphanumeric() || c == '_')
            {
                Atom::Name(tok.to_string())
            } else if tok.chars().all(|c| c.is_ascii_digit()) {
                return Err(err(
                    pattern,
                    format!("anonymous axis of length {tok} is not allowed (only 1)"),
                ));
            } else {
                return Err(err(pattern, format!("invalid axis name '{tok}'")));
            };
            match open.as_mut() {
                Some(g) => g.push(atom),
                None => groups.push(Group {
                    paren: false,
                    atoms: vec![atom],
                }),
            }
        }
    }
    if open.is_some() {
        return Err(err(pattern, "unbalanced '('"));
    }
    let ell = groups
        .iter()
        .flat_map(|g| &g.atoms)
        .filter(|a| **a == Atom::Ellipsis)
        .count();
    if ell > 1 {
        return Err(err(pattern, "'...' may appear only once per side"));
    }
    let mut seen = std::collections::HashSet::new();
    for a in groups.iter().flat_map(|g| &g.atoms) {
        if let Atom::Name(n) = a
            && !seen.insert(n.as_str())
        {
            return Err(err(pattern, format!("duplicate axis '{n}'")));
        }
    }
    Ok(groups)
}

/// Replaces `...` by `count` generated names (`…0`, `…1`, …).
fn expand_ellipsis(side: Side, count: usize) -> Side {
    let names = || (0..count).map(|k| Atom::Name(format!("\u{2026}{k}")));
    let mut out = Side::new();
    for g in side {
        if !g.paren && g.atoms == [Atom::Ellipsis] {
            out.extend(names().map(|a| Group {
                paren: false,
                atoms: vec![a],
            }));
        } else {
            let atoms = g
                .atoms
                .into_iter()
                .flat_map(|a| {
                    if a == Atom::Ellipsis {
                        names().collect()
                    } else {
                        vec![a]
                    }
                })
                .collect();
            out.push(Group { paren: g.paren, atoms });
        }
    }
    out
}

fn group_text(g: &[Atom]) -> String {
    let parts: Vec<String> = g
        .iter()
        .map(|a| match a {
            Atom::Name(n) if n.starts_with('\u{2026}') => "...".to_string(),
            Atom::Name(n) => n.clone(),
            Atom::One => "1".to_string(),
            Atom::Ellipsis => "...".to_string(),
        })
        .collect();
    format!("({})", parts.join(" "))
}

/// Plans `pattern` on `layout`: splits, permutes and (when possible) merges axes as
/// views. `sizes` gives lengths of axes that cannot be inferred (two unknown names in
/// one group) or that should be checked. `Err`, naming the pattern, for syntax errors,
/// unknown, duplicate or one-sided axes, a left side whose rank differs from the
/// layout's, sizes that don't divide or don't match, and sizes for names the pattern
/// doesn't use.
///
/// ```
/// use ferrotensor::layout::{Layout, rearrange::rearrange_layout};
/// let l = Layout::new([2usize, 12], [12isize, 1], 0);
/// let r = rearrange_layout(&l, "b (h w) -> b h w", &[("h", 3)]).unwrap();
/// assert_eq!(r.view.unwrap().shape(), &[2, 3, 4]);
/// assert!(rearrange_layout(&l, "b (h w) -> b h w", &[("h", 5)]).is_err());
/// assert!(rearrange_layout(&l, "b x -> b y", &[]).is_err());
/// ```
pub fn rearrange_layout<D: Dimension>(
    layout: &Layout<D>,
    pattern: &str,
    sizes: &[(&str, usize)],
) -> Result<Rearranged> {
    let (lt, rt) = pattern
        .split_once("->")
        .ok_or_else(|| err(pattern, "expected 'left -> right'"))?;
    if rt.contains("->") {
        return Err(err(pattern, "'->' may appear only once"));
    }
    let (left, right) = (parse_side(pattern, lt, true)?, parse_side(pattern, rt, false)?);
    let has_ell = |s: &Side| s.iter().flat_map(|g| &g.atoms).any(|a| *a == Atom::Ellipsis);
    let nd = layout.ndim();
    let (left, right) = match (has_ell(&left), has_ell(&right)) {
        (true, true) => {
            let fixed = left.len() - 1;
            if nd < fixed {
                return Err(err(
                    pattern,
                    format!(
                        "the left side needs at least {fixed} axes, tensor has shape {}",
                        fmt_shape(layout.shape())
                    ),
                ));
            }
            (expand_ellipsis(left, nd - fixed), expand_ellipsis(right, nd - fixed))
        }
        (false, false) => (left, right),
        (true, false) => return Err(err(pattern, "'...' on the left side but not on the right")),
        (false, true) => return Err(err(pattern, "'...' on the right side but not on the left")),
    };
    if left.len() != nd {
        return Err(err(
            pattern,
            format!(
                "the left side has {} axes but the tensor has shape {}",
                left.len(),
                fmt_shape(layout.shape())
            ),
        ));
    }
    let names = |s: &Side| -> Vec<String> {
        s.iter()
            .flat_map(|g| &g.atoms)
            .filter_map(|a| match a {
                Atom::Name(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    };
    let (ln, rn) = (names(&left), names(&right));
    if let Some(n) = rn.iter().find(|n| !ln.contains(n)) {
        return Err(err(
            pattern,
            format!("unknown axis '{n}' on the right side (not on the left)"),
        ));
    }
    if let Some(n) = ln.iter().find(|n| !rn.contains(n)) {
        return Err(err(
            pattern,
            format!("axis '{n}' appears on the left side but not on the right"),
        ));
    }
    let mut given: Vec<(&str, usize)> = Vec::new();
    for &(n, v) in sizes {
        if !ln.iter().any(|m| m == n) {
            return Err(err(
                pattern,
                format!("size given for axis '{n}', which the pattern doesn't use"),
            ));
        }
        if given.iter().any(|&(m, _)| m == n) {
            return Err(err(pattern, format!("size of axis '{n}' given twice")));
        }
        given.push((n, v));
    }
    let lookup = |n: &str| given.iter().find(|&&(m, _)| m == n).map(|&(_, v)| v);

    // Split every input axis into its named parts: lengths and strides.
    let mut elem_len: Vec<usize> = Vec::with_capacity(ln.len());
    let mut elem_stride: Vec<isize> = Vec::with_capacity(ln.len());
    for (ax, g) in left.iter().enumerate() {
        let dim = layout.shape()[ax];
        let g = &g.atoms;
        let mut lens: Vec<Option<usize>> = g
            .iter()
            .map(|a| match a {
                Atom::Name(n) => lookup(n),
                _ => Some(1),
            })
            .collect();
        let known = lens.iter().flatten().try_fold(1usize, |a, &v| a.checked_mul(v));
        let unknown: Vec<usize> = (0..g.len()).filter(|&k| lens[k].is_none()).collect();
        let bad = |what: &str| {
            err(
                pattern,
                format!(
                    "{what}: group {} against axis {ax} of length {dim} (shape {})",
                    group_text(g),
                    fmt_shape(layout.shape())
                ),
            )
        };
        match (unknown.len(), known) {
            (_, None) => return Err(bad("sizes overflow")),
            (0, Some(k)) if k != dim => return Err(bad(&format!("sizes multiply to {k}"))),
            (0, Some(_)) => {}
            (1, Some(k)) if k == 0 || !dim.is_multiple_of(k) => {
                return Err(bad(&format!("known sizes ({k}) don't divide the length")));
            }
            (1, Some(k)) => lens[unknown[0]] = Some(dim / k),
            _ => {
                return Err(bad(
                    "cannot infer the sizes of more than one unknown axis; give them with sizes",
                ));
            }
        }
        let mut acc = layout.strides()[ax];
        let mut part: Vec<(usize, isize)> = Vec::new();
        for (a, l) in g.iter().zip(&lens).rev() {
            let l = l.expect("inferred above");
            if matches!(a, Atom::Name(_)) {
                part.push((l, acc));
            }
            acc = acc.wrapping_mul(l as isize);
        }
        for (l, s) in part.into_iter().rev() {
            elem_len.push(l);
            elem_stride.push(s);
        }
    }
    // Permute the parts into the right side's order.
    let perm: Vec<usize> = rn
        .iter()
        .map(|n| ln.iter().position(|m| m == n).expect("checked"))
        .collect();
    let p_shape: Vec<usize> = perm.iter().map(|&k| elem_len[k]).collect();
    let p_strides: StrideVec = perm.iter().map(|&k| elem_stride[k]).collect();
    let permuted = Layout::new(IxDyn::from(&p_shape[..]), p_strides, layout.offset);
    // Merge the right side's groups.
    let out_shape: Vec<usize> = right
        .iter()
        .map(|g| {
            g.atoms
                .iter()
                .map(|a| match a {
                    Atom::Name(n) => elem_len[ln.iter().position(|m| m == n).expect("checked")],
                    _ => 1,
                })
                .product()
        })
        .collect();
    let view = super::reshape::reshape_layout(&permuted, IxDyn::from(&out_shape[..]), Order::RowMajor, "rearrange")?;
    Ok(Rearranged {
        permuted,
        out_shape,
        view,
    })
}
