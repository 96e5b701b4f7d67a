#![no_main]
//! Any bytes: the binary decoder returns a program or an error, never panics.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = visa_emu::decode::binary::decode_isa(data, 32);
    let _ = visa_emu::decode::binary::decode_isa_symbols(data, 64);
});
