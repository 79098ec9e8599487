//! Schema changes SQLite cannot make inside a migration: a CHECK constraint
//! widened means the table made anew, and that needs foreign keys off,
//! which SQLite refuses to change inside the transaction sqlx runs each
//! migration in. So they run here, right after the migrations, each once
//! (what the table's schema says tells whether it ran), in one transaction
//! on a connection with foreign keys off, checked before the commit.

use sqlx::{AnyConnection, AnyPool, Connection, Executor, Row};

use super::{StoreError, StoreResult};

/// (table, what its schema holds once rebuilt, the script).
const REBUILDS: &[(&str, &str, &str)] = &[(
    "memories",
    "'shared_moment'",
    include_str!("../../migrations/sqlite-rebuilds/0018_memories.sql"),
)];

pub(super) async fn run(pool: &AnyPool) -> StoreResult<()> {
    for (table, rebuilt, script) in REBUILDS {
        let row = sqlx::query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = $1")
            .bind(*table)
            .fetch_one(pool)
            .await?;
        let schema: String = row.get("sql");
        if schema.contains(rebuilt) {
            continue;
        }
        tracing::info!(
            table,
            "making the table anew for a schema change SQLite cannot make in place"
        );
        let mut conn = pool.acquire().await?;
        conn.execute("PRAGMA foreign_keys = OFF").await?;
        let done = rebuild(&mut conn, script).await;
        // Back on whatever happened: the pool lends this connection again.
        conn.execute("PRAGMA foreign_keys = ON").await?;
        done?;
    }
    Ok(())
}

async fn rebuild(conn: &mut AnyConnection, script: &str) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    tx.execute(script).await?;
    let broken = sqlx::query("PRAGMA foreign_key_check").fetch_all(&mut *tx).await?;
    if !broken.is_empty() {
        return Err(StoreError::Corrupt {
            table: "memories",
            detail: format!(
                "{} rows point at nothing after the rebuild; nothing was changed",
                broken.len()
            ),
        });
    }
    tx.commit().await?;
    Ok(())
}
