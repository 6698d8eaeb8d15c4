//! Failed checks that report through a slot (`ptx_abi::report`), as a runtime arms them on a
//! GPU: loading a module points each slot it describes at a word of device memory of its own;
//! a launch that ends in `trap` after a thread stored a site's number there fails with that
//! check's `Error::Assert` (message, file, line, column, function), and the trapping thread.

use crate::error::{Error, FaultKind, Site, SourceLoc};
use crate::memory::{GlobalMemory, RegionKind};
use ptx_abi::report;
use std::collections::HashMap;

/// The failure of `site` (`ptx_abi::report`) as an error: `at`, where the reader knows it, is
/// the failing thread, given the site's source location (the trap that follows a failure is
/// shared by the function's checks, so its `.loc` is not the check's). Also the CUDA
/// backend's, which knows no thread.
pub fn assertion(site: &report::Site, at: Option<Site>) -> Error {
    let source = SourceLoc { file: site.file.clone(), line: site.line, column: site.column, inlined_at: None };
    let at = at.map(|a| Box::new(Site { source: Some(source), ..a }));
    Error::Assert { message: site.message.clone(), file: site.file.clone(), line: site.line, function: site.function.clone(), site: at }
}

/// A module's sites and the word each of its slots points at.
#[derive(Default)]
pub(crate) struct Reports {
    sites: Vec<report::Site>,
    /// (slot, the word's address)
    words: Vec<(String, u64)>,
}

impl Reports {
    /// Points every slot `ptx` describes (and declares: `vars`, name → address and size) at a
    /// new zeroed word.
    pub fn arm(ptx: &str, vars: &HashMap<String, (u64, u64)>, memory: &GlobalMemory) -> Result<Reports, Error> {
        let sites = report::sites(ptx);
        let mut words = Vec::new();
        for slot in report::slots(&sites) {
            let Some(&(at, 8)) = vars.get(slot) else { continue };
            let word = memory.alloc(4, RegionKind::Var { name: format!("{slot} (its word)"), constant: false }).ok_or(Error::OutOfMemory { requested: 4 })?;
            if let Some(r) = crate::memory::find(&memory.snapshot(), at, 8) {
                r.write_bytes(at - r.base, &word.base.to_le_bytes());
            }
            words.push((slot.to_string(), word.base));
        }
        Ok(Reports { sites, words })
    }

    /// `error`, or, for a trap after a thread stored a site's number, that check's failure.
    /// Reading zeroes the words.
    pub fn error(&self, memory: &GlobalMemory, error: Error) -> Error {
        let Error::Fault(f) = &error else { return error };
        if f.kind != FaultKind::Trap {
            return error;
        }
        let table = memory.snapshot();
        let mut found = None;
        for (slot, at) in &self.words {
            let Some(r) = crate::memory::find(&table, *at, 4) else { continue };
            let mut word = [0u8; 4];
            r.read_bytes(at - r.base, &mut word);
            r.write_bytes(at - r.base, &[0; 4]);
            let number = u32::from_le_bytes(word);
            if number != 0 && found.is_none() {
                found = report::find(&self.sites, slot, number);
            }
        }
        let Some(s) = found else { return error };
        assertion(s, Some(Site { kernel: f.kernel.clone(), block: f.block, thread: f.thread, line: f.line, source: None }))
    }

    /// The words' addresses, to free with the module.
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().map(|(_, at)| *at)
    }
}
