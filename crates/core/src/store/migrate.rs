//! What older schemas stored, rewritten in the forms this one reads. Each step reads the
//! older form by its own frozen rules, never by today's types' defaults.

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::engine::{Engine, values};
use super::{machine_id, raw::RawRun};
use crate::name::ImplName;
use crate::record::{MachineRecord, RunOrigin, default_testbed, fingerprint};

/// Schema 2 → 3: the lanes of a case become a column (schema 2 said them only in the
/// implementation's name, `…-x4-avx2`), and run options are stored tagged and versioned
/// (schema 2 stored them untagged). Options that fit no form of schema 2 are left as
/// they were: they read as unreadable, as they did.
pub(super) fn to_schema_3(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE cases ADD COLUMN lanes INTEGER NOT NULL DEFAULT 1")?;
    let names: Vec<(i64, String)> = tx
        .prepare("SELECT id, implementation FROM cases")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, implementation) in names {
        let lanes = lanes_in_name(&implementation);
        if lanes > 1 {
            tx.execute(
                "UPDATE cases SET lanes = ?2 WHERE id = ?1",
                params![id, lanes as i64],
            )?;
        }
    }

    let options: Vec<(i64, String)> = tx
        .prepare("SELECT id, options_json FROM runs")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, json) in options {
        let Some(origin) = serde_json::from_str(&json)
            .ok()
            .and_then(|v| RunOrigin::from_untagged(&v))
        else {
            continue;
        };
        let tagged = serde_json::to_string(&origin).expect("options serialise");
        tx.execute(
            "UPDATE runs SET options_json = ?2 WHERE id = ?1",
            params![id, tagged],
        )?;
    }
    Ok(())
}

/// Schema 4 → 5: runs travel. Each run gets its machine (the hardware's default
/// testbed and fingerprint, from the machine it recorded), a UUID and, if complete, the
/// digest of its content; baselines become names per testbed (each its run's).
///
/// A migrated run's UUID is derived from its row id and what it recorded when it began,
/// so two copies of one old store migrated apart still push as the same runs.
pub(super) fn to_schema_5(db: &mut Engine) -> Result<()> {
    db.batch(
        "ALTER TABLE runs ADD COLUMN uuid TEXT;
         ALTER TABLE runs ADD COLUMN machine_id INTEGER REFERENCES machines(id);
         ALTER TABLE runs ADD COLUMN ci_json TEXT;
         ALTER TABLE runs ADD COLUMN digest TEXT;",
    )?;
    let runs = db.query(
        "SELECT id, started_at, experiment, tool_version, git_revision, counter, cpu_model, machine_json, options_json, status
         FROM runs ORDER BY id",
        &[],
    )?;
    for run in runs {
        let id = run.int(0)?;
        let cpu_model = run.text(6)?;
        // Stored untagged then (schema 6 tags it, after this).
        let stored: serde_json::Value = serde_json::from_str(&run.text(7)?)
            .with_context(|| format!("corrupt machine record of run {id}"))?;
        let machine =
            MachineRecord::from_untagged(&stored).unwrap_or(MachineRecord::Unreadable(stored));
        let print = fingerprint(&machine, &cpu_model);
        let testbed = default_testbed(&machine, &cpu_model);
        let machine = machine_id(db, &testbed, &print, &cpu_model, &run.text(1)?)?;
        let mut h = Sha256::new();
        h.update(b"cryptobench run stored before schema 5\n");
        // Its row id too: copies of one file share it, and two runs begun in the same
        // second with the same machine record and options still differ by it.
        h.update(id.to_le_bytes());
        for i in 1..=8 {
            h.update(run.opt_text(i)?.unwrap_or_default().as_bytes());
            h.update([0]);
        }
        let bytes: [u8; 16] = h.finalize()[..16].try_into().expect("16 bytes");
        let uuid = uuid::Uuid::new_v8(bytes).to_string();
        db.execute(
            "UPDATE runs SET uuid = ?2, machine_id = ?3 WHERE id = ?1",
            &values![id, uuid, machine],
        )?;
        if run.text(9)? == "complete" {
            let digest = RawRun::read(db, id)?.digest();
            db.execute(
                "UPDATE runs SET digest = ?2 WHERE id = ?1",
                &values![id, digest],
            )?;
        }
    }
    db.batch(
        "ALTER TABLE baselines RENAME TO baselines_v4;
         CREATE TABLE baselines (
             testbed TEXT NOT NULL,
             name    TEXT NOT NULL,
             run_id  INTEGER NOT NULL REFERENCES runs(id),
             PRIMARY KEY (testbed, name)
         );
         INSERT INTO baselines (testbed, name, run_id)
             SELECT m.testbed, b.name, b.run_id FROM baselines_v4 b
             JOIN runs r ON r.id = b.run_id JOIN machines m ON m.id = r.machine_id;
         DROP TABLE baselines_v4;",
    )?;
    Ok(())
}

