//! Inputs the fuzzer found failing, minimised; the commit that added each fixed it.

pub const FOUND: &[&str] = &[
    // A literal typed as a named type (a struct or an alias the macro cannot see) reached the
    // lowering: "internal: float literal of type `which`". Now a type mismatch.
    "fn sum (x : f32) -> which { 0.0 }",
    "#[device_fn] fn n() -> S { 7 }",
    // A bare parameter of a type not described yet, passed where an `f32` is expected, was
    // taken on trust and reached the lowering: "internal: cast from `lock` to `bf16`".
    "fn bf16(x: lock) -> to_bf16 { bf16::from_f32({ x }) }",
    // A local array of 2^32 elements: registers for every element exhausted memory (abort).
    "#[kernel] pub fn k(out: &mut [f32]) { let mut acc = [0.0f32; 4294967296u32]; acc[0] = 1.0; out[0] = acc[0]; }",
    "#[kernel] pub fn k(out: &mut [f32]) { let a: [[f32; 65536]; 65536]; out[0] = 1.0; }",
    // Overflow (a panic in a debug build): a shared array whose size in bytes overflows, and
    // a constant index whose byte offset does.
    "#[kernel] fn w(g: &mut [u32]) { let s = unsafe { shared_array::<u32, 0x9e37_79b9_7f4a_7c15>() }; s[0] = g[0]; }",
    "#[kernel] fn bounds(x: &[u32], i: u32, out: &mut [u32]) { out[0x9e37_79b9_7f4a_7c15] = x[i as usize] }",
    // A closure's body spliced into a block without parentheses: `{} = v` parsed as a block
    // statement and then `= v`, an internal parse error. Now parenthesised.
    "#[kernel] fn k(x: &mut [u32]) { let f = |v: u32| {} = v; f(x[0]); }",
    // An or-pattern in a `for` over an iterator became `let a | a = ..;`, which does not
    // parse ("internal: iterator code does not parse"). Now parenthesised.
    "fn sum_iter(x: &[f32], out: f32) { for a | a in x.iter() { } }",
    // A typed `let … else` put its type ascription into a match arm (`Some : v => …`), which
    // does not parse: a panic in the macro. Now the arm takes the pattern alone.
    "fn of_u8 (o < >) -> Option { let Some : v = o else { } ; }",
    // A pattern naming a variant a data-carrying enum does not have declared its bindings
    // without values, and the arm compiled on: "internal: `c` has no value". Now an error.
    "fn tok_value (t : Tok) -> f64 { match t { Num (n) => n as f64 , derive (c) => c , Wide => c as f64 , End => 1.0 } }",
    // A const parameter whose type is not one identifier (`[usize]`) reached `format_ident!`
    // in the struct's replay: a panic. Now one error at the type.
    "#[repr(C)] struct Arr<const Option: [usize]> { v: [f32; N] }",
    // An unknown path of a data-carrying enum's type was read as a constant, field by field,
    // and the tag's internal name reached `Ident::new`: a panic. Now one error.
    "fn make (k : u32 , x : f32) -> Shape { match 4 { 0 => Shape :: Circle { r : x } , 1 => Shape :: Rect (x , 1.0) , 2 => Shape :: Tri { a : x , b : 2.0 , tag : k as u16 } , _ => Shape :: up } }",
    "fn f (rgb : & [f32] , bright : & mut [f32]) { let row = & rgb [..] ; if let Some (_) = row . chunks_exact (3) . map (| p | & p [0]) . enumerate () . max_by (| a , b | a . 1 . total_cmp (b . 1)) { } }",
    "fn g (rgb : & [f32]) { let row = & rgb [..] ; if let Some (_) = row . iter () . enumerate () . max_by (| a , b | a . 1 . total_cmp (b . 1)) { } }",
    // A method call on a built-in generic type (`FragmentC::<i32>`) spelled its replay's name
    // with `<` in it: a panic in `Ident::new`. Now an identifier that names no replay.
    "fn mma_8bit (a : u8 , b : u8 , c : i32 , d : i32 , form : u32) { for i in 16 { FragmentA :: < > :: position } for i in 8 { FragmentB :: < > :: position } FragmentC :: < i32 > :: zero () . len () ; for i in 4 { } for i in 4 { } }",
    // A `let … else` whose initializer starts with a struct literal was rewritten into a bare
    // `match w {} () { … }`, which does not parse: a panic. Now parenthesised.
    "fn options (x : f32 , out : f32 , codes : u32) { match i { () => v , e => e } let first = w { } () else { } ; }",
    // An operator between built-in generic types (`FragmentA<..> * FragmentB<..>`) put the
    // right operand's spelling, `<` and all, into the replay's key: the same panic. Now the
    // whole name is sanitized, and rustc reports the missing impl.
    "fn product (c : f32) { let a = FragmentA :: < M16N8K16 , f16 > :: from_regs (8) ; FragmentB :: < > :: from_regs ; a * FragmentC :: < f32 > :: zero () }",
    // Issue 15's C-like enum work, not found by a campaign (seed 1515, 5000 inputs, clean):
    // conversion impls into and between primitives, and bare variant patterns that name no
    // variant (the in-body glob once compiled them into a trap), kept as inputs that must
    // neither panic nor fail internally.
    "impl From<u8> for f32 { fn from(v: u8) -> f32 { v as f32 } }",
    "impl TryFrom<Op> for u8 { type Error = (); fn try_from(v: Op) -> Result<u8, ()> { Ok(0) } }",
    "impl From<Op> for u32 { fn from(op: Op) -> Self { match op { Add => 1, Div => 2 } } }",
    "fn k(op: Op, out: &mut [u32]) { use Op::*; out[0] = match op { Add => 1, Div => 2 }; let c: u32 = op.into(); }",
    // A generic struct instantiated with an array length whose size in bytes overflows
    // (`Ring<f64, 0xF0F0_F0F0_1234_5678>`): a panic in `Layout::array`. Now an error that the
    // type passes `isize::MAX` bytes.
    "#[kernel] pub fn tiles(rs: &[Ring<f64, 0xF0F0_F0F0_1234_5678>], newest: &mut [f64]) { newest[0] = rs[0].newest(); }",
    "#[device_fn] fn f(r: Ring<f64, 0xF0F0_F0F0_1234_5678>) -> f64 { r.newest() }",
    "#[kernel] pub fn k(out: &mut [f64]) { let t: (f64, [f64; 0x1000_0000_0000_0000]); out[0] = 1.0; }",
    // `.into()` whose target the context makes a tuple: "internal: cast from `f32` to
    // `(f32, f32)`". Now an error once the types are final.
    "fn k (x : & [f32] , out : & [f32]) { let (s , c) = x [0] . into () ; out [0] = s + c }",
    // CI seed 1795816959132573295: `return ::even` in a closure became `break 'l ::even`,
    // which reads back as a labelled expression `'l: ::even` (a panic in parse_quote). The
    // rewritten value is parenthesised.
    "fn k (x : & [u32] , out : & mut [u32]) { let r = x . get (0) . and_then (| a | return :: even) ; let s = x . get (1) . map (| a | { if * a > 2 { return 'b' } ; 3u32 }) ; }",
];
