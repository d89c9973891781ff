//! The SQLite store: every run, case and raw sample, written as it is measured.
//!
//! Reports are computed from what is stored here and nothing else, so `run` and
//! `report` cannot disagree, and a crash or Ctrl-C loses at most the case in flight.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

mod migrate;

use crate::record::{
    CanaryReadings, Case, CaseStatus, Estimate, Params, RunCounter, RunHeader, RunStatus, Samples,
};

const SCHEMA_VERSION: i64 = 4;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id            INTEGER PRIMARY KEY,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL,          -- running | complete (RunStatus)
    experiment    TEXT NOT NULL,
    tool_version  TEXT NOT NULL,
    git_revision  TEXT,
    counter       TEXT NOT NULL,          -- tsc | perf | tsc-core | ns, or an importer's own
    unit          TEXT NOT NULL,
    tsc_hz        REAL,
    cpu_model     TEXT NOT NULL,
    machine_json  TEXT NOT NULL,
    options_json  TEXT NOT NULL           -- RunOrigin, tagged and versioned (origin: run/1, ...)
);
CREATE TABLE IF NOT EXISTS cases (
    id               INTEGER PRIMARY KEY,
    run_id           INTEGER NOT NULL REFERENCES runs(id),
    seq              INTEGER NOT NULL,
    case_key         TEXT NOT NULL,
    implementation   TEXT NOT NULL,
    operation        TEXT NOT NULL,
    params_json      TEXT NOT NULL,
    bytes            INTEGER,
    lanes            INTEGER NOT NULL DEFAULT 1,
    status           TEXT NOT NULL,       -- pending | ok | wrong | failed | unsupported
    message          TEXT,
    calls_per_sample INTEGER,
    overhead         REAL,
    UNIQUE (run_id, case_key)
);
CREATE TABLE IF NOT EXISTS clusters (
    case_id  INTEGER NOT NULL REFERENCES cases(id),
    process  INTEGER NOT NULL,
    layout   INTEGER NOT NULL,
    samples  BLOB NOT NULL,               -- little-endian f64, counts per call
    core_clock REAL,                      -- core cycles per TSC tick beside them (tsc-core)
    PRIMARY KEY (case_id, process, layout)
);
CREATE TABLE IF NOT EXISTS canaries (
    case_id  INTEGER NOT NULL REFERENCES cases(id),
    process  INTEGER NOT NULL,
    kind     TEXT NOT NULL,               -- which canary: its version and the parts it ran
    readings BLOB NOT NULL,               -- little-endian f64, in the run's counter
    PRIMARY KEY (case_id, process)
);
CREATE TABLE IF NOT EXISTS estimates (
    run_id          INTEGER NOT NULL REFERENCES runs(id),
    implementation  TEXT NOT NULL,
    cycles          REAL,
    model           TEXT NOT NULL,      -- llvm-mca -mcpu
    note            TEXT,
    PRIMARY KEY (run_id, implementation)
);
CREATE TABLE IF NOT EXISTS baselines (
    name    TEXT PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs(id)
);
";

#[derive(Clone, Debug)]
pub struct StoredCase {
    pub row: i64,
    pub key: String,
    pub implementation: String,
    pub operation: String,
    pub params: Params,
    pub bytes: Option<u64>,
    /// Independent inputs per call (N for an N-lane implementation).
    pub lanes: usize,
    pub status: CaseStatus,
    pub message: Option<String>,
    pub calls_per_sample: Option<u64>,
    pub overhead: Option<f64>,
    /// One per worker process, in order.
    pub per_process: Vec<Vec<f64>>,
    /// Core cycles per TSC tick beside each process's samples, where the counter measured
    /// it (tsc-core); empty otherwise.
    pub core_clocks: Vec<f64>,
    /// The canary's readings beside each process's samples, in the order of
    /// `per_process`; `None` for a process measured without one (runs before schema 4).
    pub canary: Vec<Option<CanaryReadings>>,
}

#[derive(Clone, Debug)]
pub struct StoredRun {
    pub header: RunHeader,
    pub cases: Vec<StoredCase>,
}

