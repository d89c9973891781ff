//! The buffers bulk work runs on, and whether they fit in memory.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use anyhow::{Result, bail};

use super::size::format_size;

/// Room left beside the two buffers for everything else (the process, the page cache the
/// system needs, other programs), so that a run never pushes the machine into swap.
pub const MARGIN: u64 = 512 << 20;

/// Anonymous memory from `mmap`: page-aligned, zeroed by the kernel, and not touched yet
/// (the caller fills it before anything is timed: first-touch page faults are not
/// encryption). Transparent huge pages are asked for where the kernel offers them
/// (`madvise` mode), so that TLB misses do not decide figures either; every implementation
/// and memcpy's rate run on the same buffers.
pub struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
}

impl Buffer {
    pub fn new(len: usize) -> Result<Buffer> {
        if len == 0 {
            bail!("a buffer of 0 bytes");
        }
        // SAFETY: an anonymous private mapping at an address the kernel picks; nothing is
        // aliased. The result is checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            bail!(
                "cannot allocate {}: {}",
                format_size(len as u64),
                std::io::Error::last_os_error()
            );
        }
        // SAFETY: `ptr..ptr + len` is the mapping just made. Without huge pages the buffer
        // still works, so the result is ignored.
        unsafe { libc::madvise(ptr, len, libc::MADV_HUGEPAGE) };
        Ok(Buffer {
            ptr: NonNull::new(ptr.cast()).expect("mmap does not return null on success"),
            len,
        })
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `len` readable bytes, mapped for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// Refuse sizes whose two buffers (input and working copy) plus [`MARGIN`] exceed
/// `available` bytes. Sizes run one after another, so the largest decides.
pub fn check_fits(sizes: &[u64], available: u64) -> Result<()> {
    let Some(&largest) = sizes.iter().max() else {
        return Ok(());
    };
    let needed = largest.saturating_mul(2).saturating_add(MARGIN);
    if needed > available {
        bail!(
            "--sizes {}: two buffers of that size plus {} margin need {}, but only {} of memory is available (MemAvailable in /proc/meminfo); choose smaller sizes",
            format_size(largest),
            format_size(MARGIN),
            gib(needed),
            gib(available)
        );
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_do_not_fit_are_refused() {
        let gib = 1u64 << 30;
        assert!(check_fits(&[gib, 2 * gib], 5 * gib).is_ok());
        let err = check_fits(&[gib, 1000 * gib], 24 * gib)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--sizes 1000 GiB"), "{err}");
        assert!(err.contains("need 2000.5 GiB"), "{err}");
        assert!(err.contains("only 24.0 GiB"), "{err}");
        // Two buffers of 2 GiB and the margin do not fit in 4.4 GiB.
        assert!(check_fits(&[2 * gib], 4 * gib + (400 << 20)).is_err());
    }

    #[test]
    fn buffers_are_zeroed_page_aligned_and_writable() {
        let mut b = Buffer::new(3 << 20).unwrap();
        assert_eq!(b.as_ptr() as usize % 4096, 0);
        assert!(b.iter().all(|&x| x == 0));
        b[12345] = 7;
        assert_eq!(b[12345], 7);
        assert!(Buffer::new(0).is_err());
    }
}
