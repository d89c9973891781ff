//! The worker: the binary re-executed as `cryptobench __worker`, one implementation per
//! process. The parent never runs measured code itself; it sends a [`Request`] on the
//! worker's stdin, reads one [`Reply`] from its stdout, and survives whatever the worker
//! does (crash, hang, abort).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::catalog::registry::Registry;
use crate::catalog::{Call, Params, PrepareError};
use crate::counter::CounterKind;
use crate::sample::{self, SamplePlan, Samples};

/// The hidden subcommand name.
pub const SUBCOMMAND: &str = "__worker";

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Task {
    /// Run the implementation's correctness gate.
    Verify,
    /// Time one operation.
    Measure {
        operation: String,
        params: Params,
        counter: CounterKind,
        layouts: usize,
        plan: SamplePlan,
        /// Chooses the heap offsets of the layouts; the same for every process of a case.
        seed: u64,
    },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Request {
    pub implementation: String,
    /// Set for implementations built from a manifest, which no registry knows.
    pub c: Option<crate::cimpl::CSpec>,
    pub cpu: Option<usize>,
    pub task: Task,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Reply {
    /// Passed; with the checks that could not be made.
    Verified(Vec<String>),
    /// The gate refused the implementation's output.
    Wrong(String),
    Measured(Samples),
    /// The CPU lacks what the implementation needs; it was not run.
    Unsupported(String),
    /// The request could not be carried out (unknown implementation, bad parameters).
    Refused(String),
}

/// How a worker ended, seen from the parent.
#[derive(Clone, Debug)]
pub enum Outcome {
    Replied(Reply),
    Crashed(String),
    TimedOut(Duration),
    /// Stopped by Ctrl-C, which the terminal sends to the worker as well as to us: the
    /// user's doing, not the measured code's.
    Interrupted,
}

/// Run `request` in a fresh worker process, killing it after `timeout`.
pub fn run(request: &Request, timeout: Duration) -> Result<Outcome> {
    // The running executable itself, even if a rebuild has replaced the file at its path
    // since: a worker must run the code whose implementations the gate checked.
    let mut command = Command::new("/proc/self/exe");
    // SAFETY: personality(2) is a single async-signal-safe syscall, fine between fork and
    // exec. Without address-space randomisation every worker gets the same stack and heap
    // addresses, so a figure cannot depend on where ASLR happened to put them; the sampler
    // varies stack and heap offsets itself, the same way in every process. If the kernel
    // refuses, the worker runs randomised and the spread between processes shows it.
    unsafe {
        command.pre_exec(|| {
            let current = libc::personality(0xffff_ffff);
            if current != -1 {
                libc::personality((current | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong);
            }
            Ok(())
        });
    }
    let spawned = command
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    // This case fails, the run goes on: the results measured so far stay.
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return Ok(Outcome::Crashed(format!(
                "could not start a worker process: {e}"
            )));
        }
    };
    let pid = child.id() as libc::pid_t;
    let body = serde_json::to_vec(request)?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A worker that dies at once closes its stdin; the outcome below says why.
    let _ = stdin.write_all(&body);
    drop(stdin);

    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    // Wait in a thread so the parent sleeps instead of polling beside the measurement.
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    let timed_out = rx.recv_timeout(timeout).is_err();
    if timed_out {
        // SAFETY: plain kill(2) of our own child; it has not been reaped yet, because the
        // waiter thread has not returned, so the pid cannot have been reused.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let status = waiter
        .join()
        .expect("waiter thread")
        .context("waiting for a worker")?;
    let out = out_reader.join().expect("stdout reader");
    let err = err_reader.join().expect("stderr reader");
    if timed_out {
        return Ok(Outcome::TimedOut(timeout));
    }
    use std::os::unix::process::ExitStatusExt;
    if status.signal() == Some(libc::SIGINT) {
        return Ok(Outcome::Interrupted);
    }
    let why = match (status.signal(), status.code()) {
        (Some(sig), _) => format!("killed by signal {sig} ({})", signal_name(sig)),
        // The worker always replies before it exits; without a reply, the measured code
        // ended the process itself.
        (None, Some(0)) if out.is_empty() => {
            "exited with status 0 before replying (the implementation called exit()?)".into()
        }
        (None, Some(0)) => match serde_json::from_slice(&out) {
            Ok(reply) => return Ok(Outcome::Replied(reply)),
            Err(e) => format!("sent a reply that cannot be read ({e})"),
        },
        (None, code) => format!("exited with status {}", code.unwrap_or(-1)),
    };
    let said = last_words(&err);
    Ok(Outcome::Crashed(if said.is_empty() {
        why
    } else {
        format!("{why}: {said}")
    }))
}

/// The end of a dead worker's stderr, where the reason usually is: its last three
/// non-empty lines, without Rust's backtrace hint, which names no cause.
fn last_words(stderr: &str) -> String {
    let mut lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("note: run with `RUST_BACKTRACE"))
        .rev()
        .take(3)
        .collect();
    lines.reverse();
    let said = lines.join(" | ");
    match said.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", &said[..cut]),
        None => said,
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        _ => "signal",
    }
}

