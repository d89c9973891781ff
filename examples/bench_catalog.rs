//! A bench that puts implementations of its own beside the CLI's catalog (the `catalog`
//! feature of `cryptobench-bench`): here a "mine" ChaCha20 and a "mine" ChaCha20-Poly1305
//! (RustCrypto's, under another name), to be measured against ring's, aws-lc-rs's and
//! OpenSSL's.
//! Built as an example of the CLI crate so that its tests run it (tests/cargo_bench.rs);
//! a crate of one's own writes the same in `benches/`.

use cryptobench::catalog::kinds::aead::{Aead, AeadAlgorithm, AeadCipher, CHACHA20_POLY1305};
use cryptobench::catalog::kinds::stream::{CHACHA20, Stream, StreamAlgorithm, StreamCipher};
use cryptobench::providers::rustcrypto::AeadInPlace;
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

struct MineAead(AeadInPlace<chacha20poly1305::ChaCha20Poly1305>);

impl AeadCipher for MineAead {
    const ALGORITHM: &'static AeadAlgorithm = &CHACHA20_POLY1305;
    fn new(key: &[u8]) -> Self {
        MineAead(AeadCipher::new(key))
    }
    fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        self.0.encrypt(nonce, ad, buf, tag);
    }
    fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
        self.0.decrypt(nonce, ad, buf, tag)
    }
}

fn main() {
    Bench::new("mine-against-the-catalog")
        .register(Stream::<Mine>::new("mine"))
        .register(Aead::<MineAead>::new("mine"))
        .with_catalog()
        .main();
}
