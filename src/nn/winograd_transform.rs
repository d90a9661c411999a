//! The transforms of the Winograd convolution F(2×2, 3×3) (Lavin & Gray): a 3×3 kernel
//! `g` becomes `U = G g Gᵀ` (4×4), a 4×4 input patch `d` becomes `V = Bᵀ d B`, and the
//! 2×2 output tile is `Y = Aᵀ (Σ_c U ⊙ V) A`, with
//!
//! ```text
//! Bᵀ = [1  0 -1  0]   G = [1    0    0 ]   Aᵀ = [1  1  1  0]
//!      [0  1  1  0]       [1/2  1/2  1/2]        [0  1 -1 -1]
//!      [0 -1  1  0]       [1/2 -1/2  1/2]
//!      [0  1  0 -1]       [0    0    1 ]
//! ```
//!
//! (16 products per 4 outputs where the direct convolution does 36; only additions in
//! `Bᵀ`/`Aᵀ`, and `G`'s halves are exact, so the rounding is close to the direct sum's).
//!
//! Tiles lie in vector lanes: the transforms handle consecutive tiles of one tile row
//! together, written once over [`Simd`] for every instruction set.

use super::im2col::Geom;
use super::simd::Simd;

/// Points of the transformed tile (4×4).
pub(crate) const XI: usize = 16;

/// `U = G g Gᵀ` for one 3×3 kernel (row-major), computed in `f64`.
pub(crate) fn weight_transform(g: &[f32; 9]) -> [f32; XI] {
    let gm = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];
    let mut t = [[0.0f64; 3]; 4]; // G g
    for (i, ti) in t.iter_mut().enumerate() {
        for (j, tij) in ti.iter_mut().enumerate() {
            *tij = (0..3).map(|k| gm[i][k] * f64::from(g[k * 3 + j])).sum();
        }
    }
    std::array::from_fn(|ij| {
        let (i, j) = (ij / 4, ij % 4);
        (0..3).map(|k| t[i][k] * gm[j][k]).sum::<f64>() as f32
    })
}

/// One run of tiles: tile row `ty` of image `n`, tile columns `tx0..tx0 + len`, which
/// go to positions `j0..j0 + len` of the transformed block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub n: usize,
    pub ty: usize,
    pub tx0: usize,
    pub len: usize,
    pub j0: usize,
}

/// The runs of the global tiles `t0..t1` (numbered image by image, row by row), with
/// `th × tw` tiles per image.
pub(crate) fn runs(t0: usize, t1: usize, th: usize, tw: usize, out: &mut Vec<Run>) {
    out.clear();
    let mut t = t0;
    while t < t1 {
        let (n, rest) = (t / (th * tw), t % (th * tw));
        let (ty, tx0) = (rest / tw, rest % tw);
        let len = (tw - tx0).min(t1 - t);
        out.push(Run {
            n,
            ty,
            tx0,
            len,
            j0: t - t0,
        });
        t += len;
    }
}

