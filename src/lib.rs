//! cryptobench: measure cryptographic implementations, and compare them with statistics.
//!
//! Data flows one way: experiment -> plan of cases -> isolated measurement (worker
//! processes) -> samples -> store -> statistics -> reports.
//!
//! | module | its job |
//! |---|---|
//! | [`cli`] | arguments in, a request out |
//! | [`commands`] | one function per subcommand |
//! | [`machine`] | CPU, flags, counters, warnings; pinning |
//! | [`counter`] | tsc / perf / tsc-core / ns, calibrated |
//! | [`sample`] | samples of one prepared call on the pinned thread |
//! | [`catalog`] | implementations: kind traits, providers, registry, correctness gates |
//! | [`name`] | implementation names (`provider/algorithm/variant@target`) in their parts |
//! | [`experiment`] | built-in experiments as data; plans |
//! | [`runner`] | gate, then worker processes in interleaved rounds |
//! | [`store`] | SQLite: runs (a typed header of how each was measured), cases, raw samples |
//! | [`stats`] | pure statistics, tested against known answers |
//! | [`analysis`] | stored samples to figures and comparisons |
//! | [`history`] | a case's median over the stored runs |
//! | [`import`] | criterion and `openssl speed` results stored as runs |
//! | [`interrupt`] | Ctrl-C: stop after the work in flight, keep and print what was measured |
//! | [`report`] | table, md, json, csv, html, bencher, github-action-benchmark |
//! | [`output`] | reports to stdout or written whole to a file, never over the store |
//! | [`bulk`] | multi-threaded AES over GiB buffers against OpenSSL and the memcpy ceiling |
//! | [`cimpl`] | C implementations behind the SUPERCOP / LWC API: manifests, builds, gates |
//! | [`keccak`] | our N-lane Keccak-f[1600] and SHAKE (scalar, SSE2/AVX, AVX2, AVX-512) |
//! | [`size`] | byte sizes with units, as `run` and `bulk` take them |

pub mod analysis;
pub mod bulk;
pub mod catalog;
pub mod cimpl;
pub mod cli;
pub mod commands;
pub mod counter;
pub mod exit;
pub mod experiment;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod history;
pub mod import;
pub mod interrupt;
pub use cryptobench_keccak_lanes as keccak;
pub mod machine;
pub mod name;
pub mod output;
pub mod record;
pub mod report;
pub mod runner;
pub mod sample;
pub mod session;
pub mod size;
pub use cryptobench_stats as stats;
pub mod store;
