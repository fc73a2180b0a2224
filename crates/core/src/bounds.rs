//! A static proof that a shader's indices into fixed-size arrays stay in range, so that it can
//! run without wgpu's index clamps.
//!
//! With its bounds checks on, wgpu (naga) wraps every dynamic index into a workgroup array, a
//! function-local array, a vector or a matrix in `min(index, len - 1)`. The clamp costs an
//! instruction per access and, worse, stops the driver from folding `base + constant` indices
//! into one address with immediate offsets: on the H200 the tensor-core kernels ran 6-8 % and
//! the single-row gemv 4 % slower with the clamps than without (notes/PERF.md row 133).
//! Accesses to storage and uniform buffers are a different matter: the Vulkan backend requests
//! robust buffer access, which bounds them in the driver whatever the shader does.
//!
//! [`prove_indices`] walks every function of a validated naga module and computes, for each
//! dynamic index into fixed-size storage outside storage and uniform buffers, an interval that
//! holds every value the index can take, and compares it with the length. The extents that
//! cooperative-matrix loads and stores read or write from such arrays (16 x 16 elements from
//! the pointer, rows `stride` elements apart) are checked the same way; wgpu's clamps do not
//! cover those at all. The intervals come from:
//!
//! - literals and constants;
//! - the entry point's built-ins: `local_invocation_index` below the workgroup size,
//!   `local_invocation_id` below each dimension, `workgroup_id` and `num_workgroups` within
//!   WebGPU's 65535 workgroups per dimension, the subgroup built-ins within 128;
//! - integer arithmetic, shifts, `&`, `|`, `^`, `min`, `max`, `clamp`, `select` and casts, each
//!   only where it cannot wrap (an operation that may wrap gives the type's whole range);
//! - the conditions of `if` statements: inside `if (x < c) { ... }` the value `x` is below `c`'s
//!   upper bound (also through `&&`, `||` and `!`, and after `if (x >= c) { return; }` for the
//!   rest of the block). A condition's operand is one SSA value, so what the test says of it
//!   holds wherever that value is used in the branch.
//!
//! Anything else (a `var` loaded back, a function argument, a value read from memory) may be
//! anything its type allows. The proof is therefore sound and incomplete: a shader it cannot
//! prove simply keeps wgpu's clamps (the runtime's `ShaderChecks::Proven`, the default).

use naga::{
    AddressSpace, ArraySize, BinaryOperator, Binding, Block, BuiltIn, Expression, Handle, Literal,
    MathFunction, Module, ScalarKind, Statement, TypeInner, UnaryOperator,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// Every value an integer expression can take: `lo..=hi`.
type Range = (i128, i128);

/// Why a module's indices were not proven in range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{function}: {what}")]
pub struct Unproven {
    /// The function (entry point or helper) holding the access.
    pub function: String,
    /// The access, its length and the index's interval (or why none could be computed).
    pub what: String,
}

/// Proves that every dynamic index into a fixed-size array, vector or matrix outside storage and
/// uniform buffers, and every cooperative-matrix load or store from such an array, stays in range
/// for every invocation. `info` is the module's validation result.
pub fn prove_indices(module: &Module, info: &naga::valid::ModuleInfo) -> Result<(), Unproven> {
    for (handle, function) in module.functions.iter() {
        let name = function.name.clone().unwrap_or_else(|| "function".into());
        Prover::new(module, function, &info[handle], None, name)
            .block(&function.body, &Facts::default())?;
    }
    for (i, ep) in module.entry_points.iter().enumerate() {
        Prover::new(
            module,
            &ep.function,
            info.get_entry_point(i),
            Some(ep.workgroup_size),
            ep.name.clone(),
        )
        .block(&ep.function.body, &Facts::default())?;
    }
    Ok(())
}

/// Parses and validates a WGSL module ([`crate::render::validate_wgsl_module`]), then proves its
/// indices: `Err` is naga's report or the first access not proven in range.
pub fn prove_wgsl(wgsl: &str) -> Result<(), String> {
    let (module, info) = crate::render::validate_wgsl_module(wgsl)?;
    prove_indices(&module, &info).map_err(|e| e.to_string())
}

/// What the enclosing conditions say: a tighter interval for some expressions; and the
/// intervals computed under them so far (a cloned scope starts with none).
/// `vars`: what is known of a local variable's current value (from a store, or from a loaded
/// value's test), which a load emitted while it holds inherits; any store to the variable
/// forgets it.
#[derive(Default)]
struct Facts {
    known: HashMap<Handle<Expression>, Range>,
    vars: HashMap<Handle<naga::LocalVariable>, Range>,
    /// Loads whose variable has not been stored since: a test of one says the same of the
    /// variable.
    fresh: HashMap<Handle<Expression>, Handle<naga::LocalVariable>>,
    /// Boolean variables set by naga's lowering of `a && b` / `a || b` (an `if` storing either
    /// branch's value): what each value of the variable says of the conditions.
    bools: HashMap<Handle<naga::LocalVariable>, BoolFact>,
    memo: RefCell<HashMap<Handle<Expression>, Option<Range>>>,
}

/// Conditions with the truth they had.
type Conditions = Vec<(Handle<Expression>, bool)>;

/// What a boolean variable's value implies: for `true` and for `false`, the conditions (with
/// their truth) that then held, or `None` where the variable cannot have that value.
#[derive(Clone, Debug)]
struct BoolFact {
    when: [Option<Conditions>; 2],
}

impl Clone for Facts {
    fn clone(&self) -> Self {
        Facts {
            known: self.known.clone(),
            vars: self.vars.clone(),
            fresh: self.fresh.clone(),
            bools: self.bools.clone(),
            memo: RefCell::default(),
        }
    }
}

struct Prover<'a> {
    module: &'a Module,
    function: &'a naga::Function,
    info: &'a naga::valid::FunctionInfo,
    /// The entry point's workgroup size (`None` in a helper function).
    workgroup: Option<[u32; 3]>,
    name: String,
}

