//! Every special register of the PTX ISA and the predefined identifier `WARP_SZ`, read by one
//! kernel (assembled by ptxas for sm_90) and compared with the values docs/cpu-backend.md
//! documents: the launch's geometry, lane masks, one-block clusters, zeros for the counters
//! and driver registers, and the reserved shared-memory region at the start of the window
//! (its offsets, and that it is real memory the kernel's own variables do not overlap).

use crate::cpu_harness::Harness;
use crate::tools::assemble;

/// (name, width in bits): each is read and stored as one u64 per thread, in this order.
const SREGS: &[(&str, u32)] = &[
    ("%tid.x", 32),
    ("%tid.y", 32),
    ("%tid.z", 32),
    ("%ntid.x", 32),
    ("%ntid.y", 32),
    ("%ntid.z", 32),
    ("%ctaid.x", 32),
    ("%ctaid.y", 32),
    ("%ctaid.z", 32),
    ("%nctaid.x", 32),
    ("%nctaid.y", 32),
    ("%nctaid.z", 32),
    ("%laneid", 32),
    ("%warpid", 32),
    ("%nwarpid", 32),
    ("%smid", 32),
    ("%nsmid", 32),
    ("%gridid", 64),
    ("%lanemask_eq", 32),
    ("%lanemask_le", 32),
    ("%lanemask_lt", 32),
    ("%lanemask_ge", 32),
    ("%lanemask_gt", 32),
    ("%clock", 32),
    ("%clock_hi", 32),
    ("%clock64", 64),
    ("%globaltimer", 64),
    ("%globaltimer_lo", 32),
    ("%globaltimer_hi", 32),
    ("%total_smem_size", 32),
    ("%aggr_smem_size", 32),
    ("%dynamic_smem_size", 32),
    ("%reserved_smem_offset_begin", 32),
    ("%reserved_smem_offset_end", 32),
    ("%reserved_smem_offset_cap", 32),
    ("%reserved_smem_offset_0", 32),
    ("%reserved_smem_offset_1", 32),
    ("%current_graph_exec", 64),
    ("%clusterid.x", 32),
    ("%clusterid.y", 32),
    ("%clusterid.z", 32),
    ("%nclusterid.x", 32),
    ("%nclusterid.y", 32),
    ("%nclusterid.z", 32),
    ("%cluster_ctaid.x", 32),
    ("%cluster_ctaid.y", 32),
    ("%cluster_ctaid.z", 32),
    ("%cluster_nctaid.x", 32),
    ("%cluster_nctaid.y", 32),
    ("%cluster_nctaid.z", 32),
    ("%cluster_ctarank", 32),
    ("%cluster_nctarank", 32),
    ("%is_explicit_cluster", 1),
    ("WARP_SZ", 32),
];

/// Extra columns after the registers: the OR of every performance-monitoring and driver
/// register, the shared addresses of the static and dynamic variables, and what the thread
/// reads back from the reserved region after thread 0 of its block wrote there.
const EXTRA: usize = 4;
const ROW: usize = SREGS.len() + EXTRA;

