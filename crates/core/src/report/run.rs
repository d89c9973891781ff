//! The blocks of one run's report: its header and provenance, the cases' figures,
//! ratios to a reference, and comparisons (within the run and against a baseline run).

use super::format::{
    ci_heading, counted, fmt_count, fmt_count_as, fmt_interval, fmt_outliers, fmt_p, fmt_pct,
    fmt_per_byte, fmt_rel, fmt_signed, fmt_throughput, ratio_operation,
};
use super::notes::{clock_notes, p_floor_notes, process_note};
use super::{Block, Document};
use crate::analysis::{
    Analysis, CaseStats, Comparison, LEVEL, NotCompared, Ratio, RunComparison, fmt_level,
};
use crate::counter::CounterKind;
use crate::record::Param;
use crate::record::{
    CBuild, CaseStatus, MachineRecord, RunCounter, RunHeader, RunOptions, RunOrigin,
};

/// The title, the counter and its clock, where and how the run was measured.
pub(super) fn header_blocks(a: &Analysis) -> Vec<Block> {
    let mut blocks = Vec::new();
    let h = &a.header;
    blocks.push(Block::Heading(format!(
        "cryptobench run {} — {}",
        h.id, h.experiment
    )));
    let mut tsc = h
        .tsc_hz
        .map_or(String::new(), |hz| format!(", TSC at {:.1} MHz", hz / 1e6));
    if let Some(hz) = h
        .machine
        .core_clock_hz()
        .filter(|_| h.counter == RunCounter::Measured(CounterKind::TscCore))
    {
        tsc += &format!(", core clock {:.0} MHz at the start", hz / 1e6);
        if a.cases.iter().any(|c| {
            c.measured
                .as_ref()
                .is_some_and(|m| m.core_clock_hz.is_some())
        }) {
            tsc += "; throughput uses the clock measured beside each case's samples";
        } else {
            tsc += " (throughput uses it)";
        }
    }
    blocks.push(Block::Line(format!(
        "Counter: {} — {}{tsc}",
        a.counter, a.unit
    )));
    if let Some(flags) = h
        .machine
        .measured()
        .and_then(|m| m.simulated_crypto_flags.as_ref())
    {
        let host_only: Vec<&str> = h
            .machine
            .measured()
            .map(|m| {
                m.crypto_flags
                    .iter()
                    .filter(|f| !flags.contains(f))
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default();
        blocks.push(Block::Line(format!(
            "Dispatch: counted on Valgrind's simulated CPU, whose CPUID shows {}{}; runtime dispatch picked the code for that CPU, and code needing more is not countable. Instructions are not time: for gates, not speed.",
            if flags.is_empty() { "no crypto features".to_string() } else { flags.join(", ") },
            if host_only.is_empty() {
                String::new()
            } else {
                format!(" (not {}, which this host has)", host_only.join(", "))
            }
        )));
    }
    blocks.extend(provenance(h, ""));
    let mut without_kat: Vec<&str> = a
        .cases
        .iter()
        .filter(|c| c.measured.is_some() && c.message.as_deref().is_some_and(kat_missing))
        .map(|c| c.implementation.as_str())
        .collect();
    without_kat.dedup();
    if !without_kat.is_empty() {
        blocks.push(Block::Warning(format!(
            "Warning: {} checked without its KAT file, which was not found: checked in part, not verified; give the KAT files' directory with --kat-dir DIR",
            match without_kat.len() {
                1 => format!("{} was", without_kat[0]),
                n => format!("{n} builds were"),
            }
        )));
    }
    match &h.options {
        RunOrigin::Imported(from) => blocks.push(Block::Line(format!(
            "Imported from {} ({}); figures are medians per call{}.",
            from.source,
            from.note,
            if a.cases
                .iter()
                .any(|c| c.measured.as_ref().is_some_and(|m| m.has_interval()))
            {
                ", intervals 95 %"
            } else {
                ", without intervals"
            }
        ))),
        RunOrigin::Measured { run, .. } => {
            let least = crate::stats::min_clusters(LEVEL);
            let measured: Vec<&crate::analysis::Measured> =
                a.cases.iter().filter_map(|c| c.measured.as_ref()).collect();
            let complete = h.status == crate::record::RunStatus::Complete;
            let intervals = if run.processes < least {
                format!(
                    "no intervals of the medians: a 95 % interval of a median needs {least} or more worker processes (--processes), whose medians vary (ratios, slopes and comparisons need 4)"
                )
            } else if complete || measured.iter().all(|m| m.has_interval()) {
                "intervals 95 % (processes resampled)".to_string()
            } else if measured.iter().any(|m| m.has_interval()) {
                format!(
                    "intervals 95 % (processes resampled) for the cases measured in {least} or more processes, none for the others"
                )
            } else {
                format!("no intervals of the medians: no case got the {least} processes one needs")
            };
            // An incomplete run's cases got fewer processes than asked: the header says
            // how many they got, not what was asked alone.
            let asked = counted(run.processes, "worker process", "worker processes");
            let fewest = measured.iter().map(|m| m.processes).min();
            let most = measured.iter().map(|m| m.processes).max();
            let processes = match (fewest, most) {
                (Some(lo), Some(hi)) if !complete && lo < run.processes => format!(
                    "up to {asked} (the run stopped with {} in a case)",
                    if lo == hi {
                        lo.to_string()
                    } else {
                        format!("{lo} to {hi}")
                    }
                ),
                (None, _) if !complete => {
                    format!("up to {asked} (the run stopped before any case was measured)")
                }
                _ => asked,
            };
            blocks.push(Block::Line(format!(
                "Each case: {processes} x {}, {}; figures are medians per call, {intervals}.",
                counted(run.layouts, "memory layout", "memory layouts"),
                run.cpu
                    .map_or("not pinned".to_string(), |c| format!("pinned to CPU {c}"))
            )));
            blocks.push(Block::Line(options_line(run, a)));
        }
        RunOrigin::Bulk { .. } | RunOrigin::Unreadable(_) => {}
    }
    if let Some(host) = &a.host {
        blocks.push(host_block(host));
    } else if host_not_checked(a) {
        blocks.push(Block::Warning(format!("Host: {NOT_CHECKED}.")));
    }
    let added: Vec<&CaseStats> = a.cases.iter().filter(|c| c.processes_added > 0).collect();
    if let (RunOrigin::Measured { run, .. }, false) = (&h.options, added.is_empty()) {
        let most = added.iter().map(|c| c.processes_added).max().unwrap_or(0);
        // Processes that only took the place of those set aside leave every case's count
        // as asked, and the table then has no Processes column to send the reader to.
        let where_said = if processes_column(a) {
            "the Processes column has each case's"
        } else {
            "each in place of one the canary set aside, so that every case's figures hold the processes asked; JSON's processes_added names them"
        };
        blocks.push(Block::Line(format!(
            "Re-measured: {} in more processes (up to {} beyond the {} asked; {where_said}), as the host moved while they ran or their intervals were wider than ±{} %.",
            counted(added.len(), "case", "cases"),
            most,
            run.processes,
            run.remeasure.precision_pct
        )));
    }

    blocks
}

/// Whether the case table has a Processes column: where some case's figures hold another
/// number of processes than the run asked (re-measured, or stopped before all ran).
fn processes_column(a: &Analysis) -> bool {
    match &a.header.options {
        RunOrigin::Measured { run, .. } => a.cases.iter().any(|c| {
            c.measured
                .as_ref()
                .is_some_and(|m| m.processes != run.processes)
        }),
        _ => false,
    }
}

/// The options that shape the table besides those the lines above it name (counter,
/// processes, layouts, CPU): with them, the table can be measured again as it was.
fn options_line(run: &RunOptions, a: &Analysis) -> String {
    let mut parts = vec![
        format!("seed {}", run.seed),
        format!(
            "{} samples per process and layout ({} per case of {})",
            run.plan.samples,
            run.plan.samples * run.layouts * run.processes,
            counted(run.processes, "process", "processes")
        ),
    ];
    let mut values: std::collections::BTreeMap<&str, std::collections::BTreeSet<u64>> =
        Default::default();
    for c in &a.cases {
        for (name, value) in c.params.iter() {
            values.entry(name).or_default().insert(value);
        }
    }
    for (name, values) in values {
        let values: Vec<String> = values.iter().map(u64::to_string).collect();
        parts.push(format!("{name} {}", values.join(", ")));
    }
    let r = &run.remeasure;
    parts.push(if r.is_off() {
        "no re-measuring".to_string()
    } else {
        format!(
            "re-measuring to ±{} % of the median, up to {}x the processes, {}",
            r.precision_pct,
            r.most_processes_factor,
            r.budget
                .map_or("for as long as the first pass took".to_string(), |d| {
                    format!("for at most {}", humantime::format_duration(d))
                })
        )
    });
    format!("Options: {}.", parts.join("; "))
}

/// What every format says of a run measured with `--no-canary`.
pub(crate) const NOT_CHECKED: &str = "not checked (--no-canary): without a canary beside the processes nothing says whether the host stayed steady";

/// Whether `a` was measured with `--no-canary`, as its stored options say: the host was
/// not checked, and its reports say so rather than look like those of a checked run.
pub(crate) fn host_not_checked(a: &Analysis) -> bool {
    matches!(&a.header.options, RunOrigin::Measured { run, .. } if run.no_canary)
        && a.host.is_none()
}

/// What the canary said of the host: a line where it held steady, a warning where not.
fn host_block(host: &crate::analysis::HostCheck) -> Block {
    let canary = format!(
        "{} ({}), beside every process: {}",
        host.canary.split(':').next().unwrap_or(&host.canary),
        fmt_count(host.reference),
        counted(host.processes, "process", "processes"),
    );
    if !host.settled() {
        return Block::Warning(format!(
            "Warning: the host never settled: the canary {canary} spread so widely that only a move beyond ±{:.0} % would stand out (up to {:+.1} %); the figures mix the host's states, and no gate decides on this run.",
            host.threshold_pct, host.largest_move_pct
        ));
    }
    if host.steady() {
        return Block::Line(format!(
            "Host: steady by the canary {canary} within ±{:.1} % of each other (its own noise).",
            host.threshold_pct
        ));
    }
    let mut what = format!(
        "Warning: the host moved: the canary {canary}; {} of them beyond ±{:.1} % (its own noise), up to {:+.1} %.",
        host.moved, host.threshold_pct, host.largest_move_pct
    );
    if !host.set_aside.is_empty() {
        what += &format!(
            " Those processes are left out of the figures of {} (their samples stay stored).",
            counted(host.set_aside.len(), "case", "cases")
        );
    }
    if !host.unsteady.is_empty() {
        what += &format!(
            " Too few steady processes to leave the others out, so their figures mix the host's states and no gate decides on them: {}.",
            host.unsteady.join(", ")
        );
    }
    Block::Warning(what)
}

/// Where and by what a stored run was measured, whether it finished, and the machine's
/// warnings: the lines every report of a run starts with. `cpus` goes after the CPU model.
pub(crate) fn provenance(h: &RunHeader, cpus: &str) -> Vec<Block> {
    let revision = h
        .git_revision
        .as_deref()
        .map_or(String::new(), |r| format!("; code at {r}"));
    let incomplete = h
        .incompleteness()
        .map_or(String::new(), |why| format!("; INCOMPLETE: {why}"));
    // The testbed is what `--testbed`, `machines` and a shared store's reports name it by.
    let testbed = match h.place.testbed.as_str() {
        "" => String::new(),
        t => format!(", testbed {t}"),
    };
    let mut lines = vec![Block::RunLine {
        machine: format!("{}{cpus}{testbed}", h.cpu_model),
        run: format!(
            "started {}; cryptobench {}{revision}{incomplete}",
            h.started_at, h.tool_version
        ),
        warning: !incomplete.is_empty(),
    }];
    // Which scheduler's job measured it: what a lab looks for in a table of many runs.
    if let Some(ci) = &h.place.ci {
        lines.push(Block::Line(format!("Measured by {}", ci.describe())));
    }
    lines.extend(build_lines(h));
    lines.extend(
        h.machine
            .warnings()
            .iter()
            .map(|w| Block::Warning(format!("Warning: {w}"))),
    );
    lines
}

/// Said of a run whose machine record this version cannot read.
const UNREAD_MACHINE: &str = "Warning: the run's machine record was stored by another version of cryptobench (or is damaged) and is not read here: the build, host, libraries and host warnings it holds are not shown (JSON prints the record as stored).";

/// Said of a run whose options this version cannot read.
const UNREAD_OPTIONS: &str = "Warning: the run's options were stored by another version of cryptobench (or are damaged) and are not read here: its processes, seed, sizes and command line are not shown (JSON prints them as stored).";

/// What built and ran the measured code, where the run recorded it: the compiler and its
/// flags, the host's kernel, crypto instruction sets and load, the libraries and the
/// command line. What a run stored before they were recorded lacks is left out.
fn build_lines(h: &RunHeader) -> Vec<Block> {
    let mut lines = Vec::new();
    // Left unsaid, what such a record holds would read as a run with nothing to warn of.
    if let MachineRecord::Unreadable(_) = h.machine {
        lines.push(Block::Warning(UNREAD_MACHINE.into()));
    }
    if let RunOrigin::Unreadable(_) = h.options {
        lines.push(Block::Warning(UNREAD_OPTIONS.into()));
    }
    if let Some(m) = h.machine.measured() {
        let build = m
            .build
            .as_ref()
            .map_or(" (profile and flags not recorded)".to_string(), |b| {
                format!(", {}", b.describe())
            });
        lines.push(Block::MachineLine(format!(
            "Built: {}{build}; cc: {}{}",
            m.rustc,
            m.cc.as_deref().unwrap_or("not found"),
            host_cc_note(h)
        )));
        lines.push(Block::MachineLine(format!(
            "Host: {}; crypto ISA: {}; load {} (1 min) on {}",
            m.kernel,
            if m.crypto_flags.is_empty() {
                "none listed".to_string()
            } else {
                m.crypto_flags.join(" ")
            },
            m.load_1min
                .map_or("unknown".to_string(), |l| format!("{l:.2}")),
            counted(m.online_cpus, "CPU", "CPUs")
        )));
        if let Some(libraries) = m.build.as_ref().and_then(|b| b.libraries_listed()) {
            lines.push(Block::MachineLine(format!("Libraries: {libraries}")));
        }
    }
    let (command, bench_target) = match &h.options {
        RunOrigin::Measured { run, .. } => {
            (run.command_line.as_slice(), run.bench_target.as_deref())
        }
        RunOrigin::Bulk { bulk } => (bulk.command_line.as_slice(), None),
        RunOrigin::Imported(_) | RunOrigin::Unreadable(_) => (&[][..], None),
    };
    if !command.is_empty() {
        // Quoted as a shell reads it back; an argument holding a NUL cannot be, and the
        // words are then shown as recorded, space-separated.
        let typed = as_typed(command, bench_target);
        let words = || typed.iter().map(String::as_str);
        let line =
            shlex::try_join(words()).unwrap_or_else(|_| words().collect::<Vec<_>>().join(" "));
        lines.push(Block::Line(format!("Command: {line}")));
    }
    lines
}

/// How the run's C builds were compiled, as it recorded them; none for runs without C
/// builds and those stored before they were recorded.
fn c_builds(h: &RunHeader) -> &[CBuild] {
    match &h.options {
        RunOrigin::Measured { run, .. } => &run.c_builds,
        _ => &[],
    }
}

/// What to say beside the host's `cc` where the run built C code: its builds were made by
/// the compilers their manifests name, which need not be that one.
pub(super) fn host_cc_note(h: &RunHeader) -> &'static str {
    if c_builds(h).is_empty() {
        ""
    } else {
        " (the host's; the C builds' compilers are listed under C builds)"
    }
}

/// One row per C build the run recorded: its compiler, that compiler's version and the
/// flags it compiled the build with, so that a table's variants and targets say what they
/// stand for (`o3-unroll`: `-O3 -funroll-loops`), whatever the manifest says today.
pub(super) fn c_build_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let builds = c_builds(&a.header);
    if builds.is_empty() {
        return;
    }
    blocks.push(Block::Heading(
        "C builds: the compiler and flags of each (every build also gets the link flags and prototypes header docs/c-api.md lists)".into(),
    ));
    let rows = builds
        .iter()
        .map(|b| {
            // Quoted only where a shell would split or unquote it: `-march=native` as it
            // is, `'-DNAME=a b'` quoted.
            let flags = (b.flags.iter())
                .map(
                    |f| match f.contains(|c: char| c.is_whitespace() || "'\"\\".contains(c)) {
                        true => shlex::try_quote(f).map_or_else(|_| f.clone(), |q| q.into_owned()),
                        false => f.clone(),
                    },
                )
                .collect::<Vec<_>>()
                .join(" ");
            vec![
                b.implementation.clone(),
                b.compiler.clone(),
                if b.version.is_empty() {
                    "not read".into()
                } else {
                    b.version.clone()
                },
                flags,
            ]
        })
        .collect();
    blocks.push(Block::Table {
        headers: ["Build", "Compiler", "Version", "Flags"]
            .map(String::from)
            .to_vec(),
        rows,
    });
}