/// Elements of a cooperative matrix along each side (wgpu's are 8 x 8 or 16 x 16).
fn coop_side(size: naga::CooperativeSize) -> i128 {
    size as u32 as i128
}

impl<'a> Prover<'a> {
    fn new(
        module: &'a Module,
        function: &'a naga::Function,
        info: &'a naga::valid::FunctionInfo,
        workgroup: Option<[u32; 3]>,
        name: String,
    ) -> Self {
        Prover {
            module,
            function,
            info,
            workgroup,
            name,
        }
    }

    fn fail(&self, what: String) -> Unproven {
        Unproven {
            function: self.name.clone(),
            what,
        }
    }

    fn block(&self, block: &Block, facts: &Facts) -> Result<(), Unproven> {
        let mut facts = facts.clone();
        for statement in block.iter() {
            match statement {
                Statement::Emit(range) => {
                    for h in range.clone() {
                        // A load of a variable holds the variable's value at this point.
                        if let Expression::Load { pointer } = self.function.expressions[h] {
                            if let Expression::LocalVariable(v) = self.function.expressions[pointer]
                            {
                                if let Some(&r) = facts.vars.get(&v) {
                                    narrow(&mut facts, h, r);
                                }
                                facts.fresh.insert(h, v);
                            }
                        }
                        self.expression(h, &facts)?;
                    }
                }
                Statement::Block(b) => self.block(b, &facts)?,
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let choice = self.bool_choice(*condition, accept, reject);
                    let mut yes = facts.clone();
                    self.assume(*condition, true, &mut yes);
                    self.block(accept, &yes)?;
                    let mut no = facts.clone();
                    self.assume(*condition, false, &mut no);
                    self.block(reject, &no)?;
                    // `if (c) { return; }` (or a loop's `if (c) {} else { break; }`): what
                    // follows runs only where c is false (true).
                    match (diverges(accept), diverges(reject)) {
                        (true, false) => facts = no,
                        (false, true) => facts = yes,
                        _ => {}
                    }
                    if let Some((v, fact)) = choice {
                        let mut stored = Vec::new();
                        self.stores(std::slice::from_ref(statement), &mut stored);
                        forget(&mut facts, &stored);
                        facts.bools.insert(v, fact);
                        continue;
                    }
                }
                Statement::Switch { cases, .. } => {
                    for case in cases {
                        self.block(&case.body, &facts)?;
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    // Whatever the loop stores changes between iterations.
                    let mut inside = facts.clone();
                    let mut stored = Vec::new();
                    self.stores(body, &mut stored);
                    self.stores(continuing, &mut stored);
                    forget(&mut inside, &stored);
                    self.block(body, &inside)?;
                    self.block(continuing, &inside)?;
                }
                Statement::Store { pointer, value } => {
                    if let Expression::LocalVariable(v) = self.function.expressions[*pointer] {
                        let r = self.range(*value, &facts);
                        forget(&mut facts, &[v]);
                        if let Some(r) = r {
                            facts.vars.insert(v, r);
                        }
                        continue;
                    }
                }
                Statement::CooperativeStore { data, .. } => self.coop(data, &facts)?,
                _ => {}
            }
            // What the statement stored (in nested blocks too) is no longer known.
            let mut stored = Vec::new();
            self.stores(std::slice::from_ref(statement), &mut stored);
            forget(&mut facts, &stored);
        }
        Ok(())
    }

