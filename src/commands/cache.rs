//! `cryptobench cache`: the build cache of C implementations.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::CacheAction;
use crate::output::print;

pub(super) fn cache(action: Option<CacheAction>) -> Result<ExitCode> {
    use crate::cimpl::cache;
    let format_size = cache::human;
    match action {
        None => {
            let s = cache::summary()?;
            print(&format!(
                "Build cache: {}{}\nBuilds:      {} ({} in all)\n`cryptobench cache clean` removes them (`--older-than 30d`: those not used for 30 days); the path is $CRYPTOBENCH_CACHE, else $XDG_CACHE_HOME/cryptobench, else ~/.cache/cryptobench.\n",
                s.path.display(),
                if s.exists { "" } else { " (not created yet)" },
                s.builds,
                format_size(s.bytes)
            ))?;
        }
        Some(CacheAction::Clean { older_than }) => {
            let c = cache::clean(older_than)?;
            print(&format!(
                "removed {} build{} ({}) from {}{}\n",
                c.removed_builds,
                if c.removed_builds == 1 { "" } else { "s" },
                format_size(c.removed_bytes),
                c.path.display(),
                if older_than.is_some() {
                    format!("; kept {} used more recently", c.kept_builds)
                } else {
                    String::new()
                }
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
