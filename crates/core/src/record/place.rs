//! Where a run was measured, in the terms runs travel by: a UUID no other run has, the
//! testbed its user named (or the hardware's own name), the fingerprint of the hardware,
//! and the CI job or batch task that ran it.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

use super::run::MachineRecord;

/// A run's identity beyond this store: what lets it be pushed, merged and compared with
/// the runs of other machines.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunPlace {
    /// Unique across stores: the key a push copies by.
    pub uuid: String,
    /// The user's name for the machine (`--testbed`), or the hardware's default name.
    pub testbed: String,
    /// A hash of what the hardware is (see [`fingerprint`]).
    pub fingerprint: String,
    /// The CI job or batch task that ran it, where there was one.
    pub ci: Option<CiOrigin>,
}

impl RunPlace {
    /// A new run's place: a fresh UUID, the testbed asked for (else the hardware's
    /// default), the machine's fingerprint, the CI origin from the environment.
    pub fn new_run(machine: &MachineRecord, cpu_model: &str, testbed: Option<&str>) -> RunPlace {
        RunPlace {
            uuid: uuid::Uuid::new_v4().to_string(),
            testbed: testbed.map_or_else(|| default_testbed(machine, cpu_model), str::to_string),
            fingerprint: fingerprint(machine, cpu_model),
            ci: CiOrigin::detect(),
        }
    }
}

/// The scheduler that ran a job, and the variables that say which job.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CiOrigin {
    /// `github-actions`, `gitlab-ci`, `slurm` or `kubernetes`.
    pub system: String,
    /// The scheduler's variables that name the job (repository, job id, node), those
    /// set and non-empty.
    pub vars: BTreeMap<String, String>,
}

/// Each scheduler: how to tell it ran us, and which of its variables name the job.
const CI_SYSTEMS: &[(&str, &str, &[&str])] = &[
    (
        "github-actions",
        "GITHUB_ACTIONS",
        &[
            "GITHUB_REPOSITORY",
            "GITHUB_WORKFLOW",
            "GITHUB_RUN_ID",
            "GITHUB_RUN_ATTEMPT",
            "GITHUB_JOB",
            "GITHUB_SHA",
            "GITHUB_REF",
            "RUNNER_NAME",
        ],
    ),
    (
        "gitlab-ci",
        "GITLAB_CI",
        &[
            "CI_PROJECT_PATH",
            "CI_PIPELINE_ID",
            "CI_JOB_ID",
            "CI_JOB_NAME",
            "CI_COMMIT_SHA",
            "CI_RUNNER_DESCRIPTION",
        ],
    ),
    (
        "slurm",
        "SLURM_JOB_ID",
        &[
            "SLURM_CLUSTER_NAME",
            "SLURM_JOB_ID",
            "SLURM_ARRAY_JOB_ID",
            "SLURM_ARRAY_TASK_ID",
            "SLURM_JOB_PARTITION",
            "SLURMD_NODENAME",
        ],
    ),
    (
        "kubernetes",
        "KUBERNETES_SERVICE_HOST",
        &[
            "JOB_COMPLETION_INDEX",
            "HOSTNAME",
            "POD_NAMESPACE",
            "NODE_NAME",
        ],
    ),
];

impl CiOrigin {
    /// The scheduler running this process, from its environment variables.
    pub fn detect() -> Option<CiOrigin> {
        CiOrigin::from_env(|k| std::env::var(k).ok())
    }

    /// [`CiOrigin::detect`] with the environment read through `var`; `None` where no
    /// scheduler's marker variable is set.
    pub(crate) fn from_env(var: impl Fn(&str) -> Option<String>) -> Option<CiOrigin> {
        CI_SYSTEMS.iter().find_map(|(system, marker, names)| {
            var(marker).filter(|v| !v.is_empty())?;
            let vars = names
                .iter()
                .filter_map(|n| Some((n.to_string(), var(n).filter(|v| !v.is_empty())?)))
                .collect();
            Some(CiOrigin {
                system: system.to_string(),
                vars,
            })
        })
    }

    /// One line: the system and its job's variables.
    pub fn describe(&self) -> String {
        let vars: Vec<String> = self.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{} ({})", self.system, vars.join(", "))
    }
}

