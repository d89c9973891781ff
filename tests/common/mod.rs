//! What every binary-level test needs: a scratch directory with its own store and build
//! cache, and the binary run inside it.

#![allow(dead_code)] // each test file uses a different part

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

pub mod pg;

/// A small run with the fewest worker processes that give 95 % intervals (6), and with
/// them the ratio, slope and lane tables.
#[allow(dead_code)]
pub const WITH_INTERVALS: &[&str] = &["--samples", "128", "--processes", "6", "--layouts", "2"];

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// `name` in the scratch directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A C hash with 8-byte output in directory `name` of the scratch directory: its
    /// `api.h`, its one source file and its manifest, whose path is returned.
    pub fn c_hash(&self, name: &str, file: &str, source: &str, manifest: &str) -> PathBuf {
        let dir = self.path(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("api.h"), "#define CRYPTO_BYTES 8\n").unwrap();
        std::fs::write(dir.join(file), source).unwrap();
        std::fs::write(dir.join("manifest.toml"), manifest).unwrap();
        dir.join("manifest.toml")
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }

    /// The binary with this environment's store and cache, the test implementations
    /// registered, run in the scratch directory; the variables that change what is
    /// measured (and mark runs not comparable) removed, whatever the caller's shell set.
    /// Its own temporary directory, so that the claims on a measuring CPU of tests that
    /// run at once do not warn of each other.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cryptobench"));
        c.args(args)
            .env("CRYPTOBENCH_DB", self.db())
            .env("CRYPTOBENCH_CACHE", self.dir.path().join("build-cache"))
            .env("TMPDIR", self.dir.path())
            .env("CRYPTOBENCH_TEST_IMPLEMENTATIONS", "1")
            .env_remove("GLIBC_TUNABLES")
            .env_remove("OPENSSL_ia32cap")
            .current_dir(self.dir.path());
        c
    }

    pub fn cmd(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run cryptobench")
    }

    /// `args` with the variables `vars` set as well.
    pub fn cmd_with(&self, args: &[&str], vars: &[(&str, &std::ffi::OsStr)]) -> Output {
        let mut c = self.command(args);
        for (k, v) in vars {
            c.env(k, v);
        }
        c.output().expect("run cryptobench")
    }

    pub fn run_ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args);
        assert!(
            out.status.success(),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    pub fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.run_ok(args)).expect("valid JSON")
    }

    /// `args` started as a terminal starts a command: in a process group of its own,
    /// which is killed if the test panics before the command ends.
    pub fn spawn_in_terminal(&self, args: &[&str]) -> Terminal {
        use std::os::unix::process::CommandExt;
        let child = self
            .command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("run cryptobench");
        Terminal {
            args: args.iter().map(|a| a.to_string()).collect(),
            child: Some(child),
        }
    }

    /// Waits until the latest stored run satisfies `ready` (its JSON report) while
    /// `running` still runs; fails at once if it ended first.
    pub fn wait_for_run(&self, running: &mut Terminal, ready: impl Fn(&Value) -> bool) {
        running.wait_until(|| {
            let out = self.cmd(&["report", "latest", "--format", "json"]);
            out.status.success()
                && serde_json::from_slice::<Value>(&out.stdout).is_ok_and(|r| ready(&r))
        });
    }

    /// `args` started as a terminal starts a command, sent one Ctrl-C to its whole group
    /// as a terminal does, once the latest stored run satisfies `ready` (its JSON
    /// report); what it printed and how it ended.
    pub fn interrupt_when(&self, args: &[&str], ready: impl Fn(&Value) -> bool) -> Output {
        let mut running = self.spawn_in_terminal(args);
        self.wait_for_run(&mut running, ready);
        running.ctrl_c();
        running.wait_with_output()
    }

    /// A run in which some case gave wrong output or failed: its report is still whole,
    /// the failures are listed on stderr, and the exit status is 1.
    pub fn json_with_failures(&self, args: &[&str]) -> Value {
        let out = self.cmd(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("gave wrong output or failed"), "{err}");
        assert!(!err.contains("panicked"), "panic: {err}");
        serde_json::from_slice(&out.stdout).expect("valid JSON")
    }
}