/// A recorded command line as its reader types it: the program by its file name, not the
/// path it was started by (`./target/release/cryptobench`), which says where it was built,
/// not what ran. A `cargo bench` harness, which cargo starts as
/// `target/release/deps/NAME-HASH ARGS --bench` (`--bench` first before cargo 1.9x, last
/// since), reads as `cargo bench --bench NAME -- ARGS`,
/// NAME the target the harness recorded (`my-bench`, which cargo's binary name spells
/// `my_bench`) where it did.
fn as_typed(command: &[String], bench_target: Option<&str>) -> Vec<String> {
    let Some((program, args)) = command.split_first() else {
        return Vec::new();
    };
    let file = std::path::Path::new(program)
        .file_name()
        .map_or_else(|| program.clone(), |f| f.to_string_lossy().into_owned());
    // Runs recorded before argv was stored without passwords keep theirs: not printed.
    let args: Vec<String> = args
        .iter()
        .map(|a| crate::record::shown_argument(a))
        .collect();
    if let Some(at) = args.iter().position(|a| a == "--bench")
        && let Some((target, hash)) = file.rsplit_once('-')
        && hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
    {
        let target = bench_target.unwrap_or(target);
        let mut typed: Vec<String> = ["cargo", "bench", "--bench", target]
            .map(String::from)
            .to_vec();
        if args.len() > 1 {
            typed.push("--".into());
            typed.extend(args[..at].iter().chain(&args[at + 1..]).cloned());
        }
        return typed;
    }
    std::iter::once(file).chain(args).collect()
}

