//! The machine as `info` prints it: CPU, instruction sets, clocks, counters and the
//! warnings that make figures less trustworthy.

use crate::counter::CounterKind;
use crate::machine::Machine;

/// The machine as `info` prints it, one line per fact, with `chosen` the counter a run
/// would use.
pub fn machine_text(m: &Machine, chosen: CounterKind) -> String {
    let mut s = String::new();
    let tsc = m.tsc_hz.map_or("n/a".into(), |hz| {
        format!("{:.1} MHz (measured against CLOCK_MONOTONIC_RAW)", hz / 1e6)
    });
    s += &format!(
        "CPU:        {} ({}), {}\n",
        m.cpu_model, m.cpu_signature, m.arch
    );
    s += &format!("CPUs:       {} available to this process\n", m.online_cpus);
    s += &format!("Crypto ISA: {}\n", m.crypto_flags.join(" "));
    s += &format!("Kernel:     {}\n", m.kernel);
    s += &format!(
        "Compilers:  {}; cc: {}\n",
        m.rustc,
        m.cc.as_deref().unwrap_or("not found")
    );
    s += &format!("TSC:        {tsc}\n");
    if let Some(hz) = m.core_clock_hz {
        s += &format!(
            "Core clock: {:.0} MHz now (a dependent-add chain timed by the TSC; a shared host moves it)\n",
            hz / 1e6
        );
    }
    if let Some(bytes) = m.last_level_cache_bytes {
        s += &format!(
            "Cache:      {} last level (as reported; bulk sizes within it measure the cache)\n",
            crate::size::format_size(bytes)
        );
    }
    s += &format!(
        "Governor:   {}; turbo: {}\n",
        m.governor.as_deref().unwrap_or("unknown"),
        m.turbo.as_deref().unwrap_or("unknown")
    );
    s += "Counters:\n";
    for c in &m.counters {
        let state = if c.available {
            "available".to_string()
        } else {
            format!("not available: {}", c.reason.as_deref().unwrap_or("?"))
        };
        s += &format!("  {:<8} {:<36} {state}\n", c.counter.to_string(), c.unit);
    }
    s += &format!("Chosen:     {chosen} ({})\n", chosen.unit());
    if !m.warnings.is_empty() {
        s += "Warnings:\n";
        for w in &m.warnings {
            s += &format!("  - {w}\n");
        }
    }
    s
}
