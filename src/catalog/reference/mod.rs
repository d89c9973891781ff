//! Slow, obviously-correct reference implementations written from the standards.
//!
//! They exist only to check the implementations under test: a library is never checked
//! against itself.

pub mod chacha20;
