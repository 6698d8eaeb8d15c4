//! The typed launcher: `k::launch(&stream, config, args...)`.
//!
//! Each parameter `p: P` becomes an argument `p: impl KernelArg<P>` (buffers and views for
//! slices, references and pointers; values for everything else), so a mismatched argument is a
//! compile error. A kernel that takes raw pointers gets an `unsafe fn launch`: the caller
//! vouches for the addresses.

use super::Compiled;
use crate::syntax::types::Ty;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub fn launcher(c: &Compiled) -> TokenStream {
    let takes_raw_pointers = c.sig.params.iter().any(|p| matches!(p.ty, Some(Ty::Pointer { raw: true, .. })));
    let unsafety = takes_raw_pointers.then(|| quote!(unsafe));
    let names: Vec<syn::Ident> = c
        .sig
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| match &p.ident {
            Some(id) if !["stream", "config"].contains(&id.to_string().as_str()) => format_ident!("{}", id),
            Some(id) => format_ident!("{}_", id),
            None => format_ident!("arg{}", i),
        })
        .collect();
    let types = &c.types.params;
    let kernel = &c.item.sig.ident;
    let mut doc = format!(
        "Launches [`{kernel}`](fn@super::{kernel}) on `stream`: one argument per kernel parameter, in order.\n\n\
         Errors are returned, never panics: an invalid configuration (a block outside the kernel's launch bounds included), a buffer on another device, a module that fails to load, a failed launch."
    );
    if takes_raw_pointers {
        doc.push_str("\n\n# Safety\nThe kernel takes raw pointers: every pointer argument must be valid device memory for every access the kernel makes.");
    }
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        pub #unsafety fn launch<'__a>(
            stream: &'__a ::ptx_runtime::Stream,
            config: ::ptx_runtime::LaunchConfig,
            #(#names: impl ::ptx_runtime::KernelArg<#types> + '__a),*
        ) -> ::ptx_runtime::Result<()> {
            let mut __args = ::ptx_runtime::Args::new(stream);
            #( ::ptx_runtime::KernelArg::<#types>::push(#names, &mut __args)?; )*
            stream.launch_kernel(&KERNEL, config, __args)
        }
    }
}
