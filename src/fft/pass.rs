//! One transform pass along one axis of a row-major buffer: complex in place,
//! real-to-complex and complex-to-real, each scaled (and for `ihfft` conjugated) while
//! the lanes are still in cache.

use super::FftFloat;
use super::lanes::{self, Lanes};
use super::plan;
use num_complex::Complex;

fn zero<R: FftFloat>() -> Complex<R> {
    Complex::new(R::zero(), R::zero())
}

fn finish<R: FftFloat>(out: &mut [Complex<R>], scale: R, conj: bool) {
    match (scale != R::one(), conj) {
        (false, false) => {}
        (true, false) => out.iter_mut().for_each(|x| *x = *x * scale),
        (false, true) => out.iter_mut().for_each(|x| x.im = -x.im),
        (true, true) => out.iter_mut().for_each(|x| *x = x.conj() * scale),
    }
}

/// The complex transform (`inverse`: positive exponent) of every lane along `axis` of
/// the row-major buffer `buf` of `shape`, in place, multiplied by `scale`.
pub(super) fn c2c<R: FftFloat>(buf: &mut [Complex<R>], shape: &[usize], axis: usize, inverse: bool, scale: R) {
    let n = shape[axis];
    let fft = plan::complex::<R>(n, inverse);
    let scratch = fft.get_inplace_scratch_len();
    lanes::in_place(
        buf,
        Lanes::of(shape, axis, n),
        || vec![zero::<R>(); scratch],
        |s, lanes| {
            fft.process_with_scratch(lanes, s);
            finish(lanes, scale, false);
        },
    );
}

/// The real-to-complex transform of every lane along `axis` of `src` (row-major,
/// `shape`; used as scratch) into `dst` (the same shape with `n / 2 + 1` along `axis`),
/// multiplied by `scale` and conjugated if `conj`.
pub(super) fn r2c<R: FftFloat>(
    src: &mut [R],
    shape: &[usize],
    axis: usize,
    dst: &mut [Complex<R>],
    scale: R,
    conj: bool,
) {
    let n = shape[axis];
    let m = n / 2 + 1;
    let fft = plan::real_forward::<R>(n);
    let scratch = fft.get_scratch_len();
    lanes::out_of_place(
        src,
        dst,
        Lanes::of(shape, axis, m),
        || vec![zero::<R>(); scratch],
        |s, inp, out| {
            for (i, o) in inp.chunks_exact_mut(n).zip(out.chunks_exact_mut(m)) {
                let r = fft.process_with_scratch(i, o, s);
                debug_assert!(r.is_ok(), "lane lengths match the plan");
            }
            finish(out, scale, conj);
        },
    );
}

/// The complex-to-real transform of every lane along `axis` of `src` (row-major,
/// `shape`, whose `axis` holds `n / 2 + 1` points; used as scratch) into `dst` (the same
/// shape with `n` along `axis`), multiplied by `scale`. The imaginary parts of the
/// zero-frequency term and (even `n`) of the Nyquist term are ignored, as in NumPy.
pub(super) fn c2r<R: FftFloat>(
    src: &mut [Complex<R>],
    shape: &[usize],
    axis: usize,
    n: usize,
    dst: &mut [R],
    scale: R,
) {
    let m = shape[axis];
    debug_assert_eq!(m, n / 2 + 1);
    let fft = plan::real_inverse::<R>(n);
    let scratch = fft.get_scratch_len();
    lanes::out_of_place(
        src,
        dst,
        Lanes::of(shape, axis, n),
        || vec![zero::<R>(); scratch],
        |s, inp, out| {
            for (i, o) in inp.chunks_exact_mut(m).zip(out.chunks_exact_mut(n)) {
                i[0].im = R::zero();
                if n.is_multiple_of(2) {
                    i[m - 1].im = R::zero();
                }
                let r = fft.process_with_scratch(i, o, s);
                debug_assert!(r.is_ok(), "lane lengths match the plan");
            }
            if scale != R::one() {
                out.iter_mut().for_each(|x| *x = *x * scale);
            }
        },
    );
}
