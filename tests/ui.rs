//! Compile-fail cases: each file in `tests/ui` must fail to compile with exactly the diagnostics
//! in its `.stderr` — the rule broken and what to write instead, at the offending token.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
