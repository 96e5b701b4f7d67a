//! The stage-independent part of the lowering: apply a [`Stage`]'s decisions to a
//! naga module in place. Expression handles never change: an operation that becomes
//! a library call turns into a `CallResult` at the same handle, and the `Emit` range
//! that covered it is split around a new `Call` statement, so every use stays valid.

use std::collections::HashMap;

use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{Block, Expression, Function, Handle, Module, Span, Statement, Type, TypeInner};

use super::LowerError;

/// What becomes of one expression.
pub(super) enum Action {
    Keep,
    /// Another expression of the same emission class (pre-emitted or not).
    Replace(Expression),
    /// A call of the library function of this name with these arguments.
    Call(&'static str, Vec<Handle<Expression>>),
    /// A 64-bit integer literal, to become a module constant of the new type.
    Const64 {
        bits: u64,
        signed: bool,
    },
}

/// The types and operand facts a stage decides with (the module before the stage).
pub(super) struct Cx<'a> {
    pub module: &'a Module,
    pub fun: &'a Function,
    pub info: &'a FunctionInfo,
}

impl Cx<'_> {
    pub fn ty(&self, h: Handle<Expression>) -> &TypeInner {
        self.info[h].ty.inner_with(&self.module.types)
    }
}

/// One lowering stage: which types it replaces and what each expression becomes.
pub(super) trait Stage {
    fn name(&self) -> &'static str;
    /// The replacement of a type, named so the unique type arena keeps it apart
    /// from a type of the same shape that already exists.
    fn replace_type(&self, ty: &Type) -> Option<Type>;
    fn decide(&self, cx: &Cx, h: Handle<Expression>) -> Result<Action, String>;
    /// The same for an expression of the module's constant arena (literals only).
    fn global_literal(&self, lit: &naga::Literal) -> Option<Action>;
}

pub(super) fn run(
    module: &mut Module,
    info: &ModuleInfo,
    stage: &dyn Stage,
) -> Result<(), LowerError> {
    // Decide everything on the module as it was.
    let mut plans: Vec<(FunRef, Plan)> = Vec::new();
    for (fh, fun) in module.functions.iter() {
        let cx = Cx {
            module,
            fun,
            info: &info[fh],
        };
        plans.push((FunRef::Fun(fh), decide_all(&cx, stage)?));
    }
    for (i, ep) in module.entry_points.iter().enumerate() {
        let cx = Cx {
            module,
            fun: &ep.function,
            info: info.get_entry_point(i),
        };
        plans.push((FunRef::Entry(i), decide_all(&cx, stage)?));
    }
    // Types, in place (same handles).
    let replaced: Vec<(Handle<Type>, Type)> = module
        .types
        .iter()
        .filter_map(|(h, t)| stage.replace_type(t).map(|n| (h, n)))
        .collect();
    let mut new_type: HashMap<bool, Handle<Type>> = HashMap::new();
    for (h, t) in replaced {
        let signed = matches!(
            module.types[h].inner,
            TypeInner::Scalar(naga::Scalar {
                kind: naga::ScalarKind::Sint,
                ..
            })
        );
        if module.types.get(&t).is_some() {
            // `replace` would panic: the module already has a type of this name and shape.
            return Err(LowerError::Unsupported {
                stage: stage.name(),
                function: "module".into(),
                what: format!("a type named {:?} already in the module", t.name),
            });
        }
        module.types.replace(h, t);
        new_type.entry(signed).or_insert(h);
    }
    lower_global_literals(module, stage, &new_type)?;
    let functions: HashMap<String, Handle<Function>> = module
        .functions
        .iter()
        .filter_map(|(h, f)| f.name.clone().map(|n| (n, h)))
        .collect();
    let mut consts: HashMap<(u64, bool), Handle<naga::Constant>> = HashMap::new();
    for (which, plan) in plans {
        let mut calls: Calls = HashMap::new();
        for (h, action) in plan {
            let e = match action {
                Action::Keep => continue,
                Action::Replace(e) => e,
                Action::Call(name, args) => {
                    let f = *functions.get(name).ok_or_else(|| LowerError::Unsupported {
                        stage: stage.name(),
                        function: "library".into(),
                        what: format!("the library function '{name}' (missing)"),
                    })?;
                    calls.insert(h, (f, args));
                    Expression::CallResult(f)
                }
                Action::Const64 { bits, signed } => {
                    let c = match consts.get(&(bits, signed)) {
                        Some(&c) => c,
                        None => {
                            let ty = literal_type(&new_type, signed, stage)?;
                            let c = const_vec2(module, ty, bits);
                            consts.insert((bits, signed), c);
                            c
                        }
                    };
                    Expression::Constant(c)
                }
            };
            fun_mut(module, which).expressions[h] = e;
        }
        let fun = fun_mut(module, which);
        let body = std::mem::take(&mut fun.body);
        fun.body = split_block(body, &calls, &fun.expressions);
    }
    Ok(())
}

