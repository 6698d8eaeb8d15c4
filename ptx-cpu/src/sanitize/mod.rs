//! The sanitizers: what `compute-sanitizer` offers on a GPU, on the CPU backend. Memcheck is
//! always on; these four cost time or memory and are switched on per device
//! ([`CpuDevice::set_sanitizers`](crate::CpuDevice::set_sanitizers)), per launch
//! ([`CpuDevice::launch_with_sanitizers`](crate::CpuDevice::launch_with_sanitizers)) or for a
//! whole run by `PTX_SANITIZE=race,init,sync,leak` (or `all`):
//!
//! - `race` (racecheck, `race.rs`): two threads of a block access the same shared or global
//!   byte, one of them writing, with no barrier between them;
//! - `init` (initcheck, `init.rs`): a load of global memory never written since it was
//!   allocated uninitialised (`CpuDevice::alloc_uninit`) or by device `malloc`;
//! - `sync` (synccheck, `sync.rs`): barriers and `*_sync` warp instructions with invalid or
//!   divergent member masks and thread counts;
//! - `leak` (leakcheck, `leak.rs`): device `malloc` blocks a launch leaves allocated.
//!
//! Each finding ends the launch with an `Error::Fault` like memcheck's (kinds `Race`,
//! `Uninitialized`, `InvalidWarpSync`/`BarrierDivergence`, `Leak`).

pub mod access;
pub mod init;
pub mod leak;
pub mod race;
pub mod sync;

use std::fmt;

/// The environment variable that switches sanitizers on for new devices: a comma-separated
/// list of `race`, `init`, `sync`, `leak`, or `all` / `none`.
pub const SANITIZE_ENV: &str = "PTX_SANITIZE";

/// Which sanitizers run (all off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Sanitizers {
    /// Racecheck: shared- and global-memory hazards between the threads of a block.
    pub race: bool,
    /// Initcheck: loads of device memory never written.
    pub init: bool,
    /// Synccheck: invalid member masks and barrier thread counts.
    pub sync: bool,
    /// Leakcheck: device `malloc` without `free` by the end of a launch.
    pub leak: bool,
}

impl Sanitizers {
    pub const NONE: Sanitizers = Sanitizers { race: false, init: false, sync: false, leak: false };
    pub const ALL: Sanitizers = Sanitizers { race: true, init: true, sync: true, leak: true };

    /// Whether any is on.
    pub fn any(self) -> bool {
        self != Sanitizers::NONE
    }

    /// Parses `race,init,sync,leak` (any subset, any order), `all` or `none` (or empty).
    pub fn parse(s: &str) -> Result<Sanitizers, String> {
        let mut out = Sanitizers::NONE;
        for word in s.split([',', ' ']).map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "race" | "racecheck" => out.race = true,
                "init" | "initcheck" => out.init = true,
                "sync" | "synccheck" => out.sync = true,
                "leak" | "leakcheck" => out.leak = true,
                "all" => out = Sanitizers::ALL,
                "none" | "off" => {}
                other => return Err(format!("unknown sanitizer `{other}`: expected race, init, sync, leak, all or none")),
            }
        }
        Ok(out)
    }

    /// The sanitizers `PTX_SANITIZE` names (none when it is not set), or why it is unreadable.
    pub fn from_env() -> Result<Sanitizers, String> {
        match std::env::var(SANITIZE_ENV) {
            Ok(v) => Sanitizers::parse(&v).map_err(|e| format!("{SANITIZE_ENV}={v:?}: {e}")),
            Err(_) => Ok(Sanitizers::NONE),
        }
    }
}

impl fmt::Display for Sanitizers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [(self.race, "race"), (self.init, "init"), (self.sync, "sync"), (self.leak, "leak")]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        f.write_str(if names.is_empty() { "none".into() } else { names.join(",") }.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        assert_eq!(Sanitizers::parse("race, leak").unwrap(), Sanitizers { race: true, leak: true, ..Sanitizers::NONE });
        assert_eq!(Sanitizers::parse("all").unwrap(), Sanitizers::ALL);
        assert_eq!(Sanitizers::parse("").unwrap(), Sanitizers::NONE);
        assert!(Sanitizers::parse("race,memcheck").unwrap_err().contains("`memcheck`"));
        assert_eq!(Sanitizers::ALL.to_string(), "race,init,sync,leak");
        assert_eq!(Sanitizers::NONE.to_string(), "none");
    }
}
