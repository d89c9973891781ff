//! The worker: the binary re-executed as `cryptobench __worker`, one implementation per
//! process. The parent never runs measured code itself; it sends a [`Request`] on the
//! worker's stdin, reads one [`Reply`] from its stdout, and survives whatever the worker
//! does (crash, hang, abort).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::catalog::registry::Registry;
use crate::catalog::{AfterTiming, Call, PrepareError};
use crate::counter::CounterKind;
use crate::record::{Params, SamplePlan, Samples};
use crate::sample::{self};

/// The hidden subcommand name.
pub const SUBCOMMAND: &str = "__worker";

/// What a worker is asked to do.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Task {
    /// Run the implementation's correctness gate, and check its output at each of
    /// `points`, the parameter points the run measures ([`Implementation::verify_at`]).
    ///
    /// [`Implementation::verify_at`]: crate::catalog::Implementation::verify_at
    Verify {
        /// (operation, parameters) of each measured case of the implementation.
        points: Vec<(String, Params)>,
    },
    /// Say which crypto features CPUID shows here (under the simulator, its CPU's).
    Features,
    /// Make one call of one operation at its parameters, untimed, prepared as a
    /// measurement prepares it, and check it as after timing, and its output at these
    /// parameters against the reference: that the call a run would time works, and is
    /// right, at every size planned (a gate checks the algorithm at its own vectors').
    Rehearse {
        /// The operation to call.
        operation: String,
        /// Its parameters.
        params: Params,
    },
    /// Time one operation.
    Measure {
        /// The operation to time.
        operation: String,
        /// Its parameters.
        params: Params,
        /// The counter to time it with.
        counter: CounterKind,
        /// How many memory layouts to prepare the call in.
        layouts: usize,
        /// How to sample each layout.
        plan: SamplePlan,
        /// Chooses the heap offsets of the layouts; the same for every process of a case.
        seed: u64,
        /// Whether to read the canary between the samples ([`crate::canary`]).
        canary: bool,
    },
}

/// What the parent sends a worker on its stdin: one implementation, and the task.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// The implementation's name (empty for [`Task::Features`]).
    pub implementation: String,
    /// Set for implementations built from a manifest, which no registry knows.
    pub c: Option<crate::cimpl::CSpec>,
    /// The CPU to pin the worker to, if any.
    pub cpu: Option<usize>,
    /// What to do with the implementation.
    pub task: Task,
    /// Run the worker under Valgrind's callgrind, to count instructions (the correctness
    /// gate of such a run runs there too).
    #[serde(default)]
    pub simulate: bool,
}

/// What a worker sends back, once, before it exits.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Reply {
    /// Passed; with the checks that could not be made.
    Verified(Vec<String>),
    /// The gate refused the implementation's output.
    Wrong(String),
    /// The samples of a [`Task::Measure`].
    Measured(Samples),
    /// The CPU lacks what the implementation needs; it was not run.
    Unsupported(String),
    /// The request could not be carried out (unknown implementation, bad parameters).
    Refused(String),
    /// The crypto features CPUID showed ([`Task::Features`]).
    Features(Vec<String>),
}

/// How a worker ended, seen from the parent.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// It replied.
    Replied(Reply),
    /// It could not start, died, or exited without a readable reply: why, with the end
    /// of its stderr where it said anything.
    Crashed(String),
    /// It was killed when the timeout, held here, ran out; the call it was in, where a C
    /// build noted it ([`crate::cimpl::crash_note`]), with what a hang there points at.
    TimedOut(Duration, Option<String>),
}

/// How long a worker that ran out of time has to say where it hangs before it is killed.
const ASK_GRACE: Duration = Duration::from_millis(200);

/// The process group of the worker in flight (0 when none), for the Ctrl-C handler: a
/// worker in a group of its own does not get the terminal's signal.
static IN_FLIGHT: AtomicI32 = AtomicI32::new(0);

/// Sends `signal` to the worker in flight and to whatever its measured code started.
pub fn signal_in_flight(signal: libc::c_int) {
    let group = IN_FLIGHT.load(Ordering::SeqCst);
    if group > 0 {
        // SAFETY: kill(2) of a group this process created; see `run` for why the id
        // cannot have been reused while it is set.
        unsafe { libc::kill(-group, signal) };
    }
}

/// Workers started under the simulator so far, to name their profile directories.
static SIMULATED: AtomicI32 = AtomicI32::new(0);

/// A directory removed, with what is in it, when this goes.
struct RemovedAfter(std::path::PathBuf);