    /// naga's lowering of `a && b` and `a || b`: `if (a) { t = x; } else { t = y; }` with only
    /// emits besides the two stores to one variable. Returns the variable and what its values
    /// imply of `a`, `x` and `y`.
    fn bool_choice(
        &self,
        condition: Handle<Expression>,
        accept: &Block,
        reject: &Block,
    ) -> Option<(Handle<naga::LocalVariable>, BoolFact)> {
        let store = |b: &Block| -> Option<(Handle<naga::LocalVariable>, Handle<Expression>)> {
            let (last, rest) = b.split_last()?;
            if !rest.iter().all(|s| matches!(s, Statement::Emit(_))) {
                return None;
            }
            let Statement::Store { pointer, value } = *last else {
                return None;
            };
            let Expression::LocalVariable(v) = self.function.expressions[pointer] else {
                return None;
            };
            Some((v, value))
        };
        let (v, x) = store(accept)?;
        let (w, y) = store(reject)?;
        if v != w {
            return None;
        }
        let when = |truth: bool| {
            // The paths (condition's truth, stored value) on which the variable is `truth`.
            let paths: Vec<Conditions> = [(true, x), (false, y)]
                .into_iter()
                .filter_map(|(c, value)| match self.function.expressions[value] {
                    Expression::Literal(Literal::Bool(b)) => {
                        (b == truth).then(|| vec![(condition, c)])
                    }
                    _ => Some(vec![(condition, c), (value, truth)]),
                })
                .collect();
            // What holds on every such path.
            let mut common = paths.first()?.clone();
            for p in &paths[1..] {
                common.retain(|f| p.contains(f));
            }
            Some(common)
        };
        Some((
            v,
            BoolFact {
                when: [when(false), when(true)],
            },
        ))
    }

    /// The local variables `statements` (and their nested blocks) store to or pass by pointer.
    fn stores(&self, statements: &[Statement], out: &mut Vec<Handle<naga::LocalVariable>>) {
        for statement in statements {
            match statement {
                Statement::Store { pointer, .. } => out.extend(self.root_var(*pointer)),
                Statement::Call { arguments, .. } => {
                    out.extend(arguments.iter().filter_map(|&a| self.root_var(a)))
                }
                Statement::Atomic { pointer, .. } => out.extend(self.root_var(*pointer)),
                Statement::Block(b) => self.stores(b, out),
                Statement::If { accept, reject, .. } => {
                    self.stores(accept, out);
                    self.stores(reject, out);
                }
                Statement::Switch { cases, .. } => {
                    for case in cases {
                        self.stores(&case.body, out);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    self.stores(body, out);
                    self.stores(continuing, out);
                }
                _ => {}
            }
        }
    }

    /// The local variable at the root of a pointer expression, if any.
    fn root_var(&self, mut h: Handle<Expression>) -> Option<Handle<naga::LocalVariable>> {
        loop {
            match self.function.expressions[h] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => h = base,
                Expression::LocalVariable(v) => return Some(v),
                _ => return None,
            }
        }
    }

