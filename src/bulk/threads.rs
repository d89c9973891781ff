//! Threads for bulk work: which CPUs they run on, how a buffer is split between them, and
//! one closure per chunk on threads pinned each to its own CPU.
//!
//! Chunk 0 runs on the calling thread (the runner pins it to the first CPU of the order);
//! chunk i on worker i of a pool, started once, pinned once, and parked between calls.
//! Starting threads per call instead costs 15-20 us each here (sequentially, in the timed
//! region: 0.3 ms for 16 threads), and a thread started by a pinned caller first queues
//! behind it on its CPU; waking a parked worker costs a few microseconds.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use anyhow::{Context, Result};

use crate::machine;

/// Chunks start on page boundaries (from the buffer's start), so no two threads write the
/// same cache line, or the same page where the buffer is page-aligned.
pub const CHUNK_ALIGN: usize = 4096;

/// The CPUs threads take, thread i the i-th: one logical CPU per physical core first, then
/// the SMT siblings, each group from the highest-numbered CPU down (CPU 0 takes most
/// interrupts, as `run` avoids it too). More threads than CPUs wrap around.
pub fn cpu_order() -> &'static [usize] {
    static ORDER: OnceLock<Vec<usize>> = OnceLock::new();
    ORDER.get_or_init(|| order_by_core(&machine::online_cpus(), core_of))
}

/// (package, core) of a CPU, where the kernel says.
fn core_of(cpu: usize) -> Option<(u64, u64)> {
    let read = |what: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{what}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some((read("physical_package_id")?, read("core_id")?))
}

fn order_by_core(cpus: &[usize], core: impl Fn(usize) -> Option<(u64, u64)>) -> Vec<usize> {
    let (mut first, mut siblings, mut cores) = (Vec::new(), Vec::new(), Vec::new());
    for &cpu in cpus.iter().rev() {
        match core(cpu) {
            Some(c) if cores.contains(&c) => siblings.push(cpu),
            Some(c) => {
                cores.push(c);
                first.push(cpu);
            }
            None => first.push(cpu),
        }
    }
    first.extend(siblings);
    first
}

/// `parts` ranges covering `0..len` in order, each starting at a multiple of
/// [`CHUNK_ALIGN`]; trailing ones are empty when `len` is too small to go round.
pub fn split(len: usize, parts: usize) -> Vec<Range<usize>> {
    let per = len.div_ceil(parts.max(1)).next_multiple_of(CHUNK_ALIGN);
    (0..parts)
        .map(|i| (i.saturating_mul(per)).min(len)..(i + 1).saturating_mul(per).min(len))
        .collect()
}

/// The non-empty chunks of `data` for `threads` threads, with their offsets.
fn chunks_mut(data: &mut [u8], threads: usize) -> Vec<(usize, &mut [u8])> {
    let mut out = Vec::with_capacity(threads);
    let mut rest = data;
    for r in split(rest.len(), threads) {
        if r.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at_mut(r.len());
        out.push((r.start, chunk));
        rest = tail;
    }
    out
}

/// A job for a worker. Its real lifetime is one `run_parts` call, which waits for it.
type Task = Box<dyn FnOnce() + Send + 'static>;

/// Workers 1, 2, ... (worker i pinned to `cpu_order()[i]`, wrapping), each waiting on its
/// channel. The lock also makes calls take turns: concurrent callers (tests) queue here.
fn pool() -> MutexGuard<'static, Vec<Sender<Task>>> {
    static POOL: Mutex<Vec<Sender<Task>>> = Mutex::new(Vec::new());
    // A panic inside a job is caught in the worker, so the list is never left half-made.
    POOL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn grow(workers: &mut Vec<Sender<Task>>, count: usize) -> Result<()> {
    let cpus = cpu_order();
    while workers.len() < count {
        let cpu = cpus[(workers.len() + 1) % cpus.len()];
        let (tx, rx) = channel::<Task>();
        std::thread::Builder::new()
            .name(format!("bulk-cpu{cpu}"))
            .spawn(move || {
                // The CPU comes from this process's own affinity mask, so pinning fails only
                // if someone changes the mask meanwhile; an unpinned worker still computes
                // the right answer.
                let _ = machine::pin_to_cpu(cpu);
                for task in rx {
                    task();
                }
            })
            .with_context(|| format!("cannot start worker thread {}", workers.len() + 1))?;
        workers.push(tx);
    }
    Ok(())
}

/// Start the workers `threads` threads need, so that a run fails here, with a message,
/// rather than in the middle of a measurement.
pub fn prepare(threads: usize) -> Result<()> {
    grow(&mut pool(), threads.saturating_sub(1))
}

/// Counts finished tasks; waits for all of them.
struct Latch {
    left: Mutex<usize>,
    done: Condvar,
}

impl Latch {
    fn count_down(&self) {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        *left -= 1;
        if *left == 0 {
            self.done.notify_one();
        }
    }

