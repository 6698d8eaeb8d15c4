//! Full debug information read back with a real DWARF reader: `ptxas -g` assembles a debug
//! kernel that calls a debug device function, `object` opens the cubin and `gimli` reads its
//! `.debug_info` and `.debug_line`; the DIEs (names, lines, files, types, address classes,
//! locations) and the line table are checked against this file's source. nvcc `-G` on the
//! equivalent CUDA C is the shape reference.

use crate::tools::{assemble, scratch_dir, tool};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, DeviceRepr, LaunchConfig};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pt {
    pub x: f32,
    pub y: f32,
}

#[device_fn(debug)]
pub fn scaled(v: f32, k: i32) -> f32 { // LINE: scaled
    let w = v * 2.0; // LINE: w
    let mut acc = w; // LINE: acc
    if k > 1 {
        acc += 1.0;
    }
    acc
}

#[kernel(debug)]
pub fn locals(x: &[f32], y: &mut [f32], p: Pt) { // LINE: locals
    let i = thread_idx_x() as usize; // LINE: i
    let head = &x[..4]; // LINE: head
    let q = Pt { x: p.x * 2.0, y: p.y }; // LINE: q
    let mut arr = [0.0f32; 4]; // LINE: arr
    for j in 0..4 {
        arr[j] = j as f32;
    }
    let mut tile = unsafe { shared_array::<f32, 32>() }; // LINE: tile
    tile[i % 32] = arr[i & 3];
    sync_threads();
    let n = 3u32; // LINE: n
    let t = scaled(x[i], n as i32) + q.x + q.y + tile[0] + head[0] * 0.0; // LINE: t
    if i < y.len() {
        let u = t; // LINE: u
        y[i] = u; // LINE: store
    }
}

fn line_of(what: &str) -> u64 {
    let marker = format!("// LINE: {what}");
    include_str!("dwarf_reader.rs").lines().position(|l| l.trim_end().ends_with(&marker)).expect("marker") as u64 + 1
}

/// One DIE: its tag, depth, attributes as numbers or strings, its location expression.
#[derive(Debug, Clone)]
struct Die {
    offset: usize,
    depth: isize,
    tag: gimli::DwTag,
    name: Option<String>,
    nums: HashMap<gimli::DwAt, u64>,
    type_ref: Option<usize>,
    location: Option<Vec<u8>>,
}

/// A compile unit: its name, its DIEs, and its line table as (file name, line) per row.
#[derive(Debug)]
struct Unit {
    name: String,
    dies: Vec<Die>,
    files: Vec<String>,
    rows: Vec<(String, u64)>,
}

/// Every unit of a cubin's DWARF, read with gimli.
fn read_units(cubin: &Path) -> Vec<Unit> {
    use object::{Object, ObjectSection};
    let data = std::fs::read(cubin).unwrap();
    let file = object::File::parse(&*data).expect("the cubin is an ELF file");
    let load = |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::LittleEndian>, gimli::Error> {
        let bytes = file.section_by_name(id.name()).and_then(|s| s.data().ok()).unwrap_or(&[]);
        Ok(gimli::EndianSlice::new(bytes, gimli::LittleEndian))
    };
    let dwarf = gimli::Dwarf::load(load).unwrap();
    let mut out = Vec::new();
    let mut headers = dwarf.units();
    while let Some(header) = headers.next().unwrap() {
        let unit = dwarf.unit(header).unwrap();
        let string = |v: gimli::AttributeValue<_>| dwarf.attr_string(&unit, v).ok().map(|s| s.to_string_lossy().into_owned());
        let mut dies = Vec::new();
        let mut depth = 0;
        let mut entries = unit.entries();
        while let Some((delta, e)) = entries.next_dfs().unwrap() {
            depth += delta;
            let mut d = Die { offset: e.offset().0, depth, tag: e.tag(), name: None, nums: HashMap::new(), type_ref: None, location: None };
            let mut attrs = e.attrs();
            while let Some(a) = attrs.next().unwrap() {
                match a.value() {
                    gimli::AttributeValue::UnitRef(r) => d.type_ref = Some(r.0),
                    gimli::AttributeValue::Exprloc(x) => d.location = Some(x.0.slice().to_vec()),
                    gimli::AttributeValue::Block(b) => d.location = Some(b.slice().to_vec()),
                    v if a.name() == gimli::DW_AT_name => d.name = string(v),
                    v => {
                        if let Some(n) = v.udata_value() {
                            d.nums.insert(a.name(), n);
                        } else if let gimli::AttributeValue::Addr(n) = v {
                            d.nums.insert(a.name(), n);
                        } else if let gimli::AttributeValue::Language(l) = v {
                            d.nums.insert(a.name(), l.0 as u64);
                        } else if let gimli::AttributeValue::Encoding(l) = v {
                            d.nums.insert(a.name(), l.0 as u64);
                        } else if let gimli::AttributeValue::AddressClass(c) = v {
                            d.nums.insert(a.name(), c.0);
                        } else if let gimli::AttributeValue::FileIndex(n) = v {
                            d.nums.insert(a.name(), n);
                        }
                    }
                }
            }
            dies.push(d);
        }
        let name = dies[0].name.clone().unwrap_or_default();
        let (mut files, mut rows) = (Vec::new(), Vec::new());
        if let Some(program) = unit.line_program.clone() {
            let header = program.header().clone();
            // ptxas splits `tests/suite/x.rs` into a directory and a name.
            let path = |f: &gimli::FileEntry<_>, h: &gimli::LineProgramHeader<_>| -> String {
                let name = string(f.path_name()).unwrap_or_default();
                match f.directory(h).and_then(|d| string(d)) {
                    Some(d) if !d.is_empty() => format!("{d}/{name}"),
                    _ => name,
                }
            };
            for f in header.file_names() {
                files.push(path(f, &header));
            }
            let mut r = program.rows();
            while let Some((h, row)) = r.next_row().unwrap() {
                let file = row.file(h).map(|f| path(f, h)).unwrap_or_default();
                rows.push((file, row.line().map_or(0, |l| l.get())));
            }
        }
        out.push(Unit { name, dies, files, rows });
    }
    out
}