/// The worker's side: read a request, do it, write the reply. Any error here is a
/// refusal, not a crash: crashes are what measured code does.
pub fn serve() -> Result<()> {
    let mut replies = std::io::BufWriter::new(reply_channel()?);
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let request: Request = serde_json::from_str(&input).context("malformed worker request")?;
    let reply = handle(&request).unwrap_or_else(|e| Reply::Refused(format!("{e:#}")));
    serde_json::to_writer(&mut replies, &reply)?;
    replies.flush()?;
    Ok(())
}

/// The reply goes out on the pipe that came in as stdout, and stdout becomes a copy of
/// stderr: what measured code prints (a C library's `printf`) cannot corrupt the reply,
/// and the parent still shows it when the worker dies.
fn reply_channel() -> Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: dup/dup2 on the process's own standard descriptors, before any other thread
    // exists; the duplicate is owned by the File from here on.
    unsafe {
        let reply_fd = libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3);
        if reply_fd < 0 || libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) < 0 {
            return Err(std::io::Error::last_os_error())
                .context("worker: cannot set up its reply pipe");
        }
        Ok(std::fs::File::from_raw_fd(reply_fd))
    }
}

fn handle(request: &Request) -> Result<Reply> {
    let registry = Registry::builtin();
    let loaded;
    let imp: &dyn crate::catalog::Implementation = match &request.c {
        Some(spec) => {
            loaded = crate::cimpl::CImplementation::load(spec)?;
            &loaded
        }
        None => registry
            .get(&request.implementation)
            .with_context(|| format!("unknown implementation `{}`", request.implementation))?,
    };
    if let Some(cpu) = request.cpu {
        crate::machine::pin_to_cpu(cpu)?;
    }
    if let Some(why) = imp.unsupported() {
        return Ok(Reply::Unsupported(why));
    }
    match &request.task {
        Task::Verify => Ok(match imp.verify() {
            Ok(()) => Reply::Verified(imp.caveats()),
            Err(m) => Reply::Wrong(m.to_string()),
        }),
        Task::Measure {
            operation,
            params,
            counter,
            layouts,
            plan,
            seed,
        } => {
            let mut calls = match prepare_layouts(imp, operation, params, *layouts, *seed) {
                Ok(calls) => calls,
                Err(e @ PrepareError::Unsupported(_)) => {
                    return Ok(Reply::Unsupported(e.to_string()));
                }
                Err(e) => return Err(e.into()),
            };
            let samples = sample::collect_with(*counter, &mut calls.calls, plan)
                .map_err(anyhow::Error::msg)?;
            Ok(Reply::Measured(samples))
        }
    }
}

/// The same call prepared `n` times, each after a pad allocation of a different size and
/// with its message buffers at a different offset, so that state and buffers sit at
/// different places within a page, and at different distances from each other.
struct Layouts {
    calls: Vec<Box<dyn Call>>,
    _pads: Vec<Vec<u8>>,
}

fn prepare_layouts(
    imp: &dyn crate::catalog::Implementation,
    operation: &str,
    params: &Params,
    n: usize,
    seed: u64,
) -> Result<Layouts, PrepareError> {
    let mut state = seed | 1;
    let mut next = move || {
        // xorshift64: a few well-spread pad sizes, no need for more.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut calls = Vec::with_capacity(n);
    let mut pads = Vec::with_capacity(n);
    let n = n.max(1);
    for l in 0..n {
        pads.push(vec![0u8; 64 * (next() % 64) as usize + 16]);
        // Each layout puts the message buffers at another distance from the state.
        crate::catalog::buffer::set_layout_offset(64 * (l * 64 / n) + 16 * (l % 4));
        calls.push(imp.prepare(operation, params)?);
    }
    crate::catalog::buffer::set_layout_offset(0);
    Ok(Layouts { calls, _pads: pads })
}
