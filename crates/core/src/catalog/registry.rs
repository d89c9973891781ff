//! The implementations a binary can measure: the host (the CLI, or a crate author's
//! bench) fills one and hands it to the runner and to its worker processes.

use super::Implementation;

/// Implementations in the order they were added, looked up by `provider/algorithm`.
pub struct Registry {
    implementations: Vec<Box<dyn Implementation>>,
}

impl Registry {
    /// No implementation yet.
    pub fn new() -> Self {
        Registry {
            implementations: Vec::new(),
        }
    }

    /// Add `implementation` without checking its name (unlike [`Registry::extend`]):
    /// [`Registry::get`] finds the first one added under a name.
    pub fn add(&mut self, implementation: impl Implementation + 'static) {
        self.implementations.push(Box::new(implementation));
    }

    /// Add `other`'s implementations whose names this registry does not have yet: what a
    /// registry registered itself keeps its own.
    pub fn extend(&mut self, other: Registry) {
        for implementation in other.implementations {
            if self.get(&implementation.name()).is_none() {
                self.implementations.push(implementation);
            }
        }
    }

    /// The names registered more than once, each once, in the order first added: a
    /// host that registers its own must refuse them ([`Registry::get`] would see only
    /// the first).
    pub fn duplicate_names(&self) -> Vec<String> {
        let names: Vec<String> = self.all().map(|i| i.name()).collect();
        let mut twice: Vec<String> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) && !twice.contains(name) {
                twice.push(name.clone());
            }
        }
        twice
    }

    /// Every implementation, in the order added.
    pub fn all(&self) -> impl Iterator<Item = &dyn Implementation> {
        self.implementations.iter().map(|b| b.as_ref())
    }

    /// The implementation named `provider/algorithm`, exactly.
    pub fn get(&self, name: &str) -> Option<&dyn Implementation> {
        self.all().find(|i| i.name() == name)
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kinds::hash::{Hash, HashAlgorithm, HashFunction, SHA_256};

    struct Sha256;

    impl HashFunction for Sha256 {
        const ALGORITHM: &'static HashAlgorithm = &SHA_256;
        fn new() -> Self {
            Sha256
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            out.copy_from_slice(&crate::catalog::reference::sha2::sha256(msg));
        }
    }

    #[test]
    fn names_registered_twice_are_listed_once_each() {
        let mut r = Registry::new();
        r.add(Hash::<Sha256>::new("a"));
        r.add(Hash::<Sha256>::new("b"));
        assert!(r.duplicate_names().is_empty());
        r.add(Hash::<Sha256>::new("a"));
        r.add(Hash::<Sha256>::new("a"));
        assert_eq!(r.duplicate_names(), ["a/sha-256"]);
    }
}
