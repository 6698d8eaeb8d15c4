//! Full debug information (`#[kernel(debug)]`): the DWARF that `ptxas -g` puts in the cubin is
//! read back with a real DWARF reader (binutils' `readelf --debug-dump=info`) and checked
//! against this file's source, and against the shape nvcc `-G` gives the same parameters.

use crate::tools::{assemble, scratch_dir, tool};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair {
    pub a: f32,
    pub b: u32,
}

#[kernel(debug)]
pub fn described(scale: f32, x: &[f32], y: &mut [f32], p: Pair) { // LINE: kernel
    let i = thread_idx_x() as usize;
    if i < y.len() {
        y[i] = scale * x[i] + p.a;
    }
}

/// nvcc's kernel `k(float *y, int n)`: parameters nvcc `-G` leaves in parameter space.
#[kernel(debug)]
pub fn twice_in_place(y: *mut f32, n: i32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as i32;
    if i < n {
        unsafe { *y.add(i as usize) = *y.add(i as usize) * 2.0 };
    }
}

/// A number as readelf prints it: decimal, or hexadecimal after `0x`.
fn num(v: &str) -> u64 {
    let v = v.split_whitespace().next().unwrap_or(v);
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => v.parse().unwrap_or_else(|_| panic!("not a number: {v}")),
    }
}

fn line_of(what: &str) -> u64 {
    let marker = format!("// LINE: {what}");
    include_str!("debuginfo.rs").lines().position(|l| l.trim_end().ends_with(&marker)).expect("marker") as u64 + 1
}

/// One DIE as readelf prints it.
#[derive(Debug, Clone)]
struct Die {
    offset: u64,
    depth: usize,
    tag: String,
    attrs: HashMap<String, String>,
}

impl Die {
    fn attr(&self, name: &str) -> &str {
        self.attrs.get(name).map(String::as_str).unwrap_or_else(|| panic!("{} has no {name}: {self:?}", self.tag))
    }
    /// A `DW_AT_type` reference.
    fn type_ref(&self) -> u64 {
        let v = self.attr("DW_AT_type");
        u64::from_str_radix(v.trim_start_matches("<0x").trim_end_matches('>'), 16).unwrap()
    }
}

/// `readelf --debug-dump=info` of a cubin, as DIEs; `None` where readelf is missing.
fn dies(cubin: &Path) -> Option<Vec<Die>> {
    let readelf = tool("READELF", "readelf", "debug info")?;
    let out = Command::new(readelf).arg("--debug-dump=info").arg(cubin).output().expect("run readelf");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut dies: Vec<Die> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        // ` <1><38>: Abbrev Number: 2 (DW_TAG_subprogram)`
        if let Some(rest) = t.strip_prefix('<') {
            if let (Some((depth, rest)), true) = (rest.split_once('>'), t.contains("Abbrev Number")) {
                let offset = rest.trim_start_matches('<').split('>').next().unwrap();
                let tag = t.rsplit_once('(').map(|(_, x)| x.trim_end_matches(')').to_owned()).unwrap_or_default();
                if t.contains("Abbrev Number: 0") {
                    continue;
                }
                dies.push(Die { offset: u64::from_str_radix(offset, 16).unwrap(), depth: depth.parse().unwrap(), tag, attrs: HashMap::new() });
                continue;
            }
            // `<39>   DW_AT_low_pc      : 0`
            if let Some((_, rest)) = t.split_once('>') {
                if let Some((name, value)) = rest.trim().split_once(':') {
                    if let Some(d) = dies.last_mut() {
                        d.attrs.insert(name.trim().to_owned(), value.trim().to_owned());
                    }
                }
            }
        }
    }
    Some(dies)
}

fn at(dies: &[Die], offset: u64) -> &Die {
    dies.iter().find(|d| d.offset == offset).unwrap_or_else(|| panic!("no DIE at {offset:#x}"))
}

/// The kernel's (or function's) formal parameters, in order.
fn params<'a>(dies: &'a [Die], name: &str) -> Vec<&'a Die> {
    let i = dies.iter().position(|d| d.tag == "DW_TAG_subprogram" && d.attrs.get("DW_AT_name").is_some_and(|n| n.ends_with(name))).unwrap_or_else(|| panic!("no subprogram {name}: {dies:#?}"));
    let depth = dies[i].depth;
    dies[i + 1..].iter().take_while(|d| d.depth > depth).filter(|d| d.tag == "DW_TAG_formal_parameter" && d.depth == depth + 1).collect()
}

/// `ptxas -g` of `ptx` for sm_75, into a scratch cubin.
fn cubin(name: &str, ptx: &str) -> Option<std::path::PathBuf> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let dir = scratch_dir("debuginfo");
    let src = dir.join("m.ptx");
    let out = dir.join("m.cubin");
    std::fs::write(&src, ptx).unwrap();
    let r = Command::new(ptxas).args(["-g", "-arch=sm_75"]).arg(&src).arg("-o").arg(&out).output().expect("run ptxas");
    assert!(r.status.success(), "ptxas -g rejected {name}: {}\n{ptx}", String::from_utf8_lossy(&r.stderr));
    Some(out)
}

