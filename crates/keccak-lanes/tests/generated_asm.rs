//! The committed assembly is what its script writes from the committed order:
//! an edit to either side alone (a hand fix in the `.s`, an allocator change in
//! the script) fails here instead of leaving the two describing different code.

use std::path::Path;
use std::process::Command;

fn regenerated(script: &str, order: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(dir.join("asm").join(script))
        .arg("emit")
        .arg(dir.join("asm").join(order))
        .output()
        .expect("python3 runs (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "{script} emit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the script writes text")
}

fn committed(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn x1_asm_is_what_its_script_writes() {
    assert_eq!(
        regenerated("x1_schedule.py", "x1_order.txt"),
        committed("x1_asm.s")
    );
}
