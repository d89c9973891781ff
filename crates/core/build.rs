//! Records the compiler, the profile and Rust flags, and the git revision the instrument
//! was built from, for run records.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown rustc".into());
    println!("cargo:rustc-env=CRYPTOBENCH_RUSTC={version}");

    // Every crate of one build shares its profile and its Rust flags: this crate's are
    // those the measured code was compiled with. Cargo sets these for every build script.
    let profile = std::env::var("PROFILE").unwrap_or_default();
    let opt_level = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=CRYPTOBENCH_PROFILE={profile}");
    println!("cargo:rustc-env=CRYPTOBENCH_OPT_LEVEL={opt_level}");
    // Kept encoded (flags separated by 0x1f, as Cargo passes them): a flag may hold a space.
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!("cargo:rustc-env=CRYPTOBENCH_ENCODED_RUSTFLAGS={rustflags}");

    let revision = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    // Without --no-optional-locks, `git status` may rewrite the index it is told to watch
    // below, and every build after it would find the index newer and build this crate
    // again (a crate that depends on this one by path paid a release build each time).
    let dirty = Command::new("git")
        .args([
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=no",
        ])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    let revision = if !revision.is_empty() && dirty {
        format!("{revision}-dirty")
    } else {
        revision
    };
    println!("cargo:rustc-env=CRYPTOBENCH_GIT_REVISION={revision}");
    // A commit or checkout moves HEAD or the index (found through git: a worktree's are
    // not under ../../.git); an edit moves neither, so the sources that make the binary
    // are watched too, or a table would name a clean commit for code changed since.
    for watched in ["HEAD", "index"] {
        if let Some(path) = git_path(watched) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    for sources in [
        "../../src",
        "../../crates",
        "../../implementations",
        "../../vendor",
        "../../Cargo.toml",
        "../../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={sources}");
    }
}

/// Where git keeps `name` (`HEAD`, `index`) for this checkout, absolute.
fn git_path(name: &str) -> Option<String> {
    Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-path", name])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
}