/// Every case's figures, then the reasons and notes that belong below them.
pub(super) fn case_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let h = &a.header;
    let u = &a.short_unit;
    // Another tool's figures were not checked against known answers here.
    let imported = h.imported().is_some();
    let status = |c: &CaseStats| {
        if imported && c.measured.is_some() {
            "imported, not verified".to_string()
        } else {
            status_cell(c)
        }
    };
    // Every parameter that varies between the cases is a column, or two rows (AES-GCM
    // at 64 bytes with and without associated data) would read as one case twice.
    let shown = param_columns(&a.cases);
    // Each case's processes, where some case's differ from those the header says were
    // asked: re-measured cases got more, and the header's count is not theirs.
    let processes_column = processes_column(a);
    let measured = || a.cases.iter().filter_map(|c| c.measured.as_ref());
    // A column of intervals only where some case has one: a run of fewer processes than
    // a median's interval needs would have a column of dashes under a heading that
    // promises intervals.
    let spread_column = measured().any(|m| m.has_interval());
    let mut rows = Vec::new();
    for c in &a.cases {
        let mut row = vec![c.implementation.clone(), c.operation.clone()];
        row.extend(shown.iter().map(|name| {
            c.params
                .get_named(name)
                .map_or(String::new(), |v| v.to_string())
        }));
        // An operation without bytes (a KEM's, a scalar multiplication's) shows the
        // parameters no column has.
        row.push(match c.bytes {
            Some(b) => b.to_string(),
            None => c
                .params
                .iter()
                .filter(|(name, _)| !shown.iter().any(|s| s == name))
                .map(|(name, v)| format!("{name}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
        });
        match &c.measured {
            Some(m) => {
                row.extend([
                    fmt_count(m.median.estimate),
                    match &m.per_byte {
                        Some(pb) if m.has_interval() => fmt_interval(pb, fmt_per_byte),
                        Some(pb) => fmt_per_byte(pb.estimate),
                        None => String::new(),
                    },
                ]);
                if spread_column {
                    row.push(if m.has_interval() {
                        fmt_rel(&m.median)
                    } else {
                        "—".into()
                    });
                }
                row.extend([
                    match (m.throughput_bytes_per_s, m.core_clock_hz) {
                        (Some(tp), Some(hz)) => {
                            format!("{} at {:.2} GHz", fmt_throughput(tp), hz / 1e9)
                        }
                        (Some(tp), None) => fmt_throughput(tp),
                        (None, _) => String::new(),
                    },
                    m.samples.to_string(),
                ]);
                if processes_column {
                    row.push(m.processes.to_string());
                }
                row.extend([fmt_outliers(&m.outliers, m.samples), status(c)]);
            }
            None => {
                row.extend(std::iter::repeat_n(
                    String::new(),
                    5 + usize::from(spread_column) + usize::from(processes_column),
                ));
                row.push(status_cell(c));
            }
        }
        rows.push(row);
    }
    let mut headers: Vec<String> = vec!["Implementation".into(), "Operation".into()];
    headers.extend(shown.iter().cloned());
    headers.extend([
        "Bytes".into(),
        format!("Median ({u})"),
        format!(
            "{u}/byte{}",
            ci_heading(
                measured()
                    .filter(|m| m.per_byte.is_some())
                    .map(|m| m.has_interval())
            )
        ),
    ]);
    if spread_column {
        headers.push("± (95 %)".into());
    }
    headers.extend(["Throughput".into(), "Samples".into()]);
    if processes_column {
        headers.push("Processes".into());
    }
    headers.extend(["Outliers".into(), "Status".into()]);
    blocks.push(Block::Table { headers, rows });
    if a.cases.iter().any(|c| c.params.get(Param::Out).is_some()) {
        let lanes = a.cases.iter().any(|c| c.lanes > 1);
        blocks.push(Block::Line(format!(
            "Bytes: what one call processes; for an XOF, its input plus its output{}.",
            if lanes {
                ", times the lanes of an N-lane one"
            } else {
                ""
            }
        )));
    }
    // Reasons once per implementation, below the table, instead of a column too wide to read.
    let mut reasons: Vec<String> = Vec::new();
    for c in &a.cases {
        if let Some(m) = &c.message {
            let line = if c.measured.is_some() {
                format!("Note: {m}")
            } else {
                format!("{}: {m}", c.implementation)
            };
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    blocks.extend(reasons.into_iter().map(Block::Line));
    let spreads = a.cases.iter().filter_map(|c| {
        let spread = c.measured.as_ref()?.process_spread_pct?;
        Some((c.key.as_str(), spread))
    });
    blocks.extend(process_note(spreads).map(Block::Line));
}

/// The parameters that take more than one value among the `cases` that have them, in
/// name order, each to be a column of its own; save the message length where the Bytes
/// column is that length for every case. (One that only some cases have, at one value,
/// tells no two rows apart: an AEAD's `ad=0` beside a hash.)
fn param_columns(cases: &[CaseStats]) -> Vec<String> {
    let names: std::collections::BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.params.iter().map(|(name, _)| name))
        .collect();
    names
        .into_iter()
        .filter(|&name| {
            let values: std::collections::BTreeSet<u64> = cases
                .iter()
                .filter_map(|c| c.params.get_named(name))
                .collect();
            let in_bytes = name == Param::Len.name()
                && cases.iter().all(|c| c.bytes == c.params.get(Param::Len));
            values.len() > 1 && !in_bytes
        })
        .map(str::to_string)
        .collect()
}

fn status_cell(c: &CaseStats) -> String {
    let host = if c.measured.is_none() {
        ""
    } else if c.unsteady {
        "; host unsteady"
    } else if c.set_aside > 0 {
        "; processes set aside (host)"
    } else {
        ""
    };
    status_cell_alone(c) + host
}

fn status_cell_alone(c: &CaseStats) -> String {
    if c.verified() {
        return "verified".into();
    }
    if c.measured.is_some() {
        // The note under the table says what the check could not cover; a KAT file
        // not found (the shipped Spook manifest's are outside a clone) is said here too,
        // with the way to give it, as a run without it is the usual case.
        if c.message.as_deref().is_some_and(kat_missing) {
            return "checked in part: KAT file not found, see --kat-dir (note)".into();
        }
        return "checked in part (see note)".into();
    }
    match c.status {
        CaseStatus::Wrong => "WRONG OUTPUT: not timed",
        CaseStatus::Failed => "FAILED",
        CaseStatus::Unsupported => "not supported on this CPU",
        CaseStatus::Pending => "not measured (interrupted)",
        CaseStatus::Ok => "no samples",
    }
    .into()
}

/// Whether a case's note says that its KAT file was not found (the words of
/// `cimpl::specs`).
fn kat_missing(message: &str) -> bool {
    message.contains("KAT file `") && message.contains("` not found")
}

/// Each member's cost over its reference's: the chacha20-rng seed's RNGs over their
/// cipher under its title, the reference as "speed limit"; any other ratio (`--ratio-to`)
/// under a title that claims nothing of the reference.
pub(super) fn ratio_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    let (limits, others): (Vec<&Ratio>, Vec<&Ratio>) = a.ratios.iter().partition(|r| r.speed_limit);
    for (ratios, title, change) in [
        (
            limits,
            format!("{u}/byte over the reference's (the reference is the \"speed limit\")"),
            "Overhead",
        ),
        (
            others,
            format!("{u}/byte over the reference's (measured interleaved in this run)"),
            "Change",
        ),
    ] {
        if ratios.is_empty() {
            continue;
        }
        blocks.push(Block::Heading(title));
        let rows = ratios
            .iter()
            .map(|r| {
                vec![
                    r.member.clone(),
                    ratio_operation(&r.operation, &r.reference_operation),
                    r.reference.clone(),
                    r.params.to_string(),
                    fmt_interval(&r.ratio, |x| format!("{x:.4}")),
                    format!("{} %", fmt_signed(100.0 * (r.ratio.estimate - 1.0))),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "Operation".into(),
                "Reference".into(),
                "Params".into(),
                "Ratio [95 % CI]".into(),
                change.into(),
            ],
            rows,
        });
    }
}

/// The run's comparisons, with the test and thresholds they were judged by.
pub(super) fn comparison_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    if !a.comparisons.is_empty() || !a.not_compared.is_empty() {
        blocks.push(Block::Heading(format!(
            "Within this run: each candidate against its baseline implementation (measured interleaved; {})",
            judged_by(&a.verdict_options)
        )));
        if !a.comparisons.is_empty() {
            comparison_table(blocks, &a.comparisons, &a.short_unit);
        }
        blocks.extend(not_compared_lines(&a.not_compared));
    }
}

