#![no_main]
//! Any bytes: the patch-token decoder returns an ABI or an error, never panics.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = visa_emu::abi::patch_tokens::decode_bin(data, "k", 32);
});
