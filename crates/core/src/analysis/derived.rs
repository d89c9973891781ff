//! Figures derived from several cases of a run: ratios to a reference, slopes between
//! two lengths, and what N lanes buy over N single calls.

use super::*;
use crate::record::Param;
use crate::record::{RNG_EXPERIMENT, RNG_OVER_CIPHER};

/// A member implementation against a reference at the same parameters, as a run's
/// options ask (`ratios`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Ratio {
    /// The implementation the member is divided by.
    pub reference: String,
    /// The implementation set against the reference.
    pub member: String,
    /// The member's operation: an AEAD has a ratio of its encryption and one of its
    /// decryption at the same parameters.
    pub operation: String,
    /// The reference's operation: the member's where the reference has it, else the
    /// reference's only one (an RNG's `fill_bytes` over a cipher's `xor`).
    pub reference_operation: String,
    /// The parameters both cases share.
    pub params: Params,
    /// member over reference: the Hodges-Lehmann ratio of their process medians, with
    /// Moses' interval.
    pub ratio: Interval,
    /// Whether the reference is the member's "speed limit", as the chacha20-rng seed calls
    /// it: one of that experiment's RNGs over the ChaCha20 cipher (see
    /// [`RNG_OVER_CIPHER`]). A ratio any other run asks for (`--ratio-to`) is a plain one.
    pub speed_limit: bool,
}

/// Whether `reference`/`member` of a run of `experiment` is one of [`RNG_OVER_CIPHER`].
pub(super) fn is_speed_limit(experiment: &str, reference: &str, member: &str) -> bool {
    experiment == RNG_EXPERIMENT
        && RNG_OVER_CIPHER
            .iter()
            .any(|&(r, m)| r == reference && m == member)
}

/// Cost per byte at maximum throughput: the slope of the median between two lengths,
/// so that fixed per-call costs (initialisation, finalisation) drop out.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Slope {
    /// The implementation measured at both lengths.
    pub implementation: String,
    /// The operation measured at both lengths.
    pub operation: String,
    /// The shorter message length (`len`), in bytes.
    pub from_len: u64,
    /// The longer message length (`len`), in bytes.
    pub to_len: u64,
    /// Counts per byte: the Hodges-Lehmann shift between the two lengths' process
    /// medians over the difference of the lengths, with its interval.
    pub per_byte: Interval,
}

/// One N-lane call against N calls of the fastest single-lane implementation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LaneSpeedup {
    /// The N-lane implementation.
    pub implementation: String,
    /// What one lane computes, e.g. `shake128`: the single-lane implementations' algorithm.
    pub algorithm: String,
    /// Lanes per call (N).
    pub lanes: usize,
    /// The parameters of the N-lane case, and of the single-lane one set against it.
    pub params: Params,
    /// The fastest single-lane implementation at these parameters.
    pub single: String,
    /// Median counts of one N-lane call, over all its samples.
    pub median_call: f64,
    /// Median counts of one call of `single`, over all its samples.
    pub median_single: f64,
    /// N x single / one N-lane call: N over the Hodges-Lehmann ratio of the call's
    /// process medians to the single lane's, with Moses' interval.
    pub speedup: Interval,
    /// Counts per byte of one lane: `median_call` over N times one lane's `len` + `out`;
    /// `None` where the parameters have neither.
    pub per_byte_per_lane: Option<f64>,
    /// Where the counter measured the core clock (tsc-core): the N-lane code's clock
    /// against the single lane's, in %, and the speed-up in time that follows.
    pub clock_change_pct: Option<f64>,
    /// The speed-up in time: `speedup`'s estimate times the N-lane clock over the single
    /// lane's (tsc-core only).
    pub speedup_in_time: Option<f64>,
}

/// The algorithm one lane computes and the case's lanes: `shake128` for
/// `cryptobench/shake128-x4-avx2` (whose name says its lanes and instructions after the
/// algorithm) as for `openssl/shake128`.
pub(super) fn lane_shape(case: &StoredCase) -> (&str, usize) {
    let algorithm = ImplName::parse(&case.implementation).algorithm();
    let lane_algorithm = match algorithm.split_once("-x") {
        Some((base, rest)) if rest.starts_with(|c: char| c.is_ascii_digit()) => base,
        _ => algorithm,
    };
    (lane_algorithm, case.lanes)
}

/// What one lane of an N-lane XOF call takes in and gives out.
pub(super) fn lane_bytes(params: &Params) -> u64 {
    params.get(Param::Len).unwrap_or(0) + params.get(Param::Out).unwrap_or(0)
}

