//! Forgetting exactly what is yours (issue 33): deleting a memory rewrites
//! the owner's rows that quoted it, every version of it and the words it was
//! made from, and not one byte of anybody else's.

mod common;

use common::*;
use reqwest::Method;
use serde_json::json;
use sqlx::Row;

const SAID: &str = "My favourite opening is the London System and I play it every single day";

/// Every stored text of a player's matches and memories, one line per row,
/// in a fixed order: what "byte for byte unchanged" is checked on.
async fn rows_of(server: &Server, player: &str) -> Vec<String> {
    let pool = server.sql().await;
    let mine = "match_id IN (SELECT id FROM matches WHERE player_id = $1)";
    let places = [
        format!("SELECT match_id, CAST(seq AS TEXT), payload FROM events WHERE {mine} ORDER BY match_id, seq"),
        format!("SELECT match_id, CAST(id AS TEXT), content FROM messages WHERE {mine} ORDER BY id"),
        format!("SELECT match_id, CAST(id AS TEXT), actions FROM trigger_log WHERE {mine} ORDER BY id"),
        format!("SELECT match_id, CAST(id AS TEXT), request || response FROM llm_calls WHERE {mine} ORDER BY id"),
        format!("SELECT match_id, CAST(id AS TEXT), reason FROM recall_log WHERE {mine} ORDER BY id"),
        format!("SELECT match_id, '', body FROM reflections WHERE {mine} ORDER BY match_id"),
        "SELECT id, content, reinforcements FROM memories WHERE player_id = $1 ORDER BY id".to_string(),
    ];
    let mut out = Vec::new();
    for sql in places {
        for r in sqlx::query(&sql).bind(player).fetch_all(&pool).await.unwrap() {
            let cells: Vec<String> = (0..3).map(|i| r.get::<String, _>(i)).collect();
            out.push(cells.join(" | "));
        }
    }
    out
}

/// A match in which the player says `SAID`, plays a move and resigns.
async fn a_match_that_makes_memories(server: &Server, player: &str) -> String {
    let (m, _) = server.new_match(player, "margot", "white").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": SAID }))
        .await;
    assert_eq!(status, 200, "{out}");
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "d4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn erasing_an_edited_memory_forgets_every_version_and_touches_nobody_else() {
    let server = Server::start().await;
    two_players_one_forgets(&server, 2).await;
}

/// The same with a real model (llama-server, SmolLM2) answering every
/// trigger, so the LLM call logs hold the words too. Its answers are cut to
/// one token, so the scripted brain decides each turn (the memories are the
/// same as above) while every call, with its prompt, is logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn erasure_reaches_the_owners_llm_call_logs_and_nobody_elses() {
    let llama = common::llama::LlamaServer::start().await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &llama.url), ("KIBITZ_LLM_MAX_TOKENS", "1")]).await;
    let ann = two_players_one_forgets(&server, 1).await;
    let pool = server.sql().await;
    let calls: Vec<(String,)> =
        sqlx::query_as("SELECT request FROM llm_calls WHERE match_id IN (SELECT id FROM matches WHERE player_id = $1)")
            .bind(&ann)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert!(!calls.is_empty(), "the model was called for Ann's turns");
    assert!(
        calls.iter().any(|(r,)| r.contains("[forgotten]")),
        "her calls were rewritten"
    );
}

/// Ann and Bob each play `matches` matches saying the same words; Ann edits
/// the memory of them to one letter and deletes it. Returns Ann's id.
async fn two_players_one_forgets(server: &Server, matches: usize) -> String {
    let (ann, bob) = (server.new_player("Ann").await, server.new_player("Bob").await);
    // Both say the same words, so a text-wide scrub would reach Bob's too.
    for player in [&ann, &bob] {
        a_match_that_makes_memories(server, player).await;
        if matches > 1 {
            let (m2, _) = server.new_match(player, "margot", "black").await;
            assert_eq!(
                server.post(&format!("/api/matches/{m2}/resign"), json!({})).await.0,
                200
            );
        }
    }
    let bobs_before = rows_of(server, &bob).await;

    let hers = server.memories(&ann).await;
    let log: Vec<(String, String)> = sqlx::query_as("SELECT trigger, actions FROM trigger_log ORDER BY id")
        .fetch_all(&server.sql().await)
        .await
        .unwrap();
    let remark = hers
        .iter()
        .find(|m| m["content"].as_str().unwrap_or_default().contains("London System"))
        .cloned()
        .unwrap_or_else(|| panic!("Ann's remark was noted: {hers:#?} {log:#?}"));
    let original = remark["content"].as_str().unwrap().to_string();
    // Kept as a fact about her, made from her words.
    assert!(
        original.starts_with("Ann's favourite opening is the London System"),
        "{original}"
    );
    // As stored: plain, or escaped inside JSON (an event, a log, a prompt).
    let escaped = serde_json::to_string(&original).unwrap();
    let quotes = |row: &String| row.contains(&original) || row.contains(escaped.trim_matches('"'));
    let anns = rows_of(server, &ann).await;
    assert!(
        anns.iter().filter(|r| quotes(r)).count() >= 3,
        "the memory is quoted in Ann's rows"
    );
    assert!(
        anns.iter().any(|r| r.contains(&format!("\"content\":\"{SAID}\""))),
        "her chat event"
    );

    // Edited to one letter: the first text is kept as a version and shown.
    let (pt, path) = (
        server.token(&ann),
        format!("/api/memories/{}", remark["id"].as_str().unwrap()),
    );
    let edit = Some(json!({ "content": "e" }));
    assert_eq!(server.send_as(Method::PATCH, &path, Some(&pt), edit).await.0, 200);
    let (status, shown) = server.get_as(&path, &pt).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["memory"]["content"], "e");
    assert_eq!(shown["versions"][0]["content"], original.as_str(), "{shown}");

    assert_eq!(server.send_as(Method::DELETE, &path, Some(&pt), None).await.0, 204);
    assert_eq!(server.get_as(&path, &pt).await.0, 404);

    let bobs_after = rows_of(server, &bob).await;
    let changed: Vec<&String> = bobs_after.iter().filter(|r| !bobs_before.contains(r)).collect();
    assert!(changed.is_empty(), "Bob's rows changed: {changed:#?}");
    assert_eq!(bobs_after, bobs_before, "Bob's rows are the same, in the same order");
    let anns = rows_of(server, &ann).await;
    for row in &anns {
        assert!(!quotes(row), "the first version survives: {row}");
        assert!(!row.contains(SAID), "the words it was made from survive: {row}");
    }
    assert!(
        anns.iter().any(|r| r.contains("[forgotten]")),
        "Ann's rows were rewritten"
    );
    assert!(
        anns.iter().any(|r| r.contains("\"san\":\"d4\"")),
        "the rest of her rows stay"
    );
    let pool = server.sql().await;
    for table in ["memory_versions", "memory_traces"] {
        let left: i64 = sqlx::query(&format!("SELECT COUNT(*) FROM {table} WHERE memory_id = $1"))
            .bind(remark["id"].as_str().unwrap())
            .fetch_one(&pool)
            .await
            .unwrap()
            .get(0);
        assert_eq!(left, 0, "{table} keeps the erased memory");
    }
    ann
}
