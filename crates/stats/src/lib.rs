//! Statistics for comparing cycle counts: descriptive summaries, confidence
//! intervals, outlier counts and two-sample tests.
//!
//! Everything here is a pure function on slices: no I/O, no printing, and the
//! bootstrap is deterministic for a given seed.
//!
//! Input contract shared by the functions that return `Option`: they return
//! `None` for empty input and for input that contains a non-finite value
//! (NaN or ±∞), instead of panicking or returning NaN. Each function's doc
//! lists any further cases.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bootstrap;
pub mod compare;
pub mod interval;
pub mod outliers;
pub mod steadiness;
pub mod summary;
pub mod units;
pub mod verdict;

mod u_dist;

#[doc(hidden)]
pub mod test_rng;

pub use bootstrap::{LEVEL, RESAMPLES, cluster_bootstrap_ci, min_clusters, seed_of};
pub use compare::{
    MannWhitney, Method, Welch, as_percent, fmt_p, fmt_p_exact, hodges_lehmann,
    hodges_lehmann_ratio, hodges_lehmann_ratio_test, interval_reachable, mann_whitney,
    mann_whitney_p_floor, moses_p_value, relative_change, welch_ratio, welch_t,
};
pub use interval::{Interval, median_ci};
pub use outliers::{BoxPlot, Outliers, tukey};
pub use steadiness::{Kept, Steadiness, kept, steadiness};
pub use summary::{Summary, coefficient_of_variation, mean, median, quantile_sorted, std_dev};
pub use units::{bytes_per_second, cycles_per_byte};
pub use verdict::{Verdict, verdict};
