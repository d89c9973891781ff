//! A bench that puts an implementation of its own beside the CLI's catalog (the
//! `catalog` feature of `cryptobench-bench`): here a "mine" ChaCha20 (RustCrypto's, under
//! another name) against ring's, aws-lc-rs's and OpenSSL's ChaCha20-Poly1305 neighbours.
//! Built as an example of the CLI crate so that its tests run it (tests/cargo_bench.rs);
//! a crate of one's own writes the same in `benches/`.

use cryptobench::catalog::kinds::stream::{CHACHA20, Stream, StreamAlgorithm, StreamCipher};
use cryptobench_bench::Bench;

struct Mine(cryptobench::providers::rustcrypto::ChaCha20);

impl StreamCipher for Mine {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Mine(StreamCipher::new(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }
}

fn main() {
    Bench::new("mine-against-the-catalog")
        .register(Stream::<Mine>::new("mine"))
        .with_catalog()
        .main();
}
