//! What a C build was doing when it killed its worker. The gate and the timed calls note
//! the call they are about to make (function, lengths, case); a handler of the fatal
//! signals, and one of `exit`, write that note to stderr, where the parent reads a dead
//! worker's last words, and [`cause`] says what the way it died points at ([`hang_cause`],
//! what a call that never returned does). A build whose functions do not have the
//! prototypes the API fixes (docs/c-api.md) usually crashes in its first call, or loops
//! on a length read at another width, and "killed by signal 11" alone does not say which;
//! but where the compiler held them to those prototypes (every source C or C++: see
//! `compile::prototypes_checked`), a prototype is no cause to point at.

use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// The note's room; a longer one is cut.
const ROOM: usize = 480;
static NOTE: [AtomicU8; ROOM] = [const { AtomicU8::new(0) }; ROOM];
/// The note's length; 0 while it is written, and where there is none.
static LEN: AtomicUsize = AtomicUsize::new(0);

/// Notes the call about to be made, in the words of `args`.
pub fn set(args: fmt::Arguments) {
    struct Note(usize);
    impl fmt::Write for Note {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for b in s.bytes() {
                if self.0 == ROOM {
                    break;
                }
                NOTE[self.0].store(b, Ordering::Relaxed);
                self.0 += 1;
            }
            Ok(())
        }
    }
    LEN.store(0, Ordering::Release);
    let mut note = Note(0);
    let _ = note.write_fmt(args);
    LEN.store(note.0, Ordering::Release);
}

/// No call under way: the worker has its answer, and exits of its own accord.
pub fn clear() {
    LEN.store(0, Ordering::Release);
}

/// The note as it stands, if any.
pub fn current() -> Option<String> {
    let len = LEN.load(Ordering::Acquire);
    (len > 0).then(|| {
        let bytes: Vec<u8> = NOTE[..len]
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The signals a crashing call raises, and the handlers they had before [`install`].
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];
static mut PREVIOUS: [std::mem::MaybeUninit<libc::sigaction>; 5] =
    [const { std::mem::MaybeUninit::uninit() }; 5];

/// The signal the parent sends a worker that ran out of time, before it kills it: the
/// worker writes its note as `cryptobench: hung in NOTE` ([`HUNG_IN`]) and goes on.
pub const ASK: libc::c_int = libc::SIGUSR1;
/// What a worker asked by [`ASK`] writes before its note.
pub const HUNG_IN: &str = "cryptobench: hung in ";
/// What a worker killed by a fatal signal writes before its note.
pub const DIED_IN: &str = "cryptobench: died in ";
/// What a worker that a call ended with `exit` writes before its note.
pub const EXITED_IN: &str = "cryptobench: exited in ";

/// What a worker's end points at, given the signal that killed it (`None`: it exited)
/// and its stderr; `None` where it left no note, so that no C call was under way.
/// A heap or stack that glibc found corrupted aborts, and the last words are glibc's:
/// memory written out of bounds, not a prototype; nor is a prototype where the compiler
/// checked them (`prototypes_checked`).
pub fn cause(
    signal: Option<libc::c_int>,
    stderr: &str,
    prototypes_checked: bool,
) -> Option<&'static str> {
    // A panic of cryptobench's own unwinds through `exit` too: not the implementation's.
    let noted = stderr.contains(DIED_IN) || stderr.contains(EXITED_IN);
    if !noted || (signal.is_none() && stderr.contains("panicked at")) {
        return None;
    }
    const GLIBC_CORRUPTION: [&str; 6] = [
        "malloc",
        "free()",
        "double free",
        "corrupted",
        "munmap_chunk",
        "stack smashing detected",
    ];
    Some(match signal {
        None => "the implementation called exit()",
        Some(libc::SIGABRT) if GLIBC_CORRUPTION.iter().any(|m| stderr.contains(m)) => {
            "memory written out of bounds: glibc found its heap or stack corrupted"
        }
        Some(libc::SIGABRT) => "the implementation called abort(), or an assert() failed",
        Some(libc::SIGFPE) => "an integer division by zero?",
        Some(libc::SIGILL) if prototypes_checked => {
            "an instruction this CPU lacks, or memory written out of bounds"
        }
        Some(libc::SIGILL) => {
            "an instruction this CPU lacks, a prototype other than docs/c-api.md's, or memory written out of bounds"
        }
        Some(_) if prototypes_checked => "memory read or written out of bounds",
        Some(_) => "a prototype other than docs/c-api.md's, or memory written out of bounds",
    })
}

/// What a C call that did not return before the timeout points at: a length parameter of
/// another width than the API's `unsigned long long` (a 32-bit `inlen` read from a
/// register whose upper half is not the length, or a swapped pointer) can run a loop
/// about forever; where the compiler held the functions to the API's prototypes
/// (`prototypes_checked`), that cannot be, and what is left is the code's own loop, or a
/// call slower than the timeout.
pub fn hang_cause(prototypes_checked: bool) -> &'static str {
    if prototypes_checked {
        "a loop that does not end at this length, or code slower than --timeout allows"
    } else {
        "a prototype other than docs/c-api.md's, whose length a loop reads as a huge count, or a loop that does not end at this length"
    }
}

