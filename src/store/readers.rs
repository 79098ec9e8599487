//! Connections for the reads on a trigger's path (a recall's memory rows).
//!
//! On SQLite the pool has one connection, which every writer shares (see
//! `Db::pool`). A read through it waits for the connection's return to the
//! pool, which sqlx does on a task of its own, and for whatever group commit
//! holds it: `SELECT 1` took 126 µs at p50 through the pool against 20 µs on
//! a connection already held (`kibitz bench trigger`, 2 cores). WAL lets
//! readers work beside the writer, so a few read-only connections of their
//! own, each lent to one reader at a time, take these reads off the pool.
//! Each statement runs in its own transaction and sees every commit made
//! before it began. On PostgreSQL the pool already has several connections:
//! reads borrow one of them.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::any::{AnyConnectOptions, AnyRow};
use sqlx::{AnyConnection, ConnectOptions, Executor};
use tokio::sync::Mutex;

use super::{Backend, Db, Numbered, StoreResult};

/// As many as the cores that run them: more would only wait for a core.
const SQLITE_READERS: usize = 2;

/// The SQLite readers (none on PostgreSQL), each opened on first use.
#[derive(Clone, Default)]
pub(super) struct Readers {
    slots: Arc<Vec<Mutex<Option<AnyConnection>>>>,
    next: Arc<AtomicUsize>,
}

impl Readers {
    pub(super) fn for_backend(backend: Backend) -> Readers {
        let count = match backend {
            Backend::Sqlite => SQLITE_READERS,
            Backend::Postgres => 0,
        };
        Readers {
            slots: Arc::new((0..count).map(|_| Mutex::new(None)).collect()),
            next: Arc::default(),
        }
    }
}

impl Db {
    /// The rows `sql` selects, read beside the writers (module docs). A
    /// reader whose statement failed is closed and opened anew next time, in
    /// case the failure was its connection's.
    pub(crate) async fn read_rows(&self, sql: &Numbered) -> StoreResult<Vec<AnyRow>> {
        let slots = &self.readers.slots;
        if slots.is_empty() {
            return Ok(sql.query().fetch_all(self.pool()).await?);
        }
        // A free reader if there is one, else wait for them in turn.
        let mut slot = match slots.iter().find_map(|s| s.try_lock().ok()) {
            Some(free) => free,
            None => {
                slots[self.readers.next.fetch_add(1, Ordering::Relaxed) % slots.len()]
                    .lock()
                    .await
            }
        };
        let conn = match slot.as_mut() {
            Some(conn) => conn,
            None => slot.insert(self.open_reader().await?),
        };
        let rows = sql.query().fetch_all(&mut *conn).await;
        if rows.is_err() {
            *slot = None;
        }
        Ok(rows?)
    }

    async fn open_reader(&self) -> StoreResult<AnyConnection> {
        let mut conn = AnyConnectOptions::from_str(&self.url)?.connect().await?;
        conn.execute("PRAGMA query_only = ON; PRAGMA busy_timeout = 5000;")
            .await?;
        Ok(conn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader sees what the writer committed just before, and cannot write.
    #[tokio::test]
    async fn a_reader_sees_the_last_commit_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}", dir.path().join("r.db").display()))
            .await
            .unwrap();
        let count = |db: Db| async move {
            let rows = db
                .read_rows(&Numbered::new("SELECT COUNT(*) AS n FROM players"))
                .await
                .unwrap();
            sqlx::Row::get::<i64, _>(&rows[0], "n")
        };
        assert_eq!(count(db.clone()).await, 0);
        db.create_player("Ann", "hash-a").await.unwrap();
        assert_eq!(count(db.clone()).await, 1, "the commit before is seen");
        db.create_player("Bea", "hash-b").await.unwrap();
        assert_eq!(count(db.clone()).await, 2);
        let write = db.read_rows(&Numbered::new("DELETE FROM players RETURNING id")).await;
        assert!(write.is_err(), "a reader refuses to write");
        assert_eq!(count(db.clone()).await, 2, "and the reader after a failure works");
    }
}
