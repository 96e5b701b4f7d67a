//! OpenCL `printf` as IGC compiles it: the kernel appends records to a buffer whose
//! address the runtime passes (`ALLOCATE_STATELESS_PRINTF_SURFACE`), and the runtime
//! formats them after the run with the format strings of the `.bin` (`STRING` tokens).
//!
//! The buffer: dword 0 is the write offset (the runtime starts it at 4; each printf
//! adds its record's size atomically and writes at the old value, only when the record
//! ends within [`BUFFER_BYTES`], the size IGC compiles in). A record: the format
//! string's index, then per argument a type tag dword and its data: 4 bytes for
//! byte/short/int/float (IGC's `float` stays single), 8 for long/double/pointer, a
//! string index for `%s`, and for vectors an element count then the elements.

/// The printf buffer size IGC 1.0.12504 writes up to (`cmp.lt ... 0x400001`).
pub const BUFFER_BYTES: usize = 4 << 20;
/// Where the first record goes (dword 0 is the write offset).
pub const FIRST_RECORD: u32 = 4;

/// IGC's argument type tags (PRINTF_DATA_TYPE).
mod tag {
    pub const BYTE: u32 = 1;
    pub const SHORT: u32 = 2;
    pub const INT: u32 = 3;
    pub const FLOAT: u32 = 4;
    pub const STRING: u32 = 5;
    pub const LONG: u32 = 6;
    pub const POINTER: u32 = 7;
    pub const DOUBLE: u32 = 8;
    pub const VECTOR_BYTE: u32 = 9;
    pub const VECTOR_SHORT: u32 = 10;
    pub const VECTOR_INT: u32 = 11;
    pub const VECTOR_LONG: u32 = 12;
    pub const VECTOR_FLOAT: u32 = 13;
    pub const VECTOR_DOUBLE: u32 = 14;
}

/// One argument as the buffer holds it.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Vector(Vec<Value>),
}

/// The output of every printf call, in buffer order; a malformed buffer ends the list
/// with a line saying where and why (never a panic, never made-up text).
pub fn decode(buf: &[u8], strings: &[(u32, String)]) -> Vec<String> {
    let word = |at: usize| -> Option<u32> {
        buf.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // IGC keeps the strings' escape sequences as written (`\n` is a backslash and an
    // `n` in the binary); the runtime turns them into characters.
    let strings: Vec<(u32, String)> = strings.iter().map(|(i, s)| (*i, unescape(s))).collect();
    let string = |i: u32| {
        strings
            .iter()
            .find(|(k, _)| *k == i)
            .map(|(_, s)| s.as_str())
    };
    let end = word(0).map_or(0, |e| (e as usize).min(buf.len()));
    let mut out = Vec::new();
    let mut at = FIRST_RECORD as usize;
    while at + 4 <= end {
        let Some(fmt) = word(at).and_then(string) else {
            out.push(format!(
                "[printf buffer: byte {at}: format string index {:?} is not in the binary]",
                word(at)
            ));
            break;
        };
        at += 4;
        match format(fmt, &mut || read_arg(buf, &mut at, end, &string)) {
            Ok(s) => out.push(s),
            Err(e) => {
                out.push(format!("[printf buffer: byte {at}: {e}]"));
                break;
            }
        }
    }
    out
}

/// C's escape sequences (`\n`, `\t`, `\\`, `\"`, octal `\101`, hex `\x41`...) as
/// characters; an unknown one stays as written.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = it.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '"' | '\'' | '?' => Some(e),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            continue;
        }
        let (radix, max, first) = match e {
            '0'..='7' => (8, 3, Some(e)),
            'x' => (16, 2, None),
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut digits: String = first.into_iter().collect();
        while digits.len() < max {
            match it.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    it.next();
                }
                _ => break,
            }
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(ch) if !digits.is_empty() => out.push(ch),
            _ => {
                out.push('\\');
                out.push(e);
                out += &digits[first.is_some() as usize..];
            }
        }
    }
    out
}

