//! The build-script half: assembles kernels' PTX with `ptxas` for the architectures the user
//! asks for and writes the table `include_cubins!` embeds.
//!
//! The PTX text of a kernel exists only after rustc's const evaluation (its callees, mangled
//! names and constants are pieces only rustc resolves), so it cannot be assembled while the
//! macro expands; a build script that depends on the crate holding the kernels reads the
//! finished `KERNEL`s instead. No ptxas is not an error unless asked for (`PTX_CUBIN_REQUIRE`):
//! the table is then empty and every module is JIT-compiled from its PTX, as without a table.

use super::{ptx_hash, Arch};
use crate::kernel::Kernel;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures to assemble for, comma-separated: `PTX_CUBIN_ARCHS=sm_80,sm_90`.
pub const ARCHS_ENV: &str = "PTX_CUBIN_ARCHS";
/// `PTX_CUBIN_REQUIRE=1`: a build that cannot assemble the cubins fails instead of embedding
/// PTX only.
pub const REQUIRE_ENV: &str = "PTX_CUBIN_REQUIRE";

/// `sm_80,sm_90a` → the architectures; an error names an entry that is not one.
pub fn parse_archs(list: &str) -> Result<Vec<Arch>, String> {
    let mut archs = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let arch = Arch::parse(item).ok_or_else(|| format!("{ARCHS_ENV}: `{item}` is not a real GPU architecture; write names such as `sm_80`, `sm_90` or `sm_90a`"))?;
        if !archs.contains(&arch) {
            archs.push(arch);
        }
    }
    Ok(archs)
}

/// ptxas from `PTXAS`, `PATH`, `$CUDA_PATH/bin`, or the wheels `cargo xtask tools` installs in
/// `target/cuda-tools` of a directory above `start` (a build script's `OUT_DIR`).
pub fn find_ptxas(start: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS").map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(p);
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        dirs.push(PathBuf::from(cuda).join("bin"));
    }
    for dir in start.into_iter().flat_map(Path::ancestors) {
        let wheels = Path::new("cuda-tools").join("nvidia").join("cu13").join("bin");
        dirs.push(dir.join(&wheels));
        dirs.push(dir.join("target").join(&wheels));
    }
    dirs.into_iter().map(|d| d.join(if cfg!(windows) { "ptxas.exe" } else { "ptxas" })).find(|p| p.is_file())
}

/// One kernel's assembled images.
#[derive(Debug, Clone)]
pub struct Assembled {
    pub entry: &'static str,
    pub ptx_hash: u64,
    pub ptx_len: usize,
    pub cubins: Vec<(Arch, Vec<u8>)>,
}

/// Assembles kernels for a list of architectures and writes their table.
///
/// ```no_run
/// // build.rs of a crate with `[build-dependencies] my-kernels = ...`
/// fn main() {
///     let mut cubins = ptx_runtime::cubin::Builder::from_env();
///     # mod my_kernels { pub mod saxpy { pub static KERNEL: ptx_runtime::Kernel = ptx_runtime::Kernel::new("", "saxpy"); } }
///     cubins.kernel(&my_kernels::saxpy::KERNEL);
///     cubins.write().unwrap();
/// }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Builder {
    archs: Vec<Arch>,
    require: bool,
    ptxas: Option<PathBuf>,
    kernels: Vec<&'static Kernel>,
    /// Why the archs list is what it is when `from_env` could not read it.
    env_error: Option<String>,
    /// Whether `PTX_CUBIN_ARCHS` was set (even to nothing).
    env_set: bool,
}

impl Builder {
    /// The architectures of `PTX_CUBIN_ARCHS` (none when it is unset: PTX only) and
    /// `PTX_CUBIN_REQUIRE`; tells cargo to rerun the build script when either changes.
    pub fn from_env() -> Builder {
        for var in [ARCHS_ENV, REQUIRE_ENV, "PTXAS", "CUDA_PATH"] {
            println!("cargo:rerun-if-env-changed={var}");
        }
        let require = std::env::var(REQUIRE_ENV).is_ok_and(|v| !v.is_empty() && v != "0");
        let (archs, env_error, env_set) = match std::env::var(ARCHS_ENV) {
            Ok(list) => match parse_archs(&list) {
                Ok(a) => (a, None, true),
                Err(e) => (Vec::new(), Some(e), true),
            },
            Err(_) => (Vec::new(), None, false),
        };
        Builder { archs, require, env_error, env_set, ..Builder::default() }
    }

    /// The architectures a crate assembles for when `PTX_CUBIN_ARCHS` is unset; the user's
    /// setting (`PTX_CUBIN_ARCHS=` for none) wins.
    pub fn default_archs(mut self, archs: &[Arch]) -> Builder {
        if !self.env_set {
            self.archs = archs.to_vec();
        }
        self
    }

