//! DLPack (v0.8 and v1.0 capsules): export without copying (the capsule holds one more
//! reference to the array's shared buffer, so the memory outlives the array; marked
//! read-only in v1.0 capsules because other ferrotensor arrays may share it), and
//! import by copying into a new buffer (ferrotensor arrays own their memory).

use crate::data::{Data, IntoData};
use crate::each_all;
use crate::errors::OrPy;
use crate::with_type;
use ferrotensor::io::DType;
use ferrotensor::layout::Layout;
use ferrotensor::{IxDyn, TensorView};
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::{CStr, c_void};

/// `kDLCPU`.
pub const KDL_CPU: i32 = 1;

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

const FLAG_READ_ONLY: u64 = 1;
const NAME: &CStr = c"dltensor";
const NAME_VERSIONED: &CStr = c"dltensor_versioned";
const USED: &CStr = c"used_dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";

fn dl_type(dt: DType) -> DLDataType {
    let code = match dt {
        DType::Bool => 6,
        d if d.is_signed_int() => 0,
        d if d.is_unsigned_int() => 1,
        DType::BF16 => 4,
        d if d.is_complex() => 5,
        _ => 2,
    };
    DLDataType {
        code,
        bits: (dt.size() * 8) as u8,
        lanes: 1,
    }
}

fn from_dl_type(t: DLDataType) -> PyResult<DType> {
    let dt = match (t.code, t.bits, t.lanes) {
        (6, 8, 1) => DType::Bool,
        (0, 8, 1) => DType::I8,
        (0, 16, 1) => DType::I16,
        (0, 32, 1) => DType::I32,
        (0, 64, 1) => DType::I64,
        (1, 8, 1) => DType::U8,
        (1, 16, 1) => DType::U16,
        (1, 32, 1) => DType::U32,
        (1, 64, 1) => DType::U64,
        (2, 32, 1) => DType::F32,
        (2, 64, 1) => DType::F64,
        (5, 64, 1) => DType::C64,
        (5, 128, 1) => DType::C128,
        (c, b, l) => {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: unsupported DLPack dtype (code {c}, {b} bits, {l} lanes)"
            )));
        }
    };
    Ok(dt)
}

/// What an exported capsule owns: the array (one more reference to its buffer) and the
/// shape and strides the `DLTensor` points at.
struct Holder<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _data: Data,
}