fn read_arg<'s>(
    buf: &[u8],
    at: &mut usize,
    end: usize,
    string: &dyn Fn(u32) -> Option<&'s str>,
) -> Result<Value, String> {
    let mut take = |n: usize| -> Result<u64, String> {
        let b = buf
            .get(*at..*at + n)
            .filter(|_| *at + n <= end)
            .ok_or("the record ends before its arguments")?;
        *at += n;
        let mut v = [0u8; 8];
        v[..n].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    };
    let t = take(4)? as u32;
    let scalar =
        |t: u32, take: &mut dyn FnMut(usize) -> Result<u64, String>| -> Result<Value, String> {
            Ok(match t {
                tag::BYTE | tag::SHORT | tag::INT => Value::Int(take(4)? as u32 as i32 as i64),
                tag::FLOAT => Value::Float(f32::from_bits(take(4)? as u32) as f64),
                tag::LONG | tag::POINTER => Value::Int(take(8)? as i64),
                tag::DOUBLE => Value::Float(f64::from_bits(take(8)?)),
                tag::STRING => {
                    let i = take(4)? as u32;
                    Value::Str(
                        string(i)
                            .ok_or_else(|| format!("string index {i} is not in the binary"))?
                            .to_string(),
                    )
                }
                t => return Err(format!("argument type tag {t}")),
            })
        };
    let elem = match t {
        tag::VECTOR_BYTE => tag::BYTE,
        tag::VECTOR_SHORT => tag::SHORT,
        tag::VECTOR_INT => tag::INT,
        tag::VECTOR_LONG => tag::LONG,
        tag::VECTOR_FLOAT => tag::FLOAT,
        tag::VECTOR_DOUBLE => tag::DOUBLE,
        t => return scalar(t, &mut take),
    };
    let n = take(4)?;
    if n > 16 {
        return Err(format!("a vector of {n} elements"));
    }
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(scalar(elem, &mut take)?);
    }
    Ok(Value::Vector(v))
}

/// One conversion: `%[flags][width][.precision][vN][length]conv`.
#[derive(Clone, Debug, Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    vector: Option<usize>,
    /// Integer width from the length modifier: hh 8, h 16, none/hl 32, l 64.
    bits: u32,
    conv: char,
}

/// Format `fmt` as C's printf would, `next` giving each argument in turn (OpenCL's
/// `%vN` vectors print their elements joined by `,`).
fn format(fmt: &str, next: &mut dyn FnMut() -> Result<Value, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut s = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => s.minus = true,
                '+' => s.plus = true,
                ' ' => s.space = true,
                '#' => s.alt = true,
                '0' => s.zero = true,
                _ => break,
            }
            chars.next();
        }
        let num = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n = 0usize;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as usize).min(4096);
                chars.next();
            }
            n
        };
        s.width = num(&mut chars);
        if chars.peek() == Some(&'.') {
            chars.next();
            s.precision = Some(num(&mut chars));
        }
        if chars.peek() == Some(&'v') {
            chars.next();
            s.vector = Some(num(&mut chars));
        }
        let mut len = String::new();
        while let Some(&m @ ('h' | 'l' | 'L' | 'z' | 'j' | 't')) = chars.peek() {
            len.push(m);
            chars.next();
        }
        s.bits = match len.as_str() {
            "hh" => 8,
            "h" => 16,
            "" | "hl" => 32,
            _ => 64,
        };
        s.conv = chars
            .next()
            .ok_or("a format string ending inside a conversion")?;
        if s.conv == '%' {
            out.push('%');
            continue;
        }
        if !"diouxXcsfFeEgGaAp".contains(s.conv) {
            return Err(format!("conversion %{} is not supported", s.conv));
        }
        match (next()?, s.vector) {
            (Value::Vector(v), Some(_)) => {
                let parts: Vec<String> = v.iter().map(|e| one(&s, e)).collect();
                out += &parts.join(",");
            }
            (v, _) => out += &one(&s, &v),
        }
    }
    Ok(out)
}

