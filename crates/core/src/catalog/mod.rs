//! The implementations cryptobench can measure.
//!
//! Each *kind* of primitive (stream cipher, RNG, hash, ...) has one small trait in
//! [`kinds`]; a provider implements that trait in one file under the CLI's `providers`, and one
//! line in [`registry`] makes it measurable. The kind's adapter turns the small trait
//! into an [`Implementation`]: a correctness gate plus prepared calls for the sampler.

use crate::record::{Param, Params};

pub mod buffer;
pub mod kinds;
pub mod reference;
pub mod registry;

use std::fmt;

/// What an implementation computes; decides its operations, parameters and units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Hash functions: a fixed-length digest of a `len`-byte message ([`kinds::hash`]).
    Hash,
    /// Extendable-output functions: `out` bytes from a `len`-byte message ([`kinds::xof`],
    /// [`kinds::xof_lanes`]).
    Xof,
    /// Stream ciphers: a `len`-byte message XORed with the keystream ([`kinds::stream`]).
    Stream,
    /// Authenticated encryption with associated data ([`kinds::aead`]).
    Aead,
    /// One block cipher call or one permutation, timed per call ([`kinds::core`]).
    Core,
    /// Key encapsulation mechanisms, timed per call ([`kinds::kem`]).
    Kem,
    /// Diffie-Hellman functions, timed per call ([`kinds::dh`]).
    Dh,
    /// Seeded random number generators filling `len` bytes ([`kinds::rng`]).
    Rng,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Kind::Hash => "hash",
            Kind::Xof => "xof",
            Kind::Stream => "stream",
            Kind::Aead => "aead",
            Kind::Core => "core",
            Kind::Kem => "kem",
            Kind::Dh => "dh",
            Kind::Rng => "rng",
        };
        f.write_str(name)
    }
}

/// One operation an implementation offers, with the parameters it takes.
#[derive(Clone, Copy, Debug)]
pub struct Operation {
    /// The name [`Implementation::prepare`] takes, e.g. `encrypt` or `xor`.
    pub name: &'static str,
    /// The parameters it takes, e.g. `[Param::Len]`; cycles-per-byte figures divide by
    /// `len` plus `out` where they are present (`Case::bytes`).
    pub params: &'static [Param],
}

/// A call ready to be timed: inputs prepared, state initialised.
///
/// `call` is the whole timed region; it must not allocate, print or check results.
pub trait Call {
    /// Run the operation once on the prepared inputs.
    fn call(&mut self);

    /// After timing: the call made once more, untimed, and what it showed, if anything
    /// is amiss (its samples may then be of failing calls, or of wrong results, and the
    /// case is refused). For a C function: its status, and its output against the
    /// output of the untimed call made before timing.
    fn after_timing(&mut self) -> Option<AfterTiming> {
        None
    }
}

/// What the call made once more after timing showed: why the samples are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterTiming {
    /// It reported failure (a C function's non-zero status).
    Failed(String),
    /// It gave other output than the untimed call before timing, on the same inputs.
    Wrong(String),
}

/// Why an implementation's output was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{check}: {detail}")]
pub struct Mismatch {
    /// Which check failed, e.g. "RFC 8439 section 2.4.2 test vector".
    pub check: String,
    /// What went wrong, e.g. the first differing byte and both lengths.
    pub detail: String,
}

impl Mismatch {
    /// The refusal of check `check`, with `detail` saying what went wrong.
    pub fn new(check: impl Into<String>, detail: impl Into<String>) -> Self {
        Mismatch {
            check: check.into(),
            detail: detail.into(),
        }
    }

    /// Compare two byte strings; on difference name the first differing offset.
    pub fn check_bytes(check: &str, got: &[u8], want: &[u8]) -> Result<(), Mismatch> {
        if got == want {
            return Ok(());
        }
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        // The bytes from the first difference, so that a wrong vector or a wrong build
        // can be told apart without a debugger.
        let from = |b: &[u8]| {
            let end = b.len().min(at + 8);
            let shown = hex::encode(&b[at.min(end)..end]);
            let more = if end < b.len() { "..." } else { "" };
            if shown.is_empty() {
                "nothing".to_string()
            } else {
                format!("{shown}{more}")
            }
        };
        Err(Mismatch::new(
            check,
            format!(
                "output differs at byte {at} (got {} bytes, expected {}): from there got {}, expected {}",
                got.len(),
                want.len(),
                from(got),
                from(want)
            ),
        ))
    }
}

