//! Conversions to and from other crates, each behind a cargo feature that is off by
//! default: `ndarray` (module `interop::ndarray`: zero-copy views both ways) and `serde`
//! (module `interop::serde`: `Serialize`/`Deserialize` as `{shape, data}`).
//!
//! ```toml
//! ferrotensor = { version = "0.1", features = ["ndarray", "serde"] }
//! ```

#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "serde")]
pub mod serde;
