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