/// In a worker, before it loads anything: a fatal signal first writes the note (if any)
/// to stderr, then meets the handler it had before (Rust's, which still reports a stack
/// overflow, or the default: the process dies of that signal, as it would have); [`ASK`]
/// writes it, and the worker goes on until the parent kills it.
pub fn install() {
    // SAFETY: as below; the handler only writes (async-signal-safe) and returns.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_asked as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK | libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(ASK, &action, std::ptr::null_mut());
        // A call that ends the process with exit() (SUPERCOP's code does, on an error)
        // leaves no signal to handle: the note is written on the way out instead.
        libc::atexit(on_exit);
    }
    for (i, &sig) in FATAL.iter().enumerate() {
        // SAFETY: sigaction(2) with a zeroed struct whose handler is an extern "C" fn;
        // PREVIOUS is written here, once, before any signal can read it.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let previous = &raw mut PREVIOUS;
            libc::sigaction(sig, &action, (*previous)[i].as_mut_ptr());
        }
    }
}

/// Writes `said` and the note (if any) to stderr, on a line of its own; safe in a signal
/// handler (no allocation, write(2) only).
fn write_note(said: &[u8]) {
    const MOST: usize = 32;
    let len = LEN.load(Ordering::Acquire);
    if len == 0 || said.len() > MOST {
        return;
    }
    let mut line = [0u8; 1 + MOST + ROOM + 1];
    line[0] = b'\n';
    line[1..1 + said.len()].copy_from_slice(said);
    let at = 1 + said.len();
    for (i, b) in NOTE[..len].iter().enumerate() {
        line[at + i] = b.load(Ordering::Relaxed);
    }
    line[at + len] = b'\n';
    // SAFETY: write(2) is async-signal-safe; the buffer lives on this stack.
    unsafe { libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), at + len + 1) };
}

extern "C" fn on_asked(_: libc::c_int) {
    write_note(HUNG_IN.as_bytes());
}

extern "C" fn on_exit() {
    write_note(EXITED_IN.as_bytes());
}

extern "C" fn on_fatal(sig: libc::c_int) {
    write_note(DIED_IN.as_bytes());
    if let Some(i) = FATAL.iter().position(|&s| s == sig) {
        // SAFETY: sigaction(2) is async-signal-safe; PREVIOUS[i] was filled by `install`,
        // the only way this handler is reached.
        unsafe {
            let previous = &raw const PREVIOUS;
            libc::sigaction(sig, (*previous)[i].as_ptr(), std::ptr::null_mut());
        }
    }
    // Returning re-runs the faulting instruction, which now meets the previous handler;
    // a raised signal (abort) is raised again by its caller.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_kept_whole_or_cut_to_its_room() {
        set(format_args!("crypto_hash(out, in, inlen = {})", 3));
        assert_eq!(
            current().as_deref(),
            Some("crypto_hash(out, in, inlen = 3)")
        );
        set(format_args!("{}", "x".repeat(1000)));
        assert_eq!(current().map(|n| n.len()), Some(ROOM));
    }

    #[test]
    fn a_crash_is_said_by_its_cause() {
        let note = "cryptobench: died in crypto_hash(inlen = 3), called by the correctness gate";
        let heap = format!("malloc(): invalid size (unsorted)\n{note}\n");
        for checked in [false, true] {
            assert_eq!(
                cause(Some(libc::SIGABRT), &heap, checked),
                Some("memory written out of bounds: glibc found its heap or stack corrupted")
            );
            assert_eq!(
                cause(Some(libc::SIGABRT), note, checked),
                Some("the implementation called abort(), or an assert() failed")
            );
            let exited =
                "cryptobench: exited in crypto_hash(inlen = 7), called by the correctness gate";
            assert_eq!(
                cause(None, exited, checked),
                Some("the implementation called exit()")
            );
            assert_eq!(
                cause(Some(libc::SIGSEGV), "no note", checked),
                None,
                "no C call"
            );
        }
        // A prototype is a cause only where the compiler could not check it.
        assert_eq!(
            cause(Some(libc::SIGSEGV), note, false),
            Some("a prototype other than docs/c-api.md's, or memory written out of bounds")
        );
        assert_eq!(
            cause(Some(libc::SIGSEGV), note, true),
            Some("memory read or written out of bounds")
        );
        assert_eq!(
            cause(Some(libc::SIGILL), note, true),
            Some("an instruction this CPU lacks, or memory written out of bounds")
        );
        assert!(hang_cause(false).starts_with("a prototype other than docs/c-api.md's"));
        assert!(!hang_cause(true).contains("prototype"));
    }
}
