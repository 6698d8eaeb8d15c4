//! Rules on the item as a whole, beyond its signature's types.

use crate::report::Errors;

/// PTX identifiers are ASCII (`[a-zA-Z_$][a-zA-Z0-9_$]*`), and every symbol is built from the
/// item's name.
pub fn ascii_name(ident: &syn::Ident, errors: &mut Errors) {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        errors.error(ident, "PTX symbols are ASCII: name device items with ASCII letters, digits and `_`");
    }
}
