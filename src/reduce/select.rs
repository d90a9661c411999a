//! Order statistics by selection (no full sort): the lanes of a reduction gathered into
//! one buffer, NaN handling as NumPy's `median`/`quantile` and their `nan*` twins.

use super::quantile::Pick;
use crate::element::Float;
use crate::iter::PARALLEL_THRESHOLD;
use rayon::prelude::*;
use std::cmp::Ordering;

fn cmp<T: Float>(a: &T, b: &T) -> Ordering {
    // Lanes hold no NaN here (they are filtered or answered before selection).
    a.partial_cmp(b).unwrap_or(Ordering::Equal)
}

/// Reorders `v` so that each sorted position in `ks` (ascending, unique, `< v.len()`)
/// holds the value a full sort would put there.
pub(crate) fn select_positions<T: Float>(v: &mut [T], ks: &[usize]) {
    if ks.is_empty() {
        return;
    }
    let mid = ks.len() / 2;
    let k = ks[mid];
    v.select_nth_unstable_by(k, cmp);
    let (left, right) = v.split_at_mut(k);
    select_positions(left, &ks[..mid]);
    let shifted: Vec<usize> = ks[mid + 1..].iter().map(|&j| j - k - 1).collect();
    select_positions(&mut right[1..], &shifted);
}

/// Moves the NaNs of `v` to its end; returns the number of other values.
fn nans_last<T: Float>(v: &mut [T]) -> usize {
    let mut n = 0;
    for i in 0..v.len() {
        if !v[i].is_nan() {
            v.swap(n, i);
            n += 1;
        }
    }
    n
}

/// The values `picks(n)` asks of one lane (reordered in place), written to `out` (one
/// per pick). Without `skip_nan` a lane holding NaN gives NaN (NumPy's rule); with it,
/// NaNs are dropped first. No value left gives NaN.
fn lane<T: Float>(v: &mut [T], skip_nan: bool, picks: &dyn Fn(usize) -> Vec<Pick>, out: &mut [T]) {
    let n = if skip_nan {
        nans_last(v)
    } else if v.iter().any(|x| x.is_nan()) {
        out.fill(T::nan());
        return;
    } else {
        v.len()
    };
    if n == 0 {
        out.fill(T::nan());
        return;
    }
    let v = &mut v[..n];
    let ps = picks(n);
    let mut ks: Vec<usize> = ps.iter().flat_map(|p| p.indices()).collect();
    ks.sort_unstable();
    ks.dedup();
    select_positions(v, &ks);
    for (o, p) in out.iter_mut().zip(&ps) {
        *o = p.value(|k| v[k]);
    }
}

/// For `data` holding `lanes` lanes of `m` values back to back (reordered in place),
/// the picks of every lane, as `[picks, lanes]` row-major (`count` picks per lane).
pub(crate) fn lanes<T: Float>(
    data: &mut [T],
    lanes: usize,
    m: usize,
    count: usize,
    skip_nan: bool,
    picks: &(dyn Fn(usize) -> Vec<Pick> + Sync),
) -> Vec<T> {
    debug_assert_eq!(data.len(), lanes * m);
    let mut by_lane = vec![T::zero(); lanes * count];
    if m == 0 {
        by_lane.fill(T::nan());
    } else if data.len() >= PARALLEL_THRESHOLD && lanes > 1 && crate::threads::num_threads() > 1 {
        data.par_chunks_mut(m)
            .zip(by_lane.par_chunks_mut(count))
            .for_each(|(v, o)| lane(v, skip_nan, picks, o));
    } else {
        for (v, o) in data.chunks_mut(m).zip(by_lane.chunks_mut(count)) {
            lane(v, skip_nan, picks, o);
        }
    }
    if count == 1 {
        return by_lane;
    }
    let mut out = vec![T::zero(); lanes * count];
    for (l, row) in by_lane.chunks(count).enumerate() {
        for (p, &x) in row.iter().enumerate() {
            out[p * lanes + l] = x;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_positions_match_a_sort() {
        let base: Vec<f64> = (0..97).map(|i| ((i * 37) % 97) as f64 - 40.0).collect();
        let mut sorted = base.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for ks in [vec![0], vec![96], vec![3, 4, 50, 96], vec![0, 1, 2, 95, 96]] {
            let mut v = base.clone();
            select_positions(&mut v, &ks);
            for &k in &ks {
                assert_eq!(v[k], sorted[k], "position {k}");
            }
        }
    }

    #[test]
    fn nan_lanes_follow_numpy() {
        let median = |n| vec![super::super::quantile::median_pick(n)];
        let mut d = vec![3.0f64, f64::NAN, 1.0, 2.0, 5.0, 4.0];
        assert!(lanes(&mut d.clone(), 2, 3, 1, false, &median)[0].is_nan());
        assert_eq!(lanes(&mut d, 2, 3, 1, true, &median), vec![2.0, 4.0]);
        let mut all_nan = vec![f64::NAN; 4];
        assert!(lanes(&mut all_nan, 1, 4, 1, true, &median)[0].is_nan());
        assert!(lanes::<f32>(&mut [], 0, 0, 1, false, &median).is_empty());
        assert!(
            lanes::<f32>(&mut [], 3, 0, 1, false, &median)
                .iter()
                .all(|x| x.is_nan())
        );
    }
}
