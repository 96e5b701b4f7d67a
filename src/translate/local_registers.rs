//! A straight module's registers as variables of the one function that uses them.
//!
//! The lane registers and scalar slots of a straight module are module-scope
//! `var<private>` scalars, since its rows may sit in functions of their own
//! (`straight_rows::row_function`). lavapipe (Mesa 22.3, `lvp_pipeline.c`) runs its
//! first NIR optimization loop before `nir_lower_global_vars_to_local`, so there
//! `nir_lower_vars_to_ssa` leaves those variables alone and `nir_opt_copy_prop_vars`
//! compares every access with every store it tracks: with Mesa built with symbols,
//! `perf` put 39% of private_array_large acm-g10 SIMD16's 2.7-3.2 s pipeline creation
//! in that pass (1,790 such variables). A variable of the function's own scope is SSA
//! from the first round (that module: 1.8 s, 8%).
//!
//! A variable moves into the one function that names it where that keeps its value:
//! - `run_lane`, which `main` calls once per invocation: a function's variable starts
//!   at zero at the call as a private one does at the invocation's start;
//! - a row function (called once per pass of a loop around it) whose first mention
//!   of the variable writes it whole, outside any branch or loop of the function: no
//!   call reads a value an earlier call left.

use std::collections::{HashMap, HashSet};

/// The header of a straight module's `run_lane`.
const RUN_LANE: &str = "fn run_lane(dm: u32) -> u32 {";

