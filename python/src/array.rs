//! The array object: a [`Data`] with the standard's attributes, operators (with Python
//! scalars on either side), indexing, conversion to Python scalars, and the exchange
//! protocols (`__dlpack__`, `__array__`).

use crate::data::{Data, IntoData};
use crate::dtype::PyDType;
use crate::elementwise::{Bin, Un, binary, unary};
use crate::scalar::pair;
use crate::{dlpack, each_all, indexing};
use ferrotensor::ops::cast::Wide;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// An n-dimensional array of the Python array API standard.
#[pyclass(name = "Array", module = "ferrotensor", weakref)]
pub struct Array {
    pub data: Data,
}

impl From<Data> for Array {
    fn from(data: Data) -> Self {
        Array { data }
    }
}

/// `op(self, other)` (or reflected), `NotImplemented` for operands of other types.
fn operator(
    slf: &Bound<'_, Array>,
    other: &Bound<'_, PyAny>,
    op: Bin,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let Some((a, b)) = pair(slf.as_any(), other)? else {
        return Ok(py.NotImplemented());
    };
    let out = if reflected {
        binary(op, &b, &a)?
    } else {
        binary(op, &a, &b)?
    };
    Array::from(out).into_py_any(py)
}

/// In-place `op`: the result must keep the array's dtype and shape.
fn in_place(slf: &Bound<'_, Array>, other: &Bound<'_, PyAny>, op: Bin) -> PyResult<()> {
    let Some((a, b)) = pair(slf.as_any(), other)? else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type for in-place {}: {}",
            op.name(),
            other.get_type().name()?
        )));
    };
    let out = binary(op, &a, &b)?;
    check_in_place(&a, &out, op.name())?;
    slf.borrow_mut().data = out;
    Ok(())
}

fn check_in_place(a: &Data, out: &Data, name: &str) -> PyResult<()> {
    if out.dtype() != a.dtype() {
        return Err(PyTypeError::new_err(format!(
            "in-place {name} would change the dtype from {} to {}",
            a.dtype(),
            out.dtype()
        )));
    }
    if out.shape() != a.shape() {
        return Err(PyValueError::new_err(format!(
            "in-place {name}: the result's shape {:?} differs from the array's {:?}",
            out.shape(),
            a.shape()
        )));
    }
    Ok(())
}

fn matmul_op(
    slf: &Bound<'_, Array>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let Ok(o) = other.cast::<Array>() else {
        return Ok(py.NotImplemented());
    };
    let a = slf.borrow().data.clone();
    let b = o.borrow().data.clone();
    let out = if reflected {
        crate::linalg::matmul(py, &b, &a)?
    } else {
        crate::linalg::matmul(py, &a, &b)?
    };
    Array::from(out).into_py_any(py)
}

impl Array {
    fn item(&self, what: &str) -> PyResult<Wide> {
        self.data.wide_item().ok_or_else(|| {
            PyTypeError::new_err(format!(
                "only arrays of one element can be converted to Python {what} (shape {:?})",
                self.data.shape()
            ))
        })
    }
}

