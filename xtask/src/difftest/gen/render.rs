//! Source text of a kernel (its module: constants, struct, helpers, `#[kernel]`) and of its
//! runner (inputs, host run, CPU-backend launch, comparison).

use super::{Kernel, Slot, Stmt};

/// The kernel's module, one statement per line (a trap's line names one statement).
pub fn kernel_module(k: &Kernel) -> Vec<String> {
    let i = k.index;
    let mut l = vec![
        format!("pub mod m{i} {{"),
        "use ptx_runtime::device::*;".to_owned(),
        "use ptx_runtime::{device_fn, kernel, DeviceRepr};".to_owned(),
    ];
    for (j, (t, bits)) in k.consts.iter().enumerate() {
        l.push(format!("pub const C{i}_{j}: {} = {};", t.name(), t.literal(*bits)));
    }
    l.push("#[derive(Clone, Copy, Debug, DeviceRepr)]".into());
    l.push("#[repr(C)]".into());
    let fields: Vec<String> = k.fields.iter().enumerate().map(|(j, (t, _))| format!("pub f{j}: {}", t.name())).collect();
    l.push(format!("pub struct S{i} {{ {} }}", fields.join(", ")));
    for h in &k.helpers {
        l.extend(h.lines.iter().cloned());
    }
    let mut params: Vec<String> = k.params.iter().enumerate().map(|(j, (t, _))| format!("p{j}: {}", t.name())).collect();
    params.push(format!("xs: &[{}]", k.slice.0.name()));
    params.push(format!("s: S{i}"));
    params.push("out: &mut [u64]".into());
    l.push("#[kernel]".into());
    l.push(format!("pub fn k{i}({}) {{", params.join(", ")));
    stmts(&k.body, 1, &mut l);
    l.push("}".into());
    l.push("}".into());
    let tag = i.to_string();
    l.into_iter().map(|s| s.replace(super::TAG, &tag)).collect()
}

pub fn stmts(body: &[Stmt], depth: usize, out: &mut Vec<String>) {
    let pad = "    ".repeat(depth);
    for s in body {
        match s {
            Stmt::Line { text, .. } => out.push(format!("{pad}{text}")),
            Stmt::Block { head, parts, .. } => {
                out.push(format!("{pad}{head}"));
                for (b, close) in parts {
                    stmts(b, depth + 1, out);
                    out.push(format!("{pad}{close}"));
                }
            }
        }
    }
}

fn slot(s: Slot) -> String {
    match s {
        Slot::Int => "Slot::Int".into(),
        Slot::F32 => "Slot::F32".into(),
        Slot::F64 => "Slot::F64".into(),
        Slot::F32Ulp(n) => format!("Slot::F32Ulp({n})"),
        Slot::F64Ulp(n) => format!("Slot::F64Ulp({n})"),
    }
}

/// `fn run_<i>(stream) -> Outcome`: the inputs, the host run and the launch on `stream`, the
/// comparison. `path` is where the kernel's module is (`kernels::m<i>`).
pub fn runner(k: &Kernel, path: &str) -> Vec<String> {
    let i = k.index;
    let n = k.slots.len().max(1);
    let mut l = vec![format!("pub fn run_{i}(stream: &Stream) -> (String, &'static str, String) {{")];
    for (j, (t, bits)) in k.params.iter().enumerate() {
        l.push(format!("    let p{j}: {} = {};", t.name(), t.input(*bits)));
    }
    let st = k.slice.0;
    let xs: Vec<String> = k.slice.1.iter().map(|b| st.input(*b)).collect();
    l.push(format!("    let xs: Vec<{}> = vec![{}];", st.name(), xs.join(", ")));
    let fields: Vec<String> = k.fields.iter().enumerate().map(|(j, (t, b))| format!("f{j}: {}", t.input(*b))).collect();
    l.push(format!("    let s = {path}::S{i} {{ {} }};", fields.join(", ")));
    let args: Vec<String> = (0..k.params.len()).map(|j| format!("p{j}")).collect();
    let a = args.join(", ");
    let comma = if a.is_empty() { "" } else { ", " };
    l.push(format!("    let host = on_host({n}, |out| {path}::k{i}({a}{comma}&xs, s, out));"));
    l.push(format!(
        "    let dev = on_device(stream, {n}, |st, out| {{ let xs = DeviceBuffer::from_slice(st, &xs)?; {path}::k{i}::launch(st, LaunchConfig::new(1u32, 1u32), {a}{comma}&xs, s, out) }});"
    ));
    let slots: Vec<String> = k.slots.iter().map(|s| slot(*s)).collect();
    l.push(format!("    (compare(&host, &dev, &[{}]), {path}::k{i}::PTX, describe(&host))", slots.join(", ")));
    l.push("}".into());
    l
}
