//! What the machine is, and what about it makes numbers less trustworthy.

use std::fs;
use std::process::Command;

use anyhow::{Result, bail};

use crate::build_info::BuildInfo;
use crate::counter::{CounterKind, tsc_frequency_hz};

/// CPU flags worth knowing for cryptography, in the names /proc/cpuinfo uses.
pub(crate) const CRYPTO_FLAGS: &[&str] = &[
    "aes",
    "vaes",
    "pclmulqdq",
    "vpclmulqdq",
    "sha_ni",
    "sse2",
    "ssse3",
    "sse4_1",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "adx",
    "avx512f",
    "avx512vl",
    "avx512bw",
    "avx512dq",
    "avx512ifma",
    "avx512vbmi",
    "gfni",
    "rdrand",
    "rdseed",
    // aarch64 names
    "asimd",
    "pmull",
    "sha1",
    "sha2",
    "sha3",
    "sha512",
];

/// Whether one counter works on this machine, as `info` and run records show it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CounterStatus {
    /// The counter probed.
    pub counter: CounterKind,
    /// Its unit, as [`CounterKind::unit`] prints it.
    pub unit: String,
    /// Whether it could be opened and read here.
    pub available: bool,
    /// Why not, when it is not.
    pub reason: Option<String>,
}

/// The machine a run was measured on: CPU, kernel, compiler, clock settings and
/// load, with warnings about whatever makes its figures less trustworthy.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Machine {
    /// The CPU's `model name` from /proc/cpuinfo ("unknown CPU" where absent).
    pub cpu_model: String,
    /// The CPU's `vendor_id` from /proc/cpuinfo ("unknown" where absent).
    pub vendor: String,
    /// `family/model/stepping` as the kernel reports them.
    pub cpu_signature: String,
    /// The target architecture this binary was built for (`x86_64`, `aarch64`).
    pub arch: String,
    /// The CPU flags of interest to cryptography that /proc/cpuinfo lists (the
    /// host's, as the kernel sees them), in a fixed order.
    pub crypto_flags: Vec<String>,
    /// Number of CPUs this process may run on (its affinity mask).
    pub online_cpus: usize,
    /// The kernel, as `uname -srm` prints it ("unknown" if that fails).
    pub kernel: String,
    /// The `rustc --version` of the compiler that built cryptobench.
    pub rustc: String,
    /// The first line of `cc --version`; `None` where there is no working `cc`.
    pub cc: Option<String>,
    /// Whether the CPU flags say the machine is a virtual machine.
    pub hypervisor: bool,
    /// CPU 0's frequency scaling governor; `None` where cpufreq is not exposed.
    pub governor: Option<String>,
    /// "on" or "off" as intel_pstate or cpufreq report turbo boost; `None` where
    /// neither does.
    pub turbo: Option<String>,
    /// The 1-minute load average when detected; `None` if it cannot be read.
    pub load_1min: Option<f64>,
    /// The TSC's measured rate in ticks per second; `None` where there is no usable
    /// TSC.
    pub tsc_hz: Option<f64>,
    /// The core's clock when detected (dependent-add chain against the TSC): a snapshot,
    /// since a shared host moves it; converts estimated core cycles to seconds.
    #[serde(default)]
    pub core_clock_hz: Option<f64>,
    /// `GLIBC_TUNABLES`, which changes which memcpy the C library picks (and with it the
    /// speed of code that copies between AVX2 work: docs/validation.md).
    #[serde(default)]
    pub glibc_tunables: Option<String>,
    /// `OPENSSL_ia32cap`, which masks the instructions OpenSSL may use.
    #[serde(default)]
    pub openssl_ia32cap: Option<String>,
    /// The largest cache the kernel lists for CPU 0 (a guest sees what the hypervisor
    /// says): below it, a bulk rate is the cache's, not memory's.
    #[serde(default)]
    pub last_level_cache_bytes: Option<u64>,
    /// The crypto features CPUID showed to a worker on Valgrind's simulated CPU, where
    /// the run counted instructions there: the dispatch those counts measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated_crypto_flags: Option<Vec<String>>,
    /// How cryptobench was compiled (profile, Rust flags) and the libraries the run's
    /// implementations come from; `None` in runs recorded before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildInfo>,
    /// Which counters work here, in order of preference.
    pub counters: Vec<CounterStatus>,
    /// What about the machine makes the figures less trustworthy, one sentence each.
    pub warnings: Vec<String>,
}

fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo
        .lines()
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim())
}

