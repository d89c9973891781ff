//! What the store keeps about a run besides its cases: when and where it was measured,
//! with which counter, and how it was asked to measure and analyse. Typed, so that a
//! report reading a field the run never stored fails to compile, not to print.

use std::fmt;

use anyhow::{Result, bail};

use super::options::{AnalysisOptions, BulkOptions, RunOptions};
use super::place::RunPlace;
use crate::counter::CounterKind;
use crate::machine::Machine;

/// What identifies a run and the conditions it was measured under.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunHeader {
    /// The run's id in its store (0 until the store gives it one).
    pub id: i64,
    /// When it began (an import: when the other tool measured, where known), RFC 3339
    /// to the second.
    pub started_at: String,
    /// When it ended: its last case measured, or, for a run still `Running`, when Ctrl-C
    /// or SIGTERM stopped it. `None` while it runs, and for good where it was killed or crashed.
    pub finished_at: Option<String>,
    /// Whether it got to its end.
    pub status: RunStatus,
    /// The run's name: the experiment, or the filters and manifests measured; `bulk`,
    /// or `import:SOURCE`.
    pub experiment: String,
    /// The version of cryptobench that measured or imported it.
    pub tool_version: String,
    /// The git commit that cryptobench was built from (`-dirty` with uncommitted
    /// changes); `None` where unknown, and for imports.
    pub git_revision: Option<String>,
    /// The counter its figures are in.
    pub counter: RunCounter,
    /// The unit of one count, as printed beside every figure.
    pub unit: String,
    /// The TSC's rate in ticks per second, where measured; `None` for imports.
    pub tsc_hz: Option<f64>,
    /// The CPU as comparisons key on it: model name and signature
    /// ([`Machine::cpu_identity`]), or what an importer says.
    pub cpu_model: String,
    /// The machine it was measured on, as far as known.
    pub machine: MachineRecord,
    /// How it came to be: its options, or where imported figures came from.
    pub options: RunOrigin,
    /// Its UUID, testbed, hardware fingerprint and CI origin.
    pub place: RunPlace,
}

impl RunHeader {
    /// A run measured here and now by this build of cryptobench, before its first case.
    pub fn measured_now(
        experiment: &str,
        counter: CounterKind,
        machine: Machine,
        options: RunOrigin,
        testbed: Option<&str>,
    ) -> RunHeader {
        let cpu_model = machine.cpu_identity();
        let tsc_hz = machine.tsc_hz;
        let machine = MachineRecord::Measured(Box::new(machine));
        RunHeader {
            id: 0,
            started_at: now(),
            finished_at: None,
            status: RunStatus::Running,
            experiment: experiment.into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            git_revision: Some(env!("CRYPTOBENCH_GIT_REVISION").to_string())
                .filter(|r| !r.is_empty()),
            counter: RunCounter::Measured(counter),
            unit: counter.unit().into(),
            tsc_hz,
            place: RunPlace::new_run(&machine, &cpu_model, testbed),
            cpu_model,
            machine,
            options,
        }
    }

    /// When Ctrl-C or SIGTERM stopped it before its end, where one did: the only ending
    /// of an unfinished run the run itself could still write down.
    pub fn stopped_at(&self) -> Option<&str> {
        match self.status {
            RunStatus::Running => self.finished_at.as_deref(),
            RunStatus::Complete => None,
        }
    }

    /// Why it is not whole, in words every report shares: `None` for a complete run. A
    /// run killed, crashed or still measuring looks the same in the store, so it is not
    /// told which.
    pub fn incompleteness(&self) -> Option<String> {
        match (self.status, self.stopped_at()) {
            (RunStatus::Complete, _) => None,
            (RunStatus::Running, Some(at)) => {
                Some(format!("stopped at {at} before every case was measured"))
            }
            (RunStatus::Running, None) => {
                Some("stopped before every case was measured, or still measuring".into())
            }
        }
    }

    /// Where another tool's figures came from, for an imported run.
    pub fn imported(&self) -> Option<&ImportedFrom> {
        match &self.options {
            RunOrigin::Imported(from) => Some(from),
            _ => None,
        }
    }
}

