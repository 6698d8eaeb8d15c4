//! What each macro expands to.
//!
//! Both attributes keep the function itself — its body stays plain Rust that rustc type-checks
//! and the host can call — and add a module of the same name (`mod k`) holding the PTX
//! constants. The module imports its parent's names, and the signature's types are rewritten to
//! be nameable from inside it (see `syntax::rewrite`).
//!
//! Compiling happens in rounds (see `link`): the attribute emits the function, a device
//! function's replay, and either the generated module or a fetch chain that ends in
//! [`compile`], which runs the compiler again with what the chain found.

mod assoc_types;
mod bitfields;
mod derive;
mod derive_enum;
mod derive_enum_data;
mod device_fn;
mod cpp_header;
mod cpp_template;
mod extern_cpp;
mod from_impl;
pub use from_impl::{into_key, key as from_impl_key, try_key as try_from_key};
mod generic;
mod generic_kernel;
pub mod generic_trait;
mod index_ops;
mod inline_form;
mod instance_impl;
mod kernel;
mod debuginfo;
mod launch;
mod lineinfo;
pub mod method;
mod trait_def;

pub use bitfields::bitfields;
pub use derive::derive_device_repr;

use crate::back::ptx::SigTypes;
use crate::front::hir::Body;
use crate::link::info::{FnInfo, Info};
use crate::link::{chain, Env, Needs};
use crate::report::Errors;
use crate::syntax::attrs::{self, Args};
use crate::syntax::rewrite::for_inner_module;
use crate::syntax::sum_ref::abi_type;
use crate::syntax::signature::{FnKind, Signature};
use crate::text::Text;
use crate::{check, front, lower};
use proc_macro2::TokenStream;
use ptx_abi::target::Isa;
use quote::{quote, ToTokens};

pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    first_round(FnKind::Kernel, args, item)
}

pub fn device_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    if syn::parse2::<syn::ItemFn>(item.clone()).is_err() {
        match syn::parse2::<syn::Item>(item.clone()) {
            Ok(syn::Item::Impl(imp)) => return method::device_impl(args, imp),
            Ok(syn::Item::Trait(t)) => return trait_def::device_trait(t),
            _ => {}
        }
    }
    first_round(FnKind::Device, args, item)
}

/// `#[device_extern]` on an `extern "C"` block of CUDA C++ device function declarations.
pub fn device_extern(args: TokenStream, item: TokenStream) -> TokenStream {
    extern_cpp::expand(args, item)
}

/// `cpp_header!(NAME: items...)`: a C++ header for Rust device functions and types.
pub fn cpp_header(input: TokenStream) -> TokenStream {
    cpp_header::first_round(input)
}

/// The hidden struct the functions of `impl Trait for prim` hang on (see `trait_def`).
pub fn trait_anchor(trait_name: &str, prim: &str) -> proc_macro2::Ident {
    trait_def::prim_anchor(trait_name, prim)
}

/// `ptx_runtime::__private::trait_defaults!`: a user trait's default methods for one impl.
pub fn trait_defaults(input: TokenStream) -> TokenStream {
    trait_def::defaults(input)
}

/// `#[__device_api]` on a device-API function: the function and its replay.
pub fn device_api(args: TokenStream, item_tokens: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item_tokens.clone()) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let name = if args.is_empty() { item.sig.ident.to_string() } else { args.to_string() };
    let replay = crate::link::replay::emit("api", &item.sig.ident, &item.vis, &item_tokens, &Info::Api(name));
    quote!(#item #replay)
}

