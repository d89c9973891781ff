//! Diffie-Hellman functions: `base` computes the public key of a secret (fixed-base
//! scalar multiplication), `shared` the shared secret with a peer's public key
//! (variable-base). Timed per call, with no parameters.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::unhex;
use crate::record::Params;

/// What a provider implements for a Diffie-Hellman function.
pub trait DhFunction: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static DhAlgorithm;
    /// A secret key in the library's own form, imported before timing.
    type Secret: Send;
    /// Import a secret key from its `secret_len` bytes.
    fn secret(bytes: &[u8]) -> Self::Secret;
    /// The public key of the secret `secret`, starting from its bytes: the EVP-style
    /// libraries compute the public key when a secret is imported, so the import is part
    /// of the operation.
    fn base(secret: &[u8], public: &mut [u8]);
    /// The shared secret of `secret` and the peer's public key as received (bytes);
    /// `false` if the library refuses the result (e.g. an all-zero one). `secret` is
    /// mutable so that a library can keep its context with the key.
    fn shared(secret: &mut Self::Secret, peer: &[u8], out: &mut [u8]) -> bool;
}

/// The facts about an algorithm that every provider of it shares.
pub struct DhAlgorithm {
    /// The algorithm's name, e.g. `x25519`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// Secret key length in bytes.
    pub secret_len: usize,
    /// Public key length in bytes, which is also the shared secret's.
    pub public_len: usize,
    /// The base point `base` multiplies, hex-encoded as a public key.
    pub base_point: &'static str,
    /// Published scalar multiplications: (source, scalar, point, result), hex-encoded.
    pub multiplications: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// Published iterations from the base point: k, u <- f(k, u), k (RFC 7748's
    /// "iterated" test): (source, iterations, final k).
    pub iterated: &'static [(&'static str, usize, &'static str)],
    /// Published key exchanges.
    pub exchanges: &'static [DhExchange],
}

/// A published key exchange between A and B, hex-encoded.
pub struct DhExchange {
    /// Where the exchange is published; failing checks name it.
    pub source: &'static str,
    /// A's secret key.
    pub secret_a: &'static str,
    /// A's public key.
    pub public_a: &'static str,
    /// B's secret key.
    pub secret_b: &'static str,
    /// B's public key.
    pub public_b: &'static str,
    /// The shared secret both compute.
    pub shared: &'static str,
}

/// Every value was also checked against Python's `cryptography` package.
pub static X25519: DhAlgorithm = DhAlgorithm {
    name: "x25519",
    secret_len: 32,
    public_len: 32,
    base_point: "0900000000000000000000000000000000000000000000000000000000000000",
    multiplications: &[
        (
            "RFC 7748 section 5.2, first vector",
            "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
        ),
        (
            // Its point has the top bit set, which X25519 must ignore.
            "RFC 7748 section 5.2, second vector",
            "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
            "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957",
        ),
    ],
    iterated: &[
        (
            "RFC 7748 section 5.2, 1 iteration",
            1,
            "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079",
        ),
        (
            "RFC 7748 section 5.2, 1000 iterations",
            1000,
            "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51",
        ),
    ],
    exchanges: &[DhExchange {
        source: "RFC 7748 section 6.1",
        secret_a: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
        public_a: "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
        secret_b: "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
        public_b: "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
        shared: "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742",
    }],
};

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&DhAlgorithm; 1] = [&X25519];

/// The algorithm called `name`, if the gate knows its answers.
pub fn algorithm(name: &str) -> Option<&'static DhAlgorithm> {
    ALL.into_iter().find(|a| a.name == name)
}

/// A shared-secret computation under test: (what is checked, secret, peer) -> result.
pub type SharedFn<'a> = &'a dyn Fn(&str, &[u8], &[u8]) -> Result<Vec<u8>, Mismatch>;

/// The gate of every X25519-like function, Rust or C: the algorithm's published
/// multiplications, iterations and exchanges, and `base` equal to `shared` with the base
/// point. `shared` takes what is being checked, for its error.
pub fn check(
    alg: &DhAlgorithm,
    base: &dyn Fn(&[u8]) -> Vec<u8>,
    shared: SharedFn,
) -> Result<(), Mismatch> {
    for (source, scalar, point, result) in alg.multiplications {
        let got = shared(source, &unhex(scalar), &unhex(point))?;
        Mismatch::check_bytes(source, &got, &unhex(result))?;
    }
    for (source, iterations, result) in alg.iterated {
        let (mut k, mut u) = (unhex(alg.base_point), unhex(alg.base_point));
        for _ in 0..*iterations {
            let next = shared(source, &k, &u)?;
            u = std::mem::replace(&mut k, next);
        }
        Mismatch::check_bytes(source, &k, &unhex(result))?;
    }
    for x in alg.exchanges {
        let (a, b) = (unhex(x.secret_a), unhex(x.secret_b));
        Mismatch::check_bytes(
            &format!("{}: public key A", x.source),
            &base(&a),
            &unhex(x.public_a),
        )?;
        Mismatch::check_bytes(
            &format!("{}: public key B", x.source),
            &base(&b),
            &unhex(x.public_b),
        )?;
        let want = unhex(x.shared);
        Mismatch::check_bytes(
            &format!("{}: shared secret of A", x.source),
            &shared(x.source, &a, &unhex(x.public_b))?,
            &want,
        )?;
        Mismatch::check_bytes(
            &format!("{}: shared secret of B", x.source),
            &shared(x.source, &b, &unhex(x.public_a))?,
            &want,
        )?;
    }
    // `base` must be `shared` with the base point, for secrets of every shape.
    for i in 0..8u8 {
        let secret: Vec<u8> = pattern(alg.secret_len)
            .iter()
            .map(|b| b.wrapping_mul(29).wrapping_add(i.wrapping_mul(41)))
            .collect();
        let what = format!(
            "base point multiplication of secret {}",
            hex::encode(&secret)
        );
        let via_shared = shared(&what, &secret, &unhex(alg.base_point))?;
        Mismatch::check_bytes(&what, &base(&secret), &via_shared)?;
    }
    Ok(())
}

