//! One thing to measure: an implementation's operation at its parameters, and how
//! its measuring ended.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{Result, bail};

/// A parameter an operation takes: what a case varies besides its implementation and
/// operation. Stored and printed by [`Param::name`], which is part of every case's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Param {
    /// Message bytes per call (per lane, for an N-lane implementation).
    Len,
    /// Output bytes per call of an extendable-output function.
    Out,
    /// Associated-data bytes per call of an AEAD (not counted in bytes per call).
    Ad,
    /// Threads of a bulk run.
    Threads,
}

impl Param {
    /// Every parameter.
    pub const ALL: [Param; 4] = [Param::Len, Param::Out, Param::Ad, Param::Threads];

    /// The name cases are keyed, stored and printed by: `len`, `out`, `ad`, `threads`.
    pub const fn name(self) -> &'static str {
        match self {
            Param::Len => "len",
            Param::Out => "out",
            Param::Ad => "ad",
            Param::Threads => "threads",
        }
    }

    /// The parameter named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Named non-negative integer parameters, kept in name order so that the textual form
/// (part of a case's stable id) never depends on insertion order. Set and read by
/// [`Param`]; kept by name, so that a stored case with a parameter this version does not
/// know still reads, prints and keys as it was stored.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Params(BTreeMap<String, u64>);

impl Params {
    /// No parameters.
    pub fn new() -> Self {
        Params::default()
    }

    /// These parameters with `param` set to `value` (replacing any earlier value).
    pub fn with(mut self, param: Param, value: u64) -> Self {
        self.0.insert(param.name().to_string(), value);
        self
    }

    /// The value of `param`, if set.
    pub fn get(&self, param: Param) -> Option<u64> {
        self.0.get(param.name()).copied()
    }

    /// The value of the parameter named `name`, known to this version or not (a stored
    /// case keeps the names it was stored with; reports show them all).
    pub fn get_named(&self, name: &str) -> Option<u64> {
        self.0.get(name).copied()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The parameters as `(name, value)`, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (k, v) in &self.0 {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// One thing to measure: an implementation's operation with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Case {
    /// The implementation's name (see [`crate::name::ImplName`]), e.g.
    /// `rustcrypto/chacha20`.
    pub implementation: String,
    /// The operation measured, e.g. `xor` or `hash`.
    pub operation: String,
    /// The operation's parameters, e.g. `len` (message bytes) and `out` (XOF output
    /// bytes).
    pub params: Params,
    /// Independent inputs one call processes: N for an N-lane implementation (each lane
    /// its own message), else 1. The implementation's to say, not its name's.
    #[serde(default = "one_lane")]
    pub lanes: usize,
}

fn one_lane() -> usize {
    1
}

impl Case {
    /// One call of a single-lane implementation's `operation` at `params`.
    pub fn new(implementation: &str, operation: &str, params: Params) -> Case {
        Case {
            implementation: implementation.into(),
            operation: operation.into(),
            params,
            lanes: 1,
        }
    }

    /// The stable id every comparison and filter keys on,
    /// e.g. `rustcrypto/chacha20/xor len=16384`.
    pub fn key(&self) -> String {
        if self.params.is_empty() {
            format!("{}/{}", self.implementation, self.operation)
        } else {
            format!("{}/{} {}", self.implementation, self.operation, self.params)
        }
    }

    /// The bytes one call processes, which cycles-per-byte divides by, where the operation
    /// has them: the message (`len`), plus the output of an extendable-output function
    /// (`out`), times the lanes of an N-lane implementation (each lane takes its own
    /// message). Associated data is not counted, as in SUPERCOP's and OpenSSL's figures.
    /// Saturating: a plan's sizes are capped far below overflow
    /// ([`crate::size::MAX_PER_CALL`]), and any past it must never read as a few bytes.
    pub fn bytes(&self) -> Option<u64> {
        let lanes = self.lanes as u64;
        match (self.params.get(Param::Len), self.params.get(Param::Out)) {
            (None, None) => None,
            (len, out) => Some(
                len.unwrap_or(0)
                    .saturating_add(out.unwrap_or(0))
                    .saturating_mul(lanes),
            ),
        }
    }
}

/// The implementation name a bulk run's memory reference (memcpy) is stored under.
pub const MEMCPY: &str = "memcpy";

/// Where a case's measuring stands, or why it was not timed; stored in lowercase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseStatus {
    /// No samples yet: not measured so far (or never, when a run was interrupted).
    Pending,
    /// Samples stored.
    Ok,
    /// Wrong output: found by the correctness gate (not timed), or by the call made after
    /// timing (its samples are not reported).
    Wrong,
    /// The worker crashed, hung or could not load the implementation, in the gate or
    /// while measuring.
    Failed,
    /// This CPU (or the simulator, counting instructions) lacks what the implementation
    /// needs.
    Unsupported,
}

impl CaseStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CaseStatus::Pending => "pending",
            CaseStatus::Ok => "ok",
            CaseStatus::Wrong => "wrong",
            CaseStatus::Failed => "failed",
            CaseStatus::Unsupported => "unsupported",
        }
    }
    /// The status stored as `s`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "pending" => CaseStatus::Pending,
            "ok" => CaseStatus::Ok,
            "wrong" => CaseStatus::Wrong,
            "failed" => CaseStatus::Failed,
            "unsupported" => CaseStatus::Unsupported,
            other => bail!("unknown case status `{other}` in the store"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_keys_are_stable() {
        let c = Case::new(
            "openssl/aes-128-gcm",
            "encrypt",
            Params::new().with(Param::Len, 16384).with(Param::Ad, 0),
        );
        assert_eq!(c.key(), "openssl/aes-128-gcm/encrypt ad=0 len=16384");
        assert_eq!(c.bytes(), Some(16384));
    }

    #[test]
    fn an_n_lane_call_processes_every_lanes_input_and_output() {
        let xof = |lanes| Case {
            lanes,
            ..Case::new(
                "any/shake128",
                "xof",
                Params::new().with(Param::Len, 672).with(Param::Out, 42),
            )
        };
        assert_eq!(xof(1).bytes(), Some(714));
        assert_eq!(xof(4).bytes(), Some(4 * 714));
        assert_eq!(xof(8).bytes(), Some(8 * 714));
        // The worker protocol and older writers leave it out: one lane.
        let read: Case = serde_json::from_str(
            r#"{"implementation":"a/b","operation":"xof","params":{"len":1}}"#,
        )
        .unwrap();
        assert_eq!(read.lanes, 1);
    }

    #[test]
    fn bytes_past_any_planned_size_saturate_rather_than_wrap() {
        let c = |len, out, lanes| Case {
            lanes,
            ..Case::new(
                "any/shake128",
                "xof",
                Params::new().with(Param::Len, len).with(Param::Out, out),
            )
        };
        assert_eq!(c(u64::MAX, 1, 1).bytes(), Some(u64::MAX));
        assert_eq!(c(1 << 63, 1 << 63, 1).bytes(), Some(u64::MAX));
        assert_eq!(c(1 << 62, 0, 8).bytes(), Some(u64::MAX));
    }

    #[test]
    fn textual_form_is_sorted_by_name() {
        let p = Params::new().with(Param::Len, 64).with(Param::Ad, 0);
        assert_eq!(p.to_string(), "ad=0 len=64");
        assert_eq!(Params::new().to_string(), "");
    }
}
