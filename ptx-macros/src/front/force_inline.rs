//! `#[inline(always)]` on a `#[device_fn]`: CUDA's `__forceinline__`. The function is not
//! compiled where it is defined; its replay carries the whole item, as a generic function's
//! does (`expand::generic::definition`), and every call in device code is inlined where it is
//! written (`closure::generic_closure_call`, the path closures take), as nvcc inlines a
//! `__forceinline__` function: the arguments bound to the parameters, `return` leaving the
//! inlined body, the body checked among its own names. ptxas inlines no `.func`, so a small
//! helper called in a hot loop (the tile API's loads and `mma_sync`) otherwise keeps a call,
//! its parameter copies and its return in the loop.

/// Whether the function is marked `#[inline(always)]`.
pub fn is_forced_inline(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("inline") && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().trim() == "always")
    })
}

/// Whether the function is marked `#[inline(never)]`: CUDA's `__noinline__`, a call in every
/// caller (see `expand::inline_form` for what is inlined otherwise).
pub fn is_never_inline(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("inline") && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().trim() == "never"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inline_always_forces() {
        let f = |src: &str| is_forced_inline(&syn::parse_str::<syn::ItemFn>(src).unwrap().attrs);
        assert!(f("#[inline(always)] fn a() {}"));
        assert!(!f("#[inline] fn a() {}"));
        assert!(!f("#[inline(never)] fn a() {}"));
        assert!(!f("#[doc = \"x\"] fn a() {}"));
        let never = |src: &str| is_never_inline(&syn::parse_str::<syn::ItemFn>(src).unwrap().attrs);
        assert!(never("#[inline(never)] fn a() {}"));
        assert!(!never("#[inline] fn a() {}") && !never("#[inline(always)] fn a() {}") && !never("fn a() {}"));
    }
}
