//! `cryptobench bulk`: a request checked against this machine, then measured on pinned
//! threads through the one [`crate::session`].

use std::process::ExitCode;

use anyhow::Result;

use crate::bulk::{self, Request};
use crate::cli::BulkArgs;
use crate::output::check_writable;
use crate::session::{self, Finish};
use crate::store::Store;

pub(super) fn bulk(args: BulkArgs) -> Result<ExitCode> {
    check_writable(args.output.file.as_deref(), &args.output.db)?;
    let prepared = bulk::prepare(Request {
        sizes: args.sizes,
        threads: args.threads,
        runs: args.runs,
        filters: args.filters,
        paths: args.paths,
        testbed: args.testbed.testbed,
    })?;
    let mut store = Store::open(&args.output.db)?;
    let measured = session::run(
        &mut store,
        &prepared.header(),
        Finish {
            format: args.format,
            file: args.output.file.as_deref(),
            html: None,
            save_baseline: None,
            force_baseline: false,
            fail_on_regression: false,
        },
        |store, run_id, interrupted| prepared.measure(store, run_id, interrupted),
    );
    if measured.is_err() {
        store.discard_if_unused();
    }
    measured
}