/// Exit status 2 and one line on stderr containing `expect`, no panic trace. An option
/// that clap refuses adds clap's own hint (`For more information, try '--help'.`) after a
/// blank line; that is not counted.
pub fn assert_bad_input(out: &Output, expect: &str) {
    assert_one_line(out, 2, expect);
}

/// Exit status `code` and one line on stderr containing `expect`, no panic.
#[allow(dead_code)]
pub fn assert_one_line(out: &Output, code: i32, expect: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(expect), "expected `{expect}` in: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    let said = err
        .lines()
        .filter(|l| !l.is_empty() && *l != "For more information, try '--help'.")
        .count();
    assert_eq!(said, 1, "one line: {err}");
}

/// Exit status 2 and a message containing `expect` that may run over several lines (what
/// a compiler said), no panic trace.
pub fn assert_refused(out: &Output, expect: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(expect), "expected `{expect}` in: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
}

/// A command started as from a terminal (see [`Env::spawn_in_terminal`]). Dropped
/// before it was waited for (a failed assertion), its whole group is killed, so a
/// failing test leaves no run measuring or hanging behind it.
pub struct Terminal {
    args: Vec<String>,
    child: Option<std::process::Child>,
}

impl Terminal {
    pub fn pid(&self) -> i32 {
        self.child.as_ref().expect("running").id() as i32
    }

    /// Polls `ready` until it holds; panics if the command ends first, or after two
    /// minutes.
    pub fn wait_until(&mut self, ready: impl Fn() -> bool) {
        let started = std::time::Instant::now();
        loop {
            if ready() {
                return;
            }
            let child = self.child.as_mut().expect("running");
            if let Some(status) = child.try_wait().expect("poll the command") {
                let out = self.child.take().unwrap().wait_with_output().unwrap();
                panic!(
                    "{:?} ended ({status}) before it got ready: {}",
                    self.args,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            assert!(
                started.elapsed().as_secs() < 120,
                "{:?} never got ready",
                self.args
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Whether the command is still running.
    pub fn running(&mut self) -> bool {
        let child = self.child.as_mut().expect("not waited for yet");
        child.try_wait().expect("poll the command").is_none()
    }

    /// Ctrl-C as a terminal sends it: SIGINT to the whole group.
    pub fn ctrl_c(&self) {
        // SAFETY: kill(2) of the process group the child leads; it has not been reaped.
        assert_eq!(unsafe { libc::kill(-self.pid(), libc::SIGINT) }, 0);
    }

    /// `signal` to the child alone, as a scheduler's `kill` of its job step would send.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) of the child; it has not been reaped.
        assert_eq!(unsafe { libc::kill(self.pid(), signal) }, 0);
    }

    /// Its output once it ends; panics if it is still running after `limit` (a bound for
    /// a command that would otherwise run for many times as long, not a speed test).
    pub fn wait_ended_within(mut self, limit: std::time::Duration) -> Output {
        let started = std::time::Instant::now();
        while self.running() {
            assert!(
                started.elapsed() < limit,
                "{:?} still runs after {limit:?}",
                self.args
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        self.wait_with_output()
    }

    pub fn wait_with_output(mut self) -> Output {
        let child = self.child.take().expect("waited for once");
        child.wait_with_output().expect("wait for cryptobench")
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: kill(2) of the group the child leads; it has not been reaped.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
        }
    }
}

/// Process `pid` has ended (gone, or a zombie nobody reaped yet); it is given a few
/// seconds, as a SIGKILL is delivered asynchronously.
pub fn assert_gone(pid: i32) {
    let alive = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            // The state follows the command name, which is in parentheses.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        })
    };
    for _ in 0..100 {
        if !alive() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("process {pid} is still running");
}

/// The processes `pid` started that are still its children.
pub fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// One of the Python table scripts (`scripts/NAME`) on `run`, written to a file named
/// `file_name`, as `cryptobench run --format json` would have written it.
pub fn table_script(name: &str, file_name: &str, run: &Value) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name);
    std::fs::write(&path, run.to_string()).unwrap();
    Command::new("python3")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("scripts")
                .join(name),
        )
        .arg(&path)
        .output()
        .expect("python3 runs (scripts/setup.sh installs it)")
}

/// What a table script printed, where it succeeded.
pub fn table_script_printed(name: &str, file_name: &str, run: &Value) -> String {
    let out = table_script(name, file_name, run);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
