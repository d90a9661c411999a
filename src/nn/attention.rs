//! `scaled_dot_product_attention`: `softmax(Q·Kᵀ·scale + mask) · V`, batched over the
//! leading axes, without dropout (inference).
//!
//! Fused per block of query rows: one parallel task takes a block of rows of one batch
//! matrix, computes its scores `Q_blk·Kᵀ` with the crate's GEMM (single-threaded inside
//! the task), applies scale, mask and causal cut in one pass, runs the fused softmax row
//! kernel of [`super::softmax`] while the block sits in cache, and multiplies by `V`.
//! The full `L × S` score matrix is never materialised.

use super::softmax::{RowFloat, softmax_rows};
use super::util::{cast_slice, cast_vec, contiguous, from_f32, owned_dim, par_tasks, to_f32};
use crate::element::{Element, Float};
use crate::error::{Error, Result, fmt_shape};
use crate::iter::SendPtr;
use crate::layout::{Dimension, IxDyn};
use crate::linalg::gemm_kernels::{MatMut, MatRef, gemm};
use crate::storage::Storage;
use crate::tensor::{TensorBase, TensorView};
use std::borrow::Cow;

/// An attention mask for [`scaled_dot_product_attention`], broadcastable to the score
/// shape `(…, L, S)`.
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::AttnMask;
/// let keep = Tensor::from_vec(vec![true, false], [1, 2])?;
/// let m: AttnMask<'_, f32> = AttnMask::boolean(&keep);
/// assert!(matches!(m, AttnMask::Bool(_)));
/// # Ok::<(), ferrotensor::Error>(())
/// ```
#[derive(Clone)]
pub enum AttnMask<'a, T: Element> {
    /// `true` where a query may attend to a key; `false` scores become `−∞`.
    Bool(TensorView<'a, bool, IxDyn>),
    /// Added to the scores (after scaling); `−∞` masks a key out.
    Additive(TensorView<'a, T, IxDyn>),
}

impl<'a, T: Element> AttnMask<'a, T> {
    /// A boolean mask from any tensor or view of `bool`.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let keep = Tensor::from_vec(vec![true, true], [2])?;
    /// let _m = ferrotensor::nn::AttnMask::<f64>::boolean(&keep);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn boolean<S: Storage<Elem = bool>, D: Dimension>(m: &'a TensorBase<S, D>) -> Self {
        AttnMask::Bool(m.view().into_dyn())
    }

    /// An additive mask from any tensor or view of the score type.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let add = Tensor::from_vec(vec![0.0f32, f32::NEG_INFINITY], [2])?;
    /// let _m = ferrotensor::nn::AttnMask::additive(&add);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn additive<S: Storage<Elem = T>, D: Dimension>(m: &'a TensorBase<S, D>) -> Self {
        AttnMask::Additive(m.view().into_dyn())
    }

    fn shape(&self) -> &[usize] {
        match self {
            AttnMask::Bool(m) => m.shape(),
            AttnMask::Additive(m) => m.shape(),
        }
    }
}

