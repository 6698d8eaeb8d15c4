//! Bad input to the runtime is an `Err`, never a panic: random sizes, ranges and launch
//! configurations (zero, one, huge, `usize::MAX`, `u32::MAX`, values next to an overflow)
//! against the public API on the CPU backend. And the CPU backend refuses the launches a GPU
//! refuses: the shared-memory limits of [`ptx_runtime::limits`], checked against ptxas.

use crate::cpu_harness::{arg, Harness};
use ptx_runtime::cpu::CpuDevice;
use ptx_runtime::cpu::Error as CpuError;
use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use std::ops::Bound;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

#[ptx_runtime::kernel]
pub fn robust_noop(_out: &mut [u32]) {}

/// xorshift64: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A size: often an edge (0, 1, powers of two and their neighbours, the type's maximum and
    /// its neighbours, values whose product with an element size overflows), else small.
    fn usize(&mut self) -> usize {
        const EDGES: [usize; 14] = [
            0,
            1,
            2,
            7,
            8,
            255,
            256,
            257,
            usize::MAX,
            usize::MAX - 1,
            usize::MAX / 2,
            usize::MAX / 4 + 1,
            1 << 61,
            u32::MAX as usize,
        ];
        match self.below(3) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            _ => self.below(300) as usize,
        }
    }

    fn u32(&mut self) -> u32 {
        const EDGES: [u32; 16] = [0, 1, 2, 31, 32, 33, 64, 65, 1023, 1024, 1025, 65535, 65536, i32::MAX as u32, u32::MAX - 1, u32::MAX];
        match self.below(3) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => self.below(70_000) as u32,
            _ => 1 + self.below(64) as u32,
        }
    }

    /// Half the time a plausible shape (so launches run), else anything.
    fn dim3(&mut self) -> [u32; 3] {
        if self.below(2) == 0 {
            return [1 + self.below(64) as u32, 1 + self.below(4) as u32, 1 + self.below(2) as u32];
        }
        [self.u32(), if self.below(2) == 0 { 1 } else { self.u32() }, if self.below(2) == 0 { 1 } else { self.u32() }]
    }

    fn bound(&mut self) -> Bound<usize> {
        match self.below(3) {
            0 => Bound::Included(self.usize()),
            1 => Bound::Excluded(self.usize()),
            _ => Bound::Unbounded,
        }
    }
}

/// What the CUDA programming guide allows, computed here independently of `ptx_runtime::limits`.
fn dims_ok(grid: [u32; 3], block: [u32; 3]) -> bool {
    let threads = block.iter().map(|&b| b as u128).product::<u128>();
    !grid.contains(&0)
        && !block.contains(&0)
        && threads <= 1024
        && block[0] <= 1024
        && block[1] <= 1024
        && block[2] <= 64
        && grid[0] < 1 << 31
        && grid[1] <= 65535
        && grid[2] <= 65535
}

/// The start and end a range resolves to, or `None` when it is out of bounds for `len`.
fn resolve(start: Bound<usize>, end: Bound<usize>, len: usize) -> Option<(usize, usize)> {
    let s = match start {
        Bound::Included(s) => s as u128,
        Bound::Excluded(s) => s as u128 + 1,
        Bound::Unbounded => 0,
    };
    let e = match end {
        Bound::Included(e) => e as u128 + 1,
        Bound::Excluded(e) => e as u128,
        Bound::Unbounded => len as u128,
    };
    (s <= e && e <= len as u128).then_some((s as usize, e as usize))
}