    /// Checks one emitted expression, if it indexes or reads a cooperative matrix.
    fn expression(&self, h: Handle<Expression>, facts: &Facts) -> Result<(), Unproven> {
        match self.function.expressions[h] {
            Expression::Access { base, index } => {
                let Some(len) = self.length(base) else {
                    return Ok(());
                };
                let (lo, hi) = self.range(index, facts).ok_or_else(|| {
                    self.fail(format!(
                        "{} indexed by a value that is not an integer",
                        self.describe(base)
                    ))
                })?;
                if lo < 0 || hi >= len as i128 {
                    return Err(self.fail(format!(
                        "index into {} (length {len}) may take {lo}..={hi}",
                        self.describe(base)
                    )));
                }
                Ok(())
            }
            Expression::CooperativeLoad {
                columns,
                rows,
                ref data,
                ..
            } => {
                let _ = (columns, rows);
                self.coop(data, facts)
            }
            _ => Ok(()),
        }
    }

    /// Checks the extent of a cooperative load or store: 16 x 16 (or 8 x 8) elements from the
    /// pointer, `stride` array elements between rows (or columns), each row `side / width`
    /// elements of `width` components.
    fn coop(&self, data: &naga::CooperativeData, facts: &Facts) -> Result<(), Unproven> {
        let (base, (lo, hi)) = match self.function.expressions[data.pointer] {
            Expression::Access { base, index } => (
                base,
                self.range(index, facts).unwrap_or((i128::MIN, i128::MAX)),
            ),
            Expression::AccessIndex { base, index } => (base, (index as i128, index as i128)),
            // A pointer to a whole variable (never an array's element: no extent to bound).
            _ => {
                return Err(self.fail(
                    "a cooperative matrix through a pointer that is not an array element".into(),
                ))
            }
        };
        let Some(len) = self.length(base) else {
            return Ok(());
        };
        let side = self.coop_matrix_side(data.pointer);
        let width = self.element_width(base) as i128;
        let (slo, shi) = self
            .range(data.stride, facts)
            .unwrap_or((i128::MIN, i128::MAX));
        if lo < 0 || slo < 0 || hi == i128::MAX || shi == i128::MAX {
            return Err(self.fail(format!(
                "cooperative matrix from {}: unbounded offset",
                self.describe(base)
            )));
        }
        let last = hi + (side - 1) * shi + (side + width - 1) / width - 1;
        if last >= len as i128 {
            return Err(self.fail(format!(
                "cooperative matrix from {} (length {len}) may reach element {last}",
                self.describe(base)
            )));
        }
        Ok(())
    }

    /// The side of the cooperative matrix loaded or stored through `pointer` (16 if unknown:
    /// wgpu's largest).
    fn coop_matrix_side(&self, pointer: Handle<Expression>) -> i128 {
        for (_, e) in self.function.expressions.iter() {
            if let Expression::CooperativeLoad {
                columns,
                rows,
                ref data,
                ..
            } = *e
            {
                if data.pointer == pointer {
                    return coop_side(columns).max(coop_side(rows));
                }
            }
        }
        16
    }

    /// Components per element of the array `base` points into (4 for `vec4<f16>`).
    fn element_width(&self, base: Handle<Expression>) -> u32 {
        let types = &self.module.types;
        let elem = match *self.info[base].ty.inner_with(types) {
            TypeInner::Pointer { base, .. } => match types[base].inner {
                TypeInner::Array { base, .. } => Some(base),
                _ => None,
            },
            TypeInner::Array { base, .. } => Some(base),
            _ => None,
        };
        match elem.map(|e| &types[e].inner) {
            Some(TypeInner::Vector { size, .. }) => *size as u32,
            _ => 1,
        }
    }

    /// The length of what `base` points to or is, where an index into it must be proven: a
    /// fixed-size array, a vector or a matrix, not in a storage or uniform buffer. `None`: no
    /// proof needed (a runtime-sized array, or storage the driver bounds).
    fn length(&self, base: Handle<Expression>) -> Option<u64> {
        let types = &self.module.types;
        match *self.info[base].ty.inner_with(types) {
            TypeInner::Pointer {
                base: pointee,
                space,
            } => {
                if matches!(space, AddressSpace::Storage { .. } | AddressSpace::Uniform) {
                    return None;
                }
                fixed_len(&types[pointee].inner)
            }
            TypeInner::ValuePointer { size, space, .. } => {
                if matches!(space, AddressSpace::Storage { .. } | AddressSpace::Uniform) {
                    return None;
                }
                size.map(|s| s as u64)
            }
            ref value => fixed_len(value),
        }
    }

