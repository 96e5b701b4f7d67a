//! The tables of the vISA spec (2_datatypes: conversion, saturation, denorms; the
//! instruction pages' special-value rules) as tests of the ALU library, plus edge
//! cases of each operation.

use visa_emu::interp::alu::{
    apply_src_modifier, convert, exec, unpack_immediate, AluError, AluOp, AluOut, FpEnv, RelOp, Val,
};
use visa_emu::ir::{DataType, Modifier};
use DataType::*;

const ENV: FpEnv = FpEnv::IEEE_DENORMS;

fn env_mode(rounding: u8) -> FpEnv {
    FpEnv { rounding, ..ENV }
}

fn f(x: f32) -> Val {
    Val::new(F, x.to_bits() as u64)
}
fn df(x: f64) -> Val {
    Val::new(DF, x.to_bits())
}
fn hf(x: f32) -> Val {
    Val::new(HF, half::f16::from_f32(x).to_bits() as u64)
}
fn d(x: i32) -> Val {
    Val::new(D, x as u32 as u64)
}
fn ud(x: u32) -> Val {
    Val::new(UD, x as u64)
}
fn q(x: i64) -> Val {
    Val::new(Q, x as u64)
}
fn uq(x: u64) -> Val {
    Val::new(UQ, x)
}
fn w(x: i16) -> Val {
    Val::new(W, x as u16 as u64)
}
fn uw(x: u16) -> Val {
    Val::new(UW, x as u64)
}
fn b(x: i8) -> Val {
    Val::new(B, x as u8 as u64)
}
fn ub(x: u8) -> Val {
    Val::new(UB, x as u64)
}

fn run(op: AluOp, dst: DataType, srcs: &[Val]) -> AluOut {
    exec(op, dst, srcs, false, &ENV).unwrap_or_else(|e| panic!("{e}"))
}
fn run_sat(op: AluOp, dst: DataType, srcs: &[Val]) -> u64 {
    exec(op, dst, srcs, true, &ENV)
        .unwrap_or_else(|e| panic!("{e}"))
        .dst
}
fn run_env(op: AluOp, dst: DataType, srcs: &[Val], env: &FpEnv) -> u64 {
    exec(op, dst, srcs, false, env)
        .unwrap_or_else(|e| panic!("{e}"))
        .dst
}
fn as_f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}
fn as_df(bits: u64) -> f64 {
    f64::from_bits(bits)
}
fn as_hf(bits: u64) -> f32 {
    half::f16::from_bits(bits as u16).to_f32()
}
fn ulp_f32(x: f32) -> f32 {
    let a = x.abs();
    f32::from_bits(a.to_bits() + 1) - a
}

const SNAN_F: u32 = 0x7f80_0001;
const F_DENORM: f32 = 1.0e-40;

// ---- 2_datatypes: Float to Integer ------------------------------------------------

#[test]
fn float_to_signed_integer_table() {
    // (type, Imin, Imax) per the data-type table.
    let types: [(DataType, i64, i64); 4] = [
        (B, i8::MIN as i64, i8::MAX as i64),
        (W, i16::MIN as i64, i16::MAX as i64),
        (D, i32::MIN as i64, i32::MAX as i64),
        (Q, i64::MIN, i64::MAX),
    ];
    for (ty, imin, imax) in types {
        let m = if ty == Q {
            u64::MAX
        } else {
            (1u64 << (8 * ty.size())) - 1
        };
        let bits = |x: i64| (x as u64) & m;
        let cv = |v: Val| convert(v, ty, false, &ENV);
        assert_eq!(cv(f(f32::NAN)), 0, "qNaN -> 0 ({ty})");
        assert_eq!(cv(Val::new(F, SNAN_F as u64)), 0, "sNaN -> 0 ({ty})");
        assert_eq!(cv(f(f32::INFINITY)), bits(imax), "+inf -> Imax ({ty})");
        assert_eq!(cv(df(1e300)), bits(imax), "f > Imax ({ty})");
        assert_eq!(cv(f(-7.9)), bits(-7), "in range truncates ({ty})");
        assert_eq!(cv(f(7.9)), bits(7), "in range truncates ({ty})");
        assert_eq!(cv(df(-1e300)), bits(imin), "f < Imin ({ty})");
        assert_eq!(cv(f(f32::NEG_INFINITY)), bits(imin), "-inf -> Imin ({ty})");
    }
    // At the boundary: 2^31 - 0.5 truncates to Imax, -2^31 is Imin.
    assert_eq!(convert(df(2147483647.5), D, false, &ENV), 0x7fff_ffff);
    assert_eq!(convert(df(-2147483648.0), D, false, &ENV), 0x8000_0000);
}

#[test]
fn float_to_unsigned_integer_table() {
    for (ty, imax) in [
        (UB, u8::MAX as u64),
        (UW, u16::MAX as u64),
        (UD, u32::MAX as u64),
        (UQ, u64::MAX),
    ] {
        let cv = |v: Val| convert(v, ty, false, &ENV);
        assert_eq!(cv(f(f32::NAN)), 0, "qNaN ({ty})");
        assert_eq!(cv(Val::new(F, SNAN_F as u64)), 0, "sNaN ({ty})");
        assert_eq!(cv(f(f32::INFINITY)), imax, "+inf ({ty})");
        assert_eq!(cv(df(1e300)), imax, "f > Imax ({ty})");
        assert_eq!(cv(f(200.75)), 200, "0 <= f <= Imax ({ty})");
        assert_eq!(cv(f(-0.0)), 0, "-0 ({ty})");
        assert_eq!(cv(f(-F_DENORM)), 0, "-denorm ({ty})");
        // The table's negative rows name no integer ("qNaN Indefinite"); the result
        // is clamped to Imin = 0.
        assert_eq!(cv(f(-5.0)), 0, "negative ({ty})");
        assert_eq!(cv(f(f32::NEG_INFINITY)), 0, "-inf ({ty})");
    }
}

// ---- Integer to integer -----------------------------------------------------------

#[test]
fn integer_widening_extends_by_signedness_and_narrowing_truncates() {
    assert_eq!(convert(b(-2), D, false, &ENV), 0xffff_fffe);
    assert_eq!(convert(ub(0xfe), D, false, &ENV), 0xfe);
    assert_eq!(convert(w(-2), UQ, false, &ENV), u64::MAX - 1);
    assert_eq!(convert(uw(0xfffe), Q, false, &ENV), 0xfffe);
    assert_eq!(convert(d(-1), UD, false, &ENV), 0xffff_ffff); // same precision: same bits
                                                              // Lower precision: low bits, whatever the signedness.
    assert_eq!(convert(ud(0x1234_5678), UB, false, &ENV), 0x78);
    assert_eq!(convert(ud(0x1234_56f8), B, false, &ENV), 0xf8);
    assert_eq!(convert(q(-1), UW, false, &ENV), 0xffff);
    assert_eq!(convert(uq(0x1_0000_0005), D, false, &ENV), 5);
}

// ---- Integer to float ---------------------------------------------------------------

#[test]
fn integer_to_float_rounds_to_nearest_even_by_default() {
    // 2^24 + 1 is halfway between 2^24 and 2^24 + 2: ties to even (2^24).
    assert_eq!(as_f(convert(d(16_777_217), F, false, &ENV)), 16_777_216.0);
    // 2^24 + 3 is halfway between 2^24 + 2 and 2^24 + 4: even is 2^24 + 4.
    assert_eq!(as_f(convert(d(16_777_219), F, false, &ENV)), 16_777_220.0);
    assert_eq!(as_hf(convert(d(2049), HF, false, &ENV)), 2048.0);
    assert_eq!(as_hf(convert(d(70000), HF, false, &ENV)), f32::INFINITY);
    assert_eq!(
        as_df(convert(uq(u64::MAX), DF, false, &ENV)),
        18446744073709551616.0
    );
    // The cr0 mode applies.
    let ru = env_mode(1);
    let rz = env_mode(3);
    assert_eq!(as_f(convert(d(16_777_217), F, false, &ru)), 16_777_218.0);
    assert_eq!(as_f(convert(d(-16_777_219), F, false, &rz)), -16_777_218.0);
    assert_eq!(
        as_df(convert(uq(u64::MAX), DF, false, &rz)),
        18446744073709549568.0
    );
}

// ---- Float to float with lower precision (table) -------------------------------------

