//! One small trait per kind of primitive, and the adapter that makes any implementor of
//! it an [`Implementation`](super::Implementation).

pub mod aead;
pub mod core;
pub mod dh;
pub mod hash;
pub mod kem;
pub mod rng;
pub mod stream;
pub mod xof;
pub mod xof_lanes;

use super::{Implementation, Params, PrepareError};

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("built-in test vectors are valid hex")
}

/// The value of parameter `name`, or the error that names what is missing.
fn param(
    imp: &dyn Implementation,
    operation: &str,
    params: &Params,
    name: &'static str,
) -> Result<usize, PrepareError> {
    params
        .get(name)
        .map(|v| v as usize)
        .ok_or(PrepareError::MissingParam {
            implementation: imp.name(),
            operation: operation.to_string(),
            param: name,
        })
}

/// Every length up to two blocks of `block` bytes (so every padding case of a hash and
/// every partial block of a cipher), the third block's boundary, and a few long ones.
fn boundary_lengths(block: usize) -> Vec<usize> {
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