/// The expressions of one function that change, with what they become.
type Plan = Vec<(Handle<Expression>, Action)>;
/// The expressions that became call results: the function and its arguments.
type Calls = HashMap<Handle<Expression>, (Handle<Function>, Vec<Handle<Expression>>)>;

#[derive(Clone, Copy)]
enum FunRef {
    Fun(Handle<Function>),
    Entry(usize),
}

fn fun_mut(module: &mut Module, which: FunRef) -> &mut Function {
    match which {
        FunRef::Fun(h) => &mut module.functions[h],
        FunRef::Entry(i) => &mut module.entry_points[i].function,
    }
}

fn decide_all(cx: &Cx, stage: &dyn Stage) -> Result<Plan, LowerError> {
    let mut out = Vec::new();
    for (h, _) in cx.fun.expressions.iter() {
        match stage.decide(cx, h) {
            Ok(Action::Keep) => {}
            Ok(a) => out.push((h, a)),
            Err(what) => {
                return Err(LowerError::Unsupported {
                    stage: stage.name(),
                    function: cx.fun.name.clone().unwrap_or_else(|| "entry point".into()),
                    what,
                })
            }
        }
    }
    Ok(out)
}

/// The replaced type a 64-bit literal's constant takes (any replaced type has the
/// pair's shape; the one of the same signedness reads best).
fn literal_type(
    new_type: &HashMap<bool, Handle<Type>>,
    signed: bool,
    stage: &dyn Stage,
) -> Result<Handle<Type>, LowerError> {
    new_type
        .get(&signed)
        .or(new_type.get(&!signed))
        .copied()
        .ok_or_else(|| LowerError::Unsupported {
            stage: stage.name(),
            function: "module".into(),
            what: "a 64-bit literal without a 64-bit type".into(),
        })
}

/// A module constant `vec2<u32>(low, high)` of type `ty`.
fn const_vec2(module: &mut Module, ty: Handle<Type>, bits: u64) -> Handle<naga::Constant> {
    let lo = module.global_expressions.append(
        Expression::Literal(naga::Literal::U32(bits as u32)),
        Span::UNDEFINED,
    );
    let hi = module.global_expressions.append(
        Expression::Literal(naga::Literal::U32((bits >> 32) as u32)),
        Span::UNDEFINED,
    );
    let init = module.global_expressions.append(
        Expression::Compose {
            ty,
            components: vec![lo, hi],
        },
        Span::UNDEFINED,
    );
    module.constants.append(
        naga::Constant {
            name: None,
            ty,
            init,
        },
        Span::UNDEFINED,
    )
}