/// One value under `s`, padded to its width.
fn one(s: &Spec, v: &Value) -> String {
    // C reads an integer argument at the length modifier's width.
    let shift = 64 - s.bits.clamp(8, 64);
    let v = &match v {
        Value::Int(i) if "diouxXc".contains(s.conv) => {
            if "di".contains(s.conv) {
                Value::Int((i << shift) >> shift)
            } else {
                Value::Int((((*i as u64) << shift) >> shift) as i64)
            }
        }
        other => other.clone(),
    };
    let (sign, body) = match (s.conv, v) {
        ('s', Value::Str(t)) => {
            let t: String = match s.precision {
                Some(p) => t.chars().take(p).collect(),
                None => t.clone(),
            };
            return pad(s, "", &t, false);
        }
        ('c', Value::Int(i)) => return pad(s, "", &((*i as u8) as char).to_string(), false),
        ('d' | 'i', Value::Int(i)) => (signed(s, *i < 0), int_digits(s, i.unsigned_abs(), 10)),
        ('u', Value::Int(i)) => ("", int_digits(s, *i as u64, 10)),
        ('o', Value::Int(i)) => {
            let mut d = int_digits(s, *i as u64, 8);
            if s.alt && !d.starts_with('0') {
                d.insert(0, '0');
            }
            ("", d)
        }
        ('x' | 'X' | 'p', Value::Int(i)) => {
            let mut d = int_digits(s, *i as u64, 16);
            if (s.alt || s.conv == 'p') && *i != 0 {
                d.insert_str(0, "0x");
            }
            if s.conv == 'X' {
                d = d.to_uppercase();
            }
            ("", d)
        }
        (c, Value::Float(f)) if "fFeEgGaA".contains(c) => {
            let neg = f.is_sign_negative() && !f.is_nan();
            (signed(s, neg), float_body(s, f.abs()))
        }
        (_, Value::Int(i)) if "fFeEgGaA".contains(s.conv) => {
            (signed(s, *i < 0), float_body(s, (*i as f64).abs()))
        }
        (_, Value::Float(f)) => (signed(s, *f < 0.0), int_digits(s, f.abs() as u64, 10)),
        (_, other) => return format!("[%{} of {other:?}]", s.conv),
    };
    let numeric_zero = s.zero && !s.minus && (s.precision.is_none() || "fFeEgGaA".contains(s.conv));
    pad(
        s,
        sign,
        &body,
        numeric_zero && !body.starts_with(|c: char| c.is_alphabetic()),
    )
}