    fn wait(&self) {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        while *left > 0 {
            left = self.done.wait(left).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Waits for the latch when dropped: on return and when chunk 0 panics alike, no task
/// outlives the data it borrows.
struct WaitFor<'a>(&'a Latch);

impl Drop for WaitFor<'_> {
    fn drop(&mut self) {
        self.0.wait();
    }
}

/// `f(part)` for every part, part i on thread i; results in part order. Not reentrant:
/// `f` must not call back into this module's parallel functions.
fn run_parts<T: Send, R: Send>(parts: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Vec::new();
    };
    let others = parts.len();
    if others == 0 {
        return vec![f(first)];
    }
    let mut workers = pool();
    grow(&mut workers, others).expect("worker threads (`prepare` starts them for a run)");
    let results: Vec<Mutex<Option<std::thread::Result<R>>>> =
        (0..others).map(|_| Mutex::new(None)).collect();
    let latch = Latch {
        left: Mutex::new(others),
        done: Condvar::new(),
    };
    let wait = WaitFor(&latch);
    let (f, results_ref, latch_ref) = (&f, &results, &latch);
    for (i, part) in parts.enumerate() {
        let task: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            let r = catch_unwind(AssertUnwindSafe(|| f(part)));
            *results_ref[i]
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(r);
            latch_ref.count_down();
        });
        // SAFETY: the task borrows `f`, `results` and `latch`, which outlive it: `wait`
        // blocks until every task has counted down, before any of them is dropped, whether
        // this function returns or unwinds.
        let task: Task = unsafe { std::mem::transmute(task) };
        // A worker never ends its loop, so sending fails only if it could not be started;
        // the task then runs here, so that the latch still reaches zero.
        if let Err(failed) = workers[i].send(task) {
            (failed.0)();
        }
    }
    let mut out = Vec::with_capacity(others + 1);
    out.push(f(first));
    drop(wait);
    for r in results {
        match r.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(Ok(v)) => out.push(v),
            Some(Err(panic)) => resume_unwind(panic),
            None => unreachable!("the latch counts every task"),
        }
    }
    out
}

/// `f(offset, chunk)` on each of up to `threads` page-aligned chunks of `data`, in
/// parallel; results in chunk order.
pub fn for_each_chunk<R: Send>(
    data: &mut [u8],
    threads: usize,
    f: impl Fn(usize, &mut [u8]) -> R + Sync,
) -> Vec<R> {
    run_parts(chunks_mut(data, threads), |(offset, chunk)| {
        f(offset, chunk)
    })
}

/// `f(dst_chunk, src_chunk)` on matching chunks of two buffers of one length, in parallel.
pub fn for_each_pair<R: Send>(
    dst: &mut [u8],
    src: &[u8],
    threads: usize,
    f: impl Fn(&mut [u8], &[u8]) -> R + Sync,
) -> Vec<R> {
    assert_eq!(dst.len(), src.len(), "buffers of one length");
    let parts: Vec<_> = chunks_mut(dst, threads)
        .into_iter()
        .map(|(offset, d)| {
            let s = &src[offset..offset + d.len()];
            (d, s)
        })
        .collect();
    run_parts(parts, |(d, s)| f(d, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_everything_once_on_page_boundaries() {
        for len in [0, 1, 16, 4095, 4096, 4097, 20_000, 1 << 20, (1 << 20) + 48] {
            for parts in [1, 2, 3, 7, 16] {
                let rs = split(len, parts);
                assert_eq!(rs.len(), parts);
                assert_eq!(rs[0].start, 0);
                assert_eq!(rs[parts - 1].end, len, "len {len} parts {parts}");
                for w in rs.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                for r in &rs {
                    assert!(
                        r.start.is_multiple_of(CHUNK_ALIGN) || r.start == len,
                        "{r:?}"
                    );
                }
            }
        }
        assert_eq!(split(20_000, 3), vec![0..8192, 8192..16384, 16384..20_000]);
    }

    #[test]
    fn chunks_see_their_offsets_and_pairs_line_up() {
        let mut data = vec![0u8; 3 * 4096 - 100];
        let offsets = for_each_chunk(&mut data, 3, |offset, chunk| {
            chunk.fill((offset / 4096) as u8 + 1);
            offset
        });
        assert_eq!(offsets, vec![0, 4096, 8192]);
        assert!(data[..4096].iter().all(|&b| b == 1));
        assert!(data[8192..].iter().all(|&b| b == 3));

        let src: Vec<u8> = (0..data.len()).map(|i| i as u8).collect();
        let lens = for_each_pair(&mut data, &src, 4, |d, s| {
            d.copy_from_slice(s);
            d.len()
        });
        assert_eq!(lens.iter().sum::<usize>(), src.len());
        assert_eq!(data, src);
    }

    #[test]
    fn a_panic_in_a_chunk_reaches_the_caller_and_the_workers_survive() {
        let mut data = vec![0u8; 4 * 4096];
        for panicking in [0, 8192] {
            let r = catch_unwind(AssertUnwindSafe(|| {
                for_each_chunk(&mut data, 4, |offset, _| {
                    assert!(offset != panicking, "chunk at {offset}");
                })
            }));
            assert!(r.is_err(), "the panic at {panicking} is passed on");
            let offsets = for_each_chunk(&mut data, 4, |offset, _| offset);
            assert_eq!(offsets, vec![0, 4096, 8192, 12288]);
        }
    }

    #[test]
    fn one_cpu_per_core_before_siblings() {
        // CPUs i and i + 4 share a core, as Linux numbers SMT siblings on many machines.
        let order = order_by_core(&[0, 1, 2, 3, 4, 5, 6, 7], |c| Some((0, c as u64 % 4)));
        assert_eq!(order, vec![7, 6, 5, 4, 3, 2, 1, 0]);
        // Adjacent siblings (0/1, 2/3): one of each pair first.
        let order = order_by_core(&[0, 1, 2, 3], |c| Some((0, c as u64 / 2)));
        assert_eq!(order, vec![3, 1, 2, 0]);
        assert_eq!(order_by_core(&[0, 1], |_| None), vec![1, 0]);
        assert!(!cpu_order().is_empty());
    }
}
