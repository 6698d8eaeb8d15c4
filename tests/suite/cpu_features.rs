//! More of what nvcc emits: indirect calls through an initialized function-pointer table,
//! by-value structs, vector memory operations, 3-D grids, local arrays, `__constant__` and
//! `__device__` variables, switches; and PTX with line information.

use crate::cpu_harness::{arg, nvcc, nvcc_archs, Harness};

const SRC: &str = include_str!("../cuda/features.cu");

fn modules() -> Vec<Harness> {
    let mut v: Vec<Harness> = nvcc("cpu_features", SRC).iter().map(|p| Harness::new(p)).collect();
    v.extend(nvcc_archs("cpu_features", SRC, &["sm_90"]).iter().map(|p| Harness::new(p)));
    v
}

#[derive(Clone, Copy, ptx_runtime::DeviceRepr)]
#[repr(C)]
struct S {
    a: [f32; 5],
    b: i32,
}

#[test]
fn function_pointers_and_struct_parameters() {
    for mut k in modules() {
        let out = k.zeroed::<i32>(64);
        let s = S { a: [10.0, 20.0, 30.0, 40.0, 50.0], b: 7 };
        k.launch("fptr", [1, 1, 1], [16, 4, 1], 0, &[out.ptr(), arg(s)]).unwrap();
        let o: Vec<i32> = k.download(out);
        for t in 0..64 {
            let f = if t % 2 == 0 { 2 * t } else { t * t };
            assert_eq!(o[t as usize], f + s.a[t as usize % 5] as i32 + 7, "thread {t}");
        }
    }
}

#[test]
fn vector_loads_and_stores() {
    for mut k in modules() {
        let input: Vec<f32> = (0..128).map(|i| i as f32).collect();
        let d: Vec<f64> = (0..64).map(|i| i as f64 * 0.5).collect();
        let (din, dout, dd) = (k.upload(&input), k.zeroed::<f32>(128), k.upload(&d));
        k.launch("vec4", [1, 1, 1], [32, 1, 1], 0, &[din.ptr(), dout.ptr(), dd.ptr()]).unwrap();
        let o: Vec<f32> = k.download(dout);
        let od: Vec<f64> = k.download(dd);
        for i in 0..32 {
            assert_eq!(&o[4 * i..4 * i + 4], &[input[4 * i + 3], input[4 * i + 2], input[4 * i + 1], input[4 * i]]);
            assert_eq!(&od[2 * i..2 * i + 2], &[d[2 * i + 1], d[2 * i] + input[4 * i] as f64]);
        }
    }
}

#[test]
fn three_dimensional_grids() {
    for mut k in modules() {
        let (grid, block) = ([3u32, 2, 2], [4u32, 3, 5]);
        let n = (grid.iter().product::<u32>() * block.iter().product::<u32>()) as usize;
        let out = k.zeroed::<u32>(n);
        k.launch("coords", grid, block, 0, &[out.ptr()]).unwrap();
        let o: Vec<u32> = k.download(out);
        let mut i = 0;
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    for tz in 0..block[2] {
                        for ty in 0..block[1] {
                            for tx in 0..block[0] {
                                let want = (tx | ty << 8 | tz << 16 | bx << 24) ^ (by << 4) ^ (bz << 12) ^ (3000 + 200 + 20 + 5);
                                assert_eq!(o[i], want, "block ({bx},{by},{bz}) thread ({tx},{ty},{tz})");
                                i += 1;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn locals_constants_globals_and_switches() {
    for mut k in modules() {
        let n = 3000usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2001 - 1000).collect();
        let (din, dout, dc) = (k.upload(&input), k.zeroed::<i32>(n), k.zeroed::<i32>(1));
        let (grid, block) = (5u32, 64u32);
        k.launch("misc", [grid, 1, 1], [block, 1, 1], 0, &[din.ptr(), dout.ptr(), arg(n as i32)]).unwrap();
        k.launch("read_counter", [1, 1, 1], [1, 1, 1], 0, &[dc.ptr()]).unwrap();
        let weights = [3, 1, 4, 1, 5, 9, 2, 6];
        let o: Vec<i32> = k.download(dout);
        let mut total = 0i64;
        for (i, &v) in input.iter().enumerate() {
            let want = match v % 6 {
                0 => v + 1,
                1 => v * 3,
                2 => v ^ 0x55,
                3 => -v,
                4 => v >> 1,
                _ => v.wrapping_mul(v),
            };
            assert_eq!(o[i], want, "element {i} ({v})");
            total += weights[(v & 7) as usize] as i64 * ((v & 7) + 1) as i64;
        }
        assert_eq!(k.download::<i32>(dc), [total as i32]);
        // `counter` is a module variable: it keeps its value across launches.
        k.launch("misc", [grid, 1, 1], [block, 1, 1], 0, &[din.ptr(), dout.ptr(), arg(n as i32)]).unwrap();
        k.launch("read_counter", [1, 1, 1], [1, 1, 1], 0, &[dc.ptr()]).unwrap();
        assert_eq!(k.download::<i32>(dc), [2 * total as i32]);
    }
}

/// `-lineinfo` adds `.file`/`.loc` directives and debug sections; the parser skips them.
#[test]
fn ptx_with_line_information() {
    let Some(nvcc) = crate::tools::tool("NVCC", "nvcc", "lineinfo") else { return };
    let dir = crate::tools::scratch_dir("nvcc");
    std::fs::write(dir.join("f.cu"), SRC).unwrap();
    let o = std::process::Command::new(nvcc)
        .args(["-ptx", "-rdc=true", "-lineinfo", "-arch=sm_75", "-o"])
        .arg(dir.join("f.ptx"))
        .arg(dir.join("f.cu"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ptx = std::fs::read_to_string(dir.join("f.ptx")).unwrap();
    assert!(ptx.contains(".loc") && ptx.contains(".file"));
    let mut k = Harness::new(&ptx);
    let out = k.zeroed::<u32>(8);
    k.launch("coords", [1, 1, 1], [8, 1, 1], 0, &[out.ptr()]).unwrap();
    assert_eq!(k.download::<u32>(out)[5], 5 ^ 1111);
}