/// A case measured by another tool, ready to be stored as measured.
#[derive(Clone, Debug)]
pub struct ImportedCase {
    pub case: Case,
    /// Counts per call; one cluster per independent series the tool measured (a process).
    pub per_process: Vec<Vec<f64>>,
    pub calls_per_sample: Option<u64>,
    pub message: Option<String>,
}

/// How long a command waits for another process's write to the store before it gives up.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Read,
    Write,
}

/// A cluster's samples as stored: little-endian f64s, back to back.
fn encode_samples(samples: &[f64]) -> Vec<u8> {
    samples.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The samples of a stored cluster of the case in row `case_row`; a blob that is not
/// whole f64s is an error naming the case.
#[doc(hidden)]
pub fn decode_samples(blob: &[u8], case_row: i64) -> Result<impl Iterator<Item = f64> + '_> {
    if !blob.len().is_multiple_of(8) {
        bail!("corrupt sample record in the store (case {case_row})");
    }
    Ok(blob
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("chunks of 8 bytes"))))
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Open (creating if needed) the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_as(path, Purpose::Write)
    }

    /// Open the store at `path` to read its runs: a file that holds none (empty, or
    /// another program's database) is refused, never turned into a store.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.exists() {
            bail!(
                "no result store at `{}`: run `cryptobench run` first, or point --db at one",
                path.display()
            );
        }
        Store::open_as(path, Purpose::Read)
    }

    fn open_as(path: &Path, purpose: Purpose) -> Result<Store> {
        if path.is_dir() {
            bail!(
                "the result store `{}` is a directory; --db names the store's file, e.g. `{}`",
                path.display(),
                path.join("cryptobench.db").display()
            );
        }
        let conn = Connection::open(path).with_context(|| {
            format!(
                "cannot open the result store `{}`: check that the directory exists and is writable, or choose another with --db",
                path.display()
            )
        })?;
        // A `report` beside a running `run` waits for its write instead of failing.
        conn.busy_timeout(BUSY_WAIT)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate(purpose)?;
        Ok(store)
    }

    fn migrate(&self, purpose: Purpose) -> Result<()> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| {
                self.locked(&e)
                    .or_else(|| self.damaged(&e))
                    .unwrap_or_else(|| {
                        anyhow::Error::new(e).context(format!(
                            "`{}` is not a cryptobench store (not an SQLite database)",
                            self.path.display()
                        ))
                    })
            })?;
        if version > SCHEMA_VERSION {
            bail!(
                "`{}` was written by a newer cryptobench (schema {version}, this one knows {SCHEMA_VERSION}); upgrade, or use another --db",
                self.path.display()
            );
        }
        if version == SCHEMA_VERSION {
            // Nothing to write: a store that is read-only to this user can still be read.
            return Ok(());
        }
        if version == 0 {
            let tables: Vec<String> = self
                .conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
                .map_err(|e| {
                    self.damaged(&e).unwrap_or_else(|| {
                        anyhow::Error::new(e)
                            .context(format!("cannot read `{}`", self.path.display()))
                    })
                })?;
            // Our own tables without a version: a store whose first write stopped between
            // the two. Only `run` and `import` finish one; a reader leaves a file as it was.
            let half_made = ["runs", "cases", "clusters"]
                .iter()
                .all(|t| tables.iter().any(|have| have == t));
            if !tables.is_empty() && (purpose == Purpose::Read || !half_made) {
                bail!(
                    "`{}` is another program's SQLite database (tables {}), not a cryptobench store; choose another --db",
                    self.path.display(),
                    tables.join(", ")
                );
            }
            if purpose == Purpose::Read {
                bail!(
                    "`{}` is empty, not a cryptobench store: run `cryptobench run` first, or point --db at a store it wrote",
                    self.path.display()
                );
            }
        }
        // All of it or none: a migration killed half-way leaves the old schema, whole.
        let upgrade = || -> rusqlite::Result<()> {
            let tx = self.conn.unchecked_transaction()?;
            tx.execute_batch(SCHEMA)?;
            // Schema 1 had no clock per process; its runs read as unknown clocks.
            if version == 1 {
                tx.execute_batch("ALTER TABLE clusters ADD COLUMN core_clock REAL")?;
            }
            if (1..=2).contains(&version) {
                migrate::to_schema_3(&tx)?;
            }
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            tx.commit()
        };
        upgrade()
            .map_err(|e| self.locked(&e).unwrap_or_else(|| anyhow::Error::new(e)))
            .with_context(|| {
                format!(
                    "cannot write to the result store `{}`: are it and its directory writable (SQLite writes a journal beside it)?",
                    self.path.display()
                )
            })?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SQLite's "database is locked", after [`BUSY_WAIT`], as what it means here.
    fn locked(&self, e: &rusqlite::Error) -> Option<anyhow::Error> {
        (e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)).then(|| {
            anyhow::anyhow!(
                "the result store `{}` stayed locked by another process for {} s (another cryptobench writing to it, or a program holding it open?)",
                self.path.display(),
                BUSY_WAIT.as_secs()
            )
        })
    }

    /// SQLite's "database disk image is malformed" of a file that begins as an SQLite
    /// database does: cut short (a copy or a disk that filled up) or overwritten in part.
    fn damaged(&self, e: &rusqlite::Error) -> Option<anyhow::Error> {
        (e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt)).then(|| {
            anyhow::anyhow!(
                "the result store `{}` is damaged (an SQLite database cut short or overwritten in part: {e}); restore it from a copy, or choose another --db",
                self.path.display()
            )
        })
    }

    /// A failed write, naming the store.
    fn cannot_write(&self, e: rusqlite::Error) -> anyhow::Error {
        self.locked(&e).unwrap_or_else(|| {
            anyhow::Error::new(e).context(format!(
                "cannot write to the result store `{}`",
                self.path.display()
            ))
        })
    }

    /// Start a run; `header.id` is ignored and the new id returned.
    pub fn begin_run(&self, header: &RunHeader) -> Result<i64> {
        let running = RunHeader {
            status: RunStatus::Running,
            finished_at: None,
            ..header.clone()
        };
        insert_run(&self.conn, &running)
            .with_context(|| format!("cannot write to the result store `{}`", self.path.display()))
    }

    pub fn finish_run(&self, run_id: i64, finished_at: &str) -> Result<()> {
        self.conn
            .execute(
                "UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1",
                params![run_id, finished_at],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// Record a planned case; returns its row id.
    pub fn add_case(&self, run_id: i64, seq: usize, case: &Case) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending')",
            params![
                run_id,
                seq as i64,
                case.key(),
                case.implementation,
                case.operation,
                serde_json::to_string(&case.params)?,
                case.bytes().map(|b| b as i64),
                case.lanes as i64,
            ],
        )
        .map_err(|e| self.cannot_write(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn set_status(
        &self,
        case_row: i64,
        status: CaseStatus,
        message: Option<&str>,
    ) -> Result<()> {
        self.conn
            .execute(
                "UPDATE cases SET status = ?2, message = ?3 WHERE id = ?1",
                params![case_row, status.as_str(), message],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// Append one worker's samples to a case, in one transaction.
    pub fn add_samples(&mut self, case_row: i64, process: usize, samples: &Samples) -> Result<()> {
        let write = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            for (layout, cluster) in samples.per_layout.iter().enumerate() {
                tx.execute(
                    "INSERT INTO clusters (case_id, process, layout, samples, core_clock) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        case_row,
                        process as i64,
                        layout as i64,
                        encode_samples(cluster),
                        samples.core_clock
                    ],
                )?;
            }
            if let Some(canary) = &samples.canary {
                tx.execute(
                    "INSERT INTO canaries (case_id, process, kind, readings) VALUES (?1, ?2, ?3, ?4)",
                    params![
                        case_row,
                        process as i64,
                        canary.kind,
                        encode_samples(&canary.readings)
                    ],
                )?;
            }
            tx.execute(
                "UPDATE cases SET status = 'ok', calls_per_sample = ?2, overhead = ?3 WHERE id = ?1",
                params![
                    case_row,
                    samples.calls_per_sample as i64,
                    samples.calibration.overhead
                ],
            )?;
            tx.commit()
        };
        write(&mut self.conn).map_err(|e| self.cannot_write(e))
    }

    /// Store a run measured elsewhere, whole or not at all: one transaction, so a bad
    /// file never leaves half a run behind. `header.id` is ignored and the new id returned.
    pub fn import_run(&mut self, header: &RunHeader, cases: &[ImportedCase]) -> Result<i64> {
        let path = self.path.display().to_string();
        let tx = self
            .conn
            .transaction()
            .with_context(|| format!("cannot write to the result store `{path}`"))?;
        let run_id = insert_run(&tx, header)
            .with_context(|| format!("cannot write to the result store `{path}`"))?;
        for (seq, c) in cases.iter().enumerate() {
            tx.execute(
                "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'ok', ?9, ?10)",
                params![
                    run_id,
                    seq as i64,
                    c.case.key(),
                    c.case.implementation,
                    c.case.operation,
                    serde_json::to_string(&c.case.params)?,
                    c.case.bytes().map(|b| b as i64),
                    c.case.lanes as i64,
                    c.message,
                    c.calls_per_sample.map(|n| n as i64),
                ],
            )
            .with_context(|| format!("cannot store case `{}`", c.case.key()))?;
            let case_row = tx.last_insert_rowid();
            // Each independent series is stored as a process of its own: processes are
            // what the statistics resample.
            for (process, cluster) in c.per_process.iter().enumerate() {
                tx.execute(
                    "INSERT INTO clusters (case_id, process, layout, samples) VALUES (?1, ?2, 0, ?3)",
                    params![case_row, process as i64, encode_samples(cluster)],
                )?;
            }
        }
        tx.commit()
            .with_context(|| format!("cannot write to the result store `{path}`"))?;
        Ok(run_id)
    }

    /// The id of the most recent run, if any.
    pub fn latest_run(&self) -> Result<Option<i64>> {
        Ok(self.conn.query_row("SELECT max(id) FROM runs", [], |r| {
            r.get::<_, Option<i64>>(0)
        })?)
    }

    /// Resolve `latest`, a run id, or a saved baseline name.
    pub fn resolve_run(&self, spec: &str) -> Result<i64> {
        if spec == "latest" {
            return self.latest_run()?.with_context(|| {
                format!(
                    "the store `{}` holds no runs yet: run `cryptobench run` first",
                    self.path.display()
                )
            });
        }
        if let Ok(id) = spec.parse::<i64>() {
            let exists: Option<i64> = self
                .conn
                .query_row("SELECT id FROM runs WHERE id = ?1", [id], |r| r.get(0))
                .optional()?;
            return exists.with_context(|| {
                format!(
                    "no run {id} in `{}`: see `cryptobench history` for the stored runs",
                    self.path.display()
                )
            });
        }
        self.baseline(spec)?.with_context(|| {
            format!(
                "`{spec}` is neither a run id, `latest`, nor a saved baseline in `{}`",
                self.path.display()
            )
        })
    }

    pub fn add_estimate(&self, run_id: i64, implementation: &str, e: &Estimate) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO estimates (run_id, implementation, cycles, model, note) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, implementation, e.cycles, e.model, e.note],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// Static estimates stored with a run, by implementation.
    pub fn estimates(&self, run_id: i64) -> Result<std::collections::BTreeMap<String, Estimate>> {
        let mut stmt = self.conn.prepare(
            "SELECT implementation, cycles, model, note FROM estimates WHERE run_id = ?1",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Estimate {
                    cycles: r.get(1)?,
                    model: r.get(2)?,
                    note: r.get(3)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every stored process's canary readings of canary `kind` in complete runs on CPU
    /// `cpu_model`, by run: what the host's states have looked like on this machine.
    pub fn canary_readings(
        &self,
        kind: &str,
        cpu_model: &str,
    ) -> Result<std::collections::BTreeMap<i64, Vec<Vec<f64>>>> {
        let mut stmt = self.conn.prepare(
            "SELECT c.run_id, k.readings FROM canaries k
             JOIN cases c ON c.id = k.case_id JOIN runs r ON r.id = c.run_id
             WHERE k.kind = ?1 AND r.cpu_model = ?2 AND r.status = 'complete'",
        )?;
        let rows = stmt.query_map(params![kind, cpu_model], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut by_run: std::collections::BTreeMap<i64, Vec<Vec<f64>>> = Default::default();
        for row in rows {
            let (run, blob) = row?;
            by_run
                .entry(run)
                .or_default()
                .push(decode_samples(&blob, run)?.collect());
        }
        Ok(by_run)
    }

    pub fn save_baseline(&self, name: &str, run_id: i64) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO baselines (name, run_id) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET run_id = excluded.run_id",
                params![name, run_id],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    pub fn baseline(&self, name: &str) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT run_id FROM baselines WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn load_run(&self, run_id: i64) -> Result<StoredRun> {
        self.load_run_where(run_id, |_| true)
    }

    /// A run with only the cases whose key `keep` accepts; the others' samples are not read.
    pub fn load_run_where(&self, run_id: i64, keep: impl Fn(&str) -> bool) -> Result<StoredRun> {
        let header = self
            .conn
            .query_row(
                "SELECT id, started_at, finished_at, status, experiment, tool_version, git_revision, counter, unit, tsc_hz, cpu_model, machine_json, options_json
                 FROM runs WHERE id = ?1",
                [run_id],
                |r| {
                    let header = || -> Result<RunHeader> {
                        RunRow {
                            id: r.get(0)?,
                            started_at: r.get(1)?,
                            finished_at: r.get(2)?,
                            status: r.get(3)?,
                            experiment: r.get(4)?,
                            tool_version: r.get(5)?,
                            git_revision: r.get(6)?,
                            counter: r.get(7)?,
                            unit: r.get(8)?,
                            tsc_hz: r.get(9)?,
                            cpu_model: r.get(10)?,
                            machine_json: r.get(11)?,
                            options_json: r.get(12)?,
                        }
                        .decode()
                    };
                    Ok(header())
                },
            )
            .optional()?
            .with_context(|| format!("no run {run_id} in `{}`", self.path.display()))?
            .with_context(|| format!("run {run_id} in `{}`", self.path.display()))?;

        let mut stmt = self.conn.prepare(
            "SELECT id, case_key, implementation, operation, params_json, bytes, status, message, calls_per_sample, overhead, lanes
             FROM cases WHERE run_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<i64>>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<i64>>(8)?,
                r.get::<_, Option<f64>>(9)?,
                r.get::<_, i64>(10)?,
            ))
        })?;
        let mut cases = Vec::new();
        for row in rows {
            let (
                id,
                key,
                implementation,
                operation,
                params_json,
                bytes,
                status,
                message,
                cps,
                overhead,
                lanes,
            ) = row?;
            if !keep(&key) {
                continue;
            }
            let (processes, per_process) = self.samples_per_process(id)?;
            let canary = self.canaries(id, &processes)?;
            cases.push(StoredCase {
                row: id,
                key,
                implementation,
                operation,
                params: decode_params(&params_json)?,
                bytes: bytes.map(|b| b as u64),
                lanes: lanes.max(1) as usize,
                status: CaseStatus::parse(&status)?,
                message,
                calls_per_sample: cps.map(|c| c as u64),
                overhead,
                per_process,
                core_clocks: self.core_clocks(id)?,
                canary,
            });
        }
        Ok(StoredRun { header, cases })
    }

    /// A case's samples, one cluster per worker process (its layouts together): the
    /// process is the unit that is independent of the others (each has its own start,
    /// warm-up and moment in the run); samples within one process are not.
    /// With the processes' numbers, in the same order.
    fn samples_per_process(&self, case_row: i64) -> Result<(Vec<i64>, Vec<Vec<f64>>)> {
        let mut stmt = self.conn.prepare(
            "SELECT process, samples FROM clusters WHERE case_id = ?1 ORDER BY process, layout",
        )?;
        let rows = stmt.query_map([case_row], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut out: Vec<Vec<f64>> = Vec::new();
        let mut processes = Vec::new();
        for row in rows {
            let (process, blob) = row?;
            let samples = decode_samples(&blob, case_row)?;
            if processes.last() != Some(&process) {
                out.push(Vec::new());
                processes.push(process);
            }
            let cluster = out.last_mut().expect("pushed above");
            cluster.extend(samples);
        }
        Ok((processes, out))
    }

    /// The canary readings of each of `processes` of a case, in that order.
    fn canaries(&self, case_row: i64, processes: &[i64]) -> Result<Vec<Option<CanaryReadings>>> {
        let mut stmt = self
            .conn
            .prepare("SELECT process, kind, readings FROM canaries WHERE case_id = ?1")?;
        let rows = stmt.query_map([case_row], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Vec<u8>>(2)?,
            ))
        })?;
        let mut by_process = std::collections::BTreeMap::new();
        for row in rows {
            let (process, kind, blob) = row?;
            let readings = decode_samples(&blob, case_row)?.collect();
            by_process.insert(process, CanaryReadings { kind, readings });
        }
        Ok(processes.iter().map(|p| by_process.remove(p)).collect())
    }

    fn core_clocks(&self, case_row: i64) -> Result<Vec<f64>> {
        let mut stmt = self.conn.prepare(
            "SELECT MIN(core_clock) FROM clusters WHERE case_id = ?1 AND core_clock IS NOT NULL
             GROUP BY process ORDER BY process",
        )?;
        let clocks = stmt
            .query_map([case_row], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<f64>>>()?;
        Ok(clocks)
    }

    /// All runs, oldest first.
    pub fn runs(&self) -> Result<Vec<i64>> {
        let mut stmt = self.conn.prepare("SELECT id FROM runs ORDER BY id")?;
        let ids = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(ids)
    }
}

/// A row of `runs` as stored, its typed columns still text (public for the fuzz targets).
#[doc(hidden)]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: String,
    pub experiment: String,
    pub tool_version: String,
    pub git_revision: Option<String>,
    pub counter: String,
    pub unit: String,
    pub tsc_hz: Option<f64>,
    pub cpu_model: String,
    pub machine_json: String,
    pub options_json: String,
}

