//! PTX text as the macros produce it: literal text interleaved with `ptx_abi::text::Piece`
//! expressions that rustc evaluates (symbols, the ABI of resolved types). `to_tokens` renders it
//! as a `ptx_text![...]` invocation, a `&'static str` constant expression.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

#[derive(Default, Clone, Debug)]
pub struct Text {
    parts: Vec<Part>,
}

#[derive(Clone, Debug)]
enum Part {
    Str(String),
    Piece(TokenStream),
}

impl Text {
    pub fn new() -> Text {
        Text::default()
    }

    /// Appends literal PTX.
    pub fn str(&mut self, s: &str) -> &mut Text {
        match self.parts.last_mut() {
            Some(Part::Str(last)) => last.push_str(s),
            _ => self.parts.push(Part::Str(s.to_owned())),
        }
        self
    }

    /// Appends an expression of type `Piece<'static>`.
    pub fn piece(&mut self, piece: TokenStream) -> &mut Text {
        self.parts.push(Part::Piece(piece));
        self
    }

    /// Appends another text.
    pub fn text(&mut self, other: &Text) -> &mut Text {
        for p in &other.parts {
            match p {
                Part::Str(s) => {
                    self.str(s);
                }
                Part::Piece(t) => {
                    self.piece(t.clone());
                }
            }
        }
        self
    }

    /// Replaces `from` by `to` in the literal text (not in pieces); whether it was there.
    pub fn replace(&mut self, from: &str, to: &str) -> bool {
        for p in &mut self.parts {
            if let Part::Str(s) = p {
                if s.contains(from) {
                    *s = s.replacen(from, to, 1);
                    return true;
                }
            }
        }
        false
    }

    /// Whether the literal text contains `s`.
    pub fn contains(&self, s: &str) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Str(t) if t.contains(s)))
    }

    /// The parts as `Piece` expressions.
    pub fn pieces(&self) -> Vec<TokenStream> {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Str(s) => quote!(::ptx_runtime::__private::Piece::Str(#s)),
                Part::Piece(t) => t.clone(),
            })
            .collect()
    }
}

impl ToTokens for Text {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let pieces = self.pieces();
        tokens.extend(quote!(::ptx_runtime::__private::ptx_text![#(#pieces),*]));
    }
}