#[test]
fn the_dwarf_describes_the_kernel_as_the_source_says() {
    assert!(described::PTX.contains(".target sm_75, debug"), "{}", described::PTX);
    if !assemble("described", described::PTX) {
        return;
    }
    let Some(cubin) = cubin("described", described::PTX) else { return };
    let Some(dies) = dies(&cubin) else { return };
    let cu = &dies[0];
    assert_eq!(cu.tag, "DW_TAG_compile_unit");
    assert_eq!(cu.attr("DW_AT_name"), "tests/suite/debuginfo.rs");
    assert!(cu.attr("DW_AT_language").contains("Rust") || cu.attr("DW_AT_language").starts_with("28"), "{cu:?}");
    let sub = dies.iter().find(|d| d.tag == "DW_TAG_subprogram").unwrap();
    assert_eq!(sub.attr("DW_AT_name"), "described");
    assert_eq!(num(sub.attr("DW_AT_decl_line")), line_of("kernel"));
    // The kernel's code: ptxas relocated the labels, so the range is not empty.
    let (lo, hi) = (sub.attr("DW_AT_low_pc"), sub.attr("DW_AT_high_pc"));
    assert_ne!(lo, hi, "{sub:?}");

    let ps = params(&dies, "described");
    let names: Vec<&str> = ps.iter().map(|p| p.attr("DW_AT_name")).collect();
    assert_eq!(names, ["scale", "x", "y", "p"]);
    for p in &ps {
        assert_eq!(num(p.attr("DW_AT_address_class")), 7, "parameter space (§5.2): {p:?}");
        assert!(p.attr("DW_AT_location").contains("DW_OP_addr"), "{p:?}");
        assert_eq!(num(p.attr("DW_AT_decl_line")), line_of("kernel"));
    }
    // Types: f32; &[f32] as { data_ptr: *f32 (generic), length: u64 }; the struct's members.
    let scale = at(&dies, ps[0].type_ref());
    assert_eq!((scale.tag.as_str(), scale.attr("DW_AT_name"), num(scale.attr("DW_AT_byte_size"))), ("DW_TAG_base_type", "f32", 4));
    assert!(scale.attr("DW_AT_encoding").contains("float"), "{scale:?}");
    let x = at(&dies, ps[1].type_ref());
    assert_eq!(x.tag, "DW_TAG_structure_type");
    assert_eq!(num(x.attr("DW_AT_byte_size")), 16);
    let members = |d: &Die| -> Vec<Die> {
        let i = dies.iter().position(|e| e.offset == d.offset).unwrap();
        dies[i + 1..].iter().take_while(|e| e.depth > d.depth).filter(|e| e.tag == "DW_TAG_member").cloned().collect()
    };
    let m = members(x);
    assert_eq!(m.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>(), ["data_ptr", "length"]);
    let ptr = at(&dies, m[0].type_ref());
    assert_eq!(ptr.tag, "DW_TAG_pointer_type");
    assert_eq!(num(ptr.attr("DW_AT_address_class")), 12, "generic (§5.2): {ptr:?}");
    assert_eq!(at(&dies, ptr.type_ref()).attr("DW_AT_name"), "f32");
    let len = at(&dies, m[1].type_ref());
    assert_eq!((num(len.attr("DW_AT_byte_size")), len.attr("DW_AT_encoding").contains("unsigned")), (8, true));
    let pair = at(&dies, ps[3].type_ref());
    assert_eq!((pair.tag.as_str(), pair.attr("DW_AT_name"), num(pair.attr("DW_AT_byte_size"))), ("DW_TAG_structure_type", "Pair", 8));
    let pm = members(pair);
    assert_eq!(pm.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>(), ["a", "b"]);
    assert!(pm[1].attr("DW_AT_data_member_location").contains("DW_OP_plus_uconst: 4"), "{:?}", pm[1]);
    assert_eq!(at(&dies, pm[1].type_ref()).attr("DW_AT_name"), "u32");
}

#[test]
fn a_debug_kernel_still_computes_the_same() {
    // No optimisation, sections the CPU backend skips: the results are those of the host.
    let stream = crate::body_exec::cpu_stream();
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    described::launch(&stream, LaunchConfig::new(1, 64), 3.0, &xb, &mut y, Pair { a: 1.0, b: 7 }).unwrap();
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v + 1.0).collect();
    assert_eq!(y.to_vec().unwrap(), want);
}

/// `nvcc -G -cubin` of `src` for sm_75, as DIEs.
fn nvcc_dies(name: &str, src: &str) -> Option<Vec<Die>> {
    let nvcc = tool("NVCC", "nvcc", "nvcc -G oracle")?;
    let dir = scratch_dir("debuginfo-nvcc");
    let cu = dir.join(format!("{name}.cu"));
    std::fs::write(&cu, src).unwrap();
    let out = dir.join("k.cubin");
    let r = Command::new(nvcc).args(["-G", "-cubin", "-arch=sm_75", "-o"]).arg(&out).arg(&cu).output().expect("run nvcc");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let d = dies(&out);
    let _ = std::fs::remove_dir_all(&dir);
    d
}

