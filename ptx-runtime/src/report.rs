//! The runtime's half of [`ptx_abi::report`]: failed checks that report through a slot
//! instead of calling `__assertfail`.
//!
//! Loading a module, the CUDA backend points each slot the module's text describes at a word
//! of host-mapped memory of its own ([`arm`], `cuda::report`). After a launch fails, it reads
//! the words back ([`read`]): the first non-zero one is the failed check's site number, which
//! the text maps to its message, file, line, column and function. How words are allocated,
//! written and read is behind [`Words`]. (The CPU emulator arms its modules itself, the same
//! way, in `ptx-cpu`'s `report.rs`: its own users, the suite's harness among them, get the same
//! errors.)

use crate::error::Error;
use ptx_abi::report::{self, Site};
use std::sync::Arc;

/// A module's sites (from its text) and the word each slot was pointed at.
#[derive(Default)]
pub(crate) struct Armed {
    sites: Vec<Site>,
    /// Each slot's symbol and its word's address (as the backend's [`Words`] reads it).
    words: Vec<(String, u64)>,
}

/// What a backend does for [`arm`] and [`read`].
pub(crate) trait Words {
    /// A new zeroed word the device can write; its address for the slot and for [`Words::take`].
    fn word(&self) -> crate::Result<(u64, u64)>;
    /// Writes `pointer` into the module's 8-byte `.const` variable `slot` (`false`: the module
    /// has no such variable).
    fn point(&self, slot: &str, pointer: u64) -> crate::Result<bool>;
    /// The word at `address` (from [`Words::word`]), zeroed again.
    fn take(&self, address: u64) -> u32;
}

/// Points every slot of `ptx`'s sites at a word of its own.
pub(crate) fn arm(ptx: &str, words: &dyn Words) -> crate::Result<Arc<Armed>> {
    let sites = report::sites(ptx);
    let mut armed = Armed { words: Vec::new(), sites: Vec::new() };
    for slot in report::slots(&sites) {
        let (device, host) = words.word()?;
        if words.point(slot, device)? {
            armed.words.push((slot.to_string(), host));
        }
    }
    armed.sites = sites;
    Ok(Arc::new(armed))
}

/// The failed check a module's words name, as the error its launch returns (without the
/// thread, which CUDA does not say); `None` when no word is set (the launch failed some other
/// way).
pub(crate) fn read(armed: &Armed, words: &dyn Words) -> Option<Error> {
    let mut found = None;
    for (slot, address) in &armed.words {
        let number = words.take(*address);
        if number != 0 && found.is_none() {
            found = report::find(&armed.sites, slot, number);
        }
    }
    found.map(|s| ptx_cpu::assertion(s, None).into())
}

/// Words in a map, for unit tests of the protocol (here and in `cuda::report`).
#[cfg(test)]
pub(crate) mod fake {
    use super::Words;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// Where the device sees a word: its host address plus this.
    const DEVICE: u64 = 0x10_0000;

    /// Words in a map; the slots that exist are `known` (every one, when `None`).
    #[derive(Default)]
    pub struct FakeWords {
        pub known: Option<&'static [&'static str]>,
        words: RefCell<HashMap<u64, u32>>,
        pub slots: RefCell<HashMap<String, u64>>,
    }

    impl FakeWords {
        /// Words where only the `known` slots exist.
        pub fn with(known: &'static [&'static str]) -> FakeWords {
            FakeWords { known: Some(known), ..Default::default() }
        }

        /// What a failing kernel does: stores `number` where `slot` points.
        pub fn fail(&self, slot: &str, number: u32) {
            let at = self.slots.borrow()[slot] - DEVICE;
            self.words.borrow_mut().insert(at, number);
        }
    }

    impl Words for FakeWords {
        fn word(&self) -> crate::Result<(u64, u64)> {
            let at = 0x1000 + 4 * self.words.borrow().len() as u64;
            self.words.borrow_mut().insert(at, 0);
            Ok((at + DEVICE, at))
        }
        fn point(&self, slot: &str, pointer: u64) -> crate::Result<bool> {
            let known = self.known.is_none_or(|k| k.contains(&slot));
            if known {
                self.slots.borrow_mut().insert(slot.to_string(), pointer);
            }
            Ok(known)
        }
        fn take(&self, address: u64) -> u32 {
            self.words.borrow_mut().insert(address, 0).unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeWords;
    use super::*;

    const PTX: &str = "//@report a$report 1 10 5 \"src/a.rs\" \"c::a\" \"index out of bounds\"\n\
                       //@report b$report 1 20 9 \"src/b.rs\" \"c::b\" \"index out of bounds\"\n\
                       //@report b$report 2 21 9 \"src/b.rs\" \"c::b\" \"attempt to divide by zero\"\n\
                       //@report gone$report 1 1 1 \"x\" \"y\" \"z\"\n";

    #[test]
    fn a_stored_number_is_its_sites_error_once() {
        let fake = FakeWords::with(&["a$report", "b$report"]);
        let armed = arm(PTX, &fake).unwrap();
        // Two slots the module declares, each at a device address of its own word.
        let slots = fake.slots.borrow().clone();
        assert_eq!(slots.len(), 2);
        assert_ne!(slots["a$report"], slots["b$report"]);
        assert!(read(&armed, &fake).is_none(), "nothing stored");
        fake.fail("b$report", 2);
        match read(&armed, &fake) {
            Some(Error::Assert { message, file, line, function, site: None }) => {
                assert_eq!((message.as_str(), file.as_str(), line, function.as_str()), ("attempt to divide by zero", "src/b.rs", 21, "c::b"));
            }
            other => panic!("{other:?}"),
        }
        assert!(read(&armed, &fake).is_none(), "read once");
        // A number no site has is no report.
        fake.fail("b$report", 7);
        assert!(read(&armed, &fake).is_none());
    }
}
