//! What measuring a case leaves: its samples, and a build's static estimate.

use crate::counter::Calibration;

/// One worker process's measurement of a case: its samples over every layout, and
/// what they were taken with.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Samples {
    /// Calls timed back to back in each sample; the counts are per call.
    pub calls_per_sample: u64,
    /// The counter's overhead and resolution, measured in this process.
    pub calibration: Calibration,
    /// One group of samples per layout; counts per call, overhead removed.
    pub per_layout: Vec<Vec<f64>>,
    /// Median core cycles per TSC tick beside the samples, where the counter measures
    /// the clock (tsc-core): the clock this code ran at, which the code itself can move.
    #[serde(default)]
    pub core_clock: Option<f64>,
    /// The canary's readings in this process, where it was run: [`crate::canary`].
    #[serde(default)]
    pub canary: Option<CanaryReadings>,
}

/// A worker process's readings of the canary, in the counter's units, and which canary
/// they are of (readings of two canaries are not comparable).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CanaryReadings {
    /// Which canary: [`Canary::describe`](crate::canary::Canary::describe), its version
    /// and the work it does on this CPU.
    pub kind: String,
    /// Each reading (the fastest of a few back to back), overhead removed, in the order
    /// taken.
    pub readings: Vec<f64>,
}

/// A C build's static estimate of its cost per call, by llvm-mca, beside its measured
/// figures.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// Estimated core cycles per call; `None` where there is no figure (`note` says why).
    pub cycles: Option<f64>,
    /// The llvm-mca scheduling model used (`-mcpu`).
    pub model: String,
    /// Why the figure is missing or should be read with care.
    pub note: Option<String>,
    /// The function estimated (`crypto_kem_enc`), as the run's record of the build names
    /// it; `None` where the run was stored before it was recorded. Not a column of the
    /// store's: the analysis takes it from the run's options (`c_builds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The operation whose timed call that function is (`encaps`), the one the estimate
    /// is of; `None` as `function` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

impl Estimate {
    /// How the note of an estimate whose function calls others begins its caveat: the
    /// work is then in the callees, which llvm-mca does not count.
    pub const CALLS_OUT: &'static str = "calls other functions";

    /// Whether the function estimated calls others (or tail-calls one), whose cost the
    /// figure leaves out: then it is no estimate of the operation.
    pub fn calls_out(&self) -> bool {
        self.note
            .as_deref()
            .is_some_and(|n| n.contains(Self::CALLS_OUT))
    }
}
