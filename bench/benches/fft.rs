//! FFT benchmarks: `ferrotensor::fft` vs NumPy's pocketfft (`bench/py/fft.py`, same
//! inputs). The note column gives, as a floor, `rustfft`/`realfft` called directly
//! (plan made once, transform into existing buffers: no output allocation, no input
//! copy, no plan lookup).
//!
//! `cargo bench -p ferrotensor-bench --bench fft`

use ferrotensor::fft::{self, Norm};
use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, time_median};
use num_complex::Complex;
use std::hint::black_box;

fn fill(n: usize) -> Vec<Complex<f32>> {
    (0..n as i64)
        .map(|i| {
            let re = (((i * 7 + 3) % 11) - 5) as f32 / 4.0;
            let im = (((i * 5 + 1) % 13) - 6) as f32 / 8.0;
            Complex::new(re, im)
        })
        .collect()
}

fn tm<R>(mut f: impl FnMut() -> R) -> f64 {
    time_median(1.0, || {
        black_box(f());
    })
}

/// `rustfft` in place with a ready plan and scratch: the transform alone.
fn raw_fft(n: usize) -> f64 {
    let plan = rustfft::FftPlanner::<f32>::new().plan_fft_forward(n);
    let mut buf = fill(n);
    let mut scratch = vec![Complex::new(0.0, 0.0); plan.get_inplace_scratch_len()];
    tm(|| plan.process_with_scratch(&mut buf, &mut scratch))
}

/// `realfft` with a ready plan, input and output buffers.
fn raw_rfft(n: usize) -> f64 {
    let plan = realfft::RealFftPlanner::<f32>::new().plan_fft_forward(n);
    let mut inp: Vec<f32> = fill(n).iter().map(|c| c.re).collect();
    let mut out = plan.make_output_vec();
    let mut scratch = plan.make_scratch_vec();
    tm(|| {
        plan.process_with_scratch(&mut inp, &mut out, &mut scratch)
            .unwrap()
    })
}

fn main() {
    let np = numpy_times("fft.py");
    let mut t = Table::default();
    let nb = Norm::Backward;

    let c20 = Tensor::from_vec(fill(1 << 20), [1 << 20]).unwrap();
    let ours = tm(|| fft::fft(&c20, None, -1, nb).unwrap());
    t.add(
        "fft of 2^20 complex f32",
        ours,
        vec![("numpy", np.get("fft_c64_2^20").copied())],
        format!("rustfft alone, in place: {:.3} ms", raw_fft(1 << 20) * 1e3),
    );

    let r22 = Tensor::from_vec(fill(1 << 22).iter().map(|c| c.re).collect(), [1 << 22]).unwrap();
    let ours = tm(|| fft::rfft(&r22, None, -1, nb).unwrap());
    t.add(
        "rfft of 2^22 f32",
        ours,
        vec![("numpy", np.get("rfft_f32_2^22").copied())],
        format!(
            "realfft alone, ready buffers: {:.3} ms",
            raw_rfft(1 << 22) * 1e3
        ),
    );

    let c20d = c20.mapv(|c| Complex::new(c.re as f64, c.im as f64));
    let ours = tm(|| fft::fft(&c20d, None, -1, nb).unwrap());
    t.add(
        "fft of 2^20 complex f64",
        ours,
        vec![("numpy", np.get("fft_c128_2^20").copied())],
        String::new(),
    );

    let c2d = Tensor::from_vec(fill(1 << 20), [1024, 1024]).unwrap();
    let ours = tm(|| fft::fft2(&c2d, None, &[-2, -1], nb).unwrap());
    t.add(
        "fft2 of [1024, 1024] complex f32",
        ours,
        vec![("numpy", np.get("fft2_c64_1024").copied())],
        String::new(),
    );
    let ours = tm(|| fft::fft(&c2d, None, 0, nb).unwrap());
    t.add(
        "fft along axis 0 of [1024, 1024] complex f32",
        ours,
        vec![("numpy", np.get("fft_axis0_c64_1024").copied())],
        String::new(),
    );

    let r2d = Tensor::from_vec(
        fill(4096 * 1024).iter().map(|c| c.re).collect(),
        [4096, 1024],
    )
    .unwrap();
    let ours = tm(|| fft::rfft(&r2d, None, 1, nb).unwrap());
    t.add(
        "rfft of the rows of [4096, 1024] f32",
        ours,
        vec![("numpy", np.get("rfft_rows_f32_4096x1024").copied())],
        String::new(),
    );
    let h2d = fft::rfft(&r2d, None, 1, nb).unwrap();
    let ours = tm(|| fft::irfft(&h2d, Some(1024), 1, nb).unwrap());
    t.add(
        "irfft of the rows of [4096, 513] complex f32",
        ours,
        vec![("numpy", np.get("irfft_rows_f32_4096x1024").copied())],
        String::new(),
    );

    t.print("FFT");
}
