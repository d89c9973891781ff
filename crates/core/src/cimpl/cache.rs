//! What `cryptobench cache` shows and cleans: the builds of C implementations in the
//! build cache ([`compile::cache_dir`](super::compile::cache_dir)).
//!
//! Only the files cryptobench writes there are counted or removed (a build's shared
//! object `NAME-VARIANT-TARGET-HASH.so` and its assembly `.s`, the generated
//! `cryptobench-*.c` sources and `cryptobench-*.h` headers, and what a build left
//! half-written, `*.PID.tmp`), so that a
//! `CRYPTOBENCH_CACHE` pointed at a directory shared with other files loses none of them.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};

/// A half-written file younger than this may be a build in flight: left alone.
const IN_FLIGHT: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A build's shared object: what is counted as a build.
    Build,
    /// A build's assembly (for `--estimate`), or a generated source or header.
    Beside,
    /// Written aside by a build or a generated source, not yet renamed.
    Partial,
}

/// Which of cryptobench's files `name` is, if any.
fn kind(name: &str) -> Option<Kind> {
    let hashed = |stem: &str| {
        stem.rsplit_once('-')
            .is_some_and(|(_, h)| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    if let Some(stem) = name.strip_suffix(".so") {
        return hashed(stem).then_some(Kind::Build);
    }
    if let Some(stem) = name.strip_suffix(".s") {
        return hashed(stem).then_some(Kind::Beside);
    }
    if let Some(stem) = name.strip_suffix(".tmp") {
        let pid = stem.rsplit_once('.').map(|(_, p)| p);
        return pid
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .then_some(Kind::Partial);
    }
    let generated = name.strip_suffix(".c").or_else(|| name.strip_suffix(".h"));
    (name.starts_with("cryptobench-") && generated.is_some_and(hashed)).then_some(Kind::Beside)
}

struct Entry {
    path: PathBuf,
    kind: Kind,
    bytes: u64,
    modified: SystemTime,
}

fn entries(dir: &Path) -> Result<Vec<Entry>> {
    let listing = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot read the build cache `{}`", dir.display()));
        }
    };
    let mut found = Vec::new();
    for e in listing {
        let e = e.with_context(|| format!("cannot read the build cache `{}`", dir.display()))?;
        let Some(kind) = e.file_name().to_str().and_then(kind) else {
            continue;
        };
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        found.push(Entry {
            path: e.path(),
            kind,
            bytes: meta.len(),
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        });
    }
    Ok(found)
}

/// The cache as `cryptobench cache` shows it.
#[derive(Debug)]
pub struct Summary {
    /// The cache directory ([`compile::cache_dir`](super::compile::cache_dir)).
    pub path: PathBuf,
    /// Whether that directory exists yet; counts are 0 where it does not.
    pub exists: bool,
    /// Shared objects, one per variant x target x version of the sources.
    pub builds: usize,
    /// Every file of cryptobench's there, builds and what lies beside them.
    pub bytes: u64,
}

/// The cache's directory, builds and bytes; an error where the directory cannot be
/// named or read.
pub fn summary() -> Result<Summary> {
    let path = super::compile::cache_dir()?;
    let found = entries(&path)?;
    Ok(Summary {
        exists: path.is_dir(),
        builds: found.iter().filter(|e| e.kind == Kind::Build).count(),
        bytes: found.iter().map(|e| e.bytes).sum(),
        path,
    })
}

/// What `cryptobench cache clean` removed and kept.
#[derive(Debug)]
pub struct Cleaned {
    /// The cache directory that was cleaned.
    pub path: PathBuf,
    /// Shared objects removed.
    pub removed_builds: usize,
    /// Bytes freed: the removed builds, their assembly, and any generated or
    /// half-written files removed with them.
    pub removed_bytes: u64,
    /// Shared objects left in place, used within `older_than`.
    pub kept_builds: usize,
}

/// Removes every build, or those not used for `older_than` (a build's time is that of
/// its last use: [`touch`]), with its assembly; the generated sources go with the last
/// build, and half-written files once they are an hour old.
pub fn clean(older_than: Option<Duration>) -> Result<Cleaned> {
    let path = super::compile::cache_dir()?;
    let now = SystemTime::now();
    let age = |e: &Entry| now.duration_since(e.modified).unwrap_or(Duration::ZERO);
    let found = entries(&path)?;
    let stale = |e: &Entry| older_than.is_none_or(|limit| age(e) > limit);
    let mut cleaned = Cleaned {
        path: path.clone(),
        removed_builds: 0,
        removed_bytes: 0,
        kept_builds: 0,
    };
    let remove = |e: &Entry, cleaned: &mut Cleaned| -> Result<()> {
        match std::fs::remove_file(&e.path) {
            Ok(()) => {
                cleaned.removed_bytes += e.bytes;
                Ok(())
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err).with_context(|| {
                format!("cannot remove `{}` from the build cache", e.path.display())
            }),
        }
    };
    for e in found.iter().filter(|e| e.kind == Kind::Build) {
        if stale(e) {
            remove(e, &mut cleaned)?;
            cleaned.removed_builds += 1;
            if let Some(asm) = found
                .iter()
                .find(|a| a.kind == Kind::Beside && a.path == e.path.with_extension("s"))
            {
                remove(asm, &mut cleaned)?;
            }
        } else {
            cleaned.kept_builds += 1;
        }
    }
    for e in &found {
        let orphan_asm = e.kind == Kind::Beside
            && e.path.extension().is_some_and(|x| x == "s")
            && !e.path.with_extension("so").exists()
            && stale(e);
        let generated = e.kind == Kind::Beside
            && e.path.extension().is_some_and(|x| x == "c" || x == "h")
            && cleaned.kept_builds == 0;
        let partial = e.kind == Kind::Partial && age(e) > IN_FLIGHT;
        if orphan_asm || generated || partial {
            remove(e, &mut cleaned)?;
        }
    }
    Ok(cleaned)
}

/// `bytes` for people: `0 B`, `812 B`, `3.4 MiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

/// Marks a build as used now, for `cache clean --older-than`; a cache on a file system
/// that refuses it only makes that build look older.
pub fn touch(build: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(build) {
        let _ = f.set_modified(SystemTime::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cryptobenchs_own_files_are_recognised() {
        assert_eq!(
            kind("toys-o2-native-0123456789abcdef.so"),
            Some(Kind::Build)
        );
        assert_eq!(
            kind("toys-o2-native-0123456789abcdef.s"),
            Some(Kind::Beside)
        );
        assert_eq!(
            kind("cryptobench-api-0123456789abcdef.c"),
            Some(Kind::Beside)
        );
        assert_eq!(
            kind("cryptobench-prototypes-0123456789abcdef.h"),
            Some(Kind::Beside)
        );
        assert_eq!(
            kind("toys-o2-native-0123456789abcdef.4242.tmp"),
            Some(Kind::Partial)
        );
        assert_eq!(kind("cryptobench-api.4242.tmp"), Some(Kind::Partial));
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 20), "3.0 MiB");
        for other in [
            "libfoo.so",
            "notes.txt",
            "x.s",
            "main.c",
            "api.h",
            "a.tmp",
            "x.y.tmp",
        ] {
            assert_eq!(kind(other), None, "{other}");
        }
    }
}
