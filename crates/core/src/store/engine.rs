//! The engines a store lives in, behind the few operations the store needs. Its SQL is
//! written once, in SQLite's spelling with `?N` placeholders; this is the dialect layer
//! that carries it to PostgreSQL (placeholders, column types, the catalogue).

use anyhow::{Context, Result};

/// One SQL value, as both engines take and give it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Blob(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// `[a, b, …]` as `[Value; N]`.
macro_rules! values {
    ($($v:expr),* $(,)?) => { [$($crate::store::engine::Value::from($v)),*] };
}
pub(super) use values;

/// A row of a query's answer, read by column index.
#[derive(Debug)]
pub(super) struct Row(pub(super) Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value> {
        self.0.get(i).context("a column the query did not return")
    }
    pub(super) fn int(&self, i: usize) -> Result<i64> {
        self.opt_int(i)?
            .context("an empty column where a number belongs")
    }
    pub(super) fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            other => anyhow::bail!("a number expected in the store, found {other:?}"),
        }
    }
    pub(super) fn opt_real(&self, i: usize) -> Result<Option<f64>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Real(v) => Ok(Some(*v)),
            Value::Int(v) => Ok(Some(*v as f64)),
            other => anyhow::bail!("a real number expected in the store, found {other:?}"),
        }
    }
    pub(super) fn text(&self, i: usize) -> Result<String> {
        self.opt_text(i)?
            .context("an empty column where text belongs")
    }
    pub(super) fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            other => anyhow::bail!("text expected in the store, found {other:?}"),
        }
    }
    pub(super) fn blob(&self, i: usize) -> Result<Vec<u8>> {
        match self.at(i)? {
            Value::Blob(v) => Ok(v.clone()),
            other => anyhow::bail!("a sample record expected in the store, found {other:?}"),
        }
    }
}

/// A connection to one of the two engines.
pub(super) enum Engine {
    Sqlite(rusqlite::Connection),
    #[cfg(feature = "postgres")]
    Postgres(Box<PgConnection>),
}

/// A PostgreSQL connection and the statements it has prepared, by their SQL: a push
/// repeats the same few statements for every run, and the server need not parse and plan
/// a statement of thousands of parameters each time.
#[cfg(feature = "postgres")]
pub(super) struct PgConnection {
    /// Carries the connection's messages while a statement waits, and bounds that wait:
    /// one thread's, as the store is used from one thread at a time.
    runtime: tokio::runtime::Runtime,
    link: super::postgres::Link,
    statements: std::collections::HashMap<String, tokio_postgres::Statement>,
    /// Where to connect again when the connection is lost.
    server: super::postgres::Server,
    /// The time operations have spent on connections lost and made again, in all.
    pub(super) interrupted: std::time::Duration,
}

#[cfg(feature = "postgres")]
impl PgConnection {
    /// A connection to `server`.
    pub(super) fn connect(server: super::postgres::Server) -> Result<PgConnection> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the PostgreSQL client's runtime")?;
        let link = server.connect(&runtime)?;
        Ok(PgConnection {
            runtime,
            link,
            statements: Default::default(),
            server,
            interrupted: Default::default(),
        })
    }

    /// Replace a lost connection (`lost`, first seen at `since`) with a new one, trying
    /// until the server answers or its reconnect window has passed.
    pub(super) fn reconnect(
        &mut self,
        lost: &anyhow::Error,
        since: std::time::Instant,
    ) -> Result<()> {
        // One that stopped answering is still open: closed, its server ends the
        // transaction it held once it wakes.
        self.link.close();
        self.link = self.server.reconnect(&self.runtime, lost, since)?;
        // Prepared statements belong to the connection that prepared them.
        self.statements.clear();
        Ok(())
    }

    fn statement(&mut self, sql: &str) -> Result<tokio_postgres::Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let sql_pg = postgres_sql(sql);
        let prepared = self.answer(self.link.client.prepare(&sql_pg))?;
        self.statements.insert(sql.to_string(), prepared.clone());
        Ok(prepared)
    }

    /// The answer to `asked` (of this connection's client), waited for as long as the
    /// server may take to answer a statement.
    fn answer<T>(
        &self,
        asked: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        self.link
            .answer(&self.runtime, self.server.statement_limit(), asked)
    }
}