#[test]
fn float_narrowing_table() {
    for rounding in 0..4u8 {
        let env = env_mode(rounding);
        let to_f = |x: f64| convert(df(x), F, false, &env) as u32;
        let to_hf = |x: f32| convert(f(x), HF, false, &env) as u16;
        assert_eq!(to_f(f64::NEG_INFINITY), 0xff80_0000, "-inf");
        assert_eq!(to_f(f64::INFINITY), 0x7f80_0000, "+inf");
        assert_eq!(to_f(-0.0), 0x8000_0000, "-0");
        assert_eq!(to_f(0.0), 0, "+0");
        // Source denormals become zeros of the same sign.
        assert_eq!(to_f(-1e-310), 0x8000_0000, "-denorm");
        assert_eq!(to_f(1e-310), 0, "+denorm");
        assert_eq!(to_hf(-F_DENORM), 0x8000, "-denorm F -> HF");
        assert_eq!(to_hf(F_DENORM), 0, "+denorm F -> HF");
        assert!(f32::from_bits(to_f(f64::NAN)).is_nan(), "NaN");
        assert!(half::f16::from_bits(to_hf(f32::NAN)).is_nan(), "NaN");
        // +finite -> +finite/+denorm/+0
        assert_eq!(f32::from_bits(to_f(1.5)), 1.5);
        assert_eq!(
            as_hf(to_hf(2f32.powi(-23)) as u64),
            2f32.powi(-23),
            "to a denorm"
        );
    }
    // Rounding of inexact values per mode: 1 + 2^-30 into F.
    let x = 1.0 + 2f64.powi(-30);
    let up = 1.0 + f32::EPSILON;
    let expect = [1.0, up, 1.0, 1.0];
    for (mode, e) in expect.iter().enumerate() {
        let env = env_mode(mode as u8);
        assert_eq!(as_f(convert(df(x), F, false, &env)), *e, "mode {mode}");
        assert_eq!(
            as_f(convert(df(-x), F, false, &env)),
            if mode == 2 { -up } else { -1.0 },
            "mode {mode}, negative"
        );
    }
    // Overflow: RNE/RU to inf, RZ/RD to the largest finite value (positive side).
    assert_eq!(
        as_hf(convert(f(1e6), HF, false, &env_mode(0))),
        f32::INFINITY
    );
    assert_eq!(as_hf(convert(f(1e6), HF, false, &env_mode(3))), 65504.0);
    assert_eq!(as_hf(convert(f(1e6), HF, false, &env_mode(2))), 65504.0);
    // HF ties: 2049 is halfway between 2048 and 2050.
    assert_eq!(as_hf(convert(f(2049.0), HF, false, &ENV)), 2048.0);
    assert_eq!(as_hf(convert(f(2051.0), HF, false, &ENV)), 2052.0);
}

#[test]
fn float_widening_table_is_exact() {
    let hf_denorm = Val::new(HF, 0x0001); // 2^-24
    assert_eq!(as_f(convert(hf_denorm, F, false, &ENV)), 2f32.powi(-24));
    assert_eq!(
        as_df(convert(Val::new(HF, 0x8001), DF, false, &ENV)),
        -(2f64.powi(-24))
    );
    assert_eq!(
        as_df(convert(f(F_DENORM), DF, false, &ENV)),
        F_DENORM as f64
    );
    assert_eq!(convert(f(-0.0), DF, false, &ENV), (-0.0f64).to_bits());
    assert_eq!(
        as_df(convert(f(f32::NEG_INFINITY), DF, false, &ENV)),
        f64::NEG_INFINITY
    );
    assert!(as_df(convert(f(f32::NAN), DF, false, &ENV)).is_nan());
    assert_eq!(as_f(convert(Val::new(BF, 0x3fc0), F, false, &ENV)), 1.5);
}

// ---- Saturation table -----------------------------------------------------------------

#[test]
fn saturation_table() {
    let cases: [(DataType, i128, i128); 8] = [
        (UB, 0, 255),
        (B, -128, 127),
        (UW, 0, 65535),
        (W, -32768, 32767),
        (UD, 0, u32::MAX as i128),
        (D, i32::MIN as i128, i32::MAX as i128),
        (UQ, 0, u64::MAX as i128),
        (Q, i64::MIN as i128, i64::MAX as i128),
    ];
    for (ty, lo, hi) in cases {
        let m = if ty.size() == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * ty.size())) - 1
        };
        let enc = |x: i128| (x as u64) & m;
        // Integer overflow through arithmetic: the extra precision, then the clamp.
        let big = if ty.size() == 8 {
            uq(u64::MAX)
        } else {
            q(1 << 40)
        };
        let small = q(i64::MIN);
        assert_eq!(run_sat(AluOp::Add, ty, &[big, big]), enc(hi), "{ty} high");
        assert_eq!(
            run_sat(AluOp::Add, ty, &[small, small]),
            enc(lo),
            "{ty} low"
        );
        assert_eq!(run_sat(AluOp::Mul, ty, &[big, big]), enc(hi), "{ty} mul");
        // Floats saturate to the integer range too.
        assert_eq!(convert(f(1e30), ty, true, &ENV), enc(hi), "{ty} float");
        assert_eq!(convert(f(-1e30), ty, true, &ENV), enc(lo), "{ty} -float");
    }
    // Float destinations: [0.0, 1.0]; NaN -> 0.
    for (ty, one) in [(HF, 0x3c00u64), (F, 0x3f80_0000), (DF, 1.0f64.to_bits())] {
        let s = |v: Val| convert(v, ty, true, &ENV);
        assert_eq!(s(f(f32::INFINITY)), one, "{ty} +inf");
        assert_eq!(s(f(2.5)), one, "{ty} > 1");
        assert_eq!(s(f(-2.5)), 0, "{ty} negative");
        assert_eq!(s(f(f32::NEG_INFINITY)), 0, "{ty} -inf");
        assert_eq!(s(f(f32::NAN)), 0, "{ty} NaN");
        assert_eq!(s(f(0.5)), convert(f(0.5), ty, false, &ENV), "{ty} in range");
    }
    // Arithmetic with .sat on floats.
    assert_eq!(as_f(run_sat(AluOp::Add, F, &[f(0.75), f(0.5)])), 1.0);
    assert_eq!(as_f(run_sat(AluOp::Mul, F, &[f(-3.0), f(0.5)])), 0.0);
    assert_eq!(
        run_sat(AluOp::Add, F, &[f(f32::INFINITY), f(f32::NEG_INFINITY)]),
        0
    );
}

// ---- Denormal modes (cr0 bits 6, 7, 10) ------------------------------------------------

#[test]
fn cr0_fields() {
    let e = FpEnv::from_cr0(0x4c0);
    assert!(e.f_denorm && e.df_denorm && e.hf_denorm && !e.alt);
    assert_eq!(e.rounding, 0);
    let e = FpEnv::from_cr0(0x31);
    assert!(!e.f_denorm && !e.df_denorm && !e.hf_denorm && e.alt);
    assert_eq!(e.rounding, 3);
}

#[test]
fn denormals_are_kept_or_flushed_per_cr0() {
    let flush = FpEnv::from_cr0(0);
    let keep = FpEnv::from_cr0(0x4c0);
    let tiny = f(F_DENORM);
    // Inputs.
    assert_eq!(
        as_f(run_env(AluOp::Add, F, &[tiny, f(0.0)], &keep)),
        F_DENORM
    );
    assert_eq!(run_env(AluOp::Add, F, &[tiny, f(0.0)], &flush), 0);
    assert_eq!(
        run_env(AluOp::Mul, F, &[f(-F_DENORM), f(1.0)], &flush),
        0x8000_0000,
        "sign-preserved zero"
    );
    // Results: 2^-126 * 0.5 is a denormal.
    let min = f(f32::MIN_POSITIVE);
    assert_eq!(run_env(AluOp::Mul, F, &[min, f(0.5)], &flush), 0);
    assert_eq!(
        as_f(run_env(AluOp::Mul, F, &[min, f(0.5)], &keep)),
        f32::MIN_POSITIVE / 2.0
    );
    // DF per bit 6.
    let dtiny = df(1e-310);
    assert_eq!(run_env(AluOp::Add, DF, &[dtiny, df(0.0)], &flush), 0);
    assert_eq!(
        as_df(run_env(AluOp::Add, DF, &[dtiny, df(0.0)], &keep)),
        1e-310
    );
    // HF per bit 10 (IGC's prologue sets it; 2_datatypes' flush is the bit's 0 state).
    let htiny = Val::new(HF, 0x0001);
    assert_eq!(run_env(AluOp::Add, HF, &[htiny, hf(0.0)], &flush), 0);
    assert_eq!(run_env(AluOp::Add, HF, &[htiny, hf(0.0)], &keep), 1);
    // Compare sees flushed inputs.
    let eq = AluOp::Cmp(RelOp::Eq);
    assert_eq!(run_env(eq, Bool, &[tiny, f(0.0)], &flush), 1);
    assert_eq!(run_env(eq, Bool, &[tiny, f(0.0)], &keep), 0);
}

// ---- CMP, MIN/MAX special values ---------------------------------------------------------

