//! Where reports go: standard output, or a file written whole or not at all, never over
//! the result store.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Print `text`, or write it to `file` when one was given.
pub fn emit(file: Option<&Path>, text: &str) -> Result<()> {
    match file {
        Some(path) => write_atomically(path, text),
        None => print(text),
    }
}

/// Standard output. A reader that has gone away (`| head`) is not an error: it has what
/// it wanted; a full disk is one, said in words rather than a panic.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        written => written.context("cannot write to standard output"),
    }
}

/// Refuse an output path that cannot be written, or that is the result store itself,
/// before any work is done for it.
pub fn check_writable(path: Option<&Path>, store: &Path) -> Result<()> {
    check_outputs(&[("-o", path)], &[(crate::store::db_option(), Some(store))])
}

/// [`check_writable`] for every output of a command (`-o`, `--html`), against every
/// store it writes (`--db`, `--push-to`): none may be a store, and no two may name one
/// file, where the second would silently replace the first.
pub fn check_outputs(
    outputs: &[(&str, Option<&Path>)],
    stores: &[(&str, Option<&Path>)],
) -> Result<()> {
    let named = |list: &[(&str, Option<&Path>)]| -> Vec<(String, PathBuf)> {
        list.iter()
            .filter_map(|&(option, path)| Some((option.to_string(), path?.to_path_buf())))
            .collect()
    };
    let (outputs, stores) = (named(outputs), named(stores));
    for (i, (option, path)) in outputs.iter().enumerate() {
        for (other, earlier) in &outputs[..i] {
            if resolved(path).is_some_and(|p| Some(p) == resolved(earlier)) {
                bail!(
                    "{other} and {option} both name `{}`: the second would replace the first; give each its own file",
                    path.display()
                );
            }
        }
        check_one(path, &stores)?;
    }
    Ok(())
}

fn check_one(path: &Path, stores: &[(String, PathBuf)]) -> Result<()> {
    if path.is_dir() {
        bail!("cannot write `{}`: it is a directory", path.display());
    }
    let dir = parent_dir(path);
    if !dir.is_dir() {
        bail!(
            "cannot write `{}`: the directory `{}` does not exist",
            path.display(),
            dir.display()
        );
    }
    for (option, store) in stores {
        if resolved(path).is_some_and(|p| Some(p) == resolved(store)) {
            bail!(
                "cannot write `{}`: it is the result store ({option}); writing a report there would destroy every stored run",
                path.display()
            );
        }
    }
    // A pipe, a device or a link is written into at the end (opening a pipe here would
    // wait for its reader).
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Ok(());
    }
    // Only trying tells: permissions, read-only mounts and /proc all refuse differently.
    let probe = temporary_beside(path, "probe")?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .with_context(|| {
            format!(
                "cannot write `{}`: cannot create a file in `{}`",
                path.display(),
                dir.display()
            )
        })?;
    // Best effort: the probe is empty and hidden if it stays.
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Write through a temporary file in the same directory and rename it into place, so a
/// reader never sees half a report and a failure leaves any previous file untouched.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    // A pipe, a device or a link is written into, not replaced by a new file.
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return std::fs::write(path, text)
            .with_context(|| format!("cannot write `{}`", path.display()));
    }
    let tmp = temporary_beside(path, "tmp")?;
    let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        // Best effort: the temporary file may never have been created.
        let _ = std::fs::remove_file(&tmp);
        bail!("cannot write `{}`: {e}", path.display());
    }
    Ok(())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

fn temporary_beside(path: &Path, what: &str) -> Result<PathBuf> {
    let name = path
        .file_name()
        .with_context(|| format!("cannot write `{}`: not a file name", path.display()))?;
    Ok(path.with_file_name(format!(
        ".{}.{}.{what}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// The absolute path a file has or would have: its directory resolved (links, `..`),
/// so that two spellings of one file compare equal.
fn resolved(path: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(parent_dir(path)).ok()?;
    let target = dir.join(path.file_name()?);
    Some(std::fs::canonicalize(&target).unwrap_or(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_is_refused_under_any_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("results.db");
        std::fs::write(&store, b"stored runs").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        for spelling in [store.clone(), sub.join("../results.db")] {
            let err = check_writable(Some(&spelling), &store)
                .unwrap_err()
                .to_string();
            assert!(err.contains("it is the result store"), "{err}");
        }
        assert_eq!(std::fs::read(&store).unwrap(), b"stored runs");
        check_writable(Some(&dir.path().join("report.md")), &store).unwrap();
        // Nothing left behind by the probe.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_second_store_or_a_second_output_of_one_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (db, central) = (dir.path().join("a.db"), dir.path().join("central.db"));
        let report = dir.path().join("report");
        let stores = [("--db", Some(db.as_path())), ("--push-to", Some(&*central))];
        let err = check_outputs(&[("-o", None), ("--html", Some(&central))], &stores)
            .unwrap_err()
            .to_string();
        assert!(err.contains("it is the result store (--push-to)"), "{err}");
        let err = check_outputs(&[("-o", Some(&report)), ("--html", Some(&report))], &stores)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("-o and --html both name"), "{err}");
        check_outputs(
            &[
                ("-o", Some(&report)),
                ("--html", Some(&dir.path().join("r.html"))),
            ],
            &stores,
        )
        .unwrap();
    }

    #[test]
    fn unwritable_places_are_refused_before_any_work() {
        let store = Path::new("results.db");
        let err = check_writable(Some(Path::new("/proc/report.md")), store).unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot create a file in `/proc`"),
            "{err:#}"
        );
        let err = check_writable(Some(Path::new("/no/such/dir/r.md")), store).unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        let err = check_writable(Some(Path::new("/tmp")), store).unwrap_err();
        assert!(err.to_string().contains("it is a directory"), "{err}");
    }

    #[test]
    fn a_link_or_a_pipe_is_written_into_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.md");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, "through the link").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "through the link"
        );
        // A named pipe: its reader gets the report, and the pipe stays a pipe.
        let fifo = dir.path().join("fifo.md");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        // Its reader is open first (without waiting for a writer), so the write cannot
        // block, and what it reads cannot have gone anywhere else.
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        write_atomically(&fifo, "through the pipe").unwrap();
        let mut got = String::new();
        let _ = std::io::Read::read_to_string(&mut reader, &mut got);
        assert_eq!(got, "through the pipe");
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with('.') && n.ends_with(".tmp")),
            "a temporary file was left: {names:?}"
        );
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn a_report_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        write_atomically(&path, "old").unwrap();
        write_atomically(&path, "new report").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new report");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
