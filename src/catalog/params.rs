//! The parameters of one case, e.g. `len=16384 ad=0`.

use std::collections::BTreeMap;
use std::fmt;

/// Named non-negative integer parameters, kept in name order so that the textual form
/// (part of a case's stable id) never depends on insertion order.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Params(BTreeMap<String, u64>);

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    pub fn with(mut self, name: &str, value: u64) -> Self {
        self.0.insert(name.to_string(), value);
        self
    }

    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.get(name).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (k, v) in &self.0 {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textual_form_is_sorted_by_name() {
        let p = Params::new().with("len", 64).with("ad", 0);
        assert_eq!(p.to_string(), "ad=0 len=64");
        assert_eq!(Params::new().to_string(), "");
    }
}
