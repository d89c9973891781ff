//! One file per provider: each implements the kind traits for its library's types and
//! registers them. Adding a provider is one file here and one line in [`builtin`].

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
