//! Ctrl-C during a measurement, or SIGTERM (a scheduler's time limit, a pod's eviction)
//! or SIGHUP: stop after the work in flight, then print and keep what was measured,
//! marked incomplete, instead of dying with nothing printed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A flag that Ctrl-C (SIGINT, SIGTERM, SIGHUP) sets, for the measuring loop to check between one piece of work and
/// the next; a second Ctrl-C ends the process at once. A second signal within half a
/// second is the same one delivered twice (`timeout` signals the process and its group).
pub fn on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = Arc::clone(&flag);
    let mut first: Option<std::time::Instant> = None;
    let installed = ctrlc::set_handler(move || match first {
        None => {
            first = Some(std::time::Instant::now());
            set.store(true, Ordering::SeqCst);
            // Workers run in process groups of their own, out of the terminal's reach.
            crate::runner::worker::signal_in_flight(libc::SIGINT);
        }
        Some(at) if at.elapsed() > Duration::from_millis(500) => {
            // Held to the end: the worker's death would otherwise let the measuring
            // thread print the interrupted run's report before this thread exits.
            let _out = std::io::stdout().lock();
            let _err = std::io::stderr().lock();
            crate::runner::worker::signal_in_flight(libc::SIGKILL);
            std::process::exit(i32::from(crate::exit::Exit::Interrupted.code()))
        }
        Some(_) => {}
    });
    if let Err(e) = installed {
        eprintln!("warning: Ctrl-C will end the run without its report ({e})");
    }
    flag
}
