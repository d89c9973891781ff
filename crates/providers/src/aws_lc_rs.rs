//! `aws-lc-rs` (AWS-LC): SHA-256, SHA-512, SHA3-256, AES-128/256-GCM, ChaCha20-Poly1305,
//! X25519 and ML-KEM-512/768/1024 (its stable `kem` module).
//!
//! Its KEM API allocates: encapsulation and decapsulation return boxed secrets and each
//! creates an `EVP_PKEY_CTX`; the timed calls include that, as every user of the API pays
//! it. It offers no deterministic ML-KEM forms, so its keys are checked against the
//! reference implementation rather than the accumulated vectors.

use aws_lc_rs::{aead, agreement, digest, kem};

use cryptobench_core::catalog::kinds::aead::{
    AES_128_GCM, AES_256_GCM, Aead, AeadAlgorithm, AeadCipher, CHACHA20_POLY1305,
};
use cryptobench_core::catalog::kinds::dh::{Dh, DhAlgorithm, DhFunction, X25519};
use cryptobench_core::catalog::kinds::hash::{
    Hash, HashAlgorithm, HashFunction, SHA_256, SHA_512, SHA3_256,
};
use cryptobench_core::catalog::kinds::kem::{
    Kem, KemAlgorithm, KemFunction, ML_KEM_512, ML_KEM_768, ML_KEM_1024,
};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Hash::<Sha256>::new("aws-lc-rs"));
    r.add(Hash::<Sha512>::new("aws-lc-rs"));
    r.add(Hash::<Sha3_256>::new("aws-lc-rs"));
    r.add(Aead::<Aes128Gcm>::new("aws-lc-rs"));
    r.add(Aead::<Aes256Gcm>::new("aws-lc-rs"));
    r.add(Aead::<ChaCha20Poly1305>::new("aws-lc-rs"));
    r.add(Dh::<X25519Agreement>::new("aws-lc-rs"));
    r.add(Kem::<MlKem512>::new("aws-lc-rs"));
    r.add(Kem::<MlKem768>::new("aws-lc-rs"));
    r.add(Kem::<MlKem1024>::new("aws-lc-rs"));
}

/// The crates every implementation registered here comes from, whatever its algorithm.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["aws-lc-rs"]
}

/// AWS-LC as it names itself (`AWS-LC 5.12.0`, or `AWS-LC FIPS ...`): aws-lc-rs does not
/// re-export its version, and the crate's own number is not the library's.
pub fn version() -> &'static str {
    // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string.
    let text = unsafe {
        std::ffi::CStr::from_ptr(aws_lc_sys::OpenSSL_version(aws_lc_sys::OPENSSL_VERSION))
    };
    text.to_str().unwrap_or("AWS-LC (version not UTF-8)")
}

/// One-shot hashing; the digest lives on the stack.
macro_rules! hash {
    ($name:ident, $lc:expr, $algorithm:expr) => {
        pub struct $name;

        impl HashFunction for $name {
            const ALGORITHM: &'static HashAlgorithm = $algorithm;
            fn new() -> Self {
                $name
            }
            fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
                out.copy_from_slice(digest::digest($lc, msg).as_ref());
            }
        }
    };
}

hash!(Sha256, &digest::SHA256, &SHA_256);
hash!(Sha512, &digest::SHA512, &SHA_512);
hash!(Sha3_256, &digest::SHA3_256, &SHA3_256);

macro_rules! aead {
    ($name:ident, $lc:expr, $algorithm:expr) => {
        pub struct $name(aead::LessSafeKey);

        impl AeadCipher for $name {
            const ALGORITHM: &'static AeadAlgorithm = $algorithm;
            fn new(key: &[u8]) -> Self {
                let key = aead::UnboundKey::new($lc, key)
                    .expect("the AEAD adapter passes the declared key length");
                $name(aead::LessSafeKey::new(key))
            }
            fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
                let nonce = aead::Nonce::try_assume_unique_for_key(nonce)
                    .expect("the AEAD adapter passes the declared nonce length");
                let t = self
                    .0
                    .seal_in_place_separate_tag(nonce, aead::Aad::from(ad), buf)
                    .expect("messages stay far below the AEAD's limits");
                tag.copy_from_slice(t.as_ref());
            }
            fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
                let nonce = aead::Nonce::try_assume_unique_for_key(nonce)
                    .expect("the AEAD adapter passes the declared nonce length");
                self.0
                    .open_in_place_separate_tag(nonce, aead::Aad::from(ad), tag, buf)
                    .is_ok()
            }
        }
    };
}