impl Engine {
    /// Run one statement; the number of rows it changed.
    pub(super) fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        match self {
            Engine::Sqlite(conn) => Ok(conn
                .execute(sql, rusqlite::params_from_iter(params.iter()))
                .map_err(anyhow::Error::new)? as u64),
            #[cfg(feature = "postgres")]
            Engine::Postgres(pg) => {
                let statement = pg.statement(sql)?;
                let refs = pg_params(params);
                pg.answer(pg.link.client.execute(&statement, &refs))
            }
        }
    }

    /// Run one query; its rows, every column read as a [`Value`].
    pub(super) fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        match self {
            Engine::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql).map_err(anyhow::Error::new)?;
                let width = stmt.column_count();
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(params.iter()), |r| {
                        (0..width)
                            .map(|i| {
                                Ok(match r.get_ref(i)? {
                                    rusqlite::types::ValueRef::Null => Value::Null,
                                    rusqlite::types::ValueRef::Integer(v) => Value::Int(v),
                                    rusqlite::types::ValueRef::Real(v) => Value::Real(v),
                                    rusqlite::types::ValueRef::Text(t) => {
                                        Value::Text(String::from_utf8_lossy(t).into_owned())
                                    }
                                    rusqlite::types::ValueRef::Blob(b) => Value::Blob(b.to_vec()),
                                })
                            })
                            .collect::<rusqlite::Result<Vec<Value>>>()
                            .map(Row)
                    })
                    .map_err(anyhow::Error::new)?;
                Ok(rows
                    .collect::<rusqlite::Result<Vec<Row>>>()
                    .map_err(anyhow::Error::new)?)
            }
            #[cfg(feature = "postgres")]
            Engine::Postgres(pg) => {
                let statement = pg.statement(sql)?;
                let refs = pg_params(params);
                let rows = pg.answer(pg.link.client.query(&statement, &refs))?;
                rows.iter()
                    .map(|r| {
                        (0..r.len())
                            .map(|i| r.try_get::<_, Value>(i).map_err(anyhow::Error::new))
                            .collect::<Result<Vec<Value>>>()
                            .map(Row)
                    })
                    .collect()
            }
        }
    }

    /// The first row of a query, if any.
    pub(super) fn query_one(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// Statements without parameters, one after another (a schema, BEGIN, COMMIT).
    pub(super) fn batch(&mut self, sql: &str) -> Result<()> {
        match self {
            Engine::Sqlite(conn) => conn.execute_batch(sql).map_err(anyhow::Error::new),
            #[cfg(feature = "postgres")]
            Engine::Postgres(pg) => {
                let sql = postgres_schema(sql);
                pg.answer(pg.link.client.batch_execute(&sql))
            }
        }
    }

    /// Run `work` in one transaction: all of it or, on any error, none of it.
    pub(super) fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut Engine) -> Result<T>,
    ) -> Result<T> {
        self.batch("BEGIN")?;
        match work(self) {
            Ok(value) => {
                self.batch("COMMIT")?;
                Ok(value)
            }
            Err(e) => {
                // The connection may be gone with the error; the server ends the
                // transaction with it then, so a failed rollback adds nothing to say.
                let _ = self.batch("ROLLBACK");
                Err(e)
            }
        }
    }

    pub(super) fn is_postgres(&self) -> bool {
        !matches!(self, Engine::Sqlite(_))
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Blob(v) => ValueRef::Blob(v),
        }))
    }
}

/// SQLite's `?N` placeholders in PostgreSQL's spelling, `$N`. The store's SQL has no
/// string literal with a `?` in it.
#[cfg(feature = "postgres")]
fn postgres_sql(sql: &str) -> String {
    sql.replace('?', "$")
}

/// A schema written for SQLite in PostgreSQL's types: 64-bit integers throughout (an
/// SQLite INTEGER is 64 bits, PostgreSQL's 32), identity keys for SQLite's row ids,
/// double precision for REAL and BYTEA for BLOB.
#[cfg(any(feature = "postgres", test))]
pub(super) fn postgres_schema(sql: &str) -> String {
    sql.replace(
        "INTEGER PRIMARY KEY",
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    )
    .replace("INTEGER", "BIGINT")
    .replace("REAL", "DOUBLE PRECISION")
    .replace("BLOB", "BYTEA")
}

