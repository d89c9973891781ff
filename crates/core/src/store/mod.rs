//! The result store: every run, case and raw sample, written as it is measured, in an
//! SQLite file (the embedded default) or a shared PostgreSQL database (`--db
//! postgres://…`).
//!
//! Reports are computed from what is stored here and nothing else, so `run` and
//! `report` cannot disagree, and a crash or Ctrl-C loses at most the case in flight.
//! Each run carries a UUID, its machine (testbed and hardware fingerprint) and, once
//! complete, a digest of its content: what lets runs travel between stores ([`raw`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

mod engine;
mod held;
mod migrate;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod raw;

use engine::{Engine, Row, Value, values};
use held::Held;

use crate::record::{
    CanaryReadings, Case, CaseStatus, CiOrigin, Estimate, Params, RunCounter, RunHeader, RunOrigin,
    RunPlace, RunStatus, Samples, default_testbed, fingerprint,
};

const SCHEMA_VERSION: i64 = 7;

/// The tables, in SQLite's spelling; PostgreSQL's is made from it (`engine::postgres_schema`).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS machines (
    id            INTEGER PRIMARY KEY,
    testbed       TEXT NOT NULL,          -- the user's name for it, or the hardware's
    fingerprint   TEXT NOT NULL,          -- hash of arch, vendor, signature, model, flags
    cpu_model     TEXT NOT NULL,
    first_seen    TEXT NOT NULL,
    UNIQUE (testbed, fingerprint)
);
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
    machine_json  TEXT NOT NULL,          -- MachineRecord, tagged and versioned (record: measured/1, ...)
    options_json  TEXT NOT NULL,          -- RunOrigin, tagged and versioned (origin: run/1, ...)
    uuid          TEXT,                   -- unique across stores: what a push copies by
    machine_id    INTEGER REFERENCES machines(id),
    ci_json       TEXT,                   -- the CI job or batch task that ran it (CiOrigin)
    digest        TEXT                    -- SHA-256 of its content, once complete (raw.rs)
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
CREATE TABLE IF NOT EXISTS figures (
    run_id   INTEGER PRIMARY KEY REFERENCES runs(id),
    version  INTEGER NOT NULL,            -- of the JSON's form (analysis::fleet::RunFigures)
    json     TEXT NOT NULL                -- the run's figures, as its report computes them
);
CREATE TABLE IF NOT EXISTS baselines (
    testbed    TEXT NOT NULL,             -- a baseline is a name on one testbed
    experiment TEXT NOT NULL,             -- for one experiment (a bench target): its run's
    name       TEXT NOT NULL,
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (testbed, experiment, name)
);
";

/// Indexes on columns older schemas lacked: made after the migration has added them.
const INDEXES: &str = "
CREATE UNIQUE INDEX IF NOT EXISTS runs_by_uuid ON runs (uuid);
CREATE INDEX IF NOT EXISTS runs_by_machine ON runs (machine_id, experiment, status);
CREATE INDEX IF NOT EXISTS cases_by_run ON cases (run_id, seq);
";

/// What [`Store::receive_baseline`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaselineReceived {
    /// The baseline names the run now (it was absent, or named an older run).
    Set,
    /// It named that run already.
    AlreadyThere,
    /// It names a run that started later, with this UUID, and still does.
    KeptNewer(String),
    /// It names a run with cases the pushed run lacks, and still does: taken, it would
    /// leave them unjudged, which `--save-baseline` refuses in this store too.
    KeptWider {
        /// This store's id of the run it names.
        run: i64,
        /// That run's UUID.
        uuid: String,
        /// Its cases the pushed run lacks, in its order.
        left_out: Vec<String>,
    },
    /// The pushed run fails this store's checks of a baseline (given by the caller, who
    /// judged it against this store's runs), as `--save-baseline` here would refuse it:
    /// the name stays on the run it named, if any.
    KeptUnfit {
        /// The run the name still names here, by id and UUID; `None` where it names none.
        kept: Option<(i64, String)>,
        /// Why the pushed run is no baseline here.
        faults: Vec<String>,
    },
}

/// A case of a stored run, as [`Store::load_run`] reads it: what was measured, how it
/// ended, and its samples.
#[derive(Clone, Debug)]
pub struct StoredCase {
    /// The case's row id in this store; local to it, never copied to another.
    pub row: i64,
    /// The case's stable id ([`Case::key`]), e.g. `rustcrypto/chacha20/xor len=16384`.
    pub key: String,
    /// The implementation measured, by name.
    pub implementation: String,
    /// The operation measured, e.g. `xor`.
    pub operation: String,
    /// The operation's parameters.
    pub params: Params,
    /// Bytes one call processes, which cycles per byte divides by ([`Case::bytes`]);
    /// `None` where the operation has none.
    pub bytes: Option<u64>,
    /// Independent inputs per call (N for an N-lane implementation).
    pub lanes: usize,
    /// How its measuring ended; `Pending` where it never got samples (an interrupted run).
    pub status: CaseStatus,
    /// Why it is not `Ok`, or the checks its gate could not make; `None` where there is
    /// nothing to say.
    pub message: Option<String>,
    /// Calls each sample spans; `None` before samples are stored, or where an importing
    /// tool did not say.
    pub calls_per_sample: Option<u64>,
    /// The counter's overhead already subtracted from each sample, in counts (as the last
    /// stored process measured it); `None` before samples are stored and for imported
    /// cases.
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

/// A stored run as [`Store::load_run`] reads it.
#[derive(Clone, Debug)]
pub struct StoredRun {
    /// When, where and how it was measured.
    pub header: RunHeader,
    /// Its cases, in the order they were planned.
    pub cases: Vec<StoredCase>,
}

/// A case measured by another tool, ready to be stored as measured.
#[derive(Clone, Debug)]
pub struct ImportedCase {
    /// What was measured.
    pub case: Case,
    /// Counts per call; one cluster per independent series the tool measured (a process).
    pub per_process: Vec<Vec<f64>>,
    /// Calls each sample spans, where the tool says; `None` where it does not.
    pub calls_per_sample: Option<u64>,
    /// A note stored with the case, as [`StoredCase::message`].
    pub message: Option<String>,
}

/// A machine as the store knows it: a testbed name and the hardware behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineRow {
    /// The user's name for the machine, or the one made from its hardware.
    pub testbed: String,
    /// A short hash of the hardware ([`crate::record::fingerprint`]).
    pub fingerprint: String,
    /// The CPU model of the first run stored with it.
    pub cpu_model: String,
    /// When the first run stored with it started (that run's `started_at`).
    pub first_seen: String,
    /// How many runs this store holds from it.
    pub runs: i64,
    /// How many of them are complete (not stopped, killed, or still measuring): the
    /// ones a report across machines can take.
    pub complete_runs: i64,
    /// The newest run's start, and its counter.
    pub last_run: Option<(String, String)>,
    /// Whether the newest run is complete.
    pub last_run_complete: bool,
}

/// The run a report across machines shows for one machine ([`Store::latest_complete_runs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineRun {
    /// The machine's testbed.
    pub testbed: String,
    /// Its hardware fingerprint.
    pub fingerprint: String,
    /// The run's id in this store.
    pub run: i64,
    /// How the run narrowed its experiment's plan, where it did: the machine has no
    /// complete run of the whole plan.
    pub partial: Option<String>,
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

/// Whether `--db` names a PostgreSQL server rather than an SQLite file.
pub fn is_server_url(db: &Path) -> bool {
    db.to_str()
        .is_some_and(|s| s.starts_with("postgres://") || s.starts_with("postgresql://"))
}

/// Refuses a `--db` that reads as a URL but is not a `postgres://` one (a mistyped
/// `postgresql:user@host`, a `mysql://…`): taken as a file's path, it would become a new
/// SQLite store of that name, and a push to it would report success.
fn check_not_another_url(path: &Path, option: &str) -> Result<()> {
    let Some(text) = path.to_str().filter(|_| !is_server_url(path)) else {
        return Ok(());
    };
    // `host=db user=ci password=… dbname=bench`, libpq's other form, would become a
    // local file of that name, its password in the name and in the run's record: not
    // echoed here either.
    if crate::record::is_conninfo(text) {
        bail!(
            "{option} is a libpq `key=value` connection string, which cryptobench does not take: name the server as a URL, postgres://USER@HOST:PORT/DATABASE, its password in PGPASSWORD or ~/.pgpass (an SQLite file of such a name: ./NAME)"
        );
    }
    let Some((scheme, _)) = text.split_once(':') else {
        return Ok(());
    };
    const SCHEMES: &[&str] = &[
        "postgres",
        "postgresql",
        "pg",
        "mysql",
        "mariadb",
        "sqlite",
        "sqlite3",
        "file",
        "http",
        "https",
    ];
    let url_like = scheme
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        && !scheme.is_empty()
        && (text[scheme.len()..].starts_with("://")
            || SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()));
    if url_like {
        bail!(
            "{option} `{}` reads as a URL but not one cryptobench takes: a PostgreSQL server is postgres://USER@HOST:PORT/DATABASE, anything else is an SQLite file's path",
            // `postgresql:user:password@host` has no `//` to find credentials after.
            if text[scheme.len()..].starts_with("://") || !text.contains('@') {
                crate::record::shown_argument(text)
            } else {
                format!("{scheme}:…")
            }
        );
    }
    Ok(())
}

/// An open result store: an SQLite file or a PostgreSQL database (see the module
/// documentation).
pub struct Store {
    db: Mutex<Engine>,
    /// The SQLite file, or the server's URL without its password: what messages name.
    path: PathBuf,
    /// The option that named it (`--db`, `--to`, `--from`, `--push-to`): what messages
    /// tell the user to change.
    option: &'static str,
    /// Whether opening it created its file: a command refused before it stored anything
    /// removes the file again ([`Store::discard_if_unused`]).
    created: bool,
}

/// The name messages give the default store: `--db`, or `CRYPTOBENCH_DB` where the
/// path came from the environment (the user gave no `--db` to correct).
static DB_OPTION: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Say that `--db`'s value came from `CRYPTOBENCH_DB`, for the messages that name it.
pub fn db_from_environment() {
    let _ = DB_OPTION.set("CRYPTOBENCH_DB");
}