#[test]
fn cmp_float_special_values() {
    let ops = [
        RelOp::Eq,
        RelOp::Ne,
        RelOp::Gt,
        RelOp::Ge,
        RelOp::Lt,
        RelOp::Le,
    ];
    let c = |rel: RelOp, a: Val, b2: Val| run(AluOp::Cmp(rel), Bool, &[a, b2]).dst;
    let nan = f(f32::NAN);
    for rel in ops {
        let want = (rel == RelOp::Ne) as u64;
        assert_eq!(c(rel, nan, f(1.0)), want, "{rel:?} NaN, 1");
        assert_eq!(c(rel, f(1.0), nan), want, "{rel:?} 1, NaN");
        assert_eq!(c(rel, nan, nan), want, "{rel:?} NaN, NaN");
    }
    assert_eq!(c(RelOp::Eq, f(-0.0), f(0.0)), 1);
    assert_eq!(c(RelOp::Lt, f(-0.0), f(0.0)), 0);
    assert_eq!(c(RelOp::Eq, f(f32::INFINITY), f(f32::INFINITY)), 1);
    assert_eq!(c(RelOp::Gt, f(f32::INFINITY), f(f32::MAX)), 1);
    assert_eq!(c(RelOp::Le, df(-1.0), df(-1.0)), 1);
    assert_eq!(c(RelOp::Lt, hf(1.0), f(1.5)), 1, "mixed HF/F");
    // Integers: by value across mixed types.
    assert_eq!(c(RelOp::Lt, d(-1), ud(0)), 1);
    assert_eq!(c(RelOp::Gt, ud(0xffff_ffff), d(-1)), 1);
    assert_eq!(c(RelOp::Eq, q(-1), b(-1)), 1);
    // General destination: all ones of its size, or zero.
    let out = run(AluOp::Cmp(RelOp::Ge), W, &[d(3), d(3)]);
    assert_eq!((out.dst, out.extra), (1, 0xffff));
    let out = run(AluOp::Cmp(RelOp::Ge), UQ, &[d(2), d(3)]);
    assert_eq!((out.dst, out.extra), (0, 0));
    assert_eq!(
        run(AluOp::Cmp(RelOp::Eq), F, &[f(1.0), f(1.0)]).extra,
        0xffff_ffff
    );
}

#[test]
fn min_max_special_values() {
    let mn = |a: Val, b2: Val| as_f(run(AluOp::Min, F, &[a, b2]).dst);
    let mx = |a: Val, b2: Val| as_f(run(AluOp::Max, F, &[a, b2]).dst);
    let nan1 = Val::new(F, 0x7fc0_0001);
    let nan2 = Val::new(F, 0x7fc0_0002);
    assert_eq!(mn(nan1, f(2.0)), 2.0);
    assert_eq!(mx(f(2.0), nan1), 2.0);
    // Both NaN: src1.
    assert_eq!(run(AluOp::Min, F, &[nan1, nan2]).dst, 0x7fc0_0002);
    assert_eq!(run(AluOp::Max, F, &[nan1, nan2]).dst, 0x7fc0_0002);
    assert!(mn(f(0.0), f(-0.0)).is_sign_negative());
    assert!(!mx(f(-0.0), f(0.0)).is_sign_negative());
    assert_eq!(mn(f(f32::NEG_INFINITY), f(-1.0)), f32::NEG_INFINITY);
    assert_eq!(as_df(run(AluOp::Max, DF, &[df(1.0), df(3.0)]).dst), 3.0);
    // Integers by value, mixed types.
    assert_eq!(
        run(AluOp::Min, D, &[d(-5), ud(3)]).dst,
        (-5i32) as u32 as u64
    );
    assert_eq!(
        run(AluOp::Max, UD, &[ud(0xffff_fff0), d(-1)]).dst,
        0xffff_fff0
    );
    assert_eq!(run_sat(AluOp::Max, UB, &[d(-5), d(300)]), 255);
}

// ---- Integer operations ------------------------------------------------------------------

#[test]
fn integer_division_signs_and_edge_cases() {
    // The DIV page's sign table.
    for (n, den, quo, rem) in [
        (7, 2, 3, 1),
        (7, -2, -3, 1),
        (-7, 2, -3, -1),
        (-7, -2, 3, -1),
    ] {
        assert_eq!(run(AluOp::Div, D, &[d(n), d(den)]).dst, quo as u32 as u64);
        assert_eq!(run(AluOp::Mod, D, &[d(n), d(den)]).dst, rem as u32 as u64);
    }
    // INT_MIN / -1 = 2^31 in extra precision: truncated back to INT_MIN, or
    // saturated to INT_MAX.
    assert_eq!(run(AluOp::Div, D, &[d(i32::MIN), d(-1)]).dst, 0x8000_0000);
    assert_eq!(run_sat(AluOp::Div, D, &[d(i32::MIN), d(-1)]), 0x7fff_ffff);
    assert_eq!(run(AluOp::Mod, D, &[d(i32::MIN), d(-1)]).dst, 0);
    // Division by zero (undefined by the spec): all ones, remainder = numerator.
    assert_eq!(run(AluOp::Div, UD, &[ud(9), ud(0)]).dst, 0xffff_ffff);
    assert_eq!(run(AluOp::Mod, UD, &[ud(9), ud(0)]).dst, 9);
    // Unsigned by value.
    assert_eq!(
        run(AluOp::Div, UD, &[ud(0xffff_fffe), ud(2)]).dst,
        0x7fff_ffff
    );
}

#[test]
fn extra_precision_mixed_types_and_wrapping() {
    // mul d x uw
    assert_eq!(
        run(AluOp::Mul, D, &[d(-3), uw(0xffff)]).dst,
        (-196605i32) as u32 as u64
    );
    // Q = D x D: the full product.
    assert_eq!(
        run(AluOp::Mul, Q, &[d(i32::MIN), d(i32::MIN)]).dst,
        1u64 << 62
    );
    // D = D x D: the low 32 bits.
    assert_eq!(run(AluOp::Mul, D, &[d(0x10000), d(0x10000)]).dst, 0);
    // UQ x UQ beyond i128: low 64 bits, or the saturated maximum.
    assert_eq!(run(AluOp::Mul, UQ, &[uq(u64::MAX), uq(u64::MAX)]).dst, 1);
    assert_eq!(
        run_sat(AluOp::Mul, UQ, &[uq(u64::MAX), uq(u64::MAX)]),
        u64::MAX
    );
    // Wrapping add in the destination; saturating with .sat.
    assert_eq!(run(AluOp::Add, UB, &[ub(200), ub(100)]).dst, 44);
    assert_eq!(run_sat(AluOp::Add, UB, &[ub(200), ub(100)]), 255);
    assert_eq!(run_sat(AluOp::Add, B, &[b(-100), b(-100)]), 0x80);
    // avg rounds up, with extra precision.
    assert_eq!(
        run(AluOp::Avg, UD, &[ud(u32::MAX), ud(u32::MAX)]).dst,
        u32::MAX as u64
    );
    assert_eq!(
        run(AluOp::Avg, D, &[d(-3), d(0)]).dst,
        (-1i32) as u32 as u64
    );
    // mad on integers.
    assert_eq!(run(AluOp::Mad, D, &[w(-2), w(3), d(10)]).dst, 4);
    // add3 and add3o's overflow bit.
    assert_eq!(run(AluOp::Add3, D, &[d(1), d(2), d(3)]).dst, 6);
    let o = run(AluOp::Add3o, UD, &[ud(u32::MAX), ud(1), ud(0)]);
    assert_eq!((o.dst, o.extra), (0, 1));
    let o = run(AluOp::Add3o, D, &[d(i32::MAX), d(-1), d(1)]);
    assert_eq!((o.dst, o.extra), (i32::MAX as u64, 0));
}

#[test]
fn mulh_madw_addc_subb() {
    assert_eq!(
        run(AluOp::Mulh, UD, &[ud(u32::MAX), ud(u32::MAX)]).dst,
        0xffff_fffe
    );
    assert_eq!(run(AluOp::Mulh, D, &[d(-1), d(1)]).dst, 0xffff_ffff);
    assert_eq!(
        run(AluOp::Mulh, D, &[d(i32::MIN), d(i32::MIN)]).dst,
        0x4000_0000
    );
    let m = run(AluOp::Madw, UD, &[ud(u32::MAX), ud(u32::MAX), ud(u32::MAX)]);
    // (2^32-1)^2 + 2^32-1 = 2^64 - 2^32
    assert_eq!((m.dst, m.extra), (0, 0xffff_ffff));
    let m = run(AluOp::Madw, D, &[d(-2), d(3), d(1)]);
    assert_eq!((m.dst, m.extra), (0xffff_fffb, 0xffff_ffff));
    let c = run(AluOp::Addc, UD, &[ud(0xffff_ffff), ud(2)]);
    assert_eq!((c.dst, c.extra), (1, 1));
    let c = run(AluOp::Addc, UD, &[ud(1), ud(2)]);
    assert_eq!((c.dst, c.extra), (3, 0));
    let s = run(AluOp::Subb, UD, &[ud(1), ud(2)]);
    assert_eq!((s.dst, s.extra), (0xffff_ffff, 1));
    let s = run(AluOp::Subb, UD, &[ud(2), ud(2)]);
    assert_eq!((s.dst, s.extra), (0, 0));
}

