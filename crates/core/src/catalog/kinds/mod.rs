//! One small trait per kind of primitive, and the adapter that makes any implementor of
//! it an [`Implementation`].

pub mod aead;
pub mod core;
pub mod dh;
pub mod hash;
pub mod kem;
pub mod rng;
pub mod stream;
pub mod xof;
pub mod xof_lanes;

use super::{Implementation, Mismatch, PrepareError};
use crate::record::{Param, Params};

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("built-in test vectors are valid hex")
}

/// What is wrong in an algorithm's description (a crate's own, given to its bench):
/// lengths of 0, fields that are not hex or not as long as the algorithm's lengths say.
/// Said in one line before anything runs, where the gate would panic on it or blame
/// the implementation.
pub(crate) struct Faults {
    found: Vec<String>,
}

impl Faults {
    pub(crate) fn new() -> Faults {
        Faults { found: Vec::new() }
    }

    /// A length the algorithm must not have as 0.
    pub(crate) fn positive(&mut self, field: &str, len: usize) {
        if len == 0 {
            self.found.push(format!("its {field} is 0"));
        }
    }

    /// `value`, the `field` of vector `i` (published in `source`), is hex of `want`
    /// bytes (`want.1` names where that length comes from) or of any length; its length.
    pub(crate) fn hex(
        &mut self,
        (i, source): (usize, &str),
        field: &str,
        value: &str,
        want: Option<(usize, &str)>,
    ) -> Option<usize> {
        let at = format!("vectors[{i}] ({source})");
        match hex::decode(value) {
            Err(e) => {
                self.found
                    .push(format!("{at}: its {field} is not hex ({e})"));
                None
            }
            Ok(bytes) => {
                if let Some((len, named)) = want.filter(|(len, _)| *len != bytes.len()) {
                    self.found.push(format!(
                        "{at}: its {field} is {} bytes, where {named} says {len}",
                        bytes.len()
                    ));
                }
                Some(bytes.len())
            }
        }
    }

    /// Anything else wrong in vector `i`.
    pub(crate) fn vector(&mut self, (i, source): (usize, &str), fault: String) {
        self.found.push(format!("vectors[{i}] ({source}): {fault}"));
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.found
    }
}

/// The value of parameter `name`, or the error that names what is missing.
fn param(
    imp: &dyn Implementation,
    operation: &str,
    params: &Params,
    name: Param,
) -> Result<usize, PrepareError> {
    params
        .get(name)
        .map(|v| v as usize)
        .ok_or(PrepareError::MissingParam {
            implementation: imp.name(),
            operation: operation.to_string(),
            param: name.name(),
        })
}

/// The gate's refusal, in `check`, of an implementation that would not compute: `why` is
/// a C function's name and return code (a Rust implementation never refuses).
fn refused(check: &str) -> impl FnOnce(String) -> Mismatch + '_ {
    move |why| Mismatch::new(check, why)
}

/// What the gate of an algorithm without a reference function could not check (it is
/// then timed and reported as checked in part): none where there is a reference, else
/// that it was checked only against its `vectors` and for `agreeing` with itself.
fn checked_in_part(
    imp: &dyn Implementation,
    has_reference: bool,
    vectors: usize,
    agreeing: &str,
) -> Vec<String> {
    let name = imp.name();
    match (has_reference, vectors) {
        (true, _) => Vec::new(),
        (false, 0) => vec![format!(
            "{name}: no vectors and no reference function; only checked that {agreeing}"
        )],
        (false, n) => vec![format!(
            "{name}: no reference function; checked against {n} vector(s) of its own, and that {agreeing}"
        )],
    }
}

/// Every length up to two blocks of `block` bytes (so every padding case of a hash and
/// every partial block of a cipher), the third block's boundary, and a few long ones.
pub fn boundary_lengths(block: usize) -> Vec<usize> {
    let mut lens: Vec<usize> = (0..=2 * block + 1).collect();
    lens.extend([
        3 * block - 1,
        3 * block,
        3 * block + 1,
        1000,
        16_384,
        16_385,
    ]);
    lens
}

