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
//! | [`counter`] | tsc / perf / ns, calibrated |
//! | [`sample`] | samples of one prepared call on the pinned thread |
//! | [`catalog`] | implementations: kind traits, providers, registry, correctness gates |
//! | [`experiment`] | built-in experiments as data; plans |
//! | [`runner`] | gate, then worker processes in interleaved rounds |
//! | [`store`] | SQLite: runs, cases, raw samples |
//! | [`stats`] | pure statistics, tested against known answers |
//! | [`analysis`] | stored samples to figures and comparisons |
//! | [`history`] | a case's median over the stored runs |
//! | [`import`] | criterion and `openssl speed` results stored as runs |
//! | [`report`] | table, md, json, csv, html, bencher, github-action-benchmark |
//! | [`bulk`] | multi-threaded AES over GiB buffers against OpenSSL and the memcpy ceiling |

pub mod analysis;
pub mod bulk;
pub mod catalog;
pub mod cimpl;
pub mod cli;
pub mod commands;
pub mod counter;
pub mod experiment;
pub mod history;
pub mod import;
pub mod keccak;
pub mod machine;
pub mod report;
pub mod runner;
pub mod sample;
pub mod size;
pub mod stats;
pub mod store;