fn kernel() -> String {
    let mut body = String::new();
    let mut col = 0;
    let mut store = |body: &mut String, src: &str| {
        body.push_str(&format!("    st.global.u64 [%rd_row+{}], {src};\n", col * 8));
        col += 1;
    };
    for (name, bits) in SREGS {
        match bits {
            1 => body.push_str(&format!("    mov.pred %p_x, {name};\n    selp.u64 %rd_v, 1, 0, %p_x;\n")),
            32 => body.push_str(&format!("    mov.u32 %r_v, {name};\n    cvt.u64.u32 %rd_v, %r_v;\n")),
            _ => body.push_str(&format!("    mov.u64 %rd_v, {name};\n")),
        }
        store(&mut body, "%rd_v");
    }
    body.push_str("    mov.u64 %rd_or, 0;\n");
    for i in 0..8 {
        body.push_str(&format!("    mov.u32 %r_v, %pm{i};\n    cvt.u64.u32 %rd_v, %r_v;\n    or.b64 %rd_or, %rd_or, %rd_v;\n"));
        body.push_str(&format!("    mov.u64 %rd_v, %pm{i}_64;\n    or.b64 %rd_or, %rd_or, %rd_v;\n"));
    }
    for i in 0..32 {
        body.push_str(&format!("    mov.u32 %r_v, %envreg{i};\n    cvt.u64.u32 %rd_v, %r_v;\n    or.b64 %rd_or, %rd_or, %rd_v;\n"));
    }
    store(&mut body, "%rd_or");
    body.push_str("    mov.u32 %r_v, buf;\n    cvt.u64.u32 %rd_v, %r_v;\n");
    store(&mut body, "%rd_v");
    body.push_str("    mov.u32 %r_v, dyn;\n    cvt.u64.u32 %rd_v, %r_v;\n");
    store(&mut body, "%rd_v");
    body.push_str(
        "    mov.u32 %r_res, %reserved_smem_offset_1;\n    setp.ne.u32 %p_x, %r_lin, 0;\n    @!%p_x st.shared.u32 [%r_res], 0xabc;\n    bar.sync 0;\n    ld.shared.u32 %r_v, [%r_res];\n    cvt.u64.u32 %rd_v, %r_v;\n",
    );
    store(&mut body, "%rd_v");
    format!(
        r#".version 8.5
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dyn[];

.visible .entry sregs(.param .u64 out)
{{
    .shared .align 4 .b8 buf[16];
    .reg .pred %p_x;
    .reg .b32 %r_v, %r_lin, %r_blk, %r_res, %r_t;
    .reg .b64 %rd_v, %rd_or, %rd_row, %rd_out;
    ld.param.u64 %rd_out, [out];
    // The thread's row: (block linear index * threads per block + thread linear index).
    mov.u32 %r_lin, %tid.y;
    mov.u32 %r_t, %ntid.x;
    mov.u32 %r_v, %tid.x;
    mad.lo.u32 %r_lin, %r_lin, %r_t, %r_v;
    mov.u32 %r_blk, %ctaid.y;
    mov.u32 %r_t, %nctaid.x;
    mov.u32 %r_v, %ctaid.x;
    mad.lo.u32 %r_blk, %r_blk, %r_t, %r_v;
    mov.u32 %r_t, %ntid.y;
    mov.u32 %r_v, %ntid.x;
    mul.lo.u32 %r_t, %r_t, %r_v;
    mad.lo.u32 %r_v, %r_blk, %r_t, %r_lin;
    mul.wide.u32 %rd_row, %r_v, {};
    add.u64 %rd_row, %rd_out, %rd_row;
{body}    ret;
}}
"#,
        ROW * 8
    )
}

