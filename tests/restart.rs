//! Killing the server mid-game loses nothing: the match, its moves, messages
//! and memories are there after a restart, and the game goes on.

mod common;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_resumes_the_game() {
    // No deeper evaluation: it could revise the odds between the snapshot
    // and the kill, and this test compares the two exactly.
    let mut server = Server::start_with(&[("KIBITZ_EVAL_DEEP_NODES", "0")]).await;
    let player = server.new_player("Rosa").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    for mv in ["e4", "Nf3"] {
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{out}");
    }
    let chat = json!({ "text": "My grandmother taught me to play chess" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    let (_, before) = server.get(&format!("/api/matches/{m}")).await;
    let events_before = server.events(&m).await;
    let memories_before = server.memories(&player).await;
    assert!(!memories_before.is_empty());

    server.kill();
    server.launch().await;

    let (status, after) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(status, 200, "{after}");
    for field in ["fen", "moves", "status", "emotion", "user_color", "pgn"] {
        assert_eq!(before[field], after[field], "{field} changed across the restart");
    }
    assert_eq!(server.events(&m).await, events_before, "the event log survived");
    let memories_after = server.memories(&player).await;
    assert_eq!(memories_before, memories_after);

    // The game goes on: a move is accepted and answered.
    let next = after["legal_moves"][0]["san"].clone();
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": next }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["moves"].as_array().unwrap().len(), 6);
    let seqs: Vec<i64> = server
        .events(&m)
        .await
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "sequence numbers continue without gaps"
    );

    // The memory index was reloaded too: the persona still recalls the
    // player in the next match (this one ended first: another with the
    // same persona would resume it).
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    let (m2, _) = server.new_match(&player, "margot", "black").await;
    let log = server.triggers(&m2).await;
    assert!(!log[0]["recalled_ids"].as_array().unwrap().is_empty(), "{log:?}");
}

/// SIGTERM with a chat just answered (its memory perhaps not yet flushed to
/// the index) and idle timers armed: the server stops at once and cleanly,
/// and the next start has nothing to check or repair.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_leaves_nothing_to_repair() {
    let mut server = Server::start_capturing_log(&[]).await;
    let player = server.new_player("Ugo").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "d4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let chat = json!({ "text": "I sail a small boat on the lake every summer" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    let memories = server.memories(&player).await;
    assert!(!memories.is_empty());

    let status = server.stop();
    assert!(status.success(), "{status}: {}", server.log_text());
    let log = server.log_text();
    assert!(log.contains("stopped cleanly"), "{log}");
    assert!(!log.contains("ERROR"), "{log}");
    assert!(!server.data_path().join("kibitz.running").exists());

    server.launch().await;
    server.kill();
    let restarted = server.log_text()[log.len()..].to_string();
    for unwanted in ["did not shut down cleanly", "disagrees with SQL", "ERROR"] {
        assert!(!restarted.contains(unwanted), "{unwanted}: {restarted}");
    }
    server.launch().await;
    assert_eq!(server.memories(&player).await, memories);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_the_same_data_dir_is_refused() {
    let server = Server::start().await;
    let (ok, _, stderr) = server.run_cli(&["serve"]);
    assert!(!ok);
    assert!(stderr.contains("in use by another kibitz process"), "{stderr}");
    // The first server is unharmed.
    assert_eq!(server.get("/api/health").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_vector_index_is_rebuilt_from_sql_at_start() {
    if common::skip_unless_embedded("a_deleted_vector_index_is_rebuilt_from_sql_at_start") {
        return;
    }
    let mut server = Server::start().await;
    let player = server.new_player("Ivo").await;
    let (m, _) = server.new_match(&player, "viktor", "white").await;
    let chat = json!({ "text": "I learned chess from my uncle in Lagos" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    let remembered = server.memories(&player).await;

    server.kill();
    std::fs::remove_dir_all(server.data_path().join("vectors")).unwrap();
    server.launch().await;

    // Search goes through the index only: it finds the memory again.
    let path = format!("/api/players/{player}/memories/search?q=uncle%20in%20Lagos&limit=1");
    let (status, found) = server.get_as(&path, &server.token(&player)).await;
    assert_eq!(status, 200, "{found}");
    let chat_memory = remembered
        .iter()
        .find(|m| m["memory_type"] == "player_observation")
        .unwrap();
    assert_eq!(found[0]["memory"]["id"], chat_memory["id"]);
    let (m2, _) = server.new_match(&player, "viktor", "black").await;
    assert!(
        !server.triggers(&m2).await[0]["recalled_ids"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// A shard laid out before recall by words (no sparse vector) whose points
/// are all there: the counts agree with SQL, yet its points lack words,
/// tags and lines. The shard is made anew and filled from SQL, old
/// memories tagged on the way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_laid_out_before_words_and_tags_is_rebuilt_at_start() {
    if common::skip_unless_embedded("an_index_laid_out_before_words_and_tags_is_rebuilt_at_start") {
        return;
    }
    use qdrant_edge::{
        Distance, EdgeConfigBuilder, EdgeShard, EdgeVectorParams, PointId, PointInsertOperations, PointOperations,
        PointStruct, UpdateOperation, Vector, Vectors,
    };
    use sqlx::Row;

    let mut server = Server::start_capturing_log(&[]).await;
    let player = server.new_player("Olu").await;
    let (m, _) = server.new_match(&player, "viktor", "white").await;
    let chat = json!({ "text": "I learned chess from my uncle in Lagos" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    assert!(server.stop().success());

    // As an older kibitz left them: no tags in SQL, a dense-only shard.
    let sql = server.sql().await;
    sqlx::query("UPDATE memories SET tags = '[]'")
        .execute(&sql)
        .await
        .unwrap();
    let ids: Vec<String> = sqlx::query("SELECT id FROM memories")
        .fetch_all(&sql)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get("id"))
        .collect();
    sql.close().await;
    let vectors = server.data_path().join("vectors");
    std::fs::remove_dir_all(&vectors).unwrap();
    std::fs::create_dir_all(&vectors).unwrap();
    let config = EdgeConfigBuilder::new()
        .vector(
            qdrant_edge::DEFAULT_VECTOR_NAME,
            EdgeVectorParams::builder(384, Distance::Cosine).build(),
        )
        .build();
    let old = EdgeShard::new(&vectors, config).unwrap();
    let points = ids
        .iter()
        .map(|id| {
            let id = PointId::Uuid(id.parse().unwrap());
            let dense = vec![(
                qdrant_edge::DEFAULT_VECTOR_NAME.to_string(),
                Vector::new_dense(vec![0.05; 384]),
            )];
            PointStruct::new(id, Vectors::new_named(dense), json!({})).into()
        })
        .collect();
    let op = PointOperations::UpsertPoints(PointInsertOperations::PointsList(points));
    old.update(UpdateOperation::PointOperation(op)).unwrap();
    old.flush();
    drop(old);

    let before = server.log_text().len();
    server.launch().await;
    let log = server.log_text()[before..].to_string();
    assert!(
        log.contains("predates recall by words and tags: rebuilding it from SQL"),
        "{log}"
    );
    let memories = server.memories(&player).await;
    let told = memories
        .iter()
        .find(|m| m["memory_type"] == "player_observation")
        .expect("the chat line was remembered");
    assert!(
        told["tags"].as_array().unwrap().iter().any(|t| t == "personal"),
        "tagged again: {told}"
    );
    let path = format!("/api/players/{player}/memories/search?q=uncle%20in%20Lagos&limit=1");
    let (status, found) = server.get_as(&path, &server.token(&player)).await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found[0]["memory"]["id"], told["id"], "indexed again with its meaning");
}
