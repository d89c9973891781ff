"""What the table scripts (permutation-table.py, spook-best.py) read alike from a
`cryptobench run --format json` output."""


def heading(run, what):
    """The line that opens a table: the run, the host it was measured on, the
    counter and when, then `what` the figures are."""
    machine = run.get("machine") if isinstance(run.get("machine"), dict) else {}
    host = (f" on {machine.get('cpu_model', '?')} ({machine.get('cpu_signature', '?')}, "
            f"{machine.get('online_cpus', '?')} CPUs, {machine.get('cc', 'cc ?')})"
            if machine else "")
    counter = run.get("counter", {})
    counter = counter.get("kind", "?") if isinstance(counter, dict) else counter
    status = run.get("status", "complete")
    # A run stopped early (Ctrl-C, a time limit) stays "running" in its store.
    cut = "" if status == "complete" else f" Incomplete ({status}): stopped before every case was measured."
    return (f"Run {run.get('run_id')}{host}, counter {counter}, {run.get('started_at')}; "
            f"{what}.{cut}")