/// How messages name the default store's option: `--db`, or `CRYPTOBENCH_DB`.
pub fn db_option() -> &'static str {
    DB_OPTION.get().copied().unwrap_or("--db")
}

impl Store {
    /// Open (creating if needed) the store at `path`: an SQLite file, or a PostgreSQL
    /// database named by a `postgres://` URL.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_named(path, db_option())
    }

    /// [`Store::open`] for a store named by another option than `--db` (`push --to`),
    /// which its messages name.
    pub fn open_named(path: &Path, option: &'static str) -> Result<Store> {
        Store::open_as(path, Purpose::Write, option)
    }

    /// Open the store at `path` to read its runs: a file that holds none (empty, or
    /// another program's database) is refused, never turned into a store.
    pub fn open_existing(path: &Path) -> Result<Store> {
        Store::open_existing_named(path, db_option())
    }

    /// [`Store::open_existing`] for a store named by another option than `--db`
    /// (`push --from`), which its messages name.
    pub fn open_existing_named(path: &Path, option: &'static str) -> Result<Store> {
        check_not_another_url(path, option)?;
        if !is_server_url(path) && !path.exists() {
            bail!(
                "no result store at `{}`: run `cryptobench run` first, or point {option} at one",
                path.display()
            );
        }
        Store::open_as(path, Purpose::Read, option)
    }

    fn open_as(path: &Path, purpose: Purpose, option: &'static str) -> Result<Store> {
        check_not_another_url(path, option)?;
        if is_server_url(path) {
            #[cfg(feature = "postgres")]
            return postgres::open(path.to_str().expect("a URL is text"), purpose, option);
            #[cfg(not(feature = "postgres"))]
            bail!(
                "`{option} {}`: this build of cryptobench has no PostgreSQL client (build it with the `postgres` feature)",
                crate::record::without_password(&path.to_string_lossy())
            );
        }
        if path.is_dir() {
            bail!(
                "the result store `{}` is a directory; {option} names the store's file, e.g. `{}`",
                path.display(),
                path.join("cryptobench.db").display()
            );
        }
        let created = !path.exists();
        let conn = rusqlite::Connection::open(path).with_context(|| {
            format!(
                "cannot open the result store `{}`: check that the directory exists and is writable, or choose another with {option}",
                path.display()
            )
        })?;
        // A `report` beside a running `run` waits for its write instead of failing.
        conn.busy_timeout(BUSY_WAIT)?;
        let store = Store {
            db: Mutex::new(Engine::Sqlite(conn)),
            path: path.to_path_buf(),
            option,
            created,
        };
        store.migrate_sqlite(purpose)?;
        Ok(store)
    }

    /// Remove the file opening this store created, if no run was begun in it: a command
    /// refused after opening its store (a baseline it names is missing, the server it
    /// pushes to is down) leaves nothing behind. A store that existed before, a server's,
    /// or one holding a run, even an incomplete one, is kept.
    pub fn discard_if_unused(self) {
        let unused = self.created && self.runs().is_ok_and(|runs| runs.is_empty());
        let path = self.path.clone();
        drop(self);
        if unused {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                let mut file = path.clone().into_os_string();
                file.push(suffix);
                let _ = std::fs::remove_file(file);
            }
        }
    }

    /// Whether `other` is this very store, however each was named: a file by another
    /// path, a database by another host name or over a socket.
    pub fn is_same_store(&self, other: &Store) -> bool {
        #[cfg_attr(not(feature = "postgres"), allow(unused_mut))]
        let (mut mine, mut theirs) = (self.db(), other.db());
        match (&*mine, &*theirs) {
            (Engine::Sqlite(_), Engine::Sqlite(_)) => {
                use std::os::unix::fs::MetadataExt;
                let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
                id(&self.path).is_some_and(|a| Some(a) == id(&other.path))
            }
            // The same server (its postmaster started at one instant, to the microsecond)
            // and the same database in it: what any role may read, where another role's
            // session in pg_stat_activity may be hidden from this one.
            #[cfg(feature = "postgres")]
            (Engine::Postgres(_), Engine::Postgres(_)) => {
                let identity = |db: &mut Held<'_>| -> Option<(String, i64)> {
                    let row = db
                        .query_one(
                            "SELECT pg_postmaster_start_time()::text, oid::bigint FROM pg_database WHERE datname = current_database()",
                            &[],
                        )
                        .ok()??;
                    Some((row.text(0).ok()?, row.int(1).ok()?))
                };
                identity(&mut mine).is_some_and(|a| Some(a) == identity(&mut theirs))
            }
            // A file and a server; without the client, every store is a file.
            #[cfg(feature = "postgres")]
            _ => false,
        }
    }

    /// The time this store's operations have spent on lost connections, waiting for an
    /// answer that never came and connecting again: a run's time budgets leave it out.
    pub fn interrupted(&self) -> std::time::Duration {
        match &*self.db() {
            #[cfg(feature = "postgres")]
            Engine::Postgres(pg) => pg.interrupted,
            _ => std::time::Duration::ZERO,
        }
    }

    fn db(&self) -> Held<'_> {
        // A panic while holding it leaves nothing half-written: SQL is transactional.
        Held::new(
            self.db
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    // Without the `postgres` feature SQLite is the only engine, and the patterns that pick
    // it out cannot fail.
    #[cfg_attr(not(feature = "postgres"), allow(irrefutable_let_patterns))]
    fn migrate_sqlite(&self, purpose: Purpose) -> Result<()> {
        let mut db = self.db();
        let Engine::Sqlite(conn) = &mut *db else {
            unreachable!("an SQLite store")
        };
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| {
                let e = anyhow::Error::new(e);
                self.locked(&e)
                    .or_else(|| self.damaged(&e))
                    .unwrap_or_else(|| {
                        e.context(format!(
                            "`{}` is not a cryptobench store (not an SQLite database)",
                            self.path.display()
                        ))
                    })
            })?;
        if version > SCHEMA_VERSION {
            bail!(
                "`{}` was written by a newer cryptobench (schema {version}, this one knows {SCHEMA_VERSION}); upgrade, or use another {}",
                self.path.display(),
                self.option
            );
        }
        if version == SCHEMA_VERSION {
            // Nothing to write: a store that is read-only to this user can still be read.
            return Ok(());
        }
        if version == 0 {
            let tables: Vec<String> = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
                .map_err(|e| {
                    let e = anyhow::Error::new(e);
                    self.damaged(&e).unwrap_or_else(|| {
                        e.context(format!("cannot read `{}`", self.path.display()))
                    })
                })?;
            // Our own tables without a version: a store whose first write stopped between
            // the two. Only `run` and `import` finish one; a reader leaves a file as it was.
            let half_made = ["runs", "cases", "clusters"]
                .iter()
                .all(|t| tables.iter().any(|have| have == t));
            if !tables.is_empty() && (purpose == Purpose::Read || !half_made) {
                bail!(
                    "`{}` is another program's SQLite database (tables {}), not a cryptobench store; choose another {}",
                    self.path.display(),
                    tables.join(", "),
                    self.option
                );
            }
            if purpose == Purpose::Read {
                bail!(
                    "`{}` is empty, not a cryptobench store: run `cryptobench run` first, or point {} at a store it wrote",
                    self.path.display(),
                    self.option
                );
            }
        }
        // A reader (`report`, `push --from`) upgrades a copy in memory: the file stays as
        // it was, for the older cryptobench that may read it next, and one this user may
        // not write (an archived CI artifact) can still be read.
        if purpose == Purpose::Read {
            let mut copy = rusqlite::Connection::open_in_memory()?;
            copy.restore(
                rusqlite::MAIN_DB,
                &self.path,
                None::<fn(rusqlite::backup::Progress)>,
            )
            .map_err(|e| {
                anyhow::Error::new(e).context(format!("cannot read `{}`", self.path.display()))
            })?;
            *conn = copy;
        }
        // All of it or none: a migration killed half-way leaves the old schema, whole.
        let upgraded = db.transaction(|db| {
            let Engine::Sqlite(conn) = &mut *db else {
                unreachable!("an SQLite store")
            };
            conn.execute_batch(SCHEMA)?;
            // Schema 1 had no clock per process; its runs read as unknown clocks.
            if version == 1 {
                conn.execute_batch("ALTER TABLE clusters ADD COLUMN core_clock REAL")?;
            }
            if (1..=2).contains(&version) {
                migrate::to_schema_3(conn)?;
            }
            let has_uuid = conn
                .prepare("SELECT 1 FROM pragma_table_info('runs') WHERE name = 'uuid'")?
                .exists([])?;
            if !has_uuid {
                migrate::to_schema_5(db)?;
            }
            if version < 6 {
                migrate::to_schema_6(db)?;
            }
            let Engine::Sqlite(conn) = &mut *db else {
                unreachable!("an SQLite store")
            };
            // A store new from SCHEMA has them so already.
            let per_experiment = conn
                .prepare("SELECT 1 FROM pragma_table_info('baselines') WHERE name = 'experiment'")?
                .exists([])?;
            if !per_experiment {
                migrate::to_schema_7(db)?;
            }
            db.batch(INDEXES)?;
            let Engine::Sqlite(conn) = &mut *db else {
                unreachable!("an SQLite store")
            };
            conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            Ok(())
        });
        upgraded
            .map_err(|e| self.locked(&e).unwrap_or(e))
            .with_context(|| {
                format!(
                    "cannot write to the result store `{}`: are it and its directory writable (SQLite writes a journal beside it)?",
                    self.path.display()
                )
            })
    }

    /// The SQLite file, or the server's URL without its password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store is a PostgreSQL database.
    pub fn is_server(&self) -> bool {
        self.db().is_postgres()
    }

    /// SQLite's "database is locked", after [`BUSY_WAIT`], as what it means here.
    fn locked(&self, e: &anyhow::Error) -> Option<anyhow::Error> {
        let e = e.downcast_ref::<rusqlite::Error>()?;
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
    fn damaged(&self, e: &anyhow::Error) -> Option<anyhow::Error> {
        let inner = e.downcast_ref::<rusqlite::Error>()?;
        (inner.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt)).then(|| {
            anyhow::anyhow!(
                "the result store `{}` is damaged (an SQLite database cut short or overwritten in part: {inner}); restore it from a copy, or choose another {}",
                self.path.display(),
                self.option
            )
        })
    }

    /// A failed write or read, naming the store (and the server, when it went away).
    fn failed(&self, e: anyhow::Error, doing: &str) -> anyhow::Error {
        if let Some(locked) = self.locked(&e) {
            return locked;
        }
        if e.is::<crate::exit::Unreachable>() {
            return e;
        }
        #[cfg(feature = "postgres")]
        if let Some(lost) = postgres::lost_connection(&e, &self.path) {
            return lost;
        }
        e.context(format!(
            "cannot {doing} the result store `{}`",
            self.path.display()
        ))
    }

    fn cannot_write(&self, e: anyhow::Error) -> anyhow::Error {
        self.failed(e, "write to")
    }

    fn cannot_read(&self, e: anyhow::Error) -> anyhow::Error {
        self.failed(e, "read")
    }

    /// Start a run; `header.id` is ignored and the new id returned. A header without a
    /// place gets one here: a new UUID and the hardware's default testbed.
    pub fn begin_run(&self, header: &RunHeader) -> Result<i64> {
        let running = with_uuid(RunHeader {
            status: RunStatus::Running,
            finished_at: None,
            ..header.clone()
        });
        self.db()
            .write_once(
                |db| run_by_uuid(db, &running.place.uuid),
                |db| insert_run(db, &running),
            )
            .map_err(|e| self.cannot_write(e))
    }

    /// Mark a run complete and seal its content with a digest.
    pub fn finish_run(&self, run_id: i64, finished_at: &str) -> Result<()> {
        self.db()
            .transaction(|db| {
                db.execute(
                    "UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1",
                    &values![run_id, finished_at],
                )?;
                let digest = raw::RawRun::read(db, run_id)?.digest();
                db.execute(
                    "UPDATE runs SET digest = ?2 WHERE id = ?1",
                    &values![run_id, digest],
                )?;
                Ok(())
            })
            .map_err(|e| self.cannot_write(e))
    }

    /// Record when Ctrl-C or SIGTERM stopped a run before its end. It stays `running`, the one word
    /// every client of a shared store knows for a run not whole; the time tells it from
    /// one still measuring.
    pub fn stop_run(&self, run_id: i64, stopped_at: &str) -> Result<()> {
        self.db()
            .execute(
                "UPDATE runs SET finished_at = ?2 WHERE id = ?1 AND status = 'running'",
                &values![run_id, stopped_at],
            )
            .map(drop)
            .map_err(|e| self.cannot_write(e))
    }

    /// Record a planned case; returns its row id.
    pub fn add_case(&self, run_id: i64, seq: usize, case: &Case) -> Result<i64> {
        let params = serde_json::to_string(&case.params)?;
        let key = case.key();
        self.db()
            .write_once(
                |db| {
                    db.query_one(
                        "SELECT id FROM cases WHERE run_id = ?1 AND case_key = ?2",
                        &values![run_id, key.as_str()],
                    )?
                    .map(|r| r.int(0))
                    .transpose()
                },
                |db| {
                    db.query_one(
                        "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending') RETURNING id",
                        &values![
                            run_id,
                            seq as i64,
                            key.as_str(),
                            case.implementation.as_str(),
                            case.operation.as_str(),
                            params.as_str(),
                            case.bytes().map(|b| b as i64),
                            case.lanes as i64,
                        ],
                    )?
                    .context("no id for the new case")?
                    .int(0)
                },
            )
            .map_err(|e| self.cannot_write(e))
    }

    /// Set a case's status and its message (why it is not `ok`, or notes on its checks),
    /// replacing both.
    pub fn set_status(
        &self,
        case_row: i64,
        status: CaseStatus,
        message: Option<&str>,
    ) -> Result<()> {
        self.db()
            .execute(
                "UPDATE cases SET status = ?2, message = ?3 WHERE id = ?1",
                &values![case_row, status.as_str(), message],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// Append one worker's samples to a case, in one transaction.
    pub fn add_samples(&mut self, case_row: i64, process: usize, samples: &Samples) -> Result<()> {
        self.db()
            .write_once(
                |db| {
                    Ok(db
                        .query_one(
                            "SELECT 1 FROM clusters WHERE case_id = ?1 AND process = ?2",
                            &values![case_row, process as i64],
                        )?
                        .map(|_| ()))
                },
                |db| insert_samples(db, case_row, process, samples),
            )
            .map_err(|e| self.cannot_write(e))
    }

    /// Store a run measured elsewhere, whole or not at all: one transaction, so a bad
    /// file never leaves half a run behind. `header.id` is ignored and the new id returned.
    pub fn import_run(&mut self, header: &RunHeader, cases: &[ImportedCase]) -> Result<i64> {
        let header = &with_uuid(header.clone());
        self.db()
            .write_once(
                |db| run_by_uuid(db, &header.place.uuid),
                |db| insert_imported(db, header, cases),
            )
            .map_err(|e| self.cannot_write(e))
    }

    /// The id of the run stored last, if any: what a command just stored (a run, an
    /// import of results measured hours ago, a push), which `report` with no testbed
    /// shows. A machine's newest run is by start instead ([`Store::resolve_run_on`],
    /// [`Store::latest_complete_runs`]), so that every copy of a store agrees on it.
    pub fn latest_run(&self) -> Result<Option<i64>> {
        self.db()
            .query_one("SELECT max(id) FROM runs", &[])
            .and_then(|r| r.map_or(Ok(None), |r| r.opt_int(0)))
            .map_err(|e| self.cannot_read(e))
    }

    /// The experiment of the newest complete run (started last), where there is one: a
    /// run still measuring, or one interrupted, has not the figures a report across
    /// machines shows.
    pub fn latest_complete_experiment(&self) -> Result<Option<String>> {
        self.db()
            .query_one(
                "SELECT experiment FROM runs WHERE status = 'complete'
                 ORDER BY started_at DESC, id DESC LIMIT 1",
                &[],
            )
            .and_then(|r| r.map(|r| r.text(0)).transpose())
            .map_err(|e| self.cannot_read(e))
    }

    /// Resolve `latest`, a run id, a run's UUID, or a saved baseline name (on whichever
    /// testbed holds it: see [`Store::resolve_run_on`]).
    pub fn resolve_run(&self, spec: &str) -> Result<i64> {
        self.resolve_run_on(spec, None)
    }

    /// Resolve `latest` (of `testbed`, where one is given), a run id, a run's UUID, or the
    /// baseline `spec` of `testbed` (of the only testbed that has one of that name, when
    /// `testbed` is `None`).
    ///
    /// A run named by its id or UUID must be `testbed`'s, where one is given: the two
    /// would otherwise say different things and one of them be silently dropped.
    pub fn resolve_run_on(&self, spec: &str, testbed: Option<&str>) -> Result<i64> {
        let id = self.resolve(
            spec,
            testbed,
            None,
            "save one here, or name that testbed with --testbed",
        )?;
        if let Some(wanted) = testbed {
            let measured_on = self.testbed_of(id)?;
            if measured_on != wanted {
                bail!(
                    "run `{spec}` (run {id}) was measured on testbed `{measured_on}`, not `{wanted}` as --testbed says: drop --testbed, or name a run of `{wanted}`"
                );
            }
        }
        Ok(id)
    }

    /// The testbed that run `id` was measured on.
    fn testbed_of(&self, id: i64) -> Result<String> {
        self.db()
            .query_one(
                "SELECT m.testbed FROM runs r JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1",
                &values![id],
            )
            .and_then(|r| r.map(|r| r.text(0)).transpose())
            .map_err(|e| self.cannot_read(e))?
            .with_context(|| format!("no run {id} in `{}`", self.path.display()))
    }

    /// [`Store::resolve_run_on`] for `run --baseline` of `experiment`, whose `testbed` is
    /// the machine being measured: a baseline saved only on other testbeds is another
    /// machine's, which naming its testbed would only relabel this run as; one saved for
    /// another experiment (another bench target) judges other cases.
    pub fn resolve_baseline_of_run(
        &self,
        spec: &str,
        testbed: &str,
        experiment: &str,
    ) -> Result<i64> {
        self.resolve(
            spec,
            Some(testbed),
            Some(experiment),
            &format!(
                "measure one on this testbed with --save-baseline {spec} (another machine's run is no baseline for this one's cycle counts)"
            ),
        )
    }

    /// Resolve `spec` on `testbed` (a baseline of `experiment`, where one is given);
    /// `elsewhere` is the advice where a baseline of that name is saved on other testbeds
    /// only.
    fn resolve(
        &self,
        spec: &str,
        testbed: Option<&str>,
        experiment: Option<&str>,
        elsewhere: &str,
    ) -> Result<i64> {
        if spec == "latest" {
            let Some(testbed) = testbed else {
                return self.latest_run()?.with_context(|| {
                    format!(
                        "the store `{}` holds no runs yet: run `cryptobench run` first",
                        self.path.display()
                    )
                });
            };
            // On a shared store the newest run is mostly another machine's: `latest` of a
            // testbed is the one measured last there.
            return self
                .db()
                .query_one(
                    "SELECT r.id FROM runs r JOIN machines m ON m.id = r.machine_id
                     WHERE m.testbed = ?1 ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
                    &values![testbed],
                )
                .and_then(|r| r.map(|r| r.int(0)).transpose())
                .map_err(|e| self.cannot_read(e))?
                .with_context(|| {
                    format!(
                        "testbed `{testbed}` has no runs in `{}` (`cryptobench machines` lists the testbeds)",
                        self.path.display()
                    )
                });
        }
        if let Ok(id) = spec.parse::<i64>() {
            let exists = self
                .db()
                .query_one("SELECT id FROM runs WHERE id = ?1", &values![id])
                .map_err(|e| self.cannot_read(e))?;
            return exists.map(|_| id).with_context(|| {
                format!(
                    "no run {id} in `{}`: see `cryptobench history` for the stored runs",
                    self.path.display()
                )
            });
        }
        if uuid::Uuid::parse_str(spec).is_ok()
            && let Some(id) = self.run_by_uuid(spec)?
        {
            return Ok(id);
        }
        let holders = self.baseline_holders(spec)?;
        let on_testbed: Vec<&(String, String, i64)> = (holders.iter())
            .filter(|(t, _, _)| testbed.is_none_or(|want| want == t))
            .collect();
        let chosen: Vec<&&(String, String, i64)> = (on_testbed.iter())
            .filter(|(_, e, _)| experiment.is_none_or(|want| want == e))
            .collect();
        let listed = |of: &[&(String, String, i64)], part: fn(&(String, String, i64)) -> String| {
            of.iter().map(|h| part(h)).collect::<Vec<_>>().join(", ")
        };
        let mut testbeds: Vec<&str> = chosen.iter().map(|(t, _, _)| t.as_str()).collect();
        testbeds.dedup();
        match (chosen.as_slice(), testbeds.len()) {
            ([(_, _, id)], _) => return Ok(*id),
            ([], _) => {}
            (_, 1) => bail!(
                // Several experiments (bench targets) each keep a baseline of that name.
                "baseline `{spec}` of testbed `{}` is saved for {} experiments in `{}` ({}): name the run by its id",
                testbeds[0],
                chosen.len(),
                self.path.display(),
                listed(&on_testbed, |(_, e, id)| format!("`{e}`: run {id}"))
            ),
            (_, n) => bail!(
                "baseline `{spec}` is saved on {n} testbeds ({}) in `{}`: name one with --testbed",
                testbeds.join(", "),
                self.path.display()
            ),
        }
        if let (Some(t), Some(e)) = (testbed, experiment)
            && !on_testbed.is_empty()
        {
            bail!(
                "no baseline `{spec}` of experiment `{e}` on testbed `{t}` in `{}` (baselines are per experiment, a bench target's its own; `{spec}` is saved for {}): save one for `{e}` with --save-baseline {spec}, or name a run by its id",
                self.path.display(),
                listed(&on_testbed, |(_, e, _)| format!("`{e}`"))
            );
        }
        if let Some(t) = testbed
            && !holders.is_empty()
        {
            let mut elsewhere_testbeds: Vec<&str> =
                holders.iter().map(|(t, _, _)| t.as_str()).collect();
            elsewhere_testbeds.dedup();
            bail!(
                "no baseline `{spec}` on testbed `{t}` in `{}` (baselines are per testbed; it is saved on {}): {elsewhere}",
                self.path.display(),
                elsewhere_testbeds.join(", ")
            );
        }
        bail!(
            "`{spec}` is neither a run id, `latest`, a run's UUID, nor a saved baseline in `{}`",
            self.path.display()
        )
    }

    /// The run with UUID `uuid`, if this store holds it.
    pub fn run_by_uuid(&self, uuid: &str) -> Result<Option<i64>> {
        self.db()
            .again(|db, _| run_by_uuid(db, uuid))
            .map_err(|e| self.cannot_read(e))
    }

    /// The UUID of run `run_id`, if this store holds that run.
    pub fn uuid_of_run(&self, run_id: i64) -> Result<Option<String>> {
        self.db()
            .query_one("SELECT uuid FROM runs WHERE id = ?1", &values![run_id])
            .and_then(|r| r.map(|r| r.opt_text(0)).transpose())
            .map(Option::flatten)
            .map_err(|e| self.cannot_read(e))
    }

    /// Store `implementation`'s static estimate with run `run_id`, replacing one already
    /// there.
    pub fn add_estimate(&self, run_id: i64, implementation: &str, e: &Estimate) -> Result<()> {
        self.db()
            .execute(
                "INSERT INTO estimates (run_id, implementation, cycles, model, note) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (run_id, implementation) DO UPDATE SET cycles = excluded.cycles, model = excluded.model, note = excluded.note",
                &values![run_id, implementation, e.cycles, e.model.as_str(), e.note.clone()],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// Static estimates stored with a run, by implementation.
    pub fn estimates(&self, run_id: i64) -> Result<std::collections::BTreeMap<String, Estimate>> {
        let rows = self
            .db()
            .query(
                "SELECT implementation, cycles, model, note FROM estimates WHERE run_id = ?1",
                &values![run_id],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.text(0)?,
                    Estimate {
                        cycles: r.opt_real(1)?,
                        model: r.text(2)?,
                        note: r.opt_text(3)?,
                        // In the run's options, which the analysis reads them from.
                        function: None,
                        operation: None,
                    },
                ))
            })
            .collect()
    }

    /// Every stored process's canary readings of canary `kind` in complete runs of the
    /// machine `testbed` with hardware `fingerprint` that counted with `counter`, by run:
    /// what the host's states have looked like on this machine (as every other check
    /// across runs, by machine, not by CPU model: one model's machines differ). Readings
    /// are in their run's counter: a `tsc` run's reference cycles and a `tsc-core` run's
    /// core cycles of one state differ by the core's clock.
    pub fn canary_readings(
        &self,
        kind: &str,
        testbed: &str,
        fingerprint: &str,
        counter: &str,
    ) -> Result<std::collections::BTreeMap<i64, Vec<Vec<f64>>>> {
        let rows = self
            .db()
            .query(
                "SELECT c.run_id, k.readings FROM canaries k
                 JOIN cases c ON c.id = k.case_id JOIN runs r ON r.id = c.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE k.kind = ?1 AND m.testbed = ?2 AND m.fingerprint = ?3 AND r.counter = ?4
                 AND r.status = 'complete'",
                &values![kind, testbed, fingerprint, counter],
            )
            .map_err(|e| self.cannot_read(e))?;
        let mut by_run: std::collections::BTreeMap<i64, Vec<Vec<f64>>> = Default::default();
        for row in rows {
            let run = row.int(0)?;
            by_run
                .entry(run)
                .or_default()
                .push(decode_samples(&row.blob(1)?, run)?.collect());
        }
        Ok(by_run)
    }

    /// Save run `run_id` as baseline `name` of the run's testbed and experiment.
    pub fn save_baseline(&self, name: &str, run_id: i64) -> Result<()> {
        self.db()
            .execute(
                "INSERT INTO baselines (testbed, experiment, name, run_id)
                 SELECT m.testbed, r.experiment, ?1, r.id FROM runs r JOIN machines m ON m.id = r.machine_id WHERE r.id = ?2
                 ON CONFLICT (testbed, experiment, name) DO UPDATE SET run_id = excluded.run_id",
                &values![name, run_id],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// The run saved as baseline `name` of `experiment` on `testbed`.
    pub fn baseline(&self, name: &str, testbed: &str, experiment: &str) -> Result<Option<i64>> {
        self.db()
            .query_one(
                "SELECT run_id FROM baselines WHERE name = ?1 AND testbed = ?2 AND experiment = ?3",
                &values![name, testbed, experiment],
            )
            .and_then(|r| r.map(|r| r.int(0)).transpose())
            .map_err(|e| self.cannot_read(e))
    }

    /// Every baseline: (testbed, name, its run's UUID), by testbed and name.
    pub fn baselines(&self) -> Result<Vec<(String, String, String)>> {
        let rows = self
            .db()
            .query(
                "SELECT b.testbed, b.name, r.uuid FROM baselines b JOIN runs r ON r.id = b.run_id
                 ORDER BY b.testbed, b.name",
                &[],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.text(2)?)))
            .collect()
    }

    /// Take in baseline `name` of `testbed` from another store, naming the run with UUID
    /// `uuid`, which this store must hold complete (the baseline is of that run's
    /// experiment). Where this store already has a baseline of that name on that testbed
    /// for that experiment, the run that started later stays it: a
    /// store pushed late does not take a baseline back to an older run. Nor does a later
    /// run that lacks cases of this store's baseline take it: the source's checks were
    /// made against the source's baseline, not this one. Nor does a run with `faults`
    /// (this store's other checks of a baseline, made by the caller against its runs).
    pub fn receive_baseline(
        &self,
        testbed: &str,
        name: &str,
        uuid: &str,
        faults: &[String],
    ) -> Result<BaselineReceived> {
        self.db()
            .transaction(|db| {
                let ours = db
                    .query_one(
                        "SELECT id, started_at FROM runs WHERE uuid = ?1 AND status = 'complete'",
                        &values![uuid],
                    )?
                    .with_context(|| format!("run {uuid} is not complete here"))?;
                let (run_id, started) = (ours.int(0)?, ours.text(1)?);
                let theirs = db.query_one(
                    "SELECT r.id, r.started_at, r.uuid FROM baselines b JOIN runs r ON r.id = b.run_id
                     WHERE b.testbed = ?1 AND b.name = ?2
                     AND b.experiment = (SELECT experiment FROM runs WHERE id = ?3)",
                    &values![testbed, name, run_id],
                )?;
                if let Some(row) = &theirs {
                    if row.int(0)? == run_id {
                        return Ok(BaselineReceived::AlreadyThere);
                    }
                    let (their_start, their_uuid) = (row.text(1)?, row.text(2)?);
                    if (their_start.as_str(), their_uuid.as_str()) > (started.as_str(), uuid) {
                        return Ok(BaselineReceived::KeptNewer(their_uuid));
                    }
                    let their_id = row.int(0)?;
                    let left_out = db
                        .query(
                            "SELECT case_key FROM cases WHERE run_id = ?1
                             AND case_key NOT IN (SELECT case_key FROM cases WHERE run_id = ?2)
                             ORDER BY seq",
                            &values![their_id, run_id],
                        )?
                        .iter()
                        .map(|r| r.text(0))
                        .collect::<Result<Vec<String>>>()?;
                    if !left_out.is_empty() {
                        return Ok(BaselineReceived::KeptWider {
                            run: their_id,
                            uuid: their_uuid,
                            left_out,
                        });
                    }
                }
                if !faults.is_empty() {
                    let kept = match &theirs {
                        Some(row) => Some((row.int(0)?, row.text(2)?)),
                        None => None,
                    };
                    return Ok(BaselineReceived::KeptUnfit {
                        kept,
                        faults: faults.to_vec(),
                    });
                }
                db.execute(
                    "INSERT INTO baselines (testbed, experiment, name, run_id)
                     SELECT ?1, experiment, ?2, id FROM runs WHERE id = ?3
                     ON CONFLICT (testbed, experiment, name) DO UPDATE SET run_id = excluded.run_id",
                    &values![testbed, name, run_id],
                )?;
                Ok(BaselineReceived::Set)
            })
            .map_err(|e| self.cannot_write(e))
    }

    /// Every baseline `name`: (testbed, experiment, run), by testbed and experiment.
    fn baseline_holders(&self, name: &str) -> Result<Vec<(String, String, i64)>> {
        let rows = self
            .db()
            .query(
                "SELECT testbed, experiment, run_id FROM baselines WHERE name = ?1
                 ORDER BY testbed, experiment",
                &values![name],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.int(2)?)))
            .collect()
    }

    /// Run `run_id`'s figures of form `version`, if stored.
    pub fn figures(&self, run_id: i64, version: i64) -> Result<Option<String>> {
        self.db()
            .query_one(
                "SELECT json FROM figures WHERE run_id = ?1 AND version = ?2",
                &values![run_id, version],
            )
            .and_then(|r| r.map(|r| r.text(0)).transpose())
            .map_err(|e| self.cannot_read(e))
    }

    /// Keep run `run_id`'s figures beside it (see `analysis::fleet::RunFigures`).
    pub fn save_figures(&self, run_id: i64, version: i64, json: &str) -> Result<()> {
        self.db()
            .execute(
                "INSERT INTO figures (run_id, version, json) VALUES (?1, ?2, ?3)
                 ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, json = excluded.json",
                &values![run_id, version, json],
            )
            .map_err(|e| self.cannot_write(e))?;
        Ok(())
    }

    /// The fingerprints a testbed has been seen with, and their CPUs, oldest first.
    pub fn testbed_fingerprints(&self, testbed: &str) -> Result<Vec<(String, String)>> {
        let rows = self
            .db()
            .query(
                "SELECT fingerprint, cpu_model FROM machines WHERE testbed = ?1 ORDER BY id",
                &values![testbed],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter().map(|r| Ok((r.text(0)?, r.text(1)?))).collect()
    }

    /// Every machine, by testbed, with its number of runs and its newest run.
    pub fn machines(&self) -> Result<Vec<MachineRow>> {
        let rows = self
            .db()
            .query(
                "SELECT m.testbed, m.fingerprint, m.cpu_model, m.first_seen,
                        (SELECT count(*) FROM runs r WHERE r.machine_id = m.id),
                        (SELECT r.started_at FROM runs r WHERE r.machine_id = m.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1),
                        (SELECT r.counter FROM runs r WHERE r.machine_id = m.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1),
                        (SELECT count(*) FROM runs r WHERE r.machine_id = m.id AND r.status = 'complete'),
                        (SELECT r.status FROM runs r WHERE r.machine_id = m.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1)
                 FROM machines m ORDER BY m.testbed, m.id",
                &[],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter()
            .map(|r| {
                Ok(MachineRow {
                    testbed: r.text(0)?,
                    fingerprint: r.text(1)?,
                    cpu_model: r.text(2)?,
                    first_seen: r.text(3)?,
                    runs: r.int(4)?,
                    complete_runs: r.int(7)?,
                    last_run: r.opt_text(5)?.zip(r.opt_text(6)?),
                    last_run_complete: r.opt_text(8)?.is_some_and(|s| s == "complete"),
                })
            })
            .collect()
    }

    /// Each machine's (testbed and fingerprint's) run of `experiment` for a report across
    /// machines, by testbed: its newest complete run of the experiment's whole plan, or,
    /// where it has none, its newest complete partial one (see [`RunOptions::partial`]):
    /// a later run of a few sizes would otherwise hide the rows an earlier whole one has.
    /// Only runs at git revision `revision` (see `names_revision`) where one is given.
    /// Newest by start (`started_at`, then row id), so that a run pushed late does not
    /// displace a later one.
    ///
    /// [`RunOptions::partial`]: crate::record::RunOptions::partial
    pub fn latest_complete_runs(
        &self,
        experiment: &str,
        revision: Option<&str>,
    ) -> Result<Vec<MachineRun>> {
        // Every complete run of the experiment, each machine's newest first; the revision
        // is matched here, not by SQL's LIKE, whose wildcards and case differ by engine.
        let rows = self
            .db()
            .query(
                "SELECT m.testbed, m.fingerprint, r.id, r.git_revision, r.options_json
                 FROM runs r JOIN machines m ON m.id = r.machine_id
                 WHERE r.experiment = ?1 AND r.status = 'complete'
                 ORDER BY m.testbed, m.fingerprint, r.started_at DESC, r.id DESC",
                &values![experiment],
            )
            .map_err(|e| self.cannot_read(e))?;
        let mut latest: Vec<MachineRun> = Vec::new();
        // Whether the machine last pushed has its whole run already.
        let mut whole_found = false;
        for r in &rows {
            let (testbed, fingerprint) = (r.text(0)?, r.text(1)?);
            let stored = r.opt_text(3)?;
            if !revision
                .is_none_or(|asked| stored.is_some_and(|stored| names_revision(asked, &stored)))
            {
                continue;
            }
            let same_machine = latest
                .last()
                .is_some_and(|m| m.testbed == testbed && m.fingerprint == fingerprint);
            if same_machine && whole_found {
                continue;
            }
            // Options this version cannot read leave the run as whole as it was taken
            // before: its column then says why it cannot be read.
            let partial = match serde_json::from_str(&r.text(4)?) {
                Ok(RunOrigin::Measured { run, .. }) => run.partial(),
                _ => None,
            };
            let run = MachineRun {
                testbed,
                fingerprint,
                run: r.int(2)?,
                partial,
            };
            whole_found = run.partial.is_none();
            match latest.last_mut() {
                // An older whole run over the newest partial one.
                Some(last) if same_machine => {
                    if whole_found {
                        *last = run;
                    }
                }
                _ => latest.push(run),
            }
        }
        Ok(latest)
    }

    /// Run `run_id` with every case and its samples; an error where there is no such run.
    pub fn load_run(&self, run_id: i64) -> Result<StoredRun> {
        self.load_run_where(run_id, |_| true)
    }

    /// The keys of run `run_id`'s cases, in the order they were planned (no samples read).
    pub fn case_keys(&self, run_id: i64) -> Result<Vec<String>> {
        let rows = self
            .db()
            .query(
                "SELECT case_key FROM cases WHERE run_id = ?1 ORDER BY seq",
                &values![run_id],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter().map(|r| r.text(0)).collect()
    }

    /// A run with only the cases whose key `keep` accepts; the others' samples are not read.
    pub fn load_run_where(&self, run_id: i64, keep: impl Fn(&str) -> bool) -> Result<StoredRun> {
        let mut db = self.db();
        let header = db
            .query_one(
                "SELECT r.id, r.started_at, r.finished_at, r.status, r.experiment, r.tool_version, r.git_revision, r.counter, r.unit, r.tsc_hz, r.cpu_model, r.machine_json, r.options_json,
                        r.uuid, m.testbed, m.fingerprint, r.ci_json
                 FROM runs r LEFT JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1",
                &values![run_id],
            )
            .map_err(|e| self.cannot_read(e))?
            .with_context(|| format!("no run {run_id} in `{}`", self.path.display()))?;
        let header = decode_header(&header)
            .with_context(|| format!("run {run_id} in `{}`", self.path.display()))?;

        // A damaged row names its run and store, as the header's errors do.
        let mut read_cases = || -> Result<Vec<StoredCase>> {
            let rows = db
                .query(
                    "SELECT id, case_key, implementation, operation, params_json, bytes, status, message, calls_per_sample, overhead, lanes
                     FROM cases WHERE run_id = ?1 ORDER BY seq",
                    &values![run_id],
                )
                .map_err(|e| self.cannot_read(e))?;
            let mut cases = Vec::new();
            for r in rows {
                let id = r.int(0)?;
                let key = r.text(1)?;
                if !keep(&key) {
                    continue;
                }
                let (processes, per_process) = samples_per_process(&mut db, id)?;
                let canary = canaries(&mut db, id, &processes)?;
                cases.push(StoredCase {
                    row: id,
                    key,
                    implementation: r.text(2)?,
                    operation: r.text(3)?,
                    params: decode_params(&r.text(4)?)?,
                    bytes: r.opt_int(5)?.map(|b| b as u64),
                    lanes: r.int(10)?.max(1) as usize,
                    status: CaseStatus::parse(&r.text(6)?)?,
                    message: r.opt_text(7)?,
                    calls_per_sample: r.opt_int(8)?.map(|c| c as u64),
                    overhead: r.opt_real(9)?,
                    per_process,
                    core_clocks: core_clocks(&mut db, id)?,
                    canary,
                });
            }
            Ok(cases)
        };
        let cases =
            read_cases().with_context(|| format!("run {run_id} in `{}`", self.path.display()))?;
        Ok(StoredRun { header, cases })
    }

    /// All runs, oldest first: by start (`started_at`, then row id).
    pub fn runs(&self) -> Result<Vec<i64>> {
        let rows = self
            .db()
            .query("SELECT id FROM runs ORDER BY started_at, id", &[])
            .map_err(|e| self.cannot_read(e))?;
        rows.iter().map(|r| r.int(0)).collect()
    }

    /// The complete runs, oldest first, with their UUIDs: what a push copies.
    pub fn complete_runs(&self) -> Result<Vec<(i64, String)>> {
        let rows = self
            .db()
            .query(
                "SELECT id, uuid FROM runs WHERE status = 'complete' ORDER BY id",
                &[],
            )
            .map_err(|e| self.cannot_read(e))?;
        rows.iter().map(|r| Ok((r.int(0)?, r.text(1)?))).collect()
    }
}

/// A case's samples, one cluster per worker process (its layouts together): the
/// process is the unit that is independent of the others (each has its own start,
/// warm-up and moment in the run); samples within one process are not.
/// With the processes' numbers, in the same order.
/// Whether `--revision asked` names a run at git revision `stored`: that revision exactly,
/// or a commit whose hash begins with `asked`'s hex digits (in either case). A `-dirty`
/// revision, code that differs from its commit, is named only with its `-dirty`.
fn names_revision(asked: &str, stored: &str) -> bool {
    fn split(r: &str) -> (&str, bool) {
        r.strip_suffix("-dirty")
            .map_or((r, false), |hash| (hash, true))
    }
    let ((asked_hash, asked_dirty), (stored_hash, stored_dirty)) = (split(asked), split(stored));
    let hex = |h: &str| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit());
    asked == stored
        || (asked_dirty == stored_dirty
            && hex(asked_hash)
            && hex(stored_hash)
            && stored_hash
                .get(..asked_hash.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(asked_hash)))
}

fn samples_per_process(db: &mut Engine, case_row: i64) -> Result<(Vec<i64>, Vec<Vec<f64>>)> {
    let rows = db.query(
        "SELECT process, samples FROM clusters WHERE case_id = ?1 ORDER BY process, layout",
        &values![case_row],
    )?;
    let mut out: Vec<Vec<f64>> = Vec::new();
    let mut processes = Vec::new();
    for row in rows {
        let process = row.int(0)?;
        let blob = row.blob(1)?;
        let samples = decode_samples(&blob, case_row)?;
        if processes.last() != Some(&process) {
            out.push(Vec::new());
            processes.push(process);
        }
        out.last_mut().expect("pushed above").extend(samples);
    }
    Ok((processes, out))
}

/// The canary readings of each of `processes` of a case, in that order.
fn canaries(
    db: &mut Engine,
    case_row: i64,
    processes: &[i64],
) -> Result<Vec<Option<CanaryReadings>>> {
    let rows = db.query(
        "SELECT process, kind, readings FROM canaries WHERE case_id = ?1",
        &values![case_row],
    )?;
    let mut by_process = std::collections::BTreeMap::new();
    for row in rows {
        let readings = decode_samples(&row.blob(2)?, case_row)?.collect();
        by_process.insert(
            row.int(0)?,
            CanaryReadings {
                kind: row.text(1)?,
                readings,
            },
        );
    }
    Ok(processes.iter().map(|p| by_process.remove(p)).collect())
}

fn core_clocks(db: &mut Engine, case_row: i64) -> Result<Vec<f64>> {
    let rows = db.query(
        "SELECT MIN(core_clock) FROM clusters WHERE case_id = ?1 AND core_clock IS NOT NULL
         GROUP BY process ORDER BY process",
        &values![case_row],
    )?;
    rows.iter()
        .map(|r| r.opt_real(0)?.context("a core clock"))
        .collect()
}

/// A run's header from the columns `load_run_where` selects.
fn decode_header(r: &Row) -> Result<RunHeader> {
    let mut header = RunRow {
        id: r.int(0)?,
        started_at: r.text(1)?,
        finished_at: r.opt_text(2)?,
        status: r.text(3)?,
        experiment: r.text(4)?,
        tool_version: r.text(5)?,
        git_revision: r.opt_text(6)?,
        counter: r.text(7)?,
        unit: r.text(8)?,
        tsc_hz: r.opt_real(9)?,
        cpu_model: r.text(10)?,
        machine_json: r.text(11)?,
        options_json: r.text(12)?,
    }
    .decode()?;
    header.place = RunPlace {
        uuid: r.opt_text(13)?.unwrap_or_default(),
        testbed: r.opt_text(14)?.unwrap_or_default(),
        fingerprint: r.opt_text(15)?.unwrap_or_default(),
        ci: r
            .opt_text(16)?
            .map(|j| serde_json::from_str::<CiOrigin>(&j))
            .transpose()
            .context("corrupt CI origin in the store")?,
    };
    Ok(header)
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
            place: RunPlace::default(),
        })
    }
}

