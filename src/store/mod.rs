//! SQL persistence (sqlx; SQLite by default). The record of truth: every
//! move, message, emotion, memory and trigger is written here before it is
//! pushed to anyone.

mod backup;
mod controls;
mod erasure;
mod invites;
mod journal;
mod leases;
mod llm_calls;
mod matches;
mod persona_cards;
mod players;
mod provenance;
mod readers;
mod recall_log;
mod script;
pub mod scrub;
mod settings;
mod sqlite_rebuild;
mod timeline;

use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{AnyPool, ConnectOptions, Connection, Executor};

pub use backup::{StoreCopy, TABLES, TableSummary};
pub use controls::{MatchNote, NoteKind};
pub use erasure::{Erased, Erasure, NET_MIN_CHARS};
pub use journal::{DomainWrite, NewEvent, OnCommit, Queued, TriggerLogEntry};
pub use leases::{Claim, Holder, LeaseChange, NodeRun, PeerNode};
pub use llm_calls::LlmCallRow;
pub use matches::{MatchRow, MatchStatus, MoveRow, NewMatch};
pub use persona_cards::StoredCard;
pub use players::Player;
pub use provenance::{MemoryVersion, Trace};
pub use recall_log::RecallEntry;
pub(crate) use recall_log::tags_json;
pub use scrub::forget_in_reflection;
pub use timeline::{EmotionRow, EventRow, MessageRow, TriggerRow};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("corrupt row in {table}: {detail}")]
    Corrupt { table: &'static str, detail: String },
    #[error("the database writer has stopped")]
    WriterStopped,
    /// A match's earlier write failed; its later ones wait for it to reload.
    #[error("an earlier write of this match failed; the match goes back to what was stored")]
    EarlierWriteFailed,
    #[error("unsupported database URL '{0}': use sqlite://PATH or postgres://USER:PASSWORD@HOST/DB")]
    UnsupportedUrl(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Which SQL engine is behind the pool; the SQL is shared, a few
/// maintenance statements are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Db {
    /// SQLite: one connection, so writers queue here in order rather than in
    /// SQLite's busy handler, which sleeps 1-100 ms between retries when two
    /// connections want to write at once. PostgreSQL: eight.
    pool: AnyPool,
    backend: Backend,
    url: std::sync::Arc<str>,
    /// The timeline's group-commit writer (`journal.rs`).
    journal: journal::Journal,
    /// PostgreSQL: a VACUUM after erasures is waiting to run (`erasure.rs`).
    vacuum_pending: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// SQLite: read-only connections beside the writer (`readers.rs`).
    readers: readers::Readers,
}

/// Moves the SQLite WAL into the database file, on a connection of its own
/// (opened on first use).
pub struct Checkpointer {
    url: std::sync::Arc<str>,
    conn: Option<sqlx::SqliteConnection>,
}

/// What one checkpoint found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// Frames in the WAL when it began.
    pub wal_frames: i64,
    /// PASSIVE passes run (each copies what was written during the last).
    pub passes: u32,
    /// Whether the backstop RESTART pass ran (the passes never caught up).
    pub forced: bool,
    /// Whether the WAL starts over at the next write (false: a reader or
    /// writer held it past the busy timeout; the next checkpoint tries again).
    pub restarted: bool,
}

/// PASSIVE passes before the RESTART backstop, which then has only what
/// one short pass missed to copy.
const PASSIVE_PASSES: u32 = 6;