aead!(Aes128Gcm, &aead::AES_128_GCM, &AES_128_GCM);
aead!(Aes256Gcm, &aead::AES_256_GCM, &AES_256_GCM);
aead!(
    ChaCha20Poly1305,
    &aead::CHACHA20_POLY1305,
    &CHACHA20_POLY1305
);

pub struct X25519Agreement;

impl DhFunction for X25519Agreement {
    const ALGORITHM: &'static DhAlgorithm = &X25519;
    type Secret = agreement::PrivateKey;
    fn secret(bytes: &[u8]) -> agreement::PrivateKey {
        agreement::PrivateKey::from_private_key(&agreement::X25519, bytes)
            .expect("the DH adapter passes 32-byte secrets")
    }
    /// AWS-LC computes the public key when the secret is imported; reading it back copies.
    fn base(secret: &[u8], public: &mut [u8]) {
        let key = Self::secret(secret);
        let pk = key
            .compute_public_key()
            .expect("an imported X25519 key has a public key");
        public.copy_from_slice(pk.as_ref());
    }
    fn shared(secret: &mut agreement::PrivateKey, peer: &[u8], out: &mut [u8]) -> bool {
        let peer = agreement::UnparsedPublicKey::new(&agreement::X25519, peer);
        agreement::agree(secret, peer, (), |k| {
            out.copy_from_slice(k);
            Ok(())
        })
        .is_ok()
    }
}

macro_rules! ml_kem {
    ($name:ident, $lc:expr, $algorithm:expr) => {
        pub struct $name;

        impl KemFunction for $name {
            const ALGORITHM: &'static KemAlgorithm = $algorithm;
            type DecapsKey = kem::DecapsulationKey;
            type EncapsKey = kem::EncapsulationKey;
            fn keypair() -> kem::DecapsulationKey {
                kem::DecapsulationKey::generate($lc)
                    .expect("key generation fails only without memory")
            }
            fn encaps_key(dk: &kem::DecapsulationKey) -> kem::EncapsulationKey {
                dk.encapsulation_key()
                    .expect("a generated decapsulation key has its encapsulation key")
            }
            fn encaps_key_from_bytes(bytes: &[u8]) -> Option<kem::EncapsulationKey> {
                kem::EncapsulationKey::new($lc, bytes).ok()
            }
            fn encaps_key_bytes(ek: &kem::EncapsulationKey) -> Vec<u8> {
                ek.key_bytes()
                    .expect("an encapsulation key can be serialised")
                    .as_ref()
                    .to_vec()
            }
            fn decaps_key_bytes(dk: &kem::DecapsulationKey) -> Vec<u8> {
                dk.key_bytes()
                    .expect("a generated decapsulation key can be serialised")
                    .as_ref()
                    .to_vec()
            }
            fn encaps(ek: &kem::EncapsulationKey, ct: &mut [u8], ss: &mut [u8]) {
                let (c, k) = ek
                    .encapsulate()
                    .expect("encapsulation fails only without memory");
                ct.copy_from_slice(c.as_ref());
                ss.copy_from_slice(k.as_ref());
            }
            fn decaps(dk: &kem::DecapsulationKey, ct: &[u8], ss: &mut [u8]) {
                let k = dk
                    .decapsulate(ct.into())
                    .expect("the KEM adapter passes ciphertexts of the declared length");
                ss.copy_from_slice(k.as_ref());
            }
        }
    };
}

ml_kem!(MlKem512, &kem::ML_KEM_512, &ML_KEM_512);
ml_kem!(MlKem768, &kem::ML_KEM_768, &ML_KEM_768);
ml_kem!(MlKem1024, &kem::ML_KEM_1024, &ML_KEM_1024);