#[test]
fn shifts_mask_the_count() {
    // 5-bit count for 32-bit types: 33 shifts by 1; 32 by 0.
    assert_eq!(run(AluOp::Shl, UD, &[ud(1), ud(33)]).dst, 2);
    assert_eq!(
        run(AluOp::Shr, UD, &[ud(0x8000_0000), ud(32)]).dst,
        0x8000_0000
    );
    assert_eq!(
        run(AluOp::Asr, D, &[d(-16), ud(34)]).dst,
        (-4i32) as u32 as u64
    );
    // 6-bit count for 64-bit destinations or sources.
    assert_eq!(run(AluOp::Shl, UQ, &[uq(1), ud(63)]).dst, 1 << 63);
    assert_eq!(run(AluOp::Shl, UQ, &[uq(1), ud(65)]).dst, 2);
    assert_eq!(
        run(AluOp::Shr, UD, &[uq(0x1234_5678_0000_0000), ud(32)]).dst,
        0x1234_5678
    );
    assert_eq!(
        run(AluOp::Asr, D, &[q(-1i64 << 40), ud(32)]).dst,
        (-256i32) as u32 as u64
    );
    // shr is logical on src0's own width, asr arithmetic.
    assert_eq!(run(AluOp::Shr, UD, &[d(-1), ud(28)]).dst, 0xf);
    assert_eq!(run(AluOp::Shr, UD, &[w(-1), ud(8)]).dst, 0xff);
    assert_eq!(run(AluOp::Asr, D, &[d(i32::MIN), ud(31)]).dst, 0xffff_ffff);
    // shl into a narrower destination truncates; .sat clamps.
    assert_eq!(run(AluOp::Shl, UW, &[ud(0x1ff), ud(8)]).dst, 0xff00);
    assert_eq!(run_sat(AluOp::Shl, UW, &[ud(0x1ff), ud(8)]), 0xffff);
}

#[test]
fn rotates_use_the_source_width() {
    assert_eq!(run(AluOp::Rol, UD, &[ud(0x8000_0001), ud(1)]).dst, 3);
    assert_eq!(run(AluOp::Ror, UD, &[ud(3), ud(1)]).dst, 0x8000_0001);
    assert_eq!(run(AluOp::Rol, UW, &[uw(0x8001), ud(17)]).dst, 3);
    assert_eq!(run(AluOp::Ror, UQ, &[uq(1), ud(1)]).dst, 1 << 63);
    assert_eq!(
        run(AluOp::Rol, UD, &[ud(0x1234_5678), ud(32)]).dst,
        0x1234_5678
    );
}

#[test]
fn bit_operations_follow_the_pages() {
    let u = |op: AluOp, x: u32| run(op, UD, &[ud(x)]).dst;
    assert_eq!(u(AluOp::Cbit, 0xf0f0_0001), 9);
    assert_eq!(run(AluOp::Cbit, UD, &[uw(0xffff)]).dst, 16);
    assert_eq!(u(AluOp::Fbl, 0), 0xffff_ffff);
    assert_eq!(u(AluOp::Fbl, 0x8000_0000), 31);
    assert_eq!(u(AluOp::Fbl, 0x0000_0100), 8);
    assert_eq!(u(AluOp::Fbh, 0), 0xffff_ffff);
    assert_eq!(u(AluOp::Fbh, 1), 31);
    assert_eq!(u(AluOp::Fbh, 0x8000_0000), 0);
    // Signed: leading sign bits; 0 and -1 give 0xFFFFFFFF.
    let s = |x: i32| run(AluOp::Fbh, UD, &[d(x)]).dst;
    assert_eq!(s(0), 0xffff_ffff);
    assert_eq!(s(-1), 0xffff_ffff);
    assert_eq!(s(-2), 31);
    assert_eq!(s(i32::MIN), 1);
    assert_eq!(s(1), 31);
    assert_eq!(u(AluOp::Lzd, 0), 32);
    assert_eq!(u(AluOp::Lzd, 1), 31);
    assert_eq!(u(AluOp::Bfrev, 1), 0x8000_0000);
    assert_eq!(u(AluOp::Bfrev, 0x0000_00f0), 0x0f00_0000);
    // bfe: width, offset, value; D destinations sign-extend.
    assert_eq!(run(AluOp::Bfe, UD, &[ud(4), ud(8), ud(0x0000_f500)]).dst, 5);
    assert_eq!(
        run(AluOp::Bfe, UD, &[ud(8), ud(4), ud(0x0000_0ff0)]).dst,
        0xff
    );
    assert_eq!(
        run(AluOp::Bfe, D, &[d(8), d(4), d(0x0000_0ff0)]).dst,
        0xffff_ffff
    );
    assert_eq!(run(AluOp::Bfe, UD, &[ud(0), ud(4), ud(0xffff_ffff)]).dst, 0);
    assert_eq!(
        run(AluOp::Bfe, UD, &[ud(36), ud(0), ud(0xff)]).dst,
        0xf,
        "width & 0x1f"
    );
    // bfi: width, offset, insert, base.
    assert_eq!(
        run(AluOp::Bfi, UD, &[ud(8), ud(8), ud(0xab), ud(0xffff_ffff)]).dst,
        0xffff_abff
    );
    assert_eq!(
        run(AluOp::Bfi, UD, &[ud(4), ud(30), ud(0xf), ud(0)]).dst,
        0xc000_0000
    );
    // bfn: table index = src0 + 2*src1 + 4*src2. 0x96: xor of three; 0x80: and;
    // 0xfe: or.
    let x = ud(0b1100);
    let y = ud(0b1010);
    let z = ud(0b0110);
    assert_eq!(run(AluOp::Bfn(0x96), UD, &[x, y, z]).dst, 0b0000);
    assert_eq!(run(AluOp::Bfn(0x80), UD, &[x, y, z]).dst, 0b0000);
    assert_eq!(run(AluOp::Bfn(0xfe), UD, &[x, y, z]).dst, 0b1110);
    // Entry 1 (index 0b001: only src0 set).
    assert_eq!(run(AluOp::Bfn(0x02), UD, &[ud(1), ud(0), ud(0)]).dst, 1);
    assert_eq!(run(AluOp::Bfn(0x02), UD, &[ud(0), ud(1), ud(0)]).dst, 0);
    // Entry 6 (src1 and src2 set, src0 clear).
    assert_eq!(run(AluOp::Bfn(0x40), UD, &[ud(0), ud(1), ud(1)]).dst, 1);
    assert_eq!(run(AluOp::Bfn(0xff), W, &[w(0), w(0), w(0)]).dst, 0xffff);
}

#[test]
fn logic_dp4a_sad2() {
    assert_eq!(
        run(AluOp::And, UD, &[w(-1), ud(0x1234_5678)]).dst,
        0x1234_5678
    );
    assert_eq!(run(AluOp::Or, UW, &[ub(0xf0), ub(0x0f)]).dst, 0xff);
    assert_eq!(run(AluOp::Xor, D, &[d(-1), d(0xff)]).dst, 0xffff_ff00);
    assert_eq!(run(AluOp::Not, UB, &[ub(0x0f)]).dst, 0xf0);
    let t = Val::new(Bool, 1);
    let fl = Val::new(Bool, 0);
    assert_eq!(run(AluOp::And, Bool, &[t, fl]).dst, 0);
    assert_eq!(run(AluOp::Not, Bool, &[fl]).dst, 1);
    // dp4a: signed bytes for D sources, unsigned for UD.
    let a = 0x01_02_03_ffu32; // bytes: 0xff, 3, 2, 1
    assert_eq!(
        run(AluOp::Dp4a, D, &[d(10), d(a as i32), d(0x01_01_01_01)]).dst,
        15
    );
    assert_eq!(
        run(AluOp::Dp4a, UD, &[ud(10), ud(a), ud(0x01_01_01_01)]).dst,
        271
    );
    assert_eq!(
        run_sat(AluOp::Dp4a, D, &[d(i32::MAX), d(0x7f), d(0x7f)]),
        i32::MAX as u64
    );
    assert_eq!(
        run(AluOp::Sad2, UW, &[ub(10), ub(3), ub(0), ub(255)]).dst,
        262
    );
    assert_eq!(run(AluOp::Sad2, W, &[b(-128), b(127), b(0), b(0)]).dst, 255);
    assert_eq!(
        run(AluOp::Sad2add, UW, &[ub(1), ub(3), ub(5), ub(4), uw(100)]).dst,
        103
    );
}

// ---- Float arithmetic ----------------------------------------------------------------------