/// Scaled dot-product attention (PyTorch's `scaled_dot_product_attention` with
/// `dropout_p = 0`): `softmax(Q·Kᵀ·scale + mask) · V` for `Q (…, L, E)`, `K (…, S, E)`,
/// `V (…, S, Ev)` with equal leading (batch) axes; the result is `(…, L, Ev)` of `Q`'s
/// rank type. `scale` defaults to `1/√E`. `is_causal` lets query `i` see keys `j ≤ i`
/// (PyTorch's top-left-aligned lower triangle, also for `L ≠ S`). A query row whose keys
/// are all masked out gives zeros, as PyTorch 2.5+ (its `_safe_softmax`); NaN inputs
/// give NaN. `Err` for fewer than 2 axes, mismatched shapes, a mask that does not
/// broadcast to `(…, L, S)`, or a mask together with `is_causal` (PyTorch refuses it).
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::nn::scaled_dot_product_attention as sdpa;
/// let q = Tensor::from_vec(vec![1.0f32, 0.0], [1, 2])?;
/// let k = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], [2, 2])?;
/// let v = Tensor::from_vec(vec![10.0f32, 20.0], [2, 1])?;
/// let y = sdpa(&q, &k, &v, None, false, Some(0.0))?; // scale 0: uniform weights
/// assert_eq!(y.to_vec(), vec![15.0]);
/// let y = sdpa(&q, &k, &v, None, true, None)?; // causal: query 0 sees key 0 only
/// assert_eq!(y.to_vec(), vec![10.0]);
/// # Ok::<(), ferrotensor::Error>(())
/// ```
pub fn scaled_dot_product_attention<T, S1, D, S2, D2, S3, D3>(
    q: &TensorBase<S1, D>,
    k: &TensorBase<S2, D2>,
    v: &TensorBase<S3, D3>,
    attn_mask: Option<AttnMask<'_, T>>,
    is_causal: bool,
    scale: Option<f64>,
) -> Result<crate::tensor::Tensor<T, D>>
where
    T: Float,
    S1: Storage<Elem = T>,
    S2: Storage<Elem = T>,
    S3: Storage<Elem = T>,
    D: Dimension,
    D2: Dimension,
    D3: Dimension,
{
    const OP: &str = "scaled_dot_product_attention";
    let (qs, ks, vs) = (q.shape(), k.shape(), v.shape());
    let ctx = || {
        format!(
            "query {}, key {}, value {}",
            fmt_shape(qs),
            fmt_shape(ks),
            fmt_shape(vs)
        )
    };
    let r = qs.len();
    if r < 2 || ks.len() != r || vs.len() != r {
        return Err(Error::shape(
            OP,
            format!("query, key and value must have the same rank ≥ 2 ({})", ctx()),
        ));
    }
    let (l, e, s, ev) = (qs[r - 2], qs[r - 1], ks[r - 2], vs[r - 1]);
    if qs[..r - 2] != ks[..r - 2] || qs[..r - 2] != vs[..r - 2] || ks[r - 1] != e || vs[r - 2] != s {
        return Err(Error::shape(
            OP,
            format!(
                "expected query (..., L, E), key (..., S, E), value (..., S, Ev) with equal batch axes ({})",
                ctx()
            ),
        ));
    }
    let batch: usize = qs[..r - 2].iter().product();
    let mut out_shape = qs.to_vec();
    out_shape[r - 1] = ev;
    let mask = match &attn_mask {
        None => None,
        Some(_) if is_causal => {
            return Err(Error::value(
                OP,
                format!("attn_mask and is_causal cannot both be set ({})", ctx()),
            ));
        }
        Some(m) => Some(dense_mask(OP, m, &qs[..r - 2], l, s, &ctx)?),
    };
    let scale = scale.unwrap_or(1.0 / (e as f64).sqrt());
    let job = Job {
        batch,
        l,
        s,
        e,
        ev,
        scale,
        causal: is_causal,
    };
    let (qd, kd, vd) = (contiguous(q), contiguous(k), contiguous(v));
    let out: Vec<T> = if let (Some(q), Some(k), Some(v)) = (
        cast_slice::<T, f64>(&qd),
        cast_slice::<T, f64>(&kd),
        cast_slice::<T, f64>(&vd),
    ) {
        cast_vec(job.run(q, k, v, mask.as_ref())).unwrap_or_else(|_| unreachable!("T is f64"))
    } else {
        let m32 = mask.as_ref().map(DenseMask::to_f32);
        fn f32_of<T: Float>(d: &[T]) -> Cow<'_, [f32]> {
            cast_slice::<T, f32>(d).map_or_else(|| Cow::Owned(to_f32(d)), Cow::Borrowed)
        }
        let (q, k, v) = (f32_of(&qd), f32_of(&kd), f32_of(&vd));
        let r = job.run(&q, &k, &v, m32.as_ref());
        cast_vec(r).unwrap_or_else(|r| from_f32(&r))
    };
    Ok(owned_dim(out, &out_shape))
}

/// The mask as additive `f64` scores of shape `(B, L, S)` or, when it has no batch
/// extent, one shared `(L, S)` matrix.
struct DenseMask<E> {
    add: Vec<E>,
    /// Elements between consecutive batch matrices (0 when shared).
    batch_stride: usize,
}

impl DenseMask<f64> {
    fn to_f32(&self) -> DenseMask<f32> {
        DenseMask {
            add: self.add.iter().map(|&x| x as f32).collect(),
            batch_stride: self.batch_stride,
        }
    }
}

