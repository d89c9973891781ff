//! Message buffers whose place in memory the sampler chooses.
//!
//! Where a call's buffers sit relative to its state can change its speed by tens of
//! percent: an RNG that copies from its internal block buffer into a destination 4096
//! bytes apart (modulo a page) suffers 4K aliasing on every store-to-load pair. Kind
//! adapters allocate their message buffers here, at the offset the worker sets for the
//! memory layout being prepared, so that every layout puts buffers and state at a
//! different distance from each other and the figure averages over them.

use std::cell::Cell;
use std::ops::{Deref, DerefMut};

const PAGE: usize = 4096;

thread_local! {
    static OFFSET: Cell<usize> = const { Cell::new(0) };
}

/// Offset (within a page) at which buffers allocated from now on, on this thread, start
/// relative to their allocation.
pub fn set_layout_offset(offset: usize) {
    OFFSET.with(|o| o.set(offset % PAGE));
}

/// A byte buffer placed at the current layout offset inside a larger allocation.
pub struct Buffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buffer {
    /// `len` zero bytes, starting at this thread's current layout offset.
    pub fn zeroed(len: usize) -> Buffer {
        let start = OFFSET.with(Cell::get);
        Buffer {
            storage: vec![0u8; start + len],
            start,
            len,
        }
    }

    /// A copy of `bytes`, starting at this thread's current layout offset.
    pub fn from_slice(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::zeroed(bytes.len());
        b.copy_from_slice(bytes);
        b
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_start_at_the_layout_offset_and_hold_their_bytes() {
        set_layout_offset(0);
        let a = Buffer::zeroed(100);
        set_layout_offset(64 * 7);
        let b = Buffer::from_slice(&[1, 2, 3]);
        assert_eq!(&b[..], &[1, 2, 3]);
        assert_eq!(a.len(), 100);
        assert_eq!(b.as_ptr() as usize - b.storage.as_ptr() as usize, 448);
        set_layout_offset(PAGE + 5);
        assert_eq!(Buffer::zeroed(1).start, 5);
        set_layout_offset(0);
    }
}