/// A case's parameters as stored (`params_json`).
#[doc(hidden)]
pub fn decode_params(params_json: &str) -> Result<Params> {
    serde_json::from_str(params_json).context("corrupt case parameters in the store")
}

/// One worker's samples of case `case_row`, its canary's readings, and the case marked
/// measured.
fn insert_samples(db: &mut Engine, case_row: i64, process: usize, samples: &Samples) -> Result<()> {
    let clusters: Vec<Vec<Value>> = samples
        .per_layout
        .iter()
        .enumerate()
        .map(|(layout, cluster)| {
            values![
                case_row,
                process as i64,
                layout as i64,
                encode_samples(cluster),
                samples.core_clock
            ]
            .to_vec()
        })
        .collect();
    raw::insert_rows(
        db,
        "clusters (case_id, process, layout, samples, core_clock)",
        &clusters,
    )?;
    if let Some(canary) = &samples.canary {
        db.execute(
            "INSERT INTO canaries (case_id, process, kind, readings) VALUES (?1, ?2, ?3, ?4)",
            &values![
                case_row,
                process as i64,
                canary.kind.as_str(),
                encode_samples(&canary.readings)
            ],
        )?;
    }
    raw::pause_for_test("samples");
    db.execute(
        "UPDATE cases SET status = 'ok', calls_per_sample = ?2, overhead = ?3 WHERE id = ?1",
        &values![
            case_row,
            samples.calls_per_sample as i64,
            samples.calibration.overhead
        ],
    )?;
    Ok(())
}

