//! What a bulk run measures: memcpy and every implementation, at every size and thread
//! count.

use super::MEMCPY;
use super::competitors::BulkCipher;

/// What one case times: an implementation of an algorithm, or memcpy (the reference).
#[derive(Clone, Copy)]
pub enum Subject<'a> {
    Cipher(&'a dyn BulkCipher),
    Memcpy,
}

impl Subject<'_> {
    pub fn name(&self) -> String {
        match self {
            Subject::Cipher(c) => c.name(),
            Subject::Memcpy => MEMCPY.into(),
        }
    }

    pub fn operations(&self) -> &'static [&'static str] {
        match self {
            Subject::Cipher(_) => &["encrypt", "decrypt"],
            Subject::Memcpy => &["copy"],
        }
    }
}

/// One subject at one size and thread count, with the store rows of its operations.
pub struct Combo<'a> {
    pub len: u64,
    pub subject: Subject<'a>,
    pub threads: usize,
    pub rows: Vec<i64>,
    /// Set once it failed or produced wrong output: not timed again.
    pub dead: bool,
}

/// The thread counts asked for, in order, without repeats; by default 1 and every CPU.
pub fn thread_counts(asked: Option<&[usize]>, cpus: usize) -> Vec<usize> {
    let wanted = asked.map_or_else(|| vec![1, cpus], <[usize]>::to_vec);
    let mut out = Vec::new();
    for t in wanted {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Every subject at every size and thread count, memcpy first within each size.
pub fn plan<'a>(
    sizes: &[u64],
    ciphers: &'a [Box<dyn BulkCipher>],
    thread_counts: &[usize],
) -> Vec<Combo<'a>> {
    let mut out = Vec::new();
    for &len in sizes {
        let subjects =
            std::iter::once(Subject::Memcpy).chain(ciphers.iter().map(|c| Subject::Cipher(&**c)));
        for subject in subjects {
            for &threads in thread_counts {
                out.push(Combo {
                    len,
                    subject,
                    threads,
                    rows: Vec::new(),
                    dead: false,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_default_to_one_and_all_without_repeats() {
        assert_eq!(thread_counts(None, 16), vec![1, 16]);
        assert_eq!(thread_counts(None, 1), vec![1]);
        assert_eq!(thread_counts(Some(&[4, 1, 4, 2]), 16), vec![4, 1, 2]);
    }
}