#[cfg(feature = "postgres")]
fn pg_params(params: &[Value]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
        .collect()
}

#[cfg(feature = "postgres")]
mod pg_types {
    use super::Value;
    use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

    type BoxError = Box<dyn std::error::Error + Sync + Send>;

    /// Written in the type the server asks for the parameter, so one [`Value::Int`]
    /// serves a BIGINT, an INTEGER and a DOUBLE PRECISION column alike.
    impl ToSql for Value {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut tokio_postgres::types::private::BytesMut,
        ) -> Result<IsNull, BoxError> {
            match (self, ty) {
                (Value::Null, _) => Ok(IsNull::Yes),
                (Value::Int(v), &Type::INT4) => i32::try_from(*v)?.to_sql(ty, out),
                (Value::Int(v), &Type::INT2) => i16::try_from(*v)?.to_sql(ty, out),
                (Value::Int(v), &Type::FLOAT8) => (*v as f64).to_sql(ty, out),
                (Value::Int(v), _) => v.to_sql(ty, out),
                (Value::Real(v), &Type::FLOAT4) => (*v as f32).to_sql(ty, out),
                (Value::Real(v), _) => v.to_sql(ty, out),
                (Value::Text(v), _) => v.as_str().to_sql(ty, out),
                (Value::Blob(v), _) => v.as_slice().to_sql(ty, out),
            }
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        to_sql_checked!();
    }

    impl<'a> FromSql<'a> for Value {
        fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, BoxError> {
            Ok(match *ty {
                Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
                Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
                Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
                Type::OID => Value::Int(u32::from_sql(ty, raw)?.into()),
                Type::BOOL => Value::Int(bool::from_sql(ty, raw)?.into()),
                Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
                Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
                Type::BYTEA => Value::Blob(Vec::<u8>::from_sql(ty, raw)?),
                _ => Value::Text(String::from_sql(ty, raw)?),
            })
        }

        fn from_sql_null(_: &Type) -> Result<Value, BoxError> {
            Ok(Value::Null)
        }

        fn accepts(_: &Type) -> bool {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_takes_postgres_types_and_keeps_its_names() {
        let pg = postgres_schema(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, x REAL, b BLOB NOT NULL, s TEXT)",
        );
        assert_eq!(
            pg,
            "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n BIGINT NOT NULL, x DOUBLE PRECISION, b BYTEA NOT NULL, s TEXT)"
        );
    }

    #[test]
    fn values_round_trip_through_sqlite() {
        let mut db = Engine::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)")
            .unwrap();
        let row = values![7i64, 2.5f64, "x", vec![1u8, 2]];
        db.execute("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", &row)
            .unwrap();
        db.execute(
            "INSERT INTO t VALUES (?1, ?2, ?3, ?4)",
            &values![None::<i64>, None::<f64>, None::<String>, Vec::<u8>::new()],
        )
        .unwrap();
        let back = db
            .query("SELECT i, r, s, b FROM t ORDER BY rowid", &[])
            .unwrap();
        assert_eq!(back[0].0, row);
        assert_eq!(back[1].opt_int(0).unwrap(), None);
        assert_eq!(back[1].opt_text(2).unwrap(), None);
        assert!(back[1].int(0).is_err());
        assert!(back[0].blob(2).is_err(), "text read as a sample record");
    }

    #[test]
    fn a_failed_transaction_leaves_nothing() {
        let mut db = Engine::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (i INTEGER)").unwrap();
        let failed: Result<()> = db.transaction(|db| {
            db.execute("INSERT INTO t VALUES (1)", &[])?;
            anyhow::bail!("stopped half-way")
        });
        assert!(failed.is_err());
        assert!(db.query("SELECT i FROM t", &[]).unwrap().is_empty());
        db.transaction(|db| db.execute("INSERT INTO t VALUES (2)", &[]))
            .unwrap();
        assert_eq!(db.query("SELECT i FROM t", &[]).unwrap().len(), 1);
    }
}
