//! What a run is, at the bottom of the tool: the case (implementation, operation,
//! parameters, lanes), the run's header, how it was asked to measure and analyse, and
//! what measuring a case leaves. The store keeps these and the layers above read and
//! write them; this module imports nothing above the host layer (`counter`, `machine`).
//!
//! Every type here that the store serialises is a *stored form*: renaming or retyping a
//! field changes what older stores hold, so it is a schema change (take the next
//! `store` schema version and migrate). The tests pin the stored JSON of each.

mod case;
mod options;
mod place;
mod run;
mod samples;
mod url;

pub use case::{Case, CaseStatus, MEMCPY, Param, Params};
pub use options::{
    AnalysisOptions, AnalysisSpec, BulkOptions, CBuild, RNG_EXPERIMENT, RNG_OVER_CIPHER, Remeasure,
    RunOptions, SamplePlan, Test, VerdictArgs, VerdictOptions, clap_error_line, parse_percent,
    parse_probability, slope_fault, this_command_line, unset_empty_env,
};
pub use place::{CiOrigin, RunPlace, check_testbed, default_testbed, fingerprint};
pub use run::{
    CodeRevision, ImportedCounter, ImportedFrom, MachineRecord, RunCounter, RunHeader, RunOrigin,
    RunStatus, UnrecordedMachine, checkout_revision, now,
};
pub use samples::{CanaryReadings, Estimate, Samples};
pub use url::{UrlParts, has_stray_at, is_conninfo, shown_argument, split_url, without_password};