/// What a comparison table's figures are and how its verdicts were reached.
fn judged_by(v: &crate::record::VerdictOptions) -> String {
    let change = match v.test {
        crate::record::Test::MannWhitney => {
            "the Hodges-Lehmann ratio of candidate to baseline with Moses' interval"
        }
        crate::record::Test::Welch => "the ratio of their geometric means with Welch's interval",
    };
    format!(
        "medians and stdevs of the per-process medians, which the {} test compares; overhead: {change}, the verdict read off that interval; difference: the baseline's median x (1 - that ratio), which agrees with the overhead where the gap between the two medians may not; significance {}, noise threshold {} %",
        v.test, v.significance, v.noise_threshold_pct
    )
}

pub(super) fn run_comparison_blocks(
    doc: &mut Document,
    rc: &RunComparison,
    unit: &str,
    opts: &crate::record::VerdictOptions,
    named: (Option<&str>, Option<&str>),
) {
    let name = |n: Option<&str>| n.map_or(String::new(), |n| format!(" (`{n}`)"));
    doc.blocks.push(Block::Heading(format!(
        "Run {}{} against baseline run {}{} (the same case in each; {})",
        rc.run_b,
        name(named.1),
        rc.run_a,
        name(named.0),
        judged_by(opts)
    )));
    for c in &rc.caveats {
        doc.blocks
            .push(Block::Warning(format!("Not comparable (forced): {c}")));
    }
    for w in &rc.warnings {
        doc.blocks.push(Block::Warning(format!("Warning: {w}")));
    }
    if !rc.comparisons.is_empty() {
        comparison_table(&mut doc.blocks, &rc.comparisons, unit);
    }
    doc.blocks.extend(not_compared_lines(&rc.not_compared));
    for k in &rc.only_in_a {
        doc.blocks
            .push(Block::Warning(format!("Only in run {}: {k}", rc.run_a)));
    }
    for k in &rc.only_in_b {
        doc.blocks
            .push(Block::Warning(format!("Only in run {}: {k}", rc.run_b)));
    }
}

