//! The module's `.file` table, assembled in constant evaluation like the rest of the text.
//!
//! Every instruction carries a `.loc <file> <line> <column>` naming the Rust source it came
//! from. PTX numbers files module-wide, and ptxas copies the numbers into `.debug_line` as they
//! are: they must be unique and, for `nvdisasm` and the debuggers to read the table, dense from 1
//! (ptxas 13.5 accepts `.file 5` alone; `nvdisasm -g` then crashes). A function cannot know its
//! numbers when its body is rendered, because the module it ends up in — a kernel of another
//! crate, with device functions from several files — is only assembled later. So each body is
//! rendered with its *own* numbering (1 = the first of its [`FnNode::files`](crate::text::FnNode)),
//! records where each number was written ([`FileRef`]), and the module renumbers while copying
//! the bodies in: the table lists the kernel's own files first (so the kernel's body needs no
//! renumbering), then those of every reachable function in call-graph order, each name once.

use crate::text::FnNode;

/// A file number written in a rendered body: `at` is its byte offset, `file` the function-local
/// number written there (1-based, into the function's own files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub at: u32,
    pub file: u16,
}

/// Most distinct source files one module can name.
pub const MAX_FILES: usize = 256;

/// Most distinct source files one function can name (its own, and those of macros expanded in
/// its body).
pub const MAX_FN_FILES: usize = 32;

/// The module's files in order: index `i` is `.file i+1`.
pub(crate) struct FileTable<'a> {
    names: [&'a str; MAX_FILES],
    len: usize,
}

impl<'a> FileTable<'a> {
    /// The kernel's own files, numbered from 1; [`add_node`](Self::add_node) appends those of
    /// each reachable function.
    pub(crate) const fn new(own: &[&'a str]) -> FileTable<'a> {
        let mut t = FileTable { names: [""; MAX_FILES], len: 0 };
        let mut i = 0;
        while i < own.len() {
            t.add(own[i]);
            i += 1;
        }
        t
    }

    pub(crate) const fn add_node(&mut self, node: &'a FnNode) {
        let mut j = 0;
        while j < node.files.len() {
            self.add(node.files[j]);
            j += 1;
        }
    }

    const fn add(&mut self, name: &'a str) {
        if self.index(name) == 0 {
            assert!(self.len < MAX_FILES, "a PTX module names more than 256 source files");
            self.names[self.len] = name;
            self.len += 1;
        }
    }

    /// The 1-based number of `name`, 0 when it is not in the table.
    pub(crate) const fn index(&self, name: &str) -> usize {
        let mut i = 0;
        while i < self.len {
            if crate::text::str_eq(self.names[i], name) {
                return i + 1;
            }
            i += 1;
        }
        0
    }

    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    pub(crate) const fn name(&self, i: usize) -> &'a str {
        self.names[i]
    }

    /// The module numbers of a function's own files (entry `k` for its file `k+1`).
    pub(crate) const fn numbers(&self, node: &FnNode) -> [usize; MAX_FN_FILES] {
        let mut out = [0; MAX_FN_FILES];
        let mut k = 0;
        while k < node.files.len() && k < MAX_FN_FILES {
            out[k] = self.index(node.files[k]);
            k += 1;
        }
        out
    }
}
