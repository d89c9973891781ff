//! What every binary-level test needs: a scratch directory with its own store and build
//! cache, and the binary run inside it.

#![allow(dead_code)] // each test file uses a different part

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }

    pub fn cmd(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_cryptobench"))
            .args(args)
            .env("CRYPTOBENCH_DB", self.db())
            .env("CRYPTOBENCH_CACHE", self.dir.path().join("build-cache"))
            .env("CRYPTOBENCH_TEST_IMPLEMENTATIONS", "1")
            .current_dir(self.dir.path())
            .output()
            .expect("run cryptobench")
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

    /// `args` started as a terminal starts a command (in a process group of its own), sent
    /// one Ctrl-C to that whole group as a terminal does, once the latest stored run
    /// satisfies `ready` (its JSON report); what it printed and how it ended.
    pub fn interrupt_when(&self, args: &[&str], ready: impl Fn(&Value) -> bool) -> Output {
        use std::os::unix::process::CommandExt;
        let child = Command::new(env!("CARGO_BIN_EXE_cryptobench"))
            .args(args)
            .env("CRYPTOBENCH_DB", self.db())
            .current_dir(self.dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("run cryptobench");
        let started = std::time::Instant::now();
        loop {
            let out = self.cmd(&["report", "latest", "--format", "json"]);
            if out.status.success()
                && serde_json::from_slice::<Value>(&out.stdout).is_ok_and(|r| ready(&r))
            {
                break;
            }
            assert!(
                started.elapsed().as_secs() < 120,
                "{args:?} never got ready"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        // SAFETY: kill(2) of the process group the child leads; it has not been reaped.
        assert_eq!(unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) }, 0);
        child.wait_with_output().expect("wait for cryptobench")
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

/// Exit status 2 and a message containing `expect` on stderr, no panic trace.
pub fn assert_bad_input(out: &Output, expect: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(expect), "expected `{expect}` in: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
}
