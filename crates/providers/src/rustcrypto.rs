//! RustCrypto crates: `sha2`, `sha3`, `shake`, `chacha20` (cipher and its `rng` feature),
//! `aes` with `ctr`, `aes-gcm`, `chacha20poly1305`, `ml-kem` and `keccak`, all on the
//! `cipher` 0.5 / `digest` 0.11 / `hybrid-array` generation.
//!
//! `ml-kem` is built without `alloc`, so its keys live inline rather than in boxes, and
//! with `getrandom`, the source of randomness its non-deterministic forms use.

use aes_gcm::aead::AeadInOut;
use chacha20::cipher::KeyIvInit;
use chacha20::rand_core::{Rng as _, SeedableRng as _};
#[allow(deprecated)]
use ml_kem::ExpandedKeyEncoding;
use ml_kem::{Decapsulate as _, Encapsulate as _, Generate as _, KeyExport as _};
use sha2::Digest;
use shake::digest::ExtendableOutputReset;

use cryptobench_core::catalog::kinds::aead::{
    AES_128_GCM, AES_256_GCM, Aead, AeadAlgorithm, AeadCipher, CHACHA20_POLY1305,
};
use cryptobench_core::catalog::kinds::core::{
    AES_128, AES_256, Core, CoreAlgorithm, CoreFunction, KECCAK_F1600,
};
use cryptobench_core::catalog::kinds::hash::{
    Hash, HashAlgorithm, HashFunction, SHA_256, SHA_512, SHA3_256,
};
use cryptobench_core::catalog::kinds::kem::{
    Derand, Kem, KemAlgorithm, KemFunction, ML_KEM_512, ML_KEM_768, ML_KEM_1024,
};
use cryptobench_core::catalog::kinds::rng::{CHACHA20_RNG, Rng, RngAlgorithm, SeededRng};
use cryptobench_core::catalog::kinds::stream::{
    AES_128_CTR, AES_256_CTR, CHACHA20, Stream, StreamAlgorithm, StreamCipher,
};
use cryptobench_core::catalog::kinds::xof::{SHAKE128, SHAKE256, Xof, XofAlgorithm, XofFunction};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Hash::<Digest2<sha2::Sha256>>::new("rustcrypto"));
    r.add(Hash::<Digest2<sha2::Sha512>>::new("rustcrypto"));
    r.add(Hash::<Digest2<sha3::Sha3_256>>::new("rustcrypto"));
    r.add(Xof::<Shake<shake::Shake128>>::new("rustcrypto"));
    r.add(Xof::<Shake<shake::Shake256>>::new("rustcrypto"));
    r.add(Stream::<ChaCha20>::new("rustcrypto"));
    // The whole block is the counter, as in OpenSSL and SP 800-38A.
    r.add(Stream::<Keystream<ctr::Ctr128BE<aes::Aes128>>>::new(
        "rustcrypto",
    ));
    r.add(Stream::<Keystream<ctr::Ctr128BE<aes::Aes256>>>::new(
        "rustcrypto",
    ));
    r.add(Aead::<AeadInPlace<aes_gcm::Aes128Gcm>>::new("rustcrypto"));
    r.add(Aead::<AeadInPlace<aes_gcm::Aes256Gcm>>::new("rustcrypto"));
    r.add(Aead::<AeadInPlace<chacha20poly1305::ChaCha20Poly1305>>::new("rustcrypto"));
    r.add(Kem::<MlKem512>::new("rustcrypto"));
    r.add(Kem::<MlKem768>::new("rustcrypto"));
    r.add(Kem::<MlKem1024>::new("rustcrypto"));
    r.add(Core::<BlockCipher<aes::Aes128>>::new("rustcrypto"));
    r.add(Core::<BlockCipher<aes::Aes256>>::new("rustcrypto"));
    r.add(Core::<KeccakF1600>::new("rustcrypto"));
    r.add(Rng::<ChaCha20Rng>::new("rustcrypto"));
}

/// The crates the implementation of `algorithm` registered here comes from: the crate of
/// its type, and the crate of this workspace's dependencies whose code it runs for its
/// core (`aes-gcm`'s block cipher is `aes`, `chacha20poly1305`'s stream `chacha20`).
pub fn crates(algorithm: &str) -> &'static [&'static str] {
    match algorithm {
        "sha-256" | "sha-512" => &["sha2"],
        "sha3-256" => &["sha3"],
        "shake128" | "shake256" => &["shake"],
        "chacha20" | "chacha20-rng" => &["chacha20"],
        "aes-128-ctr" | "aes-256-ctr" => &["aes", "ctr"],
        "aes-128-gcm" | "aes-256-gcm" => &["aes", "aes-gcm"],
        "chacha20-poly1305" => &["chacha20", "chacha20poly1305"],
        "ml-kem-512" | "ml-kem-768" | "ml-kem-1024" => &["ml-kem"],
        "aes-128" | "aes-256" => &["aes"],
        "keccak-f1600" => &["keccak"],
        _ => &[],
    }
}

