//! Loop-iteration cost of generated WGSL, for drivers that cap it.
//!
//! llvmpipe (lavapipe, Mesa's software Vulkan) gives each shader invocation 65535 loop
//! back-edges in all, shared by every loop, and once they are spent every loop exits
//! after its current iteration: a long vISA thread would silently stop half-way
//! (Mesa `gallivm/lp_bld_ir_common.c`, `LP_MAX_TGSI_LOOP_ITERATIONS`). The translated
//! kernel therefore counts an upper bound of the back-edges each block may take and,
//! when the next block would not fit in the pass's budget, saves the thread and ends
//! the pass; the host dispatches again until every thread is done (see `main`).
//!
//! The bound of a piece of WGSL is found by scanning it: a `for` loop whose condition
//! compares with a literal (`i < 16u`) multiplies what its body costs; a loop with any
//! other bound needs a `// loop-bound: N` comment on its line or the line above (the
//! runtime's allocation search and CAS loops have one); a call costs what the callee's
//! body costs. The bound is an estimate where the comment is: a driver-stopped loop is
//! still caught at the next block by the probe (`loops_exhausted`), and reported.

use std::cell::RefCell;
use std::collections::HashMap;

/// Why a piece of WGSL has no cost bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: a loop without a literal bound or a `// loop-bound: N` comment: `{text}`")]
pub struct UnboundedLoop {
    pub line: usize,
    pub text: String,
}

/// Back-edge costs of the runtime's functions, by name, each found when first asked
/// for (directly, or through a call in scanned code): a module reaches a third of the
/// runtime's functions, and costing all of them up front was a third of a translation.
#[derive(Debug, Clone, Default)]
pub struct Costs {
    /// Costs found so far.
    funcs: RefCell<HashMap<String, u64>>,
    /// The scanned functions, and each one's index by name.
    fns: Vec<Function>,
    index: HashMap<String, usize>,
    /// The scanned text the functions' bodies are ranges of.
    text: String,
    /// Values of the named constants loops may be bounded by (`K_GRF_WORDS`...).
    consts: HashMap<String, u64>,
    /// Masked costs ([`Costs::masked`]) of the functions found so far.
    masked_funcs: RefCell<HashMap<String, u64>>,
}

impl Costs {
    /// The `fn`s of `wgsl`, to be costed as calls to them are met. WGSL has no
    /// recursion and lets a function call one defined further down; each body is
    /// scanned once, after its callees (the fixed-point rescans of the whole text this
    /// replaced took half of a translation).
    pub fn of_functions(wgsl: &str, consts: &HashMap<String, u64>) -> Costs {
        let fns = functions(wgsl);
        let index = fns
            .iter()
            .enumerate()
            .map(|(k, f)| (f.name.clone(), k))
            .collect();
        Costs {
            funcs: RefCell::new(HashMap::new()),
            fns,
            index,
            text: wgsl.to_string(),
            consts: consts.clone(),
            masked_funcs: RefCell::new(HashMap::new()),
        }
    }

    /// Cost every function (the runtime's own tests: each loop must have a bound).
    pub fn all(&self) -> Result<(), UnboundedLoop> {
        for k in 0..self.fns.len() {
            self.cost_of(k)?;
        }
        Ok(())
    }

    /// The cost of function `k`, its callees costed first. A function on the way (a
    /// cycle, which WGSL forbids) reads as 0.
    fn cost_of(&self, k: usize) -> Result<u64, UnboundedLoop> {
        let f = &self.fns[k];
        if let Some(&c) = self.funcs.borrow().get(&f.name) {
            return Ok(c);
        }
        self.funcs.borrow_mut().insert(f.name.clone(), 0);
        match self.block(&self.text[f.body.clone()]) {
            Ok(c) => {
                self.funcs.borrow_mut().insert(f.name.clone(), c);
                Ok(c)
            }
            Err(mut e) => {
                // Not a cost: the next ask fails again.
                self.funcs.borrow_mut().remove(&f.name);
                e.line += f.start;
                Err(e)
            }
        }
    }