fn dense_mask<T: Float>(
    op: &'static str,
    m: &AttnMask<'_, T>,
    batch: &[usize],
    l: usize,
    s: usize,
    ctx: &impl Fn() -> String,
) -> Result<DenseMask<f64>> {
    let ms = m.shape();
    let shared = ms.len() <= 2 || ms[..ms.len() - 2].iter().all(|&d| d == 1);
    let mut target: Vec<usize> = if shared { vec![] } else { batch.to_vec() };
    target.extend([l, s]);
    let bad = || {
        Error::shape(
            op,
            format!(
                "attn_mask of shape {} does not broadcast to the scores ({})",
                fmt_shape(ms),
                ctx()
            ),
        )
    };
    if ms.len() > batch.len() + 2 {
        return Err(bad());
    }
    if shared {
        // Leading 1s stay: broadcast to (1, …, 1, L, S).
        target = vec![1; ms.len().saturating_sub(2)];
        target.extend([l, s]);
    }
    let add: Vec<f64> = match m {
        AttnMask::Bool(b) => {
            let v = b.broadcast_to(target).map_err(|_| bad())?;
            v.iter().map(|&k| if k { 0.0 } else { f64::NEG_INFINITY }).collect()
        }
        AttnMask::Additive(a) => {
            let v = a.broadcast_to(target).map_err(|_| bad())?;
            v.iter().map(|&x| x.to_f64()).collect()
        }
    };
    Ok(DenseMask {
        add,
        batch_stride: if shared { 0 } else { l * s },
    })
}

struct Job {
    batch: usize,
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    scale: f64,
    causal: bool,
}

/// Score bytes per task block (the scores and probabilities stay in L2).
const BLOCK_BYTES: usize = 1 << 17;

