//! Greedy minimisation: delete one node (a token or a whole group), or replace a group by its
//! contents, whenever the item still parses and still fails the same way; repeat until no
//! single step applies. Small enough to read what went wrong, and still a real item.

use super::mutate::{all_paths, delete, stream, unwrap, Tok};
use proc_macro2::TokenStream;

/// The smallest item reachable from `item` by deletions and unwraps for which `fails` holds
/// (`fails(item)` must hold).
pub fn minimise(item: &[Tok], fails: impl Fn(&TokenStream) -> bool) -> Vec<Tok> {
    let mut cur = item.to_vec();
    let still = |cand: &[Tok]| {
        let ts = stream(cand);
        syn::parse2::<syn::Item>(ts.clone()).is_ok() && fails(&ts)
    };
    loop {
        let mut changed = false;
        let mut k = 0;
        loop {
            let paths = all_paths(&cur);
            let Some(p) = paths.get(k) else { break };
            let mut shrunk = false;
            for step in [delete as fn(&mut Vec<Tok>, &[usize]), delete_two, unwrap] {
                let mut cand = cur.clone();
                step(&mut cand, p);
                if all_paths(&cand).len() < paths.len() && still(&cand) {
                    cur = cand;
                    shrunk = true;
                    break;
                }
            }
            changed |= shrunk;
            if !shrunk {
                k += 1;
            }
        }
        if !changed {
            return cur;
        }
    }
}

/// Deletes the node at `path` and its next sibling (`#` and `[attr]`, `: Type`, `-1`).
fn delete_two(root: &mut Vec<Tok>, path: &[usize]) {
    delete(root, path);
    let i = path[path.len() - 1];
    let mut list = &mut *root;
    for &j in &path[..path.len() - 1] {
        match &mut list[j] {
            Tok::Group(_, inner) => list = inner,
            Tok::Leaf(_) => return,
        }
    }
    if i < list.len() {
        list.remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::super::mutate::toks;
    use super::*;

    #[test]
    fn keeps_what_the_failure_needs() {
        let item = toks("pub fn k(x: &[f32], out: &mut [f32]) { let a = (1 + 2) * 3; if a > 0 { out[0] = x[0] + 12345.0; } }");
        let min = minimise(&item, |ts| ts.to_string().contains("12345"));
        let text = stream(&min).to_string();
        assert!(text.contains("12345") && text.len() < 50, "{text}");
    }
}
