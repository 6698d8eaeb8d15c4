//! What a device is: the figures a CUDA user reads from `cudaGetDeviceProperties`.

/// A device's properties ([`Device::properties`](crate::Device::properties)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceProperties {
    pub name: String,
    /// `(major, minor)`: `(9, 0)` is `sm_90`. The CPU backend reports `#[kernel]`'s default
    /// target and holds each module to its own `.target`.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors; on the CPU backend, the host threads that run blocks.
    pub multiprocessors: u32,
    /// Bytes of device memory; `None` on the CPU backend, whose memory is the host's.
    pub total_memory: Option<u64>,
    pub max_threads_per_block: u32,
    /// Shared memory one block may use with the opt-in
    /// ([`LaunchConfig::with_max_dynamic_shared_bytes`](crate::LaunchConfig::with_max_dynamic_shared_bytes)).
    pub max_shared_bytes_per_block: u32,
    pub warp_size: u32,
}