impl Job {
    fn run<E: RowFloat>(&self, q: &[E], k: &[E], v: &[E], mask: Option<&DenseMask<E>>) -> Vec<E> {
        let (l, s, e, ev) = (self.l, self.s, self.e, self.ev);
        let mut out = vec![E::zero(); self.batch * l * ev];
        if out.is_empty() || s == 0 {
            return out;
        }
        let rows = (BLOCK_BYTES / (s * size_of::<E>())).clamp(8, l.max(8));
        let blocks = l.div_ceil(rows);
        let optr = SendPtr(out.as_mut_ptr());
        let scale = E::from_f64(self.scale);
        par_tasks(
            self.batch * blocks,
            || (vec![E::zero(); rows * s], vec![E::zero(); rows * s], vec![false; rows]),
            |(sc, p, dead), t| {
                let (b, blk) = (t / blocks, t % blocks);
                let (r0, r1) = (blk * rows, ((blk + 1) * rows).min(l));
                let m = r1 - r0;
                let (sc, p) = (&mut sc[..m * s], &mut p[..m * s]);
                let qb = &q[(b * l + r0) * e..(b * l + r1) * e];
                let kb = &k[b * s * e..(b + 1) * s * e];
                let vb = &v[b * s * ev..(b + 1) * s * ev];
                // SAFETY: qb is m × e row-major, kb is s × e row-major read as its
                // transpose (e × s: element (p, j) at j·e + p), sc is m × s; all in
                // bounds and sc does not alias them.
                unsafe {
                    gemm(
                        m,
                        s,
                        e,
                        MatRef {
                            ptr: qb.as_ptr(),
                            rs: e as isize,
                            cs: 1,
                        },
                        MatRef {
                            ptr: kb.as_ptr(),
                            rs: 1,
                            cs: e as isize,
                        },
                        MatMut {
                            ptr: sc.as_mut_ptr(),
                            rs: s as isize,
                            cs: 1,
                        },
                        1,
                    )
                };
                let mrows = mask.map(|mk| &mk.add[b * mk.batch_stride + r0 * s..b * mk.batch_stride + r1 * s]);
                for (i, row) in sc.chunks_exact_mut(s).enumerate() {
                    let qi = r0 + i;
                    match mrows {
                        Some(mr) => {
                            for (x, &a) in row.iter_mut().zip(&mr[i * s..(i + 1) * s]) {
                                *x = *x * scale + a;
                            }
                        }
                        None => row.iter_mut().for_each(|x| *x = *x * scale),
                    }
                    if self.causal && qi + 1 < s {
                        row[qi + 1..].fill(E::neg_infinity());
                    }
                    dead[i] = mrows.is_some() && row.iter().all(|&x| x == E::neg_infinity());
                }
                softmax_rows(sc, p, s);
                // Rows with every key masked: zeros, as PyTorch's `_safe_softmax`.
                // (A causal row always keeps key 0.)
                for (row, _) in p.chunks_exact_mut(s).zip(dead.iter()).filter(|(_, d)| **d) {
                    row.fill(E::zero());
                }
                // SAFETY: rows r0..r1 of batch matrix b of `out` (m × ev), written only
                // by this task; p is m × s and vb is s × ev, row-major, in bounds.
                unsafe {
                    gemm(
                        m,
                        ev,
                        s,
                        MatRef {
                            ptr: p.as_ptr(),
                            rs: s as isize,
                            cs: 1,
                        },
                        MatRef {
                            ptr: vb.as_ptr(),
                            rs: ev as isize,
                            cs: 1,
                        },
                        MatMut {
                            ptr: optr.get().add((b * l + r0) * ev),
                            rs: ev as isize,
                            cs: 1,
                        },
                        1,
                    )
                };
            },
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::AttnMask;
    use crate::prelude::*;

    /// softmax(q·kᵀ·scale + mask)·v by the definition for one batch matrix.
    fn naive(q: &[f64], k: &[f64], v: &[f64], (l, s, e, ev): (usize, usize, usize, usize), causal: bool) -> Vec<f64> {
        let scale = 1.0 / (e as f64).sqrt();
        let mut out = vec![0.0; l * ev];
        for i in 0..l {
            let sc: Vec<f64> = (0..s)
                .map(|j| {
                    if causal && j > i {
                        f64::NEG_INFINITY
                    } else {
                        (0..e).map(|p| q[i * e + p] * k[j * e + p]).sum::<f64>() * scale
                    }
                })
                .collect();
            let m = sc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let ex: Vec<f64> = sc.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = ex.iter().sum();
            for (j, w) in ex.iter().enumerate() {
                for d in 0..ev {
                    out[i * ev + d] += w / z * v[j * ev + d];
                }
            }
        }
        out
    }

    /// Two batch matrices, causal or not, with enough keys for two row blocks per
    /// matrix (the second one partial), and an all-masked row giving zeros (minutes
    /// under Miri: [`attention_matches_the_definition_small`] runs there).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn attention_matches_the_definition_over_blocks() {
        check(17, 1100);
    }

    /// The same on one small block per matrix, for Miri (the portable GEMM and softmax
    /// rows, the task split and the output writes).
    #[test]
    fn attention_matches_the_definition_small() {
        check(5, 7);
    }

    fn check(l: usize, s: usize) {
        let (bt, e, ev) = (2, 2, 2);
        let val = |n: usize, a: usize| -> Vec<f64> { (0..n).map(|i| ((i * a % 19) as f64 - 9.0) / 10.0).collect() };
        let (q, k, v) = (val(bt * l * e, 7), val(bt * s * e, 5), val(bt * s * ev, 3));
        let (qt, kt, vt) = (
            Tensor::from_vec(q.clone(), [bt, l, e]).unwrap(),
            Tensor::from_vec(k.clone(), [bt, s, e]).unwrap(),
            Tensor::from_vec(v.clone(), [bt, s, ev]).unwrap(),
        );
        for causal in [false, true] {
            let y = crate::nn::scaled_dot_product_attention(&qt, &kt, &vt, None, causal, None).unwrap();
            let got = y.to_vec();
            for b in 0..bt {
                let want = naive(
                    &q[b * l * e..],
                    &k[b * s * e..],
                    &v[b * s * ev..],
                    (l, s, e, ev),
                    causal,
                );
                for (g, w) in got[b * l * ev..(b + 1) * l * ev].iter().zip(&want) {
                    assert!((g - w).abs() < 1e-12, "causal {causal}: {g} vs {w}");
                }
            }
        }
        // A boolean mask that hides every key of query row 0: that row is zeros.
        let keep = Tensor::from_shape_fn([l, s], |i| i[0] != 0);
        let y = crate::nn::scaled_dot_product_attention(&qt, &kt, &vt, Some(AttnMask::boolean(&keep)), false, None)
            .unwrap()
            .to_vec();
        assert!(y[..ev].iter().all(|&x| x == 0.0) && y[ev..2 * ev].iter().any(|&x| x != 0.0));
    }
}