#[pymethods]
impl Array {
    /// The module `ferrotensor` (the array API namespace of this array).
    #[pyo3(signature = (/, *, api_version = None))]
    fn __array_namespace__<'py>(
        &self,
        py: Python<'py>,
        api_version: Option<&str>,
    ) -> PyResult<Bound<'py, PyModule>> {
        if let Some(v) = api_version
            && !matches!(v, "2021.12" | "2022.12" | "2023.12" | "2024.12")
        {
            return Err(PyValueError::new_err(format!(
                "unsupported API version {v:?}"
            )));
        }
        py.import("ferrotensor")
    }

    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType {
            dt: self.data.dtype(),
        }
    }

    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.import("ferrotensor")?.getattr("CPU_DEVICE")?.unbind())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.data.ndim()
    }

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.data.shape())
    }

    #[getter]
    fn size(&self) -> usize {
        self.data.size()
    }

    /// The transpose of a 2-D array (a view).
    #[getter(T)]
    fn transpose(&self) -> PyResult<Array> {
        if self.data.ndim() != 2 {
            return Err(PyValueError::new_err(format!(
                "x.T is defined for 2-D arrays only (this one is {}-D); use permute_dims or mT",
                self.data.ndim()
            )));
        }
        Ok(crate::manip::permute(&self.data, &[1, 0])?.into())
    }

    /// The transpose of the last two axes (a view).
    #[getter(mT)]
    fn matrix_transpose(&self) -> PyResult<Array> {
        Ok(crate::linalg::matrix_transpose(&self.data)?.into())
    }

    #[pyo3(signature = (device, /, *, stream = None))]
    fn to_device(
        slf: PyRef<'_, Self>,
        device: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Array>> {
        let _ = stream;
        crate::creation::check_device(Some(device))?;
        Ok(slf.into())
    }

    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Array> {
        Ok(indexing::getitem(&self.data, key)?.into())
    }

    fn __setitem__(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let dt = slf.borrow().data.dtype();
        let parsed = indexing::parse_setitem(key, value, dt)?;
        // written in place: a clone of the data here would make every write copy
        indexing::setitem(&mut slf.borrow_mut().data, parsed)
    }

    fn __len__(&self) -> PyResult<usize> {
        self.data
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d array"))
    }

    fn __bool__(&self) -> PyResult<bool> {
        Ok(match self.item("bool")? {
            Wide::Bool(b) => b,
            Wide::Int(i) => i != 0,
            Wide::Float(f) => f != 0.0,
            Wide::Complex(re, im) => re != 0.0 || im != 0.0,
        })
    }

    fn __int__(&self) -> PyResult<i128> {
        match self.item("int")? {
            Wide::Bool(b) => Ok(b as i128),
            Wide::Int(i) => Ok(i),
            Wide::Float(f) if f.is_nan() => {
                Err(PyValueError::new_err("cannot convert float NaN to integer"))
            }
            Wide::Float(f) if f.is_infinite() => Err(pyo3::exceptions::PyOverflowError::new_err(
                "cannot convert float infinity to integer",
            )),
            Wide::Float(f) => Ok(f.trunc() as i128),
            Wide::Complex(..) => Err(PyTypeError::new_err(
                "cannot convert a complex array to int",
            )),
        }
    }

    fn __index__(&self) -> PyResult<i128> {
        match self.item("int")? {
            Wide::Int(i) if self.data.dtype().is_int() => Ok(i),
            _ => Err(PyTypeError::new_err(format!(
                "only integer arrays can be used as an index (dtype {})",
                self.data.dtype()
            ))),
        }
    }

    fn __float__(&self) -> PyResult<f64> {
        match self.item("float")? {
            Wide::Bool(b) => Ok(b as u8 as f64),
            Wide::Int(i) => Ok(i as f64),
            Wide::Float(f) => Ok(f),
            Wide::Complex(..) => Err(PyTypeError::new_err(
                "cannot convert a complex array to float",
            )),
        }
    }

    fn __complex__(&self) -> PyResult<num_complex::Complex<f64>> {
        Ok(match self.item("complex")? {
            Wide::Bool(b) => num_complex::Complex::new(b as u8 as f64, 0.0),
            Wide::Int(i) => num_complex::Complex::new(i as f64, 0.0),
            Wide::Float(f) => num_complex::Complex::new(f, 0.0),
            Wide::Complex(re, im) => num_complex::Complex::new(re, im),
        })
    }

    /// The element as a Python scalar of its kind (`bool`, `int`, `float`, `complex`).
    fn item_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wide_to_py(py, self.item("scalar")?)
    }

    /// The elements as nested Python lists (a scalar for a 0-d array).
    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let vals = self.data.wide_values();
        let shape = self.data.shape().to_vec();
        fn build(py: Python<'_>, vals: &[Wide], shape: &[usize]) -> PyResult<Py<PyAny>> {
            match shape.split_first() {
                None => wide_to_py(py, vals[0]),
                Some((&n, rest)) => {
                    let step: usize = rest.iter().product();
                    let items = (0..n)
                        .map(|i| build(py, &vals[i * step..(i + 1) * step], rest))
                        .collect::<PyResult<Vec<_>>>()?;
                    items.into_py_any(py)
                }
            }
        }
        if shape.contains(&0) {
            fn empty(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyAny>> {
                match shape.split_first() {
                    Some((&n, rest)) if n > 0 => (0..n)
                        .map(|_| empty(py, rest))
                        .collect::<PyResult<Vec<_>>>()?
                        .into_py_any(py),
                    _ => Vec::<Py<PyAny>>::new().into_py_any(py),
                }
            }
            return empty(py, &shape);
        }
        build(py, &vals, &shape)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let body = match &self.data {
            Data::C64(_) | Data::C128(_) => self.tolist(py)?.bind(py).repr()?.to_string(),
            d => {
                crate::match_data!(d; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; t => format!("{t}"); _ => unreachable!())
            }
        };
        let body = body.replace('\n', "\n       ");
        Ok(format!("Array({body}, dtype={})", self.data.dtype()))
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match &self.data {
            Data::C64(_) | Data::C128(_) => self.tolist(py)?.bind(py).str()?.to_string(),
            d => {
                crate::match_data!(d; Bool|I8|I16|I32|I64|U8|U16|U32|U64|F32|F64; t => format!("{t}"); _ => unreachable!())
            }
        })
    }

    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(s) = stream
            && !s.is_none()
        {
            return Err(PyValueError::new_err("stream must be None on the CPU"));
        }
        if let Some((dev, _)) = dl_device
            && dev != dlpack::KDL_CPU
        {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "ferrotensor arrays live on the CPU",
            ));
        }
        let data = if copy == Some(true) {
            self.data.copy()
        } else {
            self.data.clone()
        };
        dlpack::export(py, data, max_version.is_some_and(|(major, _)| major >= 1))
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        (dlpack::KDL_CPU, 0)
    }

    /// NumPy's array protocol: a NumPy array over the same memory (read-only) unless a
    /// copy or another dtype is asked for.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let np = py.import("numpy")?;
        let arr = np.call_method1("from_dlpack", (slf,))?;
        let kwargs = PyDict::new(py);
        if let Some(d) = dtype {
            kwargs.set_item("dtype", d)?;
        }
        if copy == Some(true) {
            kwargs.set_item("copy", true)?;
        }
        if kwargs.is_empty() {
            return Ok(arr);
        }
        np.call_method("array", (arr,), Some(&kwargs))
    }

    fn __neg__(&self) -> PyResult<Array> {
        Ok(unary(Un::Negative, &self.data)?.into())
    }
    fn __pos__(&self) -> PyResult<Array> {
        Ok(unary(Un::Positive, &self.data)?.into())
    }
    fn __abs__(&self) -> PyResult<Array> {
        Ok(unary(Un::Abs, &self.data)?.into())
    }
    fn __invert__(&self) -> PyResult<Array> {
        Ok(unary(Un::Invert, &self.data)?.into())
    }

    fn __add__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Add, false)
    }
    fn __radd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Add, true)
    }
    fn __iadd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Add)
    }
    fn __sub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Sub, false)
    }
    fn __rsub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Sub, true)
    }
    fn __isub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Sub)
    }
    fn __mul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Mul, false)
    }
    fn __rmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Mul, true)
    }
    fn __imul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Mul)
    }
    fn __truediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Div, false)
    }
    fn __rtruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Div, true)
    }
    fn __itruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Div)
    }
    fn __floordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::FloorDiv, false)
    }
    fn __rfloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::FloorDiv, true)
    }
    fn __ifloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::FloorDiv)
    }
    fn __mod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Rem, false)
    }
    fn __rmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Rem, true)
    }
    fn __imod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Rem)
    }
    fn __pow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        operator(slf, o, Bin::Pow, false)
    }
    fn __rpow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        operator(slf, o, Bin::Pow, true)
    }
    fn __ipow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = modulo;
        in_place(slf, o, Bin::Pow)
    }
    fn __matmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        matmul_op(slf, o, false)
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        matmul_op(slf, o, true)
    }
    fn __imatmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let a = slf.borrow().data.clone();
        let b = o
            .cast::<Array>()
            .map_err(|_| PyTypeError::new_err("@= takes an array"))?
            .borrow()
            .data
            .clone();
        let out = crate::linalg::matmul(py, &a, &b)?;
        check_in_place(&a, &out, "matmul")?;
        slf.borrow_mut().data = out;
        Ok(())
    }
    fn __and__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::And, false)
    }
    fn __rand__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::And, true)
    }
    fn __iand__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::And)
    }
    fn __or__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Or, false)
    }
    fn __ror__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Or, true)
    }
    fn __ior__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Or)
    }
    fn __xor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Xor, false)
    }
    fn __rxor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Xor, true)
    }
    fn __ixor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Xor)
    }
    fn __lshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Shl, false)
    }
    fn __rlshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Shl, true)
    }
    fn __ilshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Shl)
    }
    fn __rshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Shr, false)
    }
    fn __rrshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Shr, true)
    }
    fn __irshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        in_place(slf, o, Bin::Shr)
    }
    fn __eq__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Eq, false)
    }
    fn __ne__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Ne, false)
    }
    fn __lt__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Lt, false)
    }
    fn __le__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Le, false)
    }
    fn __gt__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Gt, false)
    }
    fn __ge__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(slf, o, Bin::Ge, false)
    }

    /// Strides in elements (not part of the standard; for tests of views).
    #[getter]
    fn _strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.data.strides())
    }

    /// The address of the element whose index is all zeros (for tests of zero-copy paths).
    #[getter]
    fn _data_ptr(&self) -> usize {
        each_all!(&self.data, t => t.as_ptr() as usize)
    }
}

/// A Python scalar from a wide value.
pub fn wide_to_py(py: Python<'_>, w: Wide) -> PyResult<Py<PyAny>> {
    match w {
        Wide::Bool(b) => b.into_py_any(py),
        Wide::Int(i) => i.into_py_any(py),
        Wide::Float(f) => f.into_py_any(py),
        Wide::Complex(re, im) => num_complex::Complex::new(re, im).into_py_any(py),
    }
}

/// The array as `Data` for functions taking arrays only.
pub fn data_of(x: &Bound<'_, PyAny>, op: &str) -> PyResult<Data> {
    x.cast::<Array>()
        .map(|a| a.borrow().data.clone())
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{op}: expected an array, got {}",
                x.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })
}

/// `IntoData` for results that are already `Data` (so generic code can call it).
impl IntoData for Data {
    fn into_data(self) -> Data {
        self
    }
}
