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

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    pub cycles: Option<f64>,
    /// The llvm-mca scheduling model used (`-mcpu`).
    pub model: String,
    /// Why the figure is missing or should be read with care.
    pub note: Option<String>,
}

/// The model llvm-mca should use for a target; `native` maps the host CPU to one the
/// installed llvm-mca (LLVM 14 knows neither znver4 nor every Intel core) models.
pub fn model_for(target: &Target) -> String {
    if let Some(m) = target.mca_cpu {
        return m.to_string();
    }
    let flags = host_flags();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let amd = cpuinfo.contains("AuthenticAMD");
    let has = |f: &str| flags.iter().any(|x| x == f);
    match (amd, has("avx512f"), has("avx2")) {
        (true, _, _) => "znver3".into(),
        (false, true, _) => "icelake-server".into(),
        (false, false, true) => "skylake".into(),
        _ => "x86-64".into(),
    }
}

/// The body of `symbol` in GNU assembler output.
fn function_body(asm: &str, symbol: &str) -> Option<Vec<String>> {
    let start = asm
        .lines()
        .position(|l| l.trim_end() == format!("{symbol}:"))?;
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

pub fn estimate(asm_path: &Path, kind: CKind, target: &Target) -> Estimate {
    let model = model_for(target);
    let fail = |note: String| Estimate {
        cycles: None,
        model: model.clone(),
        note: Some(note),
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
    let jumps = body.iter().any(|l| l.trim_start().starts_with('j'));
    let calls = body.iter().any(|l| l.trim_start().starts_with("call"));
    let body_path = asm_path.with_extension(format!("{symbol}.s"));
    if std::fs::write(&body_path, body.join("\n") + "\n").is_err() {
        return fail("cannot write the function body for llvm-mca".into());
    }
    let out = match Command::new("llvm-mca")
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
        notes.push("branches or loops: each instruction counted once per call");
    }
    if calls {
        notes.push("calls other functions: their cost is not included");
    }
    Estimate {
        cycles: Some(total / 100.0),
        model,
        note: (!notes.is_empty())
            .then(|| format!("{} ({instructions} instructions)", notes.join("; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_of_a_symbol_is_cut_at_its_size_directive() {
        let asm = "\t.text\nother:\n\tret\nf:\n\tmovq %rdi, %rax\n\taddq $1, %rax\n\tret\n\t.size\tf, .-f\n";
        let body = function_body(asm, "f").unwrap();
        assert_eq!(body.len(), 3);
        assert!(body[0].contains("movq"));
        assert!(function_body(asm, "g").is_none());
    }
}
