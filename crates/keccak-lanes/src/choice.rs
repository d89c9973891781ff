//! Which backend runs N states at once when the caller names only N.
//!
//! Two formulations of one lane count are not equally fast on every CPU: on
//! AMD Zen 4 the `-xor` theta takes 12-16 % fewer cycles per permutation than
//! the three-input one, on an Intel Emerald Rapids Xeon 5 % more (docs/keccak.md). So the default
//! comes from a table of CPU models measured beforehand, then from a fixed order
//! of preference, never from timing at run time: every process of a benchmark
//! case, and every run of a program on one host, takes the same path. The
//! [`OVERRIDE_VAR`] environment variable overrides the table, as
//! `OPENSSL_ia32cap` does OpenSSL's choice, and child processes inherit it.

use core::fmt;

use crate::Backend;

/// The environment variable that overrides the default backends: a
/// comma-separated list of backend names, at most one per lane count, such as
/// `x2-sse2,x4-avx2`. Lane counts it does not name keep their default.
pub const OVERRIDE_VAR: &str = "KECCAK_LANES_BACKEND";

/// A CPU as CPUID names it: vendor string, display family and display model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// `AuthenticAMD`, `GenuineIntel`, ...
    pub vendor: [u8; 12],
    /// The display family (base family plus extended family where the base is 15).
    pub family: u32,
    /// The display model (extended model in the high nibble where the family uses it).
    pub model: u32,
}

impl Cpu {
    /// The CPU running this program, or `None` where CPUID is unavailable.
    pub fn this() -> Option<Cpu> {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::__cpuid;
            // Leaves 0 and 1 exist on every x86-64 CPU.
            let (leaf0, leaf1) = (__cpuid(0), __cpuid(1));
            let mut vendor = [0u8; 12];
            vendor[..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
            vendor[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
            vendor[8..].copy_from_slice(&leaf0.ecx.to_le_bytes());
            let base_family = (leaf1.eax >> 8) & 0xf;
            let base_model = (leaf1.eax >> 4) & 0xf;
            let family = if base_family == 0xf {
                base_family + ((leaf1.eax >> 20) & 0xff)
            } else {
                base_family
            };
            let model = if base_family == 0x6 || base_family == 0xf {
                base_model | ((leaf1.eax >> 12) & 0xf0)
            } else {
                base_model
            };
            Some(Cpu {
                vendor,
                family,
                model,
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// The vendor string as text.
    pub fn vendor(&self) -> &str {
        core::str::from_utf8(&self.vendor).unwrap_or("?")
    }
}

impl fmt::Display for Cpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}", self.vendor(), self.family, self.model)
    }
}

/// A CPU model on which every backend of some lane counts was measured side by
/// side, and the fastest of each.
#[derive(Debug, PartialEq, Eq)]
pub struct Measured {
    /// The CPUID vendor string.
    pub vendor: &'static str,
    /// The display family.
    pub family: u32,
    /// The display model.
    pub model: u32,
    /// What the CPU is, for people.
    pub cpu: &'static str,
    /// The fastest backend of each lane count measured there.
    pub fastest: &'static [Backend],
    /// Where the measurements are recorded.
    pub evidence: &'static str,
}

/// The measured CPU models. A row is added only from a run that measured every
/// backend of its lane counts in one run on that model (`cryptobench run
/// keccak-xn`); a lane count it does not list falls back to [`PREFERENCE`].
pub const MEASURED: &[Measured] = &[
    Measured {
        vendor: "AuthenticAMD",
        family: 25,
        model: 17,
        cpu: "AMD Zen 4 (EPYC 9004)",
        fastest: &[
            Backend::ScalarAsm,
            Backend::Avx512vlX2Xor,
            Backend::Avx512vlX4Xor,
            Backend::Avx512x8Xor,
        ],
        evidence: "docs/results/keccak-xn-xkcp-native.md (x2 836 against 994, x4 888 against 1044 cycles per permutation); docs/results/keccak-xkcp-permutation.md (x8 1782-1786 against 1994-2003; x1-asm 886-887 against 927 cycles a call, 877-881 against 927 per permutation)",
    },
    Measured {
        vendor: "GenuineIntel",
        family: 6,
        model: 207,
        cpu: "Intel Xeon, Emerald Rapids",
        fastest: &[Backend::Avx512vlX2, Backend::Avx512vlX4],
        evidence: "docs/results/keccak-xn-xkcp-native.md (x2 821-824 against 868-871, x4 882-885 against 927-930 cycles per permutation)",
    },
];

/// For a CPU without a row, the backends of each lane count in order of
/// preference: the first this CPU supports is the default.
pub const PREFERENCE: &[Backend] = &[
    Backend::Scalar,
    Backend::ScalarAsm,
    Backend::Avx512vlX2,
    Backend::Sse2x2,
    Backend::Avx512vlX4,
    Backend::Avx2x4,
    Backend::Avx2x4Asm,
    Backend::Avx512x8,
    Backend::Avx512x8Xor,
];

/// The default backend of one lane count, and why it is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The backend that runs.
    pub backend: Backend,
    /// Why that one.
    pub reason: Reason,
}

/// Why a backend is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The fastest measured on this CPU model.
    Measured(&'static Measured),
    /// Named by [`OVERRIDE_VAR`].
    Override,
    /// This CPU has no row for the lane count: the first supported of [`PREFERENCE`].
    Preference,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Measured(row) => write!(
                f,
                "the fastest measured on {}, {} {}/{}",
                row.cpu, row.vendor, row.family, row.model
            ),
            Reason::Override => write!(f, "named by {OVERRIDE_VAR}"),
            Reason::Preference => f.write_str(
                "no measurement of this CPU model: the first it supports in order of preference",
            ),
        }
    }
}

