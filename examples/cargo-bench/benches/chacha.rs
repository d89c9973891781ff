//! The seed's table from this crate's own benches: ChaCha20 (the cipher) against two
//! ChaCha20 RNGs, 1-16 KiB, plus this crate's portable ChaCha20 (a known algorithm: it
//! gets the catalog's known answers) and its toy cipher (a new algorithm: its own vector,
//! no reference function, so it is checked in part).

use chacha_bench_example::{PortableChaCha20, ToyStream};
use chacha20::cipher::{KeyIvInit, StreamCipher as _};
use cryptobench_bench::Bench;
use cryptobench_bench::catalog::kinds::rng::{CHACHA20_RNG, Rng, RngAlgorithm, SeededRng};
use cryptobench_bench::catalog::kinds::stream::{
    CHACHA20, Stream, StreamAlgorithm, StreamCipher, StreamVector,
};
use rand_core::{Rng as _, SeedableRng as _};

/// RustCrypto's ChaCha20 cipher.
struct RustCryptoChaCha20(chacha20::ChaCha20);

impl StreamCipher for RustCryptoChaCha20 {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        RustCryptoChaCha20(
            chacha20::ChaCha20::new_from_slices(key, nonce)
                .expect("the adapter passes 32 and 12 bytes"),
        )
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }
}

/// This crate's portable ChaCha20: a known algorithm, so the catalog's gate applies.
struct Portable(PortableChaCha20);

impl StreamCipher for Portable {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Portable(PortableChaCha20::new(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        // Only for cryptobench's tests of the regression gate (tests/cargo_bench.rs): the
        // same output, at twice the work.
        if planted_slowdown() {
            let mut spare = PortableChaCha20::new(&[0; 32], &[0; 12]);
            let mut scratch = buf.to_vec();
            spare.apply_keystream(&mut scratch);
            std::hint::black_box(&scratch);
        }
    }
}

fn planted_slowdown() -> bool {
    static PLANTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PLANTED.get_or_init(|| std::env::var_os("CHACHA_BENCH_PLANT_SLOW").is_some())
}

/// The toy cipher, an algorithm no catalog knows: the crate's own vector, and no
/// reference function, so its gate checks in part (the vector, and the keystream in
/// pieces against one call) and the report says so.
static TOY: StreamAlgorithm = StreamAlgorithm {
    name: "toy-xorshift",
    key_len: 32,
    nonce_len: 12,
    block_len: 8,
    vectors: &[StreamVector {
        source: "this crate's own vector (tests/vectors)",
        key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        nonce: "000000000000004a00000000",
        skip: 0,
        plaintext: "63727970746f62656e636820746f7920766563746f722c203337206279746573206c6f6e67",
        ciphertext: "a67a7223230c89edfaec3761bf5979d1fd30b9aeaa7da00ed3d4ab081973a0660760fb02f6",
    }],
    reference: None,
};

struct Toy(ToyStream);

impl StreamCipher for Toy {
    const ALGORITHM: &'static StreamAlgorithm = &TOY;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Toy(ToyStream::new(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }
}

/// RustCrypto's ChaCha20 RNG and rand_chacha's.
struct RustCryptoRng(chacha20::ChaCha20Rng);

impl SeededRng for RustCryptoRng {
    const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
    fn from_seed(seed: [u8; 32]) -> Self {
        RustCryptoRng(chacha20::ChaCha20Rng::from_seed(seed))
    }
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf);
    }
}

struct RandChaCha(rand_chacha::ChaCha20Rng);

impl SeededRng for RandChaCha {
    const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
    fn from_seed(seed: [u8; 32]) -> Self {
        RandChaCha(rand_chacha::ChaCha20Rng::from_seed(seed))
    }
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf);
    }
}

/// A ChaCha20 with a bug planted (one bit flipped in every block after the first), for
/// cryptobench's own tests of the harness: the gate must refuse it before timing.
struct Planted(PortableChaCha20, usize);

impl StreamCipher for Planted {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Planted(PortableChaCha20::new(key, nonce), 0)
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        for (i, b) in buf.iter_mut().enumerate() {
            if (self.1 + i).is_multiple_of(64) && self.1 + i >= 64 {
                *b ^= 1;
            }
        }
        self.1 += buf.len();
    }
}

/// A ChaCha20 wrong at 8192 bytes alone, a length this bench measures and the gate's
/// own lengths pass over (as a fast path for one size can be), for cryptobench's own
/// tests: the gate must refuse it where the bench measures it.
struct WrongAt8192(PortableChaCha20);

impl StreamCipher for WrongAt8192 {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        WrongAt8192(PortableChaCha20::new(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        if buf.len() == 8192 {
            buf[0] ^= 1;
        }
    }
}

/// A ChaCha20 that passes its gate, then dies when timed (at a length the gate does not
/// ask for), for cryptobench's own tests: its case fails alone, the others are measured.
struct Crashing(PortableChaCha20);

impl StreamCipher for Crashing {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Crashing(PortableChaCha20::new(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        if buf.len() == 4000 {
            std::process::abort();
        }
        self.0.apply_keystream(buf);
    }
}

fn main() {
    let bench = Bench::new("chacha")
        .register(Stream::<RustCryptoChaCha20>::new("rustcrypto"))
        .register(Rng::<RustCryptoRng>::new("rustcrypto"))
        .register(Rng::<RandChaCha>::new("rand_chacha"))
        .register(Stream::<Portable>::new("example"))
        .register(Stream::<Toy>::new("example"))
        .sizes(&[1024, 2048, 4096, 8192, 16384])
        .ratio("rustcrypto/chacha20-rng", "rustcrypto/chacha20")
        .ratio("rand_chacha/chacha20-rng", "rustcrypto/chacha20")
        .compare("rand_chacha/chacha20-rng", "rustcrypto/chacha20-rng");
    // Only for cryptobench's tests of the harness (tests/cargo_bench.rs).
    let bench = match std::env::var_os("CHACHA_BENCH_PLANT_WRONG") {
        Some(_) => bench.register(Stream::<Planted>::new("planted")),
        None => bench,
    };
    let bench = match std::env::var_os("CHACHA_BENCH_PLANT_WRONG_AT") {
        Some(_) => bench.register(Stream::<WrongAt8192>::new("wrong-at")),
        None => bench,
    };
    let bench = match std::env::var_os("CHACHA_BENCH_PLANT_TWICE") {
        Some(_) => bench.register(Stream::<Portable>::new("example")),
        None => bench,
    };
    let bench = match std::env::var_os("CHACHA_BENCH_PLANT_CRASH") {
        Some(_) => bench.register(Stream::<Crashing>::new("crashing")),
        None => bench,
    };
    let bench = match std::env::var("CHACHA_BENCH_PLANT_MISTAKE").as_deref() {
        Ok("compare") => bench.compare("rand_chacha/chacha20-rgn", "rustcrypto/chacha20-rng"),
        Ok("name") => bench.register(Stream::<Portable>::new("my crate")),
        Ok("sizes") => bench.sizes(&[]),
        Ok("bench-name") => Bench::new("").register(Stream::<Portable>::new("example")),
        Ok("size-zero") => bench.sizes(&[0, 64]),
        _ => bench,
    };
    bench.main();
}
