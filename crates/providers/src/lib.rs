//! One file per provider: each implements the kind traits for its library's types and
//! registers them. Adding a provider is one file here and one line in [`builtin`].

use cryptobench_core::build_info::Library;
use cryptobench_core::catalog::registry::Registry;
use cryptobench_core::name::ImplName;

pub mod aws_lc_rs;
pub mod dalek;
pub mod keccak_lanes;
pub mod libcrux;
pub mod openssl;
pub mod rand_chacha;
pub mod ring;
pub mod rustcrypto;
pub mod testing;

mod lockfile;

/// The crates an implementation of a provider module comes from, by its algorithm.
type CratesOf = fn(&str) -> &'static [&'static str];

/// A linked C library's own words for its name and version.
type LinkedVersion = fn() -> &'static str;

/// Each provider module: what it registers, and the crates of what it registered.
type Provider = (fn(&mut Registry), CratesOf);

const PROVIDERS: [Provider; 9] = [
    (rustcrypto::register, rustcrypto::crates),
    (rand_chacha::register, rand_chacha::crates),
    (dalek::register, dalek::crates),
    (ring::register, ring::crates),
    (aws_lc_rs::register, aws_lc_rs::crates),
    (openssl::register, openssl::crates),
    (keccak_lanes::register, keccak_lanes::crates),
    (libcrux::register, libcrux::crates),
    (testing::register, testing::crates),
];

/// Every implementation this binary knows (the test implementations only where their
/// environment variable asks for them).
pub fn builtin() -> Registry {
    let mut r = Registry::new();
    for (register, _) in PROVIDERS {
        register(&mut r);
    }
    r
}

/// The libraries the named implementations of the catalog come from, for a run's record:
/// the C OpenSSL (or AWS-LC) this binary links where an `openssl/...` (`aws-lc-rs/...`)
/// one is among them, and the
/// crates of each at the versions the workspace's Cargo.lock pins (recorded by build.rs).
/// A name the catalog does not register (a C build's, a bench's own) adds none: its
/// libraries are not the catalog's to say.
pub fn libraries_of<'a>(implementations: impl IntoIterator<Item = &'a str>) -> Vec<Library> {
    libraries_at(&crates_of(implementations), built_versions())
}

/// The libraries behind `crates`, names of the catalog's dependencies: each at the version
/// the workspace's Cargo.lock pins, after the C library the `openssl` crate links, as it
/// names itself at run time, where `openssl` is among them.
pub fn libraries_of_crates(crates: &[&str]) -> Vec<Library> {
    libraries_at(crates, built_versions())
}

/// [`libraries_of`] at the versions `versions` gives ([`catalog_versions_in`]).
pub fn libraries_of_at<'a>(
    implementations: impl IntoIterator<Item = &'a str>,
    versions: Vec<Library>,
) -> Vec<Library> {
    libraries_at(&crates_of(implementations), versions)
}

/// The versions of the catalog's crates as the lock of the workspace a `cargo bench`
/// harness was built in pins them: the nearest Cargo.lock above `crate_dir`, the bench's
/// crate. Build.rs read cryptobench's own lock, the right one only where the bench is in
/// cryptobench's workspace: a crate elsewhere that adds the catalog is built with its own
/// lock, which may pin other versions, and without cryptobench's `[patch]`. Where no lock
/// above `crate_dir` holds this crate, build.rs's, each saying whose versions they are.
pub fn catalog_versions_in(crate_dir: &std::path::Path) -> Vec<Library> {
    let built = env!("CRYPTOBENCH_CATALOG_LOCK");
    let lock = crate_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|lock| lock.is_file());
    let read = lock.as_ref().and_then(|lock| {
        if std::fs::canonicalize(lock).is_ok_and(|l| l == std::path::Path::new(built)) {
            return Some(built_versions());
        }
        let text = std::fs::read_to_string(lock).ok()?;
        let crates = lockfile::direct_dependencies(
            include_str!("../Cargo.toml"),
            &text,
            env!("CARGO_PKG_NAME"),
        )
        .ok()?;
        Some(catalog_crates(&lockfile::encode(&crates)))
    });
    read.unwrap_or_else(|| {
        let mut versions = built_versions();
        for library in &mut versions {
            library.origin = Some(
                "as cryptobench's Cargo.lock pins it; the lock this bench was built with was not found"
                    .into(),
            );
        }
        versions
    })
}

