//! NVIDIA's command-line tools: found where they are installed, or installed from PyPI.
//!
//! The wheels carry `ptxas`, `nvcc` (with `cicc` from nvidia-nvvm and the headers from
//! nvidia-cuda-crt and nvidia-cuda-runtime), `cuobjdump` and `nvdisasm`. They are installed with
//! `pip install --target target/cuda-tools`, outside any Python environment, at the pinned
//! version below. CUDA's C++ library headers (CCCL: `<nv/target>`, which cooperative groups
//! include) come in their own wheel, versioned apart, installed next to them when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA release whose wheels are installed when no toolkit is found.
const CUDA_WHEEL_VERSION: &str = "13.5.37";
const WHEELS: [&str; 6] = [
    "nvidia-cuda-nvcc",
    "nvidia-nvvm",
    "nvidia-cuda-crt",
    "nvidia-cuda-runtime",
    "nvidia-cuda-cuobjdump",
    "nvidia-cuda-nvdisasm",
];

/// The CCCL wheel matching that release (nvcc looks in `include/cccl`, where it lands).
const CCCL_WHEEL: &str = "nvidia-cuda-cccl==13.3.5.0.6";

pub struct Tools {
    pub ptxas: PathBuf,
    pub nvcc: Option<PathBuf>,
    pub cuobjdump: Option<PathBuf>,
}

impl Tools {
    /// Environment variables the tests read.
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let mut v = vec![("PTXAS", self.ptxas.clone())];
        if let Some(p) = &self.nvcc {
            v.push(("NVCC", p.clone()));
        }
        if let Some(p) = &self.cuobjdump {
            v.push(("CUOBJDUMP", p.clone()));
        }
        v
    }

    /// `PATH` with the tools' directory first, so nvcc finds its companions.
    pub fn path_with_bin_dir(&self) -> std::ffi::OsString {
        let dir = self.ptxas.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut paths = vec![dir];
        if let Some(p) = std::env::var_os("PATH") {
            paths.extend(std::env::split_paths(&p));
        }
        std::env::join_paths(paths).unwrap_or_default()
    }
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Where the wheels go and where their binaries end up.
pub fn install_dir() -> PathBuf {
    workspace_root().join("target").join("cuda-tools")
}

fn wheel_bin_dir() -> PathBuf {
    install_dir().join("nvidia").join("cu13").join("bin")
}

/// The directories searched, in order.
fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        dirs.push(PathBuf::from(cuda).join("bin"));
    }
    dirs.push(wheel_bin_dir());
    dirs
}

fn find(name: &str) -> Option<PathBuf> {
    search_dirs().into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn find_all() -> Option<Tools> {
    let ptxas = find("ptxas")?;
    // Prefer companions from the same directory as ptxas.
    let sibling = |name: &str| {
        let p = ptxas.with_file_name(name);
        if p.is_file() { Some(p) } else { find(name) }
    };
    Some(Tools { nvcc: sibling("nvcc"), cuobjdump: sibling("cuobjdump"), ptxas })
}

/// Finds the tools, installing the wheels first when `ptxas` or `nvcc` is missing.
pub fn ensure() -> Result<Tools, String> {
    let t = match find_all() {
        Some(t) if t.nvcc.is_some() && t.cuobjdump.is_some() => t,
        _ => {
            install()?;
            let t = find_all().ok_or("ptxas is still missing after installing the wheels")?;
            if t.nvcc.is_none() {
                return Err("nvcc is still missing after installing the wheels".into());
            }
            t
        }
    };
    // The wheels' nvcc without CCCL cannot compile cooperative groups; a toolkit installed
    // elsewhere is left as it is (the tests that need CCCL then say they need it).
    if let Some(nvcc) = &t.nvcc {
        if !has_cccl(nvcc) && nvcc.starts_with(install_dir()) {
            install_cccl()?;
        }
    }
    Ok(t)
}

/// Whether `nvcc` finds CUDA's C++ library headers (`<nv/target>`).
fn has_cccl(nvcc: &Path) -> bool {
    let include = nvcc.parent().and_then(Path::parent).map(|d| d.join("include"));
    include.is_some_and(|i| i.join("cccl/nv/target").is_file() || i.join("nv/target").is_file())
}

fn install() -> Result<(), String> {
    eprintln!("xtask: installing CUDA {CUDA_WHEEL_VERSION} tools from PyPI into {}", install_dir().display());
    let mut wheels: Vec<String> = WHEELS.iter().map(|w| format!("{w}=={CUDA_WHEEL_VERSION}")).collect();
    wheels.push(CCCL_WHEEL.to_owned());
    pip_install(&install_dir(), &wheels)
}

/// CCCL added to an earlier install. `pip install --target` will not merge a wheel into the
/// `nvidia/` directory that is already there (with `--upgrade` it would replace it whole), so
/// the wheel goes to a directory of its own and its headers are copied where nvcc looks.
fn install_cccl() -> Result<(), String> {
    let side = install_dir().with_file_name("cuda-tools-cccl");
    eprintln!("xtask: installing CUDA's C++ library headers ({CCCL_WHEEL}) into {}", side.display());
    pip_install(&side, &[CCCL_WHEEL.to_owned()])?;
    let from = side.join("nvidia/cu13/include/cccl");
    copy_dir(&from, &install_dir().join("nvidia/cu13/include/cccl")).map_err(|e| format!("copying {}: {e}", from.display()))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

fn pip_install(dir: &Path, wheels: &[String]) -> Result<(), String> {
    let python = ["python3", "python"]
        .into_iter()
        .find(|p| Command::new(p).arg("--version").output().map(|o| o.status.success()).unwrap_or(false))
        .ok_or("neither ptxas/nvcc nor python3 found: install a CUDA toolkit or python3 with pip")?;
    let status = Command::new(python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--upgrade", "--target"])
        .arg(dir)
        .args(wheels)
        .status()
        .map_err(|e| format!("cannot run {python} -m pip: {e}"))?;
    if !status.success() {
        return Err(format!("pip could not install the CUDA tool wheels ({status}); install a CUDA toolkit and put it on PATH or in CUDA_PATH"));
    }
    Ok(())
}