#[test]
fn float_add_mul_round_halfway_cases_per_mode() {
    let tie = f(2f32.powi(-24)); // half an ulp of 1.0
    let quarter = f(2f32.powi(-25));
    let up = 1.0 + f32::EPSILON;
    let add = |a: Val, b2: Val, m: u8| as_f(run_env(AluOp::Add, F, &[a, b2], &env_mode(m)));
    assert_eq!(add(f(1.0), tie, 0), 1.0, "tie to even");
    assert_eq!(
        add(f(up), tie, 0),
        1.0 + 2.0 * f32::EPSILON,
        "tie to even (odd below)"
    );
    assert_eq!(add(f(1.0), quarter, 1), up, "RU");
    assert_eq!(add(f(1.0), quarter, 2), 1.0, "RD");
    assert_eq!(add(f(-1.0), f(-(2f32.powi(-25))), 2), -up, "RD negative");
    assert_eq!(add(f(-1.0), f(-(2f32.powi(-25))), 3), -1.0, "RZ negative");
    // Far-apart operands: the tail still decides directed modes.
    assert_eq!(add(f(1.0), f(1e-30), 1), up);
    assert_eq!(add(f(1.0), f(-1e-30), 3), 1.0 - f32::EPSILON / 2.0);
    // Overflow.
    assert_eq!(add(f(f32::MAX), f(f32::MAX), 0), f32::INFINITY);
    assert_eq!(add(f(f32::MAX), f(f32::MAX), 3), f32::MAX);
    // Exact zero sums are +0 in RNE; -0 + -0 is -0.
    assert!(!add(f(1.0), f(-1.0), 0).is_sign_negative());
    assert!(add(f(-0.0), f(-0.0), 0).is_sign_negative());
    // RNE agrees with the host's f32 over awkward values.
    let vals = [1.1f32, 3.3e-20, 7.77e19, -0.1, 1.0e-39, 65504.0, 1.0 / 3.0];
    for &x in &vals {
        for &y in &vals {
            assert_eq!(
                run(AluOp::Mul, F, &[f(x), f(y)]).dst,
                (x * y).to_bits() as u64,
                "{x} * {y}"
            );
            assert_eq!(
                run(AluOp::Add, F, &[f(x), f(y)]).dst,
                (x + y).to_bits() as u64,
                "{x} + {y}"
            );
            let (xd, yd) = (x as f64, y as f64 / 3.0);
            assert_eq!(
                run(AluOp::Add, DF, &[df(xd), df(yd)]).dst,
                (xd + yd).to_bits(),
                "{x} + {y}/3 in DF"
            );
            assert_eq!(
                run(AluOp::Mul, DF, &[df(xd), df(yd)]).dst,
                (xd * yd).to_bits(),
                "{x} * {y}/3 in DF"
            );
        }
    }
    // HF arithmetic rounds to HF.
    assert_eq!(
        as_hf(run(AluOp::Add, HF, &[hf(2048.0), hf(1.0)]).dst),
        2048.0
    );
    assert_eq!(
        as_hf(run(AluOp::Add, HF, &[hf(2048.0), hf(3.0)]).dst),
        2052.0
    );
    // Mixed HF/F sources compute in F.
    assert_eq!(as_f(run(AluOp::Add, F, &[hf(2048.0), f(1.0)]).dst), 2049.0);
}

#[test]
fn mad_is_fused() {
    // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; unfused it would be 0.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    assert_eq!(
        as_f(run(AluOp::Mad, F, &[f(a), f(a), f(c)]).dst),
        2f32.powi(-24)
    );
    assert_eq!(
        run(AluOp::Mad, F, &[f(a), f(a), f(c)]).dst,
        a.mul_add(a, c).to_bits() as u64
    );
    let x = 1.0 + 2f64.powi(-30);
    let dc = -(1.0 + 2f64.powi(-29));
    assert_eq!(
        as_df(run(AluOp::Mad, DF, &[df(x), df(x), df(dc)]).dst),
        2f64.powi(-60)
    );
    // Directed rounding on DF mad: 1*1 + 2^-60 in RU steps up.
    let ru = env_mode(1);
    assert_eq!(
        as_df(run_env(
            AluOp::Mad,
            DF,
            &[df(1.0), df(1.0), df(2f64.powi(-60))],
            &ru
        )),
        1.0 + f64::EPSILON
    );
    // lrp: src1*src0 + src2*(1 - src0).
    assert_eq!(
        as_f(run(AluOp::Lrp, F, &[f(0.25), f(4.0), f(8.0)]).dst),
        7.0
    );
    // ... as the page's C formula in f32 (the interpreter's): four roundings, where one
    // rounding of the exact value would give 0.15251626.
    let (a, b, c) = (-2.925_086_f32, 2.779_47_f32, 2.110_197_f32);
    assert_eq!(
        as_f(run(AluOp::Lrp, F, &[f(a), f(b), f(c)]).dst),
        a * b + (1.0 - a) * c
    );
    assert_ne!(a * b + (1.0 - a) * c, 0.152_516_26);
    // pln: p*u + q*v + r.
    let p = run(AluOp::Pln, F, &[f(2.0), f(3.0), f(1.0), f(10.0), f(100.0)]);
    assert_eq!(as_f(p.dst), 321.0);
}

#[test]
fn nan_results() {
    let add = |a: Val, b2: Val| run(AluOp::Add, F, &[a, b2]).dst;
    // Invalid operations give the default NaN.
    assert_eq!(add(f(f32::INFINITY), f(f32::NEG_INFINITY)), 0x7fc0_0000);
    assert_eq!(
        run(AluOp::Mul, F, &[f(0.0), f(f32::INFINITY)]).dst,
        0x7fc0_0000
    );
    // A NaN source propagates, quieted, payload kept.
    assert_eq!(add(Val::new(F, 0x7f80_0005), f(1.0)), 0x7fc0_0005);
    assert_eq!(add(f(1.0), Val::new(F, 0xffc0_0123)), 0xffc0_0123);
    assert!(as_df(run(AluOp::Add, DF, &[df(f64::NAN), df(1.0)]).dst).is_nan());
}

#[test]
fn rounding_instructions_and_frc() {
    let r = |op: AluOp, x: f32| as_f(run(op, F, &[f(x)]).dst);
    for (x, dn, up, ev, z) in [
        (2.5f32, 2.0f32, 3.0f32, 2.0f32, 2.0f32),
        (3.5, 3.0, 4.0, 4.0, 3.0),
        (-2.5, -3.0, -2.0, -2.0, -2.0),
        (-0.3, -1.0, -0.0, -0.0, -0.0),
        (1e20, 1e20, 1e20, 1e20, 1e20),
    ] {
        assert_eq!(r(AluOp::Rndd, x), dn, "rndd {x}");
        assert_eq!(r(AluOp::Rndu, x), up, "rndu {x}");
        assert_eq!(r(AluOp::Rnde, x), ev, "rnde {x}");
        assert_eq!(r(AluOp::Rndz, x), z, "rndz {x}");
    }
    assert!(r(AluOp::Rndz, -0.3).is_sign_negative());
    assert_eq!(r(AluOp::Rndd, f32::NEG_INFINITY), f32::NEG_INFINITY);
    assert!(r(AluOp::Rnde, f32::NAN).is_nan());
    assert_eq!(r(AluOp::Frc, 2.75), 0.75);
    assert_eq!(r(AluOp::Frc, -2.75), 0.25);
    assert_eq!(r(AluOp::Frc, -0.0), 0.0);
    assert!(r(AluOp::Frc, f32::INFINITY).is_nan());
    // src0 - floor(src0) rounded once: -2^-30 gives 1 - 2^-30, which rounds to 1.0
    // in RNE and to the largest float below 1.0 in RZ.
    assert_eq!(r(AluOp::Frc, -(2f32.powi(-30))), 1.0);
    assert_eq!(
        as_f(run_env(
            AluOp::Frc,
            F,
            &[f(-(2f32.powi(-30)))],
            &env_mode(3)
        )),
        1.0 - f32::EPSILON / 2.0
    );
}

// ---- Math ------------------------------------------------------------------------------------

fn ulps(got: f32, want: f64) -> f64 {
    ((got as f64) - want).abs() / ulp_f32(want as f32) as f64
}

#[test]
fn math_functions_within_one_ulp_of_known_values() {
    let m = |op: AluOp, x: f32| as_f(run(op, F, &[f(x)]).dst);
    // Exactly representable results.
    for n in -20..20 {
        assert_eq!(m(AluOp::Exp, n as f32), 2f32.powi(n), "exp {n}");
        assert_eq!(m(AluOp::Log, 2f32.powi(n)), n as f32, "log 2^{n}");
    }
    assert_eq!(m(AluOp::Sqrt, 16.0), 4.0);
    assert_eq!(m(AluOp::Rsqrt, 4.0), 0.5);
    assert_eq!(m(AluOp::Inv, 8.0), 0.125);
    assert_eq!(m(AluOp::Sin, 0.0), 0.0);
    assert_eq!(m(AluOp::Cos, 0.0), 1.0);
    assert_eq!(as_f(run(AluOp::Pow, F, &[f(2.0), f(10.0)]).dst), 1024.0);
    // Known constants, within the documented bound of 1 ULP.
    let cases: [(AluOp, f32, f64); 8] = [
        (AluOp::Exp, 0.5, std::f64::consts::SQRT_2),
        (AluOp::Log, 10.0, std::f64::consts::LOG2_10),
        (AluOp::Log, std::f32::consts::E, 1.4426950263728284),
        (AluOp::Rsqrt, 2.0, std::f64::consts::FRAC_1_SQRT_2),
        (AluOp::Sqrt, 2.0, std::f64::consts::SQRT_2),
        (AluOp::Inv, 3.0, 1.0 / 3.0),
        (AluOp::Cos, 0.5, 0.8775825618903728),
        (AluOp::Sin, 0.5, 0.479425538604203),
    ];
    for (op, x, want) in cases {
        let got = m(op, x);
        assert!(ulps(got, want) <= 1.0, "{op:?}({x}) = {got}, want {want}");
    }
    let p = as_f(run(AluOp::Pow, F, &[f(10.0), f(0.5)]).dst);
    assert!(ulps(p, 3.1622776601683795) <= 1.0);
    // HF.
    assert_eq!(as_hf(run(AluOp::Sqrt, HF, &[hf(9.0)]).dst), 3.0);
    assert_eq!(as_hf(run(AluOp::Exp, HF, &[hf(3.0)]).dst), 8.0);
}

