#![no_main]
//! Whatever the binary decoder reads, the encoder writes back to bytes that decode to
//! the same program (each object then declaring every function it names).
use libfuzzer_sys::fuzz_target;
use visa_emu::decode::binary::decode_isa;
use visa_emu::encode::{callee_table, encode_isa};

fuzz_target!(|data: &[u8]| {
    let Ok(mut p) = decode_isa(data, 32) else {
        return;
    };
    let Ok(bytes) = encode_isa(&p) else {
        return;
    };
    let back = decode_isa(&bytes, 32).expect("an encoding decodes");
    for o in p.kernels.iter_mut().chain(p.functions.iter_mut()) {
        o.func_decls = callee_table(o);
    }
    assert_eq!(back, p);
});
