//! Arbitrary bytes into the .npy readers (slice and stream paths, typed and dynamic).
#![no_main]
use ferrotensor::io::npy;
use ferrotensor::prelude::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = npy::from_npy_bytes_dyn(data) {
        assert!(d.size() * d.dtype().size() <= data.len());
    }
    let _ = npy::read_npy_from(&mut &data[..]);
    let _ = npy::from_npy_bytes::<f32, IxDyn>(data);
    let _ = npy::from_npy_bytes::<bool, Ix2>(data);
});