impl Unit {
    fn at(&self, offset: usize) -> &Die {
        self.dies.iter().find(|d| d.offset == offset).unwrap_or_else(|| panic!("no DIE at {offset:#x}"))
    }
    fn subprogram(&self, name: &str) -> Option<&Die> {
        self.dies.iter().find(|d| d.tag == gimli::DW_TAG_subprogram && d.name.as_deref() == Some(name))
    }
    /// The direct children of `d` with tag `tag`.
    fn children(&self, d: &Die, tag: gimli::DwTag) -> Vec<&Die> {
        let i = self.dies.iter().position(|e| e.offset == d.offset).unwrap();
        self.dies[i + 1..].iter().take_while(|e| e.depth > d.depth).filter(|e| e.depth == d.depth + 1 && e.tag == tag).collect()
    }
    fn ty(&self, d: &Die) -> &Die {
        self.at(d.type_ref.unwrap_or_else(|| panic!("{d:?} has no type")))
    }
    /// The file a `DW_AT_decl_file` names (DWARF 2: 1-based into the line table's files).
    fn decl_file(&self, d: &Die) -> &str {
        let n = d.nums[&gimli::DW_AT_decl_file] as usize;
        &self.files[n - 1]
    }
}

fn class(d: &Die) -> u64 {
    *d.nums.get(&gimli::DW_AT_address_class).unwrap_or_else(|| panic!("no address class: {d:?}"))
}

/// A location expression's operations: `DW_OP_regx` names decoded back to the register's
/// PTX name (nvcc's encoding: its bytes as one number), `DW_OP_piece` sizes, `DW_OP_addr`,
/// `DW_OP_fbreg` (what ptxas makes of a `.local` address).
#[derive(Debug, PartialEq)]
enum Op {
    Reg(String),
    Piece(u64),
    Addr(u64),
    Fbreg(i64),
}

fn ops(expr: &[u8]) -> Vec<Op> {
    let mut r = gimli::EndianSlice::new(expr, gimli::LittleEndian);
    use gimli::Reader;
    let mut out = Vec::new();
    while !r.is_empty() {
        match r.read_u8().unwrap() {
            0x90 => {
                let n = r.read_uleb128().unwrap();
                let bytes: Vec<u8> = n.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
                out.push(Op::Reg(String::from_utf8(bytes).unwrap()));
            }
            0x93 => out.push(Op::Piece(r.read_uleb128().unwrap())),
            0x03 => out.push(Op::Addr(r.read_u64().unwrap())),
            0x91 => out.push(Op::Fbreg(r.read_sleb128().unwrap())),
            0x96 => {} // DW_OP_nop
            op => panic!("unexpected operation {op:#x} in {expr:?}"),
        }
    }
    out
}

