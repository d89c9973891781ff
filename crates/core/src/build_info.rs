//! What built the measured code: Cargo's profile, the Rust flags, and the versions of the
//! libraries the implementations come from. Recorded with each run's machine
//! ([`crate::machine::Machine::build`]), so that a published table names what produced it.

use std::fmt;

/// How this binary was compiled, and the libraries the run's implementations come from.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BuildInfo {
    /// Cargo's profile: `release` or `debug` (a custom profile reads as the one it
    /// inherits from: `bench` as `release`).
    pub profile: String,
    /// The optimisation level (`0` to `3`, `s`, `z`).
    pub opt_level: String,
    /// The Rust flags every crate was compiled with (`RUSTFLAGS`, `build.rustflags`), in
    /// order.
    pub rustflags: Vec<String>,
    /// `-C target-cpu` among them; `None`: the target's baseline CPU, which leaves
    /// instruction sets to runtime dispatch.
    pub target_cpu: Option<String>,
    /// The libraries the run's measured implementations come from, as the measuring code
    /// names them: the catalog's crates of those measured, and the OpenSSL it links where
    /// an `openssl/...` one is among them; none for our own code, C builds or a `cargo
    /// bench`'s own implementations. Runs recorded before listed the whole catalog's.
    #[serde(default)]
    pub libraries: Vec<Library>,
}

/// One library behind the measured implementations.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Library {
    /// Its name: a crate's, or a C library's (`OpenSSL`).
    pub name: String,
    /// Its version: a crate's as Cargo.lock pins it, a C library's as it says at run time.
    pub version: String,
    /// Where it came from, where that is not a registry: `local copy` (a patched crate in
    /// vendor/), `git`, or `linked C library`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.version)?;
        if let Some(origin) = &self.origin {
            write!(f, " ({origin})")?;
        }
        Ok(())
    }
}

impl BuildInfo {
    /// This binary's, as its build script recorded it; no libraries (the catalog's to say).
    pub fn of_this_binary() -> BuildInfo {
        let rustflags = decode_rustflags(env!("CRYPTOBENCH_ENCODED_RUSTFLAGS"));
        BuildInfo {
            profile: env!("CRYPTOBENCH_PROFILE").into(),
            opt_level: env!("CRYPTOBENCH_OPT_LEVEL").into(),
            target_cpu: target_cpu(&rustflags),
            rustflags,
            libraries: Vec::new(),
        }
    }

    /// The libraries, comma-separated as reports list them; `None` where none is recorded.
    pub fn libraries_listed(&self) -> Option<String> {
        let listed: Vec<String> = self.libraries.iter().map(ToString::to_string).collect();
        (!listed.is_empty()).then(|| listed.join(", "))
    }

    /// The build in one phrase: `release (opt-level 3), target-cpu native, RUSTFLAGS
    /// "-C target-cpu=native"`.
    pub fn describe(&self) -> String {
        let flags = if self.rustflags.is_empty() {
            "no RUSTFLAGS".to_string()
        } else {
            format!("RUSTFLAGS \"{}\"", self.rustflags.join(" "))
        };
        format!(
            "{} (opt-level {}), target-cpu {}, {flags}",
            self.profile,
            self.opt_level,
            self.target_cpu.as_deref().unwrap_or("default")
        )
    }
}

/// `CARGO_ENCODED_RUSTFLAGS`: the flags, separated by 0x1f (a flag may hold a space).
pub fn decode_rustflags(encoded: &str) -> Vec<String> {
    encoded
        .split('\u{1f}')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// The CPU `-C target-cpu` names among `flags` (the last, as rustc takes it), in any of
/// the forms rustc reads: `-C target-cpu=X`, `-Ctarget-cpu=X`, `--codegen target-cpu=X`,
/// `--codegen=target-cpu=X`.
pub fn target_cpu(flags: &[String]) -> Option<String> {
    let mut cpu = None;
    let mut after_codegen = false;
    for flag in flags {
        let option = if after_codegen {
            Some(flag.as_str())
        } else {
            flag.strip_prefix("-C")
                .or_else(|| flag.strip_prefix("--codegen="))
                .filter(|rest| !rest.is_empty())
        };
        after_codegen = flag == "-C" || flag == "--codegen";
        if let Some(value) = option.and_then(|o| o.strip_prefix("target-cpu=")) {
            cpu = Some(value.to_string());
        }
    }
    cpu
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(list: &[&str]) -> Vec<String> {
        list.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn rustflags_decode_as_cargo_encodes_them() {
        assert_eq!(
            decode_rustflags("-C\u{1f}target-cpu=native\u{1f}--cfg\u{1f}a b"),
            flags(&["-C", "target-cpu=native", "--cfg", "a b"])
        );
        assert!(decode_rustflags("").is_empty());
    }

    #[test]
    fn target_cpu_is_found_in_every_form_rustc_reads() {
        assert_eq!(
            target_cpu(&flags(&["-C", "target-cpu=native"])).as_deref(),
            Some("native")
        );
        assert_eq!(
            target_cpu(&flags(&["-Ctarget-cpu=znver4"])).as_deref(),
            Some("znver4")
        );
        assert_eq!(
            target_cpu(&flags(&["--codegen", "target-cpu=x86-64-v3"])).as_deref(),
            Some("x86-64-v3")
        );
        assert_eq!(
            target_cpu(&flags(&["--codegen=target-cpu=a", "-C", "target-cpu=b"])).as_deref(),
            Some("b"),
            "the last one counts"
        );
        assert_eq!(
            target_cpu(&flags(&["-C", "opt-level=3", "--cfg", "x"])),
            None
        );
        assert_eq!(target_cpu(&flags(&["-C"])), None);
    }

    #[test]
    fn a_build_is_described_in_one_phrase() {
        let mut build = BuildInfo {
            profile: "release".into(),
            opt_level: "3".into(),
            rustflags: vec![],
            target_cpu: None,
            libraries: vec![],
        };
        assert_eq!(
            build.describe(),
            "release (opt-level 3), target-cpu default, no RUSTFLAGS"
        );
        build.rustflags = flags(&["-C", "target-cpu=native"]);
        build.target_cpu = target_cpu(&build.rustflags);
        assert_eq!(
            build.describe(),
            "release (opt-level 3), target-cpu native, RUSTFLAGS \"-C target-cpu=native\""
        );
    }

    /// What the build script recorded of this very build.
    #[test]
    fn this_binarys_build_is_its_profiles() {
        let build = BuildInfo::of_this_binary();
        let expected = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        assert_eq!(build.profile, expected);
        assert!(!build.opt_level.is_empty());
    }
}
