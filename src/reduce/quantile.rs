//! NumPy's quantile methods: which order statistics a quantile needs, and how they are
//! combined (the rules of `numpy.quantile`'s `method` argument, after Hyndman & Fan).

use crate::element::Float;
use crate::error::{Error, Result};
use std::str::FromStr;

/// How a quantile between two order statistics is estimated: NumPy's `method` argument
/// of `quantile`/`percentile` (default [`QuantileMethod::Linear`]). `FromStr` takes
/// NumPy's names (`"linear"`, `"lower"`, `"median_unbiased"`, …).
///
/// With `n` values sorted as `x[0] ≤ … ≤ x[n-1]` and `q` in `[0, 1]`:
///
/// | method | result |
/// |---|---|
/// | `Linear` | interpolates at the virtual index `(n − 1)·q` (Hyndman & Fan 7) |
/// | `Lower`, `Higher`, `Nearest` | `x[⌊(n−1)q⌋]`, `x[⌈(n−1)q⌉]`, `x[round_half_even((n−1)q)]` |
/// | `Midpoint` | the mean of `Lower` and `Higher` |
/// | `InvertedCdf`, `AveragedInvertedCdf`, `ClosestObservation` | Hyndman & Fan 1, 2, 3 (discontinuous) |
/// | `InterpolatedInvertedCdf`, `Hazen`, `Weibull`, `MedianUnbiased`, `NormalUnbiased` | Hyndman & Fan 4, 5, 6, 8, 9 |
///
/// ```
/// use ferrotensor::prelude::*;
/// use ferrotensor::reduce::QuantileMethod;
/// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [4]).unwrap();
/// assert_eq!(a.quantile(0.5, QuantileMethod::Linear).unwrap(), 2.5);
/// assert_eq!(a.quantile(0.5, QuantileMethod::Lower).unwrap(), 2.0);
/// assert_eq!(a.quantile(0.5, "higher".parse().unwrap()).unwrap(), 3.0);
/// assert!("cubic".parse::<QuantileMethod>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QuantileMethod {
    /// Hyndman & Fan 1: the smallest `x[k]` whose empirical CDF reaches `q`.
    InvertedCdf,
    /// Hyndman & Fan 2: as `InvertedCdf`, averaging at discontinuities.
    AveragedInvertedCdf,
    /// Hyndman & Fan 3: the nearest order statistic, even ones at ties.
    ClosestObservation,
    /// Hyndman & Fan 4: linear interpolation of the empirical CDF.
    InterpolatedInvertedCdf,
    /// Hyndman & Fan 5: piecewise linear with nodes at `(k + 0.5) / n`.
    Hazen,
    /// Hyndman & Fan 6: nodes at `(k + 1) / (n + 1)`.
    Weibull,
    /// Hyndman & Fan 7, NumPy's default: nodes at `k / (n − 1)`.
    #[default]
    Linear,
    /// Hyndman & Fan 8: approximately median-unbiased.
    MedianUnbiased,
    /// Hyndman & Fan 9: approximately unbiased for normal data.
    NormalUnbiased,
    /// The lower of the two neighbouring order statistics.
    Lower,
    /// The higher of the two neighbouring order statistics.
    Higher,
    /// The mean of `Lower` and `Higher`.
    Midpoint,
    /// The nearer of the two (ties to the even index, as NumPy's `around`).
    Nearest,
}

impl FromStr for QuantileMethod {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        use QuantileMethod::*;
        Ok(match s {
            "inverted_cdf" => InvertedCdf,
            "averaged_inverted_cdf" => AveragedInvertedCdf,
            "closest_observation" => ClosestObservation,
            "interpolated_inverted_cdf" => InterpolatedInvertedCdf,
            "hazen" => Hazen,
            "weibull" => Weibull,
            "linear" => Linear,
            "median_unbiased" => MedianUnbiased,
            "normal_unbiased" => NormalUnbiased,
            "lower" => Lower,
            "higher" => Higher,
            "midpoint" => Midpoint,
            "nearest" => Nearest,
            _ => {
                return Err(Error::value(
                    "quantile",
                    format!(
                        "{s:?} is not a valid method; use one of inverted_cdf, averaged_inverted_cdf, closest_observation, interpolated_inverted_cdf, hazen, weibull, linear, median_unbiased, normal_unbiased, lower, higher, midpoint, nearest"
                    ),
                ));
            }
        })
    }
}