/// Whose git revision a run records: that of the code it measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeRevision {
    /// This build of cryptobench's (recorded when it was built): its catalog is the code
    /// measured.
    Instrument,
    /// A checkout's, found when the run starts: a crate's own, under `cargo bench`. `None`
    /// where the crate is not in git.
    Checkout(Option<String>),
}

/// The revision of the git checkout `dir` is in: 12 hex digits, `-dirty` where tracked
/// files have changed; `None` where `dir` is in no checkout or git cannot be run.
pub fn checkout_revision(dir: &std::path::Path) -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    let head = git(&["rev-parse", "--short=12", "HEAD"])?;
    let revision = String::from_utf8(head.stdout).ok()?.trim().to_string();
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|o| !o.stdout.is_empty());
    Some(if dirty {
        format!("{revision}-dirty")
    } else {
        revision
    })
}

/// The time now, as runs record it (RFC 3339, seconds).
pub fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// Whether a run got to its end: one that stays `Running` was stopped, or is measuring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Begun and not finished: still measuring, or stopped before the end.
    Running,
    /// Measured to the end, or imported whole.
    Complete,
}

impl RunStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
        }
    }
    /// The word reports and exports give it: `complete`, or `incomplete` for a run that
    /// is not. A run killed or crashed stays `running` in the store like one still
    /// measuring, so neither word is claimed (`stopped_at` says when Ctrl-C or SIGTERM
    /// stopped one).
    pub fn reported(self) -> &'static str {
        match self {
            RunStatus::Running => "incomplete",
            RunStatus::Complete => "complete",
        }
    }
    pub(crate) fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "running" => RunStatus::Running,
            "complete" => RunStatus::Complete,
            other => bail!("unknown run status `{other}` in the store"),
        })
    }
}

/// The counter a run's figures are in: one of ours, or the one an importer names for
/// another tool's figures, so that runs in different counts are never put side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum RunCounter {
    /// Measured by cryptobench, in one of its counters.
    Measured(CounterKind),
    /// Imported, in the other tool's counts.
    Imported(ImportedCounter),
}

/// The counts of another tool's figures, as its importer read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportedCounter {
    /// criterion's wall-clock nanoseconds.
    CriterionNs,
    /// Reference cycles (rdtsc) from criterion-cycles-per-byte.
    CriterionCycles,
    /// Nanoseconds per call, derived from `openssl speed`'s bytes per second.
    OpensslSpeed,
}

impl ImportedCounter {
    /// The unit of one count, as printed beside every figure.
    pub fn unit(self) -> &'static str {
        match self {
            ImportedCounter::CriterionNs => "ns (criterion wall clock)",
            ImportedCounter::CriterionCycles => {
                "reference cycles (criterion-cycles-per-byte, rdtsc)"
            }
            ImportedCounter::OpensslSpeed => "ns (openssl speed, from its bytes per second)",
        }
    }
}

impl RunCounter {
    /// Short unit for table headers, exports and every check that two runs count alike
    /// ([`CounterKind::short_unit`]).
    pub fn short_unit(self) -> &'static str {
        match self {
            RunCounter::Measured(kind) => kind.short_unit(),
            RunCounter::Imported(ImportedCounter::CriterionCycles) => "ref-cycles",
            RunCounter::Imported(ImportedCounter::CriterionNs | ImportedCounter::OpensslSpeed) => {
                "ns"
            }
        }
    }

    /// The counter named `name` in the store's `counter` column.
    pub(crate) fn parse(name: &str) -> Result<Self> {
        serde_json::from_value(serde_json::Value::String(name.into())).map_err(|_| {
            anyhow::anyhow!(
                "unknown counter `{name}` in the store: was the run stored by a newer cryptobench?"
            )
        })
    }
}

impl fmt::Display for RunCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunCounter::Measured(kind) => kind.fmt(f),
            RunCounter::Imported(imported) => f.write_str(match imported {
                ImportedCounter::CriterionNs => "criterion-ns",
                ImportedCounter::CriterionCycles => "criterion-cycles",
                ImportedCounter::OpensslSpeed => "openssl-speed",
            }),
        }
    }
}

