//! `.target` and `.version`.
//!
//! A driver refuses PTX whose `.version` is newer than the ISA it knows (a CUDA 13.0 driver stops
//! at 9.0), so a module declares the *lowest* ISA version that has everything it uses: at least
//! the version that introduced its target, raised by any feature that needs more.

/// A PTX ISA version, `.version major.minor`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub struct Isa {
    pub major: u32,
    pub minor: u32,
}

impl Isa {
    pub const fn new(major: u32, minor: u32) -> Isa {
        Isa { major, minor }
    }

    /// The later of two versions.
    pub const fn max(self, other: Isa) -> Isa {
        if self.major > other.major || (self.major == other.major && self.minor >= other.minor) {
            self
        } else {
            other
        }
    }

    /// Calls that follow the ABI need PTX 2.0 or later (§2); every target we emit for needs
    /// more than that anyway.
    pub const ABI_CALLS: Isa = Isa::new(2, 0);
}

/// A compilation target: `sm_<number>` plus an optional architecture-specific suffix
/// (`a` or `f`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Target {
    pub sm: u32,
    pub suffix: Option<char>,
}

/// The oldest architecture CUDA 13 still compiles for; the default target.
pub const DEFAULT_SM: u32 = 75;

/// Every target we know, with the PTX ISA version that introduced it.
pub const TARGETS: [(u32, Isa); 12] = [
    (75, Isa::new(6, 3)),
    (80, Isa::new(7, 0)),
    (86, Isa::new(7, 1)),
    (87, Isa::new(7, 4)),
    (88, Isa::new(9, 0)),
    (89, Isa::new(7, 8)),
    (90, Isa::new(7, 8)),
    (100, Isa::new(8, 6)),
    (103, Isa::new(8, 8)),
    (110, Isa::new(9, 0)),
    (120, Isa::new(8, 7)),
    (121, Isa::new(8, 8)),
];

impl Target {
    pub const DEFAULT: Target = Target { sm: DEFAULT_SM, suffix: None };

    /// A known target, or `None`.
    pub const fn new(sm: u32, suffix: Option<char>) -> Option<Target> {
        let t = Target { sm, suffix };
        match (t.base_isa(), suffix) {
            (None, _) => None,
            (Some(_), None | Some('a')) => Some(t),
            // Family-specific targets exist from Blackwell on.
            (Some(_), Some('f')) if sm >= 100 => Some(t),
            _ => None,
        }
    }

    const fn base_isa(self) -> Option<Isa> {
        let mut i = 0;
        while i < TARGETS.len() {
            if TARGETS[i].0 == self.sm {
                return Some(TARGETS[i].1);
            }
            i += 1;
        }
        None
    }

    /// The lowest ISA version that accepts `.target` for this architecture.
    pub const fn min_isa(self) -> Isa {
        let base = match self.base_isa() {
            Some(v) => v,
            None => panic!("unknown target"),
        };
        match self.suffix {
            // sm_90a came one release after sm_90; the other `a` targets arrived with their base.
            Some('a') if self.sm == 90 => Isa::new(8, 0),
            Some('f') => base.max(Isa::new(8, 8)),
            _ => base,
        }
    }

    /// Parses `75`, `90a`, `sm_90`, `sm_100f`.
    pub fn parse(s: &str) -> Option<Target> {
        let s = s.strip_prefix("sm_").unwrap_or(s);
        let (digits, suffix) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((i, _)) => {
                let rest = &s[i..];
                let mut cs = rest.chars();
                match (cs.next(), cs.next()) {
                    (Some(c @ ('a' | 'f')), None) => (&s[..i], Some(c)),
                    _ => return None,
                }
            }
            None => (s, None),
        };
        Target::new(digits.parse().ok()?, suffix)
    }

    /// Known targets, for error messages.
    pub fn known_list() -> impl Iterator<Item = u32> {
        TARGETS.iter().map(|(sm, _)| *sm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_lowest_that_know_the_target() {
        assert_eq!(Target::DEFAULT.min_isa(), Isa::new(6, 3));
        assert_eq!(Target::parse("90").unwrap().min_isa(), Isa::new(7, 8));
        assert_eq!(Target::parse("sm_90a").unwrap().min_isa(), Isa::new(8, 0));
        assert_eq!(Target::parse("100f").unwrap().min_isa(), Isa::new(8, 8));
        assert_eq!(Target::parse("70"), None);
        assert_eq!(Target::parse("80f"), None);
        assert_eq!(Target::parse("90x"), None);
    }

    #[test]
    fn max_picks_the_later_version() {
        assert_eq!(Isa::new(7, 8).max(Isa::new(8, 0)), Isa::new(8, 0));
        assert_eq!(Isa::new(8, 6).max(Isa::new(7, 8)), Isa::new(8, 6));
    }
}
