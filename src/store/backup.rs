//! What a backup reads of the store, opened as it is (`StoreCopy`: never
//! migrated): a consistent copy of a SQLite file (`VACUUM INTO`, safe while
//! the server writes), a PostgreSQL snapshot that `pg_dump` can be pointed
//! at, the migration level, and each table's rows (their count, and a
//! digest of their contents), the figures a restore must give back.

use futures_util::TryStreamExt;
use sha2::{Digest, Sha256};
use sqlx::any::AnyPoolOptions;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool, Row};

use super::{Backend, Db, StoreResult};

/// Every table a backup counts (all but sqlx's own).
pub const TABLES: [&str; 27] = [
    "players",
    "matches",
    "moves",
    "messages",
    "emotions",
    "events",
    "memories",
    "memory_versions",
    "memory_traces",
    "recall_log",
    "trigger_log",
    "reflections",
    "puzzles",
    "lichess_games",
    "rating_history",
    "familiarity_history",
    "match_notes",
    "talk_preferences",
    "persona_cards",
    "invites",
    "llm_calls",
    "consolidation_log",
    "settings",
    "nodes",
    "match_leases",
    "leader_leases",
    "lease_history",
];

/// One table as a backup saw it: its rows, and a digest of their contents
/// that does not depend on their order (the sum of each row's SHA-256), so
/// a restore can tell it got every row back as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSummary {
    pub table: String,
    pub rows: i64,
    pub digest: String,
}

/// A store opened as it is, for a backup: no migration (a backup copies
/// what is there, whatever version wrote it), no writer of its own.
pub struct StoreCopy {
    pool: AnyPool,
    backend: Backend,
}

