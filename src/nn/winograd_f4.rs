//! The transforms of the Winograd convolution F(4×4, 3×3) (Lavin & Gray, interpolation
//! points 0, ±1, ±2, ∞): a 3×3 kernel `g` becomes `U = G g Gᵀ` (6×6), a 6×6 input
//! patch `d` becomes `V = Bᵀ d B`, and the 4×4 output tile is `Y = Aᵀ (Σ_c U ⊙ V) A`,
//! with
//!
//! ```text
//! Bᵀ = [4  0 -5  0  1  0]   G = [ 1/4    0     0  ]   Aᵀ = [1  1  1  1  1  0]
//!      [0 -4 -4  1  1  0]       [-1/6 -1/6  -1/6 ]        [0  1 -1  2 -2  0]
//!      [0  4 -4 -1  1  0]       [-1/6  1/6  -1/6 ]        [0  1  1  4  4  0]
//!      [0 -2 -1  2  1  0]       [1/24  1/12  1/6 ]        [0  1 -1  8 -8  1]
//!      [0  2 -1 -2  1  0]       [1/24 -1/12  1/6 ]
//!      [0  4  0 -5  0  1]       [ 0     0     1  ]
//! ```
//!
//! 36 products per 16 outputs where F(2×2, 3×3) does 64 (1.78× fewer); the larger
//! constants make the rounding error a few times F(2×2, 3×3)'s (tested against an `f64`
//! direct sum in `winograd_tests`).
//!
//! As for F(2×2, 3×3), tiles lie in vector lanes: a tile row's patch columns `4u + k`
//! come from a 4-way split of four consecutive vectors (two rounds of
//! [`Simd::even_odd`]) and, for `k = 4, 5`, one lane further along (`Simd::shift_in`);
//! the 4×4 outputs go back through two rounds of [`Simd::interleave`].

use super::im2col::Geom;
use super::simd::Simd;
use super::winograd_transform::Run;

/// Points of the transformed tile (6×6).
pub(crate) const XI4: usize = 36;

/// `U = G g Gᵀ` for one 3×3 kernel (row-major), computed in `f64`.
pub(crate) fn weight_transform4(g: &[f32; 9]) -> [f32; XI4] {
    let (a, b, c, d) = (1.0 / 4.0, 1.0 / 6.0, 1.0 / 12.0, 1.0 / 24.0);
    let gm = [
        [a, 0.0, 0.0],
        [-b, -b, -b],
        [-b, b, -b],
        [d, c, b],
        [d, -c, b],
        [0.0, 0.0, 1.0],
    ];
    let mut t = [[0.0f64; 3]; 6]; // G g
    for (i, ti) in t.iter_mut().enumerate() {
        for (j, tij) in ti.iter_mut().enumerate() {
            *tij = (0..3).map(|k| gm[i][k] * f64::from(g[k * 3 + j])).sum();
        }
    }
    std::array::from_fn(|ij| {
        let (i, j) = (ij / 6, ij % 6);
        (0..3).map(|k| t[i][k] * gm[j][k]).sum::<f64>() as f32
    })
}

/// `Bᵀ d` for one line of six values.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn bt<S: Simd<E = f32>>(d: [S::V; 6]) -> [S::V; 6] {
    // SAFETY: the features are the caller's contract.
    unsafe {
        let (four, five) = (S::splat(4.0), S::splat(-5.0));
        let m4 = S::splat(-4.0);
        let a = S::mul_add(m4, d[2], d[4]);
        let b = S::mul_add(m4, d[1], d[3]);
        let c = S::sub(d[4], d[2]);
        let e = S::sub(d[3], d[1]);
        let e = S::add(e, e);
        [
            S::mul_add(four, d[0], S::mul_add(five, d[2], d[4])),
            S::add(a, b),
            S::sub(a, b),
            S::add(c, e),
            S::sub(c, e),
            S::mul_add(four, d[1], S::mul_add(five, d[3], d[5])),
        ]
    }
}

/// `Aᵀ m` for one line of six values.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
unsafe fn at<S: Simd<E = f32>>(m: [S::V; 6]) -> [S::V; 4] {
    // SAFETY: the features are the caller's contract.
    unsafe {
        let s = S::add(m[1], m[2]);
        let d = S::sub(m[1], m[2]);
        let s2 = S::add(m[3], m[4]);
        let d2 = S::sub(m[3], m[4]);
        [
            S::add(S::add(m[0], s), s2),
            S::mul_add(S::splat(2.0), d2, d),
            S::mul_add(S::splat(4.0), s2, s),
            S::add(S::mul_add(S::splat(8.0), d2, d), m[5]),
        ]
    }
}