/// The operations every implementation of this kind offers (C builds included).
pub const OPERATIONS: &[Operation] = &[
    Operation {
        name: "base",
        params: &[],
    },
    Operation {
        name: "shared",
        params: &[],
    },
];

/// Any [`DhFunction`] as an [`Implementation`].
pub struct Dh<D> {
    provider: &'static str,
    dh: PhantomData<fn() -> D>,
}

impl<D: DhFunction> Dh<D> {
    /// The adapter for `D`, credited to `provider` (e.g. `dalek`).
    pub const fn new(provider: &'static str) -> Self {
        Dh {
            provider,
            dh: PhantomData,
        }
    }
}

fn shared<D: DhFunction>(what: &str, secret: &[u8], peer: &[u8]) -> Result<Vec<u8>, Mismatch> {
    let mut out = vec![0u8; D::ALGORITHM.public_len];
    if D::shared(&mut D::secret(secret), peer, &mut out) {
        Ok(out)
    } else {
        Err(Mismatch::new(
            what,
            "the library refused to compute the shared secret",
        ))
    }
}

fn base<D: DhFunction>(secret: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; D::ALGORITHM.public_len];
    D::base(secret, &mut out);
    out
}

impl<D: DhFunction> Implementation for Dh<D> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        D::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Dh
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn verify(&self) -> Result<(), Mismatch> {
        check(D::ALGORITHM, &base::<D>, &shared::<D>)
    }

    fn prepare(&self, operation: &str, _params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        let op = self.operation(operation)?.name;
        let alg = D::ALGORITHM;
        let secret = pattern(alg.secret_len);
        let out = vec![0u8; alg.public_len];
        if op == "base" {
            return Ok(Box::new(BaseCall::<D> {
                secret,
                out,
                dh: PhantomData,
            }));
        }
        // The peer's key is a real public key, as it would be in a key exchange.
        let peer_secret: Vec<u8> = secret.iter().map(|b| b ^ 0xa5).collect();
        Ok(Box::new(SharedCall::<D> {
            secret: D::secret(&secret),
            peer: base::<D>(&peer_secret),
            out,
        }))
    }
}

struct BaseCall<D> {
    secret: Vec<u8>,
    out: Vec<u8>,
    dh: PhantomData<fn() -> D>,
}

impl<D: DhFunction> Call for BaseCall<D> {
    #[inline(never)]
    fn call(&mut self) {
        D::base(black_box(&self.secret), black_box(&mut self.out));
    }
}

struct SharedCall<D: DhFunction> {
    secret: D::Secret,
    peer: Vec<u8>,
    out: Vec<u8>,
}

impl<D: DhFunction> Call for SharedCall<D> {
    #[inline(never)]
    fn call(&mut self) {
        black_box(D::shared(
            black_box(&mut self.secret),
            black_box(&self.peer),
            black_box(&mut self.out),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dalek(k: &[u8], u: &[u8]) -> [u8; 32] {
        x25519_dalek::x25519(
            k.try_into().expect("32-byte scalar"),
            u.try_into().expect("32-byte point"),
        )
    }

    /// Right shared secrets, but public keys from the point u = 10 instead of 9.
    struct WrongBasePoint;

    impl DhFunction for WrongBasePoint {
        const ALGORITHM: &'static DhAlgorithm = &X25519;
        type Secret = Vec<u8>;
        fn secret(bytes: &[u8]) -> Vec<u8> {
            bytes.to_vec()
        }
        fn base(secret: &[u8], public: &mut [u8]) {
            let mut ten = [0u8; 32];
            ten[0] = 10;
            public.copy_from_slice(&dalek(secret, &ten));
        }
        fn shared(secret: &mut Vec<u8>, peer: &[u8], out: &mut [u8]) -> bool {
            out.copy_from_slice(&dalek(secret, peer));
            true
        }
    }

    /// Refuses a result whose first byte is zero, as if it were the all-zero output.
    struct Squeamish;

    impl DhFunction for Squeamish {
        const ALGORITHM: &'static DhAlgorithm = &X25519;
        type Secret = Vec<u8>;
        fn secret(bytes: &[u8]) -> Vec<u8> {
            bytes.to_vec()
        }
        fn base(secret: &[u8], public: &mut [u8]) {
            public.copy_from_slice(&dalek(secret, &unhex(X25519.base_point)));
        }
        fn shared(secret: &mut Vec<u8>, peer: &[u8], out: &mut [u8]) -> bool {
            out.copy_from_slice(&dalek(secret, peer));
            out[0] != 0 && out[0] & 0xf0 != 0x60
        }
    }

    #[test]
    fn the_gate_refuses_broken_functions() {
        let err = Dh::<WrongBasePoint>::new("test").verify().unwrap_err();
        assert!(err.check.contains("public key A"), "{err}");
        let err = Dh::<Squeamish>::new("test").verify().unwrap_err();
        assert!(err.detail.contains("refused"), "{err}");
    }
}