/// Which algorithm a RustCrypto type implements.
pub trait Names<A: 'static> {
    const ALGORITHM: &'static A;
}

impl Names<HashAlgorithm> for sha2::Sha256 {
    const ALGORITHM: &'static HashAlgorithm = &SHA_256;
}
impl Names<HashAlgorithm> for sha2::Sha512 {
    const ALGORITHM: &'static HashAlgorithm = &SHA_512;
}
impl Names<HashAlgorithm> for sha3::Sha3_256 {
    const ALGORITHM: &'static HashAlgorithm = &SHA3_256;
}
impl Names<XofAlgorithm> for shake::Shake128 {
    const ALGORITHM: &'static XofAlgorithm = &SHAKE128;
}
impl Names<XofAlgorithm> for shake::Shake256 {
    const ALGORITHM: &'static XofAlgorithm = &SHAKE256;
}
impl Names<StreamAlgorithm> for chacha20::ChaCha20 {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
}
impl Names<StreamAlgorithm> for ctr::Ctr128BE<aes::Aes128> {
    const ALGORITHM: &'static StreamAlgorithm = &AES_128_CTR;
}
impl Names<StreamAlgorithm> for ctr::Ctr128BE<aes::Aes256> {
    const ALGORITHM: &'static StreamAlgorithm = &AES_256_CTR;
}
impl Names<CoreAlgorithm> for aes::Aes128 {
    const ALGORITHM: &'static CoreAlgorithm = &AES_128;
}
impl Names<CoreAlgorithm> for aes::Aes256 {
    const ALGORITHM: &'static CoreAlgorithm = &AES_256;
}
impl Names<AeadAlgorithm> for aes_gcm::Aes128Gcm {
    const ALGORITHM: &'static AeadAlgorithm = &AES_128_GCM;
}
impl Names<AeadAlgorithm> for aes_gcm::Aes256Gcm {
    const ALGORITHM: &'static AeadAlgorithm = &AES_256_GCM;
}
impl Names<AeadAlgorithm> for chacha20poly1305::ChaCha20Poly1305 {
    const ALGORITHM: &'static AeadAlgorithm = &CHACHA20_POLY1305;
}

/// Any `digest` 0.11 hash.
pub struct Digest2<D>(D);

impl<D> HashFunction for Digest2<D>
where
    D: Digest + sha2::digest::FixedOutputReset + Default + Send + Names<HashAlgorithm> + 'static,
{
    const ALGORITHM: &'static HashAlgorithm = D::ALGORITHM;
    fn new() -> Self {
        Digest2(D::default())
    }
    fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
        Digest::update(&mut self.0, msg);
        out.copy_from_slice(&self.0.finalize_reset());
    }
}

pub struct Shake<X>(X);

impl<X> XofFunction for Shake<X>
where
    X: ExtendableOutputReset + Default + Send + Names<XofAlgorithm> + 'static,
{
    const ALGORITHM: &'static XofAlgorithm = X::ALGORITHM;
    fn new() -> Self {
        Shake(X::default())
    }
    fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
        self.0.update(msg);
        self.0.finalize_xof_reset_into(out);
    }
}

/// Any `cipher` 0.5 stream cipher.
pub struct Keystream<C>(C);

/// The plain ChaCha20 cipher, which the test implementations build on.
pub type ChaCha20 = Keystream<chacha20::ChaCha20>;

impl<C> StreamCipher for Keystream<C>
where
    C: KeyIvInit + chacha20::cipher::StreamCipher + Send + Names<StreamAlgorithm> + 'static,
{
    const ALGORITHM: &'static StreamAlgorithm = C::ALGORITHM;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Keystream(
            C::new_from_slices(key, nonce)
                .expect("the stream adapter passes the declared key and nonce lengths"),
        )
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }
}

/// Any `aead` 0.6 cipher through its detached in-place interface (`AeadInOut`).
pub struct AeadInPlace<A>(A);

impl<A> AeadCipher for AeadInPlace<A>
where
    A: AeadInOut + aes_gcm::KeyInit + Send + Names<AeadAlgorithm> + 'static,
{
    const ALGORITHM: &'static AeadAlgorithm = A::ALGORITHM;
    fn new(key: &[u8]) -> Self {
        AeadInPlace(
            A::new_from_slice(key).expect("the AEAD adapter passes the declared key length"),
        )
    }
    fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let nonce = nonce
            .try_into()
            .expect("the AEAD adapter passes the declared nonce length");
        let t = self
            .0
            .encrypt_inout_detached(nonce, ad, buf.into())
            .expect("messages and associated data stay far below the AEAD's limits");
        tag.copy_from_slice(&t);
    }
    fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
        let nonce = nonce
            .try_into()
            .expect("the AEAD adapter passes the declared nonce length");
        let tag = tag
            .try_into()
            .expect("the AEAD adapter passes the declared tag length");
        self.0
            .decrypt_inout_detached(nonce, ad, buf.into(), tag)
            .is_ok()
    }
}