/// `ptxas -g` of `ptx` for sm_75 (or its own target where that is newer), into a scratch
/// cubin.
fn cubin(name: &str, ptx: &str) -> Option<std::path::PathBuf> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let dir = scratch_dir("dwarf-reader");
    let src = dir.join("m.ptx");
    let out = dir.join("m.cubin");
    std::fs::write(&src, ptx).unwrap();
    let arch = format!("-arch=sm_{}", crate::tools::target_sm(ptx).max(75));
    let r = Command::new(ptxas).args(["-g", &arch]).arg(&src).arg("-o").arg(&out).output().expect("run ptxas");
    assert!(r.status.success(), "ptxas -g rejected {name}: {}\n{ptx}", String::from_utf8_lossy(&r.stderr));
    Some(out)
}

/// Registers the PTX declares (`%f<7>` declares `%f0` to `%f6`).
fn declared(ptx: &str, reg: &str) -> bool {
    let prefix: String = reg.chars().take_while(|c| !c.is_ascii_digit()).collect();
    let n: u32 = reg[prefix.len()..].parse().unwrap();
    ptx.lines().any(|l| {
        let l = l.trim();
        l.starts_with(".reg") && l.split_whitespace().last().and_then(|d| d.strip_prefix(&prefix)).and_then(|d| d.strip_prefix('<')).and_then(|d| d.strip_suffix(">;")).and_then(|d| d.parse::<u32>().ok()).is_some_and(|max| n < max)
    })
}