    /// The cost of a call of `name`: 0 for a name that is not a scanned function (a
    /// builtin, a type constructor).
    fn call(&self, name: &str) -> Result<u64, UnboundedLoop> {
        // Most calls are of builtins and constructors: one lookup finds them out.
        match self.index.get(name) {
            Some(&k) => self.cost_of(k),
            None => Ok(0),
        }
    }

    /// The cost of one call of the function `name` (0 for an unknown name).
    pub fn function(&self, name: &str) -> Result<u64, UnboundedLoop> {
        self.call(name)
    }

    /// Back-edges `code` takes where no invocation of the vector runs it. llvmpipe
    /// runs a branch as a mask over the vector's lanes, never skipping it, and a loop
    /// in a masked-off branch still takes one back-edge (Mesa 22.3, pinned by
    /// `host/tests/loop_limiter.rs`: each looping case of a switch that no lane took
    /// cost 1). So every loop statement of `code`, and of the functions it calls,
    /// counts once; nested ones too, as their masked outer loop runs once.
    pub fn masked(&self, code: &str) -> u64 {
        let mut total = 0;
        for raw in code.lines() {
            let line = code_of(raw);
            if shape_of(line).has_for || line.trim_start().starts_with("loop ") {
                total += 1;
            }
            if line.trim_start().starts_with("fn ") {
                continue;
            }
            for callee in calls(line) {
                total += self.masked_call(callee);
            }
        }
        total
    }

    /// [`Costs::masked`] of a call of `name` (0 for a builtin or a constructor).
    fn masked_call(&self, name: &str) -> u64 {
        if let Some(&c) = self.masked_funcs.borrow().get(name) {
            return c;
        }
        let Some(&k) = self.index.get(name) else {
            return 0;
        };
        // On the way (a cycle, which WGSL forbids): 0.
        self.masked_funcs.borrow_mut().insert(name.to_string(), 0);
        let c = self.masked(&self.text[self.fns[k].body.clone()]);
        self.masked_funcs.borrow_mut().insert(name.to_string(), c);
        c
    }

    /// Upper bound of the back-edges `code` takes (loops and the calls they make).
    pub fn block(&self, code: &str) -> Result<u64, UnboundedLoop> {
        let lines: Vec<&str> = code.lines().collect();
        // Multipliers of the open loops, with the brace depth at which each closes.
        let mut stack: Vec<(i64, u64)> = Vec::new();
        let mut depth = 0i64;
        let mut total = 0u64;
        for (n, raw) in lines.iter().enumerate() {
            let line = code_of(raw);
            let shape = shape_of(line);
            let mult: u64 = stack.iter().map(|s| s.1).product();
            let is_loop = shape.has_for || line.trim_start().starts_with("loop ");
            let bound = if is_loop {
                Some(
                    annotated(raw)
                        .or_else(|| n.checked_sub(1).and_then(|p| annotated(lines[p])))
                        .or_else(|| literal_bound(line, &self.consts))
                        .ok_or_else(|| UnboundedLoop {
                            line: n + 1,
                            text: raw.trim().to_string(),
                        })?,
                )
            } else {
                None
            };
            let inner = mult * bound.unwrap_or(1);
            if bound.is_some() {
                total += inner;
            }
            // A `fn` header names the function itself, not a call.
            let header = line.trim_start().starts_with("fn ");
            for callee in calls(line).filter(|_| !header) {
                // A call on a loop's own line runs in its body.
                total += self.call(callee)? * inner;
            }
            let before = depth;
            depth += shape.brace_delta;
            // A loop opened and closed on its own line adds no scope.
            if let Some(b) = bound.filter(|_| depth > before) {
                stack.push((before, b));
            }
            while stack.last().is_some_and(|s| depth <= s.0) {
                stack.pop();
            }
        }
        Ok(total)
    }
}

/// A top-level function of scanned WGSL: its name, its text from the `fn` line to the
/// line where its braces close, and that first line's index.
#[derive(Debug, Clone)]
struct Function {
    name: String,
    /// Byte range of the body in [`Costs::text`].
    body: std::ops::Range<usize>,
    start: usize,
}

