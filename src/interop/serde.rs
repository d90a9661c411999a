//! `serde` support (feature `serde`): a tensor serialises as `{"shape": [...], "data":
//! [...]}` with the data in row-major order, whatever its layout; deserialising checks
//! that the data fits the shape and the shape fits the rank type.
//!
//! ```
//! use ferrotensor::prelude::*;
//! let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
//! let json = serde_json::to_string(&a.t()).unwrap();
//! assert_eq!(json, r#"{"shape":[3,2],"data":[1,4,2,5,3,6]}"#);
//! let b: Tensor<i32, Ix2> = serde_json::from_str(&json).unwrap();
//! assert_eq!(b.to_vec(), a.t().to_vec());
//! assert!(serde_json::from_str::<Tensor<i32, Ix2>>(r#"{"shape":[2,2],"data":[1]}"#).is_err());
//! ```

use crate::element::Element;
use crate::layout::{Dimension, Order};
use crate::storage::Storage;
use crate::tensor::{Tensor, TensorBase};
use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The elements in row-major order, serialised as a sequence without a copy.
struct RowMajor<'a, S: Storage, D: Dimension>(&'a TensorBase<S, D>);

impl<T: Element + Serialize, S: Storage<Elem = T>, D: Dimension> Serialize for RowMajor<'_, S, D> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_seq(self.0.iter())
    }
}

impl<T: Element + Serialize, S: Storage<Elem = T>, D: Dimension> Serialize for TensorBase<S, D> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        let mut st = s.serialize_struct("Tensor", 2)?;
        st.serialize_field("shape", self.shape())?;
        st.serialize_field("data", &RowMajor(self))?;
        st.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "Tensor", deny_unknown_fields)]
struct Repr<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

impl<'de, T: Element + Deserialize<'de>, D: Dimension> Deserialize<'de> for Tensor<T, D> {
    fn deserialize<Z: Deserializer<'de>>(d: Z) -> Result<Self, Z::Error> {
        let r = Repr::<T>::deserialize(d)?;
        let dim = crate::layout::dim::into_dimension::<D>(&r.shape, "deserialize").map_err(Z::Error::custom)?;
        Tensor::owned_from(r.data, dim, Order::RowMajor, "deserialize").map_err(Z::Error::custom)
    }
}
