//! The front end: PTX text → [`ast::Module`].

pub mod ast;
mod lexer;
mod parser;

/// A syntax error: where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: u32,
    pub message: String,
}

/// Parses a whole module.
pub fn parse(text: &str) -> Result<ast::Module, ParseError> {
    parser::Parser::new(lexer::lex(text)?).module()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_syntax_error_in_a_body_stays_with_its_function() {
        let m = super::parse(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry a(.param .u64 out)\n{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, ];\n { ret; }\n}\n.entry b() { ret; }\n").unwrap();
        assert_eq!(m.funcs.len(), 2);
        let e = m.funcs[0].body_error.as_ref().expect("the error is kept");
        assert_eq!((e.line, e.message.as_str()), (7, "bad operand `]`"));
        assert!(m.funcs[1].body_error.is_none() && m.funcs[1].body.as_ref().is_some_and(|b| b.len() == 1));
        // Without the brace that closes the body, the module does not parse.
        assert!(super::parse(".entry a() {\n add.s32 %r1, ];\n").is_err());
    }
}
