//! The spec's own examples run on the interpreter: 3_execution_model's if-else-endif
//! and do-while with divergent `goto`, and 5_operands' predicate combine and inverse.
//! Each kernel writes one dword per channel to surface T6 (BTI 0) through scatter4.

use visa_emu::decode::text::parse_visaasm;
use visa_emu::interp::{self, Launch, Memory, RunOptions, ThreadPayload};

/// Run `body` as an 8-channel kernel whose input V0040 holds the channel's value
/// `input[i]`, and return the dwords the kernel stored.
fn run8(body: &str, input: [u32; 8]) -> Vec<u32> {
    let text = format!(
        ".version 4.1\n.kernel \"k\"\n\
         .decl V0032 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0033 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0034 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0040 v_type=G type=ud num_elts=8 align=hword\n\
         .decl P1 v_type=P num_elts=8\n.decl P2 v_type=P num_elts=8\n\
         .decl T6 v_type=T num_elts=1 v_name=T006\n\
         .input V0040 offset=32 size=32\n.kernel_attr SimdSize=8\n\
         {body}\n\
         _store:\n\
         mov (M1, 8) V0034(0,0)<1> 0x76543210:uv\n\
         shl (M1, 8) V0034(0,0)<1> V0034(0,0)<1;1,0> 0x2:ud\n\
         movs (M1_NM, 1) T6(0) 0x0:ud\n\
         scatter4_scaled.R (M1, 8) T6 0x0:ud V0034.0 V0032.0\n\
         ret (M1, 1)\n"
    );
    let mut mem = Memory::new();
    let out = mem.add("out", 0x1000, vec![0; 32]);
    mem.bind(0, out);
    run_one_thread(&text, &mut mem, input);
    dwords(mem.get(out))
}

/// Run `text`'s kernel "k" as one SIMD8 thread (32-byte GRF) over `mem`, with `input`
/// as the payload's dwords from byte 32 (V0040).
fn run_one_thread(text: &str, mem: &mut Memory, input: [u32; 8]) {
    let p = parse_visaasm(text, 32).unwrap();
    let prepared = interp::prepare(&p, "k").unwrap();
    let mut payload = vec![0u8; 64];
    for (i, v) in input.iter().enumerate() {
        payload[32 + 4 * i..36 + 4 * i].copy_from_slice(&v.to_le_bytes());
    }
    let launch = Launch {
        groups: [1, 1, 1],
        first: [0, 0, 0],
        grid: [1, 1, 1],
        threads_per_group: 1,
        slm_bytes: 0,
        scratch_bytes: 0,
    };
    interp::run(
        &prepared,
        &launch,
        mem,
        &|_, _| ThreadPayload {
            bytes: payload.clone(),
            lanes: 8,
        },
        &RunOptions::default(),
    )
    .unwrap();
}

