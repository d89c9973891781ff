//! The implementations a binary can measure: the host (the CLI, or a crate author's
//! bench) fills one and hands it to the runner and to its worker processes.

use super::Implementation;

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
