//! One file per provider: each implements the kind traits for its library's types and
//! registers them. Adding a provider is one file here and one line in [`builtin`].

use cryptobench_core::build_info::Library;
use cryptobench_core::catalog::registry::Registry;

pub mod aws_lc_rs;
pub mod dalek;
pub mod keccak_lanes;
pub mod libcrux;
pub mod openssl;
pub mod rand_chacha;
pub mod ring;
pub mod rustcrypto;
pub mod testing;

#[cfg(test)]
mod lockfile;

/// Every implementation this binary knows (the test implementations only where their
/// environment variable asks for them).
pub fn builtin() -> Registry {
    let mut r = Registry::new();
    rustcrypto::register(&mut r);
    rand_chacha::register(&mut r);
    dalek::register(&mut r);
    ring::register(&mut r);
    aws_lc_rs::register(&mut r);
    openssl::register(&mut r);
    keccak_lanes::register(&mut r);
    libcrux::register(&mut r);
    testing::register(&mut r);
    r
}

/// The libraries the catalog's implementations come from, for a run's record: the C
/// OpenSSL this binary links, as it names itself at run time, then the catalog's crates at
/// the versions the workspace's Cargo.lock pins (recorded by build.rs).
pub fn libraries() -> Vec<Library> {
    let linked = ::openssl::version::version();
    let (name, version) = linked.split_once(' ').unwrap_or(("OpenSSL", linked));
    let mut libraries = vec![Library {
        name: name.to_string(),
        version: version.to_string(),
        origin: Some("linked C library".into()),
    }];
    libraries.extend(catalog_crates(env!("CRYPTOBENCH_CATALOG_CRATES")));
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

    /// The OpenSSL named is the one linked; the crates, those build.rs read from the lock.
    #[test]
    fn the_libraries_are_the_linked_openssl_and_the_catalogs_crates() {
        let libraries = libraries();
        assert_eq!(
            format!("{} {}", libraries[0].name, libraries[0].version),
            ::openssl::version::version()
        );
        assert!(libraries.iter().any(|l| l.name == "ring"), "{libraries:?}");
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
