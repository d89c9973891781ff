//! Every implementation the binary knows. Adding a provider is one file in `providers/`
//! and one line in [`Registry::builtin`].

use super::{Implementation, providers};

pub struct Registry {
    implementations: Vec<Box<dyn Implementation>>,
}

impl Registry {
    pub fn builtin() -> Self {
        let mut r = Registry {
            implementations: Vec::new(),
        };
        providers::rustcrypto::register(&mut r);
        providers::rand_chacha::register(&mut r);
        providers::dalek::register(&mut r);
        providers::ring::register(&mut r);
        providers::aws_lc_rs::register(&mut r);
        providers::openssl::register(&mut r);
        providers::keccak_lanes::register(&mut r);
        providers::libcrux::register(&mut r);
        providers::testing::register(&mut r);
        r
    }

    pub fn add(&mut self, implementation: impl Implementation + 'static) {
        self.implementations.push(Box::new(implementation));
    }

    pub fn all(&self) -> impl Iterator<Item = &dyn Implementation> {
        self.implementations.iter().map(|b| b.as_ref())
    }

    /// The implementation named `provider/algorithm`, exactly.
    pub fn get(&self, name: &str) -> Option<&dyn Implementation> {
        self.all().find(|i| i.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let r = Registry::builtin();
        let mut names: Vec<String> = r.all().map(|i| i.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn every_builtin_implementation_passes_its_gate() {
        for i in Registry::builtin().all() {
            if let Some(why) = i.unsupported() {
                eprintln!("skipped: {why}");
                continue;
            }
            i.verify().unwrap_or_else(|e| panic!("{}: {e}", i.name()));
        }
    }

    #[test]
    fn every_operation_prepares_and_runs() {
        for i in Registry::builtin()
            .all()
            .filter(|i| i.unsupported().is_none())
        {
            for op in i.operations() {
                let params = op
                    .params
                    .iter()
                    .fold(crate::record::Params::new(), |p, name| {
                        p.with(name, if *name == "len" { 1000 } else { 13 })
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
