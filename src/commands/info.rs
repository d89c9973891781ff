//! `cryptobench info`: this machine, its counters, and what C builds for it.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::InfoFormat;
use crate::machine::Machine;
use crate::output::print;
use crate::providers::keccak_lanes;
use crate::report;

pub(super) fn info(format: InfoFormat) -> Result<ExitCode> {
    let m = Machine::detect();
    let chosen = crate::counter::CounterChoice::Auto
        .resolve()
        .map_err(anyhow::Error::msg)?;
    match format {
        InfoFormat::Json => {
            let mut v = serde_json::to_value(&m)?;
            v["chosen_counter"] = serde_json::json!({"counter": chosen, "unit": chosen.unit()});
            v["c_native"] = serde_json::to_value(crate::cimpl::estimate::native())?;
            v["keccak_lanes_defaults"] = serde_json::to_value(keccak_lanes::defaults_here())?;
            print(&(serde_json::to_string_pretty(&v)? + "\n"))?;
        }
        InfoFormat::Text => {
            let n = crate::cimpl::estimate::native();
            let estimated = match (&n.mca_program, &n.mca_note) {
                (None, _) => "llvm-mca is not installed".to_string(),
                (Some(p), None) => {
                    format!("{p} estimates native builds with -mcpu={}", n.mca_model)
                }
                (Some(p), Some(why)) => {
                    format!(
                        "{p} estimates native builds with -mcpu={} ({why})",
                        n.mca_model
                    )
                }
            };
            print(&format!(
                "{}C native:   cc -march=native is {} here; {estimated}\nKeccak:     our N-lane defaults here: {}\n",
                report::machine_text(&m, chosen),
                n.cc_march.as_deref().unwrap_or("unknown (cc did not say)"),
                keccak_lanes::defaults_here().join("; ")
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
