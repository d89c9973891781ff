//! One file per provider: each implements the kind traits for its library's types and
//! registers them.

pub mod aws_lc_rs;
pub mod dalek;
pub mod keccak_lanes;
pub mod libcrux;
pub mod openssl;
pub mod rand_chacha;
pub mod ring;
pub mod rustcrypto;
pub mod testing;
