//! One file per provider: each implements the kind traits for its library's types and
//! registers them.

pub mod rand_chacha;
pub mod rustcrypto;
pub mod testing;
