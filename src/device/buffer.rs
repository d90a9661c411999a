//! Device memory: allocation (with out-of-memory as `Err`), upload and read-back of
//! the raw buffers under device tensors.

use super::context::Device;
use super::element::DType;
use crate::error::{Error, Result};
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// A buffer in device memory holding `len` elements of `dtype`.
pub(crate) struct DeviceBuffer {
    pub(crate) raw: wgpu::Buffer,
    pub(crate) len: usize,
    pub(crate) device: Device,
}

/// Runs `f` with wgpu's error scopes open and turns a captured out-of-memory or
/// validation error into `Err` naming `op` and what `what` describes.
pub(crate) fn guarded<R>(
    dev: &Device,
    op: &'static str,
    what: impl Fn() -> String,
    f: impl FnOnce() -> R,
) -> Result<R> {
    let d = &dev.inner.device;
    let oom = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let internal = d.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = d.push_error_scope(wgpu::ErrorFilter::Validation);
    let r = f();
    let validation = pollster::block_on(validation.pop());
    let internal = pollster::block_on(internal.pop());
    let oom = pollster::block_on(oom.pop());
    if let Some(e) = oom {
        return Err(Error::device(op, format!("out of memory on {dev} ({}): {e}", what())));
    }
    if let Some(e) = internal.or(validation) {
        return Err(Error::device(
            op,
            format!("{dev} rejected the operation ({}): {e}", what()),
        ));
    }
    Ok(r)
}

/// Bytes of a buffer for `len` elements: rounded up to 4 (wgpu's copy alignment),
/// at least 4 (a binding cannot be empty); `Err` past the device's limits.
fn buffer_bytes(dev: &Device, dtype: DType, len: usize, op: &'static str, what: &dyn Fn() -> String) -> Result<u64> {
    let bytes = (len as u128 * dtype.device_size() as u128).max(4).next_multiple_of(4);
    let max = dev.max_buffer_bytes();
    if bytes > max as u128 || len > i32::MAX as usize {
        return Err(Error::device(
            op,
            format!(
                "out of device memory: {} needs {bytes} bytes of {} in one buffer; {dev} allows at most {max} bytes \
                 (and 2^31 - 1 elements) per buffer",
                what(),
                dtype.name()
            ),
        ));
    }
    Ok(bytes as u64)
}

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

impl DeviceBuffer {
    /// A zero-filled buffer of `len` elements; `what` describes the tensor for errors.
    pub(crate) fn alloc(
        dev: &Device,
        dtype: DType,
        len: usize,
        op: &'static str,
        what: &dyn Fn() -> String,
    ) -> Result<Arc<DeviceBuffer>> {
        let size = buffer_bytes(dev, dtype, len, op, what)?;
        let raw = guarded(dev, op, what, || {
            dev.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: USAGE,
                mapped_at_creation: false,
            })
        })?;
        Ok(Arc::new(DeviceBuffer {
            raw,
            len,
            device: dev.clone(),
        }))
    }

    /// A buffer holding `bytes` (`len` elements of `dtype`).
    pub(crate) fn upload(
        dev: &Device,
        dtype: DType,
        bytes: &[u8],
        op: &'static str,
        what: &dyn Fn() -> String,
    ) -> Result<Arc<DeviceBuffer>> {
        let len = bytes.len() / dtype.device_size();
        let size = buffer_bytes(dev, dtype, len, op, what)? as usize;
        let raw = guarded(dev, op, what, || {
            if size == bytes.len() {
                dev.inner.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: bytes,
                    usage: USAGE,
                })
            } else {
                let mut padded = bytes.to_vec();
                padded.resize(size, 0);
                dev.inner.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: &padded,
                    usage: USAGE,
                })
            }
        })?;
        Ok(Arc::new(DeviceBuffer {
            raw,
            len,
            device: dev.clone(),
        }))
    }

    /// The device bytes of elements `start..start + count`, after all work queued so
    /// far has finished.
    pub(crate) fn read(&self, dtype: DType, start: usize, count: usize, op: &'static str) -> Result<Vec<u8>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let esize = dtype.device_size() as u64;
        let (lo, hi) = (start as u64 * esize, (start + count) as u64 * esize);
        // Copies move multiples of 4 bytes from 4-aligned offsets.
        let (alo, ahi) = (lo / 4 * 4, hi.next_multiple_of(4));
        let dev = &self.device;
        let what = || format!("reading {count} elements of {} back to the host", dtype.name());
        let staging = guarded(dev, op, what, || {
            let staging = dev.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: ahi - alo,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut enc = dev.inner.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&self.raw, alo, &staging, 0, ahi - alo);
            dev.inner.queue.submit([enc.finish()]);
            staging
        })?;
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        dev.synchronize()?;
        rx.recv()
            .map_err(|_| Error::device(op, format!("{dev}: the read-back was dropped (device lost?)")))?
            .map_err(|e| Error::device(op, format!("{dev}: mapping the read-back failed: {e}")))?;
        let out = {
            let view = staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::device(op, format!("{dev}: reading the mapped buffer failed: {e}")))?;
            view[(lo - alo) as usize..(hi - alo) as usize].to_vec()
        };
        staging.unmap();
        Ok(out)
    }
}