fn signed(s: &Spec, neg: bool) -> &'static str {
    if neg {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

/// Digits of `v` in `radix`, at least `precision` of them (C: precision 0 and value 0
/// print nothing).
fn int_digits(s: &Spec, v: u64, radix: u32) -> String {
    let mut d = match radix {
        8 => format!("{v:o}"),
        16 => format!("{v:x}"),
        _ => v.to_string(),
    };
    match s.precision {
        Some(0) if v == 0 => d.clear(),
        Some(p) if d.len() < p => d.insert_str(0, &"0".repeat(p - d.len())),
        _ => {}
    }
    d
}

/// `%f`, `%e`, `%g` of a non-negative value (Rust's formatting rounds the exact binary
/// value to the precision, as glibc does).
fn float_body(s: &Spec, f: f64) -> String {
    let upper = s.conv.is_ascii_uppercase();
    let body = if f.is_nan() {
        "nan".to_string()
    } else if f.is_infinite() {
        "inf".to_string()
    } else {
        let p = s.precision.unwrap_or(6);
        match s.conv.to_ascii_lowercase() {
            'f' => {
                let mut t = format!("{f:.p$}");
                if s.alt && p == 0 {
                    t.push('.');
                }
                t
            }
            'e' => exp_form(f, p, s.alt),
            'a' => hex_form(f, s.precision, s.alt),
            _ => {
                let p = p.max(1);
                // C's rule: the exponent X of the %e form at precision P-1.
                let e = exp_form(f, p - 1, false);
                let x: i32 = e
                    .rsplit('e')
                    .next()
                    .and_then(|x| x.parse().ok())
                    .unwrap_or(0);
                let mut t = if x < p as i32 && x >= -4 {
                    format!("{f:.*}", (p as i32 - 1 - x) as usize)
                } else {
                    exp_form(f, p - 1, s.alt)
                };
                if !s.alt {
                    t = strip_zeros(&t);
                }
                t
            }
        }
    };
    if upper {
        body.to_uppercase()
    } else {
        body
    }
}

/// `%a` of a non-negative finite value as glibc writes it: `0x1.8p+1`, subnormals as
/// `0x0.xxxp-1022`, zero as `0x0p+0`; without a precision the exact value with the
/// fraction's trailing zeros dropped, with one the fraction rounded to that many hex
/// digits (to nearest, ties to even; a carry makes the leading digit 2, as glibc's).
fn hex_form(f: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = bits & ((1u64 << 52) - 1);
    let (mut lead, exp) = match (biased, frac) {
        (0, 0) => (0u64, 0i64),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let mut digits = 13usize;
    if let Some(p) = precision.filter(|&p| p < 13) {
        // Round the leading digit and the fraction together (at %.0a the leading
        // digit's parity breaks the tie); a carry makes the leading digit 2.
        let full = (lead << 52) | frac;
        let drop = 4 * (13 - p) as u32;
        let kept = full >> drop;
        let rest = full & ((1u64 << drop) - 1);
        let half = 1u64 << (drop - 1);
        let up = rest > half || (rest == half && kept & 1 == 1);
        let kept = kept + u64::from(up);
        lead = kept >> (4 * p);
        frac = (kept & ((1u64 << (4 * p)) - 1)) << drop;
        digits = p;
    }
    let mut hex = format!("{frac:013x}");
    hex.truncate(digits);
    match precision {
        Some(p) if p > 13 => hex.push_str(&"0".repeat(p - 13)),
        Some(_) => {}
        None => hex = hex.trim_end_matches('0').to_string(),
    }
    let dot = if hex.is_empty() && !alt { "" } else { "." };
    format!(
        "0x{lead}{dot}{hex}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `d.ddde+XX` with `p` fraction digits.
fn exp_form(f: f64, p: usize, alt: bool) -> String {
    let t = format!("{f:.p$e}");
    let (m, x) = t.split_once('e').unwrap_or((&t, "0"));
    let x: i32 = x.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!("{m}{dot}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
}

/// %g without `#`: no trailing zeros in the fraction, no bare point.
fn strip_zeros(t: &str) -> String {
    let (m, x) = match t.find('e') {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let m = if m.contains('.') {
        m.trim_end_matches('0').trim_end_matches('.')
    } else {
        m
    };
    format!("{m}{x}")
}

fn pad(s: &Spec, sign: &str, body: &str, zeros: bool) -> String {
    let len = sign.len() + body.chars().count();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let fill = s.width - len;
    if s.minus {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if zeros {
        let (pre, rest) = if body.starts_with("0x") || body.starts_with("0X") {
            body.split_at(2)
        } else {
            ("", body)
        };
        format!("{sign}{pre}{}{rest}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: Vec<Value>) -> String {
        let mut it = args.into_iter();
        format(fmt, &mut || it.next().ok_or("missing".into())).unwrap()
    }

    /// Expected strings are C's (`printf` of glibc, as Python's `%` reproduces).
    #[test]
    fn conversions_format_like_c() {
        use Value::*;
        assert_eq!(
            f(
                "%d|%5d|%-5d|%05d|%+d|% d",
                vec![Int(-7), Int(42), Int(42), Int(-42), Int(3), Int(3)]
            ),
            "-7|   42|42   |-0042|+3| 3"
        );
        assert_eq!(
            f(
                "%x|%#x|%X|%#o|%o|%.3d|%.0d|",
                vec![Int(255), Int(255), Int(255), Int(8), Int(0), Int(7), Int(0)]
            ),
            "ff|0xff|FF|010|0|007||"
        );
        assert_eq!(
            f(
                "%f|%.2f|%8.3f|%-8.1f|%e|%.2E",
                vec![
                    Float(1.5),
                    Float(2.675),
                    Float(-3.14259),
                    Float(2.25),
                    Float(12345.678),
                    Float(0.000123)
                ]
            ),
            "1.500000|2.67|  -3.143|2.2     |1.234568e+04|1.23E-04"
        );
        assert_eq!(
            f(
                "%g|%g|%g|%g|%.3g|%#g|%G",
                vec![
                    Float(100000.0),
                    Float(1e6),
                    Float(0.0001),
                    Float(0.00001),
                    Float(3.14259),
                    Float(1.0),
                    Float(1e-10)
                ]
            ),
            "100000|1e+06|0.0001|1e-05|3.14|1.00000|1E-10"
        );
        assert_eq!(
            f(
                "%s|%.2s|%6s|%c|%%|%ld",
                vec![
                    Str("str".into()),
                    Str("str".into()),
                    Str("ab".into()),
                    Int(65),
                    Int(1 << 40)
                ]
            ),
            "str|st|    ab|A|%|1099511627776"
        );
        assert_eq!(
            f(
                "%v2d|%.1v4hlf",
                vec![
                    Vector(vec![Int(1), Int(-2)]),
                    Vector(vec![Float(0.5), Float(1.0), Float(-1.25), Float(2.0)])
                ]
            ),
            "1,-2|0.5,1.0,-1.2,2.0"
        );
        assert_eq!(
            f(
                "%u|%lu|%hhx|%hd|%x",
                vec![Int(-1), Int(-1), Int(0x1ff), Int(0x18000), Int(-2)]
            ),
            "4294967295|18446744073709551615|ff|-32768|fffffffe"
        );
        assert_eq!(
            f(
                "%f %f %e",
                vec![Float(f64::INFINITY), Float(f64::NAN), Float(0.0)]
            ),
            "inf nan 0.000000e+00"
        );
    }

    #[test]
    fn hex_floats_format_like_glibc() {
        use Value::*;
        // Each expectation is glibc's printf output.
        assert_eq!(
            f(
                "%a|%a|%A|%a|%a|%a",
                vec![
                    Float(1.0),
                    Float(-3.0),
                    Float(0.1),
                    Float(0.0),
                    Float(f64::INFINITY),
                    Float(f64::MIN_POSITIVE / 4.0)
                ]
            ),
            "0x1p+0|-0x1.8p+1|0X1.999999999999AP-4|0x0p+0|inf|0x0.4p-1022"
        );
        assert_eq!(
            f(
                "%.1a|%.0a|%.3a|%#a|%.15a|%12a|%-12a|%012a|%+a",
                vec![
                    Float(1.96875),
                    Float(1.5),
                    Float(1.0),
                    Float(1.0),
                    Float(1.0),
                    Float(1.0),
                    Float(1.0),
                    Float(-1.0),
                    Float(2.0)
                ]
            ),
            "0x2.0p+0|0x2p+0|0x1.000p+0|0x1.p+0|0x1.000000000000000p+0|      0x1p+0|0x1p+0      |-0x000001p+0|+0x1p+1"
        );
        assert_eq!(
            f(
                "%.0a|%.0a|%.1a|%.2a|%a|%.1a",
                vec![
                    Float(2.5),
                    Float(3.5),
                    Float(1.03125),
                    Float(1.0078125),
                    Float(1.1f32 as f64),
                    Float(f64::MIN_POSITIVE / 2.0 * 1.9375)
                ]
            ),
            "0x1p+1|0x2p+1|0x1.0p+0|0x1.02p+0|0x1.19999ap+0|0x1.0p-1022"
        );
    }

    #[test]
    fn escapes_become_characters() {
        assert_eq!(unescape(r#"a\nb\t\\\"\101\x42\q"#), "a\nb\t\\\"AB\\q");
    }

    #[test]
    fn malformed_buffers_say_where() {
        let strings = vec![(0, "x=%d\\n".to_string())];
        // Offset 16: one record (index 0, INT tag, 7), then a truncated one.
        let mut b = vec![0u8; 32];
        for (i, w) in [16u32, 0, 3, 7].iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        assert_eq!(decode(&b, &strings), vec!["x=7\n".to_string()]);
        b[0..4].copy_from_slice(&20u32.to_le_bytes());
        b[16..20].copy_from_slice(&9u32.to_le_bytes());
        let out = decode(&b, &strings);
        assert_eq!(out.len(), 2);
        assert!(out[1].contains("index Some(9)"), "{out:?}");
    }
}