#[test]
fn sqrt_inv_divm_are_correctly_rounded() {
    let mut x = 1.0e-30f32;
    while x < 1.0e30 {
        let bits = |v: f32| v.to_bits() as u64;
        assert_eq!(run(AluOp::Sqrt, F, &[f(x)]).dst, bits(x.sqrt()), "sqrt {x}");
        assert_eq!(
            run(AluOp::Sqrtm, F, &[f(x)]).dst,
            bits(x.sqrt()),
            "sqrtm {x}"
        );
        assert_eq!(run(AluOp::Inv, F, &[f(x)]).dst, bits(1.0 / x), "inv {x}");
        let q = run(AluOp::Divm, F, &[f(1.7), f(x)]).dst;
        assert_eq!(q, bits(1.7 / x), "divm {x}");
        x *= 1.37;
    }
    assert_eq!(run(AluOp::Sqrtm, DF, &[df(2.0)]).dst, 2f64.sqrt().to_bits());
    assert_eq!(
        run(AluOp::Divm, DF, &[df(1.0), df(3.0)]).dst,
        (1.0f64 / 3.0).to_bits()
    );
}

#[test]
fn ieee_macros_honour_directed_rounding() {
    // RU: r >= a/b within one ulp; RD: r <= a/b within one ulp.
    for (a, b2) in [(1.0f32, 3.0f32), (2.0, 7.0), (-5.0, 3.0), (1e-20, 3.3)] {
        for (mode, up) in [(1u8, true), (2, false)] {
            let r = as_f(run_env(AluOp::Divm, F, &[f(a), f(b2)], &env_mode(mode)));
            let exact = a as f64 / b2 as f64;
            let close = (r as f64 - exact).abs() < ulp_f32(r) as f64;
            if up {
                assert!(r as f64 >= exact && close, "RU {a}/{b2} = {r}");
            } else {
                assert!(r as f64 <= exact && close, "RD {a}/{b2} = {r}");
            }
        }
    }
    let ru = as_f(run_env(AluOp::Sqrtm, F, &[f(2.0)], &env_mode(1)));
    let rd = as_f(run_env(AluOp::Sqrtm, F, &[f(2.0)], &env_mode(2)));
    assert_eq!(ru.to_bits(), rd.to_bits() + 1);
    assert!((rd as f64) < 2f64.sqrt() && (ru as f64) > 2f64.sqrt());
}

/// DIV and INV on F are the quotient correctly rounded in the %cr0 mode, as the
/// interpreter's instruction loop and the GPU path (`f64_to_f32_rm`) compute them: one
/// model. Before `alu::exec` followed them it took `x * INV(y)` rounded to nearest.
#[test]
fn div_and_inv_round_the_quotient_once_in_the_cr0_mode() {
    // The f32 neighbours of an f64 quotient `q` (exact for a quotient of f32 values:
    // it is never within 2^-53 of an f32 without being one).
    let directed = |q: f64, mode: u8| -> f32 {
        let r = q as f32;
        let up = |x: f32| {
            if x == 0.0 {
                f32::from_bits(1)
            } else if x > 0.0 {
                f32::from_bits(x.to_bits() + 1)
            } else {
                f32::from_bits(x.to_bits() - 1)
            }
        };
        let down = |x: f32| -(up(-x));
        match mode {
            1 if (r as f64) < q => up(r),
            2 if (r as f64) > q => down(r),
            3 if (r as f64).abs() > q.abs() => {
                if q > 0.0 {
                    down(r)
                } else {
                    up(r)
                }
            }
            _ => r,
        }
    };
    let mut seen_difference = false;
    for (a, b) in [
        (1.0f32, 3.0f32),
        (2.0, 7.0),
        (-5.0, 3.0),
        (1e-20, 3.3),
        (7.0, -1.1),
        (0.1, 0.3),
    ] {
        for mode in 0..4u8 {
            let env = env_mode(mode);
            let want = directed(a as f64 / b as f64, mode);
            let got = as_f(run_env(AluOp::Div, F, &[f(a), f(b)], &env));
            assert_eq!(got.to_bits(), want.to_bits(), "div {a}/{b} in mode {mode}");
            let inv = as_f(run_env(AluOp::Inv, F, &[f(b)], &env));
            assert_eq!(
                inv.to_bits(),
                directed(1.0 / b as f64, mode).to_bits(),
                "inv {b} in mode {mode}"
            );
            seen_difference |= mode != 0 && want != directed(a as f64 / b as f64, 0);
        }
    }
    assert!(
        seen_difference,
        "the directed modes must matter for these operands"
    );
    // To nearest, DIV is the division, not the product with the rounded reciprocal.
    let (a, b) = (0.1f32, 0.3f32);
    assert_ne!(a / b, a * (1.0 / b), "operands where the two differ");
    assert_eq!(as_f(run(AluOp::Div, F, &[f(a), f(b)]).dst), a / b);
}

#[test]
fn math_special_values() {
    let m = |op: AluOp, x: f32| as_f(run(op, F, &[f(x)]).dst);
    assert_eq!(m(AluOp::Log, 0.0), f32::NEG_INFINITY);
    assert!(m(AluOp::Log, -1.0).is_nan());
    assert_eq!(m(AluOp::Log, f32::INFINITY), f32::INFINITY);
    assert_eq!(m(AluOp::Exp, f32::NEG_INFINITY), 0.0);
    assert_eq!(m(AluOp::Exp, 200.0), f32::INFINITY);
    assert_eq!(m(AluOp::Inv, -0.0), f32::NEG_INFINITY);
    assert_eq!(m(AluOp::Inv, f32::INFINITY), 0.0);
    assert_eq!(m(AluOp::Rsqrt, 0.0), f32::INFINITY);
    assert_eq!(m(AluOp::Rsqrt, -0.0), f32::NEG_INFINITY);
    assert!(m(AluOp::Rsqrt, -4.0).is_nan());
    assert!(m(AluOp::Sqrt, -4.0).is_nan());
    assert!(m(AluOp::Sqrt, -0.0).is_sign_negative());
    assert!(m(AluOp::Sin, f32::INFINITY).is_nan());
    assert_eq!(as_f(run(AluOp::Pow, F, &[f(f32::NAN), f(0.0)]).dst), 1.0);
    // ALT mode: log/sqrt/rsqrt of |x|, no infinities.
    let alt = FpEnv::from_cr0(1);
    assert_eq!(as_f(run_env(AluOp::Log, F, &[f(-8.0)], &alt)), 3.0);
    assert_eq!(as_f(run_env(AluOp::Sqrt, F, &[f(-4.0)], &alt)), 2.0);
    assert_eq!(as_f(run_env(AluOp::Inv, F, &[f(0.0)], &alt)), f32::MAX);
    // DIV is src0 / src1 (its page's pseudo-code).
    assert_eq!(as_f(run(AluOp::Div, F, &[f(6.0), f(3.0)]).dst), 2.0);
    assert!(as_f(run(AluOp::Div, F, &[f(0.0), f(0.0)]).dst).is_nan());
    assert_eq!(
        as_f(run(AluOp::Div, F, &[f(1.0), f(0.0)]).dst),
        f32::INFINITY
    );
    // INVM/RSQTM: early-out bit on special results.
    let o = run(AluOp::Invm, F, &[f(1.0), f(0.0)]);
    assert_eq!((as_f(o.dst), o.extra), (f32::INFINITY, 1));
    let o = run(AluOp::Invm, F, &[f(1.0), f(4.0)]);
    assert_eq!((as_f(o.dst), o.extra), (0.25, 0));
    let o = run(AluOp::Rsqtm, DF, &[df(-1.0)]);
    assert!(as_df(o.dst).is_nan() && o.extra == 1);
    let o = run(AluOp::Rsqtm, DF, &[df(4.0)]);
    assert_eq!((as_df(o.dst), o.extra), (0.5, 0));
}

// ---- Source modifiers and packed immediates ---------------------------------------------------

#[test]
fn source_modifiers() {
    let m = apply_src_modifier;
    assert_eq!(m(d(5), Modifier::Neg), d(-5));
    assert_eq!(m(d(i32::MIN), Modifier::Neg), d(i32::MIN), "int neg wraps");
    assert_eq!(m(d(i32::MIN), Modifier::Abs), d(i32::MIN));
    assert_eq!(m(d(-7), Modifier::Abs), d(7));
    assert_eq!(m(d(7), Modifier::NegAbs), d(-7));
    assert_eq!(m(ud(5), Modifier::Neg), ud(0xffff_fffb));
    assert_eq!(m(b(-128), Modifier::Neg), b(-128));
    assert_eq!(m(q(i64::MIN + 1), Modifier::Abs), q(i64::MAX));
    assert_eq!(m(uw(5), Modifier::Not), uw(0xfffa));
    assert_eq!(m(d(0), Modifier::Not), d(-1));
    assert_eq!(m(Val::new(Bool, 1), Modifier::Not), Val::new(Bool, 0));
    // Floats: the sign bit only; NaN payloads kept.
    assert_eq!(m(f(1.5), Modifier::Neg), f(-1.5));
    assert_eq!(m(f(-1.5), Modifier::Abs), f(1.5));
    assert_eq!(m(f(1.5), Modifier::NegAbs), f(-1.5));
    assert_eq!(m(f(0.0), Modifier::Neg), f(-0.0));
    assert_eq!(
        m(Val::new(F, 0xffc0_0001), Modifier::Abs),
        Val::new(F, 0x7fc0_0001)
    );
    assert_eq!(m(hf(2.0), Modifier::Neg), hf(-2.0));
    assert_eq!(m(df(2.0), Modifier::Neg), df(-2.0));
    assert_eq!(m(d(3), Modifier::Sat), d(3));
    // With an operation: add d, -d is a subtraction.
    let s = m(d(3), Modifier::Neg);
    assert_eq!(run(AluOp::Add, D, &[d(10), s]).dst, 7);
}

