//! C builds (`provider/algorithm/variant@target`) as variant x target matrices: the
//! figures of each algorithm and operation, the static estimates, and the slopes.

use super::format::{ci_heading, fmt_count, fmt_interval, fmt_per_byte};
use super::{Block, MatrixRow};
use crate::analysis::{Analysis, CaseStats};
use crate::name::ImplName;
use crate::record::{CaseStatus, Estimate};

/// A C build's `provider/algorithm/variant@target` as (`provider/algorithm`, variant,
/// target); none for other names.
fn split_variant(name: &str) -> Option<(ImplName<'_>, &str, &str)> {
    let name = ImplName::parse(name);
    Some((name.family(), name.variant()?, name.target()?))
}

pub(super) fn push_unique<'a>(v: &mut Vec<&'a str>, x: &'a str) {
    if !v.contains(&x) {
        v.push(x);
    }
}

/// The seed's variant x target tables for builds from manifests: rows are variants,
/// columns targets, one table per algorithm, operation and parameters.
pub(super) fn matrix_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    let mut groups: Vec<(ImplName, &str, String)> = Vec::new();
    for c in &a.cases {
        if let Some((family, _, _)) = split_variant(&c.implementation) {
            let g = (family, c.operation.as_str(), c.params.to_string());
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    for (family, op, params) in groups {
        let cases: Vec<&CaseStats> = a
            .cases
            .iter()
            .filter(|c| {
                split_variant(&c.implementation).is_some_and(|(f, _, _)| f == family)
                    && c.operation == op
                    && c.params.to_string() == params
            })
            .collect();
        let per_call = cases.iter().all(|c| c.bytes.is_none());
        let mut caveat = false;
        let what = if per_call {
            format!("{u} per call")
        } else {
            format!("{u} per byte")
        };
        let family = family.to_string();
        let title = [family.as_str(), op, params.as_str()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let intervals = ci_heading(cases.iter().filter_map(|c| {
            let m = c.measured.as_ref()?;
            (per_call || m.per_byte.is_some()).then(|| m.has_interval())
        }));
        blocks.push(Block::Heading(format!(
            "{title}: {what}, median{intervals}"
        )));
        let cells: Vec<(String, String, Option<f64>)> = cases
            .iter()
            .map(|c| {
                let figure = match &c.measured {
                    Some(m) if per_call => Some(&m.median),
                    Some(m) => m.per_byte.as_ref(),
                    None => None,
                };
                let measured = match (figure, &c.measured, c.status) {
                    (Some(f), Some(m), _) if !m.has_interval() => {
                        (if per_call { fmt_count } else { fmt_per_byte })(f.estimate)
                    }
                    (Some(f), _, _) if per_call => fmt_interval(f, fmt_count),
                    (Some(f), _, _) => fmt_interval(f, fmt_per_byte),
                    (None, Some(_), _) => String::new(),
                    (None, None, CaseStatus::Unsupported) => "not supported on this CPU".into(),
                    (None, None, CaseStatus::Wrong) => "WRONG OUTPUT".into(),
                    (None, None, CaseStatus::Pending) => "not measured (interrupted)".into(),
                    (None, None, _) => "failed".into(),
                };
                let estimate = (a.estimates.get(&c.implementation))
                    .filter(|e| per_call && is_estimate_of(e, &c.operation));
                let cell = match estimate {
                    Some(e) => match (e.cycles, &e.note) {
                        (Some(est), None) => format!("{measured} (est. {est:.1})"),
                        (Some(est), Some(_)) => {
                            caveat = true;
                            format!("{measured} (est. {est:.1}†)")
                        }
                        (None, _) => measured,
                    },
                    None => measured,
                };
                (c.implementation.clone(), cell, figure.map(|f| f.estimate))
            })
            .collect();
        blocks.push(variant_table(&cells));
        if caveat {
            blocks.push(Block::Line(
                "† static estimate of code that branches or loops: each instruction counted once (see the static estimates)".into(),
            ));
        }
    }
    if !a.estimates.is_empty() {
        blocks.push(Block::Heading(
            "Static estimates (llvm-mca, cycles per call of the function named)".into(),
        ));
        let rows = a
            .estimates
            .iter()
            .map(|(name, e)| {
                let function = match (&e.function, &e.operation) {
                    (Some(f), Some(op)) => format!("{f} ({op})"),
                    _ => "not recorded (stored before it was)".into(),
                };
                vec![
                    name.clone(),
                    function,
                    e.model.clone(),
                    e.cycles.map_or("n/a".into(), |c| format!("{c:.1}")),
                    e.note.clone().unwrap_or_default(),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "Function (operation)".into(),
                "-mcpu".into(),
                "Estimate".into(),
                "Caveat".into(),
            ],
            rows,
        });
        blocks.push(Block::Line(
            "An estimate is of one function, and is shown beside the measured figure of that function's operation only, and not where the function calls others: their cost, where the work is, is not counted.".into(),
        ));
    }
}

/// Whether `e` estimates `operation`: the operation whose call is the function it read (a
/// run stored before it recorded which claims none), where that function does the work
/// itself; one that calls out leaves the work uncounted.
fn is_estimate_of(e: &Estimate, operation: &str) -> bool {
    e.operation.as_deref() == Some(operation) && !e.calls_out()
}

/// Rows = variants, columns = targets, for (name, text, figure) cells keyed by
/// `provider/algorithm/variant@target`.
fn variant_table(cells: &[(String, String, Option<f64>)]) -> Block {
    let (mut variants, mut targets) = (Vec::new(), Vec::new());
    for (name, _, _) in cells {
        if let Some((_, v, t)) = split_variant(name) {
            push_unique(&mut variants, v);
            push_unique(&mut targets, t);
        }
    }
    let rows = variants
        .iter()
        .map(|v| MatrixRow {
            label: v.to_string(),
            cells: targets
                .iter()
                .map(|t| {
                    cells
                        .iter()
                        .find(|(n, _, _)| {
                            split_variant(n).is_some_and(|(_, nv, nt)| nv == *v && nt == *t)
                        })
                        .map_or((String::new(), None), |(_, text, figure)| {
                            (text.clone(), *figure)
                        })
                })
                .collect(),
        })
        .collect();
    let mut headers = vec!["Variant".to_string()];
    headers.extend(targets.iter().map(|t| t.to_string()));
    Block::Matrix { headers, rows }
}

/// Cost per byte at maximum throughput (slopes), as variant x target matrices per
/// algorithm where the implementations are C builds, as a plain table otherwise.
pub(super) fn slope_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let Some(first) = a.slopes.first() else {
        return;
    };
    let u = &a.short_unit;
    let (from, to) = (first.from_len, first.to_len);
    let mut families: Vec<(ImplName, &str)> = Vec::new();
    let mut plain = Vec::new();
    for s in &a.slopes {
        match split_variant(&s.implementation) {
            Some((family, _, _)) if !families.contains(&(family, s.operation.as_str())) => {
                families.push((family, s.operation.as_str()))
            }
            Some(_) => {}
            None => plain.push(vec![
                s.implementation.clone(),
                s.operation.clone(),
                fmt_interval(&s.per_byte, fmt_per_byte),
            ]),
        }
    }
    for (family, op) in families {
        blocks.push(Block::Heading(format!(
            "{family} {op}: {u} per byte at maximum throughput (slope of the median from {from} to {to} bytes) [95 % CI]"
        )));
        let cells: Vec<(String, String, Option<f64>)> = a
            .slopes
            .iter()
            .filter(|s| {
                s.operation == op
                    && split_variant(&s.implementation).is_some_and(|(f, _, _)| f == family)
            })
            .map(|s| {
                (
                    s.implementation.clone(),
                    fmt_interval(&s.per_byte, fmt_per_byte),
                    Some(s.per_byte.estimate),
                )
            })
            .collect();
        blocks.push(variant_table(&cells));
    }
    if !plain.is_empty() {
        blocks.push(Block::Heading(format!(
            "{u} per byte at maximum throughput (slope from {from} to {to} bytes)"
        )));
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "Operation".into(),
                format!("{u}/byte [95 % CI]"),
            ],
            rows: plain,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_is_of_its_functions_operation_alone_and_only_where_it_does_the_work() {
        let of = |operation: Option<&str>, note: Option<&str>| Estimate {
            cycles: Some(46.8),
            model: "x86-64 (llvm-mca-19)".into(),
            note: note.map(String::from),
            function: operation.map(|_| "crypto_kem_enc".into()),
            operation: operation.map(String::from),
        };
        let straight = of(Some("encaps"), None);
        assert!(is_estimate_of(&straight, "encaps"));
        for other in ["keypair", "decaps"] {
            assert!(!is_estimate_of(&straight, other), "{other}");
        }
        let looping = of(
            Some("encaps"),
            Some("branches or loops: each instruction counted once per call (40 instructions)"),
        );
        assert!(is_estimate_of(&looping, "encaps"));
        let calls = format!(
            "{}: their cost is not included (23 instructions)",
            Estimate::CALLS_OUT
        );
        assert!(!is_estimate_of(&of(Some("encaps"), Some(&calls)), "encaps"));
        // Stored before the function was recorded: of no operation that can be named.
        assert!(!is_estimate_of(&of(None, None), "encaps"));
    }
}
