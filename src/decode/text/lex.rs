//! Line-level lexing of `.visaasm`: comment stripping and splitting an instruction
//! into tokens (whitespace at bracket depth 0 separates), with columns for errors.

/// One token and the 1-based column where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub column: usize,
}

/// The line without its `//` comment (a `//` inside a string literal is kept).
pub fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// Split at whitespace outside `()`, `[]` and `<>`. Unbalanced closers are kept as
/// text; the operand parser reports them.
pub fn tokens(line: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut start: Option<usize> = None;
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth = (depth - 1).max(0),
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if let Some(s) = start.take() {
                out.push(Token {
                    text: &line[s..i],
                    column: s + 1,
                });
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(Token {
            text: &line[s..],
            column: s + 1,
        });
    }
    out
}

/// Parse an unsigned or signed integer in C notation (`0x1f`, `-12`, `7`).
pub fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_tokens() {
        assert_eq!(
            strip_comment("mov (M1, 8) a b  /// $3"),
            "mov (M1, 8) a b  "
        );
        assert_eq!(
            strip_comment(".kernel_attr X=\"a//b\" // c"),
            ".kernel_attr X=\"a//b\" "
        );
        let t = tokens("  (!P1) goto (M1, 16) _0_004");
        let texts: Vec<_> = t.iter().map(|t| t.text).collect();
        assert_eq!(texts, vec!["(!P1)", "goto", "(M1, 16)", "_0_004"]);
        assert_eq!(t[1].column, 9);
        let t = tokens("mad (M1, 16) V1(0,0)<1> V2(0,0)<0;1,0> r[A0(0),0]<1,0>:d");
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int("0x4c0"), Some(0x4c0));
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("zz"), None);
    }
}
