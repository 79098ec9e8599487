//! `kibitz backup` while a server plays, and `kibitz restore` into a new
//! data dir (and, with KIBITZ_TEST_POSTGRES, a new PostgreSQL database):
//! the rows, the memories (searchable again: the index is rebuilt) and the
//! persona files come back; a non-empty target and a damaged file are refused.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Server, postgres_database, repo, test_postgres};
use serde_json::{Value, json};

/// The binary on a data dir, database and personas folder of our choosing.
fn kibitz(data: &Path, database_url: &str, personas: &Path, args: &[&str]) -> (bool, String, String) {
    kibitz_with(data, database_url, personas, &[], args)
}

fn kibitz_with(
    data: &Path,
    database_url: &str,
    personas: &Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(args)
        .env("KIBITZ_DATA_DIR", data)
        .env("KIBITZ_DATABASE_URL", database_url)
        .env("KIBITZ_MODELS_DIR", repo().join("models"))
        .env("KIBITZ_PERSONAS_DIR", personas)
        .env("RUST_LOG", "error")
        .env_remove("ORT_DYLIB_PATH")
        .envs(env.iter().copied())
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

const ADMIN: &str = "admin-token-for-the-backup-tests";

/// Every file under `dir` (its path inside, with '/'), with its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut found = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()) {
        let name = entry.file_name().to_string_lossy().to_string();
        match entry.file_type().unwrap().is_dir() {
            true => found.extend(
                folder(&entry.path())
                    .into_iter()
                    .map(|(k, v)| (format!("{name}/{k}"), v)),
            ),
            false => drop(found.insert(name, std::fs::read(entry.path()).unwrap())),
        }
    }
    found
}

