//! Static estimates of a build's cycles per call with `llvm-mca`: the seed's IACA column,
//! with today's tool.
//!
//! The estimate simulates the entry function's instructions, straight through, 100 times
//! on the target's scheduling model and divides the total by 100. It is meaningful for
//! straight-line code (an unrolled permutation); where the function branches, loops or
//! calls out, each instruction is counted once per call and callees not at all, and the
//! estimate says so.

use std::path::Path;
use std::process::Command;

use super::manifest::CKind;
use super::target::{Target, host_flags};
use crate::record::Estimate;

/// An installed llvm-mca and the CPU models it knows.
struct Mca {
    program: String,
    cpus: Vec<String>,
}

/// The newest installed llvm-mca: Debian's default (LLVM 14) knows neither `znver4` nor
/// the newest Intel cores, so scripts/setup.sh installs `llvm-19` beside it. Looked up
/// once: every build of a run is estimated by the same tool.
fn llvm_mca() -> Option<&'static Mca> {
    static MCA: std::sync::OnceLock<Option<Mca>> = std::sync::OnceLock::new();
    MCA.get_or_init(|| {
        (14..=25)
            .rev()
            .map(|v| format!("llvm-mca-{v}"))
            .chain(["llvm-mca".to_string()])
            .find_map(|program| {
                let out = Command::new(&program)
                    .arg("-mcpu=help")
                    .stdin(std::process::Stdio::null())
                    .output()
                    .ok()?;
                let listing = String::from_utf8_lossy(&out.stderr).into_owned()
                    + &String::from_utf8_lossy(&out.stdout);
                let cpus = known_cpus(&listing);
                (!cpus.is_empty()).then_some(Mca { program, cpus })
            })
    })
    .as_ref()
}

/// The CPU names of `llvm-mca -mcpu=help` (`  znver4 - Select the znver4 processor.`),
/// up to its list of features.
fn known_cpus(listing: &str) -> Vec<String> {
    listing
        .lines()
        .skip_while(|l| !l.starts_with("Available CPUs"))
        .skip(1)
        .take_while(|l| !l.starts_with("Available features"))
        .filter_map(|l| {
            l.trim()
                .split_once(" - ")
                .map(|(cpu, _)| cpu.trim().to_string())
        })
        .collect()
}

/// The scheduling models that fit this host best, best first: its own core where the
/// family and model say which, then one with its widest vector instructions (a model
/// without them refuses the code: `found an unsupported instruction`).
fn host_models(vendor_amd: bool, family: u32, model: u32, flags: &[String]) -> Vec<&'static str> {
    let has = |f: &str| flags.iter().any(|x| x == f);
    let mut models = match (vendor_amd, family, model) {
        (true, 0x1a, _) => vec!["znver5", "znver4"],
        (true, 0x19, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf) => vec!["znver4"],
        (true, 0x19, _) => vec!["znver3"],
        (true, 0x17, 0x30..) => vec!["znver2"],
        (true, 0x17, _) => vec!["znver1"],
        (false, 6, 0xcf) => vec!["emeraldrapids", "sapphirerapids"],
        (false, 6, 0x8f) => vec!["sapphirerapids"],
        (false, 6, 0x6a | 0x6c) => vec!["icelake-server"],
        (false, 6, 0x55) => vec!["cascadelake", "skylake-avx512"],
        _ => vec![],
    };
    models.extend(match (has("avx512f"), has("avx2")) {
        (true, _) => vec!["icelake-server", "skylake-avx512"],
        (false, true) if vendor_amd => vec!["znver3", "znver2", "haswell"],
        (false, true) => vec!["skylake", "haswell"],
        _ => vec!["x86-64"],
    });
    models
}

/// The model llvm-mca should use for a target, and a note where it is not the target's
/// own: `native` maps the host CPU to the best model the installed llvm-mca knows.
pub fn model_for(target: &Target) -> (String, Option<String>) {
    let knows = |m: &str| llvm_mca().is_none_or(|mca| mca.cpus.iter().any(|c| c == m));
    if let Some(m) = target.mca_cpu {
        return (m.to_string(), None);
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| -> u32 {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split(':').nth(1)?.trim().parse().ok())
            .unwrap_or(0)
    };
    let amd = cpuinfo.contains("AuthenticAMD");
    let models = host_models(amd, field("cpu family"), field("model"), &host_flags());
    let chosen = models
        .iter()
        .copied()
        .find(|m| knows(m))
        .unwrap_or("x86-64");
    let note = (chosen != models[0]).then(|| {
        format!(
            "no {} model in this llvm-mca; {chosen} has this host's instructions",
            models[0]
        )
    });
    (chosen.to_string(), note)
}

/// What `native` means for C builds on this host: the `-march` the C compiler resolves it
/// to (gcc 12 takes a Zen 4 for `znver3`, whose tuning can slow code), and the model
/// llvm-mca estimates such builds with. For `info`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Native {
    /// The `-march` value `cc -march=native` resolves to; `None` where `cc` is missing or
    /// does not say.
    pub cc_march: Option<String>,
    /// The llvm-mca `-mcpu` model `native` builds are estimated with.
    pub mca_model: String,
    /// The llvm-mca program found (e.g. `llvm-mca-19`); `None` where none is installed.
    pub mca_program: Option<String>,
    /// Why the model is not the best fit for this host, where the installed llvm-mca
    /// lacks that one.
    pub mca_note: Option<String>,
}

