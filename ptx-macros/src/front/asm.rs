//! `ptx_asm!("add.s32 {0}, {1}, {2};", out(i32) r, in(i32) a, in(i32) b)`: inline PTX with
//! typed register operands. `{n}` names operand `n`; `{{`/`}}` are braces. `in` operands are
//! values, `out` and `inout` operands are places (usually `let mut` locals). Operand types
//! are scalars; `bool` is a `.pred` register.

use crate::syntax::first_token::FirstToken;
use super::hir::{Asm, AsmDir, AsmOperand, Expr, ExprKind};
use super::ty::Ty;
use super::Checker;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;

struct AsmInput {
    template: syn::LitStr,
    operands: Vec<OperandSyntax>,
}

struct OperandSyntax {
    dir: syn::Ident,
    ty: syn::Type,
    expr: syn::Expr,
}

impl Parse for OperandSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let dir: syn::Ident = syn::ext::IdentExt::parse_any(input)?;
        let content;
        syn::parenthesized!(content in input);
        let ty: syn::Type = content.parse()?;
        let expr: syn::Expr = input.parse()?;
        Ok(OperandSyntax { dir, ty, expr })
    }
}

impl Parse for AsmInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let template: syn::LitStr = input.parse()?;
        let mut operands = Vec::new();
        if input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
            let ops = Punctuated::<OperandSyntax, syn::Token![,]>::parse_terminated(input)?;
            operands = ops.into_iter().collect();
        }
        Ok(AsmInput { template, operands })
    }
}

impl<'a> Checker<'a> {
    pub fn asm(&mut self, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        let input: AsmInput = match m.parse_body() {
            Ok(i) => i,
            Err(e) => {
                let msg = format!("{e}; write `ptx_asm!(\"template {{0}}, {{1}};\", out(u32) r, in(u32) a)`");
                return self.error(e.span(), msg);
            }
        };
        let mut operands = Vec::new();
        for op in &input.operands {
            let dir = match op.dir.to_string().as_str() {
                "in" => AsmDir::In,
                "out" => AsmDir::Out,
                "inout" => AsmDir::InOut,
                _ => {
                    self.errors.error(&op.dir, "operands are `in(T) value`, `out(T) place` or `inout(T) place`");
                    continue;
                }
            };
            let ty = self.resolve_type(&op.ty, super::Position::Body);
            if !matches!(ty, Ty::Scalar(_) | Ty::Error) {
                self.errors.error(&op.ty, "inline PTX operands are scalars (`u32`, `f32`, `bool` for a predicate, ...); pass pointers as `u64`");
                continue;
            }
            let x = self.expr(&op.expr);
            self.expect(x.span, &ty, &x.ty);
            if dir != AsmDir::In {
                self.check_place(&x, true);
            }
            operands.push(AsmOperand { dir, ty, expr: x });
        }
        let template = input.template.value();
        // Every `{n}` must name an operand.
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '{' {
                if chars.peek() == Some(&'{') {
                    chars.next();
                    continue;
                }
                let n: String = chars.by_ref().take_while(|&c| c != '}').collect();
                match n.trim().parse::<usize>() {
                    Ok(i) if i < operands.len() => {}
                    _ => {
                        self.errors.error(&input.template, format!("`{{{n}}}` does not name an operand: operands are numbered from 0 in order (there are {})", operands.len()));
                    }
                }
            }
        }
        Expr { kind: ExprKind::Asm(Asm { template, operands }), ty: Ty::Unit, span }
    }
}