fn first_line_of(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(|l| l.trim().to_string())
}

/// glibc's choice of memcpy where the CPU exposes AVX-512, which the figures of AVX2 code
/// carry (docs/validation.md).
const AVX512_MEMCPY: &str = "AVX-512 is exposed: glibc may pick a 512-bit memcpy, which slows AVX2 code that copies between its blocks (ChaCha20 RNGs lost 15 % on a Sapphire Rapids host; docs/validation.md); GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL measures as a program whose copies are inlined would";

impl Machine {
    /// The run counts on Valgrind's simulated CPU, which shows a worker `flags`: the
    /// dispatch its counts measured, and no warning of a feature it does not expose.
    pub fn simulated_with(&mut self, flags: Vec<String>) {
        if !flags.iter().any(|f| f == "avx512vl") {
            self.warnings.retain(|w| w != AVX512_MEMCPY);
        }
        self.simulated_crypto_flags = Some(flags);
    }

    /// Read the machine. Takes ~50 ms, most of it measuring the TSC's rate.
    pub fn detect() -> Machine {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flags: Vec<&str> = cpuinfo_field(&cpuinfo, "flags")
            .or_else(|| cpuinfo_field(&cpuinfo, "Features"))
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let crypto_flags: Vec<String> = CRYPTO_FLAGS
            .iter()
            .filter(|f| flags.contains(f))
            .map(|f| f.to_string())
            .collect();
        let hypervisor = flags.contains(&"hypervisor");
        let governor = fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
            .ok()
            .map(|s| s.trim().to_string());
        let turbo = fs::read_to_string("/sys/devices/system/cpu/intel_pstate/no_turbo")
            .ok()
            .map(|s| if s.trim() == "1" { "off" } else { "on" }.to_string())
            .or_else(|| {
                fs::read_to_string("/sys/devices/system/cpu/cpufreq/boost")
                    .ok()
                    .map(|s| if s.trim() == "1" { "on" } else { "off" }.to_string())
            });
        let load_1min = fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()));
        let online_cpus = online_cpus().len();
        let counters: Vec<CounterStatus> = CounterKind::PREFERENCE
            .into_iter()
            .map(|k| {
                let probe = k.probe();
                CounterStatus {
                    counter: k,
                    unit: k.unit().to_string(),
                    available: probe.is_ok(),
                    reason: probe.err(),
                }
            })
            .collect();
        let tsc_hz = tsc_frequency_hz(std::time::Duration::from_millis(40));
        let core_clock_hz = crate::counter::TscCore::open()
            .ok()
            .zip(tsc_hz)
            .map(|(mut c, hz)| c.ratio() * hz);

        let glibc_tunables = std::env::var("GLIBC_TUNABLES").ok();
        let openssl_ia32cap = std::env::var("OPENSSL_ia32cap").ok();
        let mut warnings = Vec::new();
        if let Some(cap) = &openssl_ia32cap {
            warnings.push(format!(
                "OPENSSL_ia32cap={cap} is set: OpenSSL runs the code paths it leaves enabled, not the fastest this CPU has"
            ));
        }
        if let Some(t) = &glibc_tunables {
            warnings.push(format!(
                "GLIBC_TUNABLES={t} is set: the C library's choice of memcpy and string functions differs from the default, and so may the figures"
            ));
        } else if crypto_flags.iter().any(|f| f == "avx512vl") {
            warnings.push(AVX512_MEMCPY.to_string());
        }
        if hypervisor {
            warnings.push("running under a hypervisor: other guests share the host, and hardware cycle counters are usually hidden (cycles are then the TSC's reference cycles, or core cycles estimated from them)".to_string());
        }
        match &governor {
            None => warnings.push("frequency scaling governor cannot be read (no cpufreq in /sys): clock behaviour unknown".to_string()),
            Some(g) if g != "performance" => warnings.push(format!("frequency scaling governor is `{g}`, not `performance`: core clock may vary")),
            _ => {}
        }
        if turbo.as_deref() == Some("on") {
            warnings
                .push("turbo boost is on: core clock depends on temperature and load".to_string());
        }
        if let Some(load) = load_1min
            && load > 0.5 * online_cpus.max(1) as f64
        {
            warnings.push(format!(
                "high load: 1-minute load average {load:.2} on {online_cpus} CPUs"
            ));
        }

        Machine {
            cpu_model: cpuinfo_field(&cpuinfo, "model name")
                .unwrap_or("unknown CPU")
                .to_string(),
            vendor: cpuinfo_field(&cpuinfo, "vendor_id")
                .unwrap_or("unknown")
                .to_string(),
            cpu_signature: format!(
                "{}/{}/{}",
                cpuinfo_field(&cpuinfo, "cpu family").unwrap_or("?"),
                cpuinfo_field(&cpuinfo, "model").unwrap_or("?"),
                cpuinfo_field(&cpuinfo, "stepping").unwrap_or("?")
            ),
            arch: std::env::consts::ARCH.to_string(),
            crypto_flags,
            online_cpus,
            kernel: first_line_of("uname", &["-srm"]).unwrap_or_else(|| "unknown".into()),
            rustc: env!("CRYPTOBENCH_RUSTC").to_string(),
            cc: first_line_of("cc", &["--version"]),
            hypervisor,
            governor,
            turbo,
            load_1min,
            tsc_hz,
            core_clock_hz,
            glibc_tunables,
            openssl_ia32cap,
            last_level_cache_bytes: last_level_cache_bytes(),
            simulated_crypto_flags: None,
            build: Some(BuildInfo::of_this_binary()),
            counters,
            warnings,
        }
    }

    /// The variables of the environment a run was measured in that change what the
    /// measured code does, as `(name, value)`; unset ones as `None`.
    pub fn measuring_environment(&self) -> [(&'static str, Option<&str>); 2] {
        [
            ("GLIBC_TUNABLES", self.glibc_tunables.as_deref()),
            ("OPENSSL_ia32cap", self.openssl_ia32cap.as_deref()),
        ]
    }

    /// The model as comparisons key on it: model name plus signature.
    pub fn cpu_identity(&self) -> String {
        format!("{} ({})", self.cpu_model, self.cpu_signature)
    }

    /// A fixed machine for tests of what reads run records (detecting runs programs).
    #[cfg(test)]
    pub fn example(core_clock_hz: Option<f64>) -> Machine {
        Machine {
            cpu_model: "Example CPU".into(),
            vendor: "GenuineIntel".into(),
            cpu_signature: "6/167/1".into(),
            arch: "x86_64".into(),
            crypto_flags: vec!["aes".into(), "avx2".into()],
            online_cpus: 2,
            kernel: "Linux".into(),
            rustc: "rustc".into(),
            cc: None,
            hypervisor: true,
            governor: None,
            turbo: None,
            load_1min: None,
            tsc_hz: Some(2.0e9),
            core_clock_hz,
            glibc_tunables: None,
            openssl_ia32cap: None,
            last_level_cache_bytes: None,
            simulated_crypto_flags: None,
            build: None,
            counters: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// The crypto features this process's CPUID shows (on the simulator, the simulated
/// CPU's, unlike /proc/cpuinfo, which is the host's): what runtime dispatch sees.
pub fn cpuid_crypto_flags() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        [
            ("aes", has!("aes")),
            ("vaes", has!("vaes")),
            ("pclmulqdq", has!("pclmulqdq")),
            ("vpclmulqdq", has!("vpclmulqdq")),
            ("sha_ni", has!("sha")),
            ("sse2", has!("sse2")),
            ("ssse3", has!("ssse3")),
            ("sse4_1", has!("sse4.1")),
            ("avx", has!("avx")),
            ("avx2", has!("avx2")),
            ("bmi1", has!("bmi1")),
            ("bmi2", has!("bmi2")),
            ("adx", has!("adx")),
            ("avx512f", has!("avx512f")),
            ("avx512vl", has!("avx512vl")),
            ("gfni", has!("gfni")),
        ]
        .into_iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| name.to_string())
        .collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// CPUs this process may run on (its affinity mask), in increasing order.
pub fn online_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Check that `cpu` exists and this process may use it.
pub fn check_cpu(cpu: usize) -> Result<()> {
    let cpus = online_cpus();
    if !cpus.contains(&cpu) {
        bail!(
            "CPU {cpu} does not exist or is not available to this process; available: {}",
            cpus.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    Ok(())
}

/// The default measuring CPU: the last one we may use (CPU 0 takes most interrupts).
pub fn default_cpu() -> usize {
    online_cpus().last().copied().unwrap_or(0)
}

/// A measuring CPU claimed for as long as this is held (an advisory `flock` on a file in
/// the temporary directory), so that a second cryptobench run measuring on the same CPU at
/// the same time is told: both share the core, and both runs' figures suffer.
pub struct CpuClaim {
    _file: std::fs::File,
}

/// Claim `cpu`; the warning to give where another run holds it already. A claim that
/// cannot be made (no temporary directory) is no reason not to measure: no claim, no
/// warning.
pub fn claim_cpu(cpu: usize) -> (Option<CpuClaim>, Option<String>) {
    use std::os::fd::AsRawFd;
    let path = std::env::temp_dir().join(format!("cryptobench-cpu{cpu}.lock"));
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
    else {
        return (None, None);
    };
    // SAFETY: flock on a descriptor this function owns; LOCK_NB never blocks.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return (Some(CpuClaim { _file: file }), None);
    }
    let held = std::io::Error::last_os_error().raw_os_error() == Some(libc::EWOULDBLOCK);
    let warning = held.then(|| {
        format!(
            "another cryptobench run is measuring on CPU {cpu} now (it holds {}): the two share the core and both runs' figures suffer; wait for it, or give this one another --cpu",
            path.display()
        )
    });
    (None, warning)
}

/// Pin the calling thread to `cpu`.
pub fn pin_to_cpu(cpu: usize) -> Result<()> {
    // SAFETY: cpu_set_t is plain data, CPU_SET stays within it for cpu < CPU_SETSIZE.
    unsafe {
        if cpu >= libc::CPU_SETSIZE as usize {
            bail!("CPU {cpu} is out of range");
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            bail!(
                "cannot pin to CPU {cpu}: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    Ok(())
}

/// The size of the highest-level cache in /sys for CPU 0 (`491520K`, `32M`).
fn last_level_cache_bytes() -> Option<u64> {
    let caches = fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    caches
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let level: u32 = fs::read_to_string(dir.join("level"))
                .ok()?
                .trim()
                .parse()
                .ok()?;
            Some((
                level,
                cache_size(&fs::read_to_string(dir.join("size")).ok()?)?,
            ))
        })
        .max()
        .map(|(_, bytes)| bytes)
}

/// A cache size as the kernel writes it.
fn cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, scale) = match text.strip_suffix('K') {
        Some(d) => (d, 1 << 10),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1 << 20),
            None => (text, 1),
        },
    };
    digits.parse::<u64>().ok().map(|n| n * scale)
}

