//! What older schemas stored, rewritten in the forms this one reads. Each step reads the
//! older form by its own frozen rules, never by today's types' defaults.

use rusqlite::{Transaction, params};

use crate::name::ImplName;
use crate::record::RunOrigin;

/// Schema 2 → 3: the lanes of a case become a column (schema 2 said them only in the
/// implementation's name, `…-x4-avx2`), and run options are stored tagged and versioned
/// (schema 2 stored them untagged). Options that fit no form of schema 2 are left as
/// they were: they read as unreadable, as they did.
pub(super) fn to_schema_3(tx: &Transaction<'_>) -> rusqlite::Result<()> {
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