#[test]
fn parameters_in_parameter_space_are_where_nvcc_g_puts_them() {
    // nvcc describes these two parameters in parameter space (class 7, `DW_OP_addr` of the
    // `.param`); ptxas relocates both descriptions to the parameter's offset in the bank.
    let src = "extern \"C\" __global__ void twice_in_place(float *y, int n) {\n\
               int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
               if (i < n) y[i] = y[i] * 2.0f;\n}\n";
    let Some(theirs) = nvcc_dies("twice_in_place", src) else { return };
    let Some(ours) = cubin("twice_in_place", twice_in_place::PTX).and_then(|c| dies(&c)) else { return };
    let (tp, op) = (params(&theirs, "twice_in_place"), params(&ours, "twice_in_place"));
    assert_eq!(tp.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>(), ["y", "n"]);
    assert_eq!(op.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>(), ["y", "n"]);
    for (t, o) in tp.iter().zip(&op) {
        assert_eq!(num(t.attr("DW_AT_address_class")), 7, "{t:?}");
        assert_eq!(num(o.attr("DW_AT_address_class")), 7, "{o:?}");
        assert_eq!(t.attr("DW_AT_location"), o.attr("DW_AT_location"), "same place after ptxas");
    }
    // `float *` and `*mut f32`: a generic pointer to a 4-byte float; `int` and `i32`: a
    // 4-byte signed integer.
    let (ty, oy) = (at(&theirs, tp[0].type_ref()), at(&ours, op[0].type_ref()));
    assert_eq!((ty.tag.as_str(), num(ty.attr("DW_AT_address_class"))), (oy.tag.as_str(), num(oy.attr("DW_AT_address_class"))));
    let (tf, of) = (at(&theirs, ty.type_ref()), at(&ours, oy.type_ref()));
    assert_eq!((num(tf.attr("DW_AT_byte_size")), tf.attr("DW_AT_encoding")), (num(of.attr("DW_AT_byte_size")), of.attr("DW_AT_encoding")));
    let (tn, on) = (at(&theirs, tp[1].type_ref()), at(&ours, op[1].type_ref()));
    assert_eq!((tn.tag.as_str(), num(tn.attr("DW_AT_byte_size")), tn.attr("DW_AT_encoding")), (on.tag.as_str(), num(on.attr("DW_AT_byte_size")), on.attr("DW_AT_encoding")));
}

#[test]
fn aggregates_have_the_shape_nvcc_g_gives_them() {
    // The same ABI: a slice is a `{ pointer, length }` aggregate passed by value. nvcc -G
    // copies aggregates to local memory and describes them there (class 6); we describe them
    // in parameter space (class 7). The types must agree.
    let src = "struct Pair { float a; unsigned b; };\n\
               struct SliceC { const float *data_ptr; unsigned long long length; };\n\
               struct SliceM { float *data_ptr; unsigned long long length; };\n\
               extern \"C\" __global__ void described(float scale, SliceC x, SliceM y, Pair p) {\n\
               unsigned i = threadIdx.x;\n\
               if (i < y.length) y.data_ptr[i] = scale * x.data_ptr[i] + p.a;\n}\n";
    let Some(theirs) = nvcc_dies("described", src) else { return };
    let Some(ours) = cubin("described", described::PTX).and_then(|c| dies(&c)) else { return };
    let (tp, op) = (params(&theirs, "described"), params(&ours, "described"));
    assert_eq!(tp.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>(), op.iter().map(|d| d.attr("DW_AT_name")).collect::<Vec<_>>());
    let members = |dies: &[Die], d: &Die| -> Vec<(String, String)> {
        let i = dies.iter().position(|e| e.offset == d.offset).unwrap();
        dies[i + 1..].iter().take_while(|e| e.depth > d.depth).filter(|e| e.tag == "DW_TAG_member").map(|m| (m.attr("DW_AT_name").to_owned(), m.attr("DW_AT_data_member_location").to_owned())).collect()
    };
    for (t, o) in tp.iter().zip(&op) {
        let (tt, ot) = (at(&theirs, t.type_ref()), at(&ours, o.type_ref()));
        assert_eq!(tt.tag, ot.tag, "{}", t.attr("DW_AT_name"));
        assert_eq!(num(tt.attr("DW_AT_byte_size")), num(ot.attr("DW_AT_byte_size")), "{}", t.attr("DW_AT_name"));
        if tt.tag == "DW_TAG_structure_type" {
            assert_eq!(members(&theirs, tt), members(&ours, ot), "{}", t.attr("DW_AT_name"));
        } else {
            assert_eq!(tt.attr("DW_AT_encoding"), ot.attr("DW_AT_encoding"));
        }
    }
}
