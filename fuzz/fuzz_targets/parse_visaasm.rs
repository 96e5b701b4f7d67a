#![no_main]
//! Any text: the parser returns a program or a line:column error, never panics; what it
//! accepts prints and parses back to the same program.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(p) = visa_emu::decode::text::parse_visaasm(text, 32) {
            let printed = visa_emu::print::print_program(&p);
            let q = visa_emu::decode::text::parse_visaasm(&printed, 32).expect("printed text parses");
            assert_eq!(p, q);
        }
    }
});
