//! The import check: data flows one way (experiment → cases → measurement → samples →
//! store → statistics → reports), so no module imports one of a layer above its own,
//! and below the application layer no two modules import each other, however
//! indirectly. Read from the sources of the CLI (`src/`) and of the instrument
//! (`crates/core/src/`, whose modules the CLI re-exports under the same names): every
//! `crate::module` path outside comments.
//!
//! A new top-level module must be given a layer here; docs/architecture.md says what
//! each layer is for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Bottom to top. A module may import its own layer and those below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("values", &["stats", "name", "size", "exit"]),
    ("host", &["counter", "machine", "build_info"]),
    ("record", &["record"]),
    ("store", &["store"]),
    ("subjects", &["keccak", "catalog", "cimpl", "providers"]),
    (
        "measurement",
        &["canary", "sample", "runner", "plan", "experiment", "bulk"],
    ),
    ("analysis", &["analysis", "history"]),
    ("reports", &["report"]),
    (
        "application",
        &[
            "session",
            "preflight",
            "commands",
            "cli",
            "import",
            "interrupt",
            "output",
            "fuzz_entry",
            "lib",
            "main",
        ],
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

/// Every `(file, line, from, to)` of a `crate::to` path in a module `from`'s sources.
fn imports() -> Vec<(String, usize, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for src in [root.join("src"), root.join("crates/core/src")] {
        imports_in(&src, &mut found);
    }
    found
}

fn imports_in(src: &Path, found: &mut Vec<(String, usize, String, String)>) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let from = rel
                .split('/')
                .next()
                .unwrap()
                .trim_end_matches(".rs")
                .to_string();
            for (n, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let code = line.split("//").next().unwrap();
                for (at, _) in code.match_indices("crate::") {
                    let to: String = code[at + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if to != from {
                        let file = path.strip_prefix(workspace).unwrap().display().to_string();
                        found.push((file, n + 1, from.clone(), to));
                    }
                }
            }
        }
    }
}

#[test]
fn no_module_imports_one_of_a_layer_above_it() {
    let found = imports();
    assert!(
        found.len() > 100,
        "the scan found only {} imports",
        found.len()
    );
    let mut wrong = Vec::new();
    for (file, line, from, to) in &found {
        let (Some(lf), Some(lt)) = (layer_of(from), layer_of(to)) else {
            wrong.push(format!(
                "{file}:{line}: `{from}` or `{to}` has no layer in tests/layers.rs"
            ));
            continue;
        };
        if lt > lf {
            wrong.push(format!(
                "{file}:{line}: `{from}` ({}) imports `{to}` ({})",
                LAYERS[lf].0, LAYERS[lt].0
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn below_the_application_no_import_cycle() {
    let app = LAYERS.len() - 1;
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, _, from, to) in imports() {
        if layer_of(&from).is_some_and(|l| l < app) {
            graph.entry(from).or_default().insert(to);
        }
    }
    // Depth-first, with the path so far: a module met again on its own path is a cycle.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}

/// The instrument a crate author's bench will depend on stays light: no provider the
/// CLI measures (OpenSSL, ring, aws-lc-rs, libcrux) among its dependencies, however
/// indirect.
#[test]
fn the_core_depends_on_no_heavy_provider() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "cryptobench-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--locked",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && tree.contains("cryptobench-stats"),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let heavy: Vec<&str> = tree
        .lines()
        .filter(|l| {
            ["openssl", "ring ", "aws-lc", "libcrux"]
                .iter()
                .any(|h| l.starts_with(h))
        })
        .collect();
    assert!(heavy.is_empty(), "cryptobench-core depends on {heavy:?}");
}

/// The workspace's crates, bottom to top: a crate may depend (normally or to build) only
/// on crates below it, so that the harness a crate author adds (`cryptobench-bench`) never
/// pulls in the CLI. Only the CLI's own tests and examples may use the harness.
const CRATES: &[&str] = &[
    "cryptobench-stats",
    "cryptobench-keccak-lanes",
    "cryptobench-aes-bulk",
    "cryptobench-core",
    "cryptobench-providers",
    "cryptobench-bench",
    "cryptobench",
];

#[test]
fn no_crate_depends_on_one_above_it() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let Some(level) = CRATES.iter().position(|c| *c == name) else {
            wrong.push(format!(
                "crate `{name}` has no place in tests/layers.rs CRATES"
            ));
            continue;
        };
        seen += 1;
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let Some(dep_level) = CRATES.iter().position(|c| *c == dep_name) else {
                continue;
            };
            let dev = dep["kind"].as_str() == Some("dev");
            if dep_level >= level && !(dev && name == "cryptobench") {
                wrong.push(format!(
                    "`{name}` depends on `{dep_name}`, which is not below it"
                ));
            }
        }
    }
    assert_eq!(seen, CRATES.len(), "the workspace lacks a crate of CRATES");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
