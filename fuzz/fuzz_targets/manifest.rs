#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cryptobench::fuzz_entry::manifest(data));