/// The machine a run was measured on: all we detected, or, for figures another tool
/// measured, only the little its importer can say.
///
/// Stored tagged and versioned (`{"record": "measured/1", ...}`, since schema 6), as
/// [`RunOrigin`] is: a record of a form this version does not know reads as
/// [`MachineRecord::Unreadable`], kept as stored, instead of as whichever variant its
/// fields happen to fit. Changing a field of [`Machine`] that a reader needs is a new
/// version.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "record")]
pub enum MachineRecord {
    /// Detected by cryptobench as it measured the run.
    #[serde(rename = "measured/1")]
    Measured(Box<Machine>),
    /// What an importer says of a machine it never saw.
    #[serde(rename = "unrecorded/1")]
    Unrecorded(UnrecordedMachine),
    /// A record this version cannot read (stored by another version), kept as stored.
    #[serde(untagged)]
    Unreadable(serde_json::Value),
}

/// The untagged form schemas 1 to 5 stored, which the JSON export still prints and the
/// migration to schema 6 reads.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum UntaggedMachine {
    Measured(Box<Machine>),
    Unrecorded(UnrecordedMachine),
}

/// What an importer can say of a machine it never saw. Exactly these fields: a record
/// of another form that has them too must not read as one that was never recorded.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnrecordedMachine {
    /// The CPU model, as the importer names it (usually "unknown (not recorded by …)").
    pub cpu_model: String,
    /// Why the imported figures are to be read with care.
    pub warnings: Vec<String>,
}

impl MachineRecord {
    /// The detected machine; `None` for an imported or unreadable record.
    pub fn measured(&self) -> Option<&Machine> {
        match self {
            MachineRecord::Measured(m) => Some(m),
            _ => None,
        }
    }

    /// The core clock when the run started, where it was measured.
    pub fn core_clock_hz(&self) -> Option<f64> {
        self.measured().and_then(|m| m.core_clock_hz)
    }

    /// The record a store of schema 1 to 5 held, in its untagged form; `None` if it
    /// fits neither form (it is then kept as stored, unreadable).
    pub fn from_untagged(value: &serde_json::Value) -> Option<MachineRecord> {
        Some(match serde_json::from_value(value.clone()).ok()? {
            UntaggedMachine::Measured(m) => MachineRecord::Measured(m),
            UntaggedMachine::Unrecorded(m) => MachineRecord::Unrecorded(m),
        })
    }

    /// The record without its tag, as the JSON export shows it.
    pub fn untagged(&self) -> serde_json::Value {
        let form = match self.clone() {
            MachineRecord::Measured(m) => UntaggedMachine::Measured(m),
            MachineRecord::Unrecorded(m) => UntaggedMachine::Unrecorded(m),
            MachineRecord::Unreadable(value) => return value,
        };
        serde_json::to_value(form).expect("machine records serialise")
    }

    /// What makes the run's numbers less trustworthy, as detected or as imported.
    pub fn warnings(&self) -> &[String] {
        match self {
            MachineRecord::Measured(m) => &m.warnings,
            MachineRecord::Unrecorded(m) => &m.warnings,
            MachineRecord::Unreadable(_) => &[],
        }
    }
}

/// How a run came to be, stored with it (`options_json`) so that `report` repeats what
/// `run` printed: the options it was measured and analysed with, or where an imported
/// run's figures came from.
///
/// Stored tagged and versioned (`{"origin": "run/1", ...}`): a reader knows which form it
/// holds, and a form it does not know (another version's) reads as
/// [`RunOrigin::Unreadable`], kept as stored, instead of as whichever variant its fields
/// happen to fit. Changing a field of the options inside is a new version.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "origin")]
#[allow(
    clippy::large_enum_variant,
    reason = "one a run, held once per run read: boxing the options would touch every match on them for no gain"
)]
pub enum RunOrigin {
    /// `cryptobench run`.
    #[serde(rename = "run/1")]
    Measured {
        /// How it was asked to measure.
        run: RunOptions,
        /// How it was asked to analyse.
        analysis: AnalysisOptions,
    },
    /// `cryptobench bulk`.
    #[serde(rename = "bulk/1")]
    Bulk {
        /// What it was asked to measure.
        bulk: BulkOptions,
    },
    /// `cryptobench import`.
    #[serde(rename = "import/1")]
    Imported(ImportedFrom),
    /// Options this version cannot read (stored by another version, or untagged as
    /// schema 2 stored them): kept as stored, so the run's cases can still be listed,
    /// and its analysis says why it cannot be done.
    #[serde(untagged)]
    Unreadable(serde_json::Value),
}

