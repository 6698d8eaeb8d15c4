//! The table `build.rs` wrote, embedded, registered and used: docs/cubins.md end to end.

/// Every kernel of `ptx-cubin-kernels`, assembled at build time.
pub static CUBINS: &[ptx_runtime::cubin::CubinTable] = ptx_runtime::include_cubins!();

#[cfg(test)]
mod tests {
    use super::CUBINS;
    use ptx_cubin_kernels::{count_up, halve_all};
    use ptx_runtime::cubin::{self, Arch};
    use ptx_runtime::{Device, DeviceBuffer, LaunchConfig};

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
}