impl Checkpointer {
    /// PASSIVE passes copy the WAL without holding anyone up, each one the
    /// frames written during the one before, until a pass finds every frame
    /// copied and none added since the pass before (or the WAL already
    /// started over by a writer, all of it copied): the next write then
    /// starts the WAL file over. Only a writer that never pauses outruns
    /// them; then a RESTART pass copies the rest while it holds writers
    /// back. (RESTART after every first pass, as before, held every match's
    /// commit 35-57 ms every 5 s at 1,000 live matches: 7-38 ms of copying,
    /// stretched by SQLite's busy handler, which sleeps 1, 2, 5, 10... ms
    /// between retries.) Without restarts the WAL grows to the
    /// autocheckpoint backstop (~400 MB), every frame lands on a fresh,
    /// zero-filled page, and a restart after a crash has to read it all.
    pub async fn run(&mut self) -> StoreResult<Checkpoint> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self
                .conn
                .insert(SqliteConnectOptions::from_str(&self.url)?.connect().await?),
        };
        let (_, wal_frames, _) = checkpoint(conn, "PRAGMA wal_checkpoint(PASSIVE)").await?;
        let mut done = Checkpoint {
            wal_frames,
            passes: 1,
            forced: false,
            restarted: false,
        };
        let mut frames_before = wal_frames;
        while !done.restarted && done.passes < PASSIVE_PASSES {
            let (_, frames, copied) = checkpoint(conn, "PRAGMA wal_checkpoint(PASSIVE)").await?;
            done.passes += 1;
            // Fewer frames than before: a writer has started the WAL over.
            done.restarted = copied >= frames && frames <= frames_before;
            frames_before = frames;
        }
        if !done.restarted {
            let (busy, _, _) = checkpoint(conn, "PRAGMA wal_checkpoint(RESTART)").await?;
            done.forced = true;
            done.restarted = busy == 0;
        }
        Ok(done)
    }
}

/// A `PRAGMA wal_checkpoint`'s answer: (busy, frames in the WAL, frames copied).
async fn checkpoint(conn: &mut sqlx::SqliteConnection, pragma: &'static str) -> StoreResult<(i64, i64, i64)> {
    Ok(sqlx::query_as(pragma).fetch_one(conn).await?)
}

/// Per-connection SQLite settings. WAL + NORMAL survives a killed process
/// (only power loss may drop the last commit); secure_delete overwrites
/// deleted content instead of leaving it in free pages. Checkpoints (the
/// only fsyncs) run from `checkpoint`, off the request path; the automatic
/// one is kept only as a backstop at ~400 MB of WAL.
const SQLITE_PRAGMAS: &str = "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; \
     PRAGMA busy_timeout = 5000; PRAGMA wal_autocheckpoint = 100000;";

impl Db {
    /// Moves the SQLite WAL into the database file every `period`
    /// (PostgreSQL does its own), on a background task with a connection of
    /// its own; writers wait only if a RESTART pass is forced (`Checkpointer`).
    pub fn checkpoint_every(&self, period: std::time::Duration) {
        let Some(mut checkpointer) = self.checkpointer() else {
            return;
        };
        tokio::spawn(async move {
            let mut every = tokio::time::interval(period);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                match checkpointer.run().await {
                    Ok(done) => tracing::debug!(?done, "SQLite checkpoint"),
                    Err(e) => {
                        tracing::warn!("SQLite checkpoint failed: {e}");
                        checkpointer.conn = None;
                    }
                }
            }
        });
    }

    /// The SQLite WAL's checkpointer (None on PostgreSQL, which does its own).
    pub fn checkpointer(&self) -> Option<Checkpointer> {
        (self.backend == Backend::Sqlite).then(|| Checkpointer {
            url: self.url.clone(),
            conn: None,
        })
    }

    /// Opens (creating if needed) the database and applies migrations.
    /// Placeholders are written `$1, $2, ...`, which both engines accept.
    pub async fn connect(url: &str) -> StoreResult<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::UnsupportedUrl(crate::config::redact::redact_url(url)));
        };
        if backend == Backend::Sqlite {
            // Create the file and switch it to WAL once; the mode is stored in the file.
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal);
            options.connect().await?.close().await?;
        }
        let options = AnyConnectOptions::from_str(url)?;
        let pool = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 1 } else { 8 })
            // sqlx pings a connection before lending it: on SQLite a round
            // trip to the connection's thread on every query's path, for a
            // file that has no peer to lose (its ping as the connection
            // comes back still catches a broken one). bench trigger at 1M:
            // commit wait p50 0.19-0.29 -> 0.15-0.22 ms (1,000 triggers a run).
            .test_before_acquire(backend != Backend::Sqlite)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute(SQLITE_PRAGMAS).await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await?;
        match backend {
            Backend::Sqlite => {
                sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
                sqlite_rebuild::run(&pool).await?;
            }
            Backend::Postgres => sqlx::migrate!("./migrations/postgres").run(&pool).await?,
        }
        Ok(Db {
            journal: journal::Journal::start(pool.clone(), backend),
            vacuum_pending: Default::default(),
            readers: readers::Readers::for_backend(backend),
            pool,
            backend,
            url: url.into(),
        })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }
}