    /// A builder for these architectures, whatever the environment says.
    pub fn new(archs: &[Arch]) -> Builder {
        Builder { archs: archs.to_vec(), ..Builder::default() }
    }

    /// Fail, instead of embedding PTX only, when ptxas is missing.
    pub fn require(mut self, require: bool) -> Builder {
        self.require = require;
        self
    }

    /// Use this ptxas instead of searching for one.
    pub fn ptxas(mut self, path: impl Into<PathBuf>) -> Builder {
        self.ptxas = Some(path.into());
        self
    }

    /// Adds a kernel (`my_kernels::saxpy::KERNEL`).
    pub fn kernel(&mut self, kernel: &'static Kernel) -> &mut Builder {
        self.kernels.push(kernel);
        self
    }

    pub fn archs(&self) -> &[Arch] {
        &self.archs
    }

    /// Assembles every kernel for every architecture in `work` (a scratch directory). Returns
    /// the images and the notes to show (architectures skipped, ptxas missing). An
    /// architecture older than a module's `.target` is skipped for that module: ptxas refuses
    /// it and no such device could run the kernel.
    pub fn assemble(&self, work: &Path) -> io::Result<(Vec<Assembled>, Vec<String>)> {
        if let Some(e) = &self.env_error {
            return Err(io::Error::other(e.clone()));
        }
        let mut notes = Vec::new();
        if self.archs.is_empty() || self.kernels.is_empty() {
            return Ok((Vec::new(), notes));
        }
        let Some(ptxas) = self.ptxas.clone().or_else(|| find_ptxas(Some(work))) else {
            let msg = format!(
                "{ARCHS_ENV} asks for cubins ({}) but no ptxas was found (PTXAS, PATH, $CUDA_PATH/bin, target/cuda-tools): the kernels are embedded as PTX only and JIT-compiled at their first launch",
                self.archs.iter().map(Arch::to_string).collect::<Vec<_>>().join(", ")
            );
            if self.require {
                return Err(io::Error::other(format!("{msg}; {REQUIRE_ENV} is set, so this is an error")));
            }
            notes.push(format!("{msg} (set {REQUIRE_ENV}=1 to make this an error)"));
            return Ok((Vec::new(), notes));
        };
        std::fs::create_dir_all(work)?;
        let mut out = Vec::new();
        for (i, kernel) in self.kernels.iter().enumerate() {
            let ptx_path = work.join(format!("k{i}.ptx"));
            std::fs::write(&ptx_path, kernel.ptx)?;
            let (target, debug) = module_target(kernel.ptx);
            let mut cubins = Vec::new();
            for &arch in &self.archs {
                if target.is_some_and(|t| arch.sm < t.sm || (t.specific && arch != t)) {
                    let t = target.map(|t| t.to_string()).unwrap_or_default();
                    notes.push(format!("{}: no {arch} cubin, the module targets {t}", kernel.entry));
                    continue;
                }
                let cubin = work.join(format!("k{i}.{arch}.cubin"));
                let mut cmd = Command::new(&ptxas);
                cmd.arg(format!("-arch={arch}")).arg(if debug { "-g" } else { "-lineinfo" }).arg("-o").arg(&cubin).arg(&ptx_path);
                let run = cmd.output().map_err(|e| io::Error::other(format!("{}: {e}", ptxas.display())))?;
                if !run.status.success() {
                    return Err(io::Error::other(format!(
                        "ptxas -arch={arch} failed on the module of `{}`:\n{}",
                        kernel.entry,
                        String::from_utf8_lossy(&run.stderr).trim()
                    )));
                }
                cubins.push((arch, std::fs::read(&cubin)?));
            }
            out.push(Assembled { entry: kernel.entry, ptx_hash: ptx_hash(kernel.ptx), ptx_len: kernel.ptx.len(), cubins });
        }
        Ok((out, notes))
    }

    /// In a build script: assembles into `$OUT_DIR/ptx_cubins/` and writes
    /// `$OUT_DIR/ptx_cubins.rs`, the table `include_cubins!()` embeds; notes become cargo
    /// warnings.
    pub fn write(&self) -> io::Result<()> {
        let out = std::env::var_os("OUT_DIR").map(PathBuf::from).ok_or_else(|| io::Error::other("OUT_DIR is not set: call Builder::write from a build script"))?;
        let notes = self.write_to(&out)?;
        for note in notes {
            println!("cargo:warning=ptx-runtime cubins: {note}");
        }
        Ok(())
    }

    /// `write` into any directory; returns the notes.
    pub fn write_to(&self, dir: &Path) -> io::Result<Vec<String>> {
        let work = dir.join("ptx_cubins");
        let (assembled, notes) = self.assemble(&work)?;
        std::fs::write(dir.join("ptx_cubins.rs"), table_source(&assembled, &work))?;
        Ok(notes)
    }
}