/// Literals of the constant arena. A `Replace` keeps its handle; a 64-bit integer
/// literal needs new operands, so the arena is rebuilt (operands before their users)
/// and every reference into it remapped.
fn lower_global_literals(
    module: &mut Module,
    stage: &dyn Stage,
    new_type: &HashMap<bool, Handle<Type>>,
) -> Result<(), LowerError> {
    let needs_rebuild = module.global_expressions.iter().any(|(_, e)| {
        matches!(e, Expression::Literal(l) if matches!(stage.global_literal(l), Some(Action::Const64 { .. })))
    });
    if !needs_rebuild {
        for (_, e) in module.global_expressions.iter_mut() {
            if let Expression::Literal(l) = e {
                if let Some(Action::Replace(n)) = stage.global_literal(l) {
                    *e = n;
                }
            }
        }
        return Ok(());
    }
    let old = module.global_expressions.take();
    let mut map: Vec<Handle<Expression>> = Vec::with_capacity(old.len());
    let mut arena = naga::Arena::new();
    for (_, e) in old.iter() {
        let m = |h: Handle<Expression>| map[h.index()];
        let new = match e {
            Expression::Literal(l) => match stage.global_literal(l) {
                Some(Action::Replace(n)) => n,
                Some(Action::Const64 { bits, signed }) => {
                    let ty = literal_type(new_type, signed, stage)?;
                    let lo = arena.append(
                        Expression::Literal(naga::Literal::U32(bits as u32)),
                        Span::UNDEFINED,
                    );
                    let hi = arena.append(
                        Expression::Literal(naga::Literal::U32((bits >> 32) as u32)),
                        Span::UNDEFINED,
                    );
                    Expression::Compose {
                        ty,
                        components: vec![lo, hi],
                    }
                }
                _ => e.clone(),
            },
            Expression::Constant(_) | Expression::ZeroValue(_) | Expression::Override(_) => {
                e.clone()
            }
            Expression::Compose { ty, components } => Expression::Compose {
                ty: *ty,
                components: components.iter().map(|&c| m(c)).collect(),
            },
            Expression::Splat { size, value } => Expression::Splat {
                size: *size,
                value: m(*value),
            },
            other => {
                return Err(LowerError::Unsupported {
                    stage: stage.name(),
                    function: "module scope".into(),
                    what: format!("the constant expression {other:?}"),
                })
            }
        };
        map.push(arena.append(new, Span::UNDEFINED));
    }
    module.global_expressions = arena;
    for (_, c) in module.constants.iter_mut() {
        c.init = map[c.init.index()];
    }
    for (_, o) in module.overrides.iter_mut() {
        o.init = o.init.map(|h| map[h.index()]);
    }
    for (_, g) in module.global_variables.iter_mut() {
        g.init = g.init.map(|h| map[h.index()]);
    }
    Ok(())
}

/// Rebuild a block: `Emit` ranges split around the expressions that became calls
/// (each gets its `Call` statement where it used to be evaluated) and around those
/// that became pre-emitted (constants).
fn split_block(block: Block, calls: &Calls, exprs: &naga::Arena<Expression>) -> Block {
    let mut out = Block::new();
    let rec = |b: Block| split_block(b, calls, exprs);
    for (stmt, span) in block.span_into_iter() {
        match stmt {
            Statement::Emit(range) => {
                let mut first: Option<Handle<Expression>> = None;
                let mut last: Option<Handle<Expression>> = None;
                let flush = |out: &mut Block,
                             f: &mut Option<Handle<Expression>>,
                             l: Option<Handle<Expression>>| {
                    if let (Some(a), Some(b)) = (f.take(), l) {
                        out.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                    }
                };
                for h in range {
                    if let Some((f, args)) = calls.get(&h) {
                        flush(&mut out, &mut first, last);
                        out.push(
                            Statement::Call {
                                function: *f,
                                arguments: args.clone(),
                                result: Some(h),
                            },
                            span,
                        );
                    } else if exprs[h].needs_pre_emit() {
                        flush(&mut out, &mut first, last);
                    } else {
                        if first.is_none() {
                            first = Some(h);
                        }
                        last = Some(h);
                    }
                }
                flush(&mut out, &mut first, last);
            }
            Statement::Block(b) => out.push(Statement::Block(rec(b)), span),
            Statement::If {
                condition,
                accept,
                reject,
            } => out.push(
                Statement::If {
                    condition,
                    accept: rec(accept),
                    reject: rec(reject),
                },
                span,
            ),
            Statement::Switch { selector, cases } => out.push(
                Statement::Switch {
                    selector,
                    cases: cases
                        .into_iter()
                        .map(|c| naga::SwitchCase {
                            value: c.value,
                            body: rec(c.body),
                            fall_through: c.fall_through,
                        })
                        .collect(),
                },
                span,
            ),
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => out.push(
                Statement::Loop {
                    body: rec(body),
                    continuing: rec(continuing),
                    break_if,
                },
                span,
            ),
            other => out.push(other, span),
        }
    }
    out
}