/// What a player and an operator see of a club: the matches with their
/// moves and results, the rating, every memory with its versions, the personas.
async fn club_view(club: &Server, player: &str, matches: &[&str]) -> serde_json::Value {
    let mut seen = serde_json::Map::new();
    for m in matches {
        let (_, state) = club.get(&format!("/api/matches/{m}")).await;
        let moves: Vec<&str> = state["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["san"].as_str().unwrap())
            .collect();
        seen.insert(format!("match {m}"), json!([moves, state["status"], state["result"]]));
    }
    let (_, rating) = club
        .get_as(&format!("/api/players/{player}/rating"), &club.token(player))
        .await;
    assert!(rating["rating"].is_number(), "{rating}");
    // The pairings are reckoned from the roster, in its order of loading.
    seen.insert(
        "rating".into(),
        json!([rating["rating"], rating["deviation"], rating["history"]]),
    );
    for memory in club.memories(player).await {
        let id = memory["id"].as_str().unwrap();
        let (_, shown) = club.get_as(&format!("/api/memories/{id}"), &club.token(player)).await;
        let versions: Vec<&Value> = shown["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| &v["content"])
            .collect();
        seen.insert(
            format!("memory {id}"),
            json!([memory["content"], memory["pinned"], versions]),
        );
    }
    let (_, personas) = club.get("/api/personas").await;
    let mut ids: Vec<&str> = personas
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    ids.sort();
    seen.insert("personas".into(), json!(ids));
    Value::Object(seen)
}

/// A club in the middle of a game, after a finished one, with an edited
/// memory and an imported card, backed up while it serves: the restore
/// checks every table row for row, and a server on the copy shows the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_made_in_the_middle_of_live_matches_restores_every_row() {
    if common::skip_unless_embedded("a_backup_made_in_the_middle_of_live_matches_restores_every_row") {
        return;
    }
    let club_personas = common::cards::personas_copy();
    let dir = club_personas.path().to_string_lossy().to_string();
    let server = Server::start_with(&[("KIBITZ_PERSONAS_DIR", &dir), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let player = server.new_player("Ines").await;
    let (live, _) = server.new_match(&player, "pip", "white").await;
    for (mv, plies) in [("e4", 2), ("d4", 4)] {
        assert_eq!(
            server
                .post(&format!("/api/matches/{live}/moves"), json!({ "move": mv }))
                .await
                .0,
            200
        );
        let answered = || async {
            let (_, state) = server.get(&format!("/api/matches/{live}")).await;
            state["moves"].as_array().unwrap().len() == plies
        };
        assert!(common::eventually(30, answered).await, "pip answered {mv}");
    }
    server.say(&live, "I restore old wooden chess sets").await;
    let (done, _) = server.new_match(&player, "margot", "black").await;
    server.resign(&done).await;
    let remembered = || async { !server.memories(&player).await.is_empty() };
    assert!(common::eventually(30, remembered).await, "something remembered");
    let first = server.memories(&player).await[0]["id"].as_str().unwrap().to_string();
    let edit = json!({ "content": "Ines restores antique wooden chess sets" });
    let (status, out) = server
        .send_as(
            reqwest::Method::PATCH,
            &format!("/api/memories/{first}"),
            Some(&server.token(&player)),
            Some(edit),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let (status, out) = common::cards::import_card(&server, ADMIN, "", common::cards::captain_v3_png()).await;
    assert_eq!(status, 201, "{out}");
    let before = club_view(&server, &player, &[&live, &done]).await;
    assert!(
        before.to_string().contains("captain-rook") && before.to_string().contains("antique"),
        "{before}"
    );

    // While it serves.
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("club.tar.gz");
    let (ok, out, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("players 1") && out.contains("matches 2"), "{out}");
    let (ok, _, err) = server.run_cli(&["backup", "--out", file.to_str().unwrap()]);
    assert!(!ok && err.contains("exists already"), "{err}");

    let data = work.path().join("restored");
    let personas = work.path().join("personas");
    let url = empty_database(&data).await;
    let (ok, out, err) = kibitz(&data, &url, &personas, &["restore", file.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("every table holds the backup's rows, row for row"),
        "{out}"
    );
    let (theirs, ours) = (folder(club_personas.path()), folder(&personas));
    assert!(
        theirs.keys().any(|k| k.starts_with("captain-rook.assets/")),
        "the card's images: {:?}",
        theirs.keys()
    );
    assert!(theirs == ours, "the personas folder, images and all");
    let (ok, out, err) = kibitz(
        &data,
        &url,
        &personas,
        &["memories", "search", "--player", "Ines", "wooden chess sets"],
    );
    assert!(ok && out.contains("wooden chess sets"), "{out}{err}");
    let personas_env = personas.to_string_lossy().to_string();
    let restored = Server::start_on(&url, &[("KIBITZ_PERSONAS_DIR", &personas_env)]).await;
    restored.know_as(&server);
    assert_eq!(club_view(&restored, &player, &[&live, &done]).await, before);

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
        server.say(&m, line).await;
    }
    server.resign(&m).await;

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

/// With a Qdrant server (`make test-qdrant`): `--qdrant-snapshot` puts the
/// collection in the backup, and the restore makes a new collection of it,
/// so opening the restored club embeds nothing again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qdrant_snapshot_brings_the_index_back_without_embedding_again() {
    let Some(qdrant) = common::test_qdrant() else {
        eprintln!("skipped: KIBITZ_TEST_QDRANT names no Qdrant server (make test-qdrant)");
        return;
    };
    let server = Server::start().await;
    let player = server.new_player("Pia").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    server.say(&m, "I restore old wooden chess sets").await;
    let remembered = || async { !server.memories(&player).await.is_empty() };
    assert!(common::eventually(30, remembered).await, "something remembered");

    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("club.tar.gz");
    let personas = repo().join("personas");
    let club = [
        ("KIBITZ_QDRANT_URL", qdrant.as_str()),
        ("KIBITZ_QDRANT_COLLECTION", server.qdrant_collection()),
    ];
    let args = ["backup", "--qdrant-snapshot", "--out", file.to_str().unwrap()];
    let (ok, out, err) = kibitz_with(server.data_path(), &server.database_url, &personas, &club, &args);
    assert!(ok, "{out}{err}");
    assert!(out.contains("a snapshot of the Qdrant collection"), "{out}");

    // Into a new collection; the club's own is refused (it has points).
    let data = work.path().join("restored");
    let url = empty_database(&data).await;
    let restore = ["restore", file.to_str().unwrap()];
    let (ok, _, err) = kibitz_with(&data, &url, &work.path().join("p"), &club, &restore);
    assert!(!ok && err.contains("already has"), "{err}");
    let collection = format!("kibitz_restored_{}", std::process::id());
    let target = [
        ("KIBITZ_QDRANT_URL", qdrant.as_str()),
        ("KIBITZ_QDRANT_COLLECTION", collection.as_str()),
        ("RUST_LOG", "info"),
    ];
    let (ok, out, err) = kibitz_with(&data, &url, &work.path().join("p"), &target, &restore);
    common::drop_collection(&qdrant, &collection);
    assert!(ok, "{out}{err}");
    assert!(out.contains("was made from the backup's snapshot"), "{out}");
    assert!(
        !err.contains("memories embedded") && !err.contains("embedding memories") && !err.contains("disagrees"),
        "nothing embedded again: {err}"
    );
}
