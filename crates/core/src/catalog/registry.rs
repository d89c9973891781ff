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
