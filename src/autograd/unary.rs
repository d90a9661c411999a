//! Element-wise functions of one [`Var`] (named as on [`crate::Tensor`]) and their
//! derivatives. Rules that can be written with the output (`exp`, `tanh`, `sigmoid`,
//! `relu`, `sqrt`) reuse it instead of recomputing; dense incoming gradients are
//! overwritten in place.

use super::grad::Grad;
use super::var::Var;
use crate::element::Float;
use crate::nn;

impl<T: Float> Var<T> {
    /// `e^x` element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64, 1.0], [2])?);
    /// let y = x.exp();
    /// let g = y.sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), y.value().to_vec());   // d/dx eˣ = eˣ
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn exp(&self) -> Var<T> {
        Var::from_op(self.view().exp(), "exp", &[self], |c| {
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.out, |g, y| g * y)?))])
        })
    }

    /// Natural logarithm element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![2.0f64], [1])?);
    /// assert_eq!(x.ln().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn ln(&self) -> Var<T> {
        Var::from_op(self.view().ln(), "ln", &[self], |c| {
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.inputs[0], |g, x| g / x)?))])
        })
    }

    /// Hyperbolic tangent element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
    /// assert_eq!(x.tanh().sum().backward()?.get(&x).unwrap().to_vec(), vec![1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn tanh(&self) -> Var<T> {
        Var::from_op(self.view().tanh(), "tanh", &[self], |c| {
            Ok(vec![Some(Grad::dense(
                c.grad.zip(&c.out, |g, y| g * (T::one() - y * y))?,
            ))])
        })
    }

    /// Logistic sigmoid `1 / (1 + e^-x)` element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
    /// assert_eq!(x.sigmoid().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.25]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn sigmoid(&self) -> Var<T> {
        Var::from_op(self.view().sigmoid(), "sigmoid", &[self], |c| {
            Ok(vec![Some(Grad::dense(
                c.grad.zip(&c.out, |g, y| g * y * (T::one() - y))?,
            ))])
        })
    }

    /// `max(x, 0)` element-wise; the gradient at 0 is 0 (as PyTorch).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![-1.0f64, 0.0, 2.0], [3])?);
    /// assert_eq!(x.relu().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.0, 0.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn relu(&self) -> Var<T> {
        Var::from_op(self.view().relu(), "relu", &[self], |c| {
            Ok(vec![Some(Grad::dense(
                c.grad.zip(&c.out, |g, y| if y > T::zero() { g } else { T::zero() })?,
            ))])
        })
    }

    /// Square root element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![4.0f64], [1])?);
    /// assert_eq!(x.sqrt().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.25]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn sqrt(&self) -> Var<T> {
        Var::from_op(self.view().sqrt(), "sqrt", &[self], |c| {
            let half = T::from_f64(0.5);
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.out, |g, y| g * half / y)?))])
        })
    }

    /// `x^p` element-wise for a scalar exponent `p` (NumPy `power`).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// assert_eq!(x.powf(2.0).sum().backward()?.get(&x).unwrap().to_vec(), vec![6.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn powf(&self, p: T) -> Var<T> {
        Var::from_op(self.view().powf(p), "powf", &[self], move |c| {
            let pm1 = p - T::one();
            Ok(vec![Some(Grad::dense(
                c.grad.zip(&c.inputs[0], |g, x| g * p * x.powf(pm1))?,
            ))])
        })
    }

    /// `x²` element-wise.
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![3.0f64], [1])?);
    /// assert_eq!(x.square().sum().backward()?.get(&x).unwrap().to_vec(), vec![6.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn square(&self) -> Var<T> {
        Var::from_op(self.view().square(), "square", &[self], |c| {
            let two = T::from_f64(2.0);
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.inputs[0], |g, x| g * two * x)?))])
        })
    }

    /// Absolute value element-wise; the gradient at 0 is 0 (as PyTorch).
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![-2.0f64, 0.0, 3.0], [3])?);
    /// assert_eq!(x.abs().sum().backward()?.get(&x).unwrap().to_vec(), vec![-1.0, 0.0, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn abs(&self) -> Var<T> {
        Var::from_op(self.view().abs(), "abs", &[self], |c| {
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.inputs[0], |g, x| {
                if x > T::zero() {
                    g
                } else if x < T::zero() {
                    -g
                } else {
                    T::zero()
                }
            })?))])
        })
    }

    /// Exact GELU `x·Φ(x)` (Φ the standard normal CDF, via `erf`), as
    /// [`nn::gelu`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
    /// assert_eq!(x.gelu().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn gelu(&self) -> Var<T> {
        Var::from_op(nn::gelu(&self.view()), "gelu", &[self], |c| {
            // d/dx x·Φ(x) = Φ(x) + x·φ(x)
            let x = &c.inputs[0];
            let rsqrt2 = T::from_f64(std::f64::consts::FRAC_1_SQRT_2);
            let inv_sqrt_2pi = T::from_f64(0.3989422804014327);
            let half = T::from_f64(0.5);
            let mut d = (x * rsqrt2).erf();
            d.zip_map_inplace(x, |e, x| {
                *e = half * (T::one() + *e) + x * inv_sqrt_2pi * (-half * x * x).exp();
            })?;
            Ok(vec![Some(Grad::dense(c.grad.zip(&d.view().into_dyn(), |g, d| g * d)?))])
        })
    }

    /// GELU, tanh approximation `½x(1 + tanh(√(2/π)(x + 0.044715x³)))` (PyTorch's
    /// `approximate='tanh'`), as [`nn::gelu_tanh`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64, 1.0], [2])?);
    /// let y = x.gelu_tanh();
    /// assert!((y.value().to_vec()[1] - 0.8411919906082768).abs() < 1e-15);
    /// assert_eq!(y.sum().backward()?.get(&x).unwrap().to_vec()[0], 0.5);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn gelu_tanh(&self) -> Var<T> {
        Var::from_op(nn::gelu_tanh(&self.view()), "gelu_tanh", &[self], |c| {
            // With u = k(x + a·x³), t = tanh u: d/dx ½x(1 + t) = ½(1 + t) + ½x(1 − t²)·k(1 + 3a·x²)
            let k = T::from_f64((2.0 / std::f64::consts::PI).sqrt());
            let (a, half, three) = (T::from_f64(0.044715), T::from_f64(0.5), T::from_f64(3.0));
            let d = c.inputs[0].mapv(|x| {
                let t = (k * (x + a * x * x * x)).tanh();
                half * (T::one() + t) + half * x * (T::one() - t * t) * k * (T::one() + three * a * x * x)
            });
            Ok(vec![Some(Grad::dense(c.grad.zip(&d.view(), |g, d| g * d)?))])
        })
    }

    /// SiLU (swish) `x·sigmoid(x)` element-wise, as [`nn::silu`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![0.0f64], [1])?);
    /// assert_eq!(x.silu().sum().backward()?.get(&x).unwrap().to_vec(), vec![0.5]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn silu(&self) -> Var<T> {
        Var::from_op(nn::silu(&self.view()), "silu", &[self], |c| {
            // d/dx x·s(x) = s·(1 + x·(1 − s))
            let x = &c.inputs[0];
            let mut d = x.sigmoid();
            d.zip_map_inplace(x, |s, x| *s = *s * (T::one() + x * (T::one() - *s)))?;
            Ok(vec![Some(Grad::dense(c.grad.zip(&d.view(), |g, d| g * d)?))])
        })
    }

    /// Leaky ReLU: `x` where `x > 0`, else `negative_slope·x`, as [`nn::leaky_relu`].
    ///
    /// ```
    /// use ferrotensor::prelude::*;
    /// let x = Var::new(Tensor::from_vec(vec![-1.0f64, 2.0], [2])?);
    /// let g = x.leaky_relu(0.1).sum().backward()?;
    /// assert_eq!(g.get(&x).unwrap().to_vec(), vec![0.1, 1.0]);
    /// # Ok::<(), ferrotensor::Error>(())
    /// ```
    pub fn leaky_relu(&self, negative_slope: T) -> Var<T> {
        let value = nn::leaky_relu(&self.view(), negative_slope);
        Var::from_op(value, "leaky_relu", &[self], move |c| {
            Ok(vec![Some(Grad::dense(c.grad.zip(&c.inputs[0], |g, x| {
                if x > T::zero() { g } else { g * negative_slope }
            })?))])
        })
    }
}
