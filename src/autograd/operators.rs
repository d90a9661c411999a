//! Operators on [`Var`]: `+ - * /` between two `Var`s (owned or borrowed) and with a
//! scalar on either side, and unary `-`. Mismatched shapes panic with the message of
//! the `try_` twin ([`Var::try_add`], …).

use super::var::Var;
use crate::element::Float;
use std::ops::{Add, Div, Mul, Neg, Sub};

#[track_caller]
fn ok<R>(r: crate::Result<R>) -> R {
    r.unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! var_binary {
    ($Trait:ident $method:ident, $try:ident, |$x:ident, $s:ident| $with_scalar:expr, |$s2:ident, $y:ident| $scalar_with:expr) => {
        impl<T: Float> $Trait<&Var<T>> for &Var<T> {
            type Output = Var<T>;
            /// # Panics
            /// If the shapes do not broadcast (the message of the `try_` twin).
            #[track_caller]
            fn $method(self, rhs: &Var<T>) -> Var<T> {
                ok(self.$try(rhs))
            }
        }
        impl<T: Float> $Trait<Var<T>> for &Var<T> {
            type Output = Var<T>;
            #[track_caller]
            fn $method(self, rhs: Var<T>) -> Var<T> {
                ok(self.$try(&rhs))
            }
        }
        impl<T: Float> $Trait<&Var<T>> for Var<T> {
            type Output = Var<T>;
            #[track_caller]
            fn $method(self, rhs: &Var<T>) -> Var<T> {
                ok(self.$try(rhs))
            }
        }
        impl<T: Float> $Trait<Var<T>> for Var<T> {
            type Output = Var<T>;
            #[track_caller]
            fn $method(self, rhs: Var<T>) -> Var<T> {
                ok(self.$try(&rhs))
            }
        }
        impl<T: Float> $Trait<T> for &Var<T> {
            type Output = Var<T>;
            fn $method(self, $s: T) -> Var<T> {
                let $x = self;
                $with_scalar
            }
        }
        impl<T: Float> $Trait<T> for Var<T> {
            type Output = Var<T>;
            fn $method(self, $s: T) -> Var<T> {
                let $x = &self;
                $with_scalar
            }
        }
        var_binary!(@scalar_left $Trait $method, |$s2, $y| $scalar_with, f32, f64);
    };
    (@scalar_left $Trait:ident $method:ident, |$s:ident, $y:ident| $body:expr, $($t:ty),*) => {
        $(
            impl $Trait<&Var<$t>> for $t {
                type Output = Var<$t>;
                fn $method(self, rhs: &Var<$t>) -> Var<$t> {
                    let ($s, $y) = (self, rhs);
                    $body
                }
            }
            impl $Trait<Var<$t>> for $t {
                type Output = Var<$t>;
                fn $method(self, rhs: Var<$t>) -> Var<$t> {
                    let ($s, $y) = (self, &rhs);
                    $body
                }
            }
        )*
    };
}

var_binary!(Add add, try_add, |x, s| x.add_scalar(s), |s, y| y.add_scalar(s));
var_binary!(Sub sub, try_sub, |x, s| x.add_scalar(-s), |s, y| y.rsub_scalar(s));
var_binary!(Mul mul, try_mul, |x, s| x.mul_scalar(s), |s, y| y.mul_scalar(s));
var_binary!(Div div, try_div, |x, s| x.div_scalar(s), |s, y| y.rdiv_scalar(s));

impl<T: Float> Neg for &Var<T> {
    type Output = Var<T>;
    fn neg(self) -> Var<T> {
        Var::neg(self)
    }
}

impl<T: Float> Neg for Var<T> {
    type Output = Var<T>;
    fn neg(self) -> Var<T> {
        Var::neg(&self)
    }
}

#[cfg(test)]
mod tests {
    use crate::autograd::Var;
    use crate::tensor::Tensor;

    #[test]
    fn operators_on_every_operand_kind() {
        let a = Var::new(Tensor::from_vec(vec![1.0f64, 2.0], [2]).unwrap());
        let b = Var::new(Tensor::from_vec(vec![3.0f64, 4.0], [2]).unwrap());
        let y = (&a + &b) * &a - (2.0 * &b) / 4.0 + (1.0 - &a) / &b + -(&a / 2.0) + (3.0 / a.clone());
        let want: Vec<f64> = [(1.0, 3.0), (2.0, 4.0)]
            .iter()
            .map(|&(a, b)| (a + b) * a - 2.0 * b / 4.0 + (1.0 - a) / b - a / 2.0 + 3.0 / a)
            .collect();
        assert_eq!(y.value().to_vec(), want);
        let g = y.sum().backward().unwrap();
        // ∂/∂a = (2a + b) - 1/b - 1/2 - 3/a²
        let ga: Vec<f64> = [(1.0, 3.0), (2.0, 4.0)]
            .iter()
            .map(|&(a, b)| 2.0 * a + b - 1.0 / b - 0.5 - 3.0 / (a * a))
            .collect();
        let got = g.get(&a).unwrap().to_vec();
        for (x, w) in got.iter().zip(&ga) {
            assert!((x - w).abs() < 1e-12, "{got:?} vs {ga:?}");
        }
    }

    #[test]
    #[should_panic(expected = "add: operands could not be broadcast together")]
    fn mismatched_operator_panics_with_the_op_message() {
        let a = Var::new(Tensor::<f32, _>::zeros([2]));
        let b = Var::new(Tensor::<f32, _>::zeros([3]));
        let _ = &a + &b;
    }
}