    /// A readable name for the indexed value: the variable at the root of the access chain.
    fn describe(&self, mut h: Handle<Expression>) -> String {
        loop {
            match self.function.expressions[h] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => h = base,
                Expression::GlobalVariable(g) => {
                    return format!(
                        "`{}`",
                        self.module.global_variables[g]
                            .name
                            .as_deref()
                            .unwrap_or("global")
                    )
                }
                Expression::LocalVariable(v) => {
                    return format!(
                        "`{}`",
                        self.function.local_variables[v]
                            .name
                            .as_deref()
                            .unwrap_or("local")
                    )
                }
                Expression::Load { pointer } => h = pointer,
                _ => return "a value".into(),
            }
        }
    }

    /// Records what `condition` being `truth` says of its operands.
    fn assume(&self, condition: Handle<Expression>, truth: bool, facts: &mut Facts) {
        if let Some(v) = facts.fresh.get(&condition) {
            if let Some(fact) = facts.bools.get(v).cloned() {
                // `when` is None: the variable never has this value here (dead branch).
                for &(c, t) in fact.when[truth as usize].iter().flatten() {
                    self.assume(c, t, facts);
                }
                return;
            }
        }
        match self.function.expressions[condition] {
            Expression::Unary {
                op: UnaryOperator::LogicalNot,
                expr,
            } => self.assume(expr, !truth, facts),
            Expression::Binary {
                op: BinaryOperator::LogicalAnd,
                left,
                right,
            } if truth => {
                self.assume(left, true, facts);
                self.assume(right, true, facts);
            }
            Expression::Binary {
                op: BinaryOperator::LogicalOr,
                left,
                right,
            } if !truth => {
                self.assume(left, false, facts);
                self.assume(right, false, facts);
            }
            Expression::Binary { op, left, right } => {
                // Normalise to `left OP right` holding.
                let op = if truth {
                    op
                } else {
                    match op {
                        BinaryOperator::Less => BinaryOperator::GreaterEqual,
                        BinaryOperator::LessEqual => BinaryOperator::Greater,
                        BinaryOperator::Greater => BinaryOperator::LessEqual,
                        BinaryOperator::GreaterEqual => BinaryOperator::Less,
                        _ => return,
                    }
                };
                let (Some(l), Some(r)) = (self.range(left, facts), self.range(right, facts)) else {
                    return;
                };
                let (lmax, rmin) = match op {
                    // left < right: left <= right.hi - 1, right >= left.lo + 1
                    BinaryOperator::Less => ((r.1 - 1), (l.0 + 1)),
                    BinaryOperator::LessEqual => (r.1, l.0),
                    BinaryOperator::Greater => {
                        // right < left
                        narrow(facts, right, (i128::MIN, l.1 - 1));
                        narrow(facts, left, (r.0 + 1, i128::MAX));
                        return;
                    }
                    BinaryOperator::GreaterEqual => {
                        narrow(facts, right, (i128::MIN, l.1));
                        narrow(facts, left, (r.0, i128::MAX));
                        return;
                    }
                    _ => return,
                };
                narrow(facts, left, (i128::MIN, lmax));
                narrow(facts, right, (rmin, i128::MAX));
            }
            _ => {}
        }
    }

    /// The interval of an integer scalar expression (`None` for other types).
    fn range(&self, h: Handle<Expression>, facts: &Facts) -> Option<Range> {
        if let Some(&r) = facts.memo.borrow().get(&h) {
            return r;
        }
        let r = self.range_uncached(h, facts);
        facts.memo.borrow_mut().insert(h, r);
        r
    }

    fn range_uncached(&self, h: Handle<Expression>, facts: &Facts) -> Option<Range> {
        let full = self.type_range(h)?;
        let mut r = self.compute(h, facts, full).unwrap_or(full);
        if let Some(&(lo, hi)) = facts.known.get(&h) {
            r = (r.0.max(lo), r.1.min(hi));
            if r.0 > r.1 {
                // Contradictory facts: the branch never runs for this value; keep the fact.
                r = (lo.max(full.0), hi.min(full.1));
            }
        }
        Some(r)
    }

    /// The whole range of `h`'s integer type.
    fn type_range(&self, h: Handle<Expression>) -> Option<Range> {
        match *self.info[h].ty.inner_with(&self.module.types) {
            TypeInner::Scalar(s) => scalar_range(s.kind, s.width),
            _ => None,
        }
    }

    fn compute(&self, h: Handle<Expression>, facts: &Facts, full: Range) -> Option<Range> {
        let fits = |r: Range| (r.0 >= full.0 && r.1 <= full.1).then_some(r);
        match self.function.expressions[h] {
            Expression::Literal(l) => literal(l).map(|v| (v, v)),
            Expression::Constant(c) => self
                .global_value(self.module.constants[c].init)
                .map(|v| (v, v)),
            Expression::FunctionArgument(i) => self.builtin(i, None),
            Expression::AccessIndex { base, index } => match self.function.expressions[base] {
                Expression::FunctionArgument(i) => self.builtin(i, Some(index)),
                _ => None,
            },
            Expression::Binary { op, left, right } => {
                let a = self.range(left, facts)?;
                let b = self.range(right, facts)?;
                let r = match op {
                    BinaryOperator::Add => (a.0 + b.0, a.1 + b.1),
                    BinaryOperator::Subtract => (a.0 - b.1, a.1 - b.0),
                    BinaryOperator::Multiply => {
                        let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
                        (*p.iter().min()?, *p.iter().max()?)
                    }
                    BinaryOperator::Divide if a.0 >= 0 && b.0 > 0 => (a.0 / b.1, a.1 / b.0),
                    BinaryOperator::Modulo if a.0 >= 0 && b.0 > 0 => {
                        if a.1 < b.0 {
                            a
                        } else {
                            (0, a.1.min(b.1 - 1))
                        }
                    }
                    BinaryOperator::And if a.0 >= 0 && b.0 >= 0 => (0, a.1.min(b.1)),
                    BinaryOperator::InclusiveOr | BinaryOperator::ExclusiveOr
                        if a.0 >= 0 && b.0 >= 0 =>
                    {
                        (0, all_ones(a.1.max(b.1)))
                    }
                    BinaryOperator::ShiftRight if a.0 >= 0 && b.0 >= 0 && b.1 < 32 => {
                        (a.0 >> b.1, a.1 >> b.0)
                    }
                    BinaryOperator::ShiftLeft if a.0 >= 0 && b.0 >= 0 && b.1 < 32 => {
                        (a.0 << b.0, a.1 << b.1)
                    }
                    _ => return None,
                };
                fits(r)
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => {
                let a = self.range(arg, facts)?;
                match fun {
                    MathFunction::Min => {
                        let b = self.range(arg1?, facts)?;
                        Some((a.0.min(b.0), a.1.min(b.1)))
                    }
                    MathFunction::Max => {
                        let b = self.range(arg1?, facts)?;
                        Some((a.0.max(b.0), a.1.max(b.1)))
                    }
                    MathFunction::Clamp => {
                        let lo = self.range(arg1?, facts)?;
                        let hi = self.range(arg2?, facts)?;
                        Some((a.0.max(lo.0).min(hi.1), a.1.max(lo.0).min(hi.1)))
                    }
                    _ => None,
                }
            }
            Expression::Select { accept, reject, .. } => {
                let a = self.range(accept, facts)?;
                let b = self.range(reject, facts)?;
                Some((a.0.min(b.0), a.1.max(b.1)))
            }
            Expression::As {
                expr,
                convert: Some(_),
                kind: ScalarKind::Uint | ScalarKind::Sint,
            } => fits(self.range(expr, facts)?),
            _ => None,
        }
    }

    /// An integer constant of the module's global expressions.
    fn global_value(&self, h: Handle<Expression>) -> Option<i128> {
        match self.module.global_expressions[h] {
            Expression::Literal(l) => literal(l),
            Expression::Constant(c) => self.global_value(self.module.constants[c].init),
            _ => None,
        }
    }

    /// The range of an entry point's built-in argument (component `index` of a vector one).
    fn builtin(&self, arg: u32, index: Option<u32>) -> Option<Range> {
        let wg = self.workgroup?;
        let a = self.function.arguments.get(arg as usize)?;
        let Some(Binding::BuiltIn(b)) = a.binding else {
            return None;
        };
        const WORKGROUPS: i128 = 65535;
        let size = |i: Option<u32>| i.map(|i| wg.get(i as usize).copied().unwrap_or(1) as i128);
        match (b, index) {
            (BuiltIn::LocalInvocationIndex, None) => {
                Some((0, wg.iter().map(|&d| d as i128).product::<i128>() - 1))
            }
            (BuiltIn::LocalInvocationId, Some(_)) => Some((0, size(index)? - 1)),
            (BuiltIn::WorkGroupId, Some(_)) => Some((0, WORKGROUPS - 1)),
            (BuiltIn::NumWorkGroups, Some(_)) => Some((1, WORKGROUPS)),
            (BuiltIn::GlobalInvocationId, Some(_)) => Some((0, WORKGROUPS * size(index)? - 1)),
            (BuiltIn::SubgroupInvocationId | BuiltIn::SubgroupId, None) => Some((0, 127)),
            (BuiltIn::SubgroupSize | BuiltIn::NumSubgroups, None) => Some((1, 128)),
            _ => None,
        }
    }
}

