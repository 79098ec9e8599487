//! A batch of writes in as few round trips as the engine allows. sqlx runs
//! SQLite on a thread of its own and every statement is a trip there and
//! back (two thread wake-ups); on 2 cores those hops, not SQLite's work,
//! were most of a trigger's commit wait. SQLite takes a script of several
//! statements sharing one set of numbered parameters in one call, so there
//! a batch is one call: `BEGIN IMMEDIATE; ...; COMMIT`. PostgreSQL's
//! extended protocol takes one statement per message, so there the
//! statements go one by one inside a transaction.

use sqlx::{AnyPool, Executor};

use super::{Backend, Numbered, StoreResult};

pub(crate) struct Script {
    backend: Backend,
    /// PostgreSQL: the statements before `current`.
    done: Vec<Numbered>,
    /// SQLite: the whole script so far; PostgreSQL: the statement being built.
    current: Option<Numbered>,
    statements: usize,
}

impl Script {
    pub(crate) fn new(backend: Backend) -> Script {
        let current = (backend == Backend::Sqlite).then(|| Numbered::new("BEGIN IMMEDIATE"));
        Script {
            backend,
            done: Vec::new(),
            current,
            statements: 0,
        }
    }

    /// Starts a statement with `sql`; its values are bound on the builder returned.
    pub(crate) fn statement(&mut self, sql: &str) -> &mut Numbered {
        self.statements += 1;
        let next = match (self.backend, self.current.take()) {
            (Backend::Sqlite, Some(mut script)) => {
                script.push(";\n").push(sql);
                script
            }
            (_, previous) => {
                self.done.extend(previous);
                Numbered::new(sql)
            }
        };
        self.current.insert(next)
    }

    /// Runs every statement in one transaction: all of them or none.
    pub(crate) async fn commit(self, pool: &AnyPool) -> StoreResult<()> {
        if self.statements == 0 {
            return Ok(());
        }
        match (self.backend, self.current) {
            (Backend::Sqlite, Some(mut script)) => {
                script.push(";\nCOMMIT");
                sqlite_in_one_call(pool, &script).await
            }
            (_, current) => {
                let mut tx = pool.begin().await?;
                for statement in self.done.iter().chain(current.as_ref()) {
                    statement.query().execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(())
            }
        }
    }
}

async fn sqlite_in_one_call(pool: &AnyPool, script: &Numbered) -> StoreResult<()> {
    let mut conn = pool.acquire().await?;
    // Not kept in the statement cache: every batch's text is new and would
    // push the fixed statements out.
    let result = script.query().persistent(false).execute(&mut *conn).await;
    if result.is_err() && conn.execute("ROLLBACK").await.is_err() {
        // No transaction was open (BEGIN itself failed), or the connection
        // is in a state we cannot tell: the pool gets a fresh one.
        conn.close_on_drop();
    }
    result?;
    Ok(())
}