pub(super) fn lane_speedups(run: &StoredRun) -> Vec<LaneSpeedup> {
    let ok: Vec<&StoredCase> = run
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Ok)
        .collect();
    let mut out = Vec::new();
    for c in ok.iter().filter(|c| lane_shape(c).1 > 1) {
        let (algorithm, n) = lane_shape(c);
        let singles: Vec<&&StoredCase> = ok
            .iter()
            .filter(|s| s.params == c.params && lane_shape(s) == (algorithm, 1))
            .collect();
        // A default measured under its alias (`shake128-x1@asm`) beside the backend it
        // names (`shake128-x1-asm`) is one code measured twice: the faster of two readings
        // of the same thing would bias the reference low, so the alias stands aside.
        let single = (singles.iter())
            .filter(|s| {
                let backend = s.implementation.replacen('@', "-", 1);
                backend == s.implementation || !singles.iter().any(|t| t.implementation == backend)
            })
            .min_by(|a, b| {
                median_of(&a.per_process.concat()).total_cmp(&median_of(&b.per_process.concat()))
            });
        let Some(single) = single else { continue };
        // N single calls over one N-lane call: N over the ratio of the call to one single
        // lane, whose estimate and interval are those of every comparison.
        let Some(ratio) =
            stats::hodges_lehmann_ratio(&cluster_medians(single), &cluster_medians(c), LEVEL)
        else {
            continue;
        };
        let lanes = n as f64;
        let speedup = Interval {
            estimate: lanes / ratio.estimate,
            lo: lanes / ratio.hi,
            hi: lanes / ratio.lo,
            level: ratio.level,
        };
        let median_call = median_of(&c.per_process.concat());
        let clocks = stats::median(&single.core_clocks).zip(stats::median(&c.core_clocks));
        out.push(LaneSpeedup {
            implementation: c.implementation.clone(),
            algorithm: algorithm.to_string(),
            lanes: n,
            params: c.params.clone(),
            single: single.implementation.clone(),
            median_call,
            median_single: median_of(&single.per_process.concat()),
            speedup,
            // From the parameters, not the stored byte count: runs stored before that
            // count took in every lane gave one lane's bytes.
            per_byte_per_lane: Some(lane_bytes(&c.params))
                .filter(|&b| b > 0)
                .map(|b| median_call / (lanes * b as f64)),
            clock_change_pct: clocks.map(|(single, lane)| 100.0 * (lane / single - 1.0)),
            // Time is cycles over clock: N x t_single / t_call = speed-up x clock ratio.
            speedup_in_time: clocks.map(|(single, lane)| speedup.estimate * lane / single),
        });
    }
    out
}

pub(super) fn slopes_of(run: &StoredRun, short: u64, long: u64) -> Vec<Slope> {
    let mut out = Vec::new();
    for b in run
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Ok && c.params.get(Param::Len) == Some(long))
    {
        let short_params = b.params.clone().with(Param::Len, short);
        let Some(a) = run.cases.iter().find(|c| {
            c.implementation == b.implementation
                && c.operation == b.operation
                && c.params == short_params
                && c.status == CaseStatus::Ok
        }) else {
            continue;
        };
        let span = (long - short) as f64;
        // The Hodges-Lehmann shift between the lengths' process medians, per byte.
        if let Some(shift) = stats::hodges_lehmann(&cluster_medians(a), &cluster_medians(b), LEVEL)
        {
            let per_byte = Interval {
                estimate: shift.estimate / span,
                lo: shift.lo / span,
                hi: shift.hi / span,
                level: shift.level,
            };
            out.push(Slope {
                implementation: b.implementation.clone(),
                operation: b.operation.clone(),
                from_len: short,
                to_len: long,
                per_byte,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `--ratio-to` table was titled the seed's "speed limit", a claim about the
    /// reference that holds only for the chacha20-rng experiment's RNGs over their cipher.
    #[test]
    fn only_the_rng_experiment_s_rngs_over_their_cipher_are_speed_limits() {
        for &(reference, member) in RNG_OVER_CIPHER {
            assert!(is_speed_limit(RNG_EXPERIMENT, reference, member));
            assert!(!is_speed_limit("rustcrypto/chacha20", reference, member));
        }
        assert!(!is_speed_limit(
            RNG_EXPERIMENT,
            "openssl/chacha20",
            "rustcrypto/chacha20-rng"
        ));
        assert!(!is_speed_limit(
            RNG_EXPERIMENT,
            "rustcrypto/chacha20-rng",
            "rustcrypto/chacha20"
        ));
    }
}
