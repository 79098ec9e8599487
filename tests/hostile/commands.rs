//! Dear commands are rationed wherever they come from: takebacks, draw
//! offers and hints share the match's command budget (a hint weighs
//! three, and a persona gives so many a game); every WebSocket frame is a
//! request of its token's; a very long match is caught up a page at a time.

use std::time::Duration;

use serde_json::{Value, json};

use super::common::{Server, ws_next, ws_send};

/// Error codes among the frames that come within `wait`.
async fn error_codes(ws: &mut super::common::Ws, wait: Duration) -> Vec<String> {
    let mut codes = Vec::new();
    while let Some(frame) = ws_next(ws, wait).await {
        if frame["type"] == "error" {
            codes.push(frame["data"]["code"].as_str().unwrap_or("").to_string());
        }
    }
    codes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_flood_over_the_websocket_is_rationed() {
    let server = Server::start_with(&[("KIBITZ_CHAT_PER_MINUTE", "4")]).await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "viktor", "white").await;
    let (_, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    let triggers_before = server.triggers(&m).await.len();
    let mut ws = server.ws(&m, out["state"]["last_seq"].as_i64().unwrap()).await;
    for _ in 0..12 {
        ws_send(&mut ws, json!({ "type": "takeback" })).await;
    }
    let codes = error_codes(&mut ws, Duration::from_secs(3)).await;
    let limited = codes.iter().filter(|c| *c == "rate_limited").count();
    // 4 a minute pass (a fifth if the flood took over 15 s to answer).
    assert!((7..=8).contains(&limited), "the rest are refused: {codes:?}");
    let fired = server.triggers(&m).await.len() - triggers_before;
    assert!(fired <= 5, "{fired} triggers fired for 12 takebacks");
    // Draw offers come out of the same budget, over HTTP too.
    let (status, out) = server
        .post(&format!("/api/matches/{m}/draw"), json!({ "action": "offer" }))
        .await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_frames_count_against_the_tokens_budget() {
    let server = Server::start_with(&[("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN", "10")]).await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "pip", "white").await;
    // The player's own requests so far took some of the 10.
    let mut ws = server.ws(&m, 0).await;
    for _ in 0..12 {
        ws_send(&mut ws, json!({ "type": "talk", "mode": "quiet" })).await;
    }
    let codes = error_codes(&mut ws, Duration::from_secs(3)).await;
    assert!(
        codes.iter().filter(|c| *c == "rate_limited").count() >= 3,
        "frames past the token's budget are refused: {codes:?}"
    );
    let (status, _) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(status, 429, "and the token's HTTP requests wait with them");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_weigh_more_and_a_persona_gives_so_many_a_game() {
    let server = Server::start_with(&[("KIBITZ_CHAT_PER_MINUTE", "9")]).await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "viktor", "white").await;
    let hint = || async { server.post(&format!("/api/matches/{m}/hint"), json!({})).await };
    let (status, out) = hint().await;
    assert_eq!(status, 200, "{out}");
    let (status, out) = hint().await;
    assert_eq!(status, 200, "{out}");
    // Viktor gives two a game (personas/viktor.toml).
    let (status, out) = hint().await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (409, Some("no_hints_left")),
        "{out}"
    );
    // Three hints weighed all nine: a chat line now waits.
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": "hm" }))
        .await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{out}"
    );
}

/// Resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_very_long_match_is_caught_up_a_page_at_a_time() {
    const EVENTS: i64 = 100_000;
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "pip", "white").await;
    let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let last = out["state"]["last_seq"].as_i64().unwrap();
    pad_with_messages(&server, &m, last, EVENTS).await;

    let (status, page) = server.get(&format!("/api/matches/{m}/events?since=0")).await;
    assert_eq!(status, 200);
    assert_eq!(page.as_array().unwrap().len(), 1000, "a page at most");
    let (status, _) = server.get(&format!("/api/matches/{m}/events?limit=5000")).await;
    assert_eq!(status, 400, "no page past 1000");

    let pid = server.pid().expect("a server process");
    let before = rss_kib(pid);
    let mut peak = before;
    let mut ws = server.ws(&m, 0).await;
    let mut seen = 0i64;
    let mut next_seq = 1;
    while let Some(frame) = ws_next(&mut ws, Duration::from_secs(10)).await {
        if let Some(seq) = frame["seq"].as_i64() {
            assert_eq!(seq, next_seq, "in order, none twice");
            next_seq += 1;
            seen += 1;
            if seen % 5000 == 0 {
                peak = peak.max(rss_kib(pid));
            }
        }
        if seen == last + EVENTS {
            break;
        }
    }
    assert_eq!(seen, last + EVENTS, "every event came");
    let grew_mib = (peak.saturating_sub(before)) / 1024;
    eprintln!("catch-up of {EVENTS} events: server RSS {before} KiB before, {peak} KiB at most (+{grew_mib} MiB)");
    assert!(grew_mib < 48, "the catch-up held {grew_mib} MiB more");
}

/// Appends `n` persona messages to finished match `m` after `last`, in SQL.
async fn pad_with_messages(server: &Server, m: &str, last: i64, n: i64) {
    use sqlx::Row;
    let pool = server.sql().await;
    let at: String = sqlx::query("SELECT created_at FROM events WHERE match_id = $1 ORDER BY seq LIMIT 1")
        .bind(m)
        .fetch_one(&pool)
        .await
        .unwrap()
        .get("created_at");
    let payload =
        json!({ "sender": "persona", "content": "Still here, still thinking about that endgame.", "tone": "playful" });
    let payload: Value = payload;
    let mut tx = pool.begin().await.unwrap();
    for chunk in (last + 1..=last + n).collect::<Vec<_>>().chunks(500) {
        let mut sql = String::from("INSERT INTO events (match_id, seq, kind, payload, created_at) VALUES ");
        let rows: Vec<String> = chunk
            .iter()
            .map(|seq| format!("('{m}', {seq}, 'message', '{payload}', '{at}')"))
            .collect();
        sql.push_str(&rows.join(", "));
        sqlx::query(&sql).execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
}
