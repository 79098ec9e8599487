//! A database made before shared moments (migrations up to 0017) takes the
//! new memory kind: on SQLite the memories table is made anew after the
//! migrations (`store/sqlite_rebuild.rs`), and every row that points at a
//! memory still does, cascades included.

mod common;

use sqlx::Row;
use sqlx::migrate::Migrator;

use kibitz::memory::{CreatedBy, Memory, MemoryType};
use kibitz::store::Db;

#[tokio::test]
async fn an_older_sqlite_database_takes_shared_moments_with_every_row_kept() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    sqlx::any::install_default_drivers();
    // The database as the code before shared moments left it.
    let old = sqlx::AnyPool::connect(&url).await.unwrap();
    let mut migrator = Migrator::new(common::repo().join("migrations/sqlite")).await.unwrap();
    migrator.migrations = migrator
        .migrations
        .iter()
        .filter(|m| m.version <= 17)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    migrator.run(&old).await.unwrap();
    let script = "
        PRAGMA foreign_keys = ON;
        INSERT INTO players (id, name, created_at) VALUES ('p', 'Ann', '2026-01-01T00:00:00Z');
        INSERT INTO matches (id, player_id, persona_id, user_color, start_fen, status, emotion, created_at)
            VALUES ('m', 'p', 'pip', 'white', 'x', 'active', 'calm', '2026-01-01T00:00:00Z');
        INSERT INTO memories (id, player_id, persona_id, memory_type, content, related_match_id, created_by, created_at)
            VALUES ('new', 'p', 'pip', 'player_observation', 'Ann teaches piano.', 'm', 'main_agent', '2026-01-02T00:00:00Z'),
                   ('old', 'p', 'pip', 'player_observation', 'Ann taught piano.', 'm', 'main_agent', '2026-01-01T00:00:00Z');
        UPDATE memories SET superseded_by = 'new' WHERE id = 'old';
        INSERT INTO recall_log (memory_id, match_id, trigger, score, reason, recalled_at)
            VALUES ('new', 'm', 'before_match', 0.5, 'greeting', '2026-01-02T00:00:00Z');
        INSERT INTO memory_versions (memory_id, content, replaced_at) VALUES ('new', 'Ann plays piano.', '2026-01-02T00:00:00Z');
    ";
    sqlx::raw_sql(script).execute(&old).await.unwrap();
    let refused = sqlx::query(
        "INSERT INTO memories (id, persona_id, memory_type, content, created_by, created_at) \
         VALUES ('x', 'pip', 'shared_moment', 'x', 'main_agent', '2026')",
    )
    .execute(&old)
    .await;
    assert!(refused.is_err(), "the old CHECK refuses the new kind");
    old.close().await;

    let db = Db::connect(&url).await.unwrap();
    let pool = db.pool();
    let count = |table: &'static str| async move {
        let row = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {table}"))
            .fetch_one(pool)
            .await
            .unwrap();
        row.get::<i64, _>("n")
    };
    assert_eq!(
        (
            count("memories").await,
            count("recall_log").await,
            count("memory_versions").await
        ),
        (2, 1, 1)
    );
    let superseded: Option<String> = sqlx::query("SELECT superseded_by FROM memories WHERE id = 'old'")
        .fetch_one(pool)
        .await
        .unwrap()
        .get("superseded_by");
    assert_eq!(superseded.as_deref(), Some("new"));
    let moment = Memory::new(
        "pip",
        MemoryType::SharedMoment,
        "Ann stalemated me.",
        CreatedBy::MainAgent,
    );
    db.insert_memory(&moment).await.expect("the new kind is taken");
    // The rows pointing at a memory still cascade with it.
    sqlx::query("UPDATE memories SET superseded_by = NULL")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM memories WHERE id = 'new'")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!((count("recall_log").await, count("memory_versions").await), (0, 0));
    drop(db);
    // Opened again, nothing is made anew (the schema says it was).
    let again = Db::connect(&url).await.unwrap();
    assert_eq!(
        sqlx::query("SELECT COUNT(*) AS n FROM memories")
            .fetch_one(again.pool())
            .await
            .unwrap()
            .get::<i64, _>("n"),
        2
    );
}
