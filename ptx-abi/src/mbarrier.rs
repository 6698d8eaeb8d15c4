//! The state of an `mbarrier` object (the 64-bit shared-memory word of PTX's
//! `mbarrier.*` instructions, CUDA's `__mbarrier_t` / `cuda::barrier`), as the CPU backend
//! and the host run of a kernel body keep it: one encoding and one set of transitions, so both
//! follow the PTX ISA's phase rules ("Parallel Synchronization and Communication Instructions:
//! mbarrier") the same way.
//!
//! The ISA leaves the object's contents opaque; this encoding is ours:
//!
//! | bits | field |
//! |------|-------|
//! | 0..=20 | pending arrivals of the current phase |
//! | 21..=41 | expected arrivals of each phase (the init count, less the drops) |
//! | 42..=62 | pending transaction bytes of the current phase (two's complement, 21 bits) |
//! | 63 | the current phase's parity |
//!
//! A phase completes when its pending arrivals reach zero and its pending transaction count is
//! zero; then the parity flips, pending arrivals are reset to the expected count and the
//! transaction count to zero. A token (what `mbarrier.arrive` returns) is the state before the
//! arrival; `test_wait` with it is true once the parity differs from the token's.

/// Largest arrival count (`mbarrier.init`'s `count`): 2^20 - 1.
pub const MAX_COUNT: u32 = (1 << 20) - 1;

const MASK21: u64 = (1 << 21) - 1;

fn pending(s: u64) -> u64 {
    s & MASK21
}

fn expected(s: u64) -> u64 {
    (s >> 21) & MASK21
}

fn tx(s: u64) -> i64 {
    // Sign-extend the 21-bit field.
    ((((s >> 42) & MASK21) << 43) as i64) >> 43
}

/// The phase parity of a state or token: 0 or 1.
pub fn parity(s: u64) -> u32 {
    (s >> 63) as u32
}

fn pack(pending: u64, expected: u64, tx: i64, parity: u32) -> u64 {
    (pending & MASK21) | ((expected & MASK21) << 21) | (((tx as u64) & MASK21) << 42) | ((parity as u64) << 63)
}

/// Completes the phase if nothing is pending.
fn settle(s: u64) -> u64 {
    if pending(s) == 0 && tx(s) == 0 {
        pack(expected(s), expected(s), 0, parity(s) ^ 1)
    } else {
        s
    }
}

/// `mbarrier.init [bar], count`: phase 0, `count` arrivals expected.
pub fn init(count: u32) -> u64 {
    pack(count as u64, count as u64, 0, 0)
}

/// `mbarrier.arrive[_drop] [bar], count` (1 without the operand): the new state. A drop also
/// lowers the expected count of later phases.
pub fn arrive(s: u64, count: u32, drop: bool) -> u64 {
    let e = if drop { expected(s).wrapping_sub(count as u64) } else { expected(s) };
    settle(pack(pending(s).wrapping_sub(count as u64), e, tx(s), parity(s)))
}

/// `mbarrier.expect_tx [bar], bytes`: the current phase also waits for `bytes` more bytes.
pub fn expect_tx(s: u64, bytes: u32) -> u64 {
    pack(pending(s), expected(s), tx(s) + bytes as i64, parity(s))
}

/// `complete_tx` of `bytes` (a bulk copy's bytes arriving).
pub fn complete_tx(s: u64, bytes: u32) -> u64 {
    settle(pack(pending(s), expected(s), tx(s) - bytes as i64, parity(s)))
}

/// `mbarrier.test_wait` / `try_wait`: whether the phase `token` was taken in has completed.
pub fn phase_done(s: u64, token: u64) -> bool {
    parity(s) != parity(token)
}

/// `mbarrier.test_wait.parity` / `try_wait.parity`: whether the phase of parity `p` has
/// completed (the current phase has the other parity).
pub fn parity_done(s: u64, p: u32) -> bool {
    parity(s) != (p & 1)
}

/// `mbarrier.pending_count d, token`: arrivals pending when the token was taken.
pub fn pending_count(token: u64) -> u32 {
    pending(token) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases() {
        let s = init(3);
        let t = s;
        let s = arrive(s, 1, false);
        assert!(!phase_done(s, t));
        let s = arrive(s, 2, false);
        assert!(phase_done(s, t), "three arrivals complete phase 0");
        assert!(parity_done(s, 0) && !parity_done(s, 1));
        assert_eq!(pending_count(s), 3);
        // A drop: this phase and the next expect one fewer.
        let s = arrive(s, 1, true);
        let s = arrive(s, 1, false);
        assert_eq!(parity(s), 1, "phase 1 still waits for one");
        let s = arrive(s, 1, false);
        assert_eq!(parity(s), 0);
        assert_eq!(pending_count(s), 2);
    }

    #[test]
    fn transactions() {
        let s = init(1);
        let s = expect_tx(s, 64);
        let s = arrive(s, 1, false);
        assert_eq!(parity(s), 0, "the bytes are still pending");
        let s = complete_tx(s, 32);
        assert_eq!(parity(s), 0);
        let s = complete_tx(s, 32);
        assert_eq!(parity(s), 1);
        // Bytes may complete before they are expected (the count goes negative).
        let s = complete_tx(s, 16);
        let s = arrive(s, 1, false);
        assert_eq!(parity(s), 1);
        let s = expect_tx(s, 16);
        assert_eq!(parity(s), 1, "expect_tx alone does not complete a phase");
        let s = arrive(s, 0, false);
        assert_eq!(parity(s), 0);
    }
}