/// What the hardware is, as a short hash: architecture, vendor, family/model/stepping,
/// model name, crypto flags and whether a hypervisor stands between. Two machines of one
/// kind share it; the hostname, the kernel and the load do not enter it.
pub fn fingerprint(machine: &MachineRecord, cpu_model: &str) -> String {
    let described = match machine.measured() {
        Some(m) => format!(
            "arch={}\nvendor={}\nsignature={}\nmodel={}\ncrypto={}\nhypervisor={}\n",
            m.arch,
            m.vendor,
            m.cpu_signature,
            m.cpu_model,
            m.crypto_flags.join(" "),
            m.hypervisor
        ),
        // An imported run's machine is known by the model its importer gave, alone.
        None => format!("model={cpu_model}\n"),
    };
    hex::encode(&Sha256::digest(described.as_bytes())[..8])
}

/// The hardware's own name for a testbed, never the hostname (CI runners change theirs
/// every job): the CPU model, made a name, and the fingerprint's first 8 digits.
pub fn default_testbed(machine: &MachineRecord, cpu_model: &str) -> String {
    let model = machine
        .measured()
        .map_or(cpu_model, |m| m.cpu_model.as_str());
    let mut slug = String::new();
    for word in model
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !matches!(*w, "r" | "tm" | "processor" | "cpu" | "with"))
        .take(5)
    {
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(word);
    }
    if slug.is_empty() {
        slug.push_str("unknown");
    }
    format!("{slug}-{}", &fingerprint(machine, cpu_model)[..8])
}

/// A testbed name as `--testbed` takes it: what every name obeys, so that it prints
/// safely in every format and as a file name.
pub fn check_testbed(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        bail!(
            "testbed `{}` is not a name: use 1-64 letters, digits, `-`, `_` or `.`, beginning with a letter or digit",
            name.escape_debug()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Machine;

    fn measured(signature: &str) -> MachineRecord {
        let mut m = Machine::example(None);
        m.cpu_signature = signature.into();
        MachineRecord::Measured(Box::new(m))
    }

    #[test]
    fn the_fingerprint_follows_the_hardware_and_nothing_else() {
        let a = measured("25/17/1");
        assert_eq!(fingerprint(&a, "x"), fingerprint(&measured("25/17/1"), "y"));
        assert_ne!(fingerprint(&a, "x"), fingerprint(&measured("25/17/2"), "x"));
        let MachineRecord::Measured(mut other) = measured("25/17/1") else {
            unreachable!()
        };
        other.kernel = "another kernel".into();
        other.load_1min = Some(3.0);
        assert_eq!(
            fingerprint(&a, "x"),
            fingerprint(&MachineRecord::Measured(other.clone()), "x")
        );
        other.crypto_flags.push("vaes".into());
        assert_ne!(
            fingerprint(&a, "x"),
            fingerprint(&MachineRecord::Measured(other), "x")
        );
        assert_eq!(fingerprint(&a, "x").len(), 16);
    }

    #[test]
    fn the_default_testbed_is_the_model_and_the_fingerprint() {
        let machine = measured("25/17/1");
        let name = default_testbed(&machine, "");
        assert!(name.ends_with(&fingerprint(&machine, "")[..8]), "{name}");
        check_testbed(&name).unwrap();
        let unrecorded = MachineRecord::Unreadable(serde_json::Value::Null);
        let name = default_testbed(&unrecorded, "Intel(R) Xeon(R) Processor");
        assert!(name.starts_with("intel-xeon-"), "{name}");
        check_testbed(&default_testbed(&unrecorded, "")).unwrap();
    }

    #[test]
    fn testbed_names_obey_one_grammar() {
        for good in ["zen4", "ci-runner.3", "A_1"] {
            check_testbed(good).unwrap();
        }
        for bad in ["", "-x", "a b", "a/b", "x\u{1b}[31m", &"x".repeat(65)] {
            let err = check_testbed(bad).unwrap_err().to_string();
            assert!(err.starts_with("testbed `"), "{err}");
            assert!(!err.contains('\u{1b}'), "{err}");
        }
    }

    #[test]
    fn ci_origins_are_read_from_their_schedulers_variables() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(CiOrigin::from_env(env(&[("HOME", "/root")])), None);
        let gh = CiOrigin::from_env(env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_JOB", "bench"),
        ]))
        .unwrap();
        assert_eq!(gh.system, "github-actions");
        assert_eq!(gh.vars.len(), 2);
        assert_eq!(
            gh.describe(),
            "github-actions (GITHUB_JOB=bench, GITHUB_RUN_ID=42)"
        );
        let slurm = CiOrigin::from_env(env(&[("SLURM_JOB_ID", "7"), ("SLURM_ARRAY_TASK_ID", "3")]))
            .unwrap();
        assert_eq!(slurm.system, "slurm");
        assert_eq!(slurm.vars["SLURM_ARRAY_TASK_ID"], "3");
    }
}