/// What `native` means on this host, for `info`: runs `cc` and looks for llvm-mca.
pub fn native() -> Native {
    let cc_march = Command::new("cc")
        .args(["-march=native", "-Q", "--help=target"])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout).lines().find_map(|l| {
                let value = l.trim().strip_prefix("-march=")?.trim();
                (!value.is_empty()).then(|| value.to_string())
            })
        });
    let native = super::target::KNOWN
        .iter()
        .find(|t| t.name == "native")
        .expect("native is a known target");
    let (mca_model, mca_note) = model_for(native);
    Native {
        cc_march,
        mca_model,
        mca_program: llvm_mca().map(|m| m.program.clone()),
        mca_note,
    }
}

/// Whether `line` is the label that defines `symbol`: `crypto_hash:` as gcc writes it, or
/// with a comment after it, as clang does (`crypto_hash:   # @crypto_hash`, `//` on
/// AArch64); not another symbol that begins with its name (`crypto_hash_blocks:`).
fn defines(line: &str, symbol: &str) -> bool {
    line.strip_prefix(symbol)
        .and_then(|rest| rest.strip_prefix(':'))
        .map(str::trim)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('#') || rest.starts_with("//"))
}

/// The body of `symbol` in GNU assembler output (gcc's or clang's).
fn function_body(asm: &str, symbol: &str) -> Option<Vec<String>> {
    let start = asm.lines().position(|l| defines(l, symbol))?;
    let body: Vec<String> = asm
        .lines()
        .skip(start + 1)
        .take_while(|l| {
            !l.trim_start().starts_with(&format!(".size\t{symbol}"))
                && !l.contains(&format!(".size {symbol}"))
        })
        .map(str::to_string)
        .collect();
    Some(body)
}

/// Whether a function's body branches (a jump to a local label, or through a table) and
/// whether it calls out: a `call`, or a jump to another symbol, a tail call (`jmp
/// blake2b@PLT`: a thin wrapper whose work lies elsewhere).
fn control_flow(body: &[String]) -> (bool, bool) {
    let targets: Vec<&str> = body
        .iter()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            words
                .next()
                .filter(|op| op.starts_with('j'))
                .and(words.next())
        })
        .collect();
    let local = |t: &&str| t.starts_with(".L") || t.starts_with('*');
    let calls = body.iter().any(|l| l.trim_start().starts_with("call"))
        || targets.iter().any(|t| !local(t));
    (targets.iter().any(local), calls)
}

