//! Running kernels: WGSL templates made concrete per element type, parameter blocks,
//! and dispatches folded into two dimensions when one would exceed the device's
//! per-dimension workgroup limit.

use super::buffer::guarded;
use super::context::Device;
use crate::error::{Error, Result};
use wgpu::util::DeviceExt;

const COMMON: &str = include_str!("kernels/common.wgsl");

/// A WGSL kernel: its template source and the substitutions that make it concrete.
pub(crate) struct Kernel<'a> {
    /// Unique name of the template (part of the pipeline cache key).
    pub name: &'static str,
    /// The template; `{{KEY}}` is replaced by the value of `KEY` in `subst`.
    pub source: &'static str,
    /// Entry point.
    pub entry: &'static str,
    /// Substitutions.
    pub subst: &'a [(&'static str, &'a str)],
    /// Whether the shader uses `f16`.
    pub f16: bool,
    /// Number of read-only buffers (the parameter block first), then read-write ones.
    pub reads: usize,
    /// Number of read-write buffers.
    pub writes: usize,
}

impl Kernel<'_> {
    fn key(&self) -> String {
        let mut k = format!("{}:{}", self.name, self.entry);
        for (a, b) in self.subst {
            k.push_str(&format!(";{a}={b}"));
        }
        k
    }

    fn source(&self) -> String {
        let mut s = String::new();
        if self.f16 {
            s.push_str("enable f16;\n");
        }
        s.push_str(COMMON);
        let mut body = self.source.to_string();
        for (a, b) in self.subst {
            body = body.replace(&format!("{{{{{a}}}}}"), b);
        }
        debug_assert!(!body.contains("{{"), "unsubstituted key in {}: {body}", self.name);
        s.push_str(&body);
        s
    }
}

/// A parameter block: the `u32` words a kernel reads from binding 0.
#[derive(Default)]
pub(crate) struct Params(pub Vec<u32>);

impl Params {
    pub(crate) fn u(&mut self, x: usize) -> &mut Self {
        debug_assert!(x <= u32::MAX as usize);
        self.0.push(x as u32);
        self
    }
    pub(crate) fn i(&mut self, x: isize) -> &mut Self {
        debug_assert!(x >= i32::MIN as isize && x <= i32::MAX as isize);
        self.0.push(x as i32 as u32);
        self
    }
    pub(crate) fn us(&mut self, xs: &[usize]) -> &mut Self {
        for &x in xs {
            self.u(x);
        }
        self
    }
    pub(crate) fn is(&mut self, xs: &[isize]) -> &mut Self {
        for &x in xs {
            self.i(x);
        }
        self
    }
}

/// The commands of one operation: its dispatches go into one submission.
pub(crate) struct Launch<'a> {
    dev: &'a Device,
    op: &'static str,
    encoder: wgpu::CommandEncoder,
}

impl<'a> Launch<'a> {
    pub(crate) fn new(dev: &'a Device, op: &'static str) -> Self {
        let encoder = dev.inner.device.create_command_encoder(&Default::default());
        Launch { dev, op, encoder }
    }

    /// Records `workgroups` workgroups of `kernel` over `buffers` (read-only ones first,
    /// after the parameter block built from `params`). Kernels recover their flat
    /// workgroup index with `flat_group` and must ignore indices past the end.
    pub(crate) fn dispatch(
        &mut self,
        kernel: &Kernel<'_>,
        params: &Params,
        buffers: &[&wgpu::Buffer],
        workgroups: usize,
    ) -> Result<()> {
        if workgroups == 0 {
            return Ok(());
        }
        debug_assert_eq!(buffers.len() + 1, kernel.reads + kernel.writes);
        let dev = self.dev;
        let max = dev.inner.limits.max_compute_workgroups_per_dimension as usize;
        let x = workgroups.min(max);
        let y = workgroups.div_ceil(x);
        if y > max {
            return Err(Error::device(
                self.op,
                format!("{workgroups} workgroups exceed what {dev} can dispatch ({max} x {max})"),
            ));
        }
        let what = || format!("kernel {}", kernel.name);
        let pipeline = guarded(dev, self.op, what, || {
            dev.pipeline(
                kernel.name,
                &kernel.key(),
                || kernel.source(),
                kernel.entry,
                kernel.reads,
                kernel.writes,
            )
        })?;
        let words: &[u32] = if params.0.is_empty() { &[0] } else { &params.0 };
        let meta = dev.inner.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&meta)
            .chain(buffers.iter().copied())
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let group = dev.inner.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &dev.bind_layout(kernel.reads, kernel.writes),
            entries: &entries,
        });
        let mut pass = self.encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(x as u32, y as u32, 1);
        Ok(())
    }

    /// Submits the recorded work (it runs asynchronously; reads wait for it).
    pub(crate) fn submit(self) -> Result<()> {
        let dev = self.dev;
        let op = self.op;
        guarded(
            dev,
            op,
            || "submitting kernels".to_string(),
            move || {
                dev.inner.queue.submit([self.encoder.finish()]);
            },
        )
    }
}