#[test]
fn gimli_reads_the_kernel_its_locals_and_the_device_function() {
    let ptx = locals::PTX;
    if !assemble("locals", ptx) {
        return;
    }
    let Some(cubin) = cubin("locals", ptx) else { return };
    let units = read_units(&cubin);
    // One unit for the kernel, one for the device function, in the one `.debug_info`.
    assert_eq!(units.len(), 2, "{units:#?}");
    let me = "tests/suite/dwarf_reader.rs";
    assert!(units.iter().all(|u| u.name == me), "{:?}", units.iter().map(|u| &u.name).collect::<Vec<_>>());

    // The kernel.
    let k = units.iter().find(|u| u.subprogram("locals").is_some()).expect("the kernel's unit");
    let sub = k.subprogram("locals").unwrap();
    assert_eq!(k.dies[0].nums[&gimli::DW_AT_language], 0x1c, "DW_LANG_Rust");
    assert_eq!(sub.nums[&gimli::DW_AT_decl_line], line_of("locals"));
    assert_eq!(k.decl_file(sub), me);
    assert!(sub.nums[&gimli::DW_AT_high_pc] > sub.nums[&gimli::DW_AT_low_pc], "{sub:?}");
    let params = k.children(sub, gimli::DW_TAG_formal_parameter);
    assert_eq!(params.iter().map(|p| p.name.as_deref().unwrap()).collect::<Vec<_>>(), ["x", "y", "p"]);
    for p in &params {
        assert_eq!(class(p), 7, "a kernel's parameters are in parameter space: {p:?}");
        assert!(matches!(ops(p.location.as_ref().unwrap())[..], [Op::Addr(_)]), "{p:?}");
    }
    let vars: HashMap<&str, &Die> = k.children(sub, gimli::DW_TAG_variable).into_iter().map(|v| (v.name.as_deref().unwrap(), v)).collect();
    for name in ["i", "head", "q", "arr", "tile", "n", "t", "j"] {
        let v = vars.get(name).unwrap_or_else(|| panic!("no variable {name}: {vars:#?}"));
        if name != "j" {
            assert_eq!(v.nums[&gimli::DW_AT_decl_line], line_of(name), "{name}");
        }
        assert_eq!(k.decl_file(v), me);
    }
    // `i: usize` in one 64-bit register; `n`, a constant, still in a register of its own.
    let i = vars["i"];
    assert_eq!(class(i), 2, "register (§5.2)");
    let ity = k.ty(i);
    assert_eq!((ity.tag, ity.nums[&gimli::DW_AT_byte_size], ity.nums[&gimli::DW_AT_encoding]), (gimli::DW_TAG_base_type, 8, gimli::DW_ATE_unsigned.0 as u64));
    match &ops(i.location.as_ref().unwrap())[..] {
        [Op::Reg(r)] => assert!(r.starts_with("%rd") && declared(ptx, r), "{r}"),
        other => panic!("i: {other:?}"),
    }
    match &ops(vars["n"].location.as_ref().unwrap())[..] {
        [Op::Reg(r)] => assert!(r.starts_with("%r") && !r.starts_with("%rd") && declared(ptx, r), "{r}"),
        other => panic!("n: {other:?}"),
    }
    assert_eq!(k.ty(vars["t"]).name.as_deref(), Some("f32"));
    // `q: Pt` kept field by field: two f32 registers, one piece each, at the members' offsets.
    let q = vars["q"];
    let qty = k.ty(q);
    assert_eq!((qty.tag, qty.name.as_deref(), qty.nums[&gimli::DW_AT_byte_size]), (gimli::DW_TAG_structure_type, Some("Pt"), 8));
    let members = k.children(qty, gimli::DW_TAG_member);
    assert_eq!(members.iter().map(|m| m.name.as_deref().unwrap()).collect::<Vec<_>>(), ["x", "y"]);
    match &ops(q.location.as_ref().unwrap())[..] {
        [Op::Reg(a), Op::Piece(4), Op::Reg(b), Op::Piece(4)] => {
            assert!(a.starts_with("%f") && b.starts_with("%f") && a != b && declared(ptx, a) && declared(ptx, b), "{a} {b}")
        }
        other => panic!("q: {other:?}"),
    }
    // `arr`, indexed at run time, in `.local` memory: class 6, which ptxas locates on the
    // frame (`DW_OP_fbreg`) as nvcc -G's locals; an array of four f32.
    let arr = vars["arr"];
    assert_eq!(class(arr), 6, "local (§5.2)");
    assert!(matches!(ops(arr.location.as_ref().unwrap())[..], [Op::Fbreg(_)] | [Op::Addr(_)]), "{arr:?}");
    let aty = k.ty(arr);
    assert_eq!(aty.tag, gimli::DW_TAG_array_type);
    assert_eq!(k.ty(aty).name.as_deref(), Some("f32"));
    assert_eq!(k.children(aty, gimli::DW_TAG_subrange_type)[0].nums[&gimli::DW_AT_upper_bound], 3);
    // `tile`, a shared array: the array at its symbol in shared space, as nvcc's `__shared__`.
    let tile = vars["tile"];
    assert_eq!(class(tile), 8, "shared (§5.2)");
    assert!(matches!(ops(tile.location.as_ref().unwrap())[..], [Op::Addr(_)]), "{tile:?}");
    let tty = k.ty(tile);
    assert_eq!(tty.tag, gimli::DW_TAG_array_type);
    assert_eq!(k.children(tty, gimli::DW_TAG_subrange_type)[0].nums[&gimli::DW_AT_upper_bound], 31);
    // `head = &x[..4]`, kept in two registers: its data pointer is a global-space address
    // (the kernel converted the parameter with `cvta.to.global`): class 5 on the pointer type.
    let head = vars["head"];
    let hty = k.ty(head);
    assert_eq!((hty.tag, hty.nums[&gimli::DW_AT_byte_size]), (gimli::DW_TAG_structure_type, 16));
    assert_eq!(class(k.ty(k.children(hty, gimli::DW_TAG_member)[0])), 5, "global (§5.2)");
    assert!(matches!(&ops(head.location.as_ref().unwrap())[..], [Op::Reg(_), Op::Piece(8), Op::Reg(_), Op::Piece(8)]), "{head:?}");
    // `x: &[f32]`: `{ data_ptr, length }` with a generic pointer, as the parameter arrives.
    let xty = k.ty(params[0]);
    let m = k.children(xty, gimli::DW_TAG_member);
    assert_eq!(class(k.ty(m[0])), 12, "generic (§5.2)");

    // The device function: its own subprogram (never inlined), its parameters and locals in
    // registers, its return type.
    let d = units.iter().find(|u| u.subprogram("scaled").is_some()).expect("the device function's unit");
    let f = d.subprogram("scaled").unwrap();
    assert_eq!(f.nums[&gimli::DW_AT_decl_line], line_of("scaled"));
    assert_eq!(d.decl_file(f), me);
    assert_eq!(d.ty(f).name.as_deref(), Some("f32"));
    assert!(f.nums[&gimli::DW_AT_high_pc] > f.nums[&gimli::DW_AT_low_pc], "{f:?}");
    let fp = d.children(f, gimli::DW_TAG_formal_parameter);
    assert_eq!(fp.iter().map(|p| p.name.as_deref().unwrap()).collect::<Vec<_>>(), ["v", "k"]);
    assert_eq!(d.ty(fp[1]).nums[&gimli::DW_AT_encoding], gimli::DW_ATE_signed.0 as u64);
    for v in fp.iter().copied().chain(d.children(f, gimli::DW_TAG_variable)) {
        assert_eq!(class(v), 2, "{v:?}");
        match &ops(v.location.as_ref().unwrap())[..] {
            [Op::Reg(r)] => assert!(declared(ptx, r), "{r}"),
            other => panic!("{v:?}: {other:?}"),
        }
    }
    let fv: Vec<_> = d.children(f, gimli::DW_TAG_variable).iter().map(|v| (v.name.clone().unwrap(), v.nums[&gimli::DW_AT_decl_line])).collect();
    assert_eq!(fv, [("w".to_owned(), line_of("w")), ("acc".to_owned(), line_of("acc"))]);

    // `u`, bound in the `if`'s block, is in a lexical block of the kernel whose addresses lie
    // within the kernel's; the body's variables are not.
    let blocks = k.children(sub, gimli::DW_TAG_lexical_block);
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    let (lo, hi) = (blocks[0].nums[&gimli::DW_AT_low_pc], blocks[0].nums[&gimli::DW_AT_high_pc]);
    assert!(sub.nums[&gimli::DW_AT_low_pc] <= lo && lo < hi && hi <= sub.nums[&gimli::DW_AT_high_pc], "{blocks:?} in {sub:?}");
    let inner = k.children(blocks[0], gimli::DW_TAG_variable);
    assert_eq!(inner.iter().map(|v| (v.name.as_deref().unwrap(), v.nums[&gimli::DW_AT_decl_line])).collect::<Vec<_>>(), [("u", line_of("u"))]);
    assert!(!vars.contains_key("u"));

    // The line table: the statements' lines in this file, the store among them.
    let lines: Vec<u64> = k.rows.iter().filter(|(f, _)| f == me).map(|(_, l)| *l).collect();
    for what in ["i", "q", "tile", "t", "store"] {
        assert!(lines.contains(&line_of(what)), "no row for line {} ({what}): {lines:?}", line_of(what));
    }
    assert!(lines.contains(&line_of("w")), "the device function's lines are in the table too");
}

