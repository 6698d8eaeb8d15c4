//! Which embedded cubin a device can run: CUDA's binary compatibility rule.
//!
//! A cubin for `sm_XY` runs on devices of compute capability `X.Z` with `Z >= Y` (the same
//! major version, an equal or newer minor one); an architecture-specific cubin (`sm_90a`) runs
//! only on exactly `X.Y`. Of those that run, the newest minor version is best (it may use
//! what the older ones cannot); an exact architecture-specific match beats the generic one.

use super::Cubin;
use std::fmt;

/// A real GPU architecture as ptxas names it: `sm_80` is `Arch { sm: 80, specific: false }`,
/// `sm_90a` is `Arch { sm: 90, specific: true }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch {
    pub sm: u32,
    pub specific: bool,
}

impl Arch {
    pub const fn new(sm: u32) -> Arch {
        Arch { sm, specific: false }
    }

    /// `sm_80`, `sm_90a`; `None` for anything else (`compute_80` is a virtual architecture,
    /// which has no cubin).
    pub fn parse(s: &str) -> Option<Arch> {
        let digits = s.trim().strip_prefix("sm_")?;
        let (digits, specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let sm: u32 = digits.parse().ok()?;
        Some(Arch { sm, specific })
    }

    pub const fn major(self) -> u32 {
        self.sm / 10
    }

    pub const fn minor(self) -> u32 {
        self.sm % 10
    }

    /// Whether a cubin for this architecture runs on a device of compute capability `cc`.
    pub const fn runs_on(self, cc: (u32, u32)) -> bool {
        if self.specific {
            self.major() == cc.0 && self.minor() == cc.1
        } else {
            self.major() == cc.0 && self.minor() <= cc.1
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.sm, if self.specific { "a" } else { "" })
    }
}

/// The cubin of `cubins` to load on a device of compute capability `cc`: the newest one that
/// runs there, preferring an architecture-specific one of exactly `cc`; `None` when none runs
/// (then the PTX is JIT-compiled).
pub fn select(cubins: &[Cubin], cc: (u32, u32)) -> Option<&Cubin> {
    cubins.iter().filter(|c| c.arch.runs_on(cc)).max_by_key(|c| (c.arch.minor(), c.arch.specific))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(archs: &[&str]) -> Vec<Cubin> {
        archs.iter().map(|a| Cubin { arch: Arch::parse(a).unwrap(), image: &[] }).collect()
    }

    fn pick(archs: &[&str], cc: (u32, u32)) -> Option<String> {
        select(&table(archs), cc).map(|c| c.arch.to_string())
    }

    #[test]
    fn parses_real_architectures_only() {
        assert_eq!(Arch::parse("sm_80"), Some(Arch { sm: 80, specific: false }));
        assert_eq!(Arch::parse(" sm_90a"), Some(Arch { sm: 90, specific: true }));
        assert_eq!(Arch::parse("sm_120"), Some(Arch { sm: 120, specific: false }));
        for bad in ["compute_80", "sm_", "sm_8", "sm_8x", "80", "sm_90b", ""] {
            assert_eq!(Arch::parse(bad), None, "{bad}");
        }
        assert_eq!(Arch::parse("sm_120").unwrap().major(), 12);
        assert_eq!(Arch::parse("sm_90a").unwrap().to_string(), "sm_90a");
    }

    #[test]
    fn exact_match_is_taken() {
        assert_eq!(pick(&["sm_75", "sm_80", "sm_90"], (8, 0)).as_deref(), Some("sm_80"));
        assert_eq!(pick(&["sm_75", "sm_80", "sm_90"], (9, 0)).as_deref(), Some("sm_90"));
        assert_eq!(pick(&["sm_75", "sm_80", "sm_90"], (7, 5)).as_deref(), Some("sm_75"));
    }

    #[test]
    fn older_minor_of_the_same_major_runs() {
        // An A10 / RTX 30xx (8.6) and an RTX 40xx (8.9) run an sm_80 cubin.
        assert_eq!(pick(&["sm_80", "sm_90"], (8, 6)).as_deref(), Some("sm_80"));
        assert_eq!(pick(&["sm_80", "sm_86", "sm_90"], (8, 9)).as_deref(), Some("sm_86"));
        // A newer minor never runs on an older device.
        assert_eq!(pick(&["sm_86"], (8, 0)), None);
    }

    #[test]
    fn another_major_falls_back_to_the_ptx() {
        // Binary compatibility stops at the major version: Blackwell JITs the PTX.
        assert_eq!(pick(&["sm_80", "sm_90"], (10, 0)), None);
        assert_eq!(pick(&["sm_80", "sm_90"], (7, 5)), None);
        assert_eq!(pick(&[], (9, 0)), None);
    }

    #[test]
    fn architecture_specific_cubins_run_only_on_their_exact_device() {
        assert_eq!(pick(&["sm_90", "sm_90a"], (9, 0)).as_deref(), Some("sm_90a"));
        assert_eq!(pick(&["sm_90a"], (9, 0)).as_deref(), Some("sm_90a"));
        assert_eq!(pick(&["sm_100a"], (10, 3)), None);
        assert_eq!(pick(&["sm_100", "sm_100a"], (10, 3)).as_deref(), Some("sm_100"));
    }
}
