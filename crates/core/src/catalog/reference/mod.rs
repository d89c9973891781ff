//! Slow, obviously-correct reference implementations written from the standards.
//!
//! They exist only to check the implementations under test: a library is never checked
//! against itself.

pub mod aes;
pub mod chacha20;
pub mod chacha20poly1305;
pub mod keccak;
pub mod ml_kem;
pub mod sha2;
