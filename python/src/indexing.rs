//! `x[key]` and `x[key] = value`: basic indexing (integers, slices, `...`, `None`) gives
//! a view that shares memory; a boolean mask and integer arrays (with integers) give a
//! copy through the crate's `advanced_index`; assignment writes through the crate's
//! `slice_mut`/`assign` (copying first when the memory is shared) or `index_put`.

use crate::array::Array;
use crate::data::{Data, IntoData, ViewFn};
use crate::errors::OrPy;
use crate::scalar::{as_scalar, check_int_range};
use crate::{each_all, each_int};
use ferrotensor::io::DType;
use ferrotensor::{IxDyn, SliceItem, Tensor, TensorView};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PySlice, PyTuple};

/// One item of an indexing key.
enum Item {
    Basic(SliceItem),
    Mask(Data),
    Ints(Data),
}

fn opt_isize(o: &Bound<'_, PyAny>) -> PyResult<Option<isize>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(o.extract::<isize>()?))
    }
}

fn parse_item(obj: &Bound<'_, PyAny>) -> PyResult<Item> {
    if obj.is_none() {
        return Ok(Item::Basic(SliceItem::NewAxis));
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(Item::Basic(SliceItem::Ellipsis));
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        let start = opt_isize(&s.getattr("start")?)?;
        let stop = opt_isize(&s.getattr("stop")?)?;
        let step = opt_isize(&s.getattr("step")?)?.unwrap_or(1);
        if step == 0 {
            return Err(PyValueError::new_err("slice step cannot be zero"));
        }
        return Ok(Item::Basic(SliceItem::Range { start, stop, step }));
    }
    if let Ok(a) = obj.cast::<Array>() {
        let d = a.borrow().data.clone();
        return match d.dtype() {
            DType::Bool => Ok(Item::Mask(d)),
            dt if dt.is_int() => Ok(Item::Ints(d)),
            dt => Err(PyIndexError::new_err(format!(
                "arrays used as indices must be of integer or boolean type, not {dt}"
            ))),
        };
    }
    if let Some(crate::scalar::Scalar::Bool(b)) = as_scalar(obj)? {
        return Ok(Item::Mask(Tensor::scalar(b).into_data()));
    }
    match obj.extract::<isize>() {
        Ok(i) => Ok(Item::Basic(SliceItem::Index(i))),
        Err(_) => Err(PyIndexError::new_err(format!(
            "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays are valid indices, got {}",
            obj.get_type().name()?
        ))),
    }
}

fn parse_key(key: &Bound<'_, PyAny>) -> PyResult<Vec<Item>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        t.iter().map(|o| parse_item(&o)).collect()
    } else {
        Ok(vec![parse_item(key)?])
    }
}

struct Slicer<'k>(&'k [SliceItem]);

impl ViewFn for Slicer<'_> {
    fn apply<'a, T: ferrotensor::Element>(
        &self,
        v: TensorView<'a, T, IxDyn>,
    ) -> ferrotensor::Result<TensorView<'a, T, IxDyn>> {
        v.try_slice(self.0)
    }
}

/// The flat positions of `mask`'s true elements as one index array per axis.
fn mask_indices(mask: &Data, x_shape: &[usize]) -> PyResult<Vec<Tensor<usize, IxDyn>>> {
    let Data::Bool(m) = mask else {
        unreachable!("masks are bool")
    };
    let (ms, xs) = (m.shape(), x_shape);
    if ms.len() > xs.len() || ms.iter().zip(xs).any(|(&a, &b)| a != b && a != 0) {
        return Err(PyIndexError::new_err(format!(
            "boolean index of shape {ms:?} does not match the indexed array of shape {xs:?}"
        )));
    }
    Ok(m.nonzero()
        .py()?
        .into_iter()
        .map(|t| t.into_dyn())
        .collect())
}