/// Everything the item-specific expansions need.
pub struct Compiled {
    pub item: syn::ItemFn,
    pub sig: Signature,
    pub args: Args,
    pub no_mangle: bool,
    pub types: SigTypes,
    pub prototype: Text,
    pub body: Text,
    /// The source files the body's `.loc`s name, and how many file numbers it wrote.
    pub files: Vec<String>,
    pub file_refs: usize,
    /// Under `debug`, the function's DWARF compile unit and how many file numbers it wrote
    /// (`expand::debuginfo`).
    pub dwarf: Option<(Text, usize)>,
    /// References to the nodes of the device functions the body calls (`&f::NODE`,
    /// `Vec3::__PTX_NODE__dot`), nameable in the generated module.
    pub callees: Vec<TokenStream>,
    /// The lowest PTX ISA the body needs.
    pub isa: Isa,
    /// System calls and string constants the body needs declared at module scope.
    pub decls: lower::Decls,
    /// Compile-time checks (type identities, layouts) for the generated module.
    pub checks: Vec<TokenStream>,
    /// An instance of a generic kernel: its symbol's `Piece::Template` (see `generic_kernel`).
    pub template: Option<TokenStream>,
    /// A device function's `__ptx_inline` replay, for the kernels that call it (`inline_form`).
    pub inline: Option<TokenStream>,
}

fn kind_name(kind: FnKind) -> &'static str {
    match kind {
        FnKind::Kernel => "kernel",
        FnKind::Device => "device_fn",
    }
}