impl StoreCopy {
    pub async fn open(url: &str) -> StoreResult<StoreCopy> {
        sqlx::any::install_default_drivers();
        let backend = match url.starts_with("sqlite:") {
            true => Backend::Sqlite,
            false => Backend::Postgres,
        };
        let pool = AnyPoolOptions::new().max_connections(2).connect(url).await?;
        Ok(StoreCopy { pool, backend })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// The newest migration applied to this database.
    pub async fn migration_level(&self) -> StoreResult<i64> {
        migration_level(&self.pool).await
    }

    /// Each table's rows, in `TABLES` order, of the tables it has (an
    /// older store lacks the newer ones).
    pub async fn table_summaries(&self) -> StoreResult<Vec<TableSummary>> {
        let mut conn = self.pool.acquire().await?;
        summarise_tables(&mut conn, self.backend).await
    }

    /// A consistent copy of a SQLite database at `path`, while it serves.
    pub async fn sqlite_vacuum_into(&self, path: &std::path::Path) -> StoreResult<()> {
        let target = path.display().to_string().replace('\'', "''");
        sqlx::query(&format!("VACUUM INTO '{target}'"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Forgets which nodes served the store and what they held (a restored
    /// club is served anew: the backed-up club's node would otherwise
    /// still seem to serve it). The lease history stays.
    /// `present`: the store's tables, as `table_summaries` found them (an
    /// older schema may lack these).
    pub async fn forget_nodes(&self, present: &[TableSummary]) -> StoreResult<()> {
        for table in ["match_leases", "leader_leases", "nodes"] {
            if present.iter().any(|t| t.table == table) {
                sqlx::query(&format!("DELETE FROM {table}")).execute(&self.pool).await?;
            }
        }
        Ok(())
    }

    /// Sets the setting `to` to the value of `from`, if the store has it.
    pub async fn copy_setting(&self, from: &str, to: &str) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO settings (key, value) SELECT $2, value FROM settings WHERE key = $1 \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(from)
        .bind(to)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A PostgreSQL snapshot held open for `pg_dump --snapshot`, with the
    /// tables summarised in that very snapshot: what the dump holds is what
    /// the summaries say.
    pub async fn postgres_snapshot(&self) -> StoreResult<PostgresSnapshot> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *conn)
            .await?;
        let id: String = sqlx::query("SELECT pg_export_snapshot()")
            .fetch_one(&mut *conn)
            .await?
            .try_get(0)?;
        let tables = summarise_tables(&mut conn, self.backend).await?;
        Ok(PostgresSnapshot { conn, id, tables })
    }
}

/// An exported PostgreSQL snapshot, open until `release`.
pub struct PostgresSnapshot {
    conn: PoolConnection<Any>,
    /// What `pg_dump --snapshot` is given.
    pub id: String,
    pub tables: Vec<TableSummary>,
}

impl PostgresSnapshot {
    pub async fn release(mut self) -> StoreResult<Vec<TableSummary>> {
        sqlx::query("COMMIT").execute(&mut *self.conn).await?;
        Ok(self.tables)
    }
}

impl Db {
    /// The newest migration this binary knows for a backend.
    pub fn latest_migration(backend: Backend) -> i64 {
        let migrator = match backend {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("./migrations/postgres"),
        };
        migrator.iter().map(|m| m.version).max().unwrap_or(0)
    }

    /// Whether the database holds no table yet (a PostgreSQL database to
    /// restore into must be empty).
    pub async fn has_no_tables(url: &str) -> StoreResult<bool> {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(url).await?;
        let row = sqlx::query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()")
            .fetch_one(&pool)
            .await?;
        pool.close().await;
        Ok(row.try_get::<i64, _>(0)? == 0)
    }
}

async fn migration_level(pool: &AnyPool) -> StoreResult<i64> {
    let row = sqlx::query("SELECT MAX(version) FROM _sqlx_migrations")
        .fetch_one(pool)
        .await?;
    Ok(row.try_get::<Option<i64>, _>(0)?.unwrap_or(0))
}

/// Every table of `TABLES` the store has, summarised (on PostgreSQL a row's
/// text depends on the session's settings: they are fixed here, on a
/// connection of the copy's own pool, so two servers write the same).
async fn summarise_tables(conn: &mut sqlx::AnyConnection, backend: Backend) -> StoreResult<Vec<TableSummary>> {
    if backend == Backend::Postgres {
        for fixed in [
            "SET TimeZone = 'UTC'",
            "SET DateStyle = 'ISO, YMD'",
            "SET IntervalStyle = 'postgres'",
            "SET extra_float_digits = 1",
        ] {
            sqlx::query(fixed).execute(&mut *conn).await?;
        }
    }
    let listed = match backend {
        Backend::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table'",
        Backend::Postgres => {
            "SELECT CAST(table_name AS TEXT) FROM information_schema.tables WHERE table_schema = current_schema()"
        }
    };
    let present: Vec<String> = sqlx::query(listed)
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|row| row.try_get::<String, _>(0))
        .collect::<Result<_, _>>()?;
    let mut summaries = Vec::with_capacity(TABLES.len());
    for table in TABLES.into_iter().filter(|t| present.iter().any(|p| p == t)) {
        summaries.push(summarise(conn, backend, table).await?);
    }
    Ok(summaries)
}

/// One table's rows, each read as one text (PostgreSQL's row text;
/// SQLite's `quote` of each column) and hashed; the digest is the sum.
async fn summarise(conn: &mut sqlx::AnyConnection, backend: Backend, table: &str) -> StoreResult<TableSummary> {
    let query = match backend {
        Backend::Postgres => format!("SELECT CAST(t AS TEXT) FROM {table} t"),
        Backend::Sqlite => {
            let columns: Vec<String> = sqlx::query(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .fetch_all(&mut *conn)
                .await?
                .iter()
                .map(|row| row.try_get::<String, _>(0))
                .collect::<Result<_, _>>()?;
            let quoted: Vec<String> = columns.iter().map(|c| format!("quote(\"{c}\")")).collect();
            format!("SELECT {} FROM {table}", quoted.join(" || ',' || "))
        }
    };
    let (mut rows, mut sum) = (0i64, 0u128);
    let mut stream = sqlx::query(&query).fetch(&mut *conn);
    while let Some(row) = stream.try_next().await? {
        let text: String = row.try_get(0)?;
        let hash = Sha256::digest(text.as_bytes());
        sum = sum.wrapping_add(u128::from_be_bytes(hash[..16].try_into().expect("16 bytes")));
        rows += 1;
    }
    Ok(TableSummary {
        table: table.to_string(),
        rows,
        digest: format!("{sum:032x}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store_with(dir: &std::path::Path, name: &str, rows: &[(i64, &str)]) -> StoreCopy {
        let url = format!("sqlite://{}?mode=rwc", dir.join(name).display());
        let copy = StoreCopy::open(&url).await.unwrap();
        sqlx::query("CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT, rating REAL)")
            .execute(&copy.pool)
            .await
            .unwrap();
        for (id, player) in rows {
            sqlx::query("INSERT INTO players VALUES (?, ?, 1500.5)")
                .bind(*id)
                .bind(*player)
                .execute(&copy.pool)
                .await
                .unwrap();
        }
        copy
    }

    #[tokio::test]
    async fn the_digest_sees_one_changed_cell_and_not_the_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = store_with(dir.path(), "a.db", &[(1, "Ann"), (2, "Bea")]).await;
        let b = store_with(dir.path(), "b.db", &[(2, "Bea"), (1, "Ann")]).await;
        let c = store_with(dir.path(), "c.db", &[(1, "Ann"), (2, "Bee")]).await;
        let (a, b, c) = (
            a.table_summaries().await.unwrap(),
            b.table_summaries().await.unwrap(),
            c.table_summaries().await.unwrap(),
        );
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].table.as_str(), a[0].rows), ("players", 2));
        assert_eq!(a, b, "the same rows, written in another order");
        assert_eq!(a[0].rows, c[0].rows);
        assert_ne!(a[0].digest, c[0].digest, "one name differs");
    }
}