/// What one quantile of a sorted lane of `n` values reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Pick {
    /// `x[k]`.
    One(usize),
    /// NumPy's `_lerp(x[i], x[j], t)`.
    Lerp(usize, usize, f64),
    /// The mean of `x[i]` and `x[j]` (the median of an even count, as NumPy's `mean`).
    Mean(usize, usize),
}

impl Pick {
    /// The order statistics it reads.
    pub fn indices(self) -> [usize; 2] {
        match self {
            Pick::One(k) => [k, k],
            Pick::Lerp(i, j, _) | Pick::Mean(i, j) => [i, j],
        }
    }

    /// The value from the order statistics `x` (indexable by sorted position).
    pub fn value<T: Float>(self, x: impl Fn(usize) -> T) -> T {
        match self {
            Pick::One(k) => x(k),
            Pick::Mean(i, j) => {
                let (a, b) = (x(i), x(j));
                if i == j { a } else { (a + b) / (T::one() + T::one()) }
            }
            Pick::Lerp(i, j, t) => {
                let (a, b) = (x(i), x(j));
                let d = b - a;
                if t >= 0.5 {
                    b - d * T::from_f64(1.0 - t)
                } else {
                    a + d * T::from_f64(t)
                }
            }
        }
    }
}

/// The median of `n` values (NumPy's `median`: the middle value, or the mean of the two
/// middle values).
pub(crate) fn median_pick(n: usize) -> Pick {
    debug_assert!(n > 0);
    if n % 2 == 1 {
        Pick::One(n / 2)
    } else {
        Pick::Mean(n / 2 - 1, n / 2)
    }
}

/// NumPy's `_discrete_interpolation_to_boundaries`: `⌊idx⌋` where `take_previous(gamma,
/// ⌊idx⌋)`, else `⌊idx⌋ + 1`, clipped into `[0, n)`.
fn discrete(idx: f64, n: usize, take_previous: impl Fn(f64, f64) -> bool) -> Pick {
    let prev = idx.floor();
    let k = if take_previous(idx - prev, prev) {
        prev
    } else {
        prev + 1.0
    };
    Pick::One((k.max(0.0) as usize).min(n - 1))
}

/// NumPy's continuous rule (`_get_indexes`, `_get_gamma`): the neighbours of the
/// virtual index `v` with weight `fix(v - previous, v)`. Beyond the last value both
/// neighbours are the last one and `previous` is NumPy's `-1`; below the first both are
/// the first. (The weight then matters only for infinite values, where NumPy's lerp
/// gives NaN; so does ours.)
fn continuous(v: f64, n: usize, fix: impl Fn(f64, f64) -> f64) -> Pick {
    let last = n - 1;
    if v >= last as f64 {
        return Pick::Lerp(last, last, fix(v + 1.0, v));
    }
    if v < 0.0 {
        return Pick::Lerp(0, 0, fix(v, v));
    }
    let prev = v.floor();
    Pick::Lerp(prev as usize, prev as usize + 1, fix(v - prev, v))
}

/// NumPy's `_compute_virtual_index`, in its order of operations.
fn virtual_index(n: f64, q: f64, alpha: f64, beta: f64) -> f64 {
    n * q + (alpha + q * (1.0 - alpha - beta)) - 1.0
}

