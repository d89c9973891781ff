//! One-line notes below a table where its figures need a word: core clocks that differ,
//! worker processes that disagree, p-values at the floor of the test.

use super::format::fmt_p;
use crate::analysis::{Analysis, Comparison};

/// Where a p-value is the smallest the test can give with so few processes, and that floor
/// shows in the table (below 0.001 it reads "< 0.001" anyway): the test could not say
/// more, however large the difference.
pub(super) fn p_floor_notes(comparisons: &[Comparison]) -> Vec<String> {
    let mut at_floor: Vec<([usize; 2], f64, usize)> = Vec::new();
    for c in comparisons {
        let Some(floor) = c
            .p_floor
            .filter(|&f| f >= 0.001 && c.p_value <= f * (1.0 + 1e-9))
        else {
            continue;
        };
        match at_floor.iter_mut().find(|(n, _, _)| *n == c.processes) {
            Some((_, _, count)) => *count += 1,
            None => at_floor.push((c.processes, floor, 1)),
        }
    }
    at_floor
        .into_iter()
        .map(|([n, m], floor, count)| {
            format!(
                "p: {} comparison{} at p {}, the smallest a Mann-Whitney test of {n} against {m} processes can give (every process of one side beyond every one of the other); more --processes let the test say more.",
                count,
                if count == 1 { " is" } else { "s are" },
                fmt_p(floor)
            )
        })
        .collect()
}

/// Clock differences below this are within one turbo bin (2.7 % at 3.7 GHz on the
/// hosts seen), which a case's medians can land on by chance.
const CLOCK_NOTE_PCT: f64 = 3.0;

/// Where candidate and baseline ran at core clocks more than [`CLOCK_NOTE_PCT`] apart,
/// one line per pair of implementations: their cycles and their time disagree.
pub(super) fn clock_notes(comparisons: &[Comparison]) -> Vec<String> {
    let cases = comparisons.iter().filter_map(|c| {
        let changes = c.clock_change_pct.zip(c.time_change_pct)?;
        Some((c.candidate.as_str(), c.baseline.as_str(), changes))
    });
    group_clock_changes(cases)
        .into_iter()
        .map(|(cand, base, v)| {
            let n = v.len();
            let (clocks, times): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
            format!(
                "Clock: {cand} ran at a core clock {} against {base} ({n} case{}); in time (reference cycles) the change is {}.",
                pct_range(&clocks),
                if n == 1 { "" } else { "s" },
                pct_range(&times)
            )
        })
        .collect()
}

/// Where an N-lane implementation ran at a core clock more than [`CLOCK_NOTE_PCT`]
/// from its single-lane baseline's, one line per implementation with its speed-ups in
/// time.
pub(super) fn lane_clock_notes(a: &Analysis, alg: &str) -> Vec<String> {
    let lanes = a.lanes.iter().filter_map(|l| {
        if l.algorithm != alg {
            return None;
        }
        let changes = l.clock_change_pct.zip(l.speedup_in_time)?;
        Some((l.implementation.as_str(), l.single.as_str(), changes))
    });
    group_clock_changes(lanes)
        .into_iter()
        .map(|(imp, single, v)| {
            let (clocks, times): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
            format!(
                "Clock: {imp} ran at a core clock {} against {single}: in time (reference cycles) its speed-up is {}.",
                pct_range(&clocks),
                range(&times, |x| format!("{x:.2}x"), "")
            )
        })
        .collect()
}

/// The cases whose clock differs by at least [`CLOCK_NOTE_PCT`], grouped by
/// (implementation, what it is measured against), in the order they come.
fn group_clock_changes<'a>(
    cases: impl Iterator<Item = (&'a str, &'a str, (f64, f64))>,
) -> Vec<(&'a str, &'a str, Changes)> {
    let mut groups: Vec<(&str, &str, Changes)> = Vec::new();
    for (imp, against, (clock, other)) in cases {
        if clock.abs() < CLOCK_NOTE_PCT {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(i, a, _)| *i == imp && *a == against)
        {
            Some((_, _, v)) => v.push((clock, other)),
            None => groups.push((imp, against, vec![(clock, other)])),
        }
    }
    groups
}

