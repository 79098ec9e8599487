//! `kibitz backup` while a server plays, and `kibitz restore` into a new
//! data dir (and, with KIBITZ_TEST_POSTGRES, a new PostgreSQL database):
//! the rows, the memories (searchable again: the index is rebuilt) and the
//! persona files come back; a non-empty target and a damaged file are refused.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Server, postgres_database, repo, test_postgres};
use serde_json::json;

/// The binary on a data dir, database and personas folder of our choosing.
fn kibitz(data: &Path, database_url: &str, personas: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(args)
        .env("KIBITZ_DATA_DIR", data)
        .env("KIBITZ_DATABASE_URL", database_url)
        .env("KIBITZ_MODELS_DIR", repo().join("models"))
        .env("KIBITZ_PERSONAS_DIR", personas)
        .env("RUST_LOG", "error")
        .env_remove("ORT_DYLIB_PATH")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).to_string();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

async fn empty_database(data: &Path) -> String {
    match test_postgres() {
        Some(admin) => postgres_database(&admin).await,
        None => format!("sqlite://{}", data.join("kibitz.db").display()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_made_while_serving_restores_whole_into_a_new_data_dir() {
    if common::skip_unless_embedded("a_backup_made_while_serving_restores_whole_into_a_new_data_dir") {
        return;
    }
    let server = Server::start().await;
    let player = server.new_player("Ines").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let chat = json!({ "text": "I restore old wooden chess sets" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);

    // While it serves.
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("club.tar.gz");
    let (ok, out, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("players 1") && out.contains("matches 1"), "{out}");
    let (ok, _, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(!ok && err.contains("exists already"), "{err}");

    let data = work.path().join("restored");
    let personas = work.path().join("personas");
    let url = empty_database(&data).await;
    let (ok, out, err) = kibitz(&data, &url, &personas, &["restore", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("every table holds the backup's rows"), "{out}");
    for persona in ["margot", "pip", "viktor"] {
        let name = format!("{persona}.toml");
        assert_eq!(
            std::fs::read(personas.join(&name)).unwrap(),
            std::fs::read(repo().join("personas").join(&name)).unwrap()
        );
    }
    let (ok, out, err) = kibitz(
        &data,
        &url,
        &personas,
        &["memories", "search", "--player", "Ines", "wooden chess sets"],
    );
    assert!(ok && out.contains("wooden chess sets"), "{out}{err}");

    // Never over something.
    let (ok, _, err) = kibitz(&data, &url, &personas, &["restore", file.to_str().unwrap()]);
    assert!(!ok && err.contains("not empty"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_backup_is_refused_before_anything_is_written() {
    let server = Server::start().await;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("club.tar.gz");
    let (ok, out, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();

    let data = work.path().join("restored");
    let personas = work.path().join("personas");
    let url = empty_database(&data).await;
    let (ok, _, err) = kibitz(&data, &url, &personas, &["restore", file.to_str().unwrap()]);
    assert!(!ok && err.contains("damaged"), "{err}");
    assert!(!personas.exists(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduled_backups_are_made_and_only_the_newest_kept() {
    let env = [("KIBITZ_BACKUP_CRON", "*/2 * * * * *"), ("KIBITZ_BACKUP_KEEP", "2")];
    let server = Server::start_with(&env).await;
    let dir = server.data_path().join("backups");
    let backups = || -> Vec<String> {
        std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n.ends_with(".tar.gz"))
                    .collect()
            })
            .unwrap_or_default()
    };
    // Three runs at least (a name per second: two in one second would be one).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 3 && std::time::Instant::now() < deadline {
        seen.extend(backups());
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(seen.len() >= 3, "{seen:?}");
    let kept = backups();
    assert!(kept.len() <= 2, "pruned to the newest two: {kept:?}");
}

/// A store an older kibitz wrote (all migrations but the newest): the
/// backup copies it as it is, and the restore migrates it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_of_an_older_store_is_taken_as_it_is_and_migrated_on_restore() {
    use sqlx::Connection;
    let work = tempfile::tempdir().unwrap();
    let old = work.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    let (url, dir) = match test_postgres() {
        Some(admin) => (postgres_database(&admin).await, "migrations/postgres"),
        None => (
            format!("sqlite://{}?mode=rwc", old.join("kibitz.db").display()),
            "migrations/sqlite",
        ),
    };
    let mut migrator = sqlx::migrate::Migrator::new(repo().join(dir)).await.unwrap();
    let latest = migrator.iter().map(|m| m.version).max().unwrap();
    let older: Vec<_> = migrator.iter().filter(|m| m.version < latest).cloned().collect();
    let previous = older.iter().map(|m| m.version).max().unwrap();
    migrator.migrations = older.into();
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    migrator.run(&mut conn).await.unwrap();
    let level = |url: String| async move {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        let row: (i64,) = sqlx::query_as("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        row.0
    };
    assert!(level(url.clone()).await < latest);

    let file = work.path().join("old.tar.gz");
    let url_plain = url.replace("?mode=rwc", "");
    let (ok, out, err) = kibitz(
        &old,
        &url_plain,
        &repo().join("personas"),
        &["backup", "--out", file.to_str().unwrap()],
    );
    assert!(ok, "{out}{err}");
    assert!(out.contains(&format!("at migration {previous}")), "{out}");
    assert!(
        level(url.clone()).await < latest,
        "the backup did not migrate what it copied"
    );

    let data = work.path().join("restored");
    let personas = work.path().join("personas");
    let restored_url = empty_database(&data).await;
    let (ok, out, err) = kibitz(&data, &restored_url, &personas, &["restore", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert_eq!(level(restored_url.clone()).await, latest, "migrated on restore");
}

/// The greeting's recall (a moment) is the same on the club and on its
/// restored copy: the same memories, rebuilt into a new index.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_restored_club_recalls_the_same_memories_for_the_same_moment() {
    if common::skip_unless_embedded("the_restored_club_recalls_the_same_memories_for_the_same_moment") {
        return;
    }
    let server = Server::start().await;
    let player = server.new_player("Odile").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    for line in [
        "I restore old wooden chess sets",
        "I always answer 1.e4 with the Caro-Kann",
    ] {
        assert_eq!(
            server
                .post(&format!("/api/matches/{m}/chat"), json!({ "text": line }))
                .await
                .0,
            200
        );
    }
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);

    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("club.tar.gz");
    let (ok, out, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let data = work.path().join("restored");
    let url = empty_database(&data).await;
    let (ok, out, err) = kibitz(
        &data,
        &url,
        &repo().join("personas"),
        &["restore", file.to_str().unwrap()],
    );
    assert!(ok, "{out}{err}");
    let restored = Server::start_on(&url, &[]).await;
    restored.know_as(&server);

    let mut recalls = Vec::new();
    for club in [&server, &restored] {
        let (m2, _) = club.new_match(&player, "pip", "black").await;
        let greeted = || async { club.triggers(&m2).await.iter().any(|t| t["trigger"] == "before_match") };
        assert!(common::eventually(30, greeted).await, "greeted");
        let mut ids: Vec<String> = club
            .triggers(&m2)
            .await
            .iter()
            .filter(|t| t["trigger"] == "before_match")
            .flat_map(|t| t["recalled_ids"].as_array().unwrap().clone())
            .map(|id| id.as_str().unwrap().to_string())
            .collect();
        ids.sort();
        recalls.push(ids);
    }
    assert!(!recalls[0].is_empty(), "the greeting recalled something");
    assert_eq!(recalls[0], recalls[1], "the same memories on the restored club");
}
