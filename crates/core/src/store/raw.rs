//! A run as its rows, engine to engine: what `push` copies, and what a run's digest is
//! computed from. Local row ids never enter either: a run is known by its UUID, its
//! machine by testbed and fingerprint.

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use super::engine::{Engine, Value, values};
use super::{Store, machine_id};

/// The columns of `runs` that travel, in this order (id, machine and digest do not).
const RUN_COLUMNS: &str = "started_at, finished_at, status, experiment, tool_version, git_revision, counter, unit, tsc_hz, cpu_model, machine_json, options_json, uuid, ci_json";
const CASE_COLUMNS: &str = "seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample, overhead";
const CLUSTER_COLUMNS: &str = "process, layout, samples, core_clock";
const CANARY_COLUMNS: &str = "process, kind, readings";
const ESTIMATE_COLUMNS: &str = "implementation, cycles, model, note";

/// Rows of one table, as many as one statement carries: PostgreSQL takes at most 65 535
/// parameters a statement, SQLite 32 766.
const PARAMETERS_PER_STATEMENT: usize = 30_000;

/// A case's rows, as stored, without local ids: its own, its sample clusters and its
/// canary readings.
#[derive(Clone, Debug, PartialEq)]
pub struct RawCase {
    row: Vec<Value>,
    clusters: Vec<Vec<Value>>,
    canaries: Vec<Vec<Value>>,
}

/// A run's rows, as stored, without local ids.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRun {
    run: Vec<Value>,
    /// testbed, fingerprint, cpu_model, first_seen
    machine: Vec<Value>,
    cases: Vec<RawCase>,
    estimates: Vec<Vec<Value>>,
    /// The figures computed from it (version, JSON), where the source had them: copied
    /// beside it, never part of its digest (they are derived from what is).
    figures: Option<Vec<Value>>,
}

impl RawRun {
    /// The testbed, hardware fingerprint and CPU model the run was measured on.
    pub fn machine(&self) -> (String, String, String) {
        let text = |i: usize| match self.machine.get(i) {
            Some(Value::Text(t)) => t.clone(),
            _ => String::new(),
        };
        (text(0), text(1), text(2))
    }

    /// Run `run_id`'s rows.
    pub(super) fn read(db: &mut Engine, run_id: i64) -> Result<RawRun> {
        let run = db
            .query_one(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                &values![run_id],
            )?
            .with_context(|| format!("no run {run_id}"))?
            .0;
        let machine = db
            .query_one(
                "SELECT m.testbed, m.fingerprint, m.cpu_model, m.first_seen
                 FROM machines m JOIN runs r ON r.machine_id = m.id WHERE r.id = ?1",
                &values![run_id],
            )?
            .with_context(|| format!("run {run_id} has no machine"))?
            .0;
        // Three queries a run, not three a case: a push's time is mostly round trips.
        let case_rows = db.query(
            &format!("SELECT id, {CASE_COLUMNS} FROM cases WHERE run_id = ?1 ORDER BY seq"),
            &values![run_id],
        )?;
        let mut by_case: std::collections::HashMap<i64, RawCase> = case_rows
            .iter()
            .map(|c| {
                Ok((
                    c.int(0)?,
                    RawCase {
                        row: c.0[1..].to_vec(),
                        clusters: Vec::new(),
                        canaries: Vec::new(),
                    },
                ))
            })
            .collect::<Result<_>>()?;
        let qualified = |columns: &str, table: &str| {
            columns
                .split(", ")
                .map(|c| format!("{table}.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for row in db.query(
            &format!(
                "SELECT k.case_id, {} FROM clusters k JOIN cases c ON c.id = k.case_id
                 WHERE c.run_id = ?1 ORDER BY k.case_id, k.process, k.layout",
                qualified(CLUSTER_COLUMNS, "k")
            ),
            &values![run_id],
        )? {
            let case = row.int(0)?;
            if let Some(c) = by_case.get_mut(&case) {
                c.clusters.push(row.0[1..].to_vec());
            }
        }
        for row in db.query(
            &format!(
                "SELECT k.case_id, {} FROM canaries k JOIN cases c ON c.id = k.case_id
                 WHERE c.run_id = ?1 ORDER BY k.case_id, k.process",
                qualified(CANARY_COLUMNS, "k")
            ),
            &values![run_id],
        )? {
            let case = row.int(0)?;
            if let Some(c) = by_case.get_mut(&case) {
                c.canaries.push(row.0[1..].to_vec());
            }
        }
        let cases = case_rows
            .iter()
            .map(|c| by_case.remove(&c.int(0)?).context("a case read twice"))
            .collect::<Result<Vec<_>>>()?;
        let estimates = db
            .query(
                &format!("SELECT {ESTIMATE_COLUMNS} FROM estimates WHERE run_id = ?1 ORDER BY implementation"),
                &values![run_id],
            )?
            .into_iter()
            .map(|r| r.0)
            .collect();
        let figures = db
            .query_one(
                "SELECT version, json FROM figures WHERE run_id = ?1",
                &values![run_id],
            )?
            .map(|r| r.0);
        Ok(RawRun {
            run,
            machine,
            cases,
            estimates,
            figures,
        })
    }

    /// SHA-256 over every value of the run, its machine, cases, samples, canaries and
    /// estimates, each typed and length-prefixed: the same run gives the same digest in
    /// either engine, and any changed sample changes it.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        let put_row = |h: &mut Sha256, tag: u8, row: &[Value]| {
            h.update([tag]);
            h.update((row.len() as u64).to_le_bytes());
            for v in row {
                match v {
                    Value::Null => h.update([0]),
                    Value::Int(i) => {
                        h.update([1]);
                        h.update(i.to_le_bytes());
                    }
                    Value::Real(x) => {
                        h.update([2]);
                        h.update(x.to_bits().to_le_bytes());
                    }
                    Value::Text(s) => {
                        h.update([3]);
                        h.update((s.len() as u64).to_le_bytes());
                        h.update(s.as_bytes());
                    }
                    Value::Blob(b) => {
                        h.update([4]);
                        h.update((b.len() as u64).to_le_bytes());
                        h.update(b);
                    }
                }
            }
        };
        // The first-seen date is the store's, not the run's.
        put_row(&mut h, b'm', &self.machine[..2]);
        put_row(&mut h, b'r', &self.run);
        for case in &self.cases {
            put_row(&mut h, b'c', &case.row);
            for c in &case.clusters {
                put_row(&mut h, b's', c);
            }
            for c in &case.canaries {
                put_row(&mut h, b'k', c);
            }
        }
        for e in &self.estimates {
            put_row(&mut h, b'e', e);
        }
        hex::encode(h.finalize())
    }