fn functions(wgsl: &str) -> Vec<Function> {
    // Lines with their byte offsets: bodies are ranges of the text, not copies.
    let mut lines = Vec::new();
    let mut at = 0;
    for line in wgsl.split_inclusive('\n') {
        let text = line.strip_suffix('\n').unwrap_or(line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        lines.push((at, text));
        at += line.len();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = fn_name(lines[i].1) else {
            i += 1;
            continue;
        };
        // The body: up to the line where the braces opened on the `fn` line close.
        let start = i;
        let mut depth = 0i64;
        loop {
            depth += brace_delta(lines[i].1);
            i += 1;
            if depth <= 0 || i >= lines.len() {
                break;
            }
        }
        let (last_at, last) = lines[i - 1];
        out.push(Function {
            name,
            body: lines[start].0..last_at + last.len(),
            start,
        });
    }
    out
}

fn fn_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("fn ")?;
    let end = rest.find('(')?;
    Some(rest[..end].trim().to_string())
}

fn brace_delta(line: &str) -> i64 {
    shape_of(code_of(line)).brace_delta
}

/// What [`Costs::block`] needs of a line's code besides its calls, in one pass.
struct Shape {
    /// `for (` at the start of the code or after a space (a `for` statement, not a
    /// name ending in "for").
    has_for: bool,
    /// `{` less `}`.
    brace_delta: i64,
}

/// The [`Shape`] of `code` (a line without its comment) in one pass over its bytes:
/// the cost scans read every line of every module and of the runtime.
fn shape_of(code: &str) -> Shape {
    let b = code.as_bytes();
    let mut shape = Shape {
        has_for: false,
        brace_delta: 0,
    };
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'{' => shape.brace_delta += 1,
            b'}' => shape.brace_delta -= 1,
            b'f' if !shape.has_for => {
                shape.has_for = b[i..].starts_with(b"for (")
                    && (i == 0 || b[i - 1] == b' ' || code[..i].trim_start().is_empty());
            }
            _ => {}
        }
    }
    shape
}

/// `line` before its `//` comment. (The scans run over ~100 KB of WGSL per module: a
/// byte loop, where `split("//")` built a substring searcher per line.)
fn code_of(line: &str) -> &str {
    let b = line.as_bytes();
    match (1..b.len()).find(|&i| b[i] == b'/' && b[i - 1] == b'/') {
        Some(i) => &line[..i - 1],
        None => line,
    }
}

/// `// loop-bound: N` on this line.
fn annotated(line: &str) -> Option<u64> {
    let (_, c) = line.split_once("// loop-bound:")?;
    c.split_whitespace().next()?.parse().ok()
}

/// `for (var i = 0u; i < 16u; ...)`: 16; a named constant's value for `i < K_X`.
fn literal_bound(line: &str, consts: &HashMap<String, u64>) -> Option<u64> {
    let header = &line[line.find("for (")?..];
    let cond = header.split(';').nth(1)?;
    let (_, rhs) = cond.split_once('<')?;
    let rhs = rhs.trim().trim_start_matches('=').trim();
    let digits = rhs.strip_suffix('u').unwrap_or(rhs);
    let n: u64 = match digits.parse() {
        Ok(n) => n,
        Err(_) => *consts.get(digits)?,
    };
    Some(if cond.contains("<=") { n + 1 } else { n })
}