/// One type per parameter set: `ml-kem`'s bounds on a generic one are private.
macro_rules! ml_kem {
    ($name:ident, $params:ty, $algorithm:expr) => {
        pub struct $name;

        impl KemFunction for $name {
            const ALGORITHM: &'static KemAlgorithm = $algorithm;
            type DecapsKey = ml_kem::DecapsulationKey<$params>;
            type EncapsKey = ml_kem::EncapsulationKey<$params>;
            const DERAND: Option<Derand<Self>> = Some(Derand {
                keypair: |seed| Self::DecapsKey::from_seed((*seed).into()),
                encaps: |ek, m, ct, ss| {
                    let (c, k) = ek.encapsulate_deterministic(m.into());
                    ct.copy_from_slice(&c);
                    ss.copy_from_slice(&k);
                },
            });
            fn keypair() -> Self::DecapsKey {
                Self::DecapsKey::generate()
            }
            fn encaps_key(dk: &Self::DecapsKey) -> Self::EncapsKey {
                dk.encapsulation_key().clone()
            }
            fn encaps_key_from_bytes(bytes: &[u8]) -> Option<Self::EncapsKey> {
                Self::EncapsKey::new(bytes.try_into().ok()?).ok()
            }
            fn encaps_key_bytes(ek: &Self::EncapsKey) -> Vec<u8> {
                ek.to_bytes().to_vec()
            }
            fn decaps_key_bytes(dk: &Self::DecapsKey) -> Vec<u8> {
                // Deprecated in favour of the 64-byte seed, but it is the standard's encoding.
                #[allow(deprecated)]
                ExpandedKeyEncoding::to_expanded_bytes(dk).to_vec()
            }
            fn encaps(ek: &Self::EncapsKey, ct: &mut [u8], ss: &mut [u8]) {
                let (c, k) = ek.encapsulate();
                ct.copy_from_slice(&c);
                ss.copy_from_slice(&k);
            }
            fn decaps(dk: &Self::DecapsKey, ct: &[u8], ss: &mut [u8]) {
                let k = dk
                    .decapsulate_slice(ct)
                    .expect("the KEM adapter passes ciphertexts of the declared length");
                ss.copy_from_slice(&k);
            }
        }
    };
}

ml_kem!(MlKem512, ml_kem::MlKem512, &ML_KEM_512);
ml_kem!(MlKem768, ml_kem::MlKem768, &ML_KEM_768);
ml_kem!(MlKem1024, ml_kem::MlKem1024, &ML_KEM_1024);

pub struct BlockCipher<B>(B);

impl<B> CoreFunction for BlockCipher<B>
where
    B: aes::cipher::BlockCipherEncrypt<BlockSize = aes::cipher::consts::U16>
        + aes::cipher::KeyInit
        + Send
        + Names<CoreAlgorithm>
        + 'static,
{
    const ALGORITHM: &'static CoreAlgorithm = B::ALGORITHM;
    type State = aes::Block;
    fn new(key: &[u8]) -> Self {
        BlockCipher(
            B::new_from_slice(key).expect("the core adapter passes the declared key length"),
        )
    }
    fn load(bytes: &[u8]) -> aes::Block {
        aes::Block::try_from(bytes).expect("the core adapter passes whole blocks")
    }
    fn store(state: &aes::Block, bytes: &mut [u8]) {
        bytes.copy_from_slice(state);
    }
    fn apply(&self, state: &mut aes::Block) {
        self.0.encrypt_block(state);
    }
}

/// The `keccak` crate's permutation, through the backend it picks for this CPU.
pub struct KeccakF1600(keccak::Fn1600);

impl CoreFunction for KeccakF1600 {
    const ALGORITHM: &'static CoreAlgorithm = &KECCAK_F1600;
    type State = [u64; 25];
    fn new(_key: &[u8]) -> Self {
        let mut f: keccak::Fn1600 = |_| {};
        keccak::Keccak::new().with_f1600(|chosen| f = chosen);
        KeccakF1600(f)
    }
    fn load(bytes: &[u8]) -> [u64; 25] {
        std::array::from_fn(|i| {
            u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        })
    }
    fn store(state: &[u64; 25], bytes: &mut [u8]) {
        for (chunk, lane) in bytes.chunks_exact_mut(8).zip(state) {
            chunk.copy_from_slice(&lane.to_le_bytes());
        }
    }
    fn apply(&self, state: &mut [u64; 25]) {
        (self.0)(state);
    }
}

pub struct ChaCha20Rng(chacha20::ChaCha20Rng);

impl SeededRng for ChaCha20Rng {
    const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
    fn from_seed(seed: [u8; 32]) -> Self {
        ChaCha20Rng(chacha20::ChaCha20Rng::from_seed(seed))
    }
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf);
    }
}