    /// The run's UUID; empty where it has none.
    pub fn uuid(&self) -> String {
        match &self.run[12] {
            Value::Text(u) => u.clone(),
            _ => String::new(),
        }
    }

    /// The testbed of the run's machine.
    pub fn testbed(&self) -> String {
        match &self.machine[0] {
            Value::Text(t) => t.clone(),
            _ => String::new(),
        }
    }

    /// How many cases the run has.
    pub fn cases(&self) -> usize {
        self.cases.len()
    }

    /// Store these rows as a new complete run sealed with `digest`; its new id.
    fn insert(&self, db: &mut Engine, digest: &str) -> Result<i64> {
        let text = |v: &Value| match v {
            Value::Text(t) => Ok(t.clone()),
            other => bail!("a machine's name expected, found {other:?}"),
        };
        let machine = machine_id(
            db,
            &text(&self.machine[0])?,
            &text(&self.machine[1])?,
            &text(&self.machine[2])?,
            &text(&self.machine[3])?,
        )?;
        let mut run = self.run.clone();
        run.push(Value::Int(machine));
        run.push(Value::Text(digest.into()));
        let placeholders: Vec<String> = (1..=run.len()).map(|i| format!("?{i}")).collect();
        let run_id = db
            .query_one(
                &format!(
                    "INSERT INTO runs ({RUN_COLUMNS}, machine_id, digest) VALUES ({}) RETURNING id",
                    placeholders.join(", ")
                ),
                &run,
            )?
            .context("no id for the copied run")?
            .int(0)?;
        let case_rows: Vec<Vec<Value>> = self
            .cases
            .iter()
            .map(|case| {
                let mut row = vec![Value::Int(run_id)];
                row.extend(case.row.iter().cloned());
                row
            })
            .collect();
        let ids =
            insert_rows_returning_ids(db, &format!("cases (run_id, {CASE_COLUMNS})"), &case_rows)?;
        let with_case = |rows: fn(&RawCase) -> &[Vec<Value>]| -> Vec<Vec<Value>> {
            self.cases
                .iter()
                .zip(&ids)
                .flat_map(|(case, id)| {
                    rows(case).iter().map(move |r| {
                        let mut v = vec![Value::Int(*id)];
                        v.extend(r.iter().cloned());
                        v
                    })
                })
                .collect()
        };
        insert_rows(
            db,
            &format!("clusters (case_id, {CLUSTER_COLUMNS})"),
            &with_case(|c| &c.clusters),
        )?;
        insert_rows(
            db,
            &format!("canaries (case_id, {CANARY_COLUMNS})"),
            &with_case(|c| &c.canaries),
        )?;
        let estimates: Vec<Vec<Value>> = self
            .estimates
            .iter()
            .map(|r| {
                let mut v = vec![Value::Int(run_id)];
                v.extend(r.iter().cloned());
                v
            })
            .collect();
        insert_rows(
            db,
            &format!("estimates (run_id, {ESTIMATE_COLUMNS})"),
            &estimates,
        )?;
        if let Some(figures) = &self.figures {
            let mut row = vec![Value::Int(run_id)];
            row.extend(figures.iter().cloned());
            insert_rows(db, "figures (run_id, version, json)", &[row])?;
        }
        Ok(run_id)
    }
}