impl Drop for RemovedAfter {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How long the pipes may stay open after the worker's group is gone: only a process
/// that left the group (setsid) still holds them, and its output is not worth a hang.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Run `request` in a fresh worker process, killing it, and anything it started, after
/// `timeout`.
pub fn run(request: &Request, timeout: Duration) -> Result<Outcome> {
    // Under the simulator, its profiles go to a directory of this worker's own.
    let profiles = if request.simulate {
        let dir = std::env::temp_dir().join(format!(
            "cryptobench-callgrind-{}-{}",
            std::process::id(),
            SIMULATED.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Some(RemovedAfter(dir))
    } else {
        None
    };
    // The running executable itself, even if a rebuild has replaced the file at its path
    // since: a worker must run the code whose implementations the gate checked. (Valgrind
    // must be given a real path: it would read /proc/self/exe as itself.)
    let mut command = match &profiles {
        Some(dir) => crate::counter::valgrind::command(
            &std::env::current_exe().context("cannot find this executable")?,
            &dir.0.join("out"),
        ),
        None => Command::new("/proc/self/exe"),
    };
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: personality(2), prctl(2) and getppid(2) are single async-signal-safe
    // syscalls, fine between fork and exec. Without address-space randomisation every
    // worker gets the same stack and heap addresses, so a figure cannot depend on where
    // ASLR happened to put them; the sampler varies stack and heap offsets itself, the
    // same way in every process. If the kernel refuses, the worker runs randomised and
    // the spread between processes shows it. The worker dies with us, so that no orphan
    // keeps measuring, or hanging, after the run is gone.
    unsafe {
        command.pre_exec(move || {
            let current = libc::personality(0xffff_ffff);
            if current != -1 {
                libc::personality((current | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong);
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    // Before the spawn: an error here must not leave a worker behind, unreaped.
    let body = serde_json::to_vec(request)?;
    let spawned = command
        .arg(SUBCOMMAND)
        // A group of its own: the timeout kills what the measured code forked as well,
        // which would otherwise hold the pipes, and with them the run, open.
        .process_group(0)
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
    IN_FLIGHT.store(pid, Ordering::SeqCst);
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A worker that dies at once closes its stdin; the outcome below says why.
    let _ = stdin.write_all(&body);
    drop(stdin);

    let out = read_in_background(child.stdout.take().expect("piped stdout"));
    let err = read_in_background(child.stderr.take().expect("piped stderr"));
    // Wait in a thread so the parent sleeps instead of polling beside the measurement.
    // The thread waits without reaping: until `child.wait()` below, the worker's pid, and
    // with it the group id, cannot be reused, so killing the group cannot hit a stranger.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        wait_without_reaping(pid);
        let _ = tx.send(());
    });
    let timed_out = matches!(
        rx.recv_timeout(timeout),
        Err(mpsc::RecvTimeoutError::Timeout)
    );
    if timed_out {
        // Asked first, the worker says which call it hangs in, then dies with its group.
        // SAFETY: kill(2) of the worker itself, not reaped yet.
        unsafe { libc::kill(pid, crate::cimpl::crash_note::ASK) };
        let _ = rx.recv_timeout(ASK_GRACE);
    }
    // SAFETY: kill(2) of the worker's own group, whose leader is not reaped yet.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    if timed_out {
        let _ = rx.recv();
    }
    IN_FLIGHT.store(0, Ordering::SeqCst);
    let status = child.wait().context("waiting for a worker")?;
    let out = out.recv_timeout(PIPE_GRACE).unwrap_or_default();
    let err =
        String::from_utf8_lossy(&err.recv_timeout(PIPE_GRACE).unwrap_or_default()).into_owned();
    // Whether the compiler held a C build's functions to the API's prototypes: where it
    // did, a prototype is not what a crash or a hang points at.
    let checked = request.c.as_ref().is_some_and(|c| c.prototypes_checked);
    if timed_out {
        let hung_in = (err.lines())
            .find_map(|l| l.strip_prefix(crate::cimpl::crash_note::HUNG_IN))
            .map(|call| format!("{call} ({})", crate::cimpl::crash_note::hang_cause(checked)));
        return Ok(Outcome::TimedOut(timeout, hung_in));
    }
    use std::os::unix::process::ExitStatusExt;
    let why = match (status.signal(), status.code()) {
        (Some(sig), _) => format!("killed by signal {sig} ({})", signal_name(sig)),
        // The worker always replies before it exits; without a reply, the measured code
        // ended the process itself.
        (None, Some(0)) if out.is_empty() => "exited with status 0 before replying".into(),
        (None, Some(0)) => match serde_json::from_slice(&out) {
            Ok(reply) => return Ok(Outcome::Replied(reply)),
            Err(e) => format!("sent a reply that cannot be read ({e})"),
        },
        (None, code) => format!("exited with status {}", code.unwrap_or(-1)),
    };
    let said = last_words(&err);
    // The note, where a C call left one, says which call; what the way it died points
    // at follows it (a prototype, memory written out of bounds, exit()).
    let cause = match crate::cimpl::crash_note::cause(status.signal(), &err, checked) {
        Some(cause) => format!(" ({cause})"),
        None if status.code() == Some(0) => " (the implementation called exit()?)".into(),
        None => String::new(),
    };
    Ok(Outcome::Crashed(if said.is_empty() {
        format!("{why}{cause}")
    } else {
        format!("{why}: {said}{cause}")
    }))
}

/// Everything `pipe` gives until it closes, read in a thread of its own.
fn read_in_background(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = pipe.read_to_end(&mut all);
        let _ = tx.send(all);
    });
    rx
}

/// Blocks until process `pid` has ended, leaving it to be reaped.
fn wait_without_reaping(pid: libc::pid_t) {
    loop {
        // SAFETY: waitid(2) on our own child, into a zeroed siginfo_t it fills in.
        let done = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if done == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// Why a dead worker died, from its stderr: a Rust panic's place and message wherever
/// they are (a backtrace may follow), Valgrind's unhandled instruction, or else the end,
/// where the reason usually is: the last three non-empty lines, without Rust's backtrace
/// hint, which names no cause.
fn last_words(stderr: &str) -> String {
    // Valgrind says where it met an instruction it cannot run, then prints a stack: the
    // place is the reason.
    let lines: Vec<&str> = stderr.lines().collect();
    if let Some(at) = lines
        .iter()
        .position(|l| l.contains("Illegal opcode") || l.contains("unhandled instruction bytes"))
    {
        let said: Vec<&str> = lines[at..]
            .iter()
            .take(2)
            .map(|l| {
                l.trim_start_matches(|c: char| c == '=' || c.is_ascii_digit())
                    .trim()
            })
            .collect();
        return said.join(" ");
    }
    // A Rust panic says where and why on its first two lines; a backtrace after them
    // (RUST_BACKTRACE=1, common in CI) would leave only frames at the end.
    if let Some(at) = lines.iter().rposition(|l| l.contains("panicked at")) {
        let said: Vec<&str> = lines[at..]
            .iter()
            .map(|l| l.trim())
            .take_while(|l| !l.is_empty() && *l != "stack backtrace:")
            .take(3)
            .collect();
        return cut(said.join(" | "));
    }
    let mut lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("note: run with `RUST_BACKTRACE"))
        .rev()
        .take(3)
        .collect();
    lines.reverse();
    cut(lines.join(" | "))
}

/// At most 400 characters of what a worker said.
fn cut(said: String) -> String {
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
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}

/// The worker's side: read a request, do it, write the reply. Any error here is a
/// refusal, not a crash: crashes are what measured code does.
pub fn serve(registry: &Registry) -> Result<()> {
    let mut replies = std::io::BufWriter::new(reply_channel()?);
    crate::cimpl::crash_note::install();
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let request: Request = serde_json::from_str(&input).context("malformed worker request")?;
    let reply = handle(&request, registry).unwrap_or_else(|e| Reply::Refused(format!("{e:#}")));
    crate::cimpl::crash_note::clear();
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

fn handle(request: &Request, registry: &Registry) -> Result<Reply> {
    if let Task::Features = request.task {
        return Ok(Reply::Features(crate::machine::cpuid_crypto_flags()));
    }
    let loaded;
    let imp: &dyn crate::catalog::Implementation = match &request.c {
        Some(spec) => {
            loaded = match request.task {
                Task::Verify { .. } => crate::cimpl::CImplementation::load_for_gate(spec)?,
                _ => crate::cimpl::CImplementation::load(spec)?,
            };
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
        Task::Features => unreachable!("answered above"),
        Task::Verify { points } => {
            let checked = imp.verify().and_then(|()| {
                points
                    .iter()
                    .try_for_each(|(operation, params)| imp.verify_at(operation, params))
            });
            Ok(match checked {
                Ok(()) => Reply::Verified(imp.caveats()),
                Err(m) => Reply::Wrong(m.to_string()),
            })
        }
        Task::Rehearse { operation, params } => {
            let mut calls = match prepared(imp, operation, params, 1, 1)? {
                Ok(calls) => calls,
                Err(reply) => return Ok(reply),
            };
            for call in &mut calls.calls {
                call.call();
            }
            if let Some(refused) = refused_after_timing(&mut calls.calls)? {
                return Ok(refused);
            }
            Ok(match imp.verify_at(operation, params) {
                Ok(()) => Reply::Verified(Vec::new()),
                Err(m) => Reply::Wrong(m.to_string()),
            })
        }
        Task::Measure {
            operation,
            params,
            counter,
            layouts,
            plan,
            seed,
            canary,
        } => {
            // Before the layouts, so that its buffer (mapped apart from the heap) is in
            // place, and warm, in every process alike.
            let mut canary = canary.then(crate::canary::Canary::new);
            let mut calls = match prepared(imp, operation, params, *layouts, *seed)? {
                Ok(calls) => calls,
                Err(reply) => return Ok(reply),
            };
            let samples = sample::collect_with(*counter, &mut calls.calls, plan, canary.as_mut())
                .map_err(anyhow::Error::msg)?;
            Ok(refused_after_timing(&mut calls.calls)?.unwrap_or(Reply::Measured(samples)))
        }
    }
}

/// [`prepare_layouts`], or the reply where this CPU cannot run the call.
fn prepared(
    imp: &dyn crate::catalog::Implementation,
    operation: &str,
    params: &Params,
    n: usize,
    seed: u64,
) -> Result<Result<Layouts, Reply>> {
    match prepare_layouts(imp, operation, params, n, seed) {
        Ok(calls) => Ok(Ok(calls)),
        Err(e @ PrepareError::Unsupported(_)) => Ok(Err(Reply::Unsupported(e.to_string()))),
        Err(e) => Err(e.into()),
    }
}

/// What the calls, made once more after timing, showed: the reply where one's output went
/// wrong, an error where one failed, `None` where all is well.
fn refused_after_timing(calls: &mut [Box<dyn Call>]) -> Result<Option<Reply>> {
    match calls.iter_mut().find_map(|c| c.after_timing()) {
        None => Ok(None),
        Some(AfterTiming::Failed(why)) => bail!("{why}"),
        Some(AfterTiming::Wrong(why)) => Ok(Some(Reply::Wrong(why))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kinds::hash::{Hash, HashAlgorithm, HashFunction, SHA_256};
    use crate::record::Param;

    /// SHA-256 wrong for messages of 4096 bytes alone, a length the gate's own pass over
    /// (as a fast path for 4 KiB pages can be).
    struct WrongAt4096;

    impl HashFunction for WrongAt4096 {
        const ALGORITHM: &'static HashAlgorithm = &SHA_256;
        fn new() -> Self {
            WrongAt4096
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            out.copy_from_slice(&crate::catalog::reference::sha2::sha256(msg));
            if msg.len() == 4096 {
                out[0] ^= 1;
            }
        }
    }

    #[test]
    fn the_gate_and_the_rehearsal_check_the_output_at_each_measured_point() {
        let mut registry = Registry::new();
        registry.add(Hash::<WrongAt4096>::new("test"));
        let at = |len| ("hash".to_string(), Params::new().with(Param::Len, len));
        let ask = |task| Request {
            implementation: "test/sha-256".into(),
            c: None,
            cpu: None,
            task,
            simulate: false,
        };
        let verify = |points| handle(&ask(Task::Verify { points }), &registry).unwrap();
        assert!(matches!(verify(vec![at(64)]), Reply::Verified(_)));
        match verify(vec![at(64), at(4096)]) {
            Reply::Wrong(why) => assert!(why.starts_with("4096-byte message"), "{why}"),
            other => panic!("{other:?}"),
        }
        let rehearse = |(operation, params)| {
            handle(&ask(Task::Rehearse { operation, params }), &registry).unwrap()
        };
        assert!(matches!(rehearse(at(64)), Reply::Verified(_)));
        match rehearse(at(4096)) {
            Reply::Wrong(why) => assert!(why.starts_with("4096-byte message"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_panic_is_told_by_its_place_and_message_not_its_backtrace() {
        let stderr = "thread 'main' panicked at benches/chacha.rs:96:58:\n\
            copy_from_slice: source slice length (32) does not match destination slice length (16)\n\
            stack backtrace:\n   0: __rustc::rust_begin_unwind\n  16: core::ops::function::FnOnce::call_once\n\
            \x20            at /rustc/x/library/core/src/ops/function.rs:250:5\n\
            note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        assert_eq!(
            last_words(stderr),
            "thread 'main' panicked at benches/chacha.rs:96:58: | copy_from_slice: source slice length (32) does not match destination slice length (16)"
        );
        assert_eq!(last_words("a\nb\n\nc\nd\n"), "b | c | d");
    }
}