#[test]
fn packed_immediates() {
    // V: eight signed nibbles, element 0 in the low nibble.
    let v = 0x8765_43f0u32;
    let lanes: Vec<i16> = (0..8)
        .map(|i| unpack_immediate(V, v, i).bits as u16 as i16)
        .collect();
    assert_eq!(lanes, vec![0, -1, 3, 4, 5, 6, 7, -8]);
    assert_eq!(unpack_immediate(V, v, 1).ty, W);
    // UV: unsigned nibbles.
    let uv: Vec<u64> = (0..8)
        .map(|i| unpack_immediate(UV, 0xfedc_ba98, i).bits)
        .collect();
    assert_eq!(uv, vec![8, 9, 10, 11, 12, 13, 14, 15]);
    // VF: sign, 3-bit exponent (bias 3), 4-bit mantissa; range [0.125, 31].
    let vf = |byte: u32| as_f(unpack_immediate(VF, byte, 0).bits);
    assert_eq!(vf(0x30), 1.0);
    assert_eq!(vf(0x38), 1.5);
    assert_eq!(vf(0x40), 2.0);
    assert_eq!(vf(0x7f), 31.0);
    assert_eq!(vf(0x00), 0.0);
    assert!(vf(0x80).is_sign_negative() && vf(0x80) == 0.0);
    assert_eq!(vf(0x01), 0.1328125);
    assert_eq!(vf(0xb0), -1.0);
    assert_eq!(as_f(unpack_immediate(VF, 0x4030_0000, 3).bits), 2.0);
    // Lanes past the element count wrap around.
    assert_eq!(unpack_immediate(UV, 0x10, 9).bits, 1);
}

// ---- FCVT, SRND, SEL, MOV ----------------------------------------------------------------------

#[test]
fn fcvt_and_srnd() {
    assert_eq!(run(AluOp::Fcvt, HF, &[ub(0x3c)]).dst, 0x3c00);
    assert_eq!(run(AluOp::Fcvt, UB, &[hf(1.0)]).dst, 0x3c);
    assert_eq!(run(AluOp::Fcvt, UB, &[hf(1.125)]).dst, 0x3c, "tie to even");
    assert_eq!(run(AluOp::Fcvt, UB, &[hf(1.375)]).dst, 0x3e, "tie to even");
    assert_eq!(
        run(AluOp::Fcvt, UD, &[f(1.0 + 2f32.powi(-10))]).dst,
        0x3f80_2000
    );
    assert_eq!(run(AluOp::Fcvt, F, &[ud(0x3f80_2000)]).dst, 0x3f80_2000);
    // srnd F -> HF: random 0 truncates, all ones rounds any inexact value up.
    let x = f(1.0 + 2f32.powi(-20));
    assert_eq!(run(AluOp::Srnd, HF, &[x, uw(0)]).dst, 0x3c00);
    assert_eq!(run(AluOp::Srnd, HF, &[x, uw(0x1fff)]).dst, 0x3c01);
    assert_eq!(
        run(AluOp::Srnd, HF, &[f(1.0), uw(0x1fff)]).dst,
        0x3c00,
        "exact stays"
    );
    assert_eq!(run(AluOp::Srnd, UB, &[hf(1.25), ub(0)]).dst, 0x3d);
    assert_eq!(run(AluOp::Srnd, UB, &[hf(1.125), ub(0x80)]).dst, 0x3d);
    assert_eq!(run(AluOp::Srnd, UB, &[hf(1.125), ub(0x7f)]).dst, 0x3c);
}

#[test]
fn sel_and_mov() {
    let t = Val::new(Bool, 1);
    let z = Val::new(Bool, 0);
    assert_eq!(run(AluOp::Sel, D, &[d(1), d(2), t]).dst, 1);
    assert_eq!(run(AluOp::Sel, D, &[d(1), d(2), z]).dst, 2);
    assert_eq!(
        run_sat(AluOp::Sel, F, &[f(3.0), f(2.0), t]),
        1.0f32.to_bits() as u64
    );
    assert_eq!(run(AluOp::Mov, F, &[d(-3)]).dst, (-3.0f32).to_bits() as u64);
    assert_eq!(run(AluOp::Mov, UW, &[f(70000.0)]).dst, 0xffff);
    assert_eq!(run(AluOp::Mov, HF, &[df(0.1)]).dst, 0x2e66);
    assert_eq!(
        run(AluOp::Mov, BF, &[f(1.0 + 2f32.powi(-8))]).dst,
        0x3f80,
        "BF tie"
    );
    assert_eq!(
        run(AluOp::Mov, BF, &[f(1.0 + 3.0 * 2f32.powi(-8))]).dst,
        0x3f82,
        "BF tie"
    );
}

// ---- Errors ----------------------------------------------------------------------------------

#[test]
fn disallowed_type_combinations_are_errors() {
    let err = |op: AluOp, dst: DataType, srcs: &[Val]| {
        exec(op, dst, srcs, false, &ENV).expect_err("should be rejected")
    };
    let e = err(AluOp::Add, F, &[f(1.0), d(1)]);
    assert!(matches!(e, AluError::Types { op: "add", .. }));
    let msg = e.to_string();
    assert!(msg.contains("add") && msg.contains("f, d"), "{msg}");
    let types = |e: AluError| matches!(e, AluError::Types { .. });
    assert!(types(err(AluOp::Add, D, &[f(1.0), f(1.0)])));
    assert!(types(err(AluOp::Mulh, F, &[f(1.0), f(1.0)])));
    assert!(types(err(AluOp::Mulh, Q, &[q(1), q(1)])));
    assert!(types(err(AluOp::Addc, D, &[d(1), d(1)])));
    assert!(types(err(AluOp::Frc, DF, &[df(1.0)])));
    assert!(types(err(AluOp::Sin, DF, &[df(1.0)])));
    assert!(types(err(AluOp::Shl, F, &[f(1.0), d(1)])));
    assert!(types(err(AluOp::Cmp(RelOp::Eq), Bool, &[f(1.0), d(1)])));
    assert!(types(err(AluOp::Fcvt, F, &[hf(1.0)])));
    assert!(types(err(AluOp::Sqrtm, HF, &[hf(1.0)])));
    let e = err(AluOp::Mad, F, &[f(1.0), f(1.0)]);
    assert_eq!(
        e,
        AluError::Arity {
            op: "mad",
            expected: 3,
            got: 2
        }
    );
}

#[test]
fn never_panics_on_any_bits() {
    // Every operation, every type pairing, awkward bit patterns: a result or an error.
    let ops = [
        AluOp::Add,
        AluOp::Avg,
        AluOp::Div,
        AluOp::Exp,
        AluOp::Frc,
        AluOp::Log,
        AluOp::Mad,
        AluOp::Mulh,
        AluOp::Lrp,
        AluOp::Mod,
        AluOp::Mul,
        AluOp::Pow,
        AluOp::Rndd,
        AluOp::Rndu,
        AluOp::Rnde,
        AluOp::Rndz,
        AluOp::Sad2,
        AluOp::Sin,
        AluOp::Cos,
        AluOp::Sqrt,
        AluOp::Rsqrt,
        AluOp::Inv,
        AluOp::Fcvt,
        AluOp::Srnd,
        AluOp::Lzd,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Not,
        AluOp::Shl,
        AluOp::Shr,
        AluOp::Asr,
        AluOp::Cbit,
        AluOp::Mov,
        AluOp::Sel,
        AluOp::Cmp(RelOp::Le),
        AluOp::Min,
        AluOp::Max,
        AluOp::Fbl,
        AluOp::Fbh,
        AluOp::Bfe,
        AluOp::Bfi,
        AluOp::Bfrev,
        AluOp::Addc,
        AluOp::Subb,
        AluOp::Sad2add,
        AluOp::Pln,
        AluOp::Sqrtm,
        AluOp::Divm,
        AluOp::Rol,
        AluOp::Ror,
        AluOp::Dp4a,
        AluOp::Add3,
        AluOp::Add3o,
        AluOp::Bfn(0xca),
        AluOp::Madw,
        AluOp::Invm,
        AluOp::Rsqtm,
    ];
    let patterns = [
        0u64,
        1,
        u64::MAX,
        0x8000_0000,
        0x7f80_0001,
        0x7c01,
        0x8000_0000_0000_0000,
    ];
    let mut ok = 0;
    for op in ops {
        for dst in DataType::ALL {
            for ty in DataType::ALL {
                for &bits in &patterns {
                    let srcs = [Val::new(ty, bits); 5];
                    for env in [ENV, FpEnv::from_cr0(0x3f)] {
                        if exec(op, dst, &srcs[..op.arity()], true, &env).is_ok() {
                            ok += 1;
                        }
                        let _ = exec(op, dst, &srcs[..op.arity()], false, &env);
                    }
                }
            }
        }
    }
    assert!(ok > 1000, "{ok}");
}

