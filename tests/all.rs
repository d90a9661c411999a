//! Every integration test in one binary: linking the library once instead of once per
//! file makes `cargo test` faster and its build much smaller. The files stay where they
//! are (`tests/<name>.rs`), each a module here; `cargo test --test all <name>::` runs
//! one of them. To add a test file, see `tests/README.md`.

/// The golden inputs' fill formula and view ops (shared with `linalg_common`).
mod breadth_common;
/// Helpers of the golden view tests (slicing, reshape, rearrange).
mod common;
/// The shared loader of `tests/golden/` (see `golden_file.rs`).
mod golden_file;
/// Helpers of the golden linear-algebra tests (linalg, matmul, einsum).
mod linalg_common;
/// Helpers of the `manip_*` golden tests.
mod manip_support;

mod api_conventions;
mod api_golden;
mod broadcast_op;
mod casting;
mod chw;
mod compare;
mod creation;
mod einsum;
mod elementwise;
mod elementwise_golden;
mod examples;
mod io_golden;
mod io_mmap_rss;
mod io_robust;
mod layers;
mod layout_props;
mod linalg;
mod logsumexp;
mod manip_combine;
mod manip_gather;
mod manip_shape;
mod manip_sort;
mod matmul;
mod memory;
mod nn_breadth_conv;
mod nn_breadth_layers;
mod nn_conv;
mod nn_golden;
mod nn_head;
mod nn_ops;
mod operators;
mod ownership;
mod printing;
mod rearrange;
mod reductions;
mod reductions_golden;
mod reshape;
mod slicing;
mod ulp_sweep;
mod views;