/// Advanced indexing: integer arrays and integers (no slices), or one boolean mask.
fn advanced(x: &Data, items: &[Item]) -> PyResult<Data> {
    if let [Item::Mask(mask)] = items {
        if mask.ndim() == 0 {
            let one = x.share(&Slicer(&[SliceItem::NewAxis])).py()?;
            let keep = matches!(mask, Data::Bool(m) if m.iter().next() == Some(&true));
            let n = if keep { 1 } else { 0 };
            return one
                .share(&Slicer(&[SliceItem::Range {
                    start: Some(0),
                    stop: Some(n),
                    step: 1,
                }]))
                .py();
        }
        let idx = mask_indices(mask, x.shape())?;
        return Ok(each_all!(x, t => t.advanced_index(&idx).py()?.into_data()));
    }
    let mut idx: Vec<Tensor<i64, IxDyn>> = Vec::with_capacity(items.len());
    for it in items {
        match it {
            Item::Basic(SliceItem::Index(i)) => {
                idx.push(Tensor::from_vec(vec![*i as i64], Vec::new()).py()?)
            }
            Item::Ints(d) => idx.push(each_int!(d.astype(DType::I64), t => match t.into_data() {
                Data::I64(t) => t.to_owned(),
                _ => unreachable!("cast to int64"),
            }, _ => unreachable!("integer index arrays"))),
            _ => {
                return Err(PyIndexError::new_err(
                    "integer array indices combine only with integers (no slices, ellipsis, None or masks)",
                ));
            }
        }
    }
    if idx.len() > x.ndim() {
        return Err(PyIndexError::new_err(format!(
            "too many indices for array: array is {}-dimensional, but {} were indexed",
            x.ndim(),
            idx.len()
        )));
    }
    Ok(each_all!(x, t => t.advanced_index(&idx).py()?.into_data()))
}

/// `x[key]`.
pub fn getitem(x: &Data, key: &Bound<'_, PyAny>) -> PyResult<Data> {
    let items = parse_key(key)?;
    if items.iter().all(|i| matches!(i, Item::Basic(_))) {
        let basic: Vec<SliceItem> = items
            .into_iter()
            .map(|i| match i {
                Item::Basic(s) => s,
                _ => unreachable!(),
            })
            .collect();
        return x.share(&Slicer(&basic)).py();
    }
    advanced(x, &items)
}

/// `value` as an array of dtype `dt` (a Python scalar converted by the standard's rules).
fn value_data(value: &Bound<'_, PyAny>, dt: DType) -> PyResult<Data> {
    if let Ok(a) = value.cast::<Array>() {
        return Ok(a.borrow().data.astype(dt));
    }
    match as_scalar(value)? {
        Some(s) => {
            if let crate::scalar::Scalar::Int(i) = s {
                check_int_range(i, dt)?;
            }
            Ok(crate::data::scalar_data(s.wide(), dt))
        }
        None => Err(PyTypeError::new_err(format!(
            "setitem: value must be an array or a Python scalar, got {}",
            value.get_type().name()?
        ))),
    }
}

/// A parsed `x[key] = value`: the key's items and the value in `x`'s dtype.
pub struct SetItem {
    items: Vec<Item>,
    value: Data,
}

/// Parses the key and converts the value (before `x` is borrowed for writing, since
/// either may be `x` itself).
pub fn parse_setitem(
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    dt: DType,
) -> PyResult<SetItem> {
    Ok(SetItem {
        items: parse_key(key)?,
        value: value_data(value, dt)?,
    })
}

/// `x[key] = value`, writing into `x` (its memory is copied first if other arrays share it).
pub fn setitem(x: &mut Data, s: SetItem) -> PyResult<()> {
    let SetItem { items, value: v } = s;
    if items.iter().all(|i| matches!(i, Item::Basic(_))) {
        let basic: Vec<SliceItem> = items
            .into_iter()
            .map(|i| match i {
                Item::Basic(s) => s,
                _ => unreachable!(),
            })
            .collect();
        if ferrotensor::layout::check_no_alias(&each_all!(&*x, t => t.layout().clone()), "setitem")
            .is_err()
        {
            // a broadcast view: writes must not reach several elements
            *x = x.copy();
        }
        return write_basic(x, &basic, &v);
    }
    let idx: Vec<Tensor<usize, IxDyn>> = match items.as_slice() {
        [Item::Mask(mask)] if mask.ndim() == 0 => {
            if matches!(mask, Data::Bool(m) if m.iter().next() == Some(&true)) {
                return write_basic(x, &[SliceItem::Ellipsis], &v);
            }
            return Ok(());
        }
        [Item::Mask(mask)] => mask_indices(mask, x.shape())?,
        _ => {
            return Err(PyIndexError::new_err(
                "setitem takes basic indices (integers, slices, ..., None) or one boolean mask",
            ));
        }
    };
    if idx.first().is_some_and(|i| i.size() == 0) {
        return Ok(());
    }
    *x = crate::pair_same!(&*x, &v, t, val => t.index_put(&idx.iter().map(|i| i as &dyn ferrotensor::manip::AsDynView<usize>).collect::<Vec<_>>(), val).py()?.into_data());
    Ok(())
}

fn write_basic(x: &mut Data, items: &[SliceItem], v: &Data) -> PyResult<()> {
    crate::pair_same!(x, v, t, val => {
        let mut view = t.try_slice_mut(items).py()?;
        view.assign(val).py()?;
    });
    Ok(())
}