/// Insert `rows` into `table (columns…)`, many rows a statement.
pub(super) fn insert_rows(db: &mut Engine, table: &str, rows: &[Vec<Value>]) -> Result<()> {
    let Some(width) = rows.first().map(Vec::len) else {
        return Ok(());
    };
    for chunk in rows.chunks((PARAMETERS_PER_STATEMENT / width).max(1)) {
        let (sql, params) = multi_row_insert(table, chunk, width);
        db.execute(&sql, &params)?;
    }
    Ok(())
}

/// Insert `rows` (of one statement) and return their new ids, in order.
fn insert_rows_returning_ids(
    db: &mut Engine,
    table: &str,
    rows: &[Vec<Value>],
) -> Result<Vec<i64>> {
    let Some(width) = rows.first().map(Vec::len) else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::with_capacity(rows.len());
    for chunk in rows.chunks((PARAMETERS_PER_STATEMENT / width).max(1)) {
        let (sql, params) = multi_row_insert(table, chunk, width);
        // RETURNING gives the rows in the order of VALUES in both engines for a plain
        // INSERT; sorting ids (ascending, as both assign them) does not rely on it.
        let mut got: Vec<i64> = db
            .query(&format!("{sql} RETURNING id"), &params)?
            .iter()
            .map(|r| r.int(0))
            .collect::<Result<_>>()?;
        got.sort_unstable();
        ids.extend(got);
    }
    Ok(ids)
}

/// `INSERT INTO table VALUES (?1, …), (…)` for `rows` of `width` values, and its params.
fn multi_row_insert(table: &str, rows: &[Vec<Value>], width: usize) -> (String, Vec<Value>) {
    let mut sql = format!("INSERT INTO {table} VALUES ");
    let mut params = Vec::with_capacity(rows.len() * width);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for j in 0..width {
            if j > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("?{}", i * width + j + 1));
        }
        sql.push(')');
        params.extend(row.iter().cloned());
    }
    (sql, params)
}

/// What receiving a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// It was not there: copied.
    Copied,
    /// It was there, incomplete: replaced by the complete copy.
    Completed,
    /// It was there already, the same: nothing written.
    AlreadyThere,
}

/// The same UUID with other content in the target.
#[derive(Debug)]
pub struct Conflict {
    /// The run's UUID.
    pub uuid: String,
    /// The digest sent with the run being received.
    pub ours: String,
    /// The digest of the run the receiving store already holds under that UUID.
    pub theirs: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run {} has other content there (digest {} there, {} here)",
            self.uuid,
            short_digest(&self.theirs),
            short_digest(&self.ours)
        )
    }
}

impl std::error::Error for Conflict {}

/// A digest as messages show it: its first 12 digits. A digest is read from a store, so
/// one that is not hex (a damaged or edited store) is shown whole rather than cut
/// inside a character.
pub fn short_digest(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

/// Whether `digest` is what [`RawRun::digest`] writes: 64 lowercase hex digits.
fn is_sha256(digest: &str) -> bool {
    digest.len() == 64
        && digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A run whose stored digest is not a SHA-256: its record was damaged or edited, so
/// whether it holds the same content as the run received cannot be told.
#[derive(Debug, thiserror::Error)]
#[error(
    "run {run} ({uuid}) in `{store}` has a damaged record: its stored digest {digest:?} is not a SHA-256, so whether it is the run pushed cannot be told; nothing was written over it"
)]
pub struct DamagedDigest {
    /// The run's id in that store.
    pub run: i64,
    /// The run's UUID.
    pub uuid: String,
    /// The store.
    pub store: String,
    /// The digest as stored.
    pub digest: String,
}

