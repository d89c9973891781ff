//! Results measured by other tools, stored as runs of our own so that `report`,
//! `history` and `compare` see them: criterion.rs's saved benchmarks and `openssl speed`.
//!
//! An imported run is marked with its source (experiment `import:SOURCE`, options
//! `{"source": ...}`) and a counter of its own (`criterion-ns`, `criterion-cycles`,
//! `openssl-speed`), so `compare` refuses to put it beside a native run, whose counter
//! is `tsc`, `perf`, `tsc-core` or `ns`. The statistics are ours, computed from the raw
//! samples.

pub mod criterion;
pub mod openssl_speed;

use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::Result;

use crate::record::{
    ImportedCounter, ImportedFrom, MachineRecord, RunCounter, RunHeader, RunOrigin,
    UnrecordedMachine,
};
use crate::store::{ImportedCase, Store};

/// The largest message length or declared throughput an import takes, in bytes: 2^53,
/// the largest whole number an f64 holds exactly (the figures are computed in f64).
/// No benchmark moves 9 PB a call; a larger figure is a damaged file.
pub const MAX_BYTES: u64 = 1 << 53;

/// The range of counts per call (ns or cycles) an import takes as a measurement: over
/// 1e15 (eleven days a call, in ns) or, other than 0, under 1e-3 (a picosecond) a
/// figure is a damaged file or a unit mistake, and would be printed as infinity or as
/// a number hundreds of digits long.
pub const PER_CALL: std::ops::RangeInclusive<f64> = 1e-3..=1e15;

/// What another tool measured, read and checked, ready to store.
#[derive(Debug)]
pub struct Imported {
    /// `criterion` or `openssl-speed`.
    pub source: &'static str,
    /// The directory or file it came from.
    pub origin: PathBuf,
    pub counter: ImportedCounter,
    /// How the figures were obtained and their unit decided, for the report.
    pub note: String,
    /// When the other tool wrote its results, where the files say.
    pub measured_at: Option<SystemTime>,
    pub cases: Vec<ImportedCase>,
    /// What the user should know before trusting the run, printed as warnings.
    pub warnings: Vec<String>,
}

/// Store `imported` as one complete run, in one transaction; returns its id.
pub fn store(store: &mut Store, imported: &Imported, now: &str) -> Result<i64> {
    let when = imported.measured_at.map_or_else(
        || now.to_string(),
        |t| humantime::format_rfc3339_seconds(t).to_string(),
    );
    let cpu_model = format!("unknown (not recorded by {})", imported.source);
    let header = RunHeader {
        id: 0,
        started_at: when.clone(),
        finished_at: Some(when),
        status: crate::record::RunStatus::Complete,
        experiment: format!("import:{}", imported.source),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        git_revision: None,
        counter: RunCounter::Imported(imported.counter),
        unit: imported.counter.unit().into(),
        tsc_hz: None,
        cpu_model: cpu_model.clone(),
        machine: MachineRecord::Unrecorded(UnrecordedMachine {
            cpu_model,
            warnings: vec![format!(
                "imported from {}: the machine it ran on is not recorded, so this run is comparable only with runs imported the same way",
                imported.source
            )],
        }),
        options: RunOrigin::Imported(ImportedFrom {
            source: imported.source.into(),
            path: imported.origin.display().to_string(),
            note: imported.note.clone(),
            imported_at: now.into(),
        }),
        place: crate::record::RunPlace::default(),
    };
    store.import_run(&header, &imported.cases)
}
