//! The hasher of the optimiser's maps and sets. Their keys are our own: register and block
//! numbers, opcodes, short strings the passes build. std's default, SipHash, resists keys an
//! attacker chooses, which these are not, and costs most in the build users get: cargo
//! compiles proc macros unoptimized, where hashing was several per cent of a kernel's
//! expansion. This is the multiply-and-rotate hash rustc itself uses for such keys (FxHash),
//! fixed, so a pass that walks a map also walks it in the same order on every build.

use std::hash::{BuildHasherDefault, Hasher};

pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FastHasher>>;

#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

/// FxHash's multiplier: an odd constant with well-spread bits.
const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    fn write_u16(&mut self, i: u16) {
        self.add(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
