//! Arbitrary bytes into the safetensors parser and loader, and the mmap views of any
//! file it accepts.
#![no_main]
use ferrotensor::io::safetensors::{Header, from_safetensors_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = Header::parse(data, data.len() as u64) {
        for info in h.tensors.values() {
            assert!(h.data_start + info.data_offsets.1 <= data.len());
        }
    }
    if let Ok(st) = from_safetensors_bytes(data) {
        for t in st.tensors.values() {
            assert!(t.size() * t.dtype().size() <= data.len());
        }
    }
});