/// The untagged form schema 2 stored, which the JSON export still prints (its readers
/// see the options as they always did) and the migration to schema 3 reads.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
#[allow(
    clippy::large_enum_variant,
    reason = "built only to read or print one run's options, as RunOrigin"
)]
enum UntaggedOrigin {
    Run {
        run: RunOptions,
        analysis: AnalysisOptions,
    },
    Bulk {
        bulk: BulkOptions,
    },
    Import(ImportedFrom),
}

impl RunOrigin {
    /// The origin a schema 2 store held, in its untagged form; `None` if it fits none.
    pub fn from_untagged(value: &serde_json::Value) -> Option<RunOrigin> {
        Some(match serde_json::from_value(value.clone()).ok()? {
            UntaggedOrigin::Run { run, analysis } => RunOrigin::Measured { run, analysis },
            UntaggedOrigin::Bulk { bulk } => RunOrigin::Bulk { bulk },
            UntaggedOrigin::Import(from) => RunOrigin::Imported(from),
        })
    }

    /// The options without their tag, as the JSON export shows them.
    pub fn untagged(&self) -> serde_json::Value {
        let form = match self.clone() {
            RunOrigin::Measured { run, analysis } => UntaggedOrigin::Run { run, analysis },
            RunOrigin::Bulk { bulk } => UntaggedOrigin::Bulk { bulk },
            RunOrigin::Imported(from) => UntaggedOrigin::Import(from),
            RunOrigin::Unreadable(value) => return value,
        };
        serde_json::to_value(form).expect("options serialise")
    }
}

