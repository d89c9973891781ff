//! The crates a package depends on, at the versions Cargo.lock pins: what the build script
//! records for run records (the libraries the catalog's implementations come from), read
//! from the manifest and the lock rather than kept by hand. Shared with build.rs, so it
//! needs nothing but `toml`.

/// One crate a package depends on, as the lock pins it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedCrate {
    /// The crate's own name (a dependency renamed in the manifest reads as this).
    pub name: String,
    /// Its version, as Cargo.lock pins it.
    pub version: String,
    /// Where the code came from, where not from a registry: `local copy` (a `[patch]`
    /// with a path: vendor/) or `git`.
    pub origin: Option<String>,
}

/// The crates `manifest` (the package's Cargo.toml) lists under `[dependencies]`, at the
/// versions `lock` pins for `package`. Dependencies by `path` are left out: they are this
/// workspace's own code, which the run's git revision names.
pub fn direct_dependencies(
    manifest: &str,
    lock: &str,
    package: &str,
) -> Result<Vec<LockedCrate>, String> {
    let manifest: toml::Table = manifest.parse().map_err(|e| format!("Cargo.toml: {e}"))?;
    let lock: toml::Table = lock.parse().map_err(|e| format!("Cargo.lock: {e}"))?;
    let packages = lock
        .get("package")
        .and_then(toml::Value::as_array)
        .ok_or("Cargo.lock: no [[package]]")?;
    fn field<'a>(p: &'a toml::Value, key: &str) -> Option<&'a str> {
        p.get(key).and_then(toml::Value::as_str)
    }
    let ours = packages
        .iter()
        .find(|p| field(p, "name") == Some(package))
        .ok_or_else(|| format!("Cargo.lock: no package `{package}`"))?;
    // An entry is `name`, or `name version` (and a source) where two versions are locked.
    let locked_deps: Vec<(&str, Option<&str>)> = ours
        .get("dependencies")
        .and_then(toml::Value::as_array)
        .map(|deps| {
            deps.iter()
                .filter_map(toml::Value::as_str)
                .map(|d| {
                    let mut words = d.split_whitespace();
                    (words.next().unwrap_or(""), words.next())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut crates = Vec::new();
    let declared = manifest
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    for (key, spec) in &declared {
        if spec.get("path").is_some() {
            continue;
        }
        let name = spec
            .get("package")
            .and_then(toml::Value::as_str)
            .unwrap_or(key);
        let Some((_, version)) = locked_deps.iter().find(|(n, _)| *n == name) else {
            return Err(format!(
                "Cargo.lock: `{package}` does not depend on `{name}`: is the lock out of date?"
            ));
        };
        let candidates: Vec<&toml::Value> = packages
            .iter()
            .filter(|p| field(p, "name") == Some(name))
            .filter(|p| version.is_none_or(|v| field(p, "version") == Some(v)))
            .collect();
        let [locked] = candidates[..] else {
            return Err(format!(
                "Cargo.lock: {} packages `{name}` for `{package}`'s dependency",
                candidates.len()
            ));
        };
        let origin = match field(locked, "source") {
            None => Some("local copy".to_string()),
            Some(s) if s.starts_with("git+") => Some("git".to_string()),
            Some(_) => None,
        };
        crates.push(LockedCrate {
            name: name.to_string(),
            version: field(locked, "version").unwrap_or("?").to_string(),
            origin,
        });
    }
    crates.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(crates)
}

/// `crates` as one line for `cargo:rustc-env`: `name version[ origin]` joined by `;`
/// (no crate name, version or origin holds a `;`), as `crate::catalog_crates` reads it.
pub fn encode(crates: &[LockedCrate]) -> String {
    crates
        .iter()
        .map(|c| match &c.origin {
            Some(origin) => format!("{} {} {origin}", c.name, c.version),
            None => format!("{} {}", c.name, c.version),
        })
        .collect::<Vec<_>>()
        .join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"
[package]
name = "cat"
version = "0.1.0"

[dependencies]
core = { path = "../core" }
libc = "0.2"
ring = "0.17"
libcrux-sha3 = { version = "=0.0.11", features = ["simd256"] }
sha2-old = { package = "sha2", version = "0.10" }
forked = { git = "https://example.org/forked" }

[dev-dependencies]
tempfile = "3"

[build-dependencies]
toml = "1"
"#;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "cat"
version = "0.1.0"
dependencies = [
 "core",
 "forked",
 "libc",
 "libcrux-sha3",
 "ring",
 "sha2 0.10.9",
 "tempfile",
 "toml",
]

[[package]]
name = "core"
version = "0.1.0"

[[package]]
name = "forked"
version = "1.0.0"
source = "git+https://example.org/forked#abc"

[[package]]
name = "libc"
version = "0.2.191"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libcrux-sha3"
version = "0.0.11"

[[package]]
name = "ring"
version = "0.17.14"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "sha2"
version = "0.10.9"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "sha2"
version = "0.11.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

    fn locked(name: &str, version: &str, origin: Option<&str>) -> LockedCrate {
        LockedCrate {
            name: name.into(),
            version: version.into(),
            origin: origin.map(str::to_string),
        }
    }

    /// Normal dependencies only, path ones left out, renamed ones by their own name, the
    /// version the package's lock entry picks where two are locked.
    #[test]
    fn the_locked_versions_of_the_declared_dependencies() {
        let crates = direct_dependencies(MANIFEST, LOCK, "cat").unwrap();
        assert_eq!(
            crates,
            [
                locked("forked", "1.0.0", Some("git")),
                locked("libc", "0.2.191", None),
                locked("libcrux-sha3", "0.0.11", Some("local copy")),
                locked("ring", "0.17.14", None),
                locked("sha2", "0.10.9", None),
            ]
        );
        let recorded: Vec<String> = crate::catalog_crates(&encode(&crates))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            recorded,
            [
                "forked 1.0.0 (git)",
                "libc 0.2.191",
                "libcrux-sha3 0.0.11 (local copy)",
                "ring 0.17.14",
                "sha2 0.10.9",
            ]
        );
        assert!(crate::catalog_crates("").is_empty());
    }

    #[test]
    fn a_lock_that_does_not_fit_the_manifest_is_an_error() {
        let err = direct_dependencies(MANIFEST, LOCK, "dog").unwrap_err();
        assert!(err.contains("no package `dog`"), "{err}");
        let stale = LOCK.replace(" \"ring\",\n", "");
        let err = direct_dependencies(MANIFEST, &stale, "cat").unwrap_err();
        assert!(err.contains("does not depend on `ring`"), "{err}");
        let err = direct_dependencies("[dependencies", LOCK, "cat").unwrap_err();
        assert!(err.starts_with("Cargo.toml: "), "{err}");
    }

    /// This crate's own record: what the build script found in the workspace's lock.
    #[test]
    fn the_catalogs_crates_are_recorded_with_their_locked_versions() {
        let crates = crate::catalog_crates(env!("CRYPTOBENCH_CATALOG_CRATES"));
        let names: Vec<&str> = crates.iter().map(|c| c.name.as_str()).collect();
        for name in [
            "chacha20",
            "rand_chacha",
            "ring",
            "aws-lc-rs",
            "openssl",
            "sha2",
        ] {
            assert!(names.contains(&name), "{name} not in {names:?}");
        }
        assert!(!names.contains(&"cryptobench-core"), "{names:?}");
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
                .unwrap();
        let ring = crates.iter().find(|c| c.name == "ring").unwrap();
        assert!(
            lock.contains(&format!("name = \"ring\"\nversion = \"{}\"", ring.version)),
            "{ring:?}"
        );
    }
}
