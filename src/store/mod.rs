//! SQL persistence (sqlx; SQLite by default). The record of truth: every
//! move, message, emotion, memory and trigger is written here before it is
//! pushed to anyone.

mod consolidation;
mod erasure;
mod matches;
mod memories;
mod players;
mod timeline;

use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

pub use consolidation::ConsolidationRow;
pub use matches::{MatchRow, MoveRow, NewMatch};
pub use memories::MemoryQuery;
pub use players::Player;
pub use timeline::{DomainWrite, EmotionRow, EventRow, MessageRow, TriggerRow};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("corrupt row in {table}: {detail}")]
    Corrupt { table: &'static str, detail: String },
    #[error("unsupported database URL '{0}': use sqlite://PATH")]
    UnsupportedUrl(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

#[derive(Clone)]
pub struct Db {
    pool: SqlitePool,
}

impl Db {
    /// Opens (creating if needed) the database and applies migrations.
    pub async fn connect(url: &str) -> StoreResult<Db> {
        if !url.starts_with("sqlite:") {
            return Err(StoreError::UnsupportedUrl(url.to_string()));
        }
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL survives a killed process; only power loss may drop the last commit.
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            // Deleted content is overwritten, not left in free pages.
            .pragma("secure_delete", "ON")
            .busy_timeout(std::time::Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Db { pool })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

/// Timestamps are stored as fixed-width RFC 3339 text so they sort as text.
pub fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn parse_ts(table: &'static str, s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt {
            table,
            detail: format!("time '{s}': {e}"),
        })
}

pub fn parse_id<T: FromStr>(table: &'static str, s: &str) -> StoreResult<T> {
    s.parse().map_err(|_| StoreError::Corrupt {
        table,
        detail: format!("id '{s}'"),
    })
}
