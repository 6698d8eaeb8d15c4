//! PTX text as the macros produce it: literal text interleaved with `ptx_abi::text::Piece`
//! expressions that rustc evaluates (symbols, the ABI of resolved types). `to_tokens` renders it
//! as a `ptx_text![...]` invocation, a `&'static str` constant expression.

use proc_macro2::TokenStream;
use std::collections::HashMap;
use quote::{quote, ToTokens};

#[derive(Default, Clone, Debug)]
pub struct Text {
    parts: Vec<Part>,
}

#[derive(Clone, Debug)]
enum Part {
    Str(String),
    Piece(TokenStream),
    /// `Piece::FileRef(n)`, kept as its number until the tokens are made: a body has one per
    /// `.loc`, and [`Text::shared_pieces`] keys it without a trip through the compiler.
    FileRef(u16),
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

    /// Appends `Piece::FileRef(n)`: the function's file number `n`, renumbered in the module
    /// (`ptx_abi::lineinfo`).
    pub fn file_ref(&mut self, n: u16) -> &mut Text {
        self.parts.push(Part::FileRef(n));
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
                Part::FileRef(n) => {
                    self.file_ref(*n);
                }
            }
        }
        self
    }

    /// The text with each `Piece::FileRef(n)` written as `n`: what it renders to where no
    /// module renumbers it (a kernel's own body: the module's `.file` table starts with the
    /// kernel's files, `ptx_abi::lineinfo`). A body has a `.loc` per few instructions, so this
    /// leaves a few long strings where each `.loc` split one (less for rustc to read).
    pub fn with_file_numbers(&self) -> Text {
        let mut out = Text::new();
        for p in &self.parts {
            match p {
                Part::Str(s) => out.str(s),
                Part::Piece(t) => out.piece(t.clone()),
                Part::FileRef(n) => out.str(&n.to_string()),
            };
        }
        out
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

    /// The literal text, pieces left out.
    pub fn literal(&self) -> String {
        self.parts.iter().filter_map(|p| if let Part::Str(s) = p { Some(s.as_str()) } else { None }).collect()
    }

    /// The expressions rustc evaluates (not the literal text nor the file numbers).
    pub fn evaluated(&self) -> impl Iterator<Item = &TokenStream> {
        self.parts.iter().filter_map(|p| if let Part::Piece(t) = p { Some(t) } else { None })
    }

    /// The parts as `Piece` expressions.
    pub fn pieces(&self) -> Vec<TokenStream> {
        self.parts
            .iter()
            .map(Part::tokens)
            .collect()
    }

    /// The parts as `Piece` expressions, as [`Text::pieces`], except that a piece occurring
    /// more than once is defined once, as a `const` item named `<prefix><n>` (the items come
    /// first, to place in the scope of the text's own item), and named at each occurrence.
    /// rustc then type-checks and evaluates it once: a module-level constant (`TILE`) is
    /// spelt at every instruction that reads it, and a tiled kernel's body had it 50 times and
    /// more (bench-compile). A piece that calls a macro is left at each occurrence: its value
    /// may depend on where it stands (`line!()`).
    pub fn shared_pieces(&self, prefix: &str) -> (TokenStream, Vec<TokenStream>) {
        let keys: Vec<Option<String>> = self
            .parts
            .iter()
            .map(|p| match p {
                Part::Piece(t) => Some(t.to_string()).filter(|k| !calls_macro(k)),
                Part::FileRef(n) => Some(format!("FileRef {n}")),
                Part::Str(_) => None,
            })
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for k in keys.iter().flatten() {
            *count.entry(k).or_insert(0) += 1;
        }
        let mut names: HashMap<&str, proc_macro2::Ident> = HashMap::new();
        let mut items = TokenStream::new();
        let pieces = self
            .parts
            .iter()
            .zip(&keys)
            .map(|(p, k)| match (p, k) {
                (_, Some(k)) if count[k.as_str()] > 1 => {
                    let n = names.len();
                    let name = names.entry(k).or_insert_with(|| {
                        let name = quote::format_ident!("{prefix}{n}");
                        let t = p.tokens();
                        items.extend(quote!(const #name: ::ptx_runtime::__private::Piece<'static> = #t;));
                        name
                    });
                    quote!(#name)
                }
                _ => p.tokens(),
            })
            .collect();
        (items, pieces)
    }
}

impl Part {
    fn tokens(&self) -> TokenStream {
        match self {
            Part::Str(s) => quote!(::ptx_runtime::__private::Piece::Str(#s)),
            Part::Piece(t) => t.clone(),
            Part::FileRef(n) => quote!(::ptx_runtime::__private::Piece::FileRef(#n)),
        }
    }
}

/// Whether a piece, as text, may invoke a macro: a `!` that is not part of `!=` (`line!()`,
/// however the tokens are spaced). A negation `!(x)` is taken as one too: such a piece is
/// only left unshared. Read from the text the key is made of anyway: walking the tokens
/// themselves is a proc-macro bridge call per token.
fn calls_macro(text: &str) -> bool {
    text.replace("!=", "").contains('!')
}

impl ToTokens for Text {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let pieces = self.pieces();
        tokens.extend(quote!(::ptx_runtime::__private::ptx_text![#(#pieces),*]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_piece_is_defined_once_and_a_macro_call_stays_where_it_is() {
        let tile = quote!(::ptx_runtime::__private::Piece::Dec(TILE as u64));
        let line = quote!(::ptx_runtime::__private::Piece::Dec(::core::line!() as u64));
        let mut t = Text::new();
        t.str("mul.lo.s64 %rd1, %rd2, ").piece(tile.clone()).str(";\n").piece(line.clone()).str(" ").piece(tile.clone());
        t.str(" ").piece(line.clone()).str(" ").piece(quote!(::ptx_runtime::__private::Piece::Dec(1)));
        let (items, pieces) = t.shared_pieces("__P");
        let items = items.to_string();
        assert_eq!(items.matches("const __P0").count(), 1, "{items}");
        assert!(items.contains("TILE"), "{items}");
        assert!(!items.contains("line"), "{items}");
        let pieces: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        assert_eq!(pieces.len(), 10, "{pieces:?}");
        assert_eq!((pieces[1].as_str(), pieces[5].as_str()), ("__P0", "__P0"));
        assert!(pieces[3].contains("line") && pieces[7].contains("line"), "{pieces:?}");
        assert!(pieces[9].contains("Dec (1)"), "once: left inline: {pieces:?}");
        // The plain rendering is unchanged.
        assert_eq!(t.pieces().len(), 10);
    }

    #[test]
    fn file_numbers_are_shared_like_pieces() {
        let mut t = Text::new();
        t.str("\t.loc\t").file_ref(1).str(" 3 4\n\t.loc\t").file_ref(1).str(" 5 6\n").file_ref(2);
        let (items, pieces) = t.shared_pieces("__P");
        let items = items.to_string();
        assert_eq!(items.matches("const").count(), 1, "{items}");
        assert!(items.contains("FileRef (1u16)"), "{items}");
        let pieces: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        assert_eq!((pieces[1].as_str(), pieces[3].as_str()), ("__P0", "__P0"), "{pieces:?}");
        assert!(pieces[5].contains("FileRef (2u16)"), "{pieces:?}");
    }

    #[test]
    fn an_entry_writes_its_file_numbers_as_numbers() {
        let mut t = Text::new();
        t.str("\t.loc\t").file_ref(1).str(" 3 4\n\tmov.u32 %r1, ").piece(quote!(P)).str(";\n\t.loc\t").file_ref(2).str(" 5 6\n");
        let pieces: Vec<String> = t.with_file_numbers().pieces().iter().map(|p| p.to_string()).collect();
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        assert!(pieces[0].contains(r#""\t.loc\t1 3 4\n\tmov.u32 %r1, ""#), "{pieces:?}");
        assert_eq!(pieces[1], "P");
        assert!(pieces[2].contains(r#"";\n\t.loc\t2 5 6\n""#), "{pieces:?}");
    }

    #[test]
    fn a_negation_is_not_a_macro_call_but_a_bang_before_a_group_is_taken_as_one() {
        let text = |t: TokenStream| t.to_string();
        assert!(calls_macro(&text(quote!(a + f(line!())))));
        assert!(calls_macro(&text(quote!(m![x]))));
        assert!(!calls_macro(&text(quote!(a != b && c))));
        // `!(x)` is read as a call too: such a piece is only left unshared.
        assert!(calls_macro(&text(quote!(!(x)))));
    }
}
