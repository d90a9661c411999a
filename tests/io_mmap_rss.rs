//! Memory-mapping a 1 GiB safetensors file must not read it: resident memory grows by
//! less than 10 % of the file while the header, the metadata and one small tensor are
//! used. The file is written sparsely (a hole where the big tensor's data is), so the
//! test takes well under a second. Run with
//! `cargo test --release --test all io_mmap_rss -- --ignored`.

#![cfg(target_os = "linux")]

use ferrotensor::io::safetensors::MmapSafetensors;
use std::io::{Seek, SeekFrom, Write};

/// Resident set size in bytes, from /proc/self/statm (second field, in pages).
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * page_size()
}

fn page_size() -> u64 {
    std::process::Command::new("getconf")
        .arg("PAGESIZE")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4096)
}

#[test]
#[ignore = "writes a 1 GiB sparse file; run in CI with --ignored"]
fn mmap_of_one_gib_file_stays_out_of_memory() {
    const BIG: u64 = 1 << 30;
    let small: Vec<f32> = (0..16).map(|i| i as f32 * 0.5).collect();
    let mut header = format!(
        "{{\"__metadata__\":{{\"purpose\":\"rss test\"}},\
         \"big\":{{\"dtype\":\"F32\",\"shape\":[{}, 1024],\"data_offsets\":[0,{BIG}]}},\
         \"small\":{{\"dtype\":\"F32\",\"shape\":[4,4],\"data_offsets\":[{BIG},{}]}}}}",
        BIG / 4 / 1024,
        BIG + 64
    );
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let path = std::env::temp_dir().join(format!(
        "ferrotensor_rss_{}.safetensors",
        std::process::id()
    ));
    let data_start = 8 + header.len() as u64;
    let file_len = data_start + BIG + 64;
    {
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
        f.write_all(header.as_bytes()).unwrap();
        f.set_len(file_len).unwrap(); // sparse: no blocks for the big tensor
        f.seek(SeekFrom::Start(data_start + BIG)).unwrap();
        for x in &small {
            f.write_all(&x.to_le_bytes()).unwrap();
        }
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), file_len);

    let before = resident_bytes();
    // SAFETY: nothing modifies the file while it is mapped.
    let st = unsafe { MmapSafetensors::open(&path) }.unwrap();
    assert_eq!(st.metadata()["purpose"], "rss test");
    assert_eq!(st.names(), vec!["big", "small"]);
    assert_eq!(st.info("big").unwrap().shape, vec![262144, 1024]);
    let s = st.tensor::<f32>("small").unwrap();
    assert_eq!(s.shape(), &[4, 4]);
    assert_eq!(s.to_vec(), small);
    let big = st.tensor::<f32>("big").unwrap();
    assert_eq!(big.shape(), &[262144, 1024]);
    assert_eq!(big[&[0usize, 0][..]], 0.0); // one page of the big tensor
    let growth = resident_bytes().saturating_sub(before);
    println!("file {file_len} bytes, resident growth {growth} bytes");
    assert!(
        growth < file_len / 10,
        "resident memory grew by {growth} bytes, over 10 % of the {file_len}-byte file"
    );
    drop(big);
    drop(s);
    drop(st);
    std::fs::remove_file(&path).unwrap();
}