fn not_compared_lines(not_compared: &[NotCompared]) -> impl Iterator<Item = Block> + '_ {
    not_compared.iter().map(|n| {
        Block::Warning(format!(
            "Not compared: {} vs {}: {}",
            crate::analysis::with_params(&n.candidate, &n.params),
            n.baseline,
            n.why
        ))
    })
}

fn comparison_table(blocks: &mut Vec<Block>, comparisons: &[Comparison], unit: &str) {
    // Where one operation is compared (the seed's tables), its name would only repeat.
    let operations: std::collections::BTreeSet<&str> =
        comparisons.iter().map(|c| c.operation.as_str()).collect();
    let with_operation = operations.len() > 1;
    let rows = comparisons
        .iter()
        .map(|c| {
            let params = if with_operation {
                format!("{} {}", c.operation, c.params)
                    .trim_end()
                    .to_string()
            } else {
                c.params.to_string()
            };
            vec![
                format!("{} vs {}", c.candidate, c.baseline),
                params,
                format!(
                    "{} / {}",
                    fmt_count(c.median_baseline),
                    fmt_count(c.median_candidate)
                ),
                fmt_count_as(
                    c.difference,
                    c.median_baseline.abs().min(c.median_candidate.abs()),
                ),
                fmt_pct(&c.change_pct),
                format!(
                    "{} / {}",
                    fmt_count(c.stdev_baseline),
                    fmt_count(c.stdev_candidate)
                ),
                fmt_p(c.p_value),
                c.verdict_said(),
            ]
        })
        .collect();
    blocks.push(Block::Table {
        headers: vec![
            "Candidate vs baseline".into(),
            if with_operation {
                "Operation, params".into()
            } else {
                "Params".into()
            },
            format!("Baseline / Candidate ({unit})"),
            format!("Difference ({unit}, baseline - candidate)"),
            format!(
                "Overhead [{} % CI]",
                fmt_level(comparisons.first().map_or(LEVEL, |c| c.change_pct.level))
            ),
            "Stdev baseline / candidate".into(),
            "p".into(),
            "Verdict".into(),
        ],
        rows,
    });
    blocks.extend(clock_notes(comparisons).into_iter().map(Block::Line));
    blocks.extend(p_floor_notes(comparisons).into_iter().map(Block::Line));
}