impl Store {
    /// Run `run_id`'s rows and digest, to copy elsewhere.
    pub fn raw_run(&self, run_id: i64) -> Result<(RawRun, String)> {
        let raw = self
            .db()
            .again(|db, _| RawRun::read(db, run_id))
            .map_err(|e| self.cannot_read(e))?;
        let digest = raw.digest();
        Ok((raw, digest))
    }

    /// Take in a complete run copied from another store, in one transaction, keyed by
    /// its UUID: absent, it is copied; present and complete with the same digest, nothing
    /// is written; present and incomplete, it is replaced; present with another digest,
    /// it is refused ([`Conflict`]). The copy is read back and its digest checked.
    pub fn receive_run(&self, raw: &RawRun, digest: &str) -> Result<Received> {
        match self.receive_once(raw, digest) {
            // Another writer stored the same run between our look and our insert: look
            // again, and find it there.
            Err(e) if is_unique_violation(&e) => self.receive_once(raw, digest),
            other => other,
        }
    }

    fn receive_once(&self, raw: &RawRun, digest: &str) -> Result<Received> {
        let uuid = raw.uuid();
        self.db()
            .transaction(|db| {
                let existing = db.query_one(
                    "SELECT id, status, digest FROM runs WHERE uuid = ?1",
                    &values![uuid.as_str()],
                )?;
                let received = match existing {
                    Some(row) if row.text(1)? == "complete" => {
                        let theirs = row.opt_text(2)?.unwrap_or_default();
                        if theirs == digest {
                            return Ok(Received::AlreadyThere);
                        }
                        if !is_sha256(&theirs) {
                            return Err(DamagedDigest {
                                run: row.int(0)?,
                                uuid: uuid.clone(),
                                store: self.path().display().to_string(),
                                digest: theirs,
                            }
                            .into());
                        }
                        return Err(Conflict {
                            uuid: uuid.clone(),
                            ours: digest.into(),
                            theirs,
                        }
                        .into());
                    }
                    Some(row) => {
                        delete_run(db, row.int(0)?)?;
                        Received::Completed
                    }
                    None => Received::Copied,
                };
                pause_for_test("push");
                let id = raw.insert(db, digest)?;
                let copied = RawRun::read(db, id)?.digest();
                if copied != digest {
                    bail!(
                        "run {uuid} did not read back as it was sent (digest {copied} for {digest}): nothing was kept"
                    );
                }
                Ok(received)
            })
            .map_err(|e| {
                if e.is::<Conflict>() || e.is::<DamagedDigest>() {
                    e
                } else {
                    self.cannot_write(e)
                }
            })
    }
}

/// A write refused because another writer's committed row holds the same key.
fn is_unique_violation(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        if let Some(e) = cause.downcast_ref::<rusqlite::Error>() {
            return e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation);
        }
        #[cfg(feature = "postgres")]
        if let Some(e) = cause.downcast_ref::<tokio_postgres::Error>() {
            return e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION);
        }
        false
    })
}

/// Remove a run and everything stored under it.
fn delete_run(db: &mut Engine, run_id: i64) -> Result<()> {
    for sql in [
        "DELETE FROM clusters WHERE case_id IN (SELECT id FROM cases WHERE run_id = ?1)",
        "DELETE FROM canaries WHERE case_id IN (SELECT id FROM cases WHERE run_id = ?1)",
        "DELETE FROM cases WHERE run_id = ?1",
        "DELETE FROM estimates WHERE run_id = ?1",
        "DELETE FROM figures WHERE run_id = ?1",
        "DELETE FROM baselines WHERE run_id = ?1",
        "DELETE FROM runs WHERE id = ?1",
    ] {
        db.execute(sql, &values![run_id])?;
    }
    Ok(())
}

/// Tests stop a writer at a named point (`CRYPTOBENCH_TEST_PAUSE=push`, `samples` or
/// `committed`), in its open transaction or just after its commit, so that they kill it
/// or restart the server at that point and not by timing: it writes its pid to
/// `CRYPTOBENCH_TEST_PAUSE_FILE` and waits until the test removes the file (once a
/// process: later passes go on). Whether it paused.
pub(super) fn pause_for_test(point: &str) -> bool {
    static PAUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if std::env::var("CRYPTOBENCH_TEST_PAUSE").as_deref() != Ok(point)
        || PAUSED.swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        return false;
    }
    let Ok(file) = std::env::var("CRYPTOBENCH_TEST_PAUSE_FILE") else {
        return false;
    };
    let _ = std::fs::write(&file, std::process::id().to_string());
    while std::path::Path::new(&file).exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}
