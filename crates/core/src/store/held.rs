//! The store's connection while one operation holds it. On a server, an operation whose
//! connection is lost part-way (a restart, a fail-over, a dropped network) is done again,
//! from its start, on a new connection: a transaction the server did not commit left
//! nothing behind, so doing it again is safe, and a write whose commit may have reached
//! the server before the answer was lost first looks for what it wrote
//! ([`Held::write_once`]).

use std::ops::{Deref, DerefMut};
use std::sync::MutexGuard;

use anyhow::Result;

use super::engine::{Engine, Row, Value};

pub(super) struct Held<'a> {
    engine: MutexGuard<'a, Engine>,
}

impl<'a> Held<'a> {
    pub(super) fn new(engine: MutexGuard<'a, Engine>) -> Held<'a> {
        Held { engine }
    }

    pub(super) fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        self.again(|db, _| db.execute(sql, params))
    }

    pub(super) fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        self.again(|db, _| db.query(sql, params))
    }

    pub(super) fn query_one(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>> {
        self.again(|db, _| db.query_one(sql, params))
    }

    /// `work` in one transaction: for writes that are the same done twice (an update, an
    /// upsert, a look before an insert) and for reads.
    pub(super) fn transaction<T>(
        &mut self,
        mut work: impl FnMut(&mut Engine) -> Result<T>,
    ) -> Result<T> {
        self.again(|db, _| db.transaction(&mut work))
    }

    /// `work` in one transaction, for a write that would be refused or doubled if done
    /// twice: after a lost connection, `written` is asked first for what the lost attempt
    /// wrote, in case its commit reached the server.
    pub(super) fn write_once<T>(
        &mut self,
        mut written: impl FnMut(&mut Engine) -> Result<Option<T>>,
        mut work: impl FnMut(&mut Engine) -> Result<T>,
    ) -> Result<T> {
        self.again(|db, after_loss| {
            if after_loss && let Some(done) = written(db)? {
                return Ok(done);
            }
            let done = db.transaction(&mut work)?;
            // A test's stand-in for a commit whose answer was lost: paused here, the test
            // restarts the server, and the next statement finds the connection gone.
            if super::raw::pause_for_test("committed") {
                db.execute("SELECT 1", &[])?;
            }
            Ok(done)
        })
    }

    /// `op`, done again on a new connection each time the server's is lost part-way, for
    /// as long as the server's reconnect window allows; `op` is told whether a connection
    /// was lost before it.
    // Without the PostgreSQL client nothing is done again: the loop ends in its first turn.
    #[cfg_attr(not(feature = "postgres"), allow(clippy::never_loop))]
    pub(super) fn again<T>(
        &mut self,
        mut op: impl FnMut(&mut Engine, bool) -> Result<T>,
    ) -> Result<T> {
        // Only a server's connection is lost and found again; SQLite's never is.
        #[cfg_attr(not(feature = "postgres"), allow(unused_mut))]
        let mut lost_since: Option<std::time::Instant> = None;
        #[cfg(feature = "postgres")]
        let started = std::time::Instant::now();
        loop {
            let e = match op(&mut self.engine, lost_since.is_some()) {
                Ok(value) => {
                    // The whole operation, the wait for an answer that never came
                    // included: time the command spent on the store, not its work.
                    #[cfg(feature = "postgres")]
                    if lost_since.is_some()
                        && let Engine::Postgres(pg) = &mut *self.engine
                    {
                        pg.interrupted += started.elapsed();
                    }
                    return Ok(value);
                }
                Err(e) => e,
            };
            #[cfg(feature = "postgres")]
            if let Engine::Postgres(pg) = &mut *self.engine
                && super::postgres::is_lost(&e)
            {
                let since = *lost_since.get_or_insert_with(std::time::Instant::now);
                pg.reconnect(&e, since)?;
                continue;
            }
            return Err(e);
        }
    }
}

impl Deref for Held<'_> {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