/// The deleter of a legacy (unversioned) DLPack tensor made by `export`.
///
/// # Safety
/// `m` is null or the `DLManagedTensor` of a `Holder` that `export` leaked, and this is
/// the only call for it (the DLPack protocol calls the deleter once).
unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` is the first field of a `Holder` leaked by `export` (`manager_ctx`
    // points at that holder); the protocol calls the deleter exactly once.
    unsafe {
        drop(Box::from_raw(
            (*m).manager_ctx as *mut Holder<DLManagedTensor>,
        ))
    };
}

/// The deleter of a versioned DLPack tensor made by `export`.
///
/// # Safety
/// As [`delete_legacy`], for a `DLManagedTensorVersioned`.
unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    // SAFETY: as in `delete_legacy`, for the versioned struct.
    unsafe {
        drop(Box::from_raw(
            (*m).manager_ctx as *mut Holder<DLManagedTensorVersioned>,
        ))
    };
}

/// Capsule destructor: frees the tensor unless a consumer took it (renamed the capsule).
///
/// # Safety
/// `capsule` is a live capsule object made by `export` (CPython calls this once, from
/// the capsule's deallocation).
unsafe extern "C" fn capsule_destructor(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: `capsule` is a live capsule (CPython calls this from its deallocation);
    // the pointer stored under the unconsumed names is the managed tensor `export` made.
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, NAME_VERSIONED.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if pyo3::ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

fn dl_tensor(data: &Data, shape: &mut [i64], strides: &mut [i64]) -> DLTensor {
    let ptr = each_all!(data, t => t.as_ptr() as *mut c_void);
    DLTensor {
        data: ptr,
        device: DLDevice {
            device_type: KDL_CPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: dl_type(data.dtype()),
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

/// A DLPack capsule over `data`'s memory (no copy); a v1.0 (versioned, read-only)
/// capsule when the consumer asked for it.
pub fn export<'py>(py: Python<'py>, data: Data, versioned: bool) -> PyResult<Bound<'py, PyAny>> {
    let mut shape: Vec<i64> = data.shape().iter().map(|&d| d as i64).collect();
    let mut strides: Vec<i64> = data.strides().iter().map(|&s| s as i64).collect();
    // SAFETY (for the raw calls below): the holder is leaked into the capsule and freed
    // by exactly one deleter call (the consumer's, or our capsule destructor's).
    let capsule = if versioned {
        let tensor = dl_tensor(&data, &mut shape, &mut strides);
        let holder = Box::new(Holder {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags: FLAG_READ_ONLY,
                dl_tensor: tensor,
            },
            shape,
            strides,
            _data: data,
        });
        let raw = Box::into_raw(holder);
        // SAFETY: `raw` is a valid, leaked holder; the vectors' heap buffers did not move.
        unsafe {
            (*raw).managed.manager_ctx = raw as *mut c_void;
            (*raw).managed.dl_tensor.shape = (*raw).shape.as_mut_ptr();
            (*raw).managed.dl_tensor.strides = (*raw).strides.as_mut_ptr();
            pyo3::ffi::PyCapsule_New(
                &mut (*raw).managed as *mut _ as *mut c_void,
                NAME_VERSIONED.as_ptr(),
                Some(capsule_destructor),
            )
        }
    } else {
        let tensor = dl_tensor(&data, &mut shape, &mut strides);
        let holder = Box::new(Holder {
            managed: DLManagedTensor {
                dl_tensor: tensor,
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_legacy),
            },
            shape,
            strides,
            _data: data,
        });
        let raw = Box::into_raw(holder);
        // SAFETY: as above.
        unsafe {
            (*raw).managed.manager_ctx = raw as *mut c_void;
            (*raw).managed.dl_tensor.shape = (*raw).shape.as_mut_ptr();
            (*raw).managed.dl_tensor.strides = (*raw).strides.as_mut_ptr();
            pyo3::ffi::PyCapsule_New(
                &mut (*raw).managed as *mut _ as *mut c_void,
                NAME.as_ptr(),
                Some(capsule_destructor),
            )
        }
    };
    // SAFETY: `PyCapsule_New` returns a new reference or null with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, capsule) }
}

/// A copy of a `DLTensor`'s elements as an array.
///
/// # Safety
/// `t` must describe valid, readable CPU memory (the producer's promise).
unsafe fn copy_tensor(t: &DLTensor) -> PyResult<Data> {
    if t.device.device_type != KDL_CPU {
        return Err(PyBufferError::new_err(
            "from_dlpack: only CPU memory can be imported",
        ));
    }
    let dt = from_dl_type(t.dtype)?;
    let nd =
        usize::try_from(t.ndim).map_err(|_| PyValueError::new_err("from_dlpack: negative ndim"))?;
    // SAFETY: the producer gives `ndim` shape entries (and strides, if not null).
    let shape: Vec<usize> = if nd == 0 {
        Vec::new()
    } else {
        unsafe { std::slice::from_raw_parts(t.shape, nd) }
            .iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| PyValueError::new_err("from_dlpack: negative dimension"))
            })
            .collect::<PyResult<_>>()?
    };
    let strides: Vec<isize> = if t.strides.is_null() || nd == 0 {
        let mut s = vec![0isize; nd];
        let mut acc = 1isize;
        for i in (0..nd).rev() {
            s[i] = acc;
            acc *= shape[i].max(1) as isize;
        }
        s
    } else {
        unsafe { std::slice::from_raw_parts(t.strides, nd) }
            .iter()
            .map(|&s| s as isize)
            .collect()
    };
    let size: usize = shape.iter().product();
    let base = (t.data as *const u8).wrapping_add(t.byte_offset as usize);
    Ok(with_type!(dt, T => {
        if size == 0 {
            ferrotensor::Tensor::<T, IxDyn>::from_vec(Vec::new(), shape).py()?.into_data()
        } else {
            // the span of elements reached, relative to element [0, …, 0]
            let (mut lo, mut hi) = (0isize, 0isize);
            for (&d, &s) in shape.iter().zip(&strides) {
                let far = (d as isize - 1) * s;
                if far < 0 { lo += far } else { hi += far }
            }
            let esize = std::mem::size_of::<T>() as isize;
            let first = base.wrapping_offset(lo * esize) as *const T;
            if !(first as usize).is_multiple_of(std::mem::align_of::<T>()) {
                return Err(PyBufferError::new_err("from_dlpack: misaligned data"));
            }
            let n = (hi - lo + 1) as usize;
            if dt == DType::Bool {
                // SAFETY: the producer's memory holds every element its layout reaches,
                // `first..=last` (bytes for bool); read as bytes before any `bool` is formed.
                let bytes = unsafe { std::slice::from_raw_parts(first.cast::<u8>(), n) };
                if bytes.iter().any(|&b| b > 1) {
                    return Err(PyValueError::new_err("from_dlpack: bool bytes other than 0 and 1"));
                }
            }
            // SAFETY: as above; the span is aligned (checked), holds valid values of `T`
            // (bool bytes checked), and stays alive until we call the deleter after copying.
            let buf = unsafe { std::slice::from_raw_parts(first, n) };
            let layout = Layout::new(IxDyn::from(shape.as_slice()), strides.iter().copied().collect(), (-lo) as usize);
            TensorView::from_slice_layout(buf, layout).py()?.to_owned().into_data()
        }
    }, unreachable!()))
}

/// A copy of the array that `obj` exports through `__dlpack__`.
pub fn import(obj: &Bound<'_, PyAny>) -> PyResult<Data> {
    let py = obj.py();
    if let Ok(dev) = obj.call_method0("__dlpack_device__") {
        let (kind, _): (i32, i32) = dev.extract()?;
        if kind != KDL_CPU {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: device type {kind} is not the CPU"
            )));
        }
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("max_version", (1, 0))?;
    let capsule = match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => c,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => obj.call_method0("__dlpack__")?,
        Err(e) => return Err(e),
    };
    let cap = capsule.as_ptr();
    // SAFETY: `cap` is a live object; the capsule API checks its type and name, and the
    // pointer under a valid name is the producer's managed tensor, which we read, copy,
    // then release through its deleter after renaming the capsule (so its destructor
    // will not release it again).
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(cap, NAME_VERSIONED.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(cap, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if (*m).version.major > 1 {
                return Err(PyBufferError::new_err(
                    "from_dlpack: DLPack major version above 1",
                ));
            }
            let out = copy_tensor(&(*m).dl_tensor);
            pyo3::ffi::PyCapsule_SetName(cap, USED_VERSIONED.as_ptr());
            if let Some(d) = (*m).deleter {
                d(m);
            }
            out
        } else if pyo3::ffi::PyCapsule_IsValid(cap, NAME.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(cap, NAME.as_ptr()) as *mut DLManagedTensor;
            let out = copy_tensor(&(*m).dl_tensor);
            pyo3::ffi::PyCapsule_SetName(cap, USED.as_ptr());
            if let Some(d) = (*m).deleter {
                d(m);
            }
            out
        } else {
            Err(PyTypeError::new_err(
                "from_dlpack: __dlpack__ did not return a DLPack capsule",
            ))
        }
    }
}