/// The input transform of one run for one channel: `V[ξ][j0 + u]` for every point `ξ`
/// (`v` holds the channel's 16 point rows, `vs` apart) from its `H × W` plane `xc`,
/// `S::LANES` tiles at a time: each row of the patches is read as two vectors split into
/// even and odd columns (columns `2u`, `2u + 1`, `2u + 2`, `2u + 3` of tile `u` are the
/// even, odd, next even and next odd elements), zeros outside the input.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
pub(crate) unsafe fn input_run<S: Simd<E = f32>>(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
    let n = S::LANES;
    assert!(
        xc.len() >= g.h * g.w && v.len() >= (XI - 1) * vs + r.j0 + r.len,
        "winograd: input run outside its buffers"
    );
    let w = g.w as isize;
    let mut rows: [Option<*const f32>; 4] = [None; 4];
    for (i, row) in rows.iter_mut().enumerate() {
        let y = (2 * r.ty + i) as isize - g.p[0] as isize;
        if (0..g.h as isize).contains(&y) {
            *row = Some(xc[y as usize * g.w..].as_ptr());
        }
    }
    // (No closures or `array::from_fn` below: they would not inherit the caller's
    // target features, and the intrinsics would become calls.)
    // SAFETY: every load reads only lanes whose column x lies in 0..W of a row inside
    // the plane (`load_range` with the lane range of valid columns); every store writes
    // `cnt` lanes of a point row inside `v` (asserted above); the features are the
    // caller's contract.
    unsafe {
        let ni = n as isize;
        for u0 in (0..r.len).step_by(n) {
            let cnt = n.min(r.len - u0);
            let xs = (2 * (r.tx0 + u0)) as isize - g.p[1] as isize;
            let zero = S::splat(0.0);
            let mut d = [[zero; 4]; 4];
            for (di, row) in d.iter_mut().zip(rows) {
                if let Some(rp) = row {
                    let mut q = [zero; 4];
                    for (k, off) in [0, ni, 2, 2 + ni].into_iter().enumerate() {
                        q[k] = S::load_range(rp.wrapping_offset(xs + off), -xs - off, w - xs - off);
                    }
                    let (e0, o0) = S::even_odd(q[0], q[1]);
                    let (e1, o1) = S::even_odd(q[2], q[3]);
                    *di = [e0, o0, e1, o1];
                }
            }
            // Bᵀ d (rows), then · B (columns).
            let mut t = [[zero; 4]; 4];
            for j in 0..4 {
                t[0][j] = S::sub(d[0][j], d[2][j]);
                t[1][j] = S::add(d[1][j], d[2][j]);
                t[2][j] = S::sub(d[2][j], d[1][j]);
                t[3][j] = S::sub(d[1][j], d[3][j]);
            }
            let base = v.as_mut_ptr().add(r.j0 + u0);
            for (i, ti) in t.iter().enumerate() {
                let out = [
                    S::sub(ti[0], ti[2]),
                    S::add(ti[1], ti[2]),
                    S::sub(ti[2], ti[1]),
                    S::sub(ti[1], ti[3]),
                ];
                for (j, &val) in out.iter().enumerate() {
                    S::store_first(base.add((4 * i + j) * vs), val, cnt);
                }
            }
        }
    }
}

/// The output transform of one run for one output channel: from the 16 point rows of
/// `m` (`ms` apart, positions `j0..j0 + len`, readable `S::LANES` past the run), `bias`
/// added, into output rows `2ty` and `2ty + 1` (those inside the output) of the
/// channel's `OH × OW` plane `out`, columns `2·tx0..`, clipped at `OW`.
///
/// # Safety
/// `S`'s CPU features are available; `out` is the plane's start, and the run's output
/// elements (rows `2ty`, `2ty + 1` below `OH`, columns `2·tx0 .. min(2·(tx0 + len), OW)`)
/// are writable and not accessed by anyone else during the call.
#[inline(always)]
pub(crate) unsafe fn output_run<S: Simd<E = f32>>(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
    let n = S::LANES;
    assert!(
        m.len() >= (XI - 1) * ms + r.j0 + r.len.next_multiple_of(n) && 2 * r.ty < g.oh && 2 * r.tx0 < g.ow,
        "winograd: output run outside its buffers"
    );
    let y0 = 2 * r.ty;
    let second = y0 + 1 < g.oh;
    // SAFETY: the loads read whole vectors inside `m` (asserted: the rows are readable
    // a vector past the run); the stores write columns x0.. x0 + width ≤ OW of rows y0
    // and y0 + 1 < OH: the run's elements (the caller's contract), as are the features.
    unsafe {
        let b = S::splat(bias);
        for u0 in (0..r.len).step_by(n) {
            let x0 = 2 * (r.tx0 + u0);
            let width = (2 * n.min(r.len - u0)).min(g.ow - x0);
            let mut p = [b; XI];
            for (xi, pv) in p.iter_mut().enumerate() {
                *pv = S::load(m.as_ptr().add(xi * ms + r.j0 + u0));
            }
            // Aᵀ m (rows), then · A (columns).
            let mut s = [[b; 4]; 2];
            for j in 0..4 {
                s[0][j] = S::add(S::add(p[j], p[4 + j]), p[8 + j]);
                s[1][j] = S::sub(S::sub(p[4 + j], p[8 + j]), p[12 + j]);
            }
            for (dy, sr) in s.iter().enumerate().take(if second { 2 } else { 1 }) {
                let ya = S::add(S::add(S::add(sr[0], sr[1]), sr[2]), b);
                let yb = S::add(S::sub(S::sub(sr[1], sr[2]), sr[3]), b);
                let (lo, hi) = S::interleave(ya, yb);
                let dst = out.add((y0 + dy) * g.ow + x0);
                S::store_first(dst, lo, width.min(n));
                if width > n {
                    S::store_first(dst.add(n), hi, width - n);
                }
            }
        }
    }
}
