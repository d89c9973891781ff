//! `x25519-dalek` (dalek-cryptography, on `curve25519-dalek`): X25519. Named for its
//! authors rather than RustCrypto, whose crates it is often grouped with.
//!
//! `base` uses the precomputed basepoint table (`PublicKey::from`), `shared` the
//! Montgomery ladder; both take a `StaticSecret`, whose import is a copy.

use x25519_dalek::{PublicKey, StaticSecret};

use cryptobench_core::catalog::kinds::dh::{Dh, DhAlgorithm, DhFunction, X25519};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Dh::<X25519Dalek>::new("dalek"));
}

/// The crates every implementation registered here comes from, whatever its algorithm.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["x25519-dalek"]
}

pub struct X25519Dalek;

fn array(bytes: &[u8]) -> [u8; 32] {
    bytes
        .try_into()
        .expect("the DH adapter passes 32-byte keys")
}

impl DhFunction for X25519Dalek {
    const ALGORITHM: &'static DhAlgorithm = &X25519;
    type Secret = StaticSecret;
    fn secret(bytes: &[u8]) -> StaticSecret {
        StaticSecret::from(array(bytes))
    }
    fn base(secret: &[u8], public: &mut [u8]) {
        public.copy_from_slice(PublicKey::from(&Self::secret(secret)).as_bytes());
    }
    fn shared(secret: &mut StaticSecret, peer: &[u8], out: &mut [u8]) -> bool {
        out.copy_from_slice(
            secret
                .diffie_hellman(&PublicKey::from(array(peer)))
                .as_bytes(),
        );
        true
    }
}
