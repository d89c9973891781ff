//! The instrument of cryptobench, without its catalog: measurement in isolated worker
//! processes, the result store, statistics, analysis and reports. The host binary (the
//! `cryptobench` CLI, or a crate author's bench) brings the implementations: it fills a
//! [`catalog::registry::Registry`] and hands it to [`runner::worker::serve`] in its
//! worker processes. No OpenSSL, ring, aws-lc-rs or libcrux here; those are providers
//! of the CLI's catalog.
//!
//! Layers, bottom to top (a module imports only its own layer and those below;
//! `tests/layers.rs` in the workspace root checks it):
//!
//! | layer | modules |
//! |---|---|
//! | values | [`stats`], [`name`], [`size`], [`exit`] |
//! | host | [`counter`], [`machine`], [`build_info`] |
//! | record | [`record`]: what a run is, in the forms the store keeps |
//! | store | [`store`]: SQLite, schema versions and their migrations |
//! | subjects | [`catalog`] (kind traits, reference code, registry), [`cimpl`] (C through manifests) |
//! | measurement | [`sample`], [`runner`] |
//! | analysis | [`analysis`], [`history`] |
//! | reports | [`report`] |
//! | session | [`session`], [`preflight`], [`interrupt`], [`output`]: one run's life, the checks before it, Ctrl-C, where reports go |

#![deny(missing_docs)]

pub use cryptobench_stats as stats;

pub mod analysis;
pub mod build_info;
pub mod canary;
pub mod catalog;
pub mod cimpl;
pub mod counter;
pub mod exit;
pub mod history;
pub mod interrupt;
pub mod machine;
pub mod name;
pub mod output;
pub mod plan;
pub mod preflight;
pub mod record;
pub mod report;
pub mod runner;
pub mod sample;
pub mod session;
pub mod size;
pub mod store;