/// A run measured elsewhere, its cases and their series, as `import` stores it.
fn insert_imported(db: &mut Engine, header: &RunHeader, cases: &[ImportedCase]) -> Result<i64> {
    let run_id = insert_run(db, header)?;
    for (seq, c) in cases.iter().enumerate() {
        let case_row = db
            .query_one(
                "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'ok', ?9, ?10) RETURNING id",
                &values![
                    run_id,
                    seq as i64,
                    c.case.key(),
                    c.case.implementation.as_str(),
                    c.case.operation.as_str(),
                    serde_json::to_string(&c.case.params)?,
                    c.case.bytes().map(|b| b as i64),
                    c.case.lanes as i64,
                    c.message.clone(),
                    c.calls_per_sample.map(|n| n as i64),
                ],
            )
            .and_then(|r| r.context("no id for the new case")?.int(0))
            .with_context(|| format!("cannot store case `{}`", c.case.key()))?;
        // Each independent series is stored as a process of its own: processes
        // are what the statistics resample.
        let clusters: Vec<Vec<Value>> = c
            .per_process
            .iter()
            .enumerate()
            .map(|(process, cluster)| {
                values![case_row, process as i64, 0i64, encode_samples(cluster)].to_vec()
            })
            .collect();
        raw::insert_rows(
            db,
            "clusters (case_id, process, layout, samples)",
            &clusters,
        )?;
    }
    if header.status == RunStatus::Complete {
        let digest = raw::RawRun::read(db, run_id)?.digest();
        db.execute(
            "UPDATE runs SET digest = ?2 WHERE id = ?1",
            &values![run_id, digest],
        )?;
    }
    Ok(run_id)
}

