//! Records the crates the catalog's implementations come from, at the versions the
//! workspace's Cargo.lock pins, for run records (`cryptobench_providers::libraries`).

#[path = "src/lockfile.rs"]
mod lockfile;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let package = std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME");
    let manifest_path = format!("{dir}/Cargo.toml");
    // The workspace's lock: where this crate is built from its checkout, as the CLI and a
    // `cargo bench` with the catalog build it.
    let lock_path = format!("{dir}/../../Cargo.lock");
    println!("cargo:rerun-if-changed={manifest_path}");
    println!("cargo:rerun-if-changed={lock_path}");
    let read = |path: &str| std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"));
    let crates = read(&manifest_path)
        .and_then(|manifest| Ok((manifest, read(&lock_path)?)))
        .and_then(|(manifest, lock)| lockfile::direct_dependencies(&manifest, &lock, &package));
    let encoded = match crates {
        Ok(crates) => lockfile::encode(&crates),
        // Built without the workspace's lock (from a registry, say): the record says the
        // versions are unknown rather than guess them.
        Err(why) => {
            println!("cargo:warning=the catalog's crate versions are not recorded: {why}");
            String::new()
        }
    };
    println!("cargo:rustc-env=CRYPTOBENCH_CATALOG_CRATES={encoded}");
    // Which lock that was: a `cargo bench` harness built in another workspace has its own.
    let lock = std::fs::canonicalize(&lock_path).map_or(lock_path, |p| p.display().to_string());
    println!("cargo:rustc-env=CRYPTOBENCH_CATALOG_LOCK={lock}");
}