/// The crates the named implementations come from, each as often as named.
fn crates_of<'a>(implementations: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let registered: Vec<(Registry, CratesOf)> = PROVIDERS
        .iter()
        .map(|&(register, crates)| {
            let mut r = Registry::new();
            register(&mut r);
            (r, crates)
        })
        .collect();
    let mut crates: Vec<&'static str> = Vec::new();
    for name in implementations {
        if let Some((_, crates_of)) = registered.iter().find(|(r, _)| r.get(name).is_some()) {
            crates.extend(crates_of(ImplName::parse(name).algorithm()));
        }
    }
    crates
}

/// The catalog's crates at the versions build.rs read from the workspace's lock.
fn built_versions() -> Vec<Library> {
    catalog_crates(env!("CRYPTOBENCH_CATALOG_CRATES"))
}

/// The C libraries behind crates of the catalog, each as the library names itself at run
/// time: the one linked is the one measured, whatever the crate's version suggests.
const C_LIBRARIES: [(&str, LinkedVersion); 2] = [
    ("openssl", ::openssl::version::version),
    ("aws-lc-rs", aws_lc_rs::version),
];

fn libraries_at(crates: &[&str], versions: Vec<Library>) -> Vec<Library> {
    let mut libraries = Vec::new();
    for (crate_name, version_of) in C_LIBRARIES {
        if !crates.contains(&crate_name) {
            continue;
        }
        let linked = version_of();
        let (name, version) = linked.split_once(' ').unwrap_or((crate_name, linked));
        libraries.push(Library {
            name: name.to_string(),
            version: version.to_string(),
            origin: Some("linked C library".into()),
        });
    }
    libraries.extend(
        versions
            .into_iter()
            .filter(|c| crates.contains(&c.name.as_str())),
    );
    libraries
}