#[test]
fn every_special_register_reads_its_documented_value() {
    let ptx = kernel();
    assemble("cpu_sregs", &ptx);
    let mut k = Harness::new(&ptx);
    k.dev.set_parallelism(3);
    let (grid, block) = ([3u32, 2, 1], [40u32, 2, 1]);
    let threads = 80usize;
    let n = 6 * threads;
    let out = k.zeroed::<u64>(n * ROW);
    k.launch("sregs", grid, block, 48, &[out.ptr()]).unwrap();
    let o: Vec<u64> = k.download(out);
    k.launch("sregs", grid, block, 48, &[out.ptr()]).unwrap();
    let again: Vec<u64> = k.download(out);
    let col = |name: &str| SREGS.iter().position(|(n, _)| *n == name).unwrap();
    for row in 0..n {
        let r = &o[row * ROW..(row + 1) * ROW];
        let v = |name: &str| r[col(name)];
        let (b, t) = (row / threads, row % threads);
        let (bx, by) = ((b % 3) as u64, (b / 3) as u64);
        let (tx, ty) = ((t % 40) as u64, (t / 40) as u64);
        let lane = (t % 32) as u64;
        let expect = [
            ("%tid.x", tx),
            ("%tid.y", ty),
            ("%tid.z", 0),
            ("%ntid.x", 40),
            ("%ntid.y", 2),
            ("%ntid.z", 1),
            ("%ctaid.x", bx),
            ("%ctaid.y", by),
            ("%ctaid.z", 0),
            ("%nctaid.x", 3),
            ("%nctaid.y", 2),
            ("%nctaid.z", 1),
            ("%laneid", lane),
            ("%warpid", (t / 32) as u64),
            ("%nwarpid", 64),
            ("%nsmid", 3),
            ("%lanemask_eq", 1 << lane),
            ("%lanemask_le", (2 << lane) - 1),
            ("%lanemask_lt", (1 << lane) - 1),
            ("%lanemask_ge", 0xffff_ffff & !((1 << lane) - 1)),
            ("%lanemask_gt", 0xffff_ffff & !((2 << lane) - 1)),
            ("%clock_hi", 0),
            ("%total_smem_size", 16 + 48),
            ("%aggr_smem_size", 1024 + 16 + 48),
            ("%dynamic_smem_size", 48),
            ("%reserved_smem_offset_begin", 0),
            ("%reserved_smem_offset_end", 1024),
            ("%reserved_smem_offset_cap", 1024),
            ("%reserved_smem_offset_0", 0),
            ("%reserved_smem_offset_1", 512),
            ("%current_graph_exec", 0),
            ("%clusterid.x", bx),
            ("%clusterid.y", by),
            ("%clusterid.z", 0),
            ("%nclusterid.x", 3),
            ("%nclusterid.y", 2),
            ("%nclusterid.z", 1),
            ("%cluster_ctaid.x", 0),
            ("%cluster_ctaid.y", 0),
            ("%cluster_ctaid.z", 0),
            ("%cluster_nctaid.x", 1),
            ("%cluster_nctaid.y", 1),
            ("%cluster_nctaid.z", 1),
            ("%cluster_ctarank", 0),
            ("%cluster_nctarank", 1),
            ("%is_explicit_cluster", 0),
            ("WARP_SZ", 32),
        ];
        for (name, want) in expect {
            assert_eq!(v(name), want, "{name}, block {b}, thread {t}");
        }
        assert!(v("%smid") < 3, "%smid is the host worker");
        assert!(v("%gridid") > 0 && again[row * ROW + col("%gridid")] > v("%gridid"), "%gridid grows per launch");
        assert!(v("%clock64") >= v("%clock") && v("%clock64") > 0, "%clock counts the block's instructions");
        assert!(v("%globaltimer") > 0 && v("%globaltimer_hi").abs_diff(v("%globaltimer") >> 32) <= 1, "%globaltimer is in ns");
        let extra = &r[SREGS.len()..];
        assert_eq!(extra[0], 0, "%pmN, %pmN_64 and %envregN read as 0");
        assert_eq!(extra[1], 1024, "the kernel's first static variable follows the 1 KiB reserved region");
        assert_eq!(extra[2], 1024 + 16, "the dynamic region follows the static variables");
        assert_eq!(extra[3], 0xabc, "the reserved region is memory the block shares");
    }
}

/// A kernel that does not read the reserved offsets has no reserved region: its shared
/// memory starts at 0 and is exactly what it declares.
#[test]
fn no_reserved_region_without_its_registers() {
    let ptx = r#".version 8.5
.target sm_90
.address_size 64

.visible .entry sizes(.param .u64 out)
{
    .shared .align 4 .b8 buf[16];
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, buf;
    mov.u32 %r2, %total_smem_size;
    mov.u32 %r3, %aggr_smem_size;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r3};
    ret;
}
"#;
    assemble("cpu_sregs_no_reserved", ptx);
    let mut k = Harness::new(ptx);
    let out = k.zeroed::<u32>(4);
    k.launch("sizes", [1, 1, 1], [1, 1, 1], 32, &[out.ptr()]).unwrap();
    assert_eq!(k.download::<u32>(out)[..3], [0, 48, 48]);
}
