"""Writes the README's NumPy -> ferrotensor cheat sheet from one list of rows.

The table and a doctest holding every Rust expression are generated together, so the
table's Rust column is compiled and run by `cargo test` (README.md is a doctest module).
Run `python3 scripts/cheatsheet.py` after editing ROWS; `--check` fails if README.md is stale.
"""
import pathlib
import sys

SETUP = """\
use ferrotensor::prelude::*;
use ferrotensor::{io, linalg, nn};
use rand::SeedableRng;
let mut rng = rand::rngs::StdRng::seed_from_u64(0);
let a = Tensor::<f64, _>::from_shape_fn([3, 4], |i: &[usize]| (i[0] * 4 + i[1]) as f64);
let b = Tensor::<f64, _>::ones([3, 4]);
let m = Tensor::<f64, _>::eye(4) * 2.0;
let v = Tensor::<f64>::arange(4);
let x = Tensor::<f32, _>::zeros([2, 3, 4, 5]);
let i = Tensor::<i32>::arange(4);
let path = std::env::temp_dir().join("ferrotensor-cheatsheet.npy");"""

# (section, NumPy, ferrotensor)
ROWS = [
    ("creation", "np.zeros((2, 3))", "Tensor::<f64, _>::zeros([2, 3])"),
    ("creation", "np.ones((2, 3), dtype=np.float32)", "Tensor::<f32, _>::ones([2, 3])"),
    ("creation", "np.full((2, 3), 7)", "Tensor::full([2, 3], 7i64)"),
    ("creation", "np.array([1., 2., 3.])", "Tensor::from_vec(vec![1., 2., 3.], [3])?"),
    ("creation", "np.array(data).reshape(2, 3)", "Tensor::from_vec(vec![0.0; 6], [2, 3])?"),
    ("creation", "np.array(data).reshape((2, 3), order='F')", "Tensor::from_vec_order(vec![0.0; 6], [2, 3], Order::ColMajor)?"),
    ("creation", "np.arange(5)", "Tensor::<i64>::arange(5)"),
    ("creation", "np.arange(0, 1, 0.25)", "Tensor::arange_step(0.0, 1.0, 0.25)"),
    ("creation", "np.linspace(0, 1, 5)", "Tensor::linspace(0.0, 1.0, 5)"),
    ("creation", "np.eye(3)", "Tensor::<f64, _>::eye(3)"),
    ("creation", "np.zeros_like(a)", "Tensor::<f64, _>::zeros_like(&a)"),
    ("creation", "np.fromfunction(lambda i, j: i + j, (2, 3))", "Tensor::from_shape_fn([2, 3], |i: &[usize]| i[0] + i[1])"),
    ("creation", "rng.random((2, 3))", "Tensor::<f64, _>::rand([2, 3], &mut rng)"),
    ("creation", "rng.standard_normal((2, 3))", "Tensor::<f64, _>::randn([2, 3], &mut rng)"),
    ("metadata", "a.shape", "a.shape()"),
    ("metadata", "a.ndim, a.size", "(a.ndim(), a.size())"),
    ("metadata", "a.strides (bytes)", "a.strides() // elements, signed"),
    ("metadata", "a.flags['C_CONTIGUOUS']", "a.is_contiguous()"),
    ("metadata", "a.ravel().tolist()", "a.to_vec()"),
    ("metadata", "np.array(2.5).item()", "Tensor::scalar(2.5).to_scalar()?"),
    ("indexing", "a[1, 2]", "a[[1, 2]]"),
    ("indexing", "a[1]", "a.slice(s![1])"),
    ("indexing", "a[:, 1:3]", "a.slice(s![.., 1..3])"),
    ("indexing", "a[::-1, ::2]", "a.slice(s![..;-1, ..;2])"),
    ("indexing", "v[3:0:-2]", "v.slice(s![3..0;-2])"),
    ("indexing", "a[..., np.newaxis]", "a.slice(s![Ellipsis, NewAxis])"),
    ("indexing", "a[-1]", "a.slice(s![-1])"),
    ("indexing", "a[[0, 2]]", "a.index_select(0, &[0, 2])?"),
    ("indexing", "np.take(a, [1, 5])", "a.take(&[1, 5])?"),
    ("indexing", "a[a > 5]", "a.mask_select(&a.gt(5.0)?)?"),
    ("indexing", "a[1:, 1] = 0", "a.clone().assign_at(s![1.., 1], 0.0)?"),
    ("indexing", "a[:, ::2] = b[:, :2]", "a.clone().assign_at(s![.., ..;2], &b.slice(s![.., ..2]))?"),
    ("indexing", "np.add.at(a, (slice(None), [0, 0]), 1)", "a.clone().add_at(1, &Tensor::from_vec(vec![0, 0], [2])?, 1.0)?"),
    ("views", "a.T", "a.t()"),
    ("views", "a.transpose(1, 0)", "a.permute(&[1, 0])?"),
    ("views", "np.swapaxes(x, 0, 3)", "x.swap_axes(0, 3)?"),
    ("views", "np.moveaxis(x, 0, -1)", "x.moveaxis(0, -1)?"),
    ("views", "np.flip(a, 0)", "a.flip(0)?"),
    ("views", "np.broadcast_to(v, (3, 4))", "v.broadcast_to([3, 4])?"),
    ("views", "np.squeeze(x[:1])", "x.slice(s![..1]).squeeze()"),
    ("views", "np.expand_dims(a, 0)", "a.unsqueeze(0)?"),
    ("views", "a.reshape(4, 3)", "a.reshape([4, 3])?"),
    ("views", "a.reshape(-1, 2)", "a.reshape_infer(&[-1, 2])?"),
    ("views", "a.reshape((4, 3), order='F')", "a.reshape_order([4, 3], Order::ColMajor)?"),
    ("views", "np.diagonal(m)", "m.diagonal(0, 0, 1)?"),
    ("views", "np.ascontiguousarray(a.T)", "a.t().to_contiguous()"),
    ("views", "einops.rearrange(x, 'b c h w -> b h w c')", "x.rearrange(\"b c h w -> b h w c\")?"),
    ("arithmetic", "a + b", "&a + &b"),
    ("arithmetic", "a * 2 + 1", "&a * 2.0 + 1.0"),
    ("arithmetic", "a - v (broadcast)", "&a - &v"),
    ("arithmetic", "1 / (a + 1)", "1.0 / (&a + 1.0)"),
    ("arithmetic", "a += b", "{ let mut c = a.clone(); c += &b; c }"),
    ("arithmetic", "np.exp(a), np.log1p(a)", "(a.exp(), a.log1p())"),
    ("arithmetic", "np.sqrt(a)", "a.sqrt()"),
    ("arithmetic", "np.maximum(a, b)", "a.maximum(&b)?"),
    ("arithmetic", "np.maximum(a, 0)", "a.maximum(0.0)?"),
    ("arithmetic", "a ** 2, a ** b", "(a.pow(2.0)?, a.pow(&b)?)"),
    ("arithmetic", "np.where(a > 2, a, 0)", "where_(&a.gt(2.0)?, &a, 0.0)?"),
    ("arithmetic", "np.clip(a, 0, 1)", "a.clip(0.0, 1.0)?"),
    ("arithmetic", "np.round(a, 2)", "a.round_decimals(2)"),
    ("arithmetic", "i << 2, i >> j (integers)", "(&i << 2, &i >> &i)"),
    ("arithmetic", "a.astype(np.float32)", "a.cast::<f32>()"),
    ("arithmetic", "a == b", "a.eq(&b)?"),
    ("arithmetic", "np.isnan(a)", "a.isnan()"),
    ("arithmetic", "np.allclose(a, b)", "a.allclose(&b, 1e-5, 1e-8, false)?"),
    ("arithmetic", "np.vectorize(f)(a)", "a.mapv(|x| x * x + 1.0)"),
    ("reductions", "a.sum()", "a.sum()"),
    ("reductions", "a.sum(axis=0)", "a.sum_axis(0)? // Ix2 -> Ix1"),
    ("reductions", "a.sum(axis=(0, 1))", "a.sum_axes(&[0, 1], false)?"),
    ("reductions", "a.mean(axis=1, keepdims=True)", "a.mean_axes(&[1], true)?"),
    ("reductions", "a.std(ddof=1)", "a.std(1)"),
    ("reductions", "a.var(axis=0, ddof=0.5)", "a.var_axis(0, 0.5)?"),
    ("reductions", "a.max()", "a.max()?"),
    ("reductions", "a.argmax(axis=1)", "a.argmax_axis(1)?"),
    ("reductions", "np.cumsum(a, axis=0)", "a.cumsum(0)?"),
    ("reductions", "np.linalg.norm(v)", "v.norm(NormOrd::L2)"),
    ("reductions", "scipy.special.logsumexp(a)", "a.logsumexp()"),
    ("matmul", "a @ m", "&a % &m"),
    ("matmul", "np.matmul(a, m)", "a.matmul(&m)?"),
    ("matmul", "np.dot(v, v)", "v.dot(&v)?"),
    ("matmul", "np.einsum('ij,jk->ik', a, m)", "linalg::einsum(\"ij,jk->ik\", &[&a, &m])?"),
    ("matmul", "np.linalg.solve(m, v)", "linalg::solve(&m, &v)?"),
    ("matmul", "np.linalg.inv(m)", "linalg::inv(&m)?"),
    ("combining", "np.concatenate([a, b], axis=0)", "concatenate(&[&a, &b.view()], 0)?"),
    ("combining", "np.stack([a, b])", "stack(&[&a, &b], 0)?"),
    ("combining", "np.sort(a, axis=1)", "a.sort(1)?"),
    ("combining", "torch.sort(t, 1, descending=True)", "a.sort_descending(1)?"),
    ("combining", "sliding_window_view(v, 3)", "v.sliding_window_view(&[3], None)?"),
    ("combining", "np.pad(a, 1)", "a.pad(&[(1, 1), (1, 1)], PadMode::Constant(0.0))?"),
    ("nn", "scipy.special.softmax(a, axis=-1)", "nn::softmax(&a, -1)?"),
    ("I/O", "np.save(path, a)", "io::npy::write_npy(&path, &a)?"),
    ("I/O", "np.load(path)", "io::npy::read_npy::<f64, IxDyn>(&path)?"),
    ("printing", "print(a)", "println!(\"{a}\")"),
]