/// Schema 6: machine records stored tagged and versioned (`{"record": "measured/1",
/// ...}`), as run options are since schema 3. Each run's record in the untagged form of
/// schemas 1 to 5 is rewritten tagged; one that fits neither form is kept as it was. The
/// record is part of what a complete run's digest seals, so those digests are computed
/// again: every copy of a run migrated by this version agrees, here and on a server.
pub(super) fn to_schema_6(db: &mut Engine) -> Result<()> {
    let runs = db.query("SELECT id, machine_json, status FROM runs ORDER BY id", &[])?;
    for run in runs {
        let id = run.int(0)?;
        let stored: serde_json::Value = serde_json::from_str(&run.text(1)?)
            .with_context(|| format!("corrupt machine record of run {id}"))?;
        if let Some(record) = MachineRecord::from_untagged(&stored) {
            db.execute(
                "UPDATE runs SET machine_json = ?2 WHERE id = ?1",
                &values![id, serde_json::to_string(&record)?],
            )?;
        }
        if run.text(2)? == "complete" {
            let digest = RawRun::read(db, id)?.digest();
            db.execute(
                "UPDATE runs SET digest = ?2 WHERE id = ?1",
                &values![id, digest],
            )?;
        }
    }
    Ok(())
}

/// Schema 7: a baseline is a name for one experiment (a bench target) as well as one
/// testbed, so that each bench target of a crate, sharing one store, keeps its own
/// `main`. Each baseline kept is its run's experiment's. Made anew and renamed last, as
/// PostgreSQL would refuse a second table's key under the first's name.
pub(super) fn to_schema_7(db: &mut Engine) -> Result<()> {
    db.batch(
        "CREATE TABLE baselines_v7 (
             testbed    TEXT NOT NULL,
             experiment TEXT NOT NULL,
             name       TEXT NOT NULL,
             run_id     INTEGER NOT NULL REFERENCES runs(id),
             PRIMARY KEY (testbed, experiment, name)
         );
         INSERT INTO baselines_v7 (testbed, experiment, name, run_id)
             SELECT b.testbed, r.experiment, b.name, b.run_id FROM baselines b
             JOIN runs r ON r.id = b.run_id;
         DROP TABLE baselines;
         ALTER TABLE baselines_v7 RENAME TO baselines;",
    )?;
    Ok(())
}

/// The lane count schema 2's names carried: `N` of an algorithm `…-xN-…`, else 1.
fn lanes_in_name(implementation: &str) -> usize {
    ImplName::parse(implementation)
        .algorithm()
        .split_once("-x")
        .and_then(|(_, rest)| rest.split('-').next()?.parse().ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_as_schema_2_names_said_them() {
        assert_eq!(lanes_in_name("cryptobench/shake128-x4-avx2"), 4);
        assert_eq!(lanes_in_name("libcrux/shake256-x4-avx2"), 4);
        assert_eq!(lanes_in_name("cryptobench/keccak-f1600-x8-avx512"), 8);
        assert_eq!(lanes_in_name("cryptobench/shake256-x1-scalar"), 1);
        assert_eq!(lanes_in_name("rustcrypto/shake128"), 1);
        assert_eq!(lanes_in_name("dalek/x25519"), 1);
    }
}
