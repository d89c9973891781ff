//! Known randomness for a build's `randombytes` while its gate runs.
//!
//! Every build links a generated `randombytes` (see `compile`) that calls the variable
//! `cryptobench_randombytes_hook` when it is set. Setting it to `feed` lets the gate
//! hand a KEM the seed a known-answer test prescribes, and see how many bytes it asked
//! for; a build that brings its own `randombytes` never calls the hook, which the gate
//! sees as no requests at all.

use std::cell::RefCell;
use std::collections::VecDeque;

use super::compile::RANDOMBYTES_HOOK;
use super::library::{Library, RandombytesHook};

#[derive(Default)]
struct Feed {
    bytes: VecDeque<u8>,
    requests: Vec<u64>,
}

thread_local! {
    static FEED: RefCell<Feed> = RefCell::default();
}

/// The hook: the queued bytes in order, zeros once they run out (the request lengths
/// tell the gate that it asked for more than it should).
unsafe extern "C" fn feed(x: *mut u8, n: u64) {
    FEED.with(|f| {
        let mut f = f.borrow_mut();
        f.requests.push(n);
        for i in 0..n as usize {
            let b = f.bytes.pop_front().unwrap_or(0);
            // SAFETY: randombytes' contract: x has room for n bytes.
            unsafe { *x.add(i) = b };
        }
    });
}

/// A build's hook variable.
pub struct Hook(*mut RandombytesHook);

// SAFETY: the variable lives as long as the library, which the owner keeps loaded; it is
// written only by `feeding`, on the thread that runs the gate.
unsafe impl Send for Hook {}
unsafe impl Sync for Hook {}

impl Hook {
    /// The hook variable of the loaded build `lib`; an error where the build does not
    /// export it.
    pub fn find(lib: &Library) -> anyhow::Result<Hook> {
        Ok(Hook(lib.symbol(RANDOMBYTES_HOOK)? as *mut RandombytesHook))
    }

    /// Run `f` with `randombytes` returning `bytes` in order; the lengths it asked for, one
    /// per call (none if the build has its own `randombytes`).
    pub fn feeding<R>(&self, bytes: &[u8], f: impl FnOnce() -> R) -> (R, Vec<u64>) {
        FEED.with(|fd| {
            *fd.borrow_mut() = Feed {
                bytes: bytes.iter().copied().collect(),
                requests: Vec::new(),
            }
        });
        // SAFETY: the variable has the hook's type (generated source); see `Send` above.
        unsafe { *self.0 = Some(feed) };
        let r = f();
        // SAFETY: as above.
        unsafe { *self.0 = None };
        let requests = FEED.with(|fd| std::mem::take(&mut fd.borrow_mut().requests));
        (r, requests)
    }
}
