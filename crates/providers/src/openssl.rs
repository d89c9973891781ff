//! OpenSSL through the `openssl` crate, linked to the system library (3.0 here), through
//! its EVP interfaces: SHA-256, SHA-512, SHA3-256, SHAKE128/256, AES-128/256-CTR, ChaCha20,
//! AES-128/256-GCM, ChaCha20-Poly1305 and X25519.
//!
//! Ciphers use `CipherCtx` rather than `symm::Crypter`: it can re-initialise a context with
//! only a new IV (the key schedule stays) and encrypt in place, so timed calls neither
//! allocate nor copy. OpenSSL 3.0 has no ML-KEM (it arrived in 3.5), so there is none here.

use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;
use openssl::hash::{Hasher, MessageDigest};
use openssl::pkey::{Id, PKey, Private};
use openssl::pkey_ctx::PkeyCtx;

use cryptobench_core::catalog::kinds::aead::{
    AES_128_GCM, AES_256_GCM, Aead, AeadAlgorithm, AeadCipher, CHACHA20_POLY1305,
};
use cryptobench_core::catalog::kinds::dh::{Dh, DhAlgorithm, DhFunction, X25519};
use cryptobench_core::catalog::kinds::hash::{
    Hash, HashAlgorithm, HashFunction, SHA_256, SHA_512, SHA3_256,
};
use cryptobench_core::catalog::kinds::stream::{
    AES_128_CTR, AES_256_CTR, CHACHA20, Stream, StreamAlgorithm, StreamCipher,
};
use cryptobench_core::catalog::kinds::xof::{SHAKE128, SHAKE256, Xof, XofAlgorithm, XofFunction};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Hash::<Sha256>::new("openssl"));
    r.add(Hash::<Sha512>::new("openssl"));
    r.add(Hash::<Sha3_256>::new("openssl"));
    r.add(Xof::<Shake128>::new("openssl"));
    r.add(Xof::<Shake256>::new("openssl"));
    r.add(Stream::<Aes128Ctr>::new("openssl"));
    r.add(Stream::<Aes256Ctr>::new("openssl"));
    r.add(Stream::<ChaCha20>::new("openssl"));
    r.add(Aead::<Aes128Gcm>::new("openssl"));
    r.add(Aead::<Aes256Gcm>::new("openssl"));
    r.add(Aead::<ChaCha20Poly1305>::new("openssl"));
    r.add(Dh::<X25519Evp>::new("openssl"));
}

/// The crate every implementation registered here comes from, whatever its algorithm: the
/// binding, which brings the C library it links (`crate::libraries_of_crates`).
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["openssl"]
}

/// A reused `Hasher`: each call includes the `EVP_DigestInit_ex` that re-initialises the
/// context after the previous digest, as any reuse of an `EVP_MD_CTX` does.
macro_rules! hash {
    ($name:ident, $md:expr, $algorithm:expr) => {
        pub struct $name(Hasher);

        impl HashFunction for $name {
            const ALGORITHM: &'static HashAlgorithm = $algorithm;
            fn new() -> Self {
                $name(Hasher::new($md).expect("OpenSSL has the digest"))
            }
            fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
                self.0
                    .update(msg)
                    .expect("EVP_DigestUpdate fails only on a broken context");
                let digest = self
                    .0
                    .finish()
                    .expect("EVP_DigestFinal fails only on a broken context");
                out.copy_from_slice(&digest);
            }
        }
    };
}

hash!(Sha256, MessageDigest::sha256(), &SHA_256);
hash!(Sha512, MessageDigest::sha512(), &SHA_512);
hash!(Sha3_256, MessageDigest::sha3_256(), &SHA3_256);

macro_rules! xof {
    ($name:ident, $md:expr, $algorithm:expr) => {
        pub struct $name(Hasher);

        impl XofFunction for $name {
            const ALGORITHM: &'static XofAlgorithm = $algorithm;
            fn new() -> Self {
                $name(Hasher::new($md).expect("OpenSSL has the XOF"))
            }
            fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
                self.0
                    .update(msg)
                    .expect("EVP_DigestUpdate fails only on a broken context");
                self.0
                    .finish_xof(out)
                    .expect("EVP_DigestFinalXOF fails only on a broken context");
            }
        }
    };
}

xof!(Shake128, MessageDigest::shake_128(), &SHAKE128);
xof!(Shake256, MessageDigest::shake_256(), &SHAKE256);

/// A cipher context initialised once; the stream continues across calls.
macro_rules! stream {
    ($name:ident, $cipher:expr, $algorithm:expr, $iv:expr) => {
        pub struct $name(CipherCtx);

        impl StreamCipher for $name {
            const ALGORITHM: &'static StreamAlgorithm = $algorithm;
            fn new(key: &[u8], nonce: &[u8]) -> Self {
                let iv: fn(&[u8]) -> Vec<u8> = $iv;
                let mut ctx = CipherCtx::new().expect("a cipher context");
                ctx.encrypt_init(Some($cipher), Some(key), Some(&iv(nonce)))
                    .expect("the stream adapter passes the declared key and nonce lengths");
                $name(ctx)
            }
            fn apply_keystream(&mut self, buf: &mut [u8]) {
                self.0
                    .cipher_update_inplace(buf, buf.len())
                    .expect("EVP_CipherUpdate fails only on a broken context");
            }
        }
    };
}

