//! The table `build.rs` wrote, embedded, registered and used: docs/cubins.md end to end.

/// Every kernel of `ptx-cubin-kernels`, assembled at build time.
pub static CUBINS: &[ptx_runtime::cubin::CubinTable] = ptx_runtime::include_cubins!();

#[cfg(test)]
mod tests {
    use super::CUBINS;
    use ptx_cubin_kernels::{count_up, halve_all, halve_all_jit};
    use ptx_runtime::cubin::{self, Arch};
    use ptx_runtime::{Device, DeviceBuffer, LaunchConfig};
    use std::io::Write;
    use std::time::Instant;

    #[test]
    fn the_embedded_table_serves_the_kernels_it_was_built_from() {
        let archs: Vec<Arch> = env!("CUBIN_APP_ARCHS").split(',').filter(|s| !s.is_empty()).map(|a| Arch::parse(a).unwrap()).collect();
        cubin::register(CUBINS);
        if archs.is_empty() {
            // No ptxas at build time (the build said so) or no architectures asked for: PTX only.
            assert!(CUBINS.is_empty());
            assert!(cubin::lookup(&halve_all::KERNEL).is_none());
            return;
        }
        assert_eq!(CUBINS.len(), 2);
        // The build script's copy of each kernel has the PTX this crate's copy has, so the
        // tables serve this program's kernels.
        let halve = cubin::lookup(&halve_all::KERNEL).expect("halve_all's table");
        let count = cubin::lookup(&count_up::KERNEL).expect("count_up's table");
        assert_eq!(halve.cubins.iter().map(|c| c.arch).collect::<Vec<_>>(), archs);
        // count_up targets sm_80: no image for an older architecture.
        let newer: Vec<Arch> = archs.iter().copied().filter(|a| a.sm >= 80).collect();
        assert_eq!(count.cubins.iter().map(|c| c.arch).collect::<Vec<_>>(), newer);
        for c in halve.cubins.iter().chain(count.cubins) {
            assert_eq!(&c.image[..4], b"\x7fELF", "{}", c.arch);
        }
        if archs.contains(&Arch::new(90)) {
            assert_eq!(cubin::image_for(&halve_all::KERNEL, (9, 0)).map(|c| c.arch), Some(Arch::new(90)));
        }
    }

    #[test]
    fn the_cpu_backend_runs_the_ptx() {
        cubin::register(CUBINS);
        let stream = Device::new_cpu().stream();
        let mut x = DeviceBuffer::from_slice(&stream, &[2.0f32, 5.0, -1.0]).unwrap();
        halve_all::launch(&stream, LaunchConfig::for_num_elems(3), &mut x).unwrap();
        assert_eq!(x.to_vec().unwrap(), [1.0, 2.5, -0.5]);
        let mut n = DeviceBuffer::from_slice(&stream, &[10u32; 4]).unwrap();
        count_up::launch(&stream, LaunchConfig::for_num_elems(4), &mut n).unwrap();
        assert_eq!(n.to_vec().unwrap(), [10, 11, 12, 13]);
    }

    /// On a GPU: the registered cubin is what the first launch loads (the JIT compiles
    /// nothing), the kernel computes the right thing, and the first module load is timed with
    /// the cubin and with the PTX JIT-compiled (`halve_all_jit` has no table). Skipped, with a
    /// notice, without a GPU.
    #[test]
    fn on_a_gpu_the_first_launch_loads_the_cubin() {
        // The driver's JIT cache would hide the JIT's cost from the second run on.
        std::env::set_var("CUDA_CACHE_DISABLE", "1");
        let device = match Device::cuda(0) {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "SKIPPED (no CUDA device: {e}): embedded cubins on a GPU");
                return;
            }
        };
        cubin::register(CUBINS);
        let cc = device.properties().unwrap().compute_capability;
        let chosen = cubin::image_for(&halve_all::KERNEL, cc).map(|c| c.arch);
        let start = Instant::now();
        let log_cubin = device.jit_info_log(&halve_all::KERNEL).unwrap().unwrap_or_default();
        let with_cubin = start.elapsed();
        let start = Instant::now();
        let log_ptx = device.jit_info_log(&halve_all_jit::KERNEL).unwrap().unwrap_or_default();
        let with_jit = start.elapsed();
        let _ = writeln!(
            std::io::stderr(),
            "cubin_app: first module load on {} (compute capability {}.{}): {:.2} ms from {}, {:.2} ms JIT-compiling the PTX",
            device.name(),
            cc.0,
            cc.1,
            with_cubin.as_secs_f64() * 1e3,
            chosen.map_or("the PTX (no cubin fits)".to_owned(), |a| format!("the {a} cubin")),
            with_jit.as_secs_f64() * 1e3
        );
        // The JIT's verbose log names each function it compiles; loading a cubin compiles none.
        if chosen.is_some() && log_ptx.contains("Compiling entry function") {
            assert!(!log_cubin.contains("Compiling entry function"), "the cubin was not used:\n{log_cubin}");
        }
        let stream = device.stream();
        for kernel in [0, 1] {
            let mut x = DeviceBuffer::from_slice(&stream, &[2.0f32, 5.0, -1.0]).unwrap();
            if kernel == 0 {
                halve_all::launch(&stream, LaunchConfig::for_num_elems(3), &mut x).unwrap();
            } else {
                halve_all_jit::launch(&stream, LaunchConfig::for_num_elems(3), &mut x).unwrap();
            }
            assert_eq!(x.to_vec().unwrap(), [1.0, 2.5, -0.5]);
        }
    }
}
