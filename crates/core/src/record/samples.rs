//! What measuring a case leaves: its samples, and a build's static estimate.

use crate::counter::Calibration;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Samples {
    pub calls_per_sample: u64,
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
    pub kind: String,
    pub readings: Vec<f64>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    pub cycles: Option<f64>,
    /// The llvm-mca scheduling model used (`-mcpu`).
    pub model: String,
    /// Why the figure is missing or should be read with care.
    pub note: Option<String>,
}
