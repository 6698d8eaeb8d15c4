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
