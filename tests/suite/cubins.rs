//! Embedded cubins (docs/cubins.md): the build-script assembler's table checked with
//! cuobjdump (one image per architecture, each holding the kernel's entry, for its
//! architecture), architectures below a module's `.target` skipped, ptxas's errors reported,
//! and a registered table leaving the CPU backend on the PTX. The choice of cubin per compute
//! capability is unit-tested in `ptx-runtime/src/cubin/select.rs`.

use crate::tools::{scratch_dir, tool};
use ptx_runtime::cubin::{self, Arch, Builder, Cubin, CubinTable};
use ptx_runtime::device::*;
use ptx_runtime::{Device, DeviceBuffer, Kernel, LaunchConfig};
use std::path::Path;
use std::process::Command;

#[ptx_runtime::device_fn]
pub fn cubin_twice(v: f32) -> f32 {
    v * 2.0
}

#[ptx_runtime::kernel]
pub fn cubin_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        y[i] = a * x[i] + cubin_twice(y[i]);
    }
}

#[ptx_runtime::kernel(sm = 80)]
pub fn cubin_sm80(y: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < y.len() {
        y[i] += 1;
    }
}

/// `cuobjdump -sass` of an image: the `code for sm_XX` header and every `Function :` name.
fn listing(cuobjdump: &Path, image: &[u8], tag: &str) -> (Vec<String>, Vec<String>) {
    let file = scratch_dir("cubins").join(format!("{tag}.cubin"));
    std::fs::write(&file, image).expect("write cubin");
    let out = Command::new(cuobjdump).arg("-sass").arg(&file).output().expect("cuobjdump");
    assert!(out.status.success(), "cuobjdump: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let archs = text.lines().filter_map(|l| l.trim().strip_prefix("code for ").map(str::to_owned)).collect();
    let funcs = text.lines().filter_map(|l| l.trim().strip_prefix("Function : ").map(|f| f.trim().to_owned())).collect();
    (archs, funcs)
}

#[test]
fn each_architecture_gets_an_image_holding_the_entry() {
    let Some(ptxas) = tool("PTXAS", "ptxas", "embedded cubins") else { return };
    let Some(cuobjdump) = tool("CUOBJDUMP", "cuobjdump", "embedded cubins") else { return };
    let archs = [Arch::new(75), Arch::new(80), Arch::new(90), Arch { sm: 90, specific: true }];
    let mut builder = Builder::new(&archs).ptxas(&ptxas);
    builder.kernel(&cubin_axpy::KERNEL).kernel(&cubin_sm80::KERNEL);
    let work = scratch_dir("cubins-work");
    let (tables, notes) = builder.assemble(&work).expect("assemble");
    assert_eq!(tables.len(), 2);
    // The sm_80 module has no sm_75 image: ptxas refuses it and no such GPU could run it.
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains(cubin_sm80::ENTRY) && notes[0].contains("no sm_75 cubin, the module targets sm_80"), "{notes:?}");
    for (t, kernel, want) in [(&tables[0], &cubin_axpy::KERNEL, &archs[..]), (&tables[1], &cubin_sm80::KERNEL, &archs[1..])] {
        assert_eq!(t.entry, kernel.entry);
        assert_eq!((t.ptx_hash, t.ptx_len), (cubin::ptx_hash(kernel.ptx), kernel.ptx.len()));
        assert_eq!(t.cubins.iter().map(|(a, _)| *a).collect::<Vec<_>>(), want);
        for (arch, image) in &t.cubins {
            assert_eq!(&image[..4], b"\x7fELF", "{arch}: a cubin is an ELF file");
            let (code, funcs) = listing(&cuobjdump, image, &format!("{}-{arch}", t.entry));
            assert_eq!(code, [arch.to_string()], "{}", t.entry);
            // The entry, and only functions of this module, under the names the PTX gives them.
            assert!(funcs.iter().any(|f| f == kernel.entry), "{funcs:?}");
            assert!(funcs.iter().all(|f| kernel.ptx.contains(f.as_str())), "{funcs:?}");
        }
    }
    // The table's source names the images the assembler left in the work directory.
    let source = cubin::table_source(&tables, &work);
    for (i, t) in tables.iter().enumerate() {
        for (arch, image) in &t.cubins {
            let file = work.join(format!("k{i}.{arch}.cubin"));
            assert!(source.contains(&format!("include_bytes!({:?})", file.to_string_lossy())), "{source}");
            assert_eq!(&std::fs::read(&file).expect("image file"), image);
        }
    }
}

#[test]
fn ptxas_errors_are_reported() {
    let Some(ptxas) = tool("PTXAS", "ptxas", "embedded cubins") else { return };
    static BROKEN: Kernel = Kernel::new(".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry broken() { bogus.u32 %r1; }\n", "broken");
    let mut builder = Builder::new(&[Arch::new(80)]).ptxas(&ptxas);
    builder.kernel(&BROKEN);
    let err = builder.assemble(&scratch_dir("cubins-broken")).unwrap_err().to_string();
    assert!(err.contains("ptxas -arch=sm_80 failed on the module of `broken`"), "{err}");
}

#[test]
fn the_cpu_backend_runs_the_ptx_beside_a_registered_table() {
    // Not a real cubin: the CPU backend must never look at it.
    static IMAGES: [Cubin; 1] = [Cubin { arch: Arch::new(80), image: b"not a cubin" }];
    let table = CubinTable { entry: cubin_axpy::ENTRY, ptx_hash: cubin::ptx_hash(cubin_axpy::PTX), ptx_len: cubin_axpy::PTX.len(), cubins: &IMAGES };
    let stale = CubinTable { ptx_hash: table.ptx_hash ^ 1, entry: cubin_sm80::ENTRY, ..table };
    cubin::register(Box::leak(Box::new([table, stale])));
    // A CUDA device of compute capability 8.x would load the image; 9.0 would JIT the PTX.
    assert!(cubin::image_for(&cubin_axpy::KERNEL, (8, 6)).is_some_and(|c| c.image == b"not a cubin"));
    assert!(cubin::image_for(&cubin_axpy::KERNEL, (9, 0)).is_none());
    // A table assembled from other PTX text is never used.
    assert!(cubin::lookup(&cubin_sm80::KERNEL).is_none());

    let device = Device::new_cpu();
    let stream = device.stream();
    let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let y0: Vec<f32> = (0..100).map(|i| 0.5 * i as f32).collect();
    let dx = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut dy = DeviceBuffer::from_slice(&stream, &y0).unwrap();
    cubin_axpy::launch(&stream, LaunchConfig::for_num_elems(100), 3.0, &dx, &mut dy).unwrap();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 3.0 * x + y * 2.0).collect();
    assert_eq!(dy.to_vec().unwrap(), want);
    assert_eq!(device.modules_loaded(), 1);
}
