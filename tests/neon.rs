//! The two-way NEON Keccak (implementations/c/keccak-neon-x2) has no Arm machine to run
//! on here: its known answers and lane equality are checked under qemu-user, cross
//! compiled for ARMv8.0 and for ARMv8.2 with the SHA-3 instructions. scripts/setup.sh
//! installs the tools, so a missing one fails this test rather than skipping it.

use std::process::Command;

#[test]
fn neon_x2_keccak_passes_its_known_answers_under_emulation() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/implementations/c/keccak-neon-x2/test/run_tests.sh"
    );
    let out = Command::new("bash")
        .arg(script)
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    match out.status.code() {
        Some(0) => {}
        Some(77) => panic!("a tool is missing (run scripts/setup.sh):\n{text}"),
        _ => panic!("the NEON Keccak failed its checks:\n{text}"),
    }
    assert!(text.contains("0 failed"), "{text}");
    assert!(text.contains("cortex-a53"), "the ARMv8.0 build ran: {text}");
}
