//! cryptobench: measure cryptographic implementations, and compare them with statistics.
//!
//! The CLI: its catalog of implementations ([`providers`]), built-in experiments, `bulk`,
//! importers, arguments and commands, on the instrument in `cryptobench-core` (measurement,
//! store, statistics, analysis, reports), whose modules it re-exports under the same
//! names. Data flows one way: experiment -> plan of cases -> isolated measurement (worker
//! processes) -> samples -> store -> statistics -> reports.
//!
//! | module | its job |
//! |---|---|
//! | [`cli`] | arguments in, a request out |
//! | [`commands`] | the subcommands (those that only read the store together in `stored`), and the dispatch |
//! | [`providers`] | the catalog: one file per library, and [`providers::builtin`] (its own crate) |
//! | [`experiment`] | built-in experiments as data; plans |
//! | [`bulk`] | multi-threaded AES over GiB buffers against OpenSSL and the memcpy ceiling |
//! | [`import`] | criterion and `openssl speed` results stored as runs |
//! | [`keccak`] | our N-lane Keccak-f\[1600\] and SHAKE, a measured subject (its own crate) |

pub use cryptobench_core::{
    analysis, catalog, cimpl, counter, exit, history, interrupt, machine, name, output, plan,
    preflight, record, report, runner, sample, session, size, stats, store,
};
pub use cryptobench_keccak_lanes as keccak;
pub use cryptobench_providers as providers;

pub mod bulk;
pub mod cli;
pub mod commands;
pub mod experiment;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod import;
