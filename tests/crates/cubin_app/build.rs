//! Assembles the kernels of `ptx-cubin-kernels` for sm_75 and sm_90 (or `PTX_CUBIN_ARCHS`),
//! as docs/cubins.md tells a user to.

use ptx_cubin_kernels::{count_up, halve_all};
use ptx_runtime::cubin::{find_ptxas, Arch, Builder};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut cubins = Builder::from_env().default_archs(&[Arch::new(75), Arch::new(90)]);
    cubins.kernel(&halve_all::KERNEL).kernel(&count_up::KERNEL);
    if let Err(e) = cubins.write() {
        eprintln!("{e}");
        std::process::exit(1);
    }
    // What the test expects: the archs asked for, and whether there was a ptxas to assemble.
    let out = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from);
    let found = find_ptxas(out.as_deref()).is_some();
    let archs: Vec<String> = cubins.archs().iter().map(Arch::to_string).collect();
    println!("cargo:rustc-env=CUBIN_APP_ARCHS={}", if found { archs.join(",") } else { String::new() });
}
