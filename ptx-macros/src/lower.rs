//! Rust bodies to [`ir::Body`].
//!
//! This version lowers the bodies the ABI layer needs: an empty body, and a device function
//! returning one of its parameters (tail expression or `return`). Everything else is reported
//! at the first statement the compiler cannot lower yet.

use crate::ir::{Body, Inst};
use crate::report::Errors;
use crate::syntax::signature::Signature;

pub fn body(block: &syn::Block, sig: &Signature, errors: &mut Errors) -> Body {
    let mut insts = Vec::new();
    match block.stmts.as_slice() {
        [] => {}
        [syn::Stmt::Expr(e, None)] | [syn::Stmt::Expr(e, Some(_))] if returned_param(e, sig).is_some() => {
            if let Some(index) = returned_param(e, sig) {
                insts.push(Inst::ReturnParam { index });
            }
        }
        [first, ..] => errors.error(
            first,
            "the body compiler in this version lowers only empty bodies and device functions returning a parameter; write the body with those, or keep this logic on the host",
        ),
    }
    insts.push(Inst::Ret);
    Body { insts }
}

/// `p` or `return p` where `p` is a parameter and the function returns a value.
fn returned_param(e: &syn::Expr, sig: &Signature) -> Option<usize> {
    sig.ret.as_ref()?;
    let e = match e {
        syn::Expr::Return(r) => r.expr.as_deref()?,
        e => e,
    };
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => sig.param_index(p.path.get_ident()?),
        _ => None,
    }
}