/// One random operation; `Err(description)` when the API answered wrongly.
fn one_case(rng: &mut Rng, cpu: &CpuDevice, heap_module: &ptx_runtime::cpu::CpuModule, ran: &mut u32) -> Result<(), String> {
    let stream = Device::cpu().stream();
    match rng.below(7) {
        // A launch configuration through the typed launcher.
        0 => {
            let (grid, block) = (rng.dim3(), rng.dim3());
            let mut config = LaunchConfig::new((grid[0], grid[1], grid[2]), (block[0], block[1], block[2])).with_shared_bytes(if rng.below(2) == 0 { 0 } else { rng.u32() });
            if rng.below(2) == 0 {
                config = config.with_max_dynamic_shared_bytes(rng.u32());
            }
            let valid = config.validate().is_ok();
            if valid != dims_ok(grid, block) {
                return Err(format!("validate() of {config:?} said {valid}"));
            }
            let threads = grid.iter().chain(&block).fold(1u128, |a, &v| a.saturating_mul(v as u128));
            if valid && threads > 1 << 15 {
                return Ok(()); // valid, but too big to run here
            }
            let mut out = DeviceBuffer::<u32>::zeroed(&stream, 4).map_err(|e| e.to_string())?;
            let r = robust_noop::launch(&stream, config, &mut out);
            // The #[kernel] module targets sm_75: 48 KiB without opting in, 64 KiB with.
            let shared_ok = match config.max_dynamic_shared_bytes {
                None => config.shared_bytes <= 48 << 10,
                Some(max) => max <= 64 << 10 && config.shared_bytes <= max,
            };
            *ran += r.is_ok() as u32;
            match (&r, valid && shared_ok) {
                (Ok(()), true) | (Err(Error::InvalidConfig { .. }), false) => Ok(()),
                _ => Err(format!("launch with {config:?} gave {r:?}")),
            }
        }
        // Allocation sizes.
        1 => {
            let len = rng.usize();
            let r = DeviceBuffer::<u64>::zeroed(&stream, len);
            match (&r, len.checked_mul(8)) {
                (Ok(b), Some(_)) if b.len() == len => Ok(()),
                // Past what the host can back (the backend allocates lazily, up to what the OS lends).
                (Err(Error::OutOfMemory { .. }), _) if len >= 1 << 28 => Ok(()),
                _ => Err(format!("zeroed({len}) gave {:?}", r.map(|b| b.len()))),
            }
        }
        // Views: reversed, out of bounds, `usize::MAX` ends, nested.
        2 => {
            let len = rng.below(40) as usize;
            let host: Vec<u32> = (0..len as u32).collect();
            let mut buf = DeviceBuffer::from_slice(&stream, &host).map_err(|e| e.to_string())?;
            let (s, e) = (rng.bound(), rng.bound());
            let want = resolve(s, e, len);
            match (buf.slice((s, e)), want) {
                (Ok(v), Some((a, b))) => {
                    if v.to_vec().map_err(|e| e.to_string())? != host[a..b] {
                        return Err(format!("slice({s:?}, {e:?}) read the wrong elements"));
                    }
                    let (s2, e2) = (rng.bound(), rng.bound());
                    match (v.into_slice((s2, e2)), resolve(s2, e2, b - a)) {
                        (Ok(w), Some((c, d))) if w.to_vec().map_err(|e| e.to_string())? == host[a + c..a + d] => {}
                        (Err(Error::InvalidBuffer { .. }), None) => {}
                        (r, w) => return Err(format!("into_slice({s2:?}, {e2:?}) of {a}..{b}: {:?} vs {w:?}", r.map(|v| v.len()))),
                    }
                }
                (Err(Error::InvalidBuffer { .. }), None) => {}
                (r, w) => return Err(format!("slice({s:?}, {e:?}) of {len}: {:?} vs {w:?}", r.map(|v| v.len()))),
            }
            let wrong = vec![7u32; rng.below(45) as usize];
            let r = buf.slice_mut((s, e)).and_then(|mut v| v.copy_from_slice(&wrong));
            match (r, want) {
                (Ok(()), Some((a, b))) if b - a == wrong.len() => Ok(()),
                (Err(Error::InvalidBuffer { .. }), w) if w.is_none_or(|(a, b)| b - a != wrong.len()) => Ok(()),
                (r, w) => Err(format!("copy of {} into {s:?}..{e:?} of {len} ({w:?}) gave {r:?}", wrong.len())),
            }
        }
        // Raw device memory: addresses and lengths around an allocation, and wild ones.
        3 => {
            let size = rng.below(600) as usize;
            let a = cpu.alloc(size).map_err(|e| e.to_string())?;
            let off = match rng.below(3) {
                0 => rng.below(700),
                1 => u64::MAX - rng.below(4),
                _ => rng.next(),
            };
            let addr = a.wrapping_add(off);
            let n = if rng.below(4) == 0 { rng.usize() } else { rng.below(700) as usize };
            let inside = off.checked_add(n as u64).is_some_and(|end| end <= size as u64);
            let r = match rng.below(3) {
                0 if n < 1 << 20 => cpu.write(addr, &vec![1; n]),
                1 if n < 1 << 20 => cpu.read(addr, &mut vec![0; n]),
                _ => cpu.copy(a, addr, n),
            };
            let r2 = cpu.free(if rng.below(4) == 0 { addr } else { a });
            let _ = cpu.free(a);
            match (r, inside || (n == 0 && off <= size as u64)) {
                (Ok(()), true) | (Err(CpuError::InvalidBuffer { .. }), false) => {}
                (r, want) => return Err(format!("{n} bytes at +{off:#x} of {size} (inside: {want}) gave {r:?}")),
            }
            match r2 {
                Ok(()) | Err(CpuError::InvalidBuffer { .. }) => Ok(()),
                r => Err(format!("free gave {r:?}")),
            }
        }
        // The device heap: any size, then `malloc` of any size.
        4 => {
            let heap = rng.usize();
            let request = if rng.below(2) == 0 { rng.usize() as u64 } else { rng.next() };
            match cpu.set_heap_size(heap) {
                Ok(()) | Err(CpuError::InvalidConfig { .. }) => {}
                r => return Err(format!("set_heap_size({heap}) gave {r:?}")),
            }
            let out = cpu.alloc(8).map_err(|e| e.to_string())?;
            let r = cpu.launch(heap_module, "grab", [1, 1, 1], [1, 1, 1], 0, &[&request.to_le_bytes(), &out.to_le_bytes()]);
            let _ = cpu.free(out);
            match r {
                Ok(()) | Err(CpuError::OutOfMemory { .. }) => Ok(()),
                r => Err(format!("malloc({request}) from a heap of {heap} gave {r:?}")),
            }
        }
        // Raw launches: any dimensions, shared bytes and parameter bytes.
        5 => {
            let (grid, block, shared) = (rng.dim3(), rng.dim3(), rng.u32());
            let threads = grid.iter().chain(&block).fold(1u128, |a, &v| a.saturating_mul(v as u128));
            if dims_ok(grid, block) && threads > 1 << 14 {
                return Ok(());
            }
            let params: Vec<Vec<u8>> = (0..rng.below(3)).map(|_| vec![0; rng.below(17) as usize]).collect();
            let p: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
            if p.len() == 2 && p.iter().all(|x| x.len() == 8) {
                return Ok(()); // by chance the right parameters
            }
            match cpu.launch(heap_module, "grab", grid, block, shared, &p) {
                Err(CpuError::InvalidConfig { .. }) => Ok(()),
                r => Err(format!("launch({grid:?}, {block:?}, {shared}, {} params) gave {r:?}", p.len())),
            }
        }
        // Settings at their extremes; a small launch still runs.
        _ => {
            cpu.set_stack_size(rng.usize());
            cpu.set_parallelism(rng.usize());
            cpu.set_watchdog(Some(if rng.below(2) == 0 { Duration::MAX } else { Duration::from_secs(rng.next()) }));
            let out = cpu.alloc(8).map_err(|e| e.to_string())?;
            let r = cpu.launch(heap_module, "grab", [2, 1, 1], [32, 1, 1], 0, &[&0u64.to_le_bytes(), &out.to_le_bytes()]);
            let _ = cpu.free(out);
            cpu.set_watchdog(None);
            cpu.set_parallelism(2);
            cpu.set_stack_size(64 << 10);
            match r {
                // A stack of 0 bytes has no room for the call's parameters: a fault.
                Ok(()) | Err(CpuError::OutOfMemory { .. } | CpuError::Fault(_)) => Ok(()),
                r => Err(format!("a launch after extreme settings gave {r:?}")),
            }
        }
    }
}