fn run_by_uuid(db: &mut Engine, uuid: &str) -> Result<Option<i64>> {
    db.query_one("SELECT id FROM runs WHERE uuid = ?1", &values![uuid])?
        .map(|r| r.int(0))
        .transpose()
}

/// The machine row of `testbed` and `fingerprint`, made if it is new; its id.
fn machine_id(
    db: &mut Engine,
    testbed: &str,
    fingerprint: &str,
    cpu_model: &str,
    seen: &str,
) -> Result<i64> {
    // Two writers meeting a new machine at once: one inserts, the other finds it.
    db.execute(
        "INSERT INTO machines (testbed, fingerprint, cpu_model, first_seen) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (testbed, fingerprint) DO NOTHING",
        &values![testbed, fingerprint, cpu_model, seen],
    )?;
    db.query_one(
        "SELECT id FROM machines WHERE testbed = ?1 AND fingerprint = ?2",
        &values![testbed, fingerprint],
    )?
    .context("the machine just stored")?
    .int(0)
}

/// `header` with a UUID: its own, else a new one. Chosen before a run's row is written,
/// not as it is: the UUID is what finds the row again after a lost connection.
fn with_uuid(mut header: RunHeader) -> RunHeader {
    if header.place.uuid.is_empty() {
        header.place.uuid = uuid::Uuid::new_v4().to_string();
    }
    header
}