/// Why no default could be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChoiceError {
    /// [`OVERRIDE_VAR`] names something that is not a backend.
    UnknownBackend(String),
    /// [`OVERRIDE_VAR`] names a backend this CPU lacks.
    Unsupported(Backend),
    /// [`OVERRIDE_VAR`] names two backends of one lane count.
    Twice(Backend, Backend),
    /// No backend of this lane count exists, or none runs on this CPU.
    NoBackend(usize),
}

impl fmt::Display for ChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChoiceError::UnknownBackend(name) => {
                let known: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
                write!(
                    f,
                    "{OVERRIDE_VAR}: {name:?} is not a backend; the backends are {}",
                    known.join(", ")
                )
            }
            ChoiceError::Unsupported(backend) => write!(
                f,
                "{OVERRIDE_VAR}: {backend} is not supported on this CPU (needs {})",
                backend.needs()
            ),
            ChoiceError::Twice(a, b) => write!(
                f,
                "{OVERRIDE_VAR}: {a} and {b} both run {} lanes; name one backend per lane count",
                a.lanes()
            ),
            ChoiceError::NoBackend(lanes) => {
                write!(f, "no backend for {lanes} lanes runs on this CPU")
            }
        }
    }
}

impl std::error::Error for ChoiceError {}

/// The backends [`OVERRIDE_VAR`]'s `value` names, checked against `supported`.
pub fn parse_override(
    value: &str,
    supported: impl Fn(Backend) -> bool,
) -> Result<Vec<Backend>, ChoiceError> {
    let mut chosen: Vec<Backend> = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let backend = Backend::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| ChoiceError::UnknownBackend(name.to_string()))?;
        if !supported(backend) {
            return Err(ChoiceError::Unsupported(backend));
        }
        if let Some(&earlier) = chosen.iter().find(|b| b.lanes() == backend.lanes()) {
            return Err(ChoiceError::Twice(earlier, backend));
        }
        chosen.push(backend);
    }
    Ok(chosen)
}

/// The default for `lanes` on `cpu` given the override's value (if set) and
/// which backends run here: the override, else the CPU's measured row, else
/// the first supported in [`PREFERENCE`]. A measured backend the CPU lacks
/// (AVX-512 hidden by a hypervisor) falls through to the preference. The whole
/// override is checked whatever `lanes` is, so a mistake in it is found on the
/// first call.
pub fn choose(
    lanes: usize,
    cpu: Option<Cpu>,
    override_value: Option<&str>,
    supported: impl Fn(Backend) -> bool + Copy,
) -> Result<Choice, ChoiceError> {
    let overridden = match override_value {
        Some(value) => parse_override(value, supported)?,
        None => Vec::new(),
    };
    if let Some(&backend) = overridden.iter().find(|b| b.lanes() == lanes) {
        return Ok(Choice {
            backend,
            reason: Reason::Override,
        });
    }
    let row = cpu.and_then(|cpu| {
        MEASURED.iter().find(|row| {
            row.vendor.as_bytes() == cpu.vendor
                && row.family == cpu.family
                && row.model == cpu.model
        })
    });
    if let Some(row) = row
        && let Some(&backend) = row
            .fastest
            .iter()
            .find(|b| b.lanes() == lanes && supported(**b))
    {
        return Ok(Choice {
            backend,
            reason: Reason::Measured(row),
        });
    }
    PREFERENCE
        .iter()
        .find(|b| b.lanes() == lanes && supported(**b))
        .map(|&backend| Choice {
            backend,
            reason: Reason::Preference,
        })
        .ok_or(ChoiceError::NoBackend(lanes))
}

