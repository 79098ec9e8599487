//! The write policy (reinforce, supersede), consolidation and decay, and
//! position-indexed recall, through the real server.

mod common;

use common::*;
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-tests-0123456789";

async fn chat(server: &Server, m: &str, text: &str) -> Vec<Value> {
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": text }))
        .await;
    assert_eq!(status, 200, "{out}");
    out["events"].as_array().cloned().unwrap_or_default()
}

/// What the server said it did with the memory saved for this chat.
async fn saved_after_chat(server: &Server, m: &str, text: &str) -> Value {
    chat(server, m, text).await;
    let events = server.events(m).await;
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "memory_saved")
        .map(|e| e["data"].clone())
        .expect("the chat was remembered")
}

async fn own(server: &Server, player: &str, query: &str) -> Vec<Value> {
    let path = format!("/api/players/{player}/memories{query}");
    let (status, list) = server.get_as(&path, &server.token(player)).await;
    assert_eq!(status, 200, "{list}");
    list.as_array().unwrap().clone()
}

fn mentioning<'a>(list: &'a [Value], words: &str) -> Vec<&'a Value> {
    list.iter()
        .filter(|m| m["content"].as_str().unwrap().contains(words))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_duplicates_reinforce_and_contradictions_supersede() {
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let pat = server.new_player("Pat").await;
    let (m1, _) = server.new_match(&pat, "pip", "white").await;

    let sicilian = "I always play the Sicilian defence with black";
    let first = saved_after_chat(&server, &m1, sicilian).await;
    assert_eq!(first["outcome"], "inserted", "{first}");
    let again = saved_after_chat(&server, &m1, sicilian).await;
    assert_eq!(again["outcome"], "reinforced", "{again}");
    assert_eq!(again["id"], first["id"], "the same memory, reinforced");
    let current = own(&server, &pat, "").await;
    assert_eq!(mentioning(&current, "Sicilian").len(), 1, "no duplicate row");
    let (_, shown) = server
        .get_as(
            &format!("/api/memories/{}", first["id"].as_str().unwrap()),
            &server.token(&pat),
        )
        .await;
    assert_eq!(
        shown["memory"]["reinforcements"].as_array().unwrap().len(),
        1,
        "{shown}"
    );

    // Another opening for the same choice (Black against 1.e4) supersedes.
    let caro = saved_after_chat(&server, &m1, "These days I play the Caro-Kann with black instead").await;
    assert_eq!(caro["outcome"], "superseded", "{caro}");
    assert_eq!(caro["superseded"], json!([first["id"]]));
    let current = own(&server, &pat, "").await;
    assert!(
        mentioning(&current, "Sicilian").is_empty(),
        "superseded: out of the current list"
    );
    let history = own(&server, &pat, "?superseded=true").await;
    let old = mentioning(&history, "Sicilian")[0];
    assert_eq!(old["superseded_by"], caro["id"], "linked to its successor");
    assert!(old["valid_to"].is_string(), "{old}");

    // Opposite sentiment about the same thing supersedes, though cosine says "duplicate".
    saved_after_chat(&server, &m1, "I really love long endgames with rooks").await;
    let hate = saved_after_chat(&server, &m1, "I really hate long endgames with rooks").await;
    assert_eq!(hate["outcome"], "superseded", "{hate}");

    // Next match: the current belief is recalled, the superseded one never.
    server.post(&format!("/api/matches/{m1}/resign"), json!({})).await;
    let (m2, _) = server.new_match(&pat, "pip", "white").await;
    chat(&server, &m2, "Which defence do I play with black against e4?").await;
    let recalled: Vec<String> = server
        .triggers(&m2)
        .await
        .iter()
        .flat_map(|t| t["recalled_ids"].as_array().unwrap().clone())
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    assert!(
        recalled.contains(&caro["id"].as_str().unwrap().to_string()),
        "{recalled:?}"
    );
    assert!(
        !recalled.contains(&first["id"].as_str().unwrap().to_string()),
        "{recalled:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consolidation_merges_decays_to_the_floor_and_logs() {
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let pat = server.new_player("Pat").await;
    let token = server.token(&pat);
    let (m1, _) = server.new_match(&pat, "pip", "white").await;
    let a = saved_after_chat(&server, &m1, "My favourite piece is the knight on an outpost").await;
    let b = saved_after_chat(&server, &m1, "I spend my weekends hiking in the mountains").await;
    let c = saved_after_chat(&server, &m1, "I work as a nurse on night shifts").await;
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();

    // An edit can make two memories say the same thing; the write policy
    // never saw that, consolidation must.
    let same = json!({ "content": a["content"] });
    let (status, _) = server
        .send_as(
            Method::PATCH,
            &format!("/api/memories/{}", id(&b)),
            Some(&token),
            Some(same),
        )
        .await;
    assert_eq!(status, 200);
    let pin = json!({ "pinned": true });
    server
        .send_as(
            Method::PATCH,
            &format!("/api/memories/{}", id(&c)),
            Some(&token),
            Some(pin),
        )
        .await;

    // Age everything by 300 days (ten half-lives) straight in the database.
    age_memories(&server, 300).await;

    let body = json!({ "player": pat });
    let (status, run) = server
        .send_as(Method::POST, "/api/admin/consolidate", Some(ADMIN), Some(body))
        .await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["merged"], 1, "{run}");
    assert_eq!(
        run["details"][0]["kept"], a["id"],
        "the older memory keeps the history: {run} a={a} b={b}"
    );
    assert_eq!(run["details"][0]["retired"], b["id"]);
    assert_eq!(
        run["decayed"], 1,
        "only the pinned one decays: A was just reinforced, B retired: {run}"
    );

    let history = own(&server, &pat, "?superseded=true").await;
    let by_id = |wanted: &str| history.iter().find(|m| m["id"] == wanted).unwrap().clone();
    assert_eq!(by_id(&id(&b))["superseded_by"], a["id"]);
    let kept = by_id(&id(&a));
    assert_eq!(kept["reinforcements"].as_array().unwrap().len(), 1, "{kept}");
    // A was reinforced today: strong again. C is pinned: held at the floor.
    assert!(kept["strength"].as_f64().unwrap() > 0.5, "{kept}");
    let pinned = by_id(&id(&c))["strength"].as_f64().unwrap();
    assert!((pinned - 0.5).abs() < 1e-3, "pinned memory at the floor, got {pinned}");

    let (status, log) = server.get_as("/api/admin/consolidations", ADMIN).await;
    assert_eq!(status, 200);
    assert_eq!(log[0]["reason"], "manual", "{log}");
    let (status, _) = server.get_as("/api/admin/consolidations", &token).await;
    assert_eq!(status, 403, "players cannot read the log");

    // The end of a match consolidates that player's memories too.
    server.post(&format!("/api/matches/{m1}/resign"), json!({})).await;
    let after_match = eventually(10, || async {
        let (_, log) = server.get_as("/api/admin/consolidations", ADMIN).await;
        log.as_array().unwrap().iter().any(|r| r["reason"] == "after_match")
    })
    .await;
    assert!(after_match, "a consolidation ran after the match");
}