#[test]
fn the_debug_kernel_computes_what_the_host_does() {
    let stream = crate::body_exec::cpu_stream();
    let x: Vec<f32> = (0..32).map(|i| i as f32 * 0.25).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 32).unwrap();
    locals::launch(&stream, LaunchConfig::new(1, 32), &xb, &mut y, Pt { x: 1.5, y: -0.5 }).unwrap();
    let want: Vec<f32> = x.iter().map(|v| (v * 2.0 + 1.0) + 3.0 + -0.5 + 0.0 + x[0] * 0.0).collect();
    assert_eq!(y.to_vec().unwrap(), want);
}

/// The equivalent CUDA C: a `__device__` function (not inlined under -G) and a kernel with
/// the same locals.
const CUDA: &str = r#"
struct Pt { float x; float y; };
__device__ float scaled(float v, int k) {
  float w = v * 2.0f;
  float acc = w;
  if (k > 1) { acc += 1.0f; }
  return acc;
}
extern "C" __global__ void locals(const float *x, float *y, Pt p) {
  unsigned long long i = threadIdx.x;
  Pt q = { p.x * 2.0f, p.y };
  float arr[4];
  for (int j = 0; j < 4; j++) arr[j] = (float)j;
  __shared__ float tile[32];
  tile[i % 32] = arr[i & 3];
  __syncthreads();
  unsigned n = 3;
  float t = scaled(x[i], (int)n) + q.x + q.y + tile[0] + x[0] * 0.0f;
  if (i < 32) {
    float u = t;
    y[i] = u;
  }
}
"#;

