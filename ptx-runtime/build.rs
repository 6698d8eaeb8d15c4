//! Tells the crate whether it is being compiled without optimisation, so the CPU backend can
//! say why a large launch is slow in a dev build (`cfg(ptx_runtime_unoptimized)`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(ptx_runtime_unoptimized)");
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo:rustc-cfg=ptx_runtime_unoptimized");
    }
}
