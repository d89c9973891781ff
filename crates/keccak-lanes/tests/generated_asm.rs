//! The committed assembly is what its script writes from the committed order:
//! an edit to either side alone (a hand fix in the `.s`, an allocator change in
//! the script) fails here instead of leaving the two describing different code.

use std::path::Path;
use std::process::Command;

/// Fails naming the first line where `src/NAME_asm.s` and what
/// `asm/NAME_schedule.py emit asm/NAME_order.txt` writes differ.
fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = dir.join("asm").join(format!("{name}_schedule.py"));
    let out = Command::new("python3")
        .arg(&script)
        .arg("emit")
        .arg(dir.join("asm").join(format!("{name}_order.txt")))
        .output()
        .expect("python3 runs (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "{} emit failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8(out.stdout).expect("the script writes text");
    let path = dir.join("src").join(format!("{name}_asm.s"));
    let committed =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let first_difference = written
        .lines()
        .zip(committed.lines())
        .position(|(w, c)| w != c)
        .or((written.lines().count() != committed.lines().count())
            .then(|| written.lines().count().min(committed.lines().count())));
    if let Some(line) = first_difference {
        panic!(
            "{} differs from what {} writes, first at line {}: regenerate it with `emit`",
            path.display(),
            script.display(),
            line + 1
        );
    }
    assert_eq!(
        written,
        committed,
        "{} differs in line endings",
        path.display()
    );
}

#[test]
fn x1_asm_is_what_its_script_writes() {
    check("x1");
}

#[test]
fn x4_asm_is_what_its_script_writes() {
    check("x4");
}