/// `MemAvailable` from /proc/meminfo, in bytes: what can be allocated without swapping.
pub fn available_memory() -> Option<u64> {
    parse_mem_available(&fs::read_to_string("/proc/meminfo").ok()?)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Valgrind's CPU shows no AVX-512: glibc's 512-bit memcpy is not what it counted.
    #[test]
    fn a_simulated_cpu_keeps_only_the_warnings_that_apply_to_it() {
        let mut machine = Machine::example(None);
        machine.warnings = vec![AVX512_MEMCPY.into(), "high load".into()];
        let mut with_avx512 = machine.clone();
        with_avx512.simulated_with(vec!["avx2".into(), "avx512vl".into()]);
        assert_eq!(with_avx512.warnings, machine.warnings);
        machine.simulated_with(vec!["avx2".into()]);
        assert_eq!(machine.warnings, vec!["high load".to_string()]);
        assert_eq!(machine.simulated_crypto_flags, Some(vec!["avx2".into()]));
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo =
            "MemTotal:       24683656 kB\nMemFree:         1000 kB\nMemAvailable:   24236476 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(24_236_476 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert!(available_memory().is_some_and(|m| m > 0));
    }

    #[test]
    fn cache_sizes_as_the_kernel_writes_them() {
        assert_eq!(cache_size("491520K\n"), Some(480 << 20));
        assert_eq!(cache_size("32M"), Some(32 << 20));
        assert_eq!(cache_size("512"), Some(512));
        assert_eq!(cache_size("big"), None);
    }

    #[test]
    fn cpuinfo_fields_are_found_by_exact_key() {
        let info = "model\t\t: 167\nmodel name\t: Some CPU\nflags\t\t: fpu aes avx2\n";
        assert_eq!(cpuinfo_field(info, "model"), Some("167"));
        assert_eq!(cpuinfo_field(info, "model name"), Some("Some CPU"));
        assert_eq!(cpuinfo_field(info, "stepping"), None);
    }

    #[test]
    fn cpu_checks() {
        assert!(check_cpu(default_cpu()).is_ok());
        let err = check_cpu(100_000).unwrap_err().to_string();
        assert!(err.contains("CPU 100000 does not exist"), "{err}");
        pin_to_cpu(default_cpu()).unwrap();
    }
}