/// The block size to take for an algorithm the gate has no facts about (a C build of an
/// algorithm of its own): its [`boundary_lengths`] take in every partial block of 8-,
/// 16-, 32- and 64-byte blocks.
pub const UNKNOWN_BLOCK_LEN: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogs_descriptions_have_no_faults() {
        let faults: Vec<Vec<String>> = (hash::ALL.iter().map(|a| a.faults()))
            .chain(stream::ALL.iter().map(|a| a.faults()))
            .chain(xof::ALL.iter().map(|a| a.faults()))
            .chain(core::ALL.iter().map(|a| a.faults()))
            .chain(aead::ALL.iter().map(|a| a.faults()))
            .collect();
        assert!(faults.iter().all(Vec::is_empty), "{faults:?}");
    }

    /// Where each test implementation below is wrong: a length the gate's own pass over.
    const WRONG_AT: usize = 4000;

    fn flip_if_wrong_at(len: usize, out: &mut [u8]) {
        if len == WRONG_AT {
            out[0] ^= 1;
        }
    }

    /// ChaCha20 from the reference, continuing its keystream, wrong at [`WRONG_AT`].
    struct StreamWrongAt(Vec<u8>, Vec<u8>, usize);

    impl stream::StreamCipher for StreamWrongAt {
        const ALGORITHM: &'static stream::StreamAlgorithm = &stream::CHACHA20;
        fn new(key: &[u8], nonce: &[u8]) -> Self {
            StreamWrongAt(key.to_vec(), nonce.to_vec(), 0)
        }
        fn apply_keystream(&mut self, buf: &mut [u8]) {
            let reference = stream::CHACHA20.reference.expect("ChaCha20 has one");
            let ks = reference(&self.0, &self.1, self.2 + buf.len());
            buf.iter_mut().zip(&ks[self.2..]).for_each(|(b, k)| *b ^= k);
            self.2 += buf.len();
            flip_if_wrong_at(buf.len(), buf);
        }
    }

    struct XofWrongAt;

    impl xof::XofFunction for XofWrongAt {
        const ALGORITHM: &'static xof::XofAlgorithm = &xof::SHAKE128;
        fn new() -> Self {
            XofWrongAt
        }
        fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
            out.copy_from_slice(&(xof::SHAKE128.reference)(msg, out.len()));
            if !out.is_empty() {
                flip_if_wrong_at(msg.len(), out);
            }
        }
    }

    struct AeadWrongAt(Vec<u8>);

    impl aead::AeadCipher for AeadWrongAt {
        const ALGORITHM: &'static aead::AeadAlgorithm = &aead::CHACHA20_POLY1305;
        fn new(key: &[u8]) -> Self {
            AeadWrongAt(key.to_vec())
        }
        fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
            let (ct, t) = (aead::CHACHA20_POLY1305.reference)(&self.0, nonce, ad, buf);
            buf.copy_from_slice(&ct);
            tag.copy_from_slice(&t);
            flip_if_wrong_at(buf.len(), buf);
        }
        fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
            let seal = aead::CHACHA20_POLY1305.reference;
            let (msg, _) = seal(&self.0, nonce, ad, buf);
            if seal(&self.0, nonce, ad, &msg).1 != tag {
                return false;
            }
            buf.copy_from_slice(&msg);
            true
        }
    }

    struct RngWrongAt([u8; 32], usize);

    impl rng::SeededRng for RngWrongAt {
        const ALGORITHM: &'static rng::RngAlgorithm = &rng::CHACHA20_RNG;
        fn from_seed(seed: [u8; 32]) -> Self {
            RngWrongAt(seed, 0)
        }
        fn fill_bytes(&mut self, buf: &mut [u8]) {
            let stream = (rng::CHACHA20_RNG.reference)(&self.0, self.1 + buf.len());
            buf.copy_from_slice(&stream[self.1..]);
            self.1 += buf.len();
            flip_if_wrong_at(buf.len(), buf);
        }
    }

    /// Each kind's gate passes what is wrong at one length alone, and its check at the
    /// points a run measures refuses it there: a run never times it.
    #[test]
    fn every_kind_checks_the_output_at_a_measured_point() {
        let implementations: [(Box<dyn Implementation>, Params); 4] = [
            (
                Box::new(stream::Stream::<StreamWrongAt>::new("t")),
                Params::new(),
            ),
            (
                Box::new(xof::Xof::<XofWrongAt>::new("t")),
                Params::new().with(Param::Out, 32),
            ),
            (
                Box::new(aead::Aead::<AeadWrongAt>::new("t")),
                Params::new().with(Param::Ad, 13),
            ),
            (Box::new(rng::Rng::<RngWrongAt>::new("t")), Params::new()),
        ];
        for (imp, params) in implementations {
            let name = imp.name();
            imp.verify().unwrap_or_else(|e| panic!("{name}: {e}"));
            let operation = imp.operations()[0].name;
            let at = |len| params.clone().with(Param::Len, len);
            imp.verify_at(operation, &at(1024))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let err = imp.verify_at(operation, &at(WRONG_AT as u64)).unwrap_err();
            assert!(err.check.contains(&format!("{WRONG_AT}")), "{name}: {err}");
        }
    }

    #[test]
    fn a_description_with_bad_hex_or_lengths_says_where() {
        static BAD: hash::HashAlgorithm = hash::HashAlgorithm {
            name: "mine",
            out_len: 32,
            block_len: 0,
            vectors: &[
                hash::HashVector {
                    source: "my vector",
                    text: "abc",
                    repeat: 1,
                    digest: "zz",
                },
                hash::HashVector {
                    source: "short",
                    text: "\u{1e3}",
                    repeat: 1,
                    digest: "00ff",
                },
            ],
            reference: None,
        };
        let faults = BAD.faults();
        assert_eq!(faults.len(), 4, "{faults:?}");
        assert_eq!(faults[0], "its block_len is 0");
        assert!(
            faults[1].starts_with("vectors[0] (my vector): its digest is not hex"),
            "{faults:?}"
        );
        assert_eq!(
            faults[2],
            "vectors[1] (short): its digest is 2 bytes, where out_len says 32"
        );
        assert!(faults[3].contains("stands for no byte"), "{faults:?}");
    }
}