/// Names called on a line: identifiers directly followed by `(`.
fn calls(line: &str) -> impl Iterator<Item = &str> {
    let bytes = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
                let s = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'(') {
                    return Some(&line[s..i]);
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_literal_loops_multiply() {
        let c = Costs::default();
        let code =
            "for (var i = 0u; i < 16u; i++) {\n  for (var k = 0u; k < 4u; k++) { x(); }\n}\n";
        assert_eq!(c.block(code).unwrap(), 16 + 16 * 4);
    }

    #[test]
    fn calls_cost_their_body_and_annotations_bound_loops() {
        let rt = "fn leaf(n: u32) {\n    // loop-bound: 8\n    for (var i = 0u; i < n; i++) { y(); }\n}\nfn mid() {\n    leaf(1u); leaf(2u);\n}\n";
        let c = Costs::of_functions(rt, &HashMap::new());
        assert_eq!(c.function("leaf"), Ok(8));
        assert_eq!(c.function("mid"), Ok(16));
        let code = "for (var i = 0u; i < 4u; i++) { mid(); }\nleaf(0u);\n";
        assert_eq!(c.block(code).unwrap(), 4 + 4 * 16 + 8);
    }

    #[test]
    fn a_masked_off_piece_costs_one_per_loop_statement() {
        let rt = "fn leaf() {\n    for (var i = 0u; i < 8u; i++) { }\n    loop { break; }\n}\n";
        let c = Costs::of_functions(rt, &HashMap::new());
        let code = "for (var i = 0u; i < 32u; i++) {\n  for (var k = 0u; k < 4u; k++) { leaf(); }\n}\nleaf();\n";
        // Two loops of its own, two in each call of `leaf`: the bounds do not count.
        assert_eq!(c.masked(code), 2 + 2 + 2);
        assert_eq!(c.masked("let x = y + 1u;\n"), 0);
    }

    #[test]
    fn a_callee_defined_after_its_caller_still_counts() {
        let rt =
            "fn top() {\n    leaf();\n}\nfn leaf() {\n    for (var i = 0u; i < 8u; i++) { }\n}\n";
        let c = Costs::of_functions(rt, &HashMap::new());
        assert_eq!(c.function("top"), Ok(8));
    }

    #[test]
    fn only_what_is_asked_for_is_costed() {
        let rt = "fn used() {\n    for (var i = 0u; i < 4u; i++) { }\n}\nfn unused() {\n    loop { }\n}\n";
        let c = Costs::of_functions(rt, &HashMap::new());
        assert_eq!(c.block("used();\n"), Ok(4));
        // The unbounded loop is an error once its function is reached.
        assert_eq!(c.block("unused();\n").unwrap_err().line, 5);
        assert_eq!(c.all().unwrap_err().line, 5);
    }

    #[test]
    fn an_unbounded_loop_is_an_error_naming_its_line() {
        let e = Costs::default()
            .block("let a = 1;\nfor (var i = 0u; i < n; i++) { }\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn every_runtime_loop_has_a_bound() {
        let consts = [
            "K_GRF_WORDS",
            "K_GRF_QUADS",
            "K_SLM_WORDS",
            "K_NADDR",
            "K_NPRED",
            "K_NSURF",
            "K_SIMD",
            "K_DEPTH",
            "K_TPG",
            "K_SLM_PER_THREAD",
        ]
        .into_iter()
        .map(|k| (k.to_string(), 10))
        .collect();
        let c = Costs::of_functions(super::super::RUNTIME, &consts);
        c.all().unwrap();
        assert!(c.function("mem_ld").unwrap() > 0, "mem_ld loops over bytes");
        // save_state: 32 pcs, K_DEPTH frames of 32, and five files of 10 words.
        assert_eq!(c.function("save_state"), Ok(32 + 10 + 10 * 32 + 4 * 10));
        // The image runtime is costed with every kernel (its calls come in the blocks).
        let c = Costs::of_functions(&super::super::cost_runtime(""), &consts);
        c.all().unwrap();
        // img_find reads a per-index table: no loop.
        assert_eq!(c.function("img_find"), Ok(0));
        let (sample, read) = (
            c.function("img_sample").unwrap(),
            c.function("img_read").unwrap(),
        );
        assert!(sample > read && read > 0);
        // Depth first gives what rescanning every function until nothing changes gives.
        // Every function known at 0 first, so that a call reads the last round's value
        // and never costs its callee on the way.
        let fixed = Costs::of_functions(&super::super::cost_runtime(""), &consts);
        for f in &fixed.fns {
            fixed.funcs.borrow_mut().insert(f.name.clone(), 0);
        }
        loop {
            let before = fixed.funcs.borrow().clone();
            for f in &fixed.fns {
                let v = fixed.block(&fixed.text[f.body.clone()]).unwrap();
                fixed.funcs.borrow_mut().insert(f.name.clone(), v);
            }
            if *fixed.funcs.borrow() == before {
                break;
            }
        }
        assert_eq!(*c.funcs.borrow(), *fixed.funcs.borrow());
        assert!(fixed.funcs.borrow().values().filter(|&&v| v > 0).count() > 20);
    }
}