#[cfg(test)]
mod tests {
    use super::as_typed;
    use crate::build_info::{BuildInfo, Library};
    use crate::counter::{Calibration, CounterKind};
    use crate::machine::Machine;
    use crate::record::{
        AnalysisOptions, AnalysisSpec, Case, CaseStatus, MachineRecord, Param, Params, Remeasure,
        RunCounter, RunHeader, RunOptions, RunOrigin, RunStatus, SamplePlan, Samples,
        VerdictOptions,
    };
    use crate::report::{Format, render};
    use crate::store::Store;

    /// A run of one case asked in 2 processes and measured in 3, as re-measuring leaves
    /// it, with `machine` and `command_line` recorded.
    fn rendered(machine: Machine, command_line: Vec<String>, format: Format) -> String {
        rendered_with(
            MachineRecord::Measured(Box::new(machine)),
            command_line,
            format,
        )
    }

    /// A run's header on `machine`, asking `processes` processes (no canary).
    fn header(machine: MachineRecord, command_line: Vec<String>, processes: usize) -> RunHeader {
        RunHeader {
            id: 0,
            started_at: "2026-11-29T00:00:00Z".into(),
            finished_at: None,
            status: RunStatus::Running,
            experiment: "chacha20-rng".into(),
            tool_version: "0.1.0".into(),
            git_revision: None,
            counter: RunCounter::Measured(CounterKind::Tsc),
            unit: "reference cycles".into(),
            tsc_hz: Some(2.0e9),
            cpu_model: "Example CPU (6/167/1)".into(),
            machine,
            options: RunOrigin::Measured {
                run: RunOptions {
                    counter: CounterKind::Tsc,
                    cpu: Some(1),
                    processes,
                    layouts: 1,
                    plan: SamplePlan {
                        samples: 3,
                        ..SamplePlan::default()
                    },
                    timeout: std::time::Duration::from_secs(60),
                    seed: 4242,
                    remeasure: Remeasure::to_precision(0.5, None),
                    no_canary: true,
                    command_line,
                    bench_target: None,
                    c_builds: vec![],
                    narrowed: None,
                },
                analysis: AnalysisOptions {
                    spec: AnalysisSpec::default(),
                    verdict: VerdictOptions::DEFAULT,
                    baseline_run: None,
                    baseline_uuid: None,
                    force: false,
                },
            },
            place: Default::default(),
        }
    }

