//! Warp-synchronous instructions (member masks, clamps, segments), divergence and
//! reconvergence, block-wide reductions at barriers.

use crate::cpu_harness::{nvcc_archs, Harness};

const SRC: &str = include_str!("../cuda/warp.cu");

/// `__reduce_add_sync` needs sm_80: the module is compiled for sm_80 and sm_90.
fn modules() -> Vec<Harness> {
    nvcc_archs("cpu_warp", SRC, &["sm_80", "sm_90"])
        .iter()
        .map(|p| Harness::new(p))
        .collect()
}

#[test]
fn shuffles_in_every_mode() {
    for mut k in modules() {
        let n = 64usize;
        let out = k.zeroed::<i32>(n * 8);
        k.launch("shuffles", [1, 1, 1], [n as u32, 1, 1], 0, &[out.ptr()])
            .unwrap();
        let o: Vec<i32> = k.download(out);
        for t in 0..n as i32 {
            let (lane, warp0) = (t % 32, t - t % 32);
            let r = &o[t as usize * 8..];
            assert_eq!(r[0], (warp0 + 5) * 10, "shfl idx, thread {t}");
            assert_eq!(
                r[1],
                if lane >= 3 { t - 3 } else { t },
                "shfl up, thread {t}"
            );
            assert_eq!(
                r[2],
                if lane + 3 < 32 { t + 3 } else { t },
                "shfl down, thread {t}"
            );
            assert_eq!(r[3], warp0 + (lane ^ 6), "shfl xor, thread {t}");
            assert_eq!(
                r[4],
                warp0 + lane / 8 * 8 + (lane + 1) % 8,
                "shfl width 8, thread {t}"
            );
            assert_eq!(
                r[5],
                if lane % 16 + 2 < 16 { t + 2 } else { t },
                "shfl down width 16, thread {t}"
            );
            assert_eq!(
                r[6],
                if lane % 4 >= 1 { t - 1 } else { t },
                "shfl up width 4, thread {t}"
            );
            assert_eq!(
                r[7],
                (warp0..warp0 + 32).sum::<i32>(),
                "butterfly sum, thread {t}"
            );
        }
    }
}

#[test]
fn votes_and_ballots() {
    for mut k in modules() {
        let input: Vec<i32> = (0..64)
            .map(|i| if i < 32 { i } else { (i * 37) % 23 - 3 })
            .collect();
        let (din, out) = (k.upload(&input), k.zeroed::<u32>(64 * 4));
        k.launch("votes", [1, 1, 1], [64, 1, 1], 0, &[din.ptr(), out.ptr()])
            .unwrap();
        let o: Vec<u32> = k.download(out);
        for w in 0..2 {
            let x = &input[w * 32..w * 32 + 32];
            let ballot = x
                .iter()
                .enumerate()
                .fold(0u32, |m, (i, v)| m | ((*v > 10) as u32) << i);
            let odd = x.iter().filter(|v| *v & 1 != 0).count() as u32;
            for l in 0..32 {
                let r = &o[(w * 32 + l) * 4..];
                assert_eq!(r[0], ballot);
                assert_eq!(r[1], x.iter().all(|v| *v >= 0) as u32);
                assert_eq!(r[2], x.contains(&17) as u32);
                assert_eq!(r[3], odd);
            }
        }
    }
}

#[test]
fn divergent_branches_see_their_own_lanes() {
    for mut k in modules() {
        let out = k.zeroed::<u32>(32);
        k.launch("divergent", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()])
            .unwrap();
        let o: Vec<u32> = k.download(out);
        let mask = |r: u32| (0..32).filter(|t| t % 3 == r).fold(0u32, |m, t| m | 1 << t);
        for t in 0..32u32 {
            let want = match t % 3 {
                0 => mask(0), // lane 0 (thread 0) shuffles its own index, 0, into the xor
                1 => mask(1) + (0..32).filter(|x| x % 3 == 1).sum::<u32>(),
                _ => (0..32)
                    .filter(|x| x % 3 == 2 && *x > 16)
                    .fold(0u32, |m, x| m | 1 << x),
            };
            assert_eq!(o[t as usize], want.wrapping_add(u32::MAX), "thread {t}");
        }
    }
}

#[test]
fn loops_reconverge_and_match() {
    for mut k in modules() {
        let out = k.zeroed::<u32>(32 * 4);
        k.launch("loops", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()])
            .unwrap();
        let o: Vec<u32> = k.download(out);
        for t in 0..32u32 {
            let r = &o[t as usize * 4..];
            assert_eq!(r[0], (0..t % 7).sum::<u32>());
            assert_eq!(r[1], u32::MAX, "all lanes reconverge after the loop");
            assert_eq!(
                r[2],
                (0..32)
                    .filter(|x| x % 4 == t % 4)
                    .fold(0u32, |m, x| m | 1 << x)
            );
            assert_eq!(
                r[3],
                u32::MAX.wrapping_add(1),
                "match.all over equal values: full mask, pred 1"
            );
        }
    }
}

#[test]
fn block_wide_vote_at_barriers() {
    for mut k in modules() {
        let input: Vec<i32> = (0..96).map(|i| i % 5 - 2).collect();
        let (din, out) = (k.upload(&input), k.zeroed::<i32>(3));
        k.launch(
            "block_votes",
            [1, 1, 1],
            [96, 1, 1],
            0,
            &[din.ptr(), out.ptr()],
        )
        .unwrap();
        let o: Vec<i32> = k.download(out);
        assert_eq!(o, [input.iter().filter(|x| **x > 0).count() as i32, 1, 0]);
    }
}

#[test]
fn half_warps_with_their_own_masks() {
    for mut k in modules() {
        let n = 64usize;
        let out = k.zeroed::<i32>(n * 2);
        k.launch("half_masks", [1, 1, 1], [n as u32, 1, 1], 0, &[out.ptr()]).unwrap();
        let o: Vec<i32> = k.download(out);
        for half in 0..n / 16 {
            let mut v: Vec<i32> = (0..16).map(|i| (half * 16 + i) as i32).collect();
            for d in [8, 4, 2, 1] {
                v = (0..16).map(|i| v[i] + if i + d < 16 { v[i + d] } else { v[i] }).collect();
            }
            let ballot = (0..16).filter(|i| (half * 16 + i) % 3 == 0).fold(0u32, |b, i| b | 1 << (i + 16 * (half % 2)));
            for (i, want) in v.iter().enumerate() {
                let t = half * 16 + i;
                assert_eq!(o[2 * t], *want, "shfl_down within the half warp, thread {t}");
                assert_eq!(o[2 * t + 1] as u32, ballot, "ballot of the half warp, thread {t}");
            }
        }
    }
}

#[test]
fn overlapping_member_masks_are_a_fault() {
    let ptx = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry overlap(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    selp.b32 %r2, 65535, -1, %p1;
    shfl.sync.idx.b32 %r3, %r1, 0, 31, %r2;
    ret;
}
"#;
    crate::tools::assemble("cpu_warp_overlap", ptx);
    let k = Harness::new(ptx);
    let f = crate::cpu_harness::fault(k.launch("overlap", [1, 1, 1], [32, 1, 1], 0, &[0u64.to_le_bytes().to_vec()]));
    assert_eq!(f.kind, ptx_runtime::FaultKind::InvalidWarpSync, "{f}");
    assert!(f.detail.contains("overlapping"), "{f}");
}