/// "lo to hi" of `xs` as `fmt` writes them, or one value where both write the same.
fn range(xs: &[f64], fmt: impl Fn(f64) -> String, unit: &str) -> String {
    let lo = fmt(xs.iter().copied().fold(f64::INFINITY, f64::min));
    let hi = fmt(xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    if lo == hi {
        format!("{lo}{unit}")
    } else {
        format!("{lo} to {hi}{unit}")
    }
}

/// "-5.7 %", or "-5.9 to -5.2 %" where the values differ at one decimal.
fn pct_range(xs: &[f64]) -> String {
    range(xs, |x| format!("{x:+.1}"), " %")
}

/// (clock change, change in time) of each case of one pair of implementations.
type Changes = Vec<(f64, f64)>;

/// Worker processes whose own medians spread wider than this (interquartile range)
/// are worth a note: the scalar and AVX-512 Keccak and the ChaCha20 cases stay within
/// 0.2-0.7 % here, while spilling AVX2 code split into modes 2-6 % apart.
const PROCESS_NOTE_PCT: f64 = 2.0;

/// One line under the table when some cases' worker processes disagree (case id and
/// spread in %): such a median depends on how the processes fell, which the interval
/// shows and more processes steady.
pub(super) fn process_note<'a>(spreads: impl Iterator<Item = (&'a str, f64)>) -> Option<String> {
    let wide: Vec<(&str, f64)> = spreads.filter(|s| s.1 > PROCESS_NOTE_PCT).collect();
    let (widest, pct) = wide.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let n = wide.len();
    Some(format!(
        "Processes: in {n} case{} the worker processes' own medians lie more than {PROCESS_NOTE_PCT} % apart (middle half of them; widest {widest}, {pct:.1} %): such a figure depends on how the processes fell, as its interval shows; more processes (--processes) steady it.",
        if n == 1 { "" } else { "s" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Params;
    use crate::stats::Interval;

    fn comparison(candidate: &str, clock: Option<f64>, time: Option<f64>) -> Comparison {
        let change = Interval {
            estimate: -5.0,
            lo: -5.1,
            hi: -4.9,
            level: 0.95,
        };
        Comparison {
            relation: crate::analysis::Relation::Variant,
            baseline: "ours".into(),
            candidate: candidate.into(),
            operation: "xof".into(),
            params: Params::new(),
            median_baseline: 100.0,
            median_candidate: 95.0,
            difference: 5.0,
            change_pct: change,
            stdev_baseline: 0.1,
            stdev_candidate: 0.1,
            p_value: 0.001,
            processes: [10, 10],
            p_floor: crate::stats::mann_whitney_p_floor(10, 10),
            verdict: crate::stats::verdict(&change, 1.0, true),
            clock_change_pct: clock,
            time_change_pct: time,
            undecided: None,
        }
    }

    #[test]
    fn p_values_at_the_floor_of_few_processes_are_explained_once() {
        let floor = crate::stats::mann_whitney_p_floor(4, 4);
        let at = |p: f64| Comparison {
            relation: crate::analysis::Relation::Variant,
            processes: [4, 4],
            p_floor: floor,
            p_value: p,
            ..comparison("theirs", None, None)
        };
        let notes = p_floor_notes(&[at(floor.unwrap()), at(floor.unwrap()), at(0.2)]);
        assert_eq!(
            notes,
            [
                "p: 2 comparisons are at p 0.0285, the smallest a Mann-Whitney test of 4 against 4 processes can give (every process of one side beyond every one of the other); more --processes let the test say more."
            ]
        );
        // With 10 processes a side the floor reads "< 0.001" in the table: nothing to say.
        assert!(p_floor_notes(&[comparison("theirs", None, None)]).is_empty());
    }

    #[test]
    fn processes_that_disagree_get_one_line_naming_the_widest() {
        assert_eq!(process_note([("a", 0.4), ("b", 2.0)].into_iter()), None);
        let note = process_note([("a", 0.4), ("b", 2.5), ("c", 7.25)].into_iter()).unwrap();
        assert!(
            note.starts_with(
                "Processes: in 2 cases the worker processes' own medians lie more than 2 % apart"
            ),
            "{note}"
        );
        assert!(note.contains("widest c, 7.2 %"), "{note}");
        let one = process_note([("b", 3.0)].into_iter()).unwrap();
        assert!(one.starts_with("Processes: in 1 case the"), "{one}");
    }

    #[test]
    fn a_clock_difference_is_told_once_per_pair_with_its_range() {
        let notes = clock_notes(&[
            comparison("theirs", Some(-5.71), Some(-0.9)),
            comparison("theirs", Some(-5.68), Some(1.5)),
            comparison("steady", Some(0.4), Some(-4.6)),
            comparison("unclocked", None, None),
        ]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("Clock: theirs ran at a core clock -5.7 % against ours (2 cases)"),
            "{}",
            notes[0]
        );
        assert!(
            notes[0].contains("the change is -0.9 to +1.5 %"),
            "{}",
            notes[0]
        );
    }
}