/// `grab(size, out)`: `*out = malloc(size)` (CUDA's device `malloc`, NULL when it does not fit).
const HEAP_PTX: &str = r#".version 7.8
.target sm_75
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.visible .entry grab(.param .u64 size, .param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [size];
    ld.param.u64 %rd2, [out];
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd3, [retval0];
    }
    st.global.u64 [%rd2], %rd3;
    ret;
}
"#;

#[test]
fn random_bad_input_is_an_error_never_a_panic() {
    crate::tools::assemble("robust_heap", HEAP_PTX);
    let cpu = CpuDevice::new();
    cpu.set_parallelism(2);
    let module = cpu.load_module(HEAP_PTX).unwrap();
    let seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rng = Rng(seed);
    let cases = 10_000;
    let mut wrong = Vec::new();
    let mut ran = 0;
    for case in 0..cases {
        match catch_unwind(AssertUnwindSafe(|| one_case(&mut rng, &cpu, &module, &mut ran))) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => wrong.push(format!("case {case}: {e}")),
            Err(p) => {
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                wrong.push(format!("case {case}: PANIC {msg:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} of {cases} cases (seed {seed:#x}) went wrong:\n{}", wrong.len(), wrong.join("\n"));
    assert!(ran > 250, "only {ran} random configurations were valid enough to launch");
}

/// The three found by hand, by name.
#[test]
fn known_overflows_are_errors() {
    let huge = LaunchConfig::new(1, (u32::MAX, u32::MAX, u32::MAX));
    assert!(matches!(huge.validate(), Err(Error::InvalidConfig { .. })));
    let stream = Device::cpu().stream();
    let mut out = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    assert!(matches!(robust_noop::launch(&stream, huge, &mut out), Err(Error::InvalidConfig { .. })));
    let cpu = CpuDevice::new();
    let module = cpu.load_module(HEAP_PTX).unwrap();
    cpu.set_heap_size(usize::MAX).unwrap();
    let o = cpu.alloc(8).unwrap();
    let r = cpu.launch(&module, "grab", [1, 1, 1], [1, 1, 1], 0, &[&16u64.to_le_bytes(), &o.to_le_bytes()]);
    assert!(matches!(r, Err(CpuError::OutOfMemory { .. })), "{r:?}");
    // A sane heap, and a request past the address space: NULL, as CUDA's malloc.
    cpu.set_heap_size(1 << 20).unwrap();
    cpu.write(o, &[0xff; 8]).unwrap();
    cpu.launch(&module, "grab", [1, 1, 1], [1, 1, 1], 0, &[&u64::MAX.to_le_bytes(), &o.to_le_bytes()]).unwrap();
    let mut back = [0xffu8; 8];
    cpu.read(o, &mut back).unwrap();
    assert_eq!(back, [0; 8]);
}

/// A kernel with `static_kib` KiB of static shared memory that writes the last byte of its
/// dynamic shared memory (`n` bytes) and copies it out, on `sm`.
fn shared_ptx(sm: u32, static_kib: u32) -> String {
    format!(
        r#".version 7.8
.target sm_{sm}
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry big(.param .u64 out, .param .u32 n)
{{
    .shared .align 16 .b8 fixed[{bytes}];
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, dyn;
    add.s32 %r3, %r2, %r1;
    st.shared.u8 [%r3+-1], 42;
    mov.u32 %r4, fixed;
    st.shared.u8 [%r4+{last}], 7;
    bar.sync 0;
    ld.shared.u8 %r5, [%r3+-1];
    ld.shared.u8 %r2, [%r4+{last}];
    add.s32 %r5, %r5, %r2;
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r5;
    ret;
}}
"#,
        bytes = static_kib * 1024,
        last = static_kib * 1024 - 1
    )
}

/// ptxas's verdict on a module for its own target: `None` without ptxas, else its log on
/// failure.
fn ptxas(name: &str, ptx: &str) -> Option<Result<(), String>> {
    let ptxas = crate::tools::tool("PTXAS", "ptxas", name)?;
    let dir = crate::tools::scratch_dir("robust");
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let sm = crate::tools::target_sm(ptx);
    let out = std::process::Command::new(ptxas).arg(format!("-arch=sm_{sm}")).arg(&file).arg("-o").arg(dir.join("out.cubin")).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Some(if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) })
}

#[test]
fn static_shared_past_48_kib_does_not_load_as_ptxas_refuses_it() {
    let ptx = shared_ptx(90, 64);
    let cpu = CpuDevice::new();
    let log = match cpu.load_module(&ptx) {
        Err(CpuError::PtxLoad { log }) => log,
        other => panic!("64 KiB of static shared memory loaded: {:?}", other.map(|m| m.entries().len())),
    };
    assert!(log.contains("Entry function 'big' uses too much shared data (0x10000 bytes, 0xc000 max)"), "{log}");
    if let Some(verdict) = ptxas("static64", &ptx) {
        let err = verdict.expect_err("ptxas accepted 64 KiB of static shared memory");
        assert!(err.contains(&log), "ptxas says {err}, the CPU backend {log}");
    }
    let at_limit = shared_ptx(90, 48);
    crate::tools::assemble("static48", &at_limit);
    assert!(cpu.load_module(&at_limit).is_ok(), "exactly 48 KiB is allowed");
}

#[test]
fn dynamic_shared_past_48_kib_needs_the_opt_in() {
    let ptx = shared_ptx(90, 40);
    crate::tools::assemble("static40", &ptx);
    let mut k = Harness::new(&ptx);
    let out = k.zeroed::<u32>(1);
    let n = 40 * 1024;
    let (ptr, len) = (out.ptr(), arg(n));
    let run = |shared: (u32, Option<u32>)| k.dev.launch_opt_in(&k.module, "big", [1, 1, 1], [32, 1, 1], shared, &[&ptr, &len]);
    match run((n, None)) {
        Err(CpuError::InvalidConfig { reason }) => assert!(reason.contains("81920 bytes of shared memory (40960 static + 40960 dynamic)"), "{reason}"),
        other => panic!("40 + 40 KiB without opting in: {other:?}"),
    }
    run((n, Some(n))).unwrap();
    assert_eq!(k.download::<u32>(out)[0], 49, "both ends of both shared regions were written");
    // The opt-in is bounded by the architecture: sm_90 allows 227 KiB in all.
    assert!(run((n, Some(187 * 1024))).is_ok());
    assert!(matches!(run((n, Some(188 * 1024))), Err(CpuError::InvalidConfig { .. })));
    assert!(matches!(run((n + 1, Some(n))), Err(CpuError::InvalidConfig { .. })), "more than opted in to");
    // The same module for sm_75: 64 KiB in all, so 40 + 40 is refused even with the opt-in.
    let ptx75 = shared_ptx(75, 40);
    crate::tools::assemble("static40_sm75", &ptx75);
    let k75 = Harness::new(&ptx75);
    assert_eq!(k75.module.compute_capability(), 75);
    let r = k75.dev.launch_opt_in(&k75.module, "big", [1, 1, 1], [32, 1, 1], (n, Some(n)), &[&ptr, &len]);
    match r {
        Err(CpuError::InvalidConfig { reason }) => assert!(reason.contains("sm_75's 65536-byte limit"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let out75 = k75.dev.alloc(4).unwrap();
    let small = (24 * 1024, Some(24 * 1024));
    k75.dev.launch_opt_in(&k75.module, "big", [1, 1, 1], [32, 1, 1], small, &[&out75.to_le_bytes(), &arg(24 * 1024u32)]).unwrap();
}

#[test]
fn launch_config_opt_in_through_the_typed_launcher() {
    let stream = Device::cpu().stream();
    let mut out = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let config = LaunchConfig::new(1, 32).with_shared_bytes(50 << 10);
    assert!(matches!(robust_noop::launch(&stream, config, &mut out), Err(Error::InvalidConfig { .. })));
    robust_noop::launch(&stream, config.with_max_dynamic_shared_bytes(50 << 10), &mut out).unwrap();
    // `#[kernel]` targets sm_75: at most 64 KiB even with the opt-in.
    let r = robust_noop::launch(&stream, config.with_shared_bytes(65 << 10).with_max_dynamic_shared_bytes(65 << 10), &mut out);
    assert!(matches!(r, Err(Error::InvalidConfig { .. })), "{r:?}");
}