    /// [`rendered`] with any machine record, one this version cannot read too.
    fn rendered_with(machine: MachineRecord, command_line: Vec<String>, format: Format) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.db")).unwrap();
        let header = header(machine, command_line, 2);
        let id = store.begin_run(&header).unwrap();
        for (seq, len) in [1024, 4096].into_iter().enumerate() {
            let case = Case {
                implementation: "rand_chacha/chacha20-rng".into(),
                operation: "fill_bytes".into(),
                params: Params::new().with(Param::Len, len),
                lanes: 1,
            };
            let row = store.add_case(id, seq, &case).unwrap();
            // The longer case re-measured in a third process.
            for process in 0..if len == 4096 { 3 } else { 2 } {
                let samples = Samples {
                    calls_per_sample: 1,
                    calibration: Calibration::default(),
                    per_layout: vec![vec![100.0 + process as f64, 101.0, 102.0]],
                    core_clock: None,
                    canary: None,
                };
                store.add_samples(row, process, &samples).unwrap();
            }
            store.set_status(row, CaseStatus::Ok, None).unwrap();
        }
        store.finish_run(id, "2026-11-29T00:01:00Z").unwrap();
        let run = store.load_run(id).unwrap();
        let a = crate::analysis::analyse(&run, &Default::default()).unwrap();
        render(&a, format)
    }

    /// A machine record another version wrote is said to be unread, not left out as if
    /// the run had no build, host or warnings to tell.
    #[test]
    fn an_unread_machine_record_is_said_in_every_format() {
        let newer = MachineRecord::Unreadable(serde_json::json!({"record": "measured/9"}));
        for format in [Format::Table, Format::Md, Format::Html] {
            let said = rendered_with(newer.clone(), vec![], format);
            assert!(
                said.contains("machine record was stored by another version of cryptobench"),
                "{format:?}: {said}"
            );
        }
    }

    fn built_machine() -> Machine {
        Machine {
            build: Some(BuildInfo {
                profile: "release".into(),
                opt_level: "3".into(),
                rustflags: vec!["-C".into(), "target-cpu=native".into()],
                target_cpu: Some("native".into()),
                libraries: vec![
                    Library {
                        name: "OpenSSL".into(),
                        version: "3.0.19 27 Jan 2026".into(),
                        origin: Some("linked C library".into()),
                    },
                    Library {
                        name: "rand_chacha".into(),
                        version: "0.10.0".into(),
                        origin: None,
                    },
                ],
            }),
            load_1min: Some(0.25),
            ..Machine::example(None)
        }
    }

    /// The md header says what built and ran the code and the options that shape the
    /// table, so that the table can be measured again from what it prints; the program
    /// by its name, not by the path it was started by.
    #[test]
    fn the_header_says_what_built_and_ran_the_code_and_how() {
        let argv = [
            "/work/main/target/release/cryptobench",
            "run",
            "chacha20-rng",
            "--seed",
            "4242",
            "--impl",
            "a b",
        ];
        let md = rendered(
            built_machine(),
            argv.iter().map(|a| a.to_string()).collect(),
            Format::Md,
        );
        for line in [
            "Built: rustc, release (opt-level 3), target-cpu native, RUSTFLAGS \"-C target-cpu=native\"; cc: not found",
            "Host: Linux; crypto ISA: aes avx2; load 0.25 (1 min) on 2 CPUs",
            "Libraries: OpenSSL 3.0.19 27 Jan 2026 (linked C library), rand_chacha 0.10.0",
            "Command: cryptobench run chacha20-rng --seed 4242 --impl 'a b'",
            "Options: seed 4242; 3 samples per process and layout (6 per case of 2 processes); len 1024, 4096; re-measuring to ±0.5 % of the median, up to 3x the processes, for as long as the first pass took.",
        ] {
            assert!(md.contains(line), "no `{line}` in:\n{md}");
        }
        assert!(!md.contains("/work/main"), "{md}");
    }

    /// The HTML page says each fact of the machine record once: the build and the
    /// libraries in its machine block, beside the compilers, kernel, instruction sets and
    /// load the `Built:` and `Host:` lines repeat in text; the command below it.
    #[test]
    fn the_html_page_says_each_machine_fact_once() {
        let argv = ["./target/release/cryptobench", "run", "--impl", "a b"];
        let html = rendered(
            built_machine(),
            argv.iter().map(|a| a.to_string()).collect(),
            Format::Html,
        );
        for fact in [
            "<dt>Compilers</dt><dd>rustc; cc: not found</dd>",
            "<dt>Build</dt><dd>release (opt-level 3), target-cpu native, RUSTFLAGS &quot;-C target-cpu=native&quot;</dd>",
            "<dt>Libraries</dt><dd>OpenSSL 3.0.19 27 Jan 2026 (linked C library), rand_chacha 0.10.0</dd>",
            "<dt>Kernel</dt><dd>Linux</dd>",
            "<dt>Crypto instruction sets</dt><dd>aes avx2</dd>",
            "<dt>Load (1 min)</dt><dd>0.25</dd>",
            "<p>Command: cryptobench run --impl &#39;a b&#39;</p>",
        ] {
            assert_eq!(
                html.matches(fact).count(),
                1,
                "`{fact}` not once in:\n{html}"
            );
        }
        // The CPU and the counter are said once too: the model in the machine block, not
        // again in a `Machine:` line; the counter and the TSC in the `Counter:` line.
        assert!(
            html.contains("<dt>CPU</dt><dd>Example CPU (6/167/1), x86_64</dd>"),
            "{html}"
        );
        assert!(
            html.contains("<p>Run: started 2026-11-29T00:00:00Z;"),
            "{html}"
        );
        for repeated in [
            "Built:",
            "Host:",
            "Libraries:",
            "target-cpu native",
            "3.0.19",
            "Example CPU",
            "2000.0 MHz",
        ] {
            assert!(
                html.matches(repeated).count() <= 1,
                "`{repeated}` more than once in:\n{html}"
            );
        }
    }

    /// A run of C builds (`spook/clyde-128/<variant>@<target>`), every case measured in
    /// `processes` processes, rendered in `format`.
    fn variants_in(processes: usize, format: Format) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.db")).unwrap();
        let header = header(
            MachineRecord::Measured(Box::new(built_machine())),
            vec![],
            processes,
        );
        let id = store.begin_run(&header).unwrap();
        let names = [
            "clyde_32bit@x86-64",
            "clyde_32bit@haswell",
            "clyde_64bit@x86-64",
        ];
        for (seq, name) in names.into_iter().enumerate() {
            for (n, len) in [(0, 2048), (1, 8192)] {
                let case = Case {
                    implementation: format!("spook/clyde-128/{name}"),
                    operation: "encrypt".into(),
                    params: Params::new().with(Param::Len, len),
                    lanes: 1,
                };
                let row = store.add_case(id, 2 * seq + n, &case).unwrap();
                for process in 0..processes {
                    let samples = Samples {
                        calls_per_sample: 1,
                        calibration: Calibration::default(),
                        per_layout: vec![vec![len as f64 * (1.0 + process as f64 / 100.0); 3]],
                        core_clock: None,
                        canary: None,
                    };
                    store.add_samples(row, process, &samples).unwrap();
                }
                store.set_status(row, CaseStatus::Ok, None).unwrap();
            }
        }
        store.finish_run(id, "2026-11-29T00:01:00Z").unwrap();
        let run = store.load_run(id).unwrap();
        let a = crate::analysis::analyse(&run, &Default::default()).unwrap();
        render(&a, format)
    }

    /// Below the 6 processes a median's interval needs, no heading promises one: not the
    /// case table's per-byte column (nor a column of dashes for its ±), nor the variant x
    /// target matrices; with 6, they all do.
    #[test]
    fn headings_promise_intervals_only_where_the_cells_have_them() {
        for format in [Format::Table, Format::Md, Format::Html] {
            let few = variants_in(4, format);
            assert!(few.contains("no intervals of the medians"), "{few}");
            assert!(!few.contains("95 % CI"), "{format:?}: {few}");
            assert!(!few.contains("± (95 %)"), "{format:?}: {few}");
            assert!(few.contains("cycles/byte"), "{few}");
            assert!(
                few.contains("spook/clyde-128 encrypt len=2048: ref-cycles per byte, median"),
                "{few}"
            );
            let enough = variants_in(6, format);
            assert!(
                enough.contains(
                    "spook/clyde-128 encrypt len=2048: ref-cycles per byte, median [95 % CI]"
                ),
                "{format:?}: {enough}"
            );
            assert!(enough.contains("ref-cycles/byte [95 % CI]"), "{enough}");
            assert!(enough.contains("± (95 %)"), "{enough}");
        }
    }

    /// A page whose machine record is unread still names the CPU once, from the run's own
    /// column of it, and text still says it in the `Machine:` line.
    #[test]
    fn an_unread_machine_record_still_names_the_cpu_once() {
        let newer = MachineRecord::Unreadable(serde_json::json!({"record": "measured/9"}));
        let html = rendered_with(newer.clone(), vec![], Format::Html);
        assert_eq!(html.matches("Example CPU (6/167/1)").count(), 1, "{html}");
        assert!(
            html.contains("<dt>CPU</dt><dd>Example CPU (6/167/1)</dd>"),
            "{html}"
        );
        let text = rendered_with(newer, vec![], Format::Table);
        assert!(
            text.contains("Machine: Example CPU (6/167/1), testbed "),
            "{text}"
        );
    }

    /// A command line reads as it is typed: a program by its file name; a `cargo bench`
    /// harness, which cargo starts by its path under `deps/` with a hash, as the
    /// `cargo bench` that runs it again, with its own arguments after `--`.
    #[test]
    fn a_command_reads_as_typed() {
        let typed_as = |argv: &[&str], bench_target: Option<&str>| {
            as_typed(
                &argv.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
                bench_target,
            )
            .join(" ")
        };
        let typed = |argv: &[&str]| typed_as(argv, None);
        assert_eq!(typed(&["./cryptobench", "run", "x"]), "cryptobench run x");
        assert_eq!(typed(&["cryptobench", "list"]), "cryptobench list");
        assert_eq!(
            typed(&[
                "/src/mycrate/target/release/deps/chacha-0123456789abcdef",
                "--bench",
                "--baseline",
                "main",
            ]),
            "cargo bench --bench chacha -- --baseline main"
        );
        assert_eq!(
            typed(&["target/release/deps/chacha-0123456789abcdef", "--bench"]),
            "cargo bench --bench chacha"
        );
        // As cargo 1.95 starts it: the user's arguments first, `--bench` last.
        assert_eq!(
            typed(&[
                "/src/mycrate/target/release/deps/hashes-91704d117c398b59",
                "--processes",
                "4",
                "--sizes",
                "64,4096",
                "--bench",
            ]),
            "cargo bench --bench hashes -- --processes 4 --sizes 64,4096"
        );
        // The target's own name, where the harness recorded it: cargo's `_` was its `-`.
        assert_eq!(
            typed_as(
                &["target/release/deps/my_bench-0123456789abcdef", "--bench"],
                Some("my-bench")
            ),
            "cargo bench --bench my-bench"
        );
        // Not cargo's: an example started by hand, a name that only looks hashed.
        assert_eq!(
            typed(&["target/release/examples/bench_catalog", "--bench", "x"]),
            "bench_catalog --bench x"
        );
        assert_eq!(typed(&["/bin/my-tool", "--bench"]), "my-tool --bench");
        // A password a run recorded before argv was stored without one is not printed.
        assert_eq!(
            typed(&[
                "cryptobench",
                "run",
                "--push-to",
                "postgres://ci:s3cret@db/bench"
            ]),
            "cryptobench run --push-to postgres://ci:***@db/bench"
        );
        assert_eq!(typed(&[]), "");
    }

    /// A case measured in more processes than the header's count has its own in a column.
    #[test]
    fn a_case_in_more_processes_than_asked_shows_its_count() {
        let md = rendered(built_machine(), vec![], Format::Md);
        let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
        let cells =
            |line: &str| -> Vec<String> { line.split('|').map(|c| c.trim().to_string()).collect() };
        let header = cells(table[0]);
        let column = header.iter().position(|h| h == "Processes").expect(&md);
        assert_eq!(cells(table[2])[column], "2", "{md}");
        assert_eq!(cells(table[3])[column], "3", "{md}");
        assert!(md.contains("the Processes column has each case's"), "{md}");
    }

    /// A run stored before the build and command line were recorded reports what it has.
    #[test]
    fn a_run_recorded_without_build_or_command_line_still_reports() {
        let md = rendered(Machine::example(None), vec![], Format::Md);
        assert!(
            md.contains("Built: rustc (profile and flags not recorded); cc: not found"),
            "{md}"
        );
        assert!(md.contains("Options: seed 4242;"), "{md}");
        assert!(
            !md.contains("Command:") && !md.contains("Libraries:"),
            "{md}"
        );
    }
}