/// Moves every player memory's times `days` into the past.
async fn age_memories(server: &Server, days: i64) {
    use sqlx::Row;
    let pool = server.sql().await;
    let rows = sqlx::query("SELECT id, created_at FROM memories WHERE player_id IS NOT NULL")
        .fetch_all(&pool)
        .await
        .unwrap();
    for row in rows {
        let created: String = row.get("created_at");
        let then = chrono::DateTime::parse_from_rfc3339(&created).unwrap() - chrono::Duration::days(days);
        let then = then.to_utc().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        sqlx::query("UPDATE memories SET created_at = $1, last_seen_at = $2, decayed_at = $3 WHERE id = $4")
            .bind(&then)
            .bind(&then)
            .bind(&then)
            .bind(row.get::<String, _>("id"))
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;
}

/// After 1.e4 c5 2.Nf3 d6, White to move.
const SICILIAN: &str = "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_position_brings_back_what_was_said_there() {
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let pat = server.new_player("Pat").await;
    let start = |fen: &'static str| {
        let body = json!({ "player_id": pat, "persona_id": "pip", "color": "white", "fen": fen });
        let server = &server;
        async move {
            let (status, out) = server.post("/api/matches", body).await;
            assert_eq!(status, 201, "{out}");
            out["state"]["id"].as_str().unwrap().to_string()
        }
    };
    let m1 = start(SICILIAN).await;
    let said = saved_after_chat(&server, &m1, "My cat is called Biscuit and she is asleep on my lap").await;
    server.post(&format!("/api/matches/{m1}/resign"), json!({})).await;

    let m2 = start(SICILIAN).await;
    chat(&server, &m2, "Good evening, shall we begin?").await;
    let memory_id = said["id"].as_str().unwrap();
    let (_, shown) = server
        .get_as(&format!("/api/memories/{memory_id}"), &server.token(&pat))
        .await;
    assert!(shown["memory"]["position"]["key"].is_string(), "{shown}");
    let reasons: Vec<&str> = shown["recalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("exact position")),
        "recalled for the board, not the words: {reasons:?}"
    );
    let spoken = server
        .events(&m2)
        .await
        .iter()
        .filter(|e| e["type"] == "message" && e["data"]["sender"] == "persona")
        .filter_map(|e| e["data"]["content"].as_str())
        .any(|text| text.contains("we reached this exact position on"));
    assert!(spoken, "the persona brings it up: {:?}", server.events(&m2).await);

    // Lore is shared and read-only, even for the admin.
    let lore_id = server
        .triggers(&m2)
        .await
        .iter()
        .flat_map(|t| t["recalled_ids"].as_array().unwrap().clone())
        .find_map(|id| {
            let id = id.as_str().unwrap().to_string();
            (id != memory_id).then_some(id)
        });
    if let Some(id) = lore_id {
        let (_, m) = server.get_as(&format!("/api/memories/{id}"), ADMIN).await;
        if m["memory"]["created_by"] == "persona_lore" {
            let edit = json!({ "content": "rewritten" });
            let (status, body) = server
                .send_as(Method::PATCH, &format!("/api/memories/{id}"), Some(ADMIN), Some(edit))
                .await;
            assert_eq!(status, 403, "{body}");
        }
    }
}