/// Insert `header` as a new run (its `id` ignored), with its machine; returns the new
/// id. `header` carries its UUID ([`with_uuid`]); a fingerprint or testbed left empty
/// is the hardware's. A complete run is sealed with its digest by the caller, once its
/// cases are in.
fn insert_run(db: &mut Engine, header: &RunHeader) -> Result<i64> {
    let place = &header.place;
    let fingerprint_now = fingerprint(&header.machine, &header.cpu_model);
    let fingerprint = if place.fingerprint.is_empty() {
        fingerprint_now.as_str()
    } else {
        place.fingerprint.as_str()
    };
    let testbed = if place.testbed.is_empty() {
        default_testbed(&header.machine, &header.cpu_model)
    } else {
        place.testbed.clone()
    };
    let machine = machine_id(
        db,
        &testbed,
        fingerprint,
        &header.cpu_model,
        &header.started_at,
    )?;
    db.query_one(
        "INSERT INTO runs (started_at, finished_at, status, experiment, tool_version, git_revision, counter, unit, tsc_hz, cpu_model, machine_json, options_json, uuid, machine_id, ci_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) RETURNING id",
        &values![
            header.started_at.as_str(),
            header.finished_at.clone(),
            header.status.as_str(),
            header.experiment.as_str(),
            header.tool_version.as_str(),
            header.git_revision.clone(),
            header.counter.to_string(),
            header.unit.as_str(),
            header.tsc_hz,
            header.cpu_model.as_str(),
            serde_json::to_string(&header.machine)?,
            serde_json::to_string(&header.options)?,
            place.uuid.as_str(),
            machine,
            place.ci.as_ref().map(serde_json::to_string).transpose()?,
        ],
    )?
    .context("no id for the new run")?
    .int(0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::counter::Calibration;
    use crate::record::{
        ImportedCounter, ImportedFrom, MachineRecord, Params, RunOrigin, UnrecordedMachine,
    };
    use Samples;
    use rusqlite::{Connection, params};

    /// Schema 4 as it was written, frozen: older schemas are made from it.
    const SCHEMA_4: &str = "
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

    /// A run stored as schemas 1 to 4 stored one (no UUID, machine or digest).
    fn insert_old_run(conn: &Connection, header: &RunHeader) -> i64 {
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
                header.machine.untagged().to_string(),
                serde_json::to_string(&header.options).unwrap(),
            ],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

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
            place: RunPlace::default(),
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

    /// A run pushed late from another store (a higher row id, an earlier start) is not
    /// its machine's newest: each machine's newest run and the runs' order go by start;
    /// `latest` of no testbed is what was stored last.
    #[test]
    fn the_newest_run_is_the_one_that_started_last_not_the_one_stored_last() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let run = |testbed: &str, started_at: &str| {
            let header = RunHeader {
                started_at: started_at.into(),
                place: RunPlace {
                    testbed: testbed.into(),
                    fingerprint: format!("fp-{testbed}"),
                    ..RunPlace::default()
                },
                ..header()
            };
            let id = store.begin_run(&header).unwrap();
            store.finish_run(id, started_at).unwrap();
            id
        };
        let a_new = run("a", "2026-11-22T11:00:00Z");
        let b = run("b", "2026-11-22T12:00:00Z");
        let a_old = run("a", "2026-11-22T10:00:00Z");
        assert_eq!(store.latest_run().unwrap(), Some(a_old));
        assert_eq!(store.runs().unwrap(), vec![a_old, a_new, b]);
        assert_eq!(
            store
                .latest_complete_runs("test", None)
                .unwrap()
                .into_iter()
                .map(|m| (m.testbed, m.fingerprint, m.run))
                .collect::<Vec<_>>(),
            vec![
                ("a".into(), "fp-a".into(), a_new),
                ("b".into(), "fp-b".into(), b)
            ]
        );
        let machines = store.machines().unwrap();
        assert_eq!(
            machines[0].last_run.as_ref().map(|(at, _)| at.as_str()),
            Some("2026-11-22T11:00:00Z")
        );
        assert_eq!(store.resolve_run_on("latest", Some("a")).unwrap(), a_new);
        // A run named by id is taken on its own testbed, and refused on another.
        assert_eq!(store.resolve_run_on(&b.to_string(), Some("b")).unwrap(), b);
        let said = store
            .resolve_run_on(&b.to_string(), Some("a"))
            .unwrap_err()
            .to_string();
        assert!(
            said.starts_with(&format!(
                "run `{b}` (run {b}) was measured on testbed `b`, not `a` as --testbed says"
            )),
            "{said}"
        );
    }

    /// A machine's column across machines was its newest complete run even where that
    /// run measured a few sizes only, and lost the rows of an earlier whole run. A whole
    /// run is taken over a later partial one, and a partial one only where there is none
    /// (a run recorded before `narrowed` was is read as partial from its `--sizes`).
    #[test]
    fn a_machine_s_whole_run_is_taken_over_a_later_partial_one() {
        use crate::record::{
            AnalysisOptions, AnalysisSpec, Remeasure, RunOptions, SamplePlan, VerdictOptions,
        };
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let run = |testbed: &str, started_at: &str, narrowed: Option<&str>, argv: &[&str]| {
            let header = RunHeader {
                started_at: started_at.into(),
                place: RunPlace {
                    testbed: testbed.into(),
                    fingerprint: format!("fp-{testbed}"),
                    ..RunPlace::default()
                },
                options: RunOrigin::Measured {
                    run: RunOptions {
                        counter: crate::counter::CounterKind::TscCore,
                        cpu: None,
                        processes: 4,
                        layouts: 1,
                        plan: SamplePlan::default(),
                        timeout: std::time::Duration::from_secs(1),
                        seed: 1,
                        remeasure: Remeasure::OFF,
                        no_canary: true,
                        command_line: argv.iter().map(|a| a.to_string()).collect(),
                        bench_target: None,
                        c_builds: vec![],
                        narrowed: narrowed.map(String::from),
                    },
                    analysis: AnalysisOptions {
                        spec: AnalysisSpec::default(),
                        verdict: VerdictOptions::DEFAULT,
                        baseline_run: None,
                        baseline_uuid: None,
                        force: false,
                    },
                },
                ..header()
            };
            let id = store.begin_run(&header).unwrap();
            store.finish_run(id, started_at).unwrap();
            id
        };
        let whole = run("a", "2026-11-22T10:00:00Z", None, &[]);
        run("a", "2026-11-22T11:00:00Z", Some("--sizes 64"), &[]);
        run("b", "2026-11-22T10:00:00Z", Some("--sizes 64"), &[]);
        let newest_partial = run("b", "2026-11-22T11:00:00Z", Some("--sizes 1024"), &[]);
        let old_whole = run("c", "2026-11-22T09:00:00Z", None, &["cryptobench", "run"]);
        let old_partial = ["cryptobench", "run", "--sizes=64"];
        run("c", "2026-11-22T10:00:00Z", None, &old_partial);
        assert_eq!(
            store.latest_complete_runs("test", None).unwrap(),
            vec![
                MachineRun {
                    testbed: "a".into(),
                    fingerprint: "fp-a".into(),
                    run: whole,
                    partial: None
                },
                MachineRun {
                    testbed: "b".into(),
                    fingerprint: "fp-b".into(),
                    run: newest_partial,
                    partial: Some("--sizes 1024".into())
                },
                MachineRun {
                    testbed: "c".into(),
                    fingerprint: "fp-c".into(),
                    run: old_whole,
                    partial: None
                },
            ]
        );
    }

    /// `--revision R` was SQL `LIKE 'R%'`: a newer `R-dirty` run (code that differs from
    /// R) displaced R's own, `_` and `%` in R were wildcards, and SQLite's LIKE ignored
    /// case where PostgreSQL's does not. It names R exactly, or the commits whose hash
    /// begins with R's hex digits.
    #[test]
    fn a_revision_is_matched_exactly_or_as_a_hex_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let run = |revision: &str, started_at: &str| {
            let header = RunHeader {
                started_at: started_at.into(),
                git_revision: Some(revision.into()),
                place: RunPlace {
                    testbed: "a".into(),
                    fingerprint: "fp-a".into(),
                    ..RunPlace::default()
                },
                ..header()
            };
            let id = store.begin_run(&header).unwrap();
            store.finish_run(id, started_at).unwrap();
            id
        };
        let clean = run("233f37c750f1", "2026-11-22T10:00:00Z");
        let dirty = run("233f37c750f1-dirty", "2026-11-22T11:00:00Z");
        let other = run("2a3f00000000", "2026-11-22T09:00:00Z");
        let picked = |revision: &str| -> Vec<i64> {
            store
                .latest_complete_runs("test", Some(revision))
                .unwrap()
                .into_iter()
                .map(|m| m.run)
                .collect()
        };
        assert_eq!(picked("233f37c"), [clean]);
        assert_eq!(picked("233f37c750f1"), [clean]);
        assert_eq!(picked("233F37C"), [clean]);
        assert_eq!(picked("233f37c750f1-dirty"), [dirty]);
        assert_eq!(picked("233f37c-dirty"), [dirty]);
        assert_eq!(picked("2a3f"), [other]);
        assert!(picked("2_3f").is_empty());
        assert!(picked("%").is_empty());
        assert!(picked("233f37c750f1-").is_empty());
    }

    /// Ctrl-C writes down when a run stopped; the run stays `running`, and a run already
    /// complete keeps the time it ended.
    #[test]
    fn a_stopped_run_keeps_its_status_and_says_when_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let stopped = store.begin_run(&header()).unwrap();
        let measuring = store.begin_run(&header()).unwrap();
        let complete = store.begin_run(&header()).unwrap();
        store.finish_run(complete, "2026-11-29T10:00:00Z").unwrap();

        store.stop_run(stopped, "2026-11-29T11:00:00Z").unwrap();
        store.stop_run(complete, "2026-11-29T12:00:00Z").unwrap();

        let h = store.load_run(stopped).unwrap().header;
        assert_eq!(h.status, RunStatus::Running);
        assert_eq!(h.stopped_at(), Some("2026-11-29T11:00:00Z"));
        assert_eq!(
            h.incompleteness().as_deref(),
            Some("stopped at 2026-11-29T11:00:00Z before every case was measured")
        );
        let h = store.load_run(measuring).unwrap().header;
        assert_eq!(h.stopped_at(), None);
        assert_eq!(
            h.incompleteness().as_deref(),
            Some("stopped before every case was measured, or still measuring")
        );
        let h = store.load_run(complete).unwrap().header;
        assert_eq!(h.status, RunStatus::Complete);
        assert_eq!(h.finished_at.as_deref(), Some("2026-11-29T10:00:00Z"));
        assert_eq!((h.stopped_at(), h.incompleteness()), (None, None));
        // Not whole, so not pushed: only complete runs are.
        assert_eq!(store.complete_runs().unwrap().len(), 1);
    }

    /// A canary's readings are in their run's counter: a `tsc` run's reference cycles are
    /// no state of the host to hold a `tsc-core` run's core cycles against (they once
    /// called every later `tsc-core` run's host 41 % slower). And they are one machine's:
    /// another testbed of the same CPU model (faster, once refusing every baseline of
    /// this one), or the testbed's name on other hardware, is no state of this host.
    #[test]
    fn canary_readings_are_those_of_runs_of_this_machine_that_counted_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.db")).unwrap();
        let here = |testbed: &str, fingerprint: &str| RunPlace {
            testbed: testbed.into(),
            fingerprint: fingerprint.into(),
            ..RunPlace::default()
        };
        let mut run_on = |place: RunPlace, counter: crate::counter::CounterKind, reading: f64| {
            let id = store
                .begin_run(&RunHeader {
                    counter: RunCounter::Measured(counter),
                    place,
                    ..header()
                })
                .unwrap();
            let row = store.add_case(id, 0, &case()).unwrap();
            let canary = crate::record::CanaryReadings {
                kind: "canary v1".into(),
                readings: vec![reading; 3],
            };
            store
                .add_samples(
                    row,
                    0,
                    &Samples {
                        canary: Some(canary),
                        ..samples(None)
                    },
                )
                .unwrap();
            store.finish_run(id, "2026-11-22T00:01:00Z").unwrap();
            id
        };
        let this_box = || here("this-box", "0123456789abcdef");
        let reference = run_on(this_box(), crate::counter::CounterKind::Tsc, 100.0);
        let core = run_on(this_box(), crate::counter::CounterKind::TscCore, 141.0);
        // The same CPU model (`test`) elsewhere, faster.
        run_on(
            here("other-box", "0123456789abcdef"),
            crate::counter::CounterKind::TscCore,
            70.0,
        );
        run_on(
            here("this-box", "fedcba9876543210"),
            crate::counter::CounterKind::TscCore,
            70.0,
        );
        let readings = |counter: &str| {
            store
                .canary_readings("canary v1", "this-box", "0123456789abcdef", counter)
                .unwrap()
        };
        let core_only = readings("tsc-core");
        assert_eq!(core_only.keys().copied().collect::<Vec<_>>(), vec![core]);
        assert_eq!(core_only[&core], vec![vec![141.0; 3]]);
        assert_eq!(
            readings("tsc").keys().copied().collect::<Vec<_>>(),
            vec![reference]
        );
        assert!(readings("ns").is_empty());
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
            let old = SCHEMA_4.replace(
                "    core_clock REAL,                      -- core cycles per TSC tick beside them (tsc-core)\n",
                "",
            );
            let old = without_lanes(&old);
            assert_ne!(
                old, SCHEMA_4,
                "the test must remove the column to mimic schema 1"
            );
            conn.execute_batch(&old).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            // A run measured under schema 1, stored as that version stored it.
            let old_run = insert_old_run(&conn, &header());
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
            conn.execute_batch(&without_lanes(SCHEMA_4)).unwrap();
            conn.pragma_update(None, "user_version", 2).unwrap();
            let run = insert_old_run(&conn, &header());
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
        let stored: String = Connection::open(&path)
            .unwrap()
            .query_row("SELECT options_json FROM runs WHERE id = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(stored.starts_with(r#"{"origin":"import/1""#), "{stored}");
        drop(store);
        Store::open(&path).unwrap();
    }

    #[test]
    fn a_schema_4_store_gains_machines_uuids_digests_and_baselines_per_testbed() {
        let dir = tempfile::tempdir().unwrap();
        let make = |name: &str| {
            let path = dir.path().join(name);
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_4).unwrap();
            conn.pragma_update(None, "user_version", 4).unwrap();
            let complete = RunHeader {
                status: RunStatus::Complete,
                finished_at: Some("2026-11-22T00:01:00Z".into()),
                ..header()
            };
            for h in [&complete, &header()] {
                let run = insert_old_run(&conn, h);
                conn.execute(
                    "INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, status)
                     VALUES (?1, 0, 'a/b/hash', 'a/b', 'hash', '{}', 'ok')",
                    [run],
                )
                .unwrap();
                conn.execute(
                    "INSERT INTO clusters (case_id, process, layout, samples) VALUES (?1, 0, 0, ?2)",
                    params![conn.last_insert_rowid(), encode_samples(&[90.0, 91.0])],
                )
                .unwrap();
            }
            conn.execute(
                "INSERT INTO baselines (name, run_id) VALUES ('main', 1)",
                [],
            )
            .unwrap();
            path
        };
        let (first, second) = (make("one.db"), make("two.db"));
        let one = Store::open(&first).unwrap();
        let two = Store::open(&second).unwrap();
        let (a, b) = (
            one.load_run(1).unwrap().header,
            two.load_run(1).unwrap().header,
        );
        assert!(!a.place.uuid.is_empty());
        assert_eq!(
            a.place.uuid, b.place.uuid,
            "copies migrated apart push as one run"
        );
        assert_ne!(a.place.uuid, one.load_run(2).unwrap().header.place.uuid);
        assert_eq!(a.place.testbed, default_testbed(&a.machine, &a.cpu_model));
        assert_eq!(
            one.resolve_run_on("main", Some(&a.place.testbed)).unwrap(),
            1
        );
        assert_eq!(one.complete_runs().unwrap().len(), 1);
        // The complete run is sealed; pushing the other copy finds it there.
        let (raw, digest) = two.raw_run(1).unwrap();
        assert_eq!(
            one.receive_run(&raw, &digest).unwrap(),
            raw::Received::AlreadyThere
        );
        assert_eq!(one.machines().unwrap().len(), 1);
    }

    /// Two bench targets (experiments) sharing one store each keep their own `main`: the
    /// CI gate of a crate with two targets, and a schema 6 store's baselines kept, each
    /// its run's experiment's.
    #[test]
    fn a_baseline_is_a_name_per_experiment_and_testbed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.db");
        let store = Store::open(&path).unwrap();
        let mut runs = Vec::new();
        for experiment in ["hashes", "my-second"] {
            let run = store
                .begin_run(&RunHeader {
                    experiment: experiment.into(),
                    ..header()
                })
                .unwrap();
            store.finish_run(run, "2026-11-22T00:01:00Z").unwrap();
            store.save_baseline("main", run).unwrap();
            runs.push(run);
        }
        let testbed = store.load_run(runs[0]).unwrap().header.place.testbed;
        let of_run =
            |store: &Store, experiment| store.resolve_baseline_of_run("main", &testbed, experiment);
        assert_eq!(of_run(&store, "hashes").unwrap(), runs[0]);
        assert_eq!(of_run(&store, "my-second").unwrap(), runs[1]);
        assert_eq!(
            store.baseline("main", &testbed, "my-second").unwrap(),
            Some(runs[1])
        );
        let err = format!("{:#}", of_run(&store, "third").unwrap_err());
        assert!(
            err.starts_with("no baseline `main` of experiment `third` on testbed"),
            "{err}"
        );
        assert!(err.contains("saved for `hashes`, `my-second`"), "{err}");
        // Named without its experiment (`compare main latest`), it is one of two.
        let err = format!("{:#}", store.resolve_run("main").unwrap_err());
        assert!(err.contains("is saved for 2 experiments"), "{err}");
        assert!(err.contains("`hashes`: run 1, `my-second`: run 2"), "{err}");
        // Saving again replaces its own experiment's alone.
        let again = store
            .begin_run(&RunHeader {
                experiment: "hashes".into(),
                ..header()
            })
            .unwrap();
        store.save_baseline("main", again).unwrap();
        assert_eq!(of_run(&store, "hashes").unwrap(), again);
        assert_eq!(of_run(&store, "my-second").unwrap(), runs[1]);
        drop(store);

        // As schema 6 kept baselines: a name per testbed, which run 1's is.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE baselines;
             CREATE TABLE baselines (
                 testbed TEXT NOT NULL,
                 name    TEXT NOT NULL,
                 run_id  INTEGER NOT NULL REFERENCES runs(id),
                 PRIMARY KEY (testbed, name)
             );",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO baselines (testbed, name, run_id) VALUES (?1, 'main', 1)",
            [&testbed],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 6).unwrap();
        drop(conn);
        let store = Store::open_existing(&path).unwrap();
        assert_eq!(of_run(&store, "hashes").unwrap(), 1);
        assert_eq!(store.resolve_run("main").unwrap(), 1);
        assert!(of_run(&store, "my-second").is_err());
        let store = Store::open(&path).unwrap();
        assert_eq!(store.baseline("main", &testbed, "hashes").unwrap(), Some(1));
    }

    #[test]
    fn a_schema_5_store_gains_tagged_machine_records_and_digests_sealed_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("five.db");
        let measured = MachineRecord::Measured(Box::new(crate::machine::Machine::example(None)));
        {
            let mut store = Store::open(&path).unwrap();
            for machine in [
                measured.clone(),
                MachineRecord::Unreadable(serde_json::json!({"x": 1})),
            ] {
                let run = store
                    .begin_run(&RunHeader {
                        machine,
                        ..header()
                    })
                    .unwrap();
                let row = store.add_case(run, 0, &case()).unwrap();
                store.add_samples(row, 0, &samples(None)).unwrap();
                store.finish_run(run, "2026-11-22T00:01:00Z").unwrap();
            }
        }
        // As schema 5 left it: the record untagged, and a digest sealed over that form.
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE runs SET machine_json = ?1, digest = 'sealed-over-the-untagged-form' WHERE id = 1",
            [measured.untagged().to_string()],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 5).unwrap();
        drop(conn);

        let store = Store::open(&path).unwrap();
        let run = store.load_run(1).unwrap().header;
        assert!(
            matches!(run.machine, MachineRecord::Measured(_)),
            "{:?}",
            run.machine
        );
        let (raw, digest) = store.raw_run(1).unwrap();
        assert_ne!(digest, "sealed-over-the-untagged-form");
        assert_eq!(digest, raw.digest(), "sealed again over the tagged form");
        let stored: String = Connection::open(&path)
            .unwrap()
            .query_row("SELECT machine_json FROM runs WHERE id = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(stored.starts_with(r#"{"record":"measured/1""#), "{stored}");
        // A record of neither form stays as it was stored, unreadable.
        let other = store.load_run(2).unwrap().header.machine;
        assert_eq!(other.untagged(), serde_json::json!({"x": 1}));
        assert!(matches!(other, MachineRecord::Unreadable(_)));
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
            format!("{err:#}").contains(&format!(
                "run {run} in `{}`: corrupt sample record in the store (case {row})",
                path.display()
            )),
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
        #[allow(irrefutable_let_patterns)]
        if let Engine::Sqlite(conn) = &*store.db() {
            conn.busy_timeout(std::time::Duration::from_millis(50))
                .unwrap();
        }
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
