//! The formats reports are printed in, each with its exporter, and the kinds of document
//! the commands print: each exporter says which documents it writes, the one list
//! `--format`'s accepted values, `--help` and the refusals read.

use clap::ValueEnum;

use super::export::Exporter;

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

impl Format {
    /// The format's exporter: its registration, one line per format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Table => &super::text::Text { markdown: false },
            Format::Md => &super::text::Text { markdown: true },
            Format::Json => &super::json::Json,
            Format::Csv => &super::csv::Csv,
            Format::Html => &super::html::Html,
            Format::Bencher => &super::bencher::Bencher,
            Format::GithubActionBenchmark => &super::github::GithubActionBenchmark,
        }
    }
}

/// The kinds of document the commands print, each in the formats whose exporters write
/// it ([`Exporter::documents`]).
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
    pub fn formats(self) -> Vec<Format> {
        Format::value_variants()
            .iter()
            .copied()
            .filter(|f| f.exporter().documents().contains(&self))
            .collect()
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
        let values = self.formats().into_iter().map(move |f| {
            let value = f.to_possible_value().expect("every format has a name");
            match (f, self) {
                // The format's own help describes a run's CSV.
                (Format::Csv, Doc::Machines) => value.help(
                    "Comma-separated values: a row per machine (a testbed on one hardware fingerprint)",
                ),
                (Format::Json, Doc::Machines) => {
                    value.help("One JSON array: an object per machine")
                }
                _ => value,
            }
        });
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