/// A match's end runs the model once for each memory it saves (the result,
/// the opening), and the consolidation after it runs the model for none of
/// them: the embedder's memo holds them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matchs_end_runs_the_model_once_per_memory() {
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "pip", "white").await;
    for mv in ["e4", "d4"] {
        let (status, body) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let runs = model_runs_for_resigning(&server, &m).await;
    let saved = own(&server, &pat, "").await;
    assert!(saved.len() >= 2, "the match's end saved its memories: {saved:?}");
    assert_eq!(
        runs,
        saved.len() as u64,
        "{} memories saved in {runs} model runs",
        saved.len()
    );
}

/// Consolidation takes a player's vectors from the index: after a restart
/// (the model's memo empty) a game's end runs the model for the memories it
/// saves, not again for the player's older ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_end_after_a_restart_embeds_only_what_it_saves() {
    let mut server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "pip", "white").await;
    for text in [
        "I grow tomatoes on my balcony",
        "My brother plays the cello in an orchestra",
        "I once met a grandmaster in Riga",
    ] {
        chat(&server, &m, text).await;
    }
    let older = own(&server, &pat, "").await.len();
    assert!(older >= 3, "{older} memories");
    assert!(server.stop().success());
    server.launch().await;

    // The match goes on after the restart; its end is what is measured.
    let runs = model_runs_for_resigning(&server, &m).await;
    let saved = own(&server, &pat, "").await.len() - older;
    assert!(saved >= 1, "the match's end saved a memory");
    assert_eq!(runs, saved as u64, "{saved} memories saved in {runs} model runs");
}

/// With no language model, what a player tells of themselves is kept as a
/// fact in the third person, every time, and pleasantries and questions
/// never: the listener decides, not a clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facts_are_remembered_and_pleasantries_are_not() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "pip", "white").await;
    let noted = |events: &[Value]| events.iter().filter(|e| e["type"] == "memory_saved").count();
    for pleasantry in [
        "Hello! Do you remember me?",
        "Do you remember me?",
        "thanks!",
        "nice move",
    ] {
        let events = chat(&server, &m, pleasantry).await;
        assert_eq!(noted(&events), 0, "{pleasantry}: {events:?}");
        assert!(
            events.iter().any(|e| e["type"] == "message"),
            "{pleasantry} is answered"
        );
    }
    assert_eq!(
        noted(&chat(&server, &m, "I teach maths at the village school").await),
        1
    );
    assert_eq!(
        noted(&chat(&server, &m, "My daughter plays in the county league").await),
        1
    );
    let remembered = own(&server, &pat, "").await;
    let texts = |words: &str| -> Vec<String> {
        mentioning(&remembered, words)
            .iter()
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(texts("village school"), ["Pat teaches maths at the village school."]);
    assert_eq!(texts("county league"), ["Pat's daughter plays in the county league."]);
    assert!(mentioning(&remembered, "remember").is_empty(), "{remembered:?}");
}

/// The model runs a resignation causes: from an idle embedder (start-up
/// work done) until the match's end has been consolidated.
async fn model_runs_for_resigning(server: &Server, m: &str) -> u64 {
    let embedding = || async { server.get_as("/api/admin/status", ADMIN).await.1["embedding"].clone() };
    let settled = eventually(60, || async {
        let e = embedding().await;
        e["pinned"].as_u64() > Some(0) && e["backlog"] == 0
    })
    .await;
    assert!(settled, "the embedder never settled: {}", embedding().await);
    let before = embedding().await["model_runs"].as_u64().unwrap();
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    let consolidated = eventually(10, || async {
        let (_, log) = server.get_as("/api/admin/consolidations", ADMIN).await;
        log.as_array().unwrap().iter().any(|r| r["reason"] == "after_match")
    })
    .await;
    assert!(consolidated, "a consolidation ran after the match");
    embedding().await["model_runs"].as_u64().unwrap() - before
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_games_on_one_day_are_two_records_told_apart() {
    let server = Server::start().await;
    let ada = server.new_player("Ada").await;
    for _ in 0..2 {
        let (m, _) = server.new_match(&ada, "pip", "white").await;
        assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);
    }
    let records: Vec<String> = server
        .memories(&ada)
        .await
        .iter()
        .filter(|m| m["memory_type"] == "game_context")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_ne!(records[0], records[1], "the same words for two games");
    let second = records
        .iter()
        .filter(|r| r.contains("in our second game that day"))
        .count();
    assert_eq!(second, 1, "{records:?}");
}
