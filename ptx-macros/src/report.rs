//! Error accumulation: every rule a macro input breaks is collected with its span, and all of
//! them are reported together as `compile_error!`s.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn new() -> Errors {
        Errors::default()
    }

    /// An error spanning all of `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error at `span`.
    pub fn at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Drops the errors after the first `len` (reported later, once more is known).
    pub fn truncate(&mut self, len: usize) {
        self.errors.truncate(len);
    }

    /// Keeps, of the errors after the first `from`, those `keep` accepts (given the ones kept
    /// before them).
    pub fn retain_from(&mut self, from: usize, mut keep: impl FnMut(&[syn::Error], &syn::Error) -> bool) {
        let later = self.errors.split_off(from.min(self.errors.len()));
        for e in later {
            if keep(&self.errors[from..], &e) {
                self.errors.push(e);
            }
        }
    }

    /// The errors of a step that produced nothing, with an internal error if there is none, so
    /// that "no output and no error" cannot happen.
    pub fn of_failure(&mut self, what: &str) -> TokenStream {
        if self.errors.is_empty() {
            self.at(proc_macro2::Span::call_site(), format!("internal: {what} produced no code and no error; please report this function"));
        }
        self.to_compile_errors()
    }

    /// The errors as `compile_error!` invocations, each at its span.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors.iter().map(syn::Error::to_compile_error).collect()
    }
}

impl ToTokens for Errors {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.to_compile_errors());
    }
}
