//! A batch of writes in as few round trips, and as few statements, as the
//! engine allows. sqlx runs SQLite on a thread of its own and every
//! statement is a trip there and back (two thread wake-ups); on 2 cores
//! those hops, not SQLite's work, were most of a trigger's commit wait.
//! SQLite takes a script of several statements sharing one set of numbered
//! parameters in one call, so there a batch is one call:
//! `BEGIN IMMEDIATE; ...; COMMIT`. PostgreSQL's extended protocol takes one
//! statement per message, so there the statements go one by one inside a
//! transaction.
//!
//! Rows of the same INSERT share one statement, wherever in the batch they
//! were added: a script is parsed anew each time, and at 1,000 live matches
//! parsing the batch's statements one row each was a quarter of the SQLite
//! thread's time. A row joins the first statement of its table, so it can
//! only run earlier than it was added; no write of a batch depends on an
//! update queued before it (rows refer to matches and memories written
//! outside the journal).

use std::collections::HashMap;

use sqlx::{AnyPool, Executor};

use super::{Arg, Backend, Numbered, StoreResult};

pub(crate) struct Script {
    backend: Backend,
    statements: Vec<Numbered>,
    /// Each INSERT's statement (by its text up to VALUES), for its next rows.
    inserts: HashMap<&'static str, usize>,
}

impl Script {
    pub(crate) fn new(backend: Backend) -> Script {
        Script {
            backend,
            statements: Vec::new(),
            inserts: HashMap::new(),
        }
    }

    /// Starts a statement of its own with `sql`; its values are bound on the builder returned.
    pub(crate) fn statement(&mut self, sql: &str) -> &mut Numbered {
        self.statements.push(Numbered::new(sql));
        self.statements.last_mut().expect("just pushed")
    }

    /// Adds a row to `into` (`INSERT INTO t (a, b) VALUES `), in the batch's
    /// statement for that INSERT if it has one.
    pub(crate) fn insert(&mut self, into: &'static str, row: impl IntoIterator<Item = Arg>) {
        let statement = match self.inserts.get(into) {
            Some(&at) => self.statements[at].push(", "),
            None => {
                self.inserts.insert(into, self.statements.len());
                self.statement(into)
            }
        };
        statement.row(row);
    }

    /// Runs every statement in one transaction: all of them or none.
    pub(crate) async fn commit(self, pool: &AnyPool) -> StoreResult<()> {
        if self.statements.is_empty() {
            return Ok(());
        }
        if self.backend == Backend::Sqlite {
            return sqlite_in_one_call(pool, &self.sqlite_script()).await;
        }
        let mut tx = pool.begin().await?;
        for statement in &self.statements {
            statement.query().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

impl Script {
    /// The whole batch as one SQLite script, its placeholders numbered through.
    fn sqlite_script(self) -> Numbered {
        let mut script = Numbered::new("BEGIN IMMEDIATE");
        for statement in self.statements {
            script.push(";\n").append(statement);
        }
        script.push(";\nCOMMIT");
        script
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

#[cfg(test)]
mod tests {
    use super::*;

    const INTO_T: &str = "INSERT INTO t (a, b) VALUES ";

    fn batch() -> Script {
        let mut script = Script::new(Backend::Sqlite);
        script.insert(INTO_T, [Arg::Int(1), Arg::text("one")]);
        script
            .statement("UPDATE t SET b = ")
            .text("uno")
            .push(" WHERE a = ")
            .int(1);
        script.insert(INTO_T, [Arg::Int(2), Arg::text("two")]);
        script
    }

    #[test]
    fn rows_of_one_insert_share_a_statement_and_placeholders_run_on() {
        assert_eq!(
            batch().sqlite_script().sql,
            "BEGIN IMMEDIATE;\nINSERT INTO t (a, b) VALUES ($1, $2), ($3, $4);\n\
             UPDATE t SET b = $5 WHERE a = $6;\nCOMMIT"
        );
    }

    #[tokio::test]
    async fn a_merged_batch_writes_every_row_and_update() {
        sqlx::any::install_default_drivers();
        let pool = sqlx::any::AnyPoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        pool.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
            .await
            .unwrap();
        batch().commit(&pool).await.unwrap();
        let rows: Vec<(i64, String)> = sqlx::query_as("SELECT a, b FROM t ORDER BY a")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(rows, [(1, "uno".to_string()), (2, "two".to_string())]);
    }
}
