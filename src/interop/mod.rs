//! Conversions to and from other crates, each behind a cargo feature that is off by
//! default: `ndarray` ([`ndarray`](mod@self::ndarray) module: zero-copy views both ways)
//! and `serde` (`Serialize`/`Deserialize` as `{shape, data}`).

#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "serde")]
pub mod serde;
