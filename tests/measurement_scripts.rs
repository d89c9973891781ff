//! The shell scripts that drive long measurements on lent hosts refuse bad input
//! with one line naming what is wrong and exit 2, before anything is built or run:
//! a mistake there costs a device call that cannot be taken back.

use std::path::Path;
use std::process::Command;

fn script(name: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name);
    let out = Command::new("bash")
        .arg(&path)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(std::env::temp_dir())
        .output()
        .expect("bash runs");
    assert!(out.stdout.is_empty(), "{name}: printed to stdout");
    (
        out.status.code().expect("exited"),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn assert_one_line(stderr: &str, names: &str) {
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(names), "{stderr:?} should name {names}");
}

#[test]
fn device_script_wants_a_verb_and_an_out_folder() {
    for args in [&[][..], &["measure"], &["run"]] {
        let (code, stderr) = script("device-keccak-spook.sh", args, &[]);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_one_line(&stderr, "usage: scripts/device-keccak-spook.sh");
    }
}

#[test]
fn device_script_names_what_prepare_has_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, stderr) = script(
        "device-keccak-spook.sh",
        &["run", out.to_str().unwrap(), dir.path().to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_one_line(
        &stderr,
        &format!("{}/cryptobench: not found", dir.path().display()),
    );
    assert!(
        !out.exists(),
        "nothing is written before the inputs are there"
    );

    std::fs::write(dir.path().join("cryptobench"), "").unwrap();
    let (code, stderr) = script(
        "device-keccak-spook.sh",
        &["run", out.to_str().unwrap(), dir.path().to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_one_line(&stderr, "xkcp-perm/manifest.toml: not found");
}

#[test]
fn keccak_vs_xkcp_names_a_missing_binary_and_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let (code, stderr) = script("keccak-vs-xkcp.sh", &[], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("usage: scripts/keccak-vs-xkcp.sh"),
        "{stderr}"
    );

    let missing = dir.path().join("no-such-binary");
    let (code, stderr) = script(
        "keccak-vs-xkcp.sh",
        &[folder, folder],
        &[("CRYPTOBENCH", missing.to_str().unwrap())],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_one_line(&stderr, "no-such-binary: no binary");

    let (code, stderr) = script(
        "keccak-vs-xkcp.sh",
        &[folder, folder],
        &[("CRYPTOBENCH", "/bin/true")],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_one_line(&stderr, &format!("{folder}/manifest.toml: not found"));
}

#[test]
fn mca_bound_wants_a_cpu_model() {
    let (code, stderr) = script("keccak-mca-bound.sh", &[], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_one_line(&stderr, "usage: scripts/keccak-mca-bound.sh MCPU");
}
