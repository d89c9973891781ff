//! The formats reports are printed in, and which kind of document is printed in which:
//! the one list `--format`'s accepted values, `--help` and the renderers' refusals read.

use clap::ValueEnum;

/// A format reports are printed in (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for people, units stated.
    Table,
    /// GitHub-flavoured Markdown tables.
    Md,
    /// One JSON object.
    Json,
    /// Comma-separated values: a row per case, repeated for each comparison it is the candidate of (a run's ratio, slope and lane tables are in the other formats).
    Csv,
    /// One self-contained page with tables and charts (no network needed to view it).
    Html,
    /// Bencher Metric Format (JSON keyed by case id), for `bencher run --adapter json` (one run's figures: `run`, `report` and `bulk`).
    Bencher,
    /// github-action-benchmark's `customSmallerIsBetter` JSON array (one run's figures: `run`, `report` and `bulk`).
    GithubActionBenchmark,
}

/// The kinds of document the commands print, each in the formats it has: the one place
/// that says which, for clap's accepted values and `--help` as for the renderers'
/// refusals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doc {
    /// One stored run (`run`, `report`, `bulk`): every format, the exports of one run's
    /// figures included.
    Run,
    /// Two runs case by case (`compare`).
    Comparison,
    /// Every case over the stored runs (`history`).
    History,
    /// The machines of a store (`machines`).
    Machines,
    /// One experiment across machines, a column per testbed (`report --machines`).
    Fleet,
}

impl Doc {
    /// The formats this kind of document is printed in, in the order `--help` lists them.
    pub const fn formats(self) -> &'static [Format] {
        const ALL: &[Format] = &[
            Format::Table,
            Format::Md,
            Format::Json,
            Format::Csv,
            Format::Html,
            Format::Bencher,
            Format::GithubActionBenchmark,
        ];
        match self {
            Doc::Run => ALL,
            // The exports (Bencher, github-action-benchmark) carry one run's figures.
            Doc::Comparison | Doc::History => &[
                Format::Table,
                Format::Md,
                Format::Json,
                Format::Csv,
                Format::Html,
            ],
            Doc::Fleet => &[
                Format::Table,
                Format::Md,
                Format::Json,
                Format::Csv,
                Format::Html,
            ],
            Doc::Machines => &[Format::Table, Format::Md, Format::Json, Format::Csv],
        }
    }

    /// What the document is called in a refusal.
    fn name(self) -> &'static str {
        match self {
            Doc::Run => "a run",
            Doc::Comparison => "a comparison of runs (`compare`)",
            Doc::History => "the history (`history`)",
            Doc::Machines => "the machines (`machines`)",
            Doc::Fleet => "a report across machines (`report --machines`)",
        }
    }

    /// `--format`'s parser: exactly [`Doc::formats`], each with its help.
    pub fn parser(self) -> impl clap::builder::TypedValueParser<Value = Format> {
        use clap::builder::TypedValueParser;
        let values = self
            .formats()
            .iter()
            .map(|f| f.to_possible_value().expect("every format has a name"));
        clap::builder::PossibleValuesParser::new(values)
            .map(|name| Format::from_str(&name, false).expect("one of the formats"))
    }

    /// Refuses a format this document is not printed in, naming those it is.
    pub fn check(self, format: Format) -> anyhow::Result<()> {
        if !self.formats().contains(&format) {
            let names: Vec<String> = self
                .formats()
                .iter()
                .map(|f| super::format_name(*f))
                .collect();
            anyhow::bail!(
                "--format {}: {} is printed as {}",
                super::format_name(format),
                self.name(),
                names.join(", ")
            );
        }
        Ok(())
    }
}
