//! Variant selection: every variant's verdict (its `when` items, then `requires.limits`), the
//! winner (the highest priority; ties are errors), and why a false expression is false.

use super::env::Ctx;
use super::PlanError;
use crate::expr::{Expr, Node, NodeKind, Value};
use crate::plan::Verdict;

impl Ctx<'_> {
    /// Every variant's verdict, in manifest order; `with_why` explains each rejecting term.
    pub(super) fn verdicts(&mut self, with_why: bool) -> Result<Vec<Verdict>, PlanError> {
        let m = self.m;
        let mut out = Vec::with_capacity(m.variants.len());
        // Values of `when` items that cannot depend on the variant, by the slot of their text.
        let mut shared: Vec<Option<bool>> = vec![None; self.lookup.when_slots];
        for (vi, v) in m.variants.iter().enumerate() {
            self.set_variant(Some(vi));
            let slots = &self.lookup.variants[vi].when_slot;
            let mut verdict = Verdict {
                variant: v.decl.id.clone(),
                priority: v.decl.priority,
                applies: true,
                rejected_by: None,
                why: None,
            };
            for (i, w) in v.when.iter().enumerate() {
                let slot = slots.get(i).copied().flatten();
                let ok = match slot.and_then(|s| shared[s]) {
                    Some(b) => b,
                    None => {
                        let b = w
                            .eval_bool(self)
                            .map_err(|e| e.within(format!("variant `{}` when[{i}]", v.decl.id)))?;
                        if let Some(s) = slot {
                            shared[s] = Some(b);
                        }
                        b
                    }
                };
                if !ok {
                    verdict.applies = false;
                    verdict.rejected_by = Some(format!("when[{i}] `{}`", w.source()));
                    if with_why {
                        let why = self.why_false(w, w.root());
                        if why != format!("`{}` is false", w.source()) {
                            verdict.why = Some(why);
                        }
                    }
                    break;
                }
            }
            if verdict.applies {
                for (lim, need) in v.decl.requires.iter().flat_map(|r| r.limits.iter()) {
                    let have = self.device.limit(lim).unwrap_or(0);
                    if have < *need {
                        verdict.applies = false;
                        verdict.rejected_by = Some(format!("requires.limits.{lim} >= {need}"));
                        verdict.why = Some(format!("the device has {have}"));
                        break;
                    }
                }
            }
            out.push(verdict);
        }
        self.set_variant(None);
        Ok(out)
    }

    /// Explains why `node` (part of `e`, known to be false) is false, down to a leaf term.
    pub(super) fn why_false(&mut self, e: &Expr, node: &Node) -> String {
        let text = e.text_of(node).to_string();
        match &node.kind {
            NodeKind::And(a, b) => {
                if e.eval_node(a, self).ok() == Some(Value::Bool(false)) {
                    self.why_false(e, a)
                } else {
                    self.why_false(e, b)
                }
            }
            NodeKind::Or(a, b) => {
                // Both sides are false: say why each is, down to its operands' values.
                let (wa, wb) = (self.why_false(e, a), self.why_false(e, b));
                format!(
                    "neither `{}` nor `{}` holds: {wa}; {wb}",
                    e.text_of(a),
                    e.text_of(b)
                )
            }
            NodeKind::Not(a) => format!("`{}` is true", e.text_of(a)),
            NodeKind::IfElse {
                then,
                cond,
                otherwise,
            } => match e.eval_node(cond, self) {
                Ok(Value::Bool(true)) => self.why_false(e, then),
                Ok(Value::Bool(false)) => self.why_false(e, otherwise),
                _ => format!("`{text}` is false"),
            },
            NodeKind::Derive(name) => {
                let sub = self
                    .variant
                    .and_then(|v| v.derive.get(name))
                    .or_else(|| self.m.derive.get(name));
                match sub {
                    Some(sub) if !matches!(sub.root().kind, NodeKind::Bool(_)) => {
                        let sub = sub.clone();
                        format!("`{name}` is false: {}", self.why_false(&sub, sub.root()))
                    }
                    _ => format!("`{name}` is false"),
                }
            }
            NodeKind::Bin(_, a, b) => {
                let l = e
                    .eval_node(a, self)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "?".into());
                let r = e
                    .eval_node(b, self)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "?".into());
                format!("`{text}` is false ({l} vs {r})")
            }
            _ => format!("`{text}` is false"),
        }
    }
}

/// The applying variant of the highest priority, by position; `None` when none applies. Two
/// applying variants at that priority are an error.
pub(super) fn winner(verdicts: &[Verdict]) -> Result<Option<usize>, PlanError> {
    let mut best: Option<(usize, i64)> = None;
    for (i, v) in verdicts.iter().enumerate() {
        if !v.applies {
            continue;
        }
        match best {
            Some((j, p)) if p == v.priority => {
                return Err(PlanError::Tie {
                    a: verdicts[j].variant.clone(),
                    b: v.variant.clone(),
                    priority: p,
                })
            }
            Some((_, p)) if p > v.priority => {}
            _ => best = Some((i, v.priority)),
        }
    }
    let Some((wi, wp)) = best else {
        return Ok(None);
    };
    // A later variant with a higher priority may have replaced an earlier tie candidate;
    // check ties against the final winner too.
    if let Some(other) = verdicts
        .iter()
        .enumerate()
        .find(|(i, v)| v.applies && v.priority == wp && *i != wi)
    {
        return Err(PlanError::Tie {
            a: verdicts[wi].variant.clone(),
            b: other.1.variant.clone(),
            priority: wp,
        });
    }
    Ok(Some(wi))
}