impl RunRow {
    /// The run's header, its status, counter, machine and options read from their text.
    pub fn decode(self) -> Result<RunHeader> {
        Ok(RunHeader {
            id: self.id,
            started_at: self.started_at,
            finished_at: self.finished_at,
            status: RunStatus::parse(&self.status)?,
            experiment: self.experiment,
            tool_version: self.tool_version,
            git_revision: self.git_revision,
            counter: RunCounter::parse(&self.counter)?,
            unit: self.unit,
            tsc_hz: self.tsc_hz,
            cpu_model: self.cpu_model,
            machine: serde_json::from_str(&self.machine_json)
                .context("corrupt machine record in the store")?,
            options: serde_json::from_str(&self.options_json)
                .context("corrupt options record in the store")?,
        })
    }
}

/// A case's parameters as stored (`params_json`).
#[doc(hidden)]
pub fn decode_params(params_json: &str) -> Result<Params> {
    serde_json::from_str(params_json).context("corrupt case parameters in the store")
}

/// Insert `header` as a new run (its `id` ignored); returns the new id.
fn insert_run(conn: &Connection, header: &RunHeader) -> Result<i64> {
    conn.execute(
        "INSERT INTO runs (started_at, finished_at, status, experiment, tool_version, git_revision, counter, unit, tsc_hz, cpu_model, machine_json, options_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            header.started_at,
            header.finished_at,
            header.status.as_str(),
            header.experiment,
            header.tool_version,
            header.git_revision,
            header.counter.to_string(),
            header.unit,
            header.tsc_hz,
            header.cpu_model,
            serde_json::to_string(&header.machine)?,
            serde_json::to_string(&header.options)?,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::counter::Calibration;
    use crate::record::{
        ImportedCounter, ImportedFrom, MachineRecord, Params, RunOrigin, UnrecordedMachine,
    };
    use Samples;

    pub(crate) fn header() -> RunHeader {
        RunHeader {
            id: 0,
            started_at: "2026-11-22T00:00:00Z".into(),
            finished_at: None,
            status: RunStatus::Running,
            experiment: "test".into(),
            tool_version: "0".into(),
            git_revision: None,
            counter: RunCounter::Measured(crate::counter::CounterKind::TscCore),
            unit: "core cycles".into(),
            tsc_hz: Some(2.6e9),
            cpu_model: "test".into(),
            machine: MachineRecord::Unreadable(serde_json::Value::Null),
            options: RunOrigin::Unreadable(serde_json::json!({})),
        }
    }

    fn case() -> Case {
        Case {
            implementation: "a/b".into(),
            operation: "hash".into(),
            params: Params::new(),
            lanes: 1,
        }
    }

    fn samples(core_clock: Option<f64>) -> Samples {
        Samples {
            calls_per_sample: 1,
            calibration: Calibration::default(),
            per_layout: vec![vec![100.0, 101.0]],
            core_clock,
            canary: None,
        }
    }

    pub(crate) fn imported_case() -> ImportedCase {
        ImportedCase {
            case: case(),
            per_process: vec![vec![100.0, 101.0, 102.0]],
            calls_per_sample: None,
            message: None,
        }
    }

    #[test]
    fn typed_headers_read_back_as_written_and_a_begun_run_is_running() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.db")).unwrap();
        let measured = RunHeader {
            status: RunStatus::Complete,
            finished_at: Some("2026-11-22T00:01:00Z".into()),
            machine: MachineRecord::Measured(Box::new(crate::machine::Machine::example(Some(
                3.5e9,
            )))),
            ..header()
        };
        let begun = store.load_run(store.begin_run(&measured).unwrap()).unwrap();
        assert_eq!(begun.header.status, RunStatus::Running);
        assert_eq!(begun.header.finished_at, None);
        assert_eq!(begun.header.counter, measured.counter);
        assert_eq!(begun.header.machine.core_clock_hz(), Some(3.5e9));

        let imported = RunHeader {
            status: RunStatus::Complete,
            finished_at: Some("2026-11-22T00:01:00Z".into()),
            counter: RunCounter::Imported(ImportedCounter::OpensslSpeed),
            machine: MachineRecord::Unrecorded(UnrecordedMachine {
                cpu_model: "unknown".into(),
                warnings: vec!["imported".into()],
            }),
            options: RunOrigin::Imported(ImportedFrom {
                source: "openssl-speed".into(),
                path: "speed.txt".into(),
                note: "one table".into(),
                imported_at: "2026-11-22T00:02:00Z".into(),
            }),
            ..header()
        };
        let id = store.import_run(&imported, &[imported_case()]).unwrap();
        let back = store.load_run(id).unwrap().header;
        assert_eq!(back.status, RunStatus::Complete);
        assert_eq!(back.finished_at.as_deref(), Some("2026-11-22T00:01:00Z"));
        assert_eq!(back.counter, imported.counter);
        assert_eq!(back.imported().unwrap().note, "one table");
        assert_eq!(back.machine.warnings(), ["imported"]);
    }

    #[test]
    fn a_schema_1_store_gains_the_clock_column_and_keeps_its_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let conn = Connection::open(&path).unwrap();
            let old = SCHEMA.replace(
                "    core_clock REAL,                      -- core cycles per TSC tick beside them (tsc-core)\n",
                "",
            );
            let old = without_lanes(&old);
            assert_ne!(
                old, SCHEMA,
                "the test must remove the column to mimic schema 1"
            );
            conn.execute_batch(&old).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            // A run measured under schema 1, stored as that version stored it.
            let old_run = insert_run(&conn, &header()).unwrap();
            conn.execute(
                "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, status)
                 VALUES (?1, 0, 'a/b/hash', 'a/b', 'hash', '{}', 'ok')",
                [old_run],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO clusters (case_id, process, layout, samples) VALUES (?1, 0, 0, ?2)",
                params![conn.last_insert_rowid(), encode_samples(&[90.0, 91.0])],
            )
            .unwrap();
        }
        let mut store = Store::open(&path).unwrap();
        let kept = store.load_run(1).unwrap();
        assert_eq!(kept.cases.len(), 1);
        assert_eq!(kept.cases[0].per_process, vec![vec![90.0, 91.0]]);
        assert!(
            kept.cases[0].core_clocks.is_empty(),
            "schema 1 had no clock"
        );
        let run = store.begin_run(&header()).unwrap();
        let old_case = store.add_case(run, 0, &case()).unwrap();
        store.add_samples(old_case, 0, &samples(None)).unwrap();
        store
            .add_samples(old_case, 1, &samples(Some(1.40)))
            .unwrap();
        store
            .add_samples(old_case, 2, &samples(Some(1.30)))
            .unwrap();
        assert_eq!(run, 2);
        let loaded = store.load_run(run).unwrap();
        assert_eq!(loaded.cases[0].per_process.len(), 3);
        assert_eq!(loaded.cases[0].core_clocks, vec![1.40, 1.30]);
        drop(store);
        // Opening again must not try to add the column twice.
        Store::open(&path).unwrap();
    }

    /// The schema before lanes were a column of their own (2 and older).
    fn without_lanes(schema: &str) -> String {
        let old = schema.replace("    lanes            INTEGER NOT NULL DEFAULT 1,\n", "");
        assert_ne!(
            old, schema,
            "the test must remove the column to mimic schema 2"
        );
        old
    }

    #[test]
    fn a_schema_2_store_gains_lanes_and_tagged_options_and_keeps_its_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s2.db");
        let untagged = serde_json::json!({
            "source": "criterion", "path": "target/criterion",
            "note": "n", "imported_at": "2026-11-23T00:00:00Z",
        });
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(&without_lanes(SCHEMA)).unwrap();
            conn.pragma_update(None, "user_version", 2).unwrap();
            let run = insert_run(&conn, &header()).unwrap();
            conn.execute(
                "UPDATE runs SET options_json = ?2 WHERE id = ?1",
                params![run, untagged.to_string()],
            )
            .unwrap();
            for (seq, imp) in ["cryptobench/shake128-x4-avx2", "rustcrypto/shake128"]
                .iter()
                .enumerate()
            {
                conn.execute(
                    "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, status)
                     VALUES (?1, ?2, ?3, ?3, 'xof', '{}', 'ok')",
                    params![run, seq as i64, imp],
                )
                .unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        let run = store.load_run(1).unwrap();
        let lanes: Vec<usize> = run.cases.iter().map(|c| c.lanes).collect();
        assert_eq!(lanes, [4, 1]);
        assert!(
            matches!(&run.header.options, RunOrigin::Imported(f) if f.path == "target/criterion"),
            "{:?}",
            run.header.options
        );
        let stored: String = store
            .conn
            .query_row("SELECT options_json FROM runs WHERE id = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(stored.starts_with(r#"{"origin":"import/1""#), "{stored}");
        drop(store);
        Store::open(&path).unwrap();
    }

    #[test]
    fn a_corrupt_sample_record_is_an_error_naming_its_case() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        let mut store = Store::open(&path).unwrap();
        let run = store.begin_run(&header()).unwrap();
        let row = store.add_case(run, 0, &case()).unwrap();
        store.add_samples(row, 0, &samples(None)).unwrap();
        assert_eq!(store.load_run(run).unwrap().cases[0].per_process.len(), 1);
        // Five bytes: not a whole number of f64s.
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE clusters SET samples = x'0102030405'", [])
            .unwrap();
        let err = store.load_run(run).unwrap_err();
        assert!(
            format!("{err:#}")
                .contains(&format!("corrupt sample record in the store (case {row})")),
            "{err:#}"
        );
    }

    #[test]
    fn a_store_of_a_newer_schema_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.db");
        drop(Store::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        for opened in [Store::open(&path), Store::open_existing(&path)] {
            let err = format!("{:#}", opened.err().expect("refused"));
            assert!(
                err.contains(&format!(
                    "was written by a newer cryptobench (schema {}, this one knows {SCHEMA_VERSION})",
                    SCHEMA_VERSION + 1
                )),
                "{err}"
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_store_another_process_keeps_locked_is_said_to_be_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.db");
        let store = Store::open(&path).unwrap();
        let run = store.begin_run(&header()).unwrap();
        // The wait is BUSY_WAIT in use; a test need not sit through it.
        store
            .conn
            .busy_timeout(std::time::Duration::from_millis(50))
            .unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let err = format!("{:#}", store.add_case(run, 0, &case()).unwrap_err());
        assert!(err.contains("stayed locked by another process"), "{err}");
        other.execute_batch("COMMIT").unwrap();
        store.add_case(run, 0, &case()).unwrap();
    }

    #[test]
    fn a_half_made_store_is_finished_by_a_write_and_refused_by_a_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        // A first write that stopped after the tables, before the version.
        Connection::open(&path)
            .unwrap()
            .execute_batch(SCHEMA)
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        let err = format!("{:#}", Store::open_existing(&path).err().expect("refused"));
        assert!(err.contains("another program's SQLite database"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "a reader wrote");
        let store = Store::open(&path).unwrap();
        let run = store.begin_run(&header()).unwrap();
        drop(store);
        let version: i64 = Connection::open(&path)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let store = Store::open_existing(&path).unwrap();
        assert_eq!(store.runs().unwrap(), vec![run]);
    }
}