stream!(Aes128Ctr, Cipher::aes_128_ctr(), &AES_128_CTR, |nonce| {
    nonce.to_vec()
});
stream!(Aes256Ctr, Cipher::aes_256_ctr(), &AES_256_CTR, |nonce| {
    nonce.to_vec()
});
// OpenSSL's ChaCha20 IV is the 32-bit little-endian block counter, then the 96-bit nonce.
stream!(ChaCha20, Cipher::chacha20(), &CHACHA20, |nonce| [
    &[0u8; 4], nonce
]
.concat());

/// One context per direction, keyed once; each call sets the IV, feeds the associated data
/// and the message in place, and finishes (producing or checking the tag).
pub struct EvpAead {
    encrypt: CipherCtx,
    decrypt: CipherCtx,
}

impl EvpAead {
    fn new(cipher: &CipherRef, key: &[u8]) -> EvpAead {
        let mut encrypt = CipherCtx::new().expect("a cipher context");
        encrypt
            .encrypt_init(Some(cipher), Some(key), None)
            .expect("the AEAD adapter passes the declared key length");
        let mut decrypt = CipherCtx::new().expect("a cipher context");
        decrypt
            .decrypt_init(Some(cipher), Some(key), None)
            .expect("the AEAD adapter passes the declared key length");
        EvpAead { encrypt, decrypt }
    }

    fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let ctx = &mut self.encrypt;
        ctx.encrypt_init(None, None, Some(nonce))
            .expect("the AEAD adapter passes the declared nonce length");
        if !ad.is_empty() {
            ctx.cipher_update(ad, None)
                .expect("associated data is accepted");
        }
        ctx.cipher_update_inplace(buf, buf.len())
            .expect("EVP_CipherUpdate fails only on a broken context");
        ctx.cipher_final(&mut [])
            .expect("an AEAD's encryption always finishes");
        ctx.tag(tag).expect("the tag is 16 bytes");
    }

    fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
        let ctx = &mut self.decrypt;
        ctx.decrypt_init(None, None, Some(nonce))
            .expect("the AEAD adapter passes the declared nonce length");
        ctx.set_tag(tag).expect("the tag is 16 bytes");
        if !ad.is_empty() {
            ctx.cipher_update(ad, None)
                .expect("associated data is accepted");
        }
        ctx.cipher_update_inplace(buf, buf.len())
            .expect("EVP_CipherUpdate fails only on a broken context");
        ctx.cipher_final(&mut []).is_ok()
    }
}

macro_rules! aead {
    ($name:ident, $cipher:expr, $algorithm:expr) => {
        pub struct $name(EvpAead);

        impl AeadCipher for $name {
            const ALGORITHM: &'static AeadAlgorithm = $algorithm;
            fn new(key: &[u8]) -> Self {
                $name(EvpAead::new($cipher, key))
            }
            fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
                self.0.encrypt(nonce, ad, buf, tag);
            }
            fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
                self.0.decrypt(nonce, ad, buf, tag)
            }
        }
    };
}

aead!(Aes128Gcm, Cipher::aes_128_gcm(), &AES_128_GCM);
aead!(Aes256Gcm, Cipher::aes_256_gcm(), &AES_256_GCM);
aead!(
    ChaCha20Poly1305,
    Cipher::chacha20_poly1305(),
    &CHACHA20_POLY1305
);

/// X25519 through `EVP_PKEY`: the secret's derivation context is kept; each `shared` call
/// imports the peer's key (an allocation) as a key exchange must.
pub struct X25519Evp;

fn import(secret: &[u8]) -> PKey<Private> {
    PKey::private_key_from_raw_bytes(secret, Id::X25519)
        .expect("the DH adapter passes 32-byte secrets")
}

impl DhFunction for X25519Evp {
    const ALGORITHM: &'static DhAlgorithm = &X25519;
    type Secret = PkeyCtx<Private>;
    fn secret(bytes: &[u8]) -> PkeyCtx<Private> {
        let mut ctx = PkeyCtx::new(&import(bytes)).expect("a key context");
        ctx.derive_init().expect("X25519 keys derive");
        ctx
    }
    /// OpenSSL computes the public key when the secret is imported; reading it back
    /// allocates the returned vector.
    fn base(secret: &[u8], public: &mut [u8]) {
        let pk = import(secret)
            .raw_public_key()
            .expect("an imported X25519 key has a public key");
        public.copy_from_slice(&pk);
    }
    fn shared(secret: &mut PkeyCtx<Private>, peer: &[u8], out: &mut [u8]) -> bool {
        let Ok(peer) = PKey::public_key_from_raw_bytes(peer, Id::X25519) else {
            return false;
        };
        secret.derive_set_peer(&peer).is_ok() && secret.derive(Some(out)).is_ok()
    }
}
