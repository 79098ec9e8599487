//! What a backup reads of the store, opened as it is (`StoreCopy`: never
//! migrated): a consistent copy of a SQLite file (`VACUUM INTO`, safe while
//! the server writes), a PostgreSQL snapshot that `pg_dump` can be pointed
//! at, the migration level, and each table's row count, the figures a
//! restore must give back.

use sqlx::any::AnyPoolOptions;
use sqlx::{Acquire, AnyPool, Row};

use super::{Backend, Db, StoreResult};

/// Every table a backup counts (all but sqlx's own).
pub const TABLES: [&str; 25] = [
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
    pub async fn table_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        let mut conn = self.pool.acquire().await?;
        count_tables(&mut conn, self.backend).await
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
    /// `present`: the store's tables, as `table_counts` found them (an
    /// older schema may lack these).
    pub async fn forget_nodes(&self, present: &[(String, i64)]) -> StoreResult<()> {
        for table in ["match_leases", "leader_leases", "nodes"] {
            if present.iter().any(|(t, _)| t == table) {
                sqlx::query(&format!("DELETE FROM {table}")).execute(&self.pool).await?;
            }
        }
        Ok(())
    }

    /// Runs `dump` with the id of a PostgreSQL snapshot (`pg_dump
    /// --snapshot`) held open meanwhile, and counts the tables in that very
    /// snapshot: what the dump holds is what the counts say.
    pub async fn in_postgres_snapshot<F, T, E>(&self, dump: F) -> StoreResult<(Result<T, E>, Vec<(String, i64)>)>
    where
        F: AsyncFnOnce(String) -> Result<T, E>,
    {
        let mut conn = self.pool.acquire().await?;
        let mut tx = conn.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let snapshot: String = sqlx::query("SELECT pg_export_snapshot()")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        let counts = count_tables(&mut tx, self.backend).await?;
        let dumped = dump(snapshot).await;
        tx.commit().await?;
        Ok((dumped, counts))
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

    /// Each table's rows, in `TABLES` order.
    pub async fn table_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        let mut conn = self.pool().acquire().await?;
        count_tables(&mut conn, self.backend()).await
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

async fn count_tables(conn: &mut sqlx::AnyConnection, backend: Backend) -> StoreResult<Vec<(String, i64)>> {
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
    let mut counts = Vec::with_capacity(TABLES.len());
    for table in TABLES.iter().filter(|t| present.iter().any(|p| p == *t)) {
        let row = sqlx::query(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&mut *conn)
            .await?;
        counts.push((table.to_string(), row.try_get::<i64, _>(0)?));
    }
    Ok(counts)
}
