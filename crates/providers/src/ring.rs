//! `ring`: SHA-256, SHA-512, AES-128/256-GCM and ChaCha20-Poly1305.
//!
//! Both `ring` and `aws-lc-rs` are here: `ring` builds in seconds, `aws-lc-rs` in about a
//! minute, and they are different code (BoringSSL-derived assembly vs AWS-LC), so both
//! are worth comparing. `ring` has no X25519 here: its `agreement` API takes secrets only
//! from its own RNG (no known-answer test can reach it) and consumes them in one
//! agreement, so `shared` would include generating a key. It has no SHA-3 or ML-KEM.

use ring::{aead, digest};

use cryptobench_core::catalog::kinds::aead::{
    AES_128_GCM, AES_256_GCM, Aead, AeadAlgorithm, AeadCipher, CHACHA20_POLY1305,
};
use cryptobench_core::catalog::kinds::hash::{Hash, HashAlgorithm, HashFunction, SHA_256, SHA_512};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Hash::<Sha256>::new("ring"));
    r.add(Hash::<Sha512>::new("ring"));
    r.add(Aead::<Aes128Gcm>::new("ring"));
    r.add(Aead::<Aes256Gcm>::new("ring"));
    r.add(Aead::<ChaCha20Poly1305>::new("ring"));
}

/// The crates every implementation registered here comes from, whatever its algorithm.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["ring"]
}

/// One-shot hashing, as `ring` offers it; the digest lives on the stack.
macro_rules! hash {
    ($name:ident, $ring:expr, $algorithm:expr) => {
        pub struct $name;

        impl HashFunction for $name {
            const ALGORITHM: &'static HashAlgorithm = $algorithm;
            fn new() -> Self {
                $name
            }
            fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
                out.copy_from_slice(digest::digest($ring, msg).as_ref());
            }
        }
    };
}

hash!(Sha256, &digest::SHA256, &SHA_256);
hash!(Sha512, &digest::SHA512, &SHA_512);

/// `LessSafeKey`: the nonce is the caller's, as every other provider here takes it.
macro_rules! aead {
    ($name:ident, $ring:expr, $algorithm:expr) => {
        pub struct $name(aead::LessSafeKey);

        impl AeadCipher for $name {
            const ALGORITHM: &'static AeadAlgorithm = $algorithm;
            fn new(key: &[u8]) -> Self {
                let key = aead::UnboundKey::new($ring, key)
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
                let tag = aead::Tag::try_from(tag)
                    .expect("the AEAD adapter passes the declared tag length");
                self.0
                    .open_in_place_separate_tag(nonce, aead::Aad::from(ad), tag, buf, 0..)
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
