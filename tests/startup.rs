//! Serve first, resume after (issue 33): with thousands of unfinished
//! matches in the database, a restarted server answers at once, a player's
//! command loads their match on demand, and the rest resume behind.

mod common;

use std::time::Instant;

use common::*;
use serde_json::json;

const UNFINISHED: usize = 10_000;

/// Unfinished matches of `player` written straight into SQL, as thousands
/// of games left open would be.
async fn insert_unfinished(server: &Server, player: &str, count: usize) {
    let pool = server.sql().await;
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let at = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
    for chunk in (0..count).collect::<Vec<_>>().chunks(500) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|_| {
                format!(
                    "('{}', '{player}', 'margot', 'white', '{fen}', 'active', 'calm', '{at}')",
                    uuid::Uuid::new_v4()
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO matches (id, player_id, persona_id, user_color, start_fen, status, emotion, created_at) \
             VALUES {}",
            rows.join(", ")
        );
        sqlx::raw_sql(&sql).execute(&pool).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_answers_at_once_and_resumes_unfinished_matches_behind() {
    let mut server = Server::start_capturing_log(&[("KIBITZ_ADMIN_TOKEN", "admin-token-for-startup")]).await;
    let player = server.new_player("Una").await;
    let (mine, _) = server.new_match(&player, "margot", "white").await;
    insert_unfinished(&server, &player, UNFINISHED).await;
    assert!(server.stop().success());

    let started = Instant::now();
    server.launch().await;
    let first_answer = started.elapsed();
    // The player's own match is loaded for their command, whatever the queue.
    let (status, out) = server
        .post(&format!("/api/matches/{mine}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let answered_move = started.elapsed();
    let ok = || async { server.get("/api/health").await.1["status"] == "ok" };
    assert!(
        eventually(300, ok).await,
        "the unfinished matches never finished resuming"
    );
    eprintln!(
        "{} unfinished matches: first answer {first_answer:.1?}, a player's move answered at {answered_move:.1?}, \
         all resumed at {:.1?}",
        UNFINISHED + 1,
        started.elapsed()
    );

    // The restart bound its port before it opened its services (the model,
    // lore, an index check) and before it resumed the matches: it once
    // resumed every match first and answered nothing meanwhile.
    let log = server.log_text();
    let second_run = &log[log.rfind("stopped cleanly").expect("the first run stopped cleanly")..];
    let at = |line: &str| {
        second_run
            .find(line)
            .unwrap_or_else(|| panic!("no '{line}' in the log"))
    };
    let bound = at("kibitz listening");
    assert!(
        bound < at("talks with the scripted brain"),
        "bound only once its services were open"
    );
    assert!(at(&format!("resuming {} unfinished matches", UNFINISHED + 1)) < at("unfinished matches resumed"));
    assert!(
        bound < at("unfinished matches resumed"),
        "answered only after resuming everything"
    );
    let (_, status) = server.get_as("/api/admin/status", "admin-token-for-startup").await;
    assert_eq!(status["live_matches"], json!(UNFINISHED + 1), "{status}");
}
