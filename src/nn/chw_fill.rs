//! Random fills and `Display` for [`ChwTensor`].

use super::chw::ChwTensor;
use crate::display::PrintElement;
use crate::element::{Element, Float};
use std::fmt;

impl<T: Float> ChwTensor<T> {
    /// Fills with uniform random values in `[0, 1)` from a caller-given generator.
    ///
    /// ```
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(2, 3, 4);
    /// t.rand(&mut rng);
    /// assert!(t.values(ferrotensor::Order::RowMajor).iter().all(|&x| (0.0..1.0).contains(&x)));
    /// ```
    pub fn rand<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) {
        self.randu(T::zero(), T::one(), rng);
    }

    /// Fills with normal random values of the given mean and standard deviation.
    ///
    /// ```
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    /// let mut t = ferrotensor::nn::ChwTensor::<f64>::new(4, 50, 50);
    /// t.randn(10.0, 2.0, &mut rng);
    /// let v = t.values(ferrotensor::Order::RowMajor);
    /// let mean = v.iter().sum::<f64>() / v.len() as f64;
    /// assert!((mean - 10.0).abs() < 0.1);
    /// ```
    pub fn randn<R: rand::Rng + ?Sized>(&mut self, mean: T, std: T, rng: &mut R) {
        use rand_distr::Distribution;
        let (m, s) = (mean.to_f64(), std.to_f64());
        self.transform_with(|| {
            let z: f64 = rand_distr::StandardNormal.sample(&mut *rng);
            T::from_f64(m + s * z)
        });
    }

    /// Fills with uniform random values in `[min, max)`.
    ///
    /// ```
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(1, 10, 10);
    /// t.randu(-2.0, 5.0, &mut rng);
    /// assert!(t.values(ferrotensor::Order::RowMajor).iter().all(|&x| (-2.0..5.0).contains(&x)));
    /// ```
    pub fn randu<R: rand::Rng + ?Sized>(&mut self, min: T, max: T, rng: &mut R) {
        let (lo, hi) = (min.to_f64(), max.to_f64());
        self.transform_with(|| {
            let u: f64 = rng.random::<f64>();
            let v = T::from_f64(lo + (hi - lo) * u);
            // Rounding to T may reach `max`; keep the half-open interval.
            if v >= max && max > min {
                min.max(max - (max - min) * T::epsilon())
            } else {
                v
            }
        });
    }

    fn transform_with(&mut self, mut f: impl FnMut() -> T) {
        for x in self.data.as_slice_mut().expect("ChwTensor data is row-major") {
            *x = f();
        }
    }
}

impl<T: Element + PrintElement> fmt::Display for ChwTensor<T> {
    /// Each channel as NumPy prints a matrix, after a `channel i:` line.
    ///
    /// ```
    /// let mut t = ferrotensor::nn::ChwTensor::<f32>::new(2, 1, 2);
    /// t.fill_value(1.5);
    /// assert_eq!(t.to_string(), "channel 0:\n[[1.5 1.5]]\nchannel 1:\n[[1.5 1.5]]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in 0..self.channels() {
            if c > 0 {
                writeln!(f)?;
            }
            write!(f, "channel {c}:\n{}", self.channel(c))?;
        }
        Ok(())
    }
}

impl<T: Element + PrintElement> fmt::Debug for ChwTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ChwTensor(shape={:?}, raw_shape={:?})\n{self}",
            self.shape(),
            self.raw
        )
    }
}
