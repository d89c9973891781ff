//! One small trait per kind of primitive, and the adapter that makes any implementor of
//! it an [`Implementation`](super::Implementation).

pub mod rng;
pub mod stream;
