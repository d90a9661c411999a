//! Device (wgpu) tests: every kernel against the CPU result. Needs the feature `wgpu`
//! and an adapter (CI uses lavapipe, Mesa's software Vulkan driver); without an
//! adapter the tests pass after saying so, unless `FERROTENSOR_REQUIRE_DEVICE=1`
//! (set in CI), where a missing adapter fails them.
#![cfg(feature = "wgpu")]

mod common;
mod elementwise;
mod matmul;
mod reduce;
mod softmax_conv;
mod transfer_views;
