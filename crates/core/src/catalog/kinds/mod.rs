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