/// `text` (a straight module) with its single-function registers moved into their
/// functions; other modules unchanged.
pub fn localized(text: &str) -> String {
    if !text.contains(&format!("\n{RUN_LANE}\n")) || text.matches("run_lane(dm)").count() != 1 {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let functions = functions(&lines);
    // The private scalars (no initializer) in declaration order: line, name, type.
    let decls: Vec<(usize, &str, &str)> = (lines.iter().enumerate())
        .filter_map(|(i, line)| private_decl(line).map(|(name, ty)| (i, name, ty)))
        .collect();
    if decls.is_empty() {
        return text.to_string();
    }
    let declared: HashSet<&str> = decls.iter().map(|d| d.1).collect();
    let decl_lines: HashSet<usize> = decls.iter().map(|d| d.0).collect();
    // Which function names each (usize::MAX: a line outside every function).
    let mut users: HashMap<&str, HashSet<usize>> = HashMap::new();
    let mut owner_of_line = vec![usize::MAX; lines.len()];
    for (f, func) in functions.iter().enumerate() {
        owner_of_line[func.start..=func.end].fill(f);
    }
    for (i, line) in lines.iter().enumerate() {
        if decl_lines.contains(&i) {
            continue;
        }
        for word in identifiers(code_of(line)) {
            if declared.contains(word) {
                users.entry(word).or_default().insert(owner_of_line[i]);
            }
        }
    }
    // Moves per function: `(name, type)` in declaration order.
    let mut moves: Vec<Vec<(&str, &str)>> = vec![Vec::new(); functions.len()];
    let mut moved: HashSet<usize> = HashSet::new();
    let mut firsts: HashMap<usize, HashMap<&str, (usize, bool)>> = HashMap::new();
    for &(decl, name, ty) in &decls {
        let Some(set) = users.get(name) else { continue };
        let [f] = set.iter().copied().collect::<Vec<_>>()[..] else {
            continue;
        };
        if f == usize::MAX {
            continue;
        }
        let func = &functions[f];
        let keeps_value = match func.name {
            "run_lane" => true,
            n if is_row_function(n) => {
                let body = &lines[func.start + 1..func.end];
                let first = firsts.entry(f).or_insert_with(|| first_mentions(body));
                written_first(body, first, name)
            }
            _ => false,
        };
        if keeps_value {
            moves[f].push((name, ty));
            moved.insert(decl);
        }
    }
    if moved.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let head_of: HashMap<usize, usize> = functions
        .iter()
        .enumerate()
        .map(|(f, x)| (x.start, f))
        .collect();
    for (i, line) in lines.iter().enumerate() {
        if moved.contains(&i) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(&f) = head_of.get(&i) {
            for (name, ty) in &moves[f] {
                out.push_str(&format!("    var {name}: {ty};\n"));
            }
        }
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// `rowN`: a row of `run_lane` written as a function (`straight_rows::row_function`).
fn is_row_function(name: &str) -> bool {
    name.strip_prefix("row")
        .is_some_and(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()))
}

/// A top-level function: its name and its first and last lines.
struct Function<'a> {
    name: &'a str,
    start: usize,
    end: usize,
}

/// The module's multi-line functions (`fn` at the line's start, `}` alone closing).
fn functions<'a>(lines: &[&'a str]) -> Vec<Function<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("fn ") {
            if line.trim_end().ends_with('{') {
                let name = rest.split('(').next().unwrap_or("");
                if let Some(end) = (i + 1..lines.len()).find(|&j| lines[j] == "}") {
                    out.push(Function {
                        name,
                        start: i,
                        end,
                    });
                    i = end + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// `var<private> NAME: TYPE;` (no initializer, not an array).
fn private_decl(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("var<private> ")?.strip_suffix(';')?;
    let (name, ty) = rest.split_once(": ")?;
    let simple =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let ty_ok = simple(ty) || (ty.starts_with("vec") && !ty.contains('='));
    (simple(name) && ty_ok && !ty.starts_with("array")).then_some((name, ty))
}

/// A line without its `//` comment.
fn code_of(line: &str) -> &str {
    line.split_once("//").map_or(line, |(code, _)| code)
}

/// The identifiers of a line of code.
fn identifiers(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// Each identifier of `body` (a function's lines between its braces): the line that
/// first names it, and whether only plain blocks (`{` alone on its line) are open
/// around that line. One pass per function: a scan of the body per variable took
/// private_array_large's straight translation 35 ms (1,790 variables).
fn first_mentions<'a>(body: &[&'a str]) -> HashMap<&'a str, (usize, bool)> {
    let mut first = HashMap::new();
    // Open blocks: true for a plain one.
    let mut open: Vec<bool> = Vec::new();
    for (i, line) in body.iter().enumerate() {
        let code = code_of(line);
        let plain = open.iter().all(|&plain| plain);
        for w in identifiers(code) {
            first.entry(w).or_insert((i, plain));
        }
        let trimmed = code.trim();
        for c in trimmed.chars() {
            match c {
                '{' => open.push(trimmed == "{"),
                '}' => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    first
}

/// Whether the first line of `body` that names `name` (`first`: [`first_mentions`]
/// of `body`) assigns it whole (`name = <expression without name>;`) with only plain
/// blocks open around it.
fn written_first(body: &[&str], first: &HashMap<&str, (usize, bool)>, name: &str) -> bool {
    let Some(&(at, plain)) = first.get(name) else {
        return false;
    };
    let code = code_of(body[at]);
    let Some(rhs) = code
        .trim_start()
        .strip_prefix(name)
        .and_then(|r| r.strip_prefix(" = "))
    else {
        return false;
    };
    plain
        && !identifiers(rhs).any(|w| w == name)
        && rhs.trim_end().ends_with(';')
        && !rhs.contains('{')
}

#[cfg(test)]
mod tests {
    use super::localized;

    fn module(rows: &str) -> String {
        format!(
            "var<private> lane: u32;\nvar<private> ra: u32;\nvar<private> rb: u64;\nvar<private> rc: u32;\nvar<private> rd: u32;\n\
             fn run_lane(dm: u32) -> u32 {{\n    var pc = 0u;\n    ra = lane;\n    pc = row1(pc, dm);\n    return ra;\n}}\n\
             {rows}\
             @compute @workgroup_size(8)\nfn main() {{\n    if (lane < 8u) {{ let r = run_lane(dm); }}\n}}\n"
        )
    }

    #[test]
    fn registers_of_run_lane_and_rows_written_first_become_function_variables() {
        let text = module(
            "fn row1(pc_in: u32, dm: u32) -> u32 {\n    var pc = pc_in;\n    {\n        // [3] MOV\n        {\n            rb = u64(lane);\n            rc = u32(rb) + 1u;\n        }\n    }\n    if (lane < 2u) {\n        rd = rc;\n    }\n    return pc;\n}\n",
        );
        let out = localized(&text);
        assert!(
            out.contains("fn run_lane(dm: u32) -> u32 {\n    var ra: u32;\n"),
            "{out}"
        );
        assert!(out.contains("fn row1(pc_in: u32, dm: u32) -> u32 {\n    var rb: u64;\n    var rc: u32;\n    var pc = pc_in;"), "{out}");
        for name in ["ra", "rb", "rc"] {
            assert!(
                !out.contains(&format!("var<private> {name}:")),
                "{name}: {out}"
            );
        }
        // Written first under a branch: a pass that skips it reads the last pass's.
        assert!(out.contains("var<private> rd: u32;"), "{out}");
        // `lane` is named in several functions: it stays.
        assert!(out.contains("var<private> lane: u32;"));
    }

    #[test]
    fn a_register_a_row_reads_or_writes_under_a_branch_first_keeps_its_scope() {
        let text = module(
            "fn row1(pc_in: u32, dm: u32) -> u32 {\n    var pc = pc_in;\n    rb = rb + 1lu;\n    if (lane < 2u) {\n        rc = 1u;\n    }\n    rc = rc + 1u;\n    rd = (rd & 1u) | 2u;\n    return pc;\n}\n",
        );
        let out = localized(&text);
        for name in ["rb", "rc", "rd"] {
            assert!(
                out.contains(&format!("var<private> {name}:")),
                "{name}: {out}"
            );
        }
        assert!(
            out.contains("fn run_lane(dm: u32) -> u32 {\n    var ra: u32;\n"),
            "{out}"
        );
    }

    #[test]
    fn other_modules_are_left_alone() {
        let text =
            "var<private> ra: u32;\nfn run_thread() -> u32 {\n    ra = 1u;\n    return ra;\n}\n";
        assert_eq!(localized(text), text);
        // Two calls of `run_lane`: its variables would restart at each.
        let twice = module("").replace(
            "let r = run_lane(dm); }",
            "let r = run_lane(dm); let s = run_lane(dm); }",
        );
        assert_eq!(localized(&twice), twice);
    }
}