/// The estimated cycles per call of `kind`'s entry function in the assembly at
/// `asm_path`, built for `target`. Never fails: where there is no figure (no llvm-mca, no
/// such function), `cycles` is `None` and the note says why. Writes the function's body
/// beside `asm_path` for llvm-mca to read.
pub fn estimate(asm_path: &Path, kind: CKind, target: &Target) -> Estimate {
    let (model, model_note) = model_for(target);
    let fail = |note: String| Estimate {
        cycles: None,
        model: model.clone(),
        note: Some(note),
        function: None,
        operation: None,
    };
    let Ok(asm) = std::fs::read_to_string(asm_path) else {
        return fail(format!("no assembly at {}", asm_path.display()));
    };
    let symbol = super::implementation::info(kind).estimated;
    let Some(body) = function_body(&asm, symbol) else {
        return fail(format!(
            "`{symbol}` not found in the first source's assembly (is it defined there?)"
        ));
    };
    let instructions = body
        .iter()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with('.'))
        .count();
    let (jumps, calls) = control_flow(&body);
    let body_path = asm_path.with_extension(format!("{symbol}.s"));
    if std::fs::write(&body_path, body.join("\n") + "\n").is_err() {
        return fail("cannot write the function body for llvm-mca".into());
    }
    let Some(mca) = llvm_mca() else {
        return fail("llvm-mca is not installed (scripts/setup.sh installs Debian's llvm)".into());
    };
    let out = match Command::new(&mca.program)
        .arg(format!("-mcpu={model}"))
        .arg("-iterations=100")
        .arg(&body_path)
        .output()
    {
        Ok(o) => o,
        Err(_) => {
            return fail(
                "llvm-mca is not installed (scripts/setup.sh installs Debian's llvm)".into(),
            );
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("Total Cycles:"))
        .and_then(|v| v.trim().parse::<f64>().ok());
    let Some(total) = total else {
        let err = String::from_utf8_lossy(&out.stderr);
        return fail(format!(
            "llvm-mca failed for -mcpu={model}: {}",
            err.lines().next().unwrap_or("no output")
        ));
    };
    let mut notes = Vec::new();
    if jumps {
        notes.push("branches or loops: each instruction counted once per call".to_string());
    }
    if calls {
        notes.push(format!(
            "{}: their cost is not included (the estimate reads the entry function of the first source alone)",
            Estimate::CALLS_OUT
        ));
    }
    if !notes.is_empty() {
        notes = vec![format!(
            "{} ({instructions} instructions)",
            notes.join("; ")
        )];
    }
    Estimate {
        cycles: Some(total / 100.0),
        model: match model_note {
            Some(why) => format!("{model} ({}; {why})", mca.program),
            None => format!("{model} ({})", mca.program),
        },
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        // The run's record of the build says which; the store keeps that, not these.
        function: None,
        operation: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_gets_its_own_core_then_one_with_its_instructions() {
        let flags = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let avx512 = flags(&["avx2", "avx512f", "avx512vl"]);
        // Zen 4 (family 25 model 17): znver4; an LLVM without it must not fall back to
        // znver3, which has no AVX-512 and refuses the code.
        let zen4 = host_models(true, 25, 17, &avx512);
        assert_eq!(zen4[0], "znver4");
        assert!(!zen4.contains(&"znver3"), "{zen4:?}");
        assert_eq!(host_models(true, 25, 1, &flags(&["avx2"]))[0], "znver3");
        assert_eq!(host_models(false, 6, 0x8f, &avx512)[0], "sapphirerapids");
        assert_eq!(
            host_models(false, 6, 0xcf, &avx512)[..2],
            ["emeraldrapids", "sapphirerapids"]
        );
        assert_eq!(host_models(false, 99, 0, &flags(&["sse2"])), ["x86-64"]);
    }

    #[test]
    fn the_cpus_of_mcpu_help_are_read_up_to_the_features() {
        let listing = "Available CPUs for this target:\n\n  alderlake      - Select the alderlake processor.\n  znver4         - Select the znver4 processor.\n\nAvailable features for this target:\n\n  avx2 - Enable AVX2 instructions.\n";
        assert_eq!(known_cpus(listing), ["alderlake", "znver4"]);
        assert!(known_cpus("error: no such option").is_empty());
    }

    #[test]
    fn a_tail_call_is_a_call_and_a_local_jump_a_branch() {
        let lines = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            control_flow(&lines("\tmovq %rdx, %rsi\n\tjmp\tblake2b@PLT")),
            (false, true)
        );
        assert_eq!(
            control_flow(&lines(".L3:\n\taddq $1, %rax\n\tjne\t.L3\n\tret")),
            (true, false)
        );
        assert_eq!(
            control_flow(&lines("\tjmp\t*.L4(,%rax,8)\n\tcall\tmemcpy@PLT")),
            (true, true)
        );
        assert_eq!(
            control_flow(&lines("\taddq $1, %rax\n\tret")),
            (false, false)
        );
    }

    /// clang writes a comment after the label (`crypto_hash:  # @crypto_hash`), which
    /// once made every clang build's estimate "`crypto_hash` not found".
    #[test]
    fn the_body_of_a_symbol_is_found_in_gcc_and_clang_assembly() {
        let gcc = "\t.text\n\t.globl\tcrypto_hash\n\t.type\tcrypto_hash, @function\ncrypto_hash:\n.LFB0:\n\tmovl $0, %eax\n\tret\n\t.size\tcrypto_hash, .-crypto_hash\n";
        let clang = "\t.text\n\t.globl\tcrypto_hash                     # -- Begin function crypto_hash\n\t.type\tcrypto_hash,@function\ncrypto_hash:                            # @crypto_hash\n\t.cfi_startproc\n\txorl\t%eax, %eax\n\tretq\n.Lfunc_end0:\n\t.size\tcrypto_hash, .Lfunc_end0-crypto_hash\n";
        let aarch64 = "crypto_hash:                            // @crypto_hash\n\tmov\tw0, wzr\n\tret\n.Lfunc_end0:\n\t.size\tcrypto_hash, .Lfunc_end0-crypto_hash\n";
        for (asm, first) in [
            (gcc, ".LFB0:"),
            (clang, "\t.cfi_startproc"),
            (aarch64, "\tmov\tw0, wzr"),
        ] {
            let body = function_body(asm, "crypto_hash").expect(asm);
            assert_eq!(body.first().map(String::as_str), Some(first), "{asm}");
            assert!(body.iter().any(|l| l.contains("ret")), "{asm}");
            assert!(!body.iter().any(|l| l.contains(".size")), "{asm}");
        }
        // Not a symbol that only begins with the name.
        let other = "crypto_hash_blocks:                     # @crypto_hash_blocks\n\tretq\n";
        assert_eq!(function_body(other, "crypto_hash"), None);
    }

    #[test]
    fn the_body_of_a_symbol_is_cut_at_its_size_directive() {
        let asm = "\t.text\nother:\n\tret\nf:\n\tmovq %rdi, %rax\n\taddq $1, %rax\n\tret\n\t.size\tf, .-f\n";
        let body = function_body(asm, "f").unwrap();
        assert_eq!(body.len(), 3);
        assert!(body[0].contains("movq"));
        assert!(function_body(asm, "g").is_none());
    }
}
