//! The N-lane table: one N-lane call against N calls of the fastest single-lane
//! implementation, per algorithm and (output, input) pair.

use super::Block;
use super::format::{fmt_count, fmt_per_byte, fmt_ratio};
use super::matrix::push_unique;
use super::notes::lane_clock_notes;
use crate::analysis::Analysis;
use crate::record::Param;

/// The N-way Keccak seed's table: per (output, input) pair, one N-lane call against N
/// calls of the fastest single-lane implementation.
pub(super) fn lane_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    let mut algorithms: Vec<&str> = Vec::new();
    for l in &a.lanes {
        push_unique(&mut algorithms, &l.algorithm);
    }
    for alg in algorithms {
        blocks.push(Block::Heading(format!(
            "{alg}: one N-lane call vs N calls of the fastest single-lane implementation (median {u}, speed-up [95 % CI])"
        )));
        let rows = a
            .lanes
            .iter()
            .filter(|l| l.algorithm == alg)
            .map(|l| {
                vec![
                    l.params
                        .get(Param::Out)
                        .map_or(String::new(), |v| v.to_string()),
                    l.params
                        .get(Param::Len)
                        .map_or(String::new(), |v| v.to_string()),
                    l.implementation.clone(),
                    fmt_count(l.median_call),
                    format!(
                        "{} ({} x {})",
                        fmt_count(l.lanes as f64 * l.median_single),
                        l.lanes,
                        l.single
                    ),
                    fmt_ratio(&l.speedup),
                    l.per_byte_per_lane.map_or(String::new(), fmt_per_byte),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Output".into(),
                "Input".into(),
                "N-lane implementation".into(),
                format!("One call ({u})"),
                format!("N single calls ({u})"),
                "Speed-up [95 % CI]".into(),
                format!("{u}/byte (in + out, all lanes)"),
            ],
            rows,
        });
        blocks.extend(lane_clock_notes(a, alg).into_iter().map(Block::Line));
    }
}
