//! One exporter per output format behind one trait, as hyperfine has them. A format is
//! its own file: a type implementing [`Exporter`] for the documents it is written for,
//! and one line in [`Format::exporter`](super::Format::exporter). What each document
//! says is built once, by the document's own module (titled [`Document`](super::Document)
//! blocks for the text formats and HTML, values for the structural ones), so a new format
//! writes those out and touches nothing else.

use super::Doc;
use crate::analysis::bulk::BulkAnalysis;
use crate::analysis::fleet::Fleet;
use crate::analysis::{Analysis, RunComparison};
use crate::history::History;
use crate::record::VerdictOptions;
use crate::store::{MachineRow, StoredRun};

/// How one format writes each kind of document. The methods of documents the format
/// does not list in [`Exporter::documents`] are never called (the commands refuse the
/// format first), and give `None`.
pub trait Exporter: Sync {
    /// The kinds of document written in this format: what `--format` accepts for each
    /// command, what `--help` lists and what a refusal names.
    fn documents(&self) -> &'static [Doc];

    /// One run (`run`, `report`).
    fn run(&self, a: &Analysis) -> String;

    /// A bulk run's own tables (`bulk`, `report` of a bulk run); `None` where the format
    /// takes a bulk run's cases as any run's ([`Exporter::run`]).
    fn bulk(&self, _run: &StoredRun, _t: &BulkAnalysis) -> Option<String> {
        None
    }

    /// Two runs case by case (`compare`), `pair` what their counts are in and `opts` the
    /// verdicts' options.
    fn comparison(
        &self,
        _c: &RunComparison,
        _pair: &super::Pair,
        _opts: &VerdictOptions,
    ) -> Option<String> {
        None
    }

    /// Every case over the stored runs (`history`).
    fn history(&self, _h: &History) -> Option<String> {
        None
    }

    /// One experiment across machines (`report --machines`).
    fn fleet(&self, _f: &Fleet) -> Option<String> {
        None
    }

    /// The machines of a store (`machines`).
    fn machines(&self, _m: &[MachineRow]) -> Option<String> {
        None
    }
}
