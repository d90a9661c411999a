//! Element-wise benchmarks: ferrotensor vs ndarray vs NumPy (filled in by the
//! element-wise work; for now the contiguous copy of a transpose).

use ferrotensor::prelude::*;
use ferrotensor_bench::{Table, numpy_times, time_median};

fn main() {
    let n = 4096;
    let a = Tensor::<f32, _>::from_shape_fn([n, n], |i: &[usize]| (i[0] * n + i[1]) as f32 * 1e-6);
    let na = ndarray::Array2::<f32>::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32 * 1e-6);
    let np = numpy_times("elementwise.py");
    let mut t = Table::default();
    let ours = time_median(1.0, || {
        std::hint::black_box(a.t().to_owned());
    });
    let nd = time_median(1.0, || {
        std::hint::black_box(na.t().as_standard_layout().into_owned());
    });
    let gbs = 2.0 * (n * n * 4) as f64 / ours / 1e9;
    t.add(
        "copy of a.t()",
        ours,
        vec![("ndarray", Some(nd)), ("numpy", np.get("copy_t").copied())],
        format!("{gbs:.1} GB/s"),
    );
    t.print("element-wise, f32 [4096, 4096]");
}