#[test]
fn the_shape_is_nvcc_g_s() {
    let Some(nvcc) = tool("NVCC", "nvcc", "nvcc -G oracle") else { return };
    let dir = scratch_dir("dwarf-reader-nvcc");
    let cu = dir.join("locals.cu");
    std::fs::write(&cu, CUDA).unwrap();
    let out = dir.join("k.cubin");
    let r = Command::new(nvcc).args(["-G", "-cubin", "-arch=sm_75", "-o"]).arg(&out).arg(&cu).output().expect("run nvcc");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let theirs = read_units(&out);
    let Some(ours) = cubin("locals", locals::PTX).map(|c| read_units(&c)) else { return };
    let find = |units: &[Unit], name: &str| -> (usize, usize) {
        let u = units.iter().position(|u| u.subprogram(name).is_some()).unwrap_or_else(|| panic!("no subprogram {name}"));
        let d = units[u].dies.iter().position(|d| d.tag == gimli::DW_TAG_subprogram && d.name.as_deref() == Some(name)).unwrap();
        (u, d)
    };
    // Every variable nvcc -G describes in the kernel (in its lexical blocks) we describe too,
    // with the same address class: registers (2), local memory (6) for the array, shared (8).
    let vars = |units: &[Unit], name: &str| -> HashMap<String, u64> {
        let (u, d) = find(units, name);
        let unit = &units[u];
        let sub = &unit.dies[d];
        unit.dies[d + 1..]
            .iter()
            .take_while(|e| e.depth > sub.depth)
            .filter(|e| e.tag == gimli::DW_TAG_variable || e.tag == gimli::DW_TAG_formal_parameter)
            .filter_map(|e| Some((e.name.clone()?, e.nums.get(&gimli::DW_AT_address_class).copied().unwrap_or(2))))
            .collect()
    };
    let (tk, ok) = (vars(&theirs, "locals"), vars(&ours, "locals"));
    for name in ["i", "arr", "tile", "n", "t", "j", "u"] {
        assert_eq!(tk.get(name), ok.get(name), "{name}: nvcc {tk:?}, ours {ok:?}");
    }
    // `u` is one lexical block deeper than `t` in both (nvcc also wraps the body in one).
    let block_depth = |units: &[Unit], name: &str| -> usize {
        let (u, d) = find(units, "locals");
        let unit = &units[u];
        let sub = &unit.dies[d];
        let i = unit.dies[d + 1..].iter().position(|e| e.depth <= sub.depth).map_or(unit.dies.len(), |p| d + 1 + p);
        let v = unit.dies[d + 1..i].iter().find(|e| e.tag == gimli::DW_TAG_variable && e.name.as_deref() == Some(name)).unwrap();
        // Lexical blocks open around `v`: those before it at a smaller depth whose subtree holds it.
        let mut depth = 0;
        let mut want = v.depth - 1;
        for e in unit.dies[d + 1..i].iter().rev().skip_while(|e| e.offset != v.offset) {
            if e.depth == want && e.tag == gimli::DW_TAG_lexical_block {
                depth += 1;
                want -= 1;
            } else if e.depth == want {
                want -= 1;
            }
        }
        depth
    };
    assert_eq!(block_depth(&theirs, "u") - block_depth(&theirs, "t"), 1);
    assert_eq!(block_depth(&ours, "u") - block_depth(&ours, "t"), 1);
    // nvcc copies the struct to local memory (class 6) where we keep it in registers (2).
    assert_eq!((tk["q"], ok["q"]), (6, 2));
    // The device function is a subprogram of its own in both, with its parameters and
    // locals in registers; neither inlines it.
    let (td, od) = (vars(&theirs, "scaled"), vars(&ours, "scaled"));
    for name in ["v", "k", "w", "acc"] {
        assert_eq!(td.get(name), od.get(name), "{name}: nvcc {td:?}, ours {od:?}");
    }
    for units in [&theirs, &ours] {
        assert!(!units.iter().any(|u| u.dies.iter().any(|d| d.tag == gimli::DW_TAG_inlined_subroutine)));
    }
}

/// Under the crate-wide switch (`cargo test --features ptx-runtime/debug-info`), every corpus
/// module carries DWARF for its kernel and every device function it reaches (the math
/// library's included): each assembles with `ptxas -g`, and gimli reads a unit per described
/// function, each with its subprogram. Without the feature the corpus has no DWARF and this
/// checks nothing.
#[test]
fn every_debug_corpus_module_assembles_with_g_and_reads_back() {
    for case in crate::corpus::CASES {
        for (name, ptx) in case.ptx {
            if !ptx.contains("\t.section\t.debug_info") {
                continue;
            }
            let Some(cubin) = cubin(name, ptx) else { return };
            let units = read_units(&cubin);
            let described = ptx.matches("$L__func_begin_").count() / 2;
            assert_eq!(units.len(), described, "{name}: a unit per described function");
            for u in &units {
                assert!(u.dies.iter().any(|d| d.tag == gimli::DW_TAG_subprogram), "{name}: {u:?}");
            }
        }
    }
}