/// Errors preparing a call: bad parameters for this operation, or a call that fails.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The implementation offers no operation of this name.
    #[error("`{implementation}` has no operation `{operation}` (it offers: {offered})")]
    UnknownOperation {
        /// `provider/algorithm` of the implementation asked.
        implementation: String,
        /// The operation asked for.
        operation: String,
        /// The operations it does offer, comma-separated.
        offered: String,
    },
    /// The parameters given lack one that the operation needs.
    #[error("`{implementation}/{operation}` needs parameter `{param}`")]
    MissingParam {
        /// `provider/algorithm` of the implementation asked.
        implementation: String,
        /// The operation being prepared.
        operation: String,
        /// The missing parameter, e.g. `len`.
        param: &'static str,
    },
    /// This CPU cannot run the implementation: why, in words that name the
    /// implementation and what it lacks (as [`Implementation::unsupported`] says it).
    #[error("{0}")]
    Unsupported(String),
    /// The call itself fails with these parameters (a C function's error status): timing
    /// it would time a function that gives up at once.
    #[error("{0}")]
    Failed(String),
}

/// Something cryptobench can measure: a correctness gate and prepared calls.
pub trait Implementation: Send + Sync {
    /// Who wrote the code, e.g. `rustcrypto`, `openssl`, `rand_chacha`.
    fn provider(&self) -> &str;
    /// The algorithm, e.g. `chacha20`, `chacha20-rng`, `aes-128-gcm`.
    fn algorithm(&self) -> &str;
    /// Which kind of primitive it is: decides its operations, parameters and units.
    fn kind(&self) -> Kind;
    /// The operations it offers, each with the parameters it needs.
    fn operations(&self) -> &[Operation];
    /// Known-answer tests or cross-checks; an implementation that fails is never timed.
    fn verify(&self) -> Result<(), Mismatch>;
    /// The gate at one parameter point a run measures, `operation` at `params`: the
    /// output of a call there against the algorithm's reference, where it has one.
    /// [`verify`](Implementation::verify) checks the lengths where bugs usually hide; a
    /// run measures others (a path for 4 KiB pages can be wrong at 4096 bytes alone), and
    /// what it times must have been checked. None by default: kinds whose operations take
    /// no parameters have only the points `verify` checks.
    fn verify_at(&self, _operation: &str, _params: &Params) -> Result<(), Mismatch> {
        Ok(())
    }
    /// Why this CPU cannot run the implementation, if it cannot; it is then never run.
    fn unsupported(&self) -> Option<String> {
        None
    }
    /// What is wrong in the description of its algorithm (a crate's own): lengths of 0,
    /// vectors that are not hex or not of the algorithm's lengths. A bench refuses such
    /// an implementation before anything runs.
    fn description_faults(&self) -> Vec<String> {
        Vec::new()
    }
    /// Checks the gate could not make (e.g. a missing KAT file), for the report to say.
    fn caveats(&self) -> Vec<String> {
        Vec::new()
    }
    /// Independent inputs one call processes: N for an N-lane implementation. Bytes per
    /// call, and the lane table, count them.
    fn lanes(&self) -> usize {
        1
    }
    /// Build a ready-to-time call of `operation` with `params`.
    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError>;

    /// Which of several code paths runs, where the implementation picks one per CPU
    /// (`cryptobench/shake128-x2@avx512vl`): said in the name after `@`, so that a figure
    /// is credited to the path that ran on that host.
    fn path(&self) -> Option<&str> {
        None
    }

    /// `provider/algorithm` (`@path` where it has one), the name users filter on.
    fn name(&self) -> String {
        let name = crate::name::ImplName::new(self.provider(), self.algorithm());
        match self.path() {
            Some(path) => name.at(path).to_string(),
            None => name.to_string(),
        }
    }

    /// The offered operation named `name`, or [`PrepareError::UnknownOperation`]
    /// listing those it offers.
    fn operation(&self, name: &str) -> Result<&Operation, PrepareError> {
        self.operations()
            .iter()
            .find(|op| op.name == name)
            .ok_or_else(|| PrepareError::UnknownOperation {
                implementation: self.name(),
                operation: name.to_string(),
                offered: self
                    .operations()
                    .iter()
                    .map(|op| op.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// Deterministic, non-trivial bytes for inputs (keys, messages): 00 01 02 ... as the
/// LWC and SUPERCOP harnesses use, so results never depend on a random source.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason is the message: it already names the implementation and what it lacks
    /// (once "`x2-avx512vl: not supported on this CPU (…)` is not supported on this CPU").
    #[test]
    fn an_unsupported_implementation_is_said_once() {
        let why = "x2-avx512vl: not supported on this CPU (needs avx512f+avx512vl)";
        assert_eq!(PrepareError::Unsupported(why.into()).to_string(), why);
    }
}