/// Where an imported run's figures came from.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ImportedFrom {
    /// `criterion` or `openssl-speed`.
    pub source: String,
    /// The directory or file read.
    pub path: String,
    /// How the figures were obtained and their unit decided, for the report.
    pub note: String,
    /// When it was imported, RFC 3339 to the second.
    pub imported_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_stored_by_the_names_the_schema_lists() {
        for (name, counter) in [
            ("tsc", RunCounter::Measured(CounterKind::Tsc)),
            ("perf", RunCounter::Measured(CounterKind::Perf)),
            ("tsc-core", RunCounter::Measured(CounterKind::TscCore)),
            ("ns", RunCounter::Measured(CounterKind::Ns)),
            (
                "criterion-ns",
                RunCounter::Imported(ImportedCounter::CriterionNs),
            ),
            (
                "criterion-cycles",
                RunCounter::Imported(ImportedCounter::CriterionCycles),
            ),
            (
                "openssl-speed",
                RunCounter::Imported(ImportedCounter::OpensslSpeed),
            ),
        ] {
            assert_eq!(RunCounter::parse(name).unwrap(), counter);
            assert_eq!(counter.to_string(), name);
            assert_eq!(serde_json::to_value(counter).unwrap(), name);
        }
        let err = RunCounter::parse("rdpmc").unwrap_err().to_string();
        assert!(err.contains("unknown counter `rdpmc`"), "{err}");
    }

    #[test]
    fn machine_records_read_back_as_what_they_were() {
        let measured = MachineRecord::Measured(Box::new(Machine::example(Some(3.5e9))));
        let stored = serde_json::to_value(&measured).unwrap();
        assert_eq!(stored["record"], "measured/1");
        let back: MachineRecord = serde_json::from_value(stored).unwrap();
        assert_eq!(back.core_clock_hz(), Some(3.5e9));
        assert_eq!(back.measured().unwrap().cpu_signature, "6/167/1");

        let imported = serde_json::json!({
            "record": "unrecorded/1", "cpu_model": "unknown", "warnings": ["imported"]
        });
        let back: MachineRecord = serde_json::from_value(imported.clone()).unwrap();
        assert!(back.measured().is_none());
        assert_eq!(back.warnings(), ["imported"]);
        assert_eq!(back.core_clock_hz(), None);
        assert_eq!(serde_json::to_value(&back).unwrap(), imported);

        // The untagged forms of schemas 1 to 5 read as unreadable, unless read as such
        // (the migration), and the JSON export still prints them.
        let untagged = serde_json::json!({ "cpu_model": "unknown", "warnings": ["imported"] });
        let back: MachineRecord = serde_json::from_value(untagged.clone()).unwrap();
        assert!(matches!(back, MachineRecord::Unreadable(_)));
        let back = MachineRecord::from_untagged(&untagged).unwrap();
        assert_eq!(back.warnings(), ["imported"]);
        assert_eq!(back.untagged(), untagged);
        let old = measured.untagged();
        assert!(old.get("record").is_none());
        assert!(
            MachineRecord::from_untagged(&old)
                .unwrap()
                .measured()
                .is_some()
        );

        let foreign = serde_json::json!({ "cpu": 7 });
        let back: MachineRecord = serde_json::from_value(foreign.clone()).unwrap();
        assert!(matches!(back, MachineRecord::Unreadable(_)));
        assert!(back.warnings().is_empty());
        assert!(MachineRecord::from_untagged(&foreign).is_none());

        // A detected machine with a counter this version does not know: unreadable, kept
        // as stored.
        let mut newer = serde_json::to_value(&measured).unwrap();
        newer["counters"] = serde_json::json!([
            { "counter": "rdpmc", "unit": "cycles", "available": true, "reason": null }
        ]);
        let back: MachineRecord = serde_json::from_value(newer.clone()).unwrap();
        assert!(matches!(back, MachineRecord::Unreadable(_)), "{back:?}");
        assert_eq!(serde_json::to_value(&back).unwrap(), newer);
    }

    #[test]
    fn each_origin_reads_back_as_itself_and_foreign_options_are_kept() {
        let from = serde_json::json!({
            "source": "criterion", "path": "target/criterion",
            "note": "n", "imported_at": "2026-11-23T00:00:00Z",
        });
        let mut stored = from.clone();
        stored["origin"] = "import/1".into();
        let origin: RunOrigin = serde_json::from_value(stored.clone()).unwrap();
        assert!(matches!(&origin, RunOrigin::Imported(f) if f.source == "criterion"));
        assert_eq!(serde_json::to_value(&origin).unwrap(), stored);
        assert_eq!(origin.untagged(), from);

        // Untagged, as schema 2 stored it: not read as an import by the tagged reader,
        // but by the migration's.
        let origin: RunOrigin = serde_json::from_value(from.clone()).unwrap();
        assert!(matches!(&origin, RunOrigin::Unreadable(v) if *v == from));
        let origin = RunOrigin::from_untagged(&from).unwrap();
        assert!(matches!(&origin, RunOrigin::Imported(f) if f.path == "target/criterion"));

        // Stored before `paths` was.
        let bulk = serde_json::json!({ "bulk": {
            "sizes": [1024], "threads": [1, 2], "runs": 3, "impl": ["openssl"],
            "cpu_order": [1, 0], "huge_pages": "asked for (madvise)",
        }});
        let origin = RunOrigin::from_untagged(&bulk).unwrap();
        assert!(
            matches!(&origin, RunOrigin::Bulk { bulk } if bulk.cpu_order == [1, 0] && !bulk.paths)
        );

        // Another version's form, tagged or not: kept as it was.
        for foreign in [
            serde_json::json!({ "run": { "processes": "many" } }),
            serde_json::json!({ "origin": "run/2", "run": {} }),
        ] {
            let origin: RunOrigin = serde_json::from_value(foreign.clone()).unwrap();
            assert!(matches!(&origin, RunOrigin::Unreadable(v) if *v == foreign));
            assert_eq!(serde_json::to_value(&origin).unwrap(), foreign);
        }
        assert!(RunOrigin::from_untagged(&serde_json::json!({ "run": 1 })).is_none());
    }

    /// The stored form, pinned: if this fails, a field of a stored struct changed, which
    /// is a schema change (a new origin version, read beside the old, and a migration).
    #[test]
    fn the_stored_form_of_a_measured_run_is_pinned() {
        use crate::record::{AnalysisSpec, SamplePlan, Test, VerdictOptions};
        let origin = RunOrigin::Measured {
            run: RunOptions {
                counter: CounterKind::TscCore,
                cpu: Some(1),
                processes: 20,
                layouts: 4,
                plan: SamplePlan::default(),
                timeout: std::time::Duration::from_secs(120),
                seed: 7,
                remeasure: crate::record::Remeasure::OFF,
                no_canary: false,
                command_line: vec![],
                bench_target: None,
                c_builds: vec![],
                narrowed: None,
            },
            analysis: AnalysisOptions {
                spec: AnalysisSpec {
                    ratios: vec![("a".into(), "b".into())],
                    comparisons: vec![("c".into(), "d".into())],
                    slope: Some((64, 4096)),
                    algorithm_comparisons: vec![],
                    variant_comparisons: vec![("o2".into(), "o3".into())],
                    lane_speedups: true,
                },
                verdict: VerdictOptions {
                    significance: 0.05,
                    noise_threshold_pct: 1.0,
                    test: Test::Welch,
                },
                baseline_run: Some(3),
                baseline_uuid: None,
                force: false,
            },
        };
        let want = r#"{"origin":"run/1","run":{"counter":"tsc-core","cpu":1,"processes":20,"layouts":4,"plan":{"samples":64,"warmup":{"secs":0,"nanos":10000000},"overhead_factor":200.0,"resolution_factor":1000.0},"timeout":{"secs":120,"nanos":0},"seed":7},"analysis":{"spec":{"ratios":[["a","b"]],"comparisons":[["c","d"]],"slope":[64,4096],"algorithm_comparisons":[],"variant_comparisons":[["o2","o3"]],"lane_speedups":true},"verdict":{"significance":0.05,"noise_threshold_pct":1.0,"test":"welch"},"baseline_run":3,"force":false}}"#;
        assert_eq!(serde_json::to_string(&origin).unwrap(), want);
        // The baseline's UUID, recorded since, is a field older versions skip and this
        // one reads beside its absence: the form of runs recorded without it is the above.
        let RunOrigin::Measured { run, mut analysis } = origin else {
            unreachable!()
        };
        analysis.baseline_uuid = Some("b0b0b0b0-0000-4000-8000-000000000003".into());
        let with_uuid = serde_json::to_string(&RunOrigin::Measured { run, analysis }).unwrap();
        assert_eq!(
            with_uuid,
            want.replace(
                r#""baseline_run":3,"#,
                r#""baseline_run":3,"baseline_uuid":"b0b0b0b0-0000-4000-8000-000000000003","#
            )
        );
        let RunOrigin::Measured { analysis, .. } = serde_json::from_str(&with_uuid).unwrap() else {
            panic!("a run's options read as a run's");
        };
        assert_eq!(
            analysis.baseline_uuid.as_deref(),
            Some("b0b0b0b0-0000-4000-8000-000000000003")
        );

        let bulk = RunOrigin::Bulk {
            bulk: BulkOptions {
                sizes: vec![1 << 20],
                threads: vec![1, 2],
                runs: 3,
                filters: vec!["openssl".into()],
                paths: true,
                cpu_order: vec![1, 0],
                huge_pages: "asked for (madvise)".into(),
                command_line: vec![],
                warmed_up: false,
            },
        };
        let build = crate::record::CBuild {
            implementation: "c-ml-kem/ml-kem-768/o2@x86-64".into(),
            compiler: "clang".into(),
            version: "Debian clang version 14.0.6".into(),
            flags: vec!["-march=x86-64".into(), "-O2".into()],
            estimated_function: "crypto_kem_enc".into(),
            estimated_operation: "encaps".into(),
        };
        let want = r#"{"implementation":"c-ml-kem/ml-kem-768/o2@x86-64","compiler":"clang","version":"Debian clang version 14.0.6","flags":["-march=x86-64","-O2"],"estimated_function":"crypto_kem_enc","estimated_operation":"encaps"}"#;
        assert_eq!(serde_json::to_string(&build).unwrap(), want);

        let want = r#"{"origin":"bulk/1","bulk":{"sizes":[1048576],"threads":[1,2],"runs":3,"impl":["openssl"],"paths":true,"cpu_order":[1,0],"huge_pages":"asked for (madvise)"}}"#;
        assert_eq!(serde_json::to_string(&bulk).unwrap(), want);
    }

    /// What built and ran the code: kept where recorded, absent (not invented) in records
    /// stored before it was.
    #[test]
    fn build_and_command_line_read_back_and_older_records_read_without_them() {
        let mut machine = Machine::example(None);
        machine.build = Some(crate::build_info::BuildInfo {
            profile: "release".into(),
            opt_level: "3".into(),
            rustflags: vec!["-C".into(), "target-cpu=native".into()],
            target_cpu: Some("native".into()),
            libraries: vec![crate::build_info::Library {
                name: "OpenSSL".into(),
                version: "3.0.19 27 Jan 2026".into(),
                origin: Some("linked C library".into()),
            }],
        });
        let stored = serde_json::to_value(MachineRecord::Measured(Box::new(machine))).unwrap();
        assert_eq!(stored["build"]["target_cpu"], "native");
        let back: MachineRecord = serde_json::from_value(stored.clone()).unwrap();
        let build = back.measured().unwrap().build.clone().unwrap();
        assert_eq!(
            build.libraries[0].to_string(),
            "OpenSSL 3.0.19 27 Jan 2026 (linked C library)"
        );
        let mut older = stored;
        older.as_object_mut().unwrap().remove("build");
        let back: MachineRecord = serde_json::from_value(older).unwrap();
        assert!(back.measured().unwrap().build.is_none());

        let run = r#"{"origin":"run/1","run":{"counter":"tsc","cpu":1,"processes":6,"layouts":4,"plan":{"samples":64,"warmup":{"secs":0,"nanos":10000000},"overhead_factor":200.0,"resolution_factor":1000.0},"timeout":{"secs":120,"nanos":0},"seed":7},"analysis":{"spec":{"ratios":[],"comparisons":[],"slope":null,"algorithm_comparisons":[],"variant_comparisons":[],"lane_speedups":false},"verdict":{"significance":0.05,"noise_threshold_pct":1.0,"test":"welch"},"baseline_run":null,"force":false}}"#;
        let RunOrigin::Measured { mut run, analysis } = serde_json::from_str(run).unwrap() else {
            panic!("a run's options read as a run's");
        };
        assert!(run.command_line.is_empty());
        assert!(
            run.c_builds.is_empty(),
            "stored before C builds were recorded"
        );
        run.command_line = vec![
            "cryptobench".into(),
            "run".into(),
            "--seed".into(),
            "7".into(),
        ];
        let stored = serde_json::to_string(&RunOrigin::Measured { run, analysis }).unwrap();
        assert!(
            stored.contains(r#""command_line":["cryptobench","run","--seed","7"]"#),
            "{stored}"
        );
        let RunOrigin::Measured { run, .. } = serde_json::from_str(&stored).unwrap() else {
            panic!("a run's options read as a run's");
        };
        assert_eq!(run.command_line.len(), 4);
    }

    #[test]
    fn a_checkouts_revision_is_its_head_and_says_dirty() {
        let d = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(d.path())
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        };
        assert_eq!(checkout_revision(d.path()), None, "not a checkout yet");
        git(&["init", "-q"]);
        std::fs::write(d.path().join("lib.rs"), "1").unwrap();
        git(&["add", "lib.rs"]);
        git(&["commit", "-q", "-m", "one"]);
        let head = git(&["rev-parse", "--short=12", "HEAD"]);
        assert_eq!(checkout_revision(d.path()), Some(head.clone()));
        std::fs::write(d.path().join("lib.rs"), "2").unwrap();
        assert_eq!(checkout_revision(d.path()), Some(format!("{head}-dirty")));
    }
}
