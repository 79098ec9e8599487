//! The six triggers fire in order, idle_wait included (escalating, capped),
//! and nothing fires once the match is over.

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_triggers_fire_in_order_and_stop_after_the_match() {
    // Viktor nudges after 30 s, then x1.5, at most 4 times: scaled to 0.9 s, 1.35 s, 2 s, 3 s.
    let server = Server::start_with(&[("KIBITZ_IDLE_TIME_SCALE", "0.03")]).await;
    let player = server.new_player("Tom").await;
    let (m, _) = server.new_match(&player, "viktor", "white").await;

    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": "hi there" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let idle_nudges = || async {
        kinds(&server.triggers(&m).await)
            .iter()
            .filter(|k| *k == "idle_wait")
            .count()
    };
    assert!(
        eventually(20, || async { idle_nudges().await == 4 }).await,
        "four idle nudges, got {}",
        idle_nudges().await
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(idle_nudges().await, 4, "the idle policy caps nudges at max_nudges");

    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["status"], "finished");

    let fired = kinds(&server.triggers(&m).await);
    let expected = [
        "before_match",
        "on_user_input",
        "idle_wait",
        "idle_wait",
        "idle_wait",
        "idle_wait",
        "on_user_move",
        "before_agent_move",
        "after_match",
    ];
    assert_eq!(fired, expected);

    // Idle timers were cancelled: nothing fires after the match.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(kinds(&server.triggers(&m).await), expected);

    // Every trigger is logged with its time, in order. Compared as instants:
    // RFC 3339 text drops a zero fraction ("…:56Z" is earlier than "…:56.011Z"
    // but sorts after it), so string order is not time order.
    let log = server.triggers(&m).await;
    let times: Vec<chrono::DateTime<chrono::Utc>> = log
        .iter()
        .map(|t| t["fired_at"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_activity_re_arms_the_idle_timer() {
    let server = Server::start_with(&[("KIBITZ_IDLE_TIME_SCALE", "0.05")]).await;
    let player = server.new_player("Uma").await;
    // Margot: first nudge after 60 s, scaled to 3 s.
    let (m, _) = server.new_match(&player, "margot", "white").await;
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let (status, _) = server
            .post(&format!("/api/matches/{m}/chat"), json!({ "text": "still thinking" }))
            .await;
        assert_eq!(status, 200);
    }
    assert!(
        !kinds(&server.triggers(&m).await).contains(&"idle_wait".to_string()),
        "chatting counts as activity"
    );
    assert!(
        eventually(10, || async {
            kinds(&server.triggers(&m).await).contains(&"idle_wait".to_string())
        })
        .await
    );
}

/// The admin status says where the matches' time went, phase by phase: each
/// user move, each choice of the persona's move, each trigger, each commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_status_times_each_phase_of_the_moves_played() {
    const ADMIN: &str = "admin-token-for-phase-timings-0123";
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let player = server.new_player("Ola").await;
    let (m, created) = server.new_match(&player, "viktor", "white").await;
    let mut state = created["state"].clone();
    // A refused move is not a move played: it is not timed as one.
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e5" }))
        .await;
    assert_eq!(status, 422, "{out}");
    for _ in 0..3 {
        let first_legal = state["legal_moves"][0]["uci"].as_str().unwrap().to_string();
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": first_legal }))
            .await;
        assert_eq!(status, 200, "{out}");
        state = out["state"].clone();
    }
    assert_eq!(state["status"], "active", "three moves end no game");

    let (status, s) = server.get_as("/api/admin/status", ADMIN).await;
    assert_eq!(status, 200, "{s}");
    let phase = |name: &str| {
        s["timings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["phase"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {s}"))
    };
    let count = |name: &str| phase(name)["count"].as_u64().unwrap();
    assert_eq!(count("user_move"), 3);
    assert_eq!(count("on_user_move"), 3);
    assert_eq!(count("before_agent_move"), 3);
    assert_eq!(count("persona_move"), 3);
    assert_eq!(count("before_match"), 1);
    // The match's start and each move waited for their commits.
    assert!(count("commit") >= 4, "{s}");
    for name in ["user_move", "persona_move", "commit", "on_user_move"] {
        let p = phase(name);
        let (p50, p99, max) = (
            p["p50_ms"].as_f64().unwrap(),
            p["p99_ms"].as_f64().unwrap(),
            p["max_ms"].as_f64().unwrap(),
        );
        assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{p}");
        let bucketed: u64 = p["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b[1].as_u64().unwrap())
            .sum();
        assert_eq!(bucketed, p["count"].as_u64().unwrap(), "{p}");
    }
    // A user's move holds its trigger and the persona's answer.
    let max = |name: &str| phase(name)["max_ms"].as_f64().unwrap();
    assert!(max("user_move") >= max("on_user_move"), "{s}");
    assert!(max("user_move") >= max("persona_move"), "{s}");
    // Players do not see it.
    let (status, _) = server.get_as("/api/admin/status", &server.token(&player)).await;
    assert_eq!(status, 403);
}