impl Backend {
    /// The default backend for `lanes` states at once on this CPU, and why
    /// (see the module's documentation): [`OVERRIDE_VAR`], else the table of
    /// measured CPU models, else the order of preference.
    pub fn default_for(lanes: usize) -> Result<Choice, ChoiceError> {
        choose(
            lanes,
            Cpu::this(),
            override_value().as_deref(),
            Backend::is_supported,
        )
    }

    /// Whether [`OVERRIDE_VAR`], if set, names only backends this CPU has, one per
    /// lane count: for a program to refuse a mistake in it before anything runs.
    pub fn check_override() -> Result<(), ChoiceError> {
        match override_value() {
            Some(value) => parse_override(&value, Backend::is_supported).map(drop),
            None => Ok(()),
        }
    }
}

fn override_value() -> Option<String> {
    std::env::var_os(OVERRIDE_VAR).map(|v| v.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(vendor: &str, family: u32, model: u32) -> Option<Cpu> {
        Some(Cpu {
            vendor: vendor.as_bytes().try_into().unwrap(),
            family,
            model,
        })
    }

    const ZEN4: (&str, u32, u32) = ("AuthenticAMD", 25, 17);
    const EMERALD_RAPIDS: (&str, u32, u32) = ("GenuineIntel", 6, 207);

    fn everything(_: Backend) -> bool {
        true
    }

    fn no_avx512(b: Backend) -> bool {
        !matches!(
            b,
            Backend::Avx512vlX2
                | Backend::Avx512vlX2Xor
                | Backend::Avx512vlX4
                | Backend::Avx512vlX4Xor
                | Backend::Avx512x8
                | Backend::Avx512x8Xor
        )
    }

    fn pick(
        lanes: usize,
        on: Option<Cpu>,
        over: Option<&str>,
        supported: fn(Backend) -> bool,
    ) -> Backend {
        choose(lanes, on, over, supported).unwrap().backend
    }

    #[test]
    fn each_measured_model_gets_its_own_fastest() {
        let (v, f, m) = ZEN4;
        assert_eq!(pick(1, cpu(v, f, m), None, everything), Backend::ScalarAsm);
        assert_eq!(
            pick(2, cpu(v, f, m), None, everything),
            Backend::Avx512vlX2Xor
        );
        assert_eq!(
            pick(4, cpu(v, f, m), None, everything),
            Backend::Avx512vlX4Xor
        );
        assert_eq!(
            pick(8, cpu(v, f, m), None, everything),
            Backend::Avx512x8Xor
        );
        let (v, f, m) = EMERALD_RAPIDS;
        assert_eq!(pick(2, cpu(v, f, m), None, everything), Backend::Avx512vlX2);
        assert_eq!(pick(4, cpu(v, f, m), None, everything), Backend::Avx512vlX4);
        // No x8 row there: the first preference, the three-way theta.
        assert_eq!(pick(8, cpu(v, f, m), None, everything), Backend::Avx512x8);
        // Nor an x1 row: the portable Rust one.
        assert_eq!(pick(1, cpu(v, f, m), None, everything), Backend::Scalar);
        let reason = choose(2, cpu(v, f, m), None, everything).unwrap().reason;
        assert!(
            matches!(reason, Reason::Measured(row) if row.model == 207),
            "{reason:?}"
        );
    }

    #[test]
    fn the_vendor_matters_not_only_family_and_model() {
        // An Intel part numbered like Zen 4 must not get Zen 4's row.
        let choice = choose(2, cpu("GenuineIntel", 25, 17), None, everything).unwrap();
        assert_eq!(choice.backend, Backend::Avx512vlX2);
        assert_eq!(choice.reason, Reason::Preference);
    }

    #[test]
    fn an_unmeasured_cpu_takes_the_first_supported_preference() {
        let other = cpu("AuthenticAMD", 26, 2);
        assert_eq!(pick(1, other, None, everything), Backend::Scalar);
        assert_eq!(pick(2, other, None, everything), Backend::Avx512vlX2);
        assert_eq!(pick(4, other, None, everything), Backend::Avx512vlX4);
        assert_eq!(pick(8, other, None, everything), Backend::Avx512x8);
        assert_eq!(pick(2, other, None, no_avx512), Backend::Sse2x2);
        assert_eq!(pick(4, other, None, no_avx512), Backend::Avx2x4);
        assert_eq!(pick(2, None, None, no_avx512), Backend::Sse2x2);
    }

    #[test]
    fn a_measured_backend_the_cpu_lacks_falls_through() {
        // Zen 4 under a hypervisor that hides AVX-512.
        let (v, f, m) = ZEN4;
        let choice = choose(4, cpu(v, f, m), None, no_avx512).unwrap();
        assert_eq!(choice.backend, Backend::Avx2x4);
        assert_eq!(choice.reason, Reason::Preference);
        assert_eq!(
            choose(8, cpu(v, f, m), None, no_avx512),
            Err(ChoiceError::NoBackend(8))
        );
        assert_eq!(
            choose(3, cpu(v, f, m), None, everything),
            Err(ChoiceError::NoBackend(3))
        );
    }

    #[test]
    fn the_override_wins_per_lane_count() {
        let (v, f, m) = ZEN4;
        let over = Some(" x2-sse2 ,x8-avx512");
        let choice = choose(2, cpu(v, f, m), over, everything).unwrap();
        assert_eq!(
            (choice.backend, choice.reason),
            (Backend::Sse2x2, Reason::Override)
        );
        // Lane counts it leaves out keep the table's choice.
        assert_eq!(
            pick(4, cpu(v, f, m), over, everything),
            Backend::Avx512vlX4Xor
        );
        assert_eq!(
            pick(4, cpu(v, f, m), Some(""), everything),
            Backend::Avx512vlX4Xor
        );
    }

    #[test]
    fn a_bad_override_is_refused_whichever_lane_count_is_asked() {
        let (v, f, m) = ZEN4;
        let err = choose(4, cpu(v, f, m), Some("x2-avx3"), everything).unwrap_err();
        assert_eq!(err, ChoiceError::UnknownBackend("x2-avx3".into()));
        let text = err.to_string();
        assert!(
            text.starts_with("KECCAK_LANES_BACKEND: \"x2-avx3\" is not a backend"),
            "{text}"
        );
        assert!(text.contains("x4-avx512vl-xor"), "{text}");
        assert_eq!(
            choose(4, cpu(v, f, m), Some("x2-avx512vl"), no_avx512),
            Err(ChoiceError::Unsupported(Backend::Avx512vlX2))
        );
        assert_eq!(
            choose(2, cpu(v, f, m), Some("x4-avx2,x4-avx512vl"), everything),
            Err(ChoiceError::Twice(Backend::Avx2x4, Backend::Avx512vlX4))
        );
    }

    #[test]
    fn every_row_and_preference_names_real_lane_counts_once() {
        for row in MEASURED {
            for (i, b) in row.fastest.iter().enumerate() {
                assert!(
                    row.fastest[..i].iter().all(|a| a.lanes() != b.lanes()),
                    "{}: two backends for {} lanes",
                    row.cpu,
                    b.lanes()
                );
            }
        }
        for lanes in [1, 2, 4, 8] {
            assert!(PREFERENCE.iter().any(|b| b.lanes() == lanes), "{lanes}");
        }
    }

    #[test]
    fn this_cpu_reads_as_a_known_vendor() {
        if let Some(here) = Cpu::this() {
            assert!(
                ["AuthenticAMD", "GenuineIntel", "HygonGenuine"].contains(&here.vendor()),
                "{here}"
            );
            assert!(here.family >= 6, "{here}");
            let choice = Backend::default_for(2).unwrap();
            assert!(choice.backend.is_supported());
        }
    }
}
