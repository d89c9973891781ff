//! Two stored runs side by side: whether they can be compared, and every case they share.

use super::*;
use crate::record::VerdictOptions;

/// Every case of run `b` against the same case (by key) of run `a`, its baseline.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunComparison {
    /// The baseline run's id.
    pub run_a: i64,
    /// The id of the run compared with the baseline.
    pub run_b: i64,
    /// The cases both runs have that could be compared, each named by its key.
    pub comparisons: Vec<Comparison>,
    /// The cases both runs have that could not be compared, and why.
    pub not_compared: Vec<NotCompared>,
    /// Keys of the cases only the baseline has.
    pub only_in_a: Vec<String>,
    /// Keys of the cases only run `b` has.
    pub only_in_b: Vec<String>,
    /// Why the runs are not comparable, when forced anyway.
    pub caveats: Vec<String>,
    /// What the verdicts cannot see (the runs of one bulk session are not independent,
    /// the host was in another state).
    pub warnings: Vec<String>,
    /// Whether the host was in the same state for both runs, by their canaries.
    pub host: Option<HostShift>,
}

impl RunComparison {
    /// Whether the host's state makes every verdict here undecidable.
    pub fn host_differs(&self) -> bool {
        self.host.as_ref().is_some_and(|h| h.differs)
    }
}

/// What two runs differ in that makes their cycle counts incomparable: (what, in `a`,
/// in `b`) for the counter, the CPU model and the tool version.
pub fn differences(a: &RunHeader, b: &RunHeader) -> Vec<(&'static str, String, String)> {
    let mut all = vec![
        ("counter", a.counter.to_string(), b.counter.to_string()),
        ("CPU", a.cpu_model.clone(), b.cpu_model.clone()),
        (
            "cryptobench version",
            a.tool_version.clone(),
            b.tool_version.clone(),
        ),
    ];
    // What the environment tells the C library or OpenSSL to run: glibc's memcpy alone
    // moves ChaCha20 RNGs by 15 % (docs/validation.md).
    if let (Some(ma), Some(mb)) = (a.machine.measured(), b.machine.measured()) {
        let shown = |v: Option<&str>| v.map_or("unset".to_string(), str::to_string);
        for ((name, va), (_, vb)) in ma
            .measuring_environment()
            .into_iter()
            .zip(mb.measuring_environment())
        {
            all.push((name, shown(va), shown(vb)));
        }
    }
    all.into_iter().filter(|(_, x, y)| x != y).collect()
}

/// Why a verdict between two machines' runs is refused, `--force` or not.
pub const NO_VERDICT_ACROSS_MACHINES: &str =
    "cycle counts of two machines are never compared with a verdict, not even with --force";

/// The two machines, as (`a`'s, `b`'s), where `a` and `b` were measured on different
/// ones: another testbed, or one testbed's name on other hardware (another fingerprint).
/// `compare` and `run --baseline` both refuse such a pair: a difference between two
/// machines is no change in the code, and a gate that read it would pass or fail a change
/// on another machine's cycle counts.
pub fn other_machines(a: &RunHeader, b: &RunHeader) -> Option<(String, String)> {
    let (pa, pb) = (&a.place, &b.place);
    if pa.testbed == pb.testbed && pa.fingerprint == pb.fingerprint {
        return None;
    }
    // One testbed on two machines is told apart by its fingerprint, as
    // `report --machines` heads their columns.
    let name = |h: &RunHeader| {
        let p = &h.place;
        if pa.testbed == pb.testbed {
            let short = p.fingerprint.get(..8).unwrap_or(&p.fingerprint);
            format!("testbed `{}` ({short}), {}", p.testbed, h.cpu_model)
        } else {
            format!("testbed `{}`, {}", p.testbed, h.cpu_model)
        }
    };
    Some((name(a), name(b)))
}

/// Why two runs cannot be compared case by case.
pub(super) fn incomparability(a: &RunHeader, b: &RunHeader) -> Vec<String> {
    differences(a, b)
        .into_iter()
        .map(|(what, x, y)| format!("{what} differs: run {} `{x}`, run {} `{y}`", a.id, b.id))
        .collect()
}

/// Why `h` is not a whole run, if it is not: interrupted (or still running), its cases
/// have fewer samples than asked, or none, so a change against it may be the missing
/// samples'. `compare` and `run --baseline` refuse such a run without `--force`.
pub fn incomplete(h: &RunHeader) -> Option<String> {
    h.incompleteness().map(|why| {
        format!(
            "run {} is incomplete ({why}): its cases have fewer samples than asked, or none",
            h.id
        )
    })
}

/// Counts in nanoseconds and counts in cycles have no ratio that means anything: no
/// `--force` compares them.
pub fn check_same_unit(a: &RunHeader, b: &RunHeader) -> Result<()> {
    let (unit_a, unit_b) = (a.counter.short_unit(), b.counter.short_unit());
    if unit_a != unit_b {
        let imported = [a.counter, b.counter]
            .iter()
            .any(|c| matches!(c, RunCounter::Imported(_)));
        bail!(
            "run {} counts {unit_a} ({}) and run {} counts {unit_b} ({}), which no --force makes comparable{}",
            a.id,
            a.counter,
            b.id,
            b.counter,
            if imported {
                ""
            } else {
                "; measure one of them again with the other's --counter"
            }
        );
    }
    Ok(())
}