/// Forgets what was known of the variables `vars`.
fn forget(facts: &mut Facts, vars: &[Handle<naga::LocalVariable>]) {
    for v in vars {
        facts.vars.remove(v);
        facts.bools.remove(v);
    }
    facts.fresh.retain(|_, v| !vars.contains(v));
}

/// Narrows the interval known for `h` by `r`.
fn narrow(facts: &mut Facts, h: Handle<Expression>, r: Range) {
    let e = facts.known.entry(h).or_insert((i128::MIN, i128::MAX));
    *e = (e.0.max(r.0), e.1.min(r.1));
    if let Some(&v) = facts.fresh.get(&h) {
        let e = facts.vars.entry(v).or_insert((i128::MIN, i128::MAX));
        *e = (e.0.max(r.0), e.1.min(r.1));
    }
    facts.memo.borrow_mut().clear();
}

/// Whether a block always ends by leaving it (return, break, continue, discard).
fn diverges(block: &Block) -> bool {
    matches!(
        block.last(),
        Some(Statement::Return { .. } | Statement::Break | Statement::Continue | Statement::Kill)
    )
}

/// The length of a fixed-size array, vector or matrix type.
fn fixed_len(t: &TypeInner) -> Option<u64> {
    match *t {
        TypeInner::Array {
            size: ArraySize::Constant(n),
            ..
        } => Some(n.get() as u64),
        // An override-sized array: unknown here, so nothing can be proven about it.
        TypeInner::Array {
            size: ArraySize::Pending(_),
            ..
        } => Some(0),
        TypeInner::Vector { size, .. } => Some(size as u64),
        TypeInner::Matrix { columns, .. } => Some(columns as u64),
        _ => None,
    }
}

fn scalar_range(kind: ScalarKind, width: u8) -> Option<Range> {
    let bits = 8 * width as u32;
    match kind {
        ScalarKind::Uint => Some((0, (1i128 << bits) - 1)),
        ScalarKind::Sint => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
        ScalarKind::AbstractInt => Some((i64::MIN as i128, i64::MAX as i128)),
        _ => None,
    }
}

fn literal(l: Literal) -> Option<i128> {
    match l {
        Literal::U32(v) => Some(v as i128),
        Literal::I32(v) => Some(v as i128),
        Literal::U16(v) => Some(v as i128),
        Literal::I16(v) => Some(v as i128),
        Literal::U64(v) => Some(v as i128),
        Literal::I64(v) | Literal::AbstractInt(v) => Some(v as i128),
        _ => None,
    }
}

/// The smallest `2^k - 1` at or above `v` (`v >= 0`).
fn all_ones(v: i128) -> i128 {
    let mut m = 0i128;
    while m < v {
        m = (m << 1) | 1;
    }
    m
}