def render():
    out = ["<!-- cheatsheet:start (generated by scripts/cheatsheet.py) -->",
           "| | NumPy | ferrotensor |", "|---|---|---|"]
    for sec, np_expr, rs in ROWS:
        out.append(f"| {sec} | `{np_expr}` | `{rs.replace('|', chr(92) + '|')}` |")
    out += ["", "<details><summary>Every Rust expression above, compiled and run as one doctest</summary>", "",
            "```rust"]
    out += ["# fn main() -> Result<(), Box<dyn std::error::Error>> {"]
    out += SETUP.splitlines()
    for _, _, rs in ROWS:
        expr = rs.split(" //")[0]
        out.append(f"let _ = {expr};")
    out += ["# Ok(())", "# }", "```", "", "</details>", "<!-- cheatsheet:end -->"]
    return "\n".join(out)


def main():
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text()
    start, end = text.index("<!-- cheatsheet:start"), text.index("<!-- cheatsheet:end -->") + len("<!-- cheatsheet:end -->")
    new = text[:start] + render() + text[end:]
    if "--check" in sys.argv:
        if new != text:
            sys.exit("README.md cheat sheet is stale: run python3 scripts/cheatsheet.py")
        return
    readme.write_text(new)
    print(f"{len(ROWS)} rows written")


if __name__ == "__main__":
    main()