/// The order statistics quantile `q` (in `[0, 1]`) of `n ≥ 1` sorted values reads.
pub(crate) fn pick(method: QuantileMethod, n: usize, q: f64) -> Pick {
    use QuantileMethod::*;
    debug_assert!(n > 0);
    let nf = n as f64;
    let gamma = |g: f64, _v: f64| g;
    let last = n - 1;
    match method {
        InvertedCdf => discrete(nf * q - 1.0, n, |g, _| g == 0.0),
        ClosestObservation => discrete(nf * q - 1.0 - 0.5, n, |g, prev| g == 0.0 && prev.rem_euclid(2.0) == 1.0),
        AveragedInvertedCdf => continuous(nf * q - 1.0, n, |g, _| if g == 0.0 { 0.5 } else { 1.0 }),
        InterpolatedInvertedCdf => continuous(virtual_index(nf, q, 0.0, 1.0), n, gamma),
        Hazen => continuous(virtual_index(nf, q, 0.5, 0.5), n, gamma),
        Weibull => continuous(virtual_index(nf, q, 0.0, 0.0), n, gamma),
        Linear => continuous((nf - 1.0) * q, n, gamma),
        MedianUnbiased => continuous(virtual_index(nf, q, 1.0 / 3.0, 1.0 / 3.0), n, gamma),
        NormalUnbiased => continuous(virtual_index(nf, q, 3.0 / 8.0, 3.0 / 8.0), n, gamma),
        Lower => Pick::One((((nf - 1.0) * q).floor() as usize).min(last)),
        Higher => Pick::One((((nf - 1.0) * q).ceil() as usize).min(last)),
        Nearest => Pick::One((((nf - 1.0) * q).round_ties_even() as usize).min(last)),
        Midpoint => {
            let v = (nf - 1.0) * q;
            let m = 0.5 * (v.floor() + v.ceil());
            continuous(m, n, |_, v| if v.fract() == 0.0 { 0.0 } else { 0.5 })
        }
    }
}

/// Checks that every `q` lies in `[0, 1]` (NaN does not).
pub(crate) fn check_q(qs: &[f64], op: &'static str, scale: f64) -> Result<()> {
    if let Some(bad) = qs.iter().find(|q| !(0.0..=1.0).contains(*q)) {
        return Err(Error::value(
            op,
            format!("quantiles must be in the range [0, {scale}], got {}", bad * scale),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_follow_numpy_rules() {
        use QuantileMethod::*;
        assert_eq!(pick(Linear, 4, 0.5), Pick::Lerp(1, 2, 0.5));
        assert_eq!(pick(Linear, 4, 1.0), Pick::Lerp(3, 3, 4.0));
        assert_eq!(pick(Linear, 1, 0.3), Pick::Lerp(0, 0, 1.0));
        assert_eq!(pick(Lower, 5, 0.6), Pick::One(2));
        assert_eq!(pick(Higher, 5, 0.6), Pick::One(3));
        assert_eq!(pick(Nearest, 5, 0.625), Pick::One(2)); // 2.5 rounds to even
        assert_eq!(pick(Midpoint, 5, 0.5), Pick::Lerp(2, 3, 0.0));
        assert_eq!(pick(Midpoint, 4, 0.5), Pick::Lerp(1, 2, 0.5));
        assert_eq!(pick(InvertedCdf, 4, 0.5), Pick::One(1));
        assert_eq!(pick(InvertedCdf, 4, 0.0), Pick::One(0));
        assert_eq!(pick(Hazen, 4, 0.0), Pick::Lerp(0, 0, -0.5));
        assert_eq!(median_pick(3), Pick::One(1));
        assert_eq!(median_pick(4), Pick::Mean(1, 2));
        assert_eq!(Pick::Lerp(0, 1, 0.75).value(|i| [1.0f64, 3.0][i]), 2.5);
        assert!(check_q(&[0.0, 1.0], "q", 1.0).is_ok());
        assert!(check_q(&[f64::NAN], "q", 1.0).is_err());
    }
}