/// The Rust expression of the table: one `CubinTable` per kernel, its images by
/// `include_bytes!` of the files `assemble` left in `work`.
pub fn table_source(assembled: &[Assembled], work: &Path) -> String {
    let mut s = String::from("&[\n");
    for (i, a) in assembled.iter().enumerate() {
        let _ = writeln!(s, "    ::ptx_runtime::cubin::CubinTable {{ entry: {:?}, ptx_hash: {:#x}, ptx_len: {}, cubins: &[", a.entry, a.ptx_hash, a.ptx_len);
        for (arch, _) in &a.cubins {
            let file = work.join(format!("k{i}.{arch}.cubin"));
            let _ = writeln!(
                s,
                "        ::ptx_runtime::cubin::Cubin {{ arch: ::ptx_runtime::cubin::Arch {{ sm: {}, specific: {} }}, image: include_bytes!({:?}) }},",
                arch.sm,
                arch.specific,
                file.to_string_lossy()
            );
        }
        s.push_str("    ] },\n");
    }
    s.push(']');
    s
}

/// The module's `.target` architecture and whether it is a debug module.
fn module_target(ptx: &str) -> (Option<Arch>, bool) {
    for line in ptx.lines() {
        if let Some(rest) = line.trim().strip_prefix(".target") {
            let mut parts = rest.split(',').map(str::trim);
            let arch = parts.next().and_then(Arch::parse);
            let debug = parts.any(|p| p == "debug");
            return (arch, debug);
        }
    }
    (None, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archs_list() {
        assert_eq!(parse_archs("sm_80, sm_90,sm_80,").unwrap(), vec![Arch::new(80), Arch::new(90)]);
        assert!(parse_archs("sm_80,compute_90").unwrap_err().contains("`compute_90` is not a real GPU architecture"));
        assert_eq!(parse_archs("").unwrap(), vec![]);
    }

    #[test]
    fn module_target_is_read() {
        assert_eq!(module_target(".version 7.8\n.target sm_80\n"), (Some(Arch::new(80)), false));
        assert_eq!(module_target(".target sm_75, debug\n"), (Some(Arch::new(75)), true));
        assert_eq!(module_target(".target sm_90a\n").0, Some(Arch { sm: 90, specific: true }));
    }

    #[test]
    fn no_archs_or_no_kernels_assembles_nothing_and_needs_no_ptxas() {
        static K: Kernel = Kernel::new(".version 7.8\n.target sm_75\n", "k");
        let dir = std::env::temp_dir().join(format!("ptx-cubin-none-{}", std::process::id()));
        let mut b = Builder::new(&[]).ptxas("/nonexistent/ptxas");
        b.kernel(&K);
        let (a, notes) = b.assemble(&dir).unwrap();
        assert!(a.is_empty() && notes.is_empty());
    }

    #[test]
    fn missing_ptxas_is_a_note_unless_required() {
        static K: Kernel = Kernel::new(".version 7.8\n.target sm_75\n", "k");
        let dir = std::env::temp_dir().join(format!("ptx-cubin-missing-{}", std::process::id()));
        let mut b = Builder::new(&[Arch::new(80)]);
        b.kernel(&K);
        // A builder is told where ptxas is here; `None` from a search is the same path.
        let mut missing = b.clone();
        missing.ptxas = None;
        if find_ptxas(Some(&dir)).is_none() {
            let (a, notes) = missing.clone().assemble(&dir).unwrap();
            assert!(a.is_empty());
            assert!(notes[0].contains("no ptxas was found"), "{notes:?}");
            assert!(missing.require(true).assemble(&dir).unwrap_err().to_string().contains("PTX_CUBIN_REQUIRE is set"));
        }
        let err = b.ptxas("/nonexistent/ptxas").assemble(&dir).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/ptxas"), "{err}");
    }

    #[test]
    fn table_source_names_every_image() {
        let a = Assembled { entry: "_Z1kv", ptx_hash: 0xab, ptx_len: 3, cubins: vec![(Arch::new(80), vec![1]), (Arch { sm: 90, specific: true }, vec![2])] };
        let s = table_source(&[a], Path::new("/w"));
        assert!(s.contains("entry: \"_Z1kv\", ptx_hash: 0xab, ptx_len: 3"), "{s}");
        assert!(s.contains("Arch { sm: 80, specific: false }, image: include_bytes!(\"/w/k0.sm_80.cubin\")"), "{s}");
        assert!(s.contains("Arch { sm: 90, specific: true }, image: include_bytes!(\"/w/k0.sm_90a.cubin\")"), "{s}");
    }
}