/// The attribute itself: the function (kept for the host), a device function's replay, and
/// the first compile round.
fn first_round(kind: FnKind, args: TokenStream, item_tokens: TokenStream) -> TokenStream {
    let mut item: syn::ItemFn = match syn::parse2(item_tokens.clone()) {
        Ok(item) => item,
        Err(_) => {
            let msg = format!("{} applies to a free function (`fn name(params) {{ body }}`)", kind.attr());
            return syn::Error::new_spanned(item_tokens, msg).to_compile_error();
        }
    };
    if kind == FnKind::Device {
        if let Some(span) = method_marker(&item) {
            // A method inside a plain `impl`: the generated module cannot live there, so say
            // once where the attribute goes and leave the method as it is.
            let e = syn::Error::new(span, "`#[device_fn]` on a method: put it on the `impl` block instead (`#[device_fn] impl T { ... }`), which makes every method of the block a device function").to_compile_error();
            return quote!(#item #e);
        }
    }
    if kind == FnKind::Device && (front::generic::is_generic(&item.sig) || front::force_inline::is_forced_inline(&item.attrs)) {
        return generic::definition(item_tokens, item);
    }
    if kind == FnKind::Kernel && (front::generic::is_generic(&item.sig) || generic_kernel::declares_instances(&args)) {
        return generic_kernel::definition(args, item);
    }
    // The round reads the item as written (it takes `#[no_mangle]` itself): parsed once.
    let parsed = item.clone();
    attrs::take_no_mangle(&mut item.attrs);
    // Keep the function so rustc goes on checking the rest of the crate against it, less what
    // rustc would report a second time (a variadic signature is an error of ours already).
    item.sig.variadic = None;
    let replay = match kind {
        FnKind::Device => {
            let info = Info::Fn(FnInfo {
                name: item.sig.ident.to_string(),
                params: item
                    .sig
                    .inputs
                    .iter()
                    .filter_map(|a| match a {
                        syn::FnArg::Typed(pt) => Some(pt.ty.to_token_stream()),
                        syn::FnArg::Receiver(_) => None,
                    })
                    .collect(),
                ret: match &item.sig.output {
                    syn::ReturnType::Default => None,
                    syn::ReturnType::Type(_, t) => Some(t.to_token_stream()),
                },
                inlinable: !front::force_inline::is_never_inline(&item.attrs),
            });
            match &info {
                Info::Fn(f) if f.inlinable => crate::link::replay::emit_device_fn(&item.sig.ident, &item.vis, &item_tokens, &info),
                _ => crate::link::replay::emit("fn", &item.sig.ident, &item.vis, &item_tokens, &info),
            }
        }
        FnKind::Kernel => quote!(),
    };
    let round = round(kind, args, (item_tokens, Some(parsed)), quote!(), Vec::new(), true, None);
    let allow = match kind {
        FnKind::Kernel => quote!(#[allow(dead_code)]),
        // Used by the PTX even when no host code calls it.
        FnKind::Device => quote!(#[allow(dead_code)]),
    };
    quote! {
        #allow
        #item
        #replay
        #round
    }
}

/// A `self` receiver, or `Self` in the signature or the body: a function written inside an `impl`.
fn method_marker(item: &syn::ItemFn) -> Option<proc_macro2::Span> {
    if let Some(syn::FnArg::Receiver(r)) = item.sig.inputs.first() {
        return Some(r.self_token.span);
    }
    fn find_self(ts: TokenStream) -> Option<proc_macro2::Span> {
        ts.into_iter().find_map(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) if i == "Self" => Some(i.span()),
            proc_macro2::TokenTree::Group(g) => find_self(g.stream()),
            _ => None,
        })
    }
    // `Self` names the impl's type only in an impl: in the signature or in the body.
    find_self(item.sig.to_token_stream()).or_else(|| find_self(item.block.to_token_stream()))
}

/// The first round of one method of a `#[device_fn] impl` (see `method`).
fn method_first_round(args: TokenStream, item: syn::ItemFn, cx: method::MethodCx) -> TokenStream {
    round(FnKind::Device, args, (item.to_token_stream(), None), quote!(), Vec::new(), true, Some(&cx))
}

/// `ptx_runtime::__private::compile! { {STATE} {FOUND} }`: a round after a fetch.
pub fn compile(input: TokenStream) -> TokenStream {
    let Some((state, found_tokens, found)) = chain::parse_input(input) else {
        return quote!(::core::compile_error!("internal: malformed input to the device compiler's fetch chain"););
    };
    let Some((kind, args, item)) = chain::parse_state(state) else {
        return quote!(::core::compile_error!("internal: malformed state in the device compiler's fetch chain"););
    };
    if kind == "cpp_header" {
        return cpp_header::generate(args, item, found);
    }
    if kind == "method" {
        let Some((cx, item)) = method::MethodCx::read(item) else {
            return quote!(::core::compile_error!("internal: malformed method state in the device compiler's fetch chain"););
        };
        return round(FnKind::Device, args, (item, None), found_tokens, found, false, Some(&cx));
    }
    let kind = if kind == "kernel" { FnKind::Kernel } else { FnKind::Device };
    round(kind, args, (item, None), found_tokens, found, false, None)
}

/// One compile round: the generated module, a further fetch, or the errors.
fn round(kind: FnKind, args: TokenStream, item: Item, found_tokens: TokenStream, found: Vec<(TokenStream, Info)>, first: bool, method: Option<&method::MethodCx>) -> TokenStream {
    // A device function that fails leaves a stub module, so its callers add no errors.
    let device_fn = (kind == FnKind::Device && method.is_none()).then(|| item.0.clone());
    let out = round_inner(kind, args, item, found_tokens, found, first, method);
    match (out, method) {
        (Round::Failed(e), Some(m)) => {
            let stub = method::stub(m);
            quote!(#e #stub)
        }
        (Round::Failed(e), None) => {
            let parsed = device_fn.and_then(|tokens| syn::parse2::<syn::ItemFn>(tokens).ok());
            let stub = parsed.map(|f| device_fn::stub(&f.sig.ident, &f.vis));
            quote!(#e #stub)
        }
        (Round::Done(t), _) => t,
    }
}

/// The item a round compiles: its tokens, and the item parsed from them where the caller has
/// it already (a parse of the body is a good part of a round, in an unoptimized macro).
type Item = (TokenStream, Option<syn::ItemFn>);

/// What a round produced: a module or further fetch, or errors.
enum Round {
    Done(TokenStream),
    Failed(TokenStream),
}

fn round_inner(kind: FnKind, args: TokenStream, (item_tokens, parsed): Item, found_tokens: TokenStream, found: Vec<(TokenStream, Info)>, first: bool, method: Option<&method::MethodCx>) -> Round {
    let parsed = match parsed {
        Some(item) => Ok(item),
        None => syn::parse2(item_tokens.clone()),
    };
    let mut item: syn::ItemFn = match parsed {
        Ok(item) => item,
        Err(e) => return Round::Failed(e.to_compile_error()),
    };
    let mut errors = Errors::new();
    front::plain_call::set_item_body(item.block.brace_token.span.join());
    front::source_const::set_item(method.is_none() && item.sig.generics.params.is_empty());
    crate::ir::loc::forget_replayed();
    let parsed_args = attrs::parse_args(args.clone(), kind, &mut errors);
    let no_mangle = attrs::take_no_mangle(&mut item.attrs);
    let template = generic_kernel::take_symbol(&mut item.attrs);
    check::ascii_name(&item.sig.ident, &mut errors);
    let sig = Signature::parse(&item.sig, kind, method.map(|m| &m.self_ty), &mut errors);
    // Kernels inline small device functions, except under `debug` (nvcc -G inlines only
    // `__forceinline__` functions: a debugger steps into the calls).
    // Methods too (`front::inline_method`), into kernels only, as free functions: a method
    // inlining another that inlines it back would wait for each other's decision forever.
    let kernel = kind == FnKind::Kernel && !parsed_args.debug;
    let inline = front::Inlining { device_fns: kernel, methods: kernel };
    let env = Env::new(found);
    let mut needs = Needs::default();
    if !errors.is_empty() {
        // Signature errors are reported by the first round, with the body's own errors (those
        // that do not wait for a fetch).
        if first {
            front::check(&item.block, &sig, &item.sig, &env, &mut needs, &mut errors, inline);
            return Round::Failed(errors.to_compile_errors());
        }
        return Round::Failed(quote!());
    }
    front::generic::set_round(&format!("{} {}", item_tokens, method.map(|m| m.write().to_string()).unwrap_or_default()));
    let checked = front::check(&item.block, &sig, &item.sig, &env, &mut needs, &mut errors, inline);
    // The generic functions' instantiations the body reaches, and theirs, each once.
    let mut instances = Vec::new();
    if let Some(c) = &checked {
        let mut work = c.instances.clone();
        let mut seen = std::collections::HashSet::new();
        while let Some(inst) = work.pop() {
            if !seen.insert(inst.key.clone()) {
                continue;
            }
            // The `where prim: Trait` bounds an instance keeps are for the front end only.
            let mut plain = inst.item.sig.clone();
            plain.generics = syn::Generics::default();
            let isig = Signature::parse(&plain, FnKind::Device, inst.self_ty.as_ref(), &mut errors);
            if let Some(ic) = front::check(&inst.item.block, &isig, &inst.item.sig, &env, &mut needs, &mut errors, front::Inlining { device_fns: false, methods: inline.methods }) {
                work.extend(ic.instances.iter().cloned());
                instances.push((inst, isig, ic));
            }
        }
    }
    if !needs.is_empty() {
        let state = match method {
            Some(m) => {
                let cx = m.write();
                chain::state("method", &args, &quote!(#cx #item_tokens))
            }
            None => chain::state(kind_name(kind), &args, &item_tokens),
        };
        return Round::Done(chain::fetch(&needs.paths, state, found_tokens));
    }
    let Some(checked) = checked else { return Round::Failed(errors.of_failure("the front end")) };
    if !errors.is_empty() {
        return Round::Failed(errors.to_compile_errors());
    }
    let mut instance_items = TokenStream::new();
    for (inst, isig, ic) in instances {
        let types = SigTypes {
            params: isig.params.iter().map(|p| abi_type(&for_inner_module(&p.syn_ty))).collect(),
            ret: isig.ret.as_ref().map(|(ty, _)| abi_type(&for_inner_module(ty))),
        };
        let iargs = Args { target: parsed_args.target, bounds: Default::default(), fmad: parsed_args.fmad, debug: parsed_args.debug };
        let cx = lower::Context { body: &ic.body, infer: &ic.infer, structs: &ic.structs, enums: &ic.enums, kind: FnKind::Device, param_types: &types.params, target: iargs.target, bounds: iargs.bounds, fmad: iargs.fmad, debug: iargs.debug, assertfail: iargs.debug };
        let Some(lowered) = lower::lower(&cx, &mut errors) else { return Round::Failed(errors.of_failure("the lowering")) };
        let mut checks = abi_agreement(&ic.body, &ic, &types);
        let dwarf = debuginfo::unit(&inst.item, &ic, &lowered, FnKind::Device);
        checks.extend(ic.checks);
        let body = crate::back::ptx::body_with_locs(&lowered.func);
        let compiled = Compiled {
            prototype: crate::back::ptx::prototype(FnKind::Device, &types),
            body: body.0,
            dwarf,
            files: lowered.func.files.names.clone(),
            file_refs: body.1,
            item: inst.item.clone(),
            sig: isig,
            args: iargs,
            no_mangle: false,
            types,
            callees: lowered.callees,
            isa: lowered.isa,
            decls: lowered.decls,
            checks,
            template: None,
            inline: None,
        };
        instance_items.extend(generic::expand_instance(compiled, &inst));
    }
    let types = SigTypes {
        params: sig.params.iter().map(|p| abi_type(&for_inner_module(&p.syn_ty))).collect(),
        ret: sig.ret.as_ref().map(|(ty, _)| abi_type(&for_inner_module(ty))),
    };
    let cx = lower::Context { body: &checked.body, infer: &checked.infer, structs: &checked.structs, enums: &checked.enums, kind, param_types: &types.params, target: parsed_args.target, bounds: parsed_args.bounds, fmad: parsed_args.fmad, debug: parsed_args.debug, assertfail: parsed_args.debug || no_mangle };
    let Some(lowered) = lower::lower(&cx, &mut errors) else { return Round::Failed(errors.of_failure("the lowering")) };
    let dwarf = debuginfo::unit(&item, &checked, &lowered, kind);
    let mut checks = abi_agreement(&checked.body, &checked, &types);
    let body = crate::back::ptx::body_with_locs(&lowered.func);
    // A device function's module tells kernels whether they inline it, from what it fetched.
    let compiled = inline_form::Compiled { item: &item, found: &env, body: &body.0, checks: checked.checks.len(), strings: &lowered.decls.strings, tables: lowered.decls.tables.len(), exported: no_mangle };
    let inline = match method {
        None if kind == FnKind::Device => Some(inline_form::replay(&compiled)),
        Some(m) if m.inline => Some(inline_form::method_replay(&compiled, &m.self_ty)),
        _ => None,
    };
    checks.extend(checked.checks);
    let compiled = Compiled {
        prototype: {
            let mut p = crate::back::ptx::prototype(kind, &types);
            p.str(&crate::back::ptx::launch_directives(&parsed_args.bounds));
            p
        },
        body: body.0,
        dwarf,
        files: lowered.func.files.names.clone(),
        file_refs: body.1,
        item,
        sig,
        args: parsed_args,
        no_mangle,
        types,
        callees: lowered.callees,
        isa: lowered.isa,
        decls: lowered.decls,
        checks,
        template,
        inline,
    };
    let expanded = match (kind, method) {
        (_, Some(m)) => method::expand(compiled, m),
        (FnKind::Kernel, _) => kernel::expand(compiled),
        (FnKind::Device, _) => device_fn::expand(compiled),
    };
    Round::Done(quote!(#expanded #instance_items))
}

/// For every parameter whose type the compiler understood, its ABI class must be the one
/// rustc computes for the type (`ParamType::ABI`): the declarations come from rustc, the
/// loads from the compiler.
fn abi_agreement(body: &Body, checked: &front::Checked, types: &SigTypes) -> Vec<TokenStream> {
    use crate::front::ty::Ty;
    let p = quote!(::ptx_runtime::__private);
    let mut out = Vec::new();
    for (i, local) in body.params.iter().enumerate() {
        let Some(id) = local else { continue };
        let ty = checked.infer.resolve(&body.locals[*id].ty).lowered();
        let ours = match &ty {
            Ty::Scalar(s) => {
                let s = quote::format_ident!("{}", format!("{s:?}"));
                quote!(#p::ParamAbi::Scalar(::ptx_runtime::abi::Scalar::#s))
            }
            Ty::Ptr { .. } => quote!(#p::ParamAbi::Pointer),
            Ty::Handle(_) => quote!(#p::ParamAbi::Handle),
            t => match t.layout() {
                Some(l) => {
                    let (size, align) = (l.size, l.align);
                    quote!(#p::ParamAbi::Aggregate(#p::Layout::new(#size, #align)))
                }
                None => continue,
            },
        };
        let t = &types.params[i];
        out.push(quote! {
            const _: () = #p::assert_abi(<#t as #p::ParamType>::ABI, #ours);
        });
    }
    out
}

/// `const __SYMBOL: &str`: the plain name under `#[no_mangle]`, else the mangled module path.
fn symbol_const(c: &Compiled) -> TokenStream {
    let piece = if let Some(t) = &c.template {
        t.clone()
    } else if c.no_mangle {
        let name = c.item.sig.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
        quote!(::ptx_runtime::__private::Piece::Str(#name))
    } else {
        quote!(::ptx_runtime::__private::Piece::Mangled(::core::module_path!()))
    };
    quote!(const __SYMBOL: &str = ::ptx_runtime::__private::ptx_text![#piece];)
}

/// One `const` per parameter and return type checking §2.3 notes C and D on the type rustc
/// resolved, spanned at the type so a violation behind an alias is reported there.
fn abi_checks(types: &SigTypes) -> TokenStream {
    types
        .params
        .iter()
        .chain(types.ret.iter())
        .map(|ty| {
            quote::quote_spanned! {syn::spanned::Spanned::span(ty)=>
                const _: () = ::ptx_runtime::__private::check_param(<#ty as ::ptx_runtime::__private::ParamType>::ABI);
            }
        })
        .collect()
}

fn target_tokens(args: &Args) -> TokenStream {
    let sm = args.target.sm;
    let suffix = match args.target.suffix {
        Some(c) => quote!(::core::option::Option::Some(#c)),
        None => quote!(::core::option::Option::None),
    };
    quote!(::ptx_runtime::__private::Target { sm: #sm, suffix: #suffix })
}

fn isa_tokens(isa: Isa) -> TokenStream {
    let (major, minor) = (isa.major, isa.minor);
    quote!(::ptx_runtime::__private::Isa::new(#major, #minor))
}

/// A device function's node and what it needs, inside its module, whose `__SYMBOL` is defined:
/// its string and table nodes, the body's pieces, `pub static NODE`, and the compile-time
/// checks. The same for free functions, methods and generic instances.
fn node_items(c: &Compiled) -> TokenStream {
    let abi = abi_checks(&c.types);
    let checks = &c.checks;
    let isa = isa_tokens(c.isa);
    let callees = node_list(c);
    let strings = string_nodes(c);
    let prototype = &c.prototype;
    let (body_items, body_fields) = lineinfo::node_fields(c);
    quote! {
        #strings
        #body_items
        #[doc(hidden)]
        pub static NODE: ::ptx_runtime::__private::FnNode = ::ptx_runtime::__private::FnNode {
            symbol: __SYMBOL,
            prototype: #prototype,
            #body_fields
            callees: #callees,
            isa: #isa,
        };
        #abi
        #(#checks)*
    }
}

/// `&[&a::NODE, Vec3::__PTX_NODE__dot, &VPRINTF_NODE, &__PTX_STR_0]`: the nodes a function reaches
/// directly — its callees, then the system calls and string constants it declares (see
/// [`string_nodes`]).
fn node_list(c: &Compiled) -> TokenStream {
    let callees = &c.callees;
    let syscalls = c.decls.syscalls.iter().map(|n| {
        let n = quote::format_ident!("{}", n);
        quote!(&::ptx_runtime::abi::syscall::#n)
    });
    let strings = (0..c.decls.strings.len()).map(|i| {
        let s = quote::format_ident!("__PTX_STR_{}", i);
        quote!(&#s)
    });
    let tables = (0..c.decls.tables.len()).map(|i| {
        let s = quote::format_ident!("__PTX_TABLE_{}", i);
        quote!(&#s)
    });
    let report = (!c.decls.reports.is_empty()).then(|| quote!(&__PTX_REPORT,));
    quote!(&[#(#callees,)* #(#syscalls,)* #(#strings,)* #report #(#tables),*])
}

/// One `static __PTX_STR_<i>: FnNode` per string constant of the body: the module-scope
/// `.global .align 1 .b8 <symbol>$str$<i>[N] = {...}` (as nvcc declares `$str`), its bytes
/// those of the expression rustc evaluates.
fn string_nodes(c: &Compiled) -> TokenStream {
    let p = quote!(::ptx_runtime::__private);
    let tables = table_nodes(c);
    let strings: TokenStream = c.decls
        .strings
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let s = quote::format_ident!("__PTX_STR_{}", i);
            let name = lower::string_name(i);
            declaration_node(&s, name.clone(), quote!(#p::Piece::Str(".global .align 1 .b8 "), #name, #p::Piece::CString(#value)))
        })
        .collect();
    let report = report_node(c);
    quote!(#strings #report #tables)
}

/// `static __PTX_REPORT: FnNode` where the function's failures report through its slot: the
/// `//@report` line of each site, then the declarations of the word the slot first points at
/// and of the slot (`ptx_abi::report`).
fn report_node(c: &Compiled) -> Option<TokenStream> {
    if c.decls.reports.is_empty() {
        return None;
    }
    let p = quote!(::ptx_runtime::__private);
    let (slot, word) = (lower::slot_name(), lower::slot_word_name());
    let sites = c.decls.reports.iter().enumerate().map(|(i, s)| {
        let number = format!(" {} ", i + 1);
        let (line, column, file, function, message) = (&s.line, &s.column, &s.file, &s.function, &s.message);
        quote! {
            #p::Piece::Str(::ptx_runtime::abi::report::SITE_PREFIX), #slot, #p::Piece::Str(#number), #line, #p::Piece::Str(" "), #column,
            #p::Piece::Str(" "), #p::Piece::Quoted(#file), #p::Piece::Str(" "), #p::Piece::Quoted(#function),
            #p::Piece::Str(" "), #p::Piece::Quoted(#message), #p::Piece::Str("\n"),
        }
    });
    let name = quote::format_ident!("__PTX_REPORT");
    let declarations = quote! {
        #p::Piece::Str(".global .align 4 .u32 "), #word, #p::Piece::Str(";\n.const .align 8 .u64 "), #slot, #p::Piece::Str(" = "), #word
    };
    Some(declaration_node(&name, slot.clone(), quote!(#(#sites)* #declarations)))
}

/// `static <name>: FnNode` for a module-scope declaration (a node without a body, see
/// `FnNode`): `symbol` and `prototype` are the pieces of its `ptx_text!`s.
fn declaration_node(name: &syn::Ident, symbol: TokenStream, prototype: TokenStream) -> TokenStream {
    let p = quote!(::ptx_runtime::__private);
    quote! {
        #[doc(hidden)]
        static #name: #p::FnNode = #p::FnNode {
            symbol: #p::ptx_text![#symbol],
            prototype: #p::ptx_text![#prototype],
            body: "",
            callees: &[],
            isa: #p::Isa::ABI_CALLS,
            files: &[],
            file_refs: &[],
            dwarf: "",
            dwarf_refs: &[],
        };
    }
}

/// One `static __PTX_TABLE_<i>: FnNode` per table defined outside the body that the function
/// reads (see `lower::statics`): `.const .align A .b8 <name>[N] = {...}`, the item's bytes as
/// rustc evaluates it. The element type the body assumed is checked to be the item's.
fn table_nodes(c: &Compiled) -> TokenStream {
    let p = quote!(::ptx_runtime::__private);
    c.decls
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let s = quote::format_ident!("__PTX_TABLE_{}", i);
            let name = lower::statics::table_name(&t.path);
            let (path, elem, align) = (&t.path, &t.elem, t.align);
            let decl = format!(".const .align {align} .b8 ");
            let bytes = quote!(#p::Piece::Bytes({
                #[allow(dead_code)]
                fn __element_type() {
                    let _: &[#elem] = &#path;
                }
                // SAFETY: the table is an array of scalars (checked above): its bytes are
                // initialized, with no padding.
                const B: &[u8] = unsafe { ::core::slice::from_raw_parts(&#path as *const _ as *const u8, ::core::mem::size_of_val(&#path)) };
                B
            }));
            declaration_node(&s, name.clone(), quote!(#p::Piece::Str(#decl), #name, #bytes))
        })
        .collect()
}

/// The module-scope declaration of dynamic shared memory (sized at launch).
fn dyn_smem_decl() -> TokenStream {
    let decl = format!(".extern .shared .align 16 .b8 {}[];\n", crate::lower::DYN_SMEM);
    quote!(::ptx_runtime::__private::Piece::Str(#decl))
}
