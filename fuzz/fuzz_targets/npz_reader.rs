//! Arbitrary bytes as an .npz archive: open, list and read every member.
#![no_main]
use ferrotensor::io::npz::NpzReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = NpzReader::new(std::io::Cursor::new(data)) {
        for name in r.names() {
            let _ = r.read_dyn(&name);
        }
    }
});
