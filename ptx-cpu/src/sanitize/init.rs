//! Initcheck's shadow: one bit per byte of a region that starts uninitialised (an
//! `alloc_uninit` allocation, the device heap), set by every write to it — device stores and
//! atomics, host writes and copies — and cleared for a heap block when `malloc` hands it out.
//! A load checks its bytes only while initcheck is on; the bits are kept whether or not it
//! is, so switching it on later judges correctly. Regions without a shadow (zeroed
//! allocations, module variables) are initialised by definition.

use std::sync::atomic::{AtomicU64, Ordering};

pub struct InitMap {
    bits: Box<[AtomicU64]>,
}

impl InitMap {
    /// A map of `len` bytes, none written.
    pub fn new(len: u64) -> Option<InitMap> {
        let n = usize::try_from(len.div_ceil(64)).ok()?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).ok()?;
        v.extend((0..n).map(|_| AtomicU64::new(0)));
        Some(InitMap { bits: v.into_boxed_slice() })
    }

    /// Visits the words covering bytes `[off, off + n)` with the mask of those bytes' bits.
    fn words(&self, off: u64, n: u64, mut f: impl FnMut(&AtomicU64, u64) -> bool) -> bool {
        let mut at = off;
        let end = off.saturating_add(n);
        while at < end {
            let Some(word) = self.bits.get((at / 64) as usize) else { return false };
            let lo = at % 64;
            let hi = (end - (at - lo)).min(64);
            let m = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
            if !f(word, m) {
                return false;
            }
            at += hi - lo;
        }
        true
    }

    /// Marks `[off, off + n)` written.
    #[inline]
    pub fn mark(&self, off: u64, n: u64) {
        self.words(off, n, |w, m| {
            if w.load(Ordering::Relaxed) & m != m {
                w.fetch_or(m, Ordering::Relaxed);
            }
            true
        });
    }

    /// Marks `[off, off + n)` never written (a fresh `malloc` block).
    pub fn clear(&self, off: u64, n: u64) {
        self.words(off, n, |w, m| {
            w.fetch_and(!m, Ordering::Relaxed);
            true
        });
    }

    /// The first byte of `[off, off + n)` never written, if one is.
    pub fn first_unwritten(&self, off: u64, n: u64) -> Option<u64> {
        if self.words(off, n, |w, m| w.load(Ordering::Relaxed) & m == m) {
            return None;
        }
        (off..off.saturating_add(n)).find(|b| self.bits.get((b / 64) as usize).is_none_or(|w| w.load(Ordering::Relaxed) >> (b % 64) & 1 == 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_clears_ranges() {
        let m = InitMap::new(200).unwrap();
        assert_eq!(m.first_unwritten(0, 4), Some(0));
        m.mark(60, 10);
        assert_eq!(m.first_unwritten(60, 10), None);
        assert_eq!(m.first_unwritten(58, 4), Some(58));
        assert_eq!(m.first_unwritten(68, 4), Some(70));
        m.mark(0, 200);
        assert_eq!(m.first_unwritten(0, 200), None);
        m.clear(64, 128);
        assert_eq!(m.first_unwritten(0, 64), None);
        assert_eq!(m.first_unwritten(100, 8), Some(100));
        assert_eq!(m.first_unwritten(192, 8), None);
    }
}
