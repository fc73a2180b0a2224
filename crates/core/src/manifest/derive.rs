//! Derive chains: the scopes a derive entry is evaluated in, and the walk that finds cycles
//! (`check`'s to report) and chains deeper than [`MAX_DERIVE_DEPTH`] (refused at load).

use super::{Manifest, ManifestError};
use crate::expr::{Expr, Ref};
use indexmap::IndexMap;
use std::collections::{BTreeMap, BTreeSet};

impl Manifest {
    /// The derive scopes: the global entries, and for each variant with local entries the
    /// global ones with its own on top.
    pub(super) fn derive_scopes(&self) -> Vec<(String, Vec<(&str, &Expr)>)> {
        let mut scopes: Vec<(String, Vec<(&str, &Expr)>)> = vec![(
            "derive".into(),
            self.derive.iter().map(|(k, e)| (k.as_str(), e)).collect(),
        )];
        for v in self.variants.iter().filter(|v| !v.derive.is_empty()) {
            let mut m: IndexMap<&str, &Expr> =
                self.derive.iter().map(|(k, e)| (k.as_str(), e)).collect();
            for (k, e) in &v.derive {
                m.insert(k.as_str(), e);
            }
            scopes.push((format!("variant `{}`", v.decl.id), m.into_iter().collect()));
        }
        scopes
    }

    /// Refuses derive chains deeper than [`MAX_DERIVE_DEPTH`] when a manifest loads, so that
    /// evaluation (recursive, one level per entry) is bounded and `check` stays linear in the
    /// manifest's size. Cycles are `check`'s to report (and an evaluation error).
    pub(super) fn check_depth(&self) -> Result<(), ManifestError> {
        let problems: BTreeSet<String> = self
            .derive_scopes()
            .iter()
            .filter_map(|(place, scope)| match derive_walk(scope) {
                Err(DeriveFault::TooDeep(p)) => Some(format!("{place}: {p}")),
                _ => None,
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ManifestError::Check(problems.into_iter().collect()))
        }
    }
}

/// The longest derive chain a manifest may have (entry -> entry it names -> ...). The seed and
/// the overlay use fewer than 20 levels.
pub const MAX_DERIVE_DEPTH: usize = 128;

/// What [`derive_walk`] found wrong in a derive scope.
pub(super) enum DeriveFault {
    /// A cycle, as `a -> b -> a`.
    Cycle(String),
    /// A chain deeper than [`MAX_DERIVE_DEPTH`].
    TooDeep(String),
}

/// Walks a derive scope depth-first with an explicit stack (a hostile chain cannot overflow the
/// call stack): the first cycle or chain deeper than [`MAX_DERIVE_DEPTH`] found.
pub(super) fn derive_walk(scope: &[(&str, &Expr)]) -> Result<(), DeriveFault> {
    let index: BTreeMap<&str, usize> = scope
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    let deps: Vec<Vec<usize>> = scope
        .iter()
        .map(|(_, e)| {
            e.refs()
                .into_iter()
                .filter_map(|r| match r {
                    Ref::Derive(d) => index.get(d.as_str()).copied(),
                    Ref::Path(_) => None,
                })
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done; depth[i] = longest chain from i.
    let mut state = vec![0u8; scope.len()];
    let mut depth = vec![0usize; scope.len()];
    for start in 0..scope.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (n, ref mut next)) = stack.last_mut() {
            if let Some(&d) = deps[n].get(*next) {
                *next += 1;
                match state[d] {
                    0 => {
                        if stack.len() > MAX_DERIVE_DEPTH {
                            let chain: Vec<&str> =
                                stack.iter().take(4).map(|(i, _)| scope[*i].0).collect();
                            return Err(DeriveFault::TooDeep(format!(
                                "derive chain deeper than {MAX_DERIVE_DEPTH} entries ({} -> ...)",
                                chain.join(" -> ")
                            )));
                        }
                        state[d] = 1;
                        stack.push((d, 0));
                    }
                    1 => {
                        let pos = stack.iter().position(|(i, _)| *i == d).unwrap_or(0);
                        let mut c: Vec<&str> =
                            stack[pos..].iter().map(|(i, _)| scope[*i].0).collect();
                        c.push(scope[d].0);
                        return Err(DeriveFault::Cycle(c.join(" -> ")));
                    }
                    _ => {}
                }
            } else {
                stack.pop();
                state[n] = 2;
                depth[n] = 1 + deps[n].iter().map(|d| depth[*d]).max().unwrap_or(0);
                if depth[n] > MAX_DERIVE_DEPTH {
                    return Err(DeriveFault::TooDeep(format!(
                        "derive chain deeper than {MAX_DERIVE_DEPTH} entries (from `{}`)",
                        scope[n].0
                    )));
                }
            }
        }
    }
    Ok(())
}