fn dwords(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn if_else_endif_with_nested_if() {
    // if (x != 0) { if (x > 1) r = 20 else r = 10 } else { r = 30 }  (3_execution_model)
    let body = "\
        cmp.ne (M1, 8) P1 V0040(0,0)<1;1,0> 0x0:ud\n\
        (!P1) goto (M1, 8) ELSE1\n\
        mov (M1, 8) V0032(0,0)<1> 0xa:ud\n\
        cmp.gt (M1, 8) P2 V0040(0,0)<1;1,0> 0x1:ud\n\
        (!P2) goto (M1, 8) ENDIF2\n\
        mov (M1, 8) V0032(0,0)<1> 0x14:ud\n\
        ENDIF2:\n\
        goto (M1, 8) ENDIF1\n\
        ELSE1:\n\
        mov (M1, 8) V0032(0,0)<1> 0x1e:ud\n\
        ENDIF1:\n\
        goto (M1, 1) _store";
    assert_eq!(
        run8(body, [0, 1, 2, 3, 0, 1, 7, 0]),
        vec![30, 10, 20, 20, 30, 10, 20, 30]
    );
}

#[test]
fn do_while_loop_with_divergent_trip_counts() {
    // do { r += 1; x -= 1 } while (x > 0) with a break when r == 5  (3_execution_model)
    let body = "\
        mov (M1, 8) V0032(0,0)<1> 0x0:ud\n\
        LOOP_START:\n\
        add (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> 0x1:ud\n\
        cmp.eq (M1, 8) P2 V0032(0,0)<1;1,0> 0x5:ud\n\
        (P2) goto (M1, 8) LOOP_END\n\
        add (M1, 8) V0040(0,0)<1> V0040(0,0)<1;1,0> 0xffffffff:ud\n\
        cmp.gt (M1, 8) P1 V0040(0,0)<1;1,0> 0x0:ud\n\
        (P1) goto (M1, 8) LOOP_START\n\
        LOOP_END:\n\
        goto (M1, 1) _store";
    // x = 0 wraps to 0xffffffff (unsigned) and loops until the break at r == 5.
    assert_eq!(
        run8(body, [1, 2, 3, 4, 5, 6, 9, 0]),
        vec![1, 2, 3, 4, 5, 5, 5, 5]
    );
}

#[test]
fn predicate_any_all_and_inverse() {
    // P1 = x > 2; then r = any ? 1 : 0, +2 if all, +4 for lanes where !P1.
    let body = "\
        cmp.gt (M1, 8) P1 V0040(0,0)<1;1,0> 0x2:ud\n\
        mov (M1, 8) V0032(0,0)<1> 0x0:ud\n\
        (P1.any) add (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> 0x1:ud\n\
        (P1.all) add (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> 0x2:ud\n\
        (!P1) add (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> 0x4:ud\n\
        goto (M1, 1) _store";
    assert_eq!(
        run8(body, [0, 3, 5, 1, 9, 9, 2, 4]),
        vec![5, 1, 1, 5, 1, 1, 5, 1]
    );
    assert_eq!(run8(body, [3; 8]), vec![3; 8]);
}

/// Body prefix: the input stored to the surface at 4 * channel, V0033 = 4 * channel.
const STORE_INPUT: &str = "\
    mov (M1, 8) V0033(0,0)<1> 0x76543210:uv\n\
    shl (M1, 8) V0033(0,0)<1> V0033(0,0)<1;1,0> 0x2:ud\n\
    lsc_store.ugm (M1, 8) bti(0x0)[V0033]:a32 V0040:d32\n";

/// LSC_UNTYPED's strided load: lane i at the first lane's address plus i pitches (0: a
/// broadcast; past the surface's 32 bytes: zero).
#[test]
fn lsc_strided_loads_step_from_the_first_lane() {
    let input = [10, 11, 12, 13, 14, 15, 16, 17];
    let broadcast =
        format!("{STORE_INPUT}lsc_load_strided.ugm (M1, 8) V0032:d32 bti(0x0)[V0033+0x4, 0x0]:a32");
    assert_eq!(run8(&broadcast, input), vec![11; 8]);
    let pitch8 =
        format!("{STORE_INPUT}lsc_load_strided.ugm (M1, 8) V0032:d32 bti(0x0)[V0033, 0x8]:a32");
    assert_eq!(run8(&pitch8, input), vec![10, 12, 14, 16, 0, 0, 0, 0]);
}

/// LSC_UNTYPED's quad load: only the enabled channels (here W) of each lane's
/// four-element vector, packed from component 0 (own case `lsc_strided_quad` packs
/// .xzw into three).
#[test]
fn lsc_quad_loads_pack_the_enabled_channels() {
    let input = [10, 11, 12, 13, 14, 15, 16, 17];
    // Two lanes at bytes 0 and 16: vectors (10..13) and (14..17).
    let body = format!(
        "{STORE_INPUT}\
         shl (M1, 2) V0033(0,0)<1> V0033(0,0)<1;1,0> 0x2:ud\n\
         lsc_load_quad.ugm (M1, 2) V0032:d32.w bti(0x0)[V0033]:a32"
    );
    assert_eq!(&run8(&body, input)[..2], &[13, 17]);
}

/// QW_GATHER / QW_SCATTER (the pages' pseudo-code): lane i's qword at byte Offset[i] of
/// the surface, element i of the data operand. Offsets 24, 16, 8, 0 reverse the qwords.
#[test]
fn qword_gathers_and_scatters_address_bytes_per_lane() {
    let input = [10, 11, 12, 13, 14, 15, 16, 17];
    let reversed = "\
        mov (M1, 4) V0034(0,0)<1> 0x0123:uv\n\
        shl (M1, 4) V0034(0,0)<1> V0034(0,0)<1;1,0> 0x3:ud\n\
        movs (M1_NM, 1) T6(0) 0x0:ud\n";
    let gather = format!("{STORE_INPUT}{reversed}qw_gather.1 (M1, 4) T6 V0034.0 V0032.0");
    assert_eq!(run8(&gather, input), vec![16, 17, 14, 15, 12, 13, 10, 11]);
    // Scatter the input reversed, gather it back in order (offsets 0, 8, 16, 24).
    let scatter = format!(
        "{reversed}qw_scatter.1 (M1, 4) T6 V0034.0 V0040.0\n\
         shl (M1, 4) V0034(0,0)<1> V0033(0,0)<1;1,0> 0x1:ud\n\
         qw_gather.1 (M1, 4) T6 V0034.0 V0032.0"
    );
    let scatter = format!(
        "mov (M1, 8) V0033(0,0)<1> 0x76543210:uv\n\
         shl (M1, 8) V0033(0,0)<1> V0033(0,0)<1;1,0> 0x2:ud\n{scatter}"
    );
    assert_eq!(run8(&scatter, input), vec![16, 17, 14, 15, 12, 13, 10, 11]);
}

/// GATHER / SCATTER (0x39/0x3a): element i at (Global_offset + Element_offset[i])
/// elements of Elt_size bytes; loads zero-extend into dword slots, past the surface
/// read zero. Num_elts 0x0 is 8 elements under M1, 0x2 one element.
#[test]
fn gathers_count_offsets_in_elements_of_their_size() {
    let input = [10, 11, 12, 13, 14, 15, 16, 17];
    let reversed = "\
        mov (M1, 8) V0034(0,0)<1> 0x01234567:uv\n\
        movs (M1_NM, 1) T6(0) 0x0:ud\n";
    // dwords (2 + 7 - i): input[9 - i], past the end (i = 0, 1) zero.
    let dwords = format!("{STORE_INPUT}{reversed}gather.2.0 T6 0x2:ud V0034.0 V0032.0");
    assert_eq!(run8(&dwords, input), vec![0, 0, 17, 16, 15, 14, 13, 12]);
    // Halfwords 8 - i: even lanes the low halves of input[4 - i/2], odd ones high (0).
    let words = format!("{STORE_INPUT}{reversed}gather.1.0 T6 0x1:ud V0034.0 V0032.0");
    assert_eq!(run8(&words, input), vec![14, 0, 13, 0, 12, 0, 11, 0]);
    // Bytes at 12 + (7 - i) ... : input[4] = 14 at byte 16, input[3] = 13 at 12.
    let bytes = format!("{STORE_INPUT}{reversed}gather.0.0 T6 0xc:ud V0034.0 V0032.0");
    assert_eq!(run8(&bytes, input), vec![0, 0, 0, 14, 0, 0, 0, 13]);
    // One element: only lane 0 (element 7 + 0 = input[7]); the rest keep V0032's zeros.
    let one = format!("{STORE_INPUT}{reversed}gather.2.2 T6 0x0:ud V0034.0 V0032.0");
    assert_eq!(run8(&one, input), vec![17, 0, 0, 0, 0, 0, 0, 0]);
    // Scatter the low halfwords of V0040 to halfwords 8 + (7 - i), read back as dwords.
    let scatter = format!(
        "{reversed}scatter.1.0 T6 0x8:ud V0034.0 V0040.0\n\
         mov (M1, 8) V0033(0,0)<1> 0x76543210:uv\n\
         gather.2.0 T6 0x0:ud V0033.0 V0032.0"
    );
    let got = run8(&scatter, input);
    // Halfword 15 - i holds input[i]: dword 4 = halfwords 8 (17) and 9 (16), ...
    assert_eq!(
        &got[4..],
        &[17 | 16 << 16, 15 | 14 << 16, 13 | 12 << 16, 11 | 10 << 16]
    );
}

/// Run a SIMD8 kernel (32-byte GRF) over a flat 2D surface `img` at address 0x2000:
/// `body` fills V0032 (16 dwords, two GRFs; V0040 holds the words 10..17 as dwords),
/// which is then stored whole. Returns V0032's dwords and the surface afterwards.
fn run_flat_2d(body: &str, img: Vec<u8>) -> (Vec<u32>, Vec<u8>) {
    let text = format!(
        ".version 4.1\n.kernel \"k\"\n\
         .decl V0032 v_type=G type=ud num_elts=16 align=hword\n\
         .decl V0033 v_type=G type=ud num_elts=1 align=dword\n\
         .decl V0040 v_type=G type=ud num_elts=8 align=hword\n\
         .input V0040 offset=32 size=32\n.kernel_attr SimdSize=8\n\
         {body}\n\
         mov (M1_NM, 1) V0033(0,0)<1> 0x0:ud\n\
         lsc_store.ugm (M1_NM, 1) bti(0x0)[V0033]:a32 V0032:d32x16t\n\
         ret (M1, 1)\n"
    );
    let mut mem = Memory::new();
    let out = mem.add("out", 0x1000, vec![0; 64]);
    let surf = mem.add("img", 0x2000, img);
    mem.bind(0, out);
    run_one_thread(&text, &mut mem, [10, 11, 12, 13, 14, 15, 16, 17]);
    (dwords(mem.get(out)), mem.get(surf).to_vec())
}

/// An 8-row surface of 16-byte rows whose 16-bit word (row r, column c) is 16r + c.
fn words_image() -> Vec<u8> {
    (0..64u16)
        .flat_map(|i| (16 * (i / 8) + i % 8).to_le_bytes())
        .collect()
}

/// The 16-bit halves of `dwords`, low first.
fn halves(dwords: &[u32]) -> Vec<u32> {
    dwords.iter().flat_map(|d| [d & 0xffff, d >> 16]).collect()
}

/// lsc_load_block2d per the page's LOAD_BLOCK2D: rows padded to a power of two in the
/// GRF, VNNI packing two 16-bit rows per dword, transposing putting columns in GRF
/// rows; elements outside the surface (12 bytes wide, 4 rows: width 0xB, height 0x3,
/// pitch 0xF, all minus one) read zero.
#[test]
fn block2d_loads_lay_out_rows_pack_and_transpose_like_the_page() {
    let surf = "0x2000,0xB,0x3,0xF";
    // 4x4 block at (2, 1): rows 1..4 of columns 2..5; row 4 is past the surface.
    let (w, _) = run_flat_2d(
        &format!("lsc_load_block2d.ugm (M1, 8) V0032:d16.1x4x4nn flat[{surf},0x2,0x1]"),
        words_image(),
    );
    let want: Vec<u32> = (0..4)
        .flat_map(|y| (0..4).map(move |x| if y < 3 { 16 * (1 + y) + 2 + x } else { 0 }))
        .collect();
    assert_eq!(&halves(&w)[..16], &want[..]);
    // VNNI: rows (0, 1) interleaved per column, then rows (2, 3).
    let (w, _) = run_flat_2d(
        &format!("lsc_load_block2d.ugm (M1, 8) V0032:d16.1x4x4nt flat[{surf},0x0,0x0]"),
        words_image(),
    );
    assert_eq!(
        &halves(&w)[..16],
        &[0, 16, 1, 17, 2, 18, 3, 19, 32, 48, 33, 49, 34, 50, 35, 51]
    );
    // Transposed dwords, 2 wide and 4 high at column 1: GRF row x holds column x.
    let dw = |r: u32, c: u32| (16 * r + 2 * c) | (16 * r + 2 * c + 1) << 16;
    let (w, _) = run_flat_2d(
        &format!("lsc_load_block2d.ugm (M1, 8) V0032:d32.1x2x4tn flat[{surf},0x1,0x0]"),
        words_image(),
    );
    let want: Vec<u32> = (1..3).flat_map(|c| (0..4).map(move |r| dw(r, c))).collect();
    assert_eq!(&w[..8], &want[..]);
    // Two 2x2 blocks side by side, each in its own GRF (16 words apart), padding zero.
    let (w, _) = run_flat_2d(
        &format!("lsc_load_block2d.ugm (M1, 8) V0032:d16.2x2x2nn flat[{surf},0x2,0x2]"),
        words_image(),
    );
    let h = halves(&w);
    assert_eq!(&h[..4], &[34, 35, 50, 51]);
    assert_eq!(&h[4..16], &[0; 12]);
    assert_eq!(&h[16..20], &[36, 37, 52, 53]);
}

/// lsc_store_block2d writes the GRF's rows (row-major, as the load reads them; the
/// page's STORE_BLOCK2D indexes column-major, docs/design.md) and drops the elements
/// outside the surface: a 4x2 block at (5, 6) of a 6-word-wide surface writes only
/// column 5 of rows 6 and 7.
#[test]
fn block2d_stores_write_rows_and_clip_to_the_surface() {
    let (_, img) = run_flat_2d(
        "lsc_store_block2d.ugm (M1, 8) flat[0x2000,0xB,0x7,0xF,0x5,0x6] V0040:d16.4x2nn",
        words_image(),
    );
    let mut want = words_image();
    // GRF words: 10, 0, 11, 0 | 12, 0, 13, 0 (V0040's dwords 10..13 as halves).
    want[6 * 16 + 10..6 * 16 + 12].copy_from_slice(&10u16.to_le_bytes());
    want[7 * 16 + 10..7 * 16 + 12].copy_from_slice(&12u16.to_le_bytes());
    assert_eq!(img, want);
}

/// LSC_UNTYPED's LOAD_STATUS: bit n of the destination's first dword is set when
/// channel n's addresses all lie in the surface (the emulator's valid pages), and the
/// append counter atomics return, channel by channel, the counter before each addend
/// (AppendCounterAtomicAdd/Sub), the counter starting at zero.
#[test]
fn load_status_bits_and_append_counters_follow_the_page() {
    let text = ".version 4.1\n.kernel \"k\"\n\
         .decl V0032 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0034 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0035 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0033 v_type=G type=ud num_elts=1 align=dword\n\
         .decl V0040 v_type=G type=ud num_elts=8 align=hword\n\
         .input V0040 offset=32 size=32\n.kernel_attr SimdSize=8\n\
         lsc_load_status.ugm (M1, 8) V0032:d32x2 bti(0x1)[V0040]:a32\n\
         lsc_apndctr_atomic_add.ugm (M1, 8) V0034:d32 bti(0x1) V0040:d32\n\
         lsc_apndctr_atomic_sub.ugm (M1, 8) V0035:d32 bti(0x1) V0040:d32\n\
         mov (M1_NM, 1) V0033(0,0)<1> 0x0:ud\n\
         lsc_store.ugm (M1_NM, 1) bti(0x0)[V0033]:a32 V0032:d32x8t\n\
         mov (M1_NM, 1) V0033(0,0)<1> 0x20:ud\n\
         lsc_store.ugm (M1_NM, 1) bti(0x0)[V0033]:a32 V0034:d32x8t\n\
         mov (M1_NM, 1) V0033(0,0)<1> 0x40:ud\n\
         lsc_store.ugm (M1_NM, 1) bti(0x0)[V0033]:a32 V0035:d32x8t\n\
         ret (M1, 1)\n";
    let mut mem = Memory::new();
    let out = mem.add("out", 0x1000, vec![0xee; 96]);
    let surf = mem.add("surf", 0x2000, vec![0; 48]);
    mem.bind(0, out);
    mem.bind(1, surf);
    // Two dwords per channel: valid when address + 8 <= 48.
    let addrs = [0, 40, 36, 41, 8, 100, 0x7fff_fff0, 4];
    run_one_thread(text, &mut mem, addrs);
    let w = dwords(mem.get(out));
    assert_eq!(w[0], 0b1001_0111, "status bits");
    // The rest of the status destination is left as it was (zero-initialized GRF).
    assert_eq!(&w[1..8], &[0; 7]);
    let mut ctr = 0u32;
    for (i, a) in addrs.iter().enumerate() {
        assert_eq!(w[8 + i], ctr, "append add, channel {i}");
        ctr = ctr.wrapping_add(*a);
    }
    for (i, a) in addrs.iter().enumerate() {
        assert_eq!(w[16 + i], ctr, "append sub, channel {i}");
        ctr = ctr.wrapping_sub(*a);
    }
    assert_eq!(
        mem.get(surf),
        &[0; 48][..],
        "the surface itself is not touched"
    );
}

/// A SIMD8 kernel over eight input dwords (the payload's second GRF, V0040, viewed as
/// V0041) and eight output dwords (V0032, viewed as V0033; the views of `view`, e.g.
/// `type=f num_elts=8`): `prologue`, then `op`, then the output stored to surface 0.
fn dword_io_kernel(view: &str, prologue: &str, op: &str) -> String {
    format!(
        ".version 4.1\n.kernel \"k\"\n\
         .decl V0032 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0033 v_type=G {view} align=hword alias=<V0032, 0>\n\
         .decl V0034 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0040 v_type=G type=ud num_elts=8 align=hword\n\
         .decl V0041 v_type=G {view} align=hword alias=<V0040, 0>\n\
         .decl T6 v_type=T num_elts=1 v_name=T006\n\
         .input V0040 offset=32 size=32\n.kernel_attr SimdSize=8\n\
         {prologue}\
         {op}\n\
         mov (M1, 8) V0034(0,0)<1> 0x76543210:uv\n\
         shl (M1, 8) V0034(0,0)<1> V0034(0,0)<1;1,0> 0x2:ud\n\
         movs (M1_NM, 1) T6(0) 0x0:ud\n\
         scatter4_scaled.R (M1, 8) T6 0x0:ud V0034.0 V0032.0\n\
         ret (M1, 1)\n"
    )
}

/// 2_datatypes' ALT mode (%cr0 bit 0): an infinite F result becomes the largest finite
/// one, and LOG and SQRT take the absolute value of their source. The same kernel
/// without the bit gives IEEE's infinities and NaNs.
#[test]
fn alt_mode_flushes_infinities_and_takes_absolute_values() {
    let kernel = |alt: bool, op: &str| {
        let prologue = if alt {
            "or (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0x1:ud\n"
        } else {
            ""
        };
        dword_io_kernel("type=f num_elts=8", prologue, op)
    };
    let input = [2.0f32, -4.0, 0.25, -0.25, 16.0, -16.0, 1.0, -1.0].map(f32::to_bits);
    let run = |alt: bool, op: &str| {
        let mut mem = Memory::new();
        let out = mem.add("out", 0x1000, vec![0; 32]);
        mem.bind(0, out);
        run_one_thread(&kernel(alt, op), &mut mem, input);
        dwords(mem.get(out))
    };
    // x * 2^127: 2 and -4 overflow, 0.25 does not.
    let mul = "mul (M1, 8) V0033(0,0)<1> V0041(0,0)<1;1,0> 0x7f000000:f";
    let alt = run(true, mul);
    assert_eq!(alt[0], f32::MAX.to_bits(), "2 * 2^127 in ALT mode");
    assert_eq!(alt[1], (-f32::MAX).to_bits(), "-4 * 2^127 in ALT mode");
    assert_eq!(alt[2], 2f32.powi(125).to_bits());
    let ieee = run(false, mul);
    assert_eq!(ieee[0], f32::INFINITY.to_bits());
    assert_eq!(ieee[1], f32::NEG_INFINITY.to_bits());
    // log2 |x| and sqrt |x|.
    let log = "log (M1, 8) V0033(0,0)<1> V0041(0,0)<1;1,0>";
    let alt = run(true, log);
    assert_eq!(f32::from_bits(alt[1]), 2.0, "log2(-4) in ALT mode");
    assert_eq!(f32::from_bits(alt[3]), -2.0, "log2(-0.25) in ALT mode");
    assert!(
        f32::from_bits(run(false, log)[1]).is_nan(),
        "log2(-4) in IEEE mode"
    );
    let sqrt = "sqrt (M1, 8) V0033(0,0)<1> V0041(0,0)<1;1,0>";
    let alt = run(true, sqrt);
    assert_eq!(f32::from_bits(alt[5]), 4.0, "sqrt(-16) in ALT mode");
    assert!(
        f32::from_bits(run(false, sqrt)[5]).is_nan(),
        "sqrt(-16) in IEEE mode"
    );
    // A conversion that overflows F (1e300 as DF) gives the largest finite float.
    let cvt = "mov (M1, 8) V0033(0,0)<1> 0x7e37e43c8800759c:df";
    assert_eq!(
        run(true, cvt)[0],
        f32::MAX.to_bits(),
        "DF 1e300 -> F in ALT mode"
    );
    assert_eq!(
        run(false, cvt)[0],
        f32::INFINITY.to_bits(),
        "DF 1e300 -> F in IEEE mode"
    );
    // lrp's overflow likewise: 2 * fmax + (1 - 2) * 0.
    let lrp = "lrp (M1, 8) V0033(0,0)<1> 0x40000000:f 0x7f7fffff:f 0x0:f";
    assert_eq!(
        run(true, lrp)[0],
        f32::MAX.to_bits(),
        "lrp overflow in ALT mode"
    );
    assert_eq!(
        run(false, lrp)[0],
        f32::INFINITY.to_bits(),
        "lrp overflow in IEEE mode"
    );
}

/// 2_datatypes: HF denormals are flushed on input and output of a mathematical
/// operation (by %cr0's HF denorm bit 10, which IGC sets): a denormal times 1024 is a
/// zero of its sign with the bit clear and the normal 2^-14 with it set; two denormals
/// whose sum is normal add to zero.
#[test]
fn hf_denormal_sources_flush_where_cr0_says() {
    let kernel = |cr0: u32, op: &str| {
        let prologue = format!("mov (M1_NM, 1) %cr0(0,0)<1> {cr0:#x}:ud\n");
        dword_io_kernel("type=hf num_elts=16", &prologue, op)
    };
    // Halves: 2^-24 (the smallest denormal), -1023 * 2^-24, 1.0, 2^-14 (the smallest
    // normal), 2^-15, -2^-24.
    let mut halves = [0u16; 16];
    halves[..6].copy_from_slice(&[1, 0x83ff, 0x3c00, 0x0400, 0x0200, 0x8001]);
    let mut input = [0u32; 8];
    for (k, w) in input.iter_mut().enumerate() {
        *w = halves[2 * k] as u32 | (halves[2 * k + 1] as u32) << 16;
    }
    let run = |cr0: u32, op: &str| {
        let mut mem = Memory::new();
        let out = mem.add("out", 0x1000, vec![0; 32]);
        mem.bind(0, out);
        run_one_thread(&kernel(cr0, op), &mut mem, input);
        let d = dwords(mem.get(out));
        (0..16)
            .map(|k| (d[k / 2] >> (16 * (k % 2))) as u16)
            .collect::<Vec<_>>()
    };
    let mul = "mul (M1, 16) V0033(0,0)<1> V0041(0,0)<1;1,0> 0x6400:hf";
    let kept = run(0x4c0, mul);
    assert_eq!(
        &kept[..6],
        &[0x0400, 0xabfe, 0x6400, 0x2c00, 0x2800, 0x8400]
    );
    let flushed = run(0x0c0, mul);
    assert_eq!(&flushed[..6], &[0, 0x8000, 0x6400, 0x2c00, 0, 0x8000]);
    // An add of two denormals whose exact sum is normal: 0 when flushed on input.
    let add = "add (M1, 16) V0033(0,0)<1> V0041(0,0)<1;1,0> V0041(0,0)<1;1,0>";
    assert_eq!(run(0x4c0, add)[4], 0x0400, "2^-15 + 2^-15 kept");
    assert_eq!(run(0x0c0, add)[4], 0, "2^-15 + 2^-15 flushed");
}