/// The crates build.rs recorded (`lockfile::encode`): `name version[ origin]` joined by `;`.
fn catalog_crates(encoded: &str) -> Vec<Library> {
    encoded
        .split(';')
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let mut words = entry.splitn(3, ' ');
            Library {
                name: words.next().unwrap_or_default().to_string(),
                version: words.next().unwrap_or_default().to_string(),
                origin: words.next().map(str::to_string),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every N-lane implementation declares the lanes its name promises (`-x4-avx2`),
    /// and bytes per call count them: the lane table and cycles per byte read the
    /// declaration, users read the name.
    #[test]
    fn declared_lanes_agree_with_names() {
        let registry = builtin();
        let mut n_lane = 0;
        for imp in registry.all() {
            let name = imp.name();
            let in_name = cryptobench_core::name::ImplName::parse(&name)
                .algorithm()
                .split_once("-x")
                .and_then(|(_, rest)| rest.split('-').next()?.parse::<usize>().ok())
                .unwrap_or(1);
            assert_eq!(imp.lanes(), in_name, "{name}");
            n_lane += usize::from(in_name > 1);
        }
        assert!(
            n_lane >= 8,
            "only {n_lane} N-lane implementations registered"
        );
    }

    /// A run's libraries are those of its implementations: OpenSSL's C library only
    /// beside an `openssl/...` one, AWS-LC's beside an `aws-lc-rs/...` one, and nothing for a name the catalog does not register.
    #[test]
    fn the_libraries_are_those_of_the_implementations_named() {
        let names = |libraries: Vec<Library>| -> Vec<String> {
            libraries.iter().map(|l| l.name.clone()).collect()
        };
        assert_eq!(
            names(libraries_of(["rand_chacha/chacha20-rng"])),
            ["rand_chacha"]
        );
        assert_eq!(
            names(libraries_of([
                "rustcrypto/aes-128-gcm",
                "ring/aes-128-gcm",
                "rustcrypto/aes-128",
            ])),
            ["aes", "aes-gcm", "ring"],
            "each once, in the lock's order"
        );
        let with_openssl = libraries_of(["openssl/sha-256", "dalek/x25519"]);
        assert_eq!(
            format!("{} {}", with_openssl[0].name, with_openssl[0].version),
            ::openssl::version::version()
        );
        assert_eq!(with_openssl[0].origin.as_deref(), Some("linked C library"));
        assert_eq!(names(with_openssl)[1..], ["openssl", "x25519-dalek"]);
        let with_aws_lc = libraries_of(["aws-lc-rs/sha-256"]);
        assert_eq!(names(with_aws_lc.clone()), ["AWS-LC", "aws-lc-rs"]);
        assert_eq!(with_aws_lc[0].origin.as_deref(), Some("linked C library"));
        assert!(
            with_aws_lc[0]
                .version
                .split('.')
                .all(|n| n.parse::<u32>().is_ok()),
            "{with_aws_lc:?}"
        );
        // Our own code, a C build's name, a bench's own name: none of the catalog's crates.
        assert!(
            libraries_of([
                "cryptobench/keccak-f1600-x1-scalar",
                "ref/shake128/portable",
                "mycrate/chacha20",
            ])
            .is_empty()
        );
    }

    /// Every implementation of the catalog but our own names the crates it comes from,
    /// each one build.rs found in the lock: a new one without its crates fails here.
    #[test]
    fn every_catalog_implementation_names_crates_the_lock_pins() {
        let locked = catalog_crates(env!("CRYPTOBENCH_CATALOG_CRATES"));
        for (register, crates_of) in PROVIDERS {
            let mut r = Registry::new();
            register(&mut r);
            for imp in r.all() {
                let name = imp.name();
                let crates = crates_of(ImplName::parse(&name).algorithm());
                let own = ImplName::parse(&name).provider() == Some(keccak_lanes::PROVIDER);
                assert_eq!(crates.is_empty(), own, "{name}: {crates:?}");
                for c in crates {
                    assert!(locked.iter().any(|l| l.name == *c), "{name}: {c}");
                }
            }
        }
    }

    /// A bench in cryptobench's workspace gets build.rs's versions; one elsewhere, those
    /// of its own lock; one whose lock cannot be found, build.rs's saying whose they are.
    #[test]
    fn a_bench_elsewhere_records_the_versions_its_own_lock_pins() {
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(catalog_versions_in(here), built_versions());

        let ours = std::fs::read_to_string(env!("CRYPTOBENCH_CATALOG_LOCK")).unwrap();
        let ring = built_versions()
            .into_iter()
            .find(|l| l.name == "ring")
            .unwrap();
        let pinned = format!("name = \"ring\"\nversion = \"{}\"", ring.version);
        assert!(ours.contains(&pinned));
        let elsewhere =
            std::env::temp_dir().join(format!("cryptobench-providers-lock-{}", std::process::id()));
        let bench_crate = elsewhere.join("benches-crate");
        std::fs::create_dir_all(&bench_crate).unwrap();
        std::fs::write(
            elsewhere.join("Cargo.lock"),
            ours.replace(&pinned, "name = \"ring\"\nversion = \"0.17.8\""),
        )
        .unwrap();
        let libraries = libraries_of_at(["ring/sha-256"], catalog_versions_in(&bench_crate));
        assert_eq!(libraries.len(), 1, "{libraries:?}");
        assert_eq!(libraries[0].to_string(), "ring 0.17.8");

        // A lock that does not build this crate is not the bench's: written here rather
        // than the lock removed, as a search going on upwards could meet any stray lock.
        std::fs::write(
            elsewhere.join("Cargo.lock"),
            "version = 4\n\n[[package]]\nname = \"other\"\nversion = \"1.0.0\"\n",
        )
        .unwrap();
        let libraries = libraries_of_at(["ring/sha-256"], catalog_versions_in(&bench_crate));
        std::fs::remove_dir_all(&elsewhere).unwrap();
        assert_eq!(
            libraries[0].to_string(),
            format!(
                "ring {} (as cryptobench's Cargo.lock pins it; the lock this bench was built with was not found)",
                ring.version
            )
        );
    }

    #[test]
    fn names_are_unique() {
        let r = builtin();
        let mut names: Vec<String> = r.all().map(|i| i.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn every_builtin_implementation_passes_its_gate() {
        for i in builtin().all() {
            if let Some(why) = i.unsupported() {
                eprintln!("skipped: {why}");
                continue;
            }
            i.verify().unwrap_or_else(|e| panic!("{}: {e}", i.name()));
        }
    }

    #[test]
    fn every_operation_prepares_and_runs() {
        for i in builtin().all().filter(|i| i.unsupported().is_none()) {
            for op in i.operations() {
                let params =
                    op.params
                        .iter()
                        .fold(cryptobench_core::record::Params::new(), |p, &param| {
                            let value = if param == cryptobench_core::record::Param::Len {
                                1000
                            } else {
                                13
                            };
                            p.with(param, value)
                        });
                let mut call = i
                    .prepare(op.name, &params)
                    .unwrap_or_else(|e| panic!("{}/{}: {e}", i.name(), op.name));
                for _ in 0..3 {
                    call.call();
                }
            }
        }
    }
}