/// SQL built piece by piece, with `$n` placeholders numbered as values are
/// bound (sqlx's QueryBuilder writes `?` for the Any driver, which
/// PostgreSQL rejects).
pub(crate) struct Numbered {
    sql: String,
    args: Vec<Arg>,
}

pub(crate) enum Arg {
    Text(String),
    Int(i64),
    Real(f64),
    // NULLs keep their column's type: PostgreSQL refuses a text NULL in a real column.
    NullText,
    NullReal,
    NullInt,
}

impl Arg {
    pub(crate) fn text(value: impl Into<String>) -> Arg {
        Arg::Text(value.into())
    }

    pub(crate) fn opt_text(value: Option<impl Into<String>>) -> Arg {
        value.map_or(Arg::NullText, Arg::text)
    }

    pub(crate) fn opt_real(value: Option<f64>) -> Arg {
        value.map_or(Arg::NullReal, Arg::Real)
    }

    pub(crate) fn opt_int(value: Option<i64>) -> Arg {
        value.map_or(Arg::NullInt, Arg::Int)
    }
}

impl Numbered {
    pub(crate) fn new(sql: impl Into<String>) -> Numbered {
        Numbered {
            sql: sql.into(),
            args: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, sql: &str) -> &mut Numbered {
        self.sql.push_str(sql);
        self
    }

    pub(crate) fn text(&mut self, value: impl Into<String>) -> &mut Numbered {
        self.args.push(Arg::Text(value.into()));
        self.placeholder()
    }

    pub(crate) fn int(&mut self, value: i64) -> &mut Numbered {
        self.args.push(Arg::Int(value));
        self.placeholder()
    }

    pub(crate) fn real(&mut self, value: f64) -> &mut Numbered {
        self.args.push(Arg::Real(value));
        self.placeholder()
    }

    pub(crate) fn opt_int(&mut self, value: Option<i64>) -> &mut Numbered {
        self.args.push(Arg::opt_int(value));
        self.placeholder()
    }

    pub(crate) fn opt_text(&mut self, value: Option<impl Into<String>>) -> &mut Numbered {
        self.args.push(Arg::opt_text(value));
        self.placeholder()
    }

    /// `(v1, v2, ...)`: one row of an INSERT's VALUES.
    pub(crate) fn row(&mut self, values: impl IntoIterator<Item = Arg>) -> &mut Numbered {
        self.push("(");
        for (i, value) in values.into_iter().enumerate() {
            self.push(if i == 0 { "" } else { ", " });
            self.args.push(value);
            self.placeholder();
        }
        self.push(")")
    }

    /// Appends `other`'s SQL and values, its `$n` placeholders renumbered
    /// after this one's. (Statement texts are the code's own and hold no `$`
    /// but placeholders: values are always bound.)
    pub(crate) fn append(&mut self, other: Numbered) -> &mut Numbered {
        let offset = self.args.len();
        let mut rest = other.sql.as_str();
        while let Some(at) = rest.find('$') {
            self.sql.push_str(&rest[..=at]);
            let digits = rest[at + 1..].bytes().take_while(u8::is_ascii_digit).count();
            let n: usize = rest[at + 1..at + 1 + digits].parse().expect("a numbered placeholder");
            self.sql.push_str(&(n + offset).to_string());
            rest = &rest[at + 1 + digits..];
        }
        self.sql.push_str(rest);
        self.args.extend(other.args);
        self
    }

    fn placeholder(&mut self) -> &mut Numbered {
        self.sql.push_str(&format!("${}", self.args.len()));
        self
    }

    pub(crate) fn query(&self) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
        self.args.iter().fold(sqlx::query(&self.sql), |q, arg| match arg {
            Arg::Text(t) => q.bind(t.as_str()),
            Arg::Int(i) => q.bind(*i),
            Arg::Real(r) => q.bind(*r),
            Arg::NullText => q.bind(None::<String>),
            Arg::NullReal => q.bind(None::<f64>),
            Arg::NullInt => q.bind(None::<i64>),
        })
    }
}

/// Flags are stored as 0/1 integers in both engines.
pub fn flag(on: bool) -> i64 {
    i64::from(on)
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