/// The input transform of one run for one channel: `V[ξ][j0 + u]` for every point `ξ`
/// (`v` holds the channel's 36 point rows, `vs` apart) from its `H × W` plane `xc`,
/// `S::LANES` tiles at a time, zeros outside the input.
///
/// # Safety
/// `S`'s CPU features are available.
#[inline(always)]
pub(crate) unsafe fn input_run4<S: Simd<E = f32>>(xc: &[f32], g: &Geom, r: &Run, v: &mut [f32], vs: usize) {
    let n = S::LANES;
    assert!(
        xc.len() >= g.h * g.w && v.len() >= (XI4 - 1) * vs + r.j0 + r.len,
        "winograd: input run outside its buffers"
    );
    let w = g.w as isize;
    let mut rows: [Option<*const f32>; 6] = [None; 6];
    for (i, row) in rows.iter_mut().enumerate() {
        let y = (4 * r.ty + i) as isize - g.p[0] as isize;
        if (0..g.h as isize).contains(&y) {
            *row = Some(xc[y as usize * g.w..].as_ptr());
        }
    }
    // (No closures below: they would not inherit the caller's target features.)
    // SAFETY: every load reads only lanes whose column x lies in 0..W of a row inside
    // the plane (`load_range` with the lane range of valid columns); every store writes
    // `cnt` lanes of a point row inside `v` (asserted above); the features are the
    // caller's contract.
    unsafe {
        let ni = n as isize;
        let zero = S::splat(0.0);
        for u0 in (0..r.len).step_by(n) {
            let cnt = n.min(r.len - u0);
            let xs = (4 * (r.tx0 + u0)) as isize - g.p[1] as isize;
            // d·B per patch row (columns), then Bᵀ over the rows.
            let mut h = [[zero; 6]; 6];
            for (hi, row) in h.iter_mut().zip(rows) {
                if let Some(rp) = row {
                    let mut q = [zero; 6];
                    for (k, off) in [0, ni, 2 * ni, 3 * ni, 4 * ni, 4 * ni + 1].into_iter().enumerate() {
                        q[k] = S::load_range(rp.wrapping_offset(xs + off), -xs - off, w - xs - off);
                    }
                    let (e01, o01) = S::even_odd(q[0], q[1]);
                    let (e23, o23) = S::even_odd(q[2], q[3]);
                    let (c0, c2) = S::even_odd(e01, e23);
                    let (c1, c3) = S::even_odd(o01, o23);
                    let c4 = S::shift_in(c0, q[4]);
                    let c5 = S::shift_in(c1, q[5]);
                    *hi = bt::<S>([c0, c1, c2, c3, c4, c5]);
                }
            }
            let base = v.as_mut_ptr().add(r.j0 + u0);
            // (`j` is the column of every row of `h`, not an index into `h` itself.)
            #[allow(clippy::needless_range_loop)]
            for j in 0..6 {
                let col = bt::<S>([h[0][j], h[1][j], h[2][j], h[3][j], h[4][j], h[5][j]]);
                for (i, &val) in col.iter().enumerate() {
                    S::store_first(base.add((6 * i + j) * vs), val, cnt);
                }
            }
        }
    }
}

/// The output transform of one run for one output channel: from the 36 point rows of
/// `m` (`ms` apart, positions `j0..j0 + len`, readable `S::LANES` past the run), `bias`
/// added, into output rows `4ty..4ty + 4` (those inside the output) of the channel's
/// `OH × OW` plane `out`, columns `4·tx0..`, clipped at `OW`.
///
/// # Safety
/// `S`'s CPU features are available; `out` is the plane's start, and the run's output
/// elements (rows `4ty..4ty + 4` below `OH`, columns `4·tx0 .. min(4·(tx0 + len), OW)`)
/// are writable and not accessed by anyone else during the call.
#[inline(always)]
pub(crate) unsafe fn output_run4<S: Simd<E = f32>>(m: &[f32], ms: usize, bias: f32, g: &Geom, r: &Run, out: *mut f32) {
    let n = S::LANES;
    assert!(
        m.len() >= (XI4 - 1) * ms + r.j0 + r.len.next_multiple_of(n) && 4 * r.ty < g.oh && 4 * r.tx0 < g.ow,
        "winograd: output run outside its buffers"
    );
    let y0 = 4 * r.ty;
    let rows_in = (g.oh - y0).min(4);
    // SAFETY: the loads read whole vectors inside `m` (asserted: the rows are readable
    // a vector past the run); the stores write columns x0.. x0 + width ≤ OW of rows
    // y0.. y0 + rows_in ≤ OH: the run's elements (the caller's contract), as are the
    // features.
    unsafe {
        let b = S::splat(bias);
        for u0 in (0..r.len).step_by(n) {
            let x0 = 4 * (r.tx0 + u0);
            let width = (4 * n.min(r.len - u0)).min(g.ow - x0);
            let mp = m.as_ptr().add(r.j0 + u0);
            // Aᵀ over the rows of each point column, then · A per output row.
            let mut s = [[b; 6]; 4];
            for j in 0..6 {
                let col = [
                    S::load(mp.add(j * ms)),
                    S::load(mp.add((6 + j) * ms)),
                    S::load(mp.add((12 + j) * ms)),
                    S::load(mp.add((18 + j) * ms)),
                    S::load(mp.add((24 + j) * ms)),
                    S::load(mp.add((30 + j) * ms)),
                ];
                let t = at::<S>(col);
                for (si, &ti) in s.iter_mut().zip(&t) {
                    si[j] = ti;
                }
            }
            for (dy, sr) in s.iter().enumerate().take(rows_in) {
                let y = at::<S>(*sr);
                let (y0b, y1b, y2b, y3b) = (S::add(y[0], b), S::add(y[1], b), S::add(y[2], b), S::add(y[3], b));
                let (a_lo, a_hi) = S::interleave(y0b, y2b);
                let (b_lo, b_hi) = S::interleave(y1b, y3b);
                let (v0, v1) = S::interleave(a_lo, b_lo);
                let (v2, v3) = S::interleave(a_hi, b_hi);
                let dst = out.add((y0 + dy) * g.ow + x0);
                for (k, vk) in [v0, v1, v2, v3].into_iter().enumerate() {
                    let cnt = width.saturating_sub(k * n).min(n);
                    if cnt > 0 {
                        S::store_first(dst.add(k * n), vk, cnt);
                    }
                }
            }
        }
    }
}
