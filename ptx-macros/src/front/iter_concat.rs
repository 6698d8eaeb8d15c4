//! `a.chain(b)` over two slices or arrays read by value: two counted loops, `0..a.len()` reading
//! `a[p]` and `0..b.len()` reading `b[p]` (each without a bounds check: in bounds by
//! construction), with the same trip after the read (the stages after the `chain` and the
//! consumer), as they would be written by hand. The chain's `break`s leave both loops
//! (`Gen::exit`); counters of later stages (`enumerate`, `skip`...) run on across them.

use super::iter::{Gen, Item};
use super::iter_chain::{Chain, Mode, Source};
use super::Checker;
use proc_macro2::TokenStream;
use quote::quote_spanned;

const ADVICE: &str = "`chain` joins two slices or arrays read by value here (`a.iter().chain(b.iter())`, `a.iter().chain(&b)`), with adapters written after the `chain`; for ranges, `iter_mut()` or adapters before the `chain`, write two loops";

/// The second loop of a `chain`.
pub struct Concat {
    span: proc_macro2::Span,
    /// The element reads of the first and second loop.
    read_a: TokenStream,
    read_b: TokenStream,
    /// `0usize..b.len()`.
    range_b: TokenStream,
}

impl Concat {
    /// The two loops around the trip `content` (a `for`'s label on both).
    pub fn loops(self, label: Option<TokenStream>, p: &syn::Ident, range_a: &TokenStream, content: &TokenStream) -> TokenStream {
        let Concat { span, read_a, read_b, range_b } = self;
        quote_spanned! {span=>
            #label for #p in (#range_a) { #read_a #content }
            #label for #p in (#range_b) { #read_b #content }
        }
    }
}

impl<'a> Checker<'a> {
    /// The item of `a.chain(b)`, read at index `p` of each loop.
    pub(super) fn concat_source(&mut self, g: &mut Gen, a: &Chain, b: &Chain, p: &syn::Ident) -> Option<Item> {
        let sp = self.natural.span;
        let part = |c: &Chain| match &c.source {
            Source::Seq { expr, mode } if c.adapters.is_empty() && *mode != Mode::Alias => Some((expr.clone(), *mode)),
            _ => None,
        };
        let (Some((ea, ma)), Some((eb, mb))) = (part(a), part(b)) else {
            self.errors.at(a.span, ADVICE);
            return None;
        };
        let (sa, ma) = self.seq_source(g, &ea, ma)?;
        let (sb, mb) = self.seq_source(g, &eb, mb)?;
        if ma == Mode::Alias || mb == Mode::Alias {
            self.errors.at(a.span, ADVICE);
            return None;
        }
        let (la, lb, v) = (g.fresh("la"), g.fresh("lb"), g.fresh("v"));
        g.pre.push(quote_spanned!(sp=> let #la: usize = #sa.len(); let #lb: usize = #sb.len();));
        g.range = quote_spanned!(sp=> 0usize..#la);
        g.concat = Some(Concat {
            span: sp,
            read_a: quote_spanned!(sp=> let #v = __ptx_elem!(#sa, #p);),
            read_b: quote_spanned!(sp=> let #v = __ptx_elem!(#sb, #p);),
            range_b: quote_spanned!(sp=> 0usize..#lb),
        });
        // Not one index range: later stages count for themselves.
        g.one_to_one = false;
        if g.exit.is_none() {
            g.exit = Some(syn::Lifetime::new(&format!("'{}_exit", g.p), a.span));
        }
        Some(Item::Val(v))
    }
}
