//! The scalar types of the subset and their values: literals for the source, input values
//! (edge values weighted), and the bits the runner is given.

use crate::difftest::rng::Rng;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
    Bool,
}

pub const INTS: [Ty; 10] = [Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::Isize, Ty::U8, Ty::U16, Ty::U32, Ty::U64, Ty::Usize];
pub const FLOATS: [Ty; 2] = [Ty::F32, Ty::F64];
pub const ALL: [Ty; 13] = [Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::Isize, Ty::U8, Ty::U16, Ty::U32, Ty::U64, Ty::Usize, Ty::F32, Ty::F64, Ty::Bool];

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::Isize => "isize",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::Usize => "usize",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
        }
    }

    pub fn is_int(self) -> bool {
        INTS.contains(&self)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Isize | Ty::F32 | Ty::F64)
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::I8 | Ty::U8 | Ty::Bool => 8,
            Ty::I16 | Ty::U16 => 16,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            _ => 64,
        }
    }

    /// A value of this type as raw bits (two's complement, IEEE), edge values weighted.
    pub fn value(self, rng: &mut Rng) -> u64 {
        let bits = self.bits();
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        match self {
            Ty::Bool => rng.below(2) as u64,
            Ty::F32 => {
                let edges: [u32; 14] = [0, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 1, 0x8000_0001, 0x007f_ffff, 0x7f7f_ffff, 0xff7f_ffff, 0x3f00_0000, 0x4b00_0001];
                if rng.chance(40) {
                    *rng.pick(&edges) as u64
                } else if rng.chance(60) {
                    (((rng.range(-2000, 2000) as f64) / 16.0) as f32).to_bits() as u64
                } else {
                    rng.next() & 0xffff_ffff
                }
            }
            Ty::F64 => {
                let edges: [u64; 13] = [0, 1 << 63, 0x3ff0 << 48, 0xbff0 << 48, 0x7ff0 << 48, 0xfff0 << 48, 0x7ff8 << 48, 1, (1 << 63) | 1, 0x000f_ffff_ffff_ffff, 0x7fef_ffff_ffff_ffff, 0x3fe0 << 48, 0x4330_0000_0000_0001];
                if rng.chance(40) {
                    *rng.pick(&edges)
                } else if rng.chance(60) {
                    ((rng.range(-2000, 2000) as f64) / 16.0).to_bits()
                } else {
                    rng.next()
                }
            }
            _ => {
                let min = if self.signed() { 1u64 << (bits - 1) } else { 0 };
                let edges = [0, 1, mask, min, min.wrapping_sub(1) & mask, min.wrapping_add(1) & mask, 2, bits as u64, mask - 1];
                if rng.chance(45) {
                    *rng.pick(&edges)
                } else if rng.chance(50) {
                    (rng.range(-40, 40) as u64) & mask
                } else {
                    rng.next() & mask
                }
            }
        }
    }

    /// Source text of the value with these bits, usable anywhere (suffixed, parenthesised
    /// when negative, `MIN`/`MAX`/`NAN` by name).
    pub fn literal(self, bits: u64) -> String {
        let t = self.name();
        match self {
            Ty::Bool => (bits & 1 == 1).to_string(),
            Ty::F32 => float_literal(f32::from_bits(bits as u32) as f64, format!("{:?}", f32::from_bits(bits as u32)), t),
            Ty::F64 => float_literal(f64::from_bits(bits), format!("{:?}", f64::from_bits(bits)), t),
            _ => {
                let v = self.signed_value(bits);
                let (bits_n, signed) = (self.bits(), self.signed());
                let max = if signed { (1i128 << (bits_n - 1)) - 1 } else { (1i128 << bits_n) - 1 };
                let min = if signed { -(1i128 << (bits_n - 1)) } else { 0 };
                if v == max && bits_n >= 8 && v > 1 {
                    format!("{t}::MAX")
                } else if v == min && signed {
                    format!("{t}::MIN")
                } else if v < 0 {
                    format!("({v}{t})")
                } else {
                    format!("{v}{t}")
                }
            }
        }
    }

    /// The integer these bits mean in this type.
    pub fn signed_value(self, bits: u64) -> i128 {
        let n = self.bits();
        let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let b = bits & mask;
        if self.signed() && n < 128 && b >> (n - 1) & 1 == 1 {
            b as i128 - (1i128 << n)
        } else {
            b as i128
        }
    }

    /// An expression of the input value with these bits, exact for every value (the runner's
    /// inputs: floats by their bits, so NaN payloads and subnormals survive).
    pub fn input(self, bits: u64) -> String {
        match self {
            Ty::Bool => (bits & 1 == 1).to_string(),
            Ty::F32 => format!("f32::from_bits({:#x})", bits as u32),
            Ty::F64 => format!("f64::from_bits({bits:#x})"),
            _ => format!("({bits:#x}u64 as {})", self.name()),
        }
    }
}

fn float_literal(v: f64, text: String, t: &str) -> String {
    if v.is_nan() {
        format!("{t}::NAN")
    } else if v.is_infinite() {
        if v < 0.0 { format!("{t}::NEG_INFINITY") } else { format!("{t}::INFINITY") }
    } else {
        // Debug prints the shortest text that reads back as the same value.
        let text = if text.contains('.') || text.contains('e') { text } else { format!("{text}.0") };
        if text.starts_with('-') { format!("({text}{t})") } else { format!("{text}{t}") }
    }
}
