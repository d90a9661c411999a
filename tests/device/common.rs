//! Shared helpers: the device, random tensors and layouts, comparison with the CPU.

use ferrotensor::device::Device;
use std::sync::OnceLock;

/// The test device, opened once per test binary; `None` (after a note) when no adapter
/// exists and `FERROTENSOR_REQUIRE_DEVICE` is not set.
pub fn device() -> Option<Device> {
    static DEV: OnceLock<Option<Device>> = OnceLock::new();
    DEV.get_or_init(|| match Device::wgpu() {
        Ok(d) => {
            eprintln!("device tests on {d:?}");
            Some(d)
        }
        Err(e) => {
            if std::env::var("FERROTENSOR_REQUIRE_DEVICE").is_ok_and(|v| v == "1") {
                panic!("FERROTENSOR_REQUIRE_DEVICE=1 but {e}");
            }
            eprintln!("skipping device tests: {e}");
            None
        }
    })
    .clone()
}