#[test]
fn signs_of_exact_zero_sums() {
    let add = |a: f32, b2: f32, m: u8| run_env(AluOp::Add, F, &[f(a), f(b2)], &env_mode(m));
    let mad =
        |a: f32, b2: f32, c: f32, m: u8| run_env(AluOp::Mad, F, &[f(a), f(b2), f(c)], &env_mode(m));
    for m in [0u8, 1, 3] {
        assert_eq!(add(1.0, -1.0, m), 0, "x - x = +0 (mode {m})");
        assert_eq!(add(-0.0, -0.0, m), 0x8000_0000, "-0 + -0 (mode {m})");
        assert_eq!(mad(0.0, -0.0, -0.0, m), 0x8000_0000, "0*-0 + -0 (mode {m})");
    }
    // Rounding down: x - x = -0; +0 + +0 stays +0.
    assert_eq!(add(1.0, -1.0, 2), 0x8000_0000);
    assert_eq!(add(0.0, -0.0, 2), 0x8000_0000);
    assert_eq!(add(0.0, 0.0, 2), 0);
    assert_eq!(mad(2.0, 3.0, -6.0, 2), 0x8000_0000);
}

#[test]
fn opcode_mapping() {
    use visa_emu::isa::Opcode;
    assert_eq!(AluOp::from_opcode(Opcode::Add, &[]), Some(AluOp::Add));
    assert_eq!(
        AluOp::from_opcode(Opcode::Cmp, &[4]),
        Some(AluOp::Cmp(RelOp::Lt))
    );
    assert_eq!(
        AluOp::from_opcode(Opcode::Cmp, &[6]),
        None,
        "undefined Rel_op"
    );
    assert_eq!(AluOp::from_opcode(Opcode::MinMax, &[1]), Some(AluOp::Max));
    assert_eq!(AluOp::from_opcode(Opcode::MinMax, &[0]), Some(AluOp::Min));
    assert_eq!(
        AluOp::from_opcode(Opcode::Bfn, &[0xca]),
        Some(AluOp::Bfn(0xca))
    );
    assert_eq!(AluOp::from_opcode(Opcode::Bfn, &[0x1ca]), None);
    assert_eq!(AluOp::from_opcode(Opcode::Goto, &[]), None);
    assert_eq!(AluOp::from_opcode(Opcode::Dpas, &[]), None);
    assert!(AluOp::Madw.has_extra() && AluOp::Addc.has_extra());
    assert!(!AluOp::Cmp(RelOp::Eq).has_extra() && !AluOp::Add.has_extra());
    // Every mapped opcode's page name matches the operation's name.
    for op in [
        Opcode::Mov,
        Opcode::Shr,
        Opcode::Madw,
        Opcode::Add3o,
        Opcode::Rsqtm,
    ] {
        let a = AluOp::from_opcode(op, &[]).expect("mapped");
        assert_eq!(a.name(), op.spec_name().to_ascii_lowercase());
    }
}

// ---- DPAS ----------------------------------------------------------------------------------------

fn pack(values: &[i64], bits: u32) -> Vec<u8> {
    let mut out = vec![0u8; (values.len() * bits as usize).div_ceil(8) + 4];
    for (i, &v) in values.iter().enumerate() {
        let raw = (v as u64) & ((1u64 << bits) - 1);
        let pos = i * bits as usize;
        for k in 0..bits as usize {
            if raw >> k & 1 != 0 {
                out[(pos + k) / 8] |= 1 << ((pos + k) % 8);
            }
        }
    }
    out
}

#[test]
#[allow(clippy::needless_range_loop)] // i is the channel, indexing several operands
fn dpas_integer_matches_a_matrix_product() {
    use visa_emu::interp::alu::{dpas, DpasShape, Precision};
    // s8 x s8 (OPS_PER_CHAN 4), SD 8, RC 2, N 8: K = 32.
    for (wp, ap, wbits, abits) in [
        (Precision::S8, Precision::S8, 8u32, 8u32),
        (Precision::U4, Precision::S8, 4, 8),
        (Precision::S2, Precision::U2, 2, 2),
    ] {
        let shape = DpasShape {
            w: wp,
            a: ap,
            depth: 8,
            repeat: 2,
            exec_size: 8,
        };
        let ops: u32 = if wbits == 8 || abits == 8 { 4 } else { 8 };
        let kdim = 8 * ops as usize;
        let (m, n) = (2usize, 8usize);
        let val = |seed: i64, bits: u32, signed: bool| {
            let span = 1i64 << bits;
            let v = seed.rem_euclid(span);
            if signed && v >= span / 2 {
                v - span
            } else {
                v
            }
        };
        let signed_w = matches!(wp, Precision::S8 | Precision::S2);
        let signed_a = matches!(ap, Precision::S8);
        // A: m x K row-major.
        let a: Vec<i64> = (0..m * kdim)
            .map(|x| val(x as i64 * 7 + 3, abits, signed_a))
            .collect();
        // B: K x n; column i's operands for depth d live in dword i of row d / per_chan.
        let b: Vec<Vec<i64>> = (0..kdim)
            .map(|kk| {
                (0..n)
                    .map(|i| val((kk * 5 + i * 3) as i64 - 9, wbits, signed_w))
                    .collect()
            })
            .collect();
        let per_chan = (32 / (ops * wbits)).max(1) as usize;
        let rows = 8usize.div_ceil(per_chan);
        let mut src1 = vec![0u8; rows * n * 4];
        for d in 0..8usize {
            for i in 0..n {
                for j in 0..ops as usize {
                    let kk = d * ops as usize + j;
                    let raw = (b[kk][i] as u64) & ((1u64 << wbits) - 1);
                    let bitpos = ((d % per_chan) * ops as usize + j) * wbits as usize;
                    let dw_index = (d / per_chan) * n + i;
                    let mut dw = u32::from_le_bytes(
                        src1[4 * dw_index..4 * dw_index + 4].try_into().unwrap(),
                    );
                    dw |= (raw as u32) << bitpos;
                    src1[4 * dw_index..4 * dw_index + 4].copy_from_slice(&dw.to_le_bytes());
                }
            }
        }
        let src2 = pack(&a, abits);
        let c: Vec<i32> = (0..m * n).map(|x| x as i32 * 100 - 700).collect();
        let src0: Vec<u8> = c.iter().flat_map(|v| v.to_le_bytes()).collect();
        let got = dpas(shape, D, Some((D, &src0)), &src1, &src2).expect("dpas");
        for r in 0..m {
            for i in 0..n {
                let want: i64 = c[r * n + i] as i64
                    + (0..kdim).map(|kk| a[r * kdim + kk] * b[kk][i]).sum::<i64>();
                let e = r * n + i;
                let g = i32::from_le_bytes(got[4 * e..4 * e + 4].try_into().unwrap());
                assert_eq!(g as i64, want, "{wp:?}x{ap:?} row {r} col {i}");
            }
        }
    }
}

#[test]
fn dpas_half_and_errors() {
    use visa_emu::interp::alu::{dpas, DpasShape, Precision};
    let shape = DpasShape {
        w: Precision::Hf,
        a: Precision::Hf,
        depth: 8,
        repeat: 1,
        exec_size: 8,
    };
    // A = all 1.0 (16 elements), B = all 0.5: each output = C + 16 * 0.5.
    let one = half::f16::from_f32(1.0).to_bits().to_le_bytes();
    let half_ = half::f16::from_f32(0.5).to_bits().to_le_bytes();
    let src2: Vec<u8> = (0..16).flat_map(|_| one).collect();
    let src1: Vec<u8> = (0..8 * 8 * 2).flat_map(|_| half_).collect();
    let src0: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let got = dpas(shape, F, Some((F, &src0)), &src1, &src2).expect("dpas");
    for i in 0..8 {
        let v = f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(v, i as f32 + 8.0);
    }
    // Null accumulator, HF destination.
    let got = dpas(shape, HF, None, &src1, &src2).expect("dpas");
    assert_eq!(got.len(), 16);
    assert_eq!(
        u16::from_le_bytes([got[0], got[1]]),
        half::f16::from_f32(8.0).to_bits()
    );
    // Mixed float precisions, short operands, bad types: errors.
    let mixed = DpasShape {
        a: Precision::Bf,
        ..shape
    };
    assert!(dpas(mixed, F, None, &src1, &src2).is_err());
    assert!(dpas(shape, F, None, &src1[..10], &src2).is_err());
    assert!(dpas(shape, D, None, &src1, &src2).is_err());
    let bad_depth = DpasShape { depth: 3, ..shape };
    assert!(dpas(bad_depth, F, None, &src1, &src2).is_err());
}
