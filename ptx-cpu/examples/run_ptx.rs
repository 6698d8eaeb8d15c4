//! Runs one kernel of a PTX file on the emulator and reports what it did: the buffers after the
//! launch, what it printed, and any fault the memcheck found (with block, thread, address and
//! PTX line). PTX from any producer works: `nvcc -ptx`, Triton, ptx-macros.
//!
//! ```sh
//! cargo run -p ptx-cpu --example run_ptx -- saxpy.ptx saxpy --grid 4 --block 256 \
//!     u32:1024 f32:2.5 buf:f32:1024=1.5 buf:f32:1024
//! ```
//!
//! Arguments, one per `.entry` parameter in order: `u32:V`, `i32:V`, `u64:V`, `i64:V`, `f32:V`,
//! `f64:V` for scalars, `buf:T:N` for a pointer to N zeroed elements of T (`buf:T:N=V` fills
//! them with V); each buffer's first elements are printed after the launch.

use ptx_cpu::{CpuDevice, Error};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("run_ptx: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A buffer argument: its address, element type and length, to print afterwards.
struct Buffer {
    addr: u64,
    ty: String,
    len: usize,
}

fn run(args: &[String]) -> Result<(), String> {
    let (file, entry) = match args {
        [f, e, ..] => (f, e),
        _ => return Err("usage: run_ptx FILE.ptx ENTRY [--grid X[,Y,Z]] [--block X[,Y,Z]] [--shared BYTES] ARGS...".into()),
    };
    let ptx = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let dev = CpuDevice::new();
    dev.set_printf_capture(true);
    let module = dev.load_module(&ptx).map_err(|e| e.to_string())?;
    let (mut grid, mut block, mut shared) = ([1, 1, 1], [1, 1, 1], 0u32);
    let mut params: Vec<Vec<u8>> = Vec::new();
    let mut buffers = Vec::new();
    let mut rest = args[2..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--grid" => grid = dims(rest.next())?,
            "--block" => block = dims(rest.next())?,
            "--shared" => shared = rest.next().and_then(|s| s.parse().ok()).ok_or("--shared takes a byte count")?,
            _ => params.push(param(&dev, a, &mut buffers)?),
        }
    }
    let declared = module.entry_params(entry).ok_or_else(|| format!("no .entry `{entry}`; the module has {:?}", module.entries()))?;
    if declared.len() != params.len() {
        return Err(format!("`{entry}` takes {} parameters, {} given", declared.len(), params.len()));
    }
    let refs: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
    let result = dev.launch(&module, entry, grid, block, shared, &refs);
    print!("{}", dev.take_printf_output());
    for (i, b) in buffers.iter().enumerate() {
        println!("buffer {i} ({}[{}]): {}", b.ty, b.len, show(&dev, b)?);
    }
    let stats = dev.last_launch_stats();
    println!("{} thread-instructions in {:.1} ms", stats.thread_instructions, stats.elapsed.as_secs_f64() * 1e3);
    match result {
        Ok(()) => Ok(()),
        Err(Error::Fault(f)) => Err(format!("memcheck: {f}")),
        Err(e) => Err(e.to_string()),
    }
}

fn dims(s: Option<&String>) -> Result<[u32; 3], String> {
    let s = s.ok_or("--grid/--block take X[,Y,Z]")?;
    let mut d = [1u32; 3];
    for (i, part) in s.split(',').enumerate().take(3) {
        d[i] = part.parse().map_err(|_| format!("bad dimension `{part}`"))?;
    }
    Ok(d)
}

/// The bytes of one scalar of type `ty`.
fn scalar(ty: &str, v: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("`{v}` is not a {ty}");
    Ok(match ty {
        "u32" => v.parse::<u32>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        "i32" => v.parse::<i32>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        "u64" => v.parse::<u64>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        "i64" => v.parse::<i64>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        "f32" => v.parse::<f32>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        "f64" => v.parse::<f64>().map_err(|_| bad())?.to_le_bytes().to_vec(),
        _ => return Err(format!("unknown type `{ty}` (u32, i32, u64, i64, f32, f64)")),
    })
}

fn param(dev: &CpuDevice, arg: &str, buffers: &mut Vec<Buffer>) -> Result<Vec<u8>, String> {
    let parts: Vec<&str> = arg.splitn(3, ':').collect();
    match parts.as_slice() {
        ["buf", ty, spec] => {
            let (n, fill) = spec.split_once('=').map_or((*spec, None), |(n, v)| (n, Some(v)));
            let len: usize = n.parse().map_err(|_| format!("bad length in `{arg}`"))?;
            let elem = scalar(ty, fill.unwrap_or("0"))?;
            let addr = dev.alloc(len * elem.len()).map_err(|e| e.to_string())?;
            dev.write(addr, &elem.repeat(len)).map_err(|e| e.to_string())?;
            buffers.push(Buffer { addr, ty: ty.to_string(), len });
            Ok(addr.to_le_bytes().to_vec())
        }
        [ty, v] => scalar(ty, v),
        _ => Err(format!("bad argument `{arg}` (e.g. u32:5, f32:1.5, buf:f32:1024)")),
    }
}

/// The buffer's first elements, as its type.
fn show(dev: &CpuDevice, b: &Buffer) -> Result<String, String> {
    let size = if b.ty.ends_with("64") { 8 } else { 4 };
    let n = b.len.min(8);
    let mut bytes = vec![0u8; n * size];
    dev.read(b.addr, &mut bytes).map_err(|e| e.to_string())?;
    let items: Vec<String> = bytes
        .chunks(size)
        .map(|c| match b.ty.as_str() {
            "f32" => f32::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
            "f64" => f64::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
            "i32" => i32::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
            "i64" => i64::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
            "u64" => u64::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
            _ => u32::from_le_bytes(c.try_into().unwrap_or_default()).to_string(),
        })
        .collect();
    Ok(format!("[{}{}]", items.join(", "), if b.len > n { ", ..." } else { "" }))
}
