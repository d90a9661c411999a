//! [`Device`]: one wgpu adapter opened as a logical device, with its queue, its limits
//! and the compute pipelines compiled on it so far.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A GPU opened through wgpu (Vulkan, Metal or DirectX 12). Cloning is cheap and gives
/// the same device; tensors of two devices opened separately never mix (their
/// operations return `Err`). Transfers to and from it are explicit
/// ([`TensorBase::to_device`](crate::TensorBase::to_device),
/// [`DeviceTensor::to_host`](super::DeviceTensor::to_host)).
///
/// The device keeps the compute pipelines it has compiled (one per kernel and element
/// type), so a kernel is compiled once per device; dropping the last clone frees them.
///
/// ```
/// use ferrotensor::device::Device;
/// match Device::wgpu() {
///     Ok(dev) => println!("running on {}", dev.name()),
///     Err(e) => println!("no GPU: {e}"),
/// }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    id: u64,
    name: String,
    backend: String,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) f16: bool,
    pub(crate) limits: wgpu::Limits,
    pipelines: Mutex<HashMap<String, wgpu::ComputePipeline>>,
    layouts: Mutex<HashMap<(usize, usize), wgpu::BindGroupLayout>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Device {
    /// Opens the system's preferred GPU (a discrete one if present) through wgpu with
    /// the adapter's full limits, and `f16` support when the adapter has it. The
    /// `WGPU_BACKEND` environment variable (`vulkan`, `metal`, `dx12`) narrows the
    /// choice. `Err` (never a panic) when no adapter exists or the device cannot be
    /// opened, saying so.
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     assert!(!dev.name().is_empty());
    /// }
    /// ```
    pub fn wgpu() -> Result<Device> {
        const OP: &str = "Device::wgpu";
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        if wgpu::Backends::from_env().is_none() {
            desc.backends = wgpu::Backends::PRIMARY;
        }
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| {
            Error::device(
                OP,
                format!(
                    "no GPU adapter found ({e}); on Linux a Vulkan driver is needed (e.g. the packages \
                     mesa-vulkan-drivers and libvulkan1)"
                ),
            )
        })?;
        let info = adapter.get_info();
        let f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("ferrotensor"),
            required_features: if f16 {
                wgpu::Features::SHADER_F16
            } else {
                wgpu::Features::empty()
            },
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::device(OP, format!("cannot open adapter {}: {e}", info.name)))?;
        Ok(Device {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                name: info.name.clone(),
                backend: format!("{:?}", info.backend),
                device,
                queue,
                f16,
                limits,
                pipelines: Mutex::new(HashMap::new()),
                layouts: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The adapter's name, e.g. `"llvmpipe (LLVM 15.0.6, 256 bits)"`.
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     println!("{}", dev.name());
    /// }
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The graphics API wgpu drives the adapter through (`"Vulkan"`, `"Metal"`, `"Dx12"`).
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     assert!(["Vulkan", "Metal", "Dx12", "Gl"].contains(&dev.backend()));
    /// }
    /// ```
    pub fn backend(&self) -> &str {
        &self.inner.backend
    }

    /// True if the adapter computes with `f16` (wgpu's `SHADER_F16`); without it, moving
    /// an `f16` tensor to this device is `Err`.
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     let t = ferrotensor::Tensor::from_vec(vec![half::f16::ONE], [1]).unwrap();
    ///     assert_eq!(t.to_device(&dev).is_ok(), dev.supports_f16());
    /// }
    /// ```
    pub fn supports_f16(&self) -> bool {
        self.inner.f16
    }

    /// The largest buffer, in bytes, a tensor on this device can have (the smaller of
    /// the adapter's buffer and storage-binding limits).
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     assert!(dev.max_buffer_bytes() >= 128 << 20);
    /// }
    /// ```
    pub fn max_buffer_bytes(&self) -> u64 {
        self.inner
            .limits
            .max_buffer_size
            .min(self.inner.limits.max_storage_buffer_binding_size)
    }

    /// Waits until every operation submitted so far has finished (for timing; results
    /// are always complete when read with `to_host`).
    ///
    /// ```
    /// if let Ok(dev) = ferrotensor::device::Device::wgpu() {
    ///     dev.synchronize().unwrap();
    /// }
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.inner
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::device("synchronize", format!("{self}: {e}")))
    }

    /// True if both handles are the same opened device.
    pub(crate) fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The bind group layout of `reads` read-only storage buffers followed by `writes`
    /// read-write ones.
    pub(crate) fn bind_layout(&self, reads: usize, writes: usize) -> wgpu::BindGroupLayout {
        let mut cache = self.inner.layouts.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry((reads, writes))
            .or_insert_with(|| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..reads + writes)
                    .map(|i| wgpu::BindGroupLayoutEntry {
                        binding: i as u32,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: i < reads },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                self.inner
                    .device
                    .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: None,
                        entries: &entries,
                    })
            })
            .clone()
    }

    /// The compute pipeline of `entry` in `source`, compiled on first use and cached
    /// under `key` (which must identify the source and entry point).
    pub(crate) fn pipeline(
        &self,
        label: &str,
        key: &str,
        source: impl FnOnce() -> String,
        entry: &str,
        reads: usize,
        writes: usize,
    ) -> wgpu::ComputePipeline {
        if let Some(p) = self.inner.pipelines.lock().unwrap_or_else(|p| p.into_inner()).get(key) {
            return p.clone();
        }
        let dev = &self.inner.device;
        let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source().into()),
        });
        let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&self.bind_layout(reads, writes))],
            immediate_size: 0,
        });
        let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        self.inner
            .pipelines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_string(), pipeline.clone());
        pipeline
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.same(other)
    }
}
impl Eq for Device {}

/// `wgpu:N (adapter name)`, N counting the devices opened by this process.
impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wgpu:{} ({})", self.inner.id, self.inner.name)
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({self}, {}, f16: {})", self.inner.backend, self.inner.f16)
    }
}