/// A stored run as one side of a comparison across runs: its id, and what its canary
/// said of its host.
#[derive(Clone, Copy)]
pub struct RunSide<'a> {
    /// The run's id in the store.
    pub id: i64,
    /// The canary's verdict over the whole run; `None` where it read none.
    pub host: Option<&'a HostCheck>,
}

/// Case `b` of one run against the same case `a` of an earlier one (`sides`, in that
/// order), each from the processes its host left steady, as [`compare_runs`] judges
/// every case it compares: the test on the processes' medians against the noise
/// threshold, undecided where the case was unsteady in either run, or where the host was
/// in another state for the two (`shift`, from [`host_shift`]). Named as across runs:
/// the baseline `run N`, the candidate by its case key.
// Both outcomes are kept and both are large (the comparison more so): no box helps.
#[allow(clippy::result_large_err)]
pub fn compare_case_across_runs(
    a: &StoredCase,
    b: &StoredCase,
    sides: (RunSide, RunSide),
    shift: Option<&HostShift>,
    opts: &VerdictOptions,
) -> Result<Comparison, NotCompared> {
    let baseline = format!("run {}", sides.0.id);
    let mut c = compare_cases(a, b, opts, Relation::Variant).map_err(|mut n| {
        n.baseline = baseline.clone();
        n.candidate = b.key.clone();
        n
    })?;
    c.baseline = baseline;
    c.candidate = b.key.clone();
    // A case unsteady in either run says so; every one of a run that never settled is.
    let unsteady = [sides.0.host, sides.1.host]
        .into_iter()
        .flatten()
        .any(|h| h.unsteady.contains(&b.key));
    if unsteady {
        c.undecided = Some(Undecided::HostUnsteady);
    } else if shift.is_some_and(|s| s.differs) {
        c.undecided = Some(Undecided::HostInAnotherState);
    }
    Ok(c)
}

/// Compare every case of `b` with the same case (by key) of `a`, each from the processes
/// its host left steady, and the hosts' states by the runs' canaries.
pub fn compare_runs(
    a: &StoredRun,
    b: &StoredRun,
    opts: &VerdictOptions,
    force: bool,
) -> Result<RunComparison> {
    let (a_steady, a_host) = steady_view(a);
    let (b_steady, b_host) = steady_view(b);
    let (a, b) = (&a_steady, &b_steady);
    let host = host_shift(a_host.as_ref(), a.header.id, b_host.as_ref());
    // First: a refusal that --force cannot lift must not advise it.
    check_same_unit(&a.header, &b.header)?;
    let mut caveats = incomparability(&a.header, &b.header);
    if !caveats.is_empty() && !force {
        bail!(
            "runs {} and {} are not comparable: {} (use --force to compare anyway)",
            a.header.id,
            b.header.id,
            caveats.join("; ")
        );
    }
    let mut comparisons = Vec::new();
    let mut not_compared = Vec::new();
    let mut only_in_b = Vec::new();
    let sides = (
        RunSide {
            id: a.header.id,
            host: a_host.as_ref(),
        },
        RunSide {
            id: b.header.id,
            host: b_host.as_ref(),
        },
    );
    for cb in &b.cases {
        match a.cases.iter().find(|ca| ca.key == cb.key) {
            Some(ca) => match compare_case_across_runs(ca, cb, sides, host.as_ref(), opts) {
                Ok(c) => comparisons.push(c),
                Err(n) => not_compared.push(n),
            },
            None => only_in_b.push(cb.key.clone()),
        }
    }
    let only_in_a = a
        .cases
        .iter()
        .filter(|ca| !b.cases.iter().any(|cb| cb.key == ca.key))
        .map(|ca| ca.key.clone())
        .collect();
    let bulk = [&a.header, &b.header]
        .iter()
        .any(|h| matches!(h.options, RunOrigin::Bulk { .. }));
    let mut warnings: Vec<String> = [&a.header, &b.header]
        .into_iter()
        .filter_map(incomplete)
        .collect();
    match &host {
        Some(h) if h.differs => warnings.push(h.note.clone()),
        Some(h) if h.change_pct.is_none() => caveats.push(h.note.clone()),
        _ => {}
    }
    if bulk {
        warnings.push(
            "bulk runs: the test takes each run of a session as an independent measurement, but they ran back to back in one process under the same load, so a change between two sessions includes what the machine did between them (host load moved whole sessions by tens of percent on a shared 2-vCPU guest); read a verdict as a hint, and compare several sessions before believing it".to_string(),
        );
    }
    Ok(RunComparison {
        run_a: a.header.id,
        run_b: b.header.id,
        comparisons,
        not_compared,
        only_in_a,
        only_in_b,
        caveats,
        warnings,
        host,
    })
}
