//! Overload: while the engine is behind, or moves are answered too slowly
//! whatever the cause, new matches are refused (503 `busy`, with
//! `Retry-After`) and the matches being played go on; once it catches up,
//! new ones are let in again.

mod common;

use std::time::Duration;

use common::*;
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-overload-tests";

/// POST /api/matches as the player: status, body, Retry-After.
async fn open(server: &Server, player: &str, color: &str) -> (u16, Value, Option<u64>) {
    let response = reqwest::Client::new()
        .post(format!("{}/api/matches", server.base))
        .bearer_auth(server.token(player))
        .json(&json!({ "player_id": player, "persona_id": "viktor", "color": color }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry = retry_after(&response);
    (status, response.json().await.unwrap(), retry)
}

async fn admission(server: &Server) -> Value {
    let (status, out) = server.get_as("/api/admin/status", ADMIN).await;
    assert_eq!(status, 200, "{out}");
    out["admission"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_matches_wait_while_the_engine_is_behind_and_live_ones_play_on() {
    // One engine worker at 700 ms a move (a time budget, not the nodes
    // a server searches by default): six persona-first matches at once
    // make a queue of seconds (the first four searches of the opening
    // position; the later ones draw from those).
    let server = Server::start_with(&[
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("KIBITZ_ENGINE_WORKERS", "1"),
        ("KIBITZ_ENGINE_NODES", "0"),
        ("KIBITZ_ENGINE_MOVETIME_MS", "700"),
        ("KIBITZ_EVAL_DEEP_NODES", "0"),
        ("KIBITZ_BUSY_ENGINE_WAIT_MS", "300"),
    ])
    .await;
    let ann = server.new_player("Ann").await;
    let (status, honest, _) = open(&server, &ann, "white").await;
    assert_eq!(status, 201, "{honest}");
    let honest = honest["state"]["id"].as_str().unwrap().to_string();
    let mut flooders = Vec::new();
    for i in 0..7 {
        flooders.push(server.new_player(&format!("Flood {i}")).await);
    }
    let flood = join_all(flooders[..6].iter().map(|p| open(&server, p, "black")));
    let late = async {
        // Once the queue shows, a new match is turned away.
        assert!(
            eventually(10, || async {
                admission(&server).await["engine_queue_wait_ms"].as_u64() > Some(300)
            })
            .await,
            "the queue never showed: {}",
            admission(&server).await
        );
        let refused = open(&server, &flooders[6], "black").await;
        // The match being played goes on meanwhile.
        let path = format!("/api/matches/{honest}/moves");
        let moved = server
            .send_as(
                Method::POST,
                &path,
                Some(&server.token(&ann)),
                Some(json!({ "move": "e2e4" })),
            )
            .await;
        (refused, moved)
    };
    let (opened, ((status, out, retry), (moved, state))) = tokio::join!(flood, late);
    assert_eq!((status, out["error"]["code"].as_str()), (503, Some("busy")), "{out}");
    assert!(retry.is_some_and(|s| (1..=60).contains(&s)), "{retry:?}");
    assert!(out["error"]["message"].as_str().unwrap().contains("try again"), "{out}");
    assert_eq!(moved, 200, "{state}");
    // Matches let in before the queue grew were opened and played.
    assert!(
        opened.iter().all(|(s, _, _)| *s == 201),
        "{:?}",
        opened.iter().map(|o| o.0).collect::<Vec<_>>()
    );
    let seen = admission(&server).await;
    assert!(seen["refused_busy"].as_u64() >= Some(1), "{seen}");
    // Once the engine has caught up, new matches are let in again.
    assert!(
        eventually(20, || async {
            admission(&server).await["engine_queue_wait_ms"].as_u64() < Some(300)
        })
        .await,
        "{}",
        admission(&server).await
    );
    let (status, out, _) = open(&server, &flooders[6], "black").await;
    assert_eq!(status, 201, "{out}");
    assert!(
        out["state"]["moves"].as_array().is_some_and(|m| m.len() == 1),
        "the persona moved first: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_matches_wait_while_moves_are_answered_slowly() {
    // Every real answer takes more than a millisecond: once twenty moves
    // have shown it, the server counts as behind.
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN), ("KIBITZ_BUSY_MOVE_REPLY_MS", "1")]).await;
    let (ann, bea) = (server.new_player("Ann").await, server.new_player("Bea").await);
    let mut games = Vec::new();
    for (player, persona) in [(&ann, "viktor"), (&bea, "pip")] {
        let (m, opened) = server.new_match(player, persona, "white").await;
        games.push((m, opened["state"].clone()));
    }
    let mut answered = 0;
    while answered < 24 && games.iter().any(|(_, s)| s["status"] == "active") {
        for (m, state) in games.iter_mut().filter(|(_, s)| s["status"] == "active") {
            let uci = state["legal_moves"][0]["uci"].as_str().unwrap().to_string();
            let (status, out) = server
                .post(&format!("/api/matches/{m}/moves"), json!({ "move": uci }))
                .await;
            assert_eq!(status, 200, "{out}");
            *state = out["state"].clone();
            answered += 1;
        }
    }
    assert!(answered >= 20, "only {answered} moves before both games ended");
    let seen = admission(&server).await;
    assert!(seen["move_reply_p90_ms"].as_u64() >= Some(1), "{seen}");
    let cy = server.new_player("Cy").await;
    let (status, out, retry) = open(&server, &cy, "white").await;
    assert_eq!((status, out["error"]["code"].as_str()), (503, Some("busy")), "{out}");
    assert!(retry.is_some_and(|s| (1..=60).contains(&s)), "{retry:?}");
    // A match being played is no new load: resuming it is let in.
    let (status, out, _) = open(&server, &ann, "white").await;
    let resumed = games[0].1["status"] == "active";
    assert!(!resumed || (status == 200 && out["resumed"] == true), "{status} {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_the_player_left_ends_as_abandoned_with_one_line_remembered() {
    // Three seconds of absence (the runtime looks every second).
    let server = Server::start_with(&[
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("KIBITZ_ABANDON_AFTER_HOURS", &(3.0 / 3600.0).to_string()),
    ])
    .await;
    let ann = server.new_player("Ann").await;
    let token = server.token(&ann);
    let (left, _) = server.new_match(&ann, "viktor", "white").await;
    let (status, out) = server
        .send_as(
            Method::POST,
            &format!("/api/matches/{left}/moves"),
            Some(&token),
            Some(json!({ "move": "e4" })),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let (kept, _) = server.new_match(&ann, "pip", "white").await;
    // Ann keeps talking in the other match.
    let state_of = async |m: &str| server.get_as(&format!("/api/matches/{m}"), &token).await.1;
    let mut ended = false;
    for i in 0..16 {
        let (status, out) = server
            .send_as(
                Method::POST,
                &format!("/api/matches/{kept}/chat"),
                Some(&token),
                Some(json!({ "text": format!("still here, line {i}") })),
            )
            .await;
        assert_eq!(status, 200, "{out}");
        if state_of(&left).await["status"] == "finished" {
            ended = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    assert!(ended, "the left match never ended: {}", state_of(&left).await);
    let state = state_of(&left).await;
    assert_eq!(
        (state["result"].as_str(), state["termination"].as_str()),
        (Some("*"), Some("abandoned")),
        "{state}"
    );
    assert_eq!(
        state_of(&kept).await["status"],
        "active",
        "the match Ann talks in goes on"
    );
    // No after_match trigger or reflection for a game that never finished.
    let fired = kinds(&server.triggers(&left).await);
    assert!(!fired.iter().any(|k| k == "after_match"), "{fired:?}");
    let (status, _) = server.get_as(&format!("/api/matches/{left}/reflection"), &token).await;
    assert_eq!(status, 404);
    let (_, pgn) = server.text(&format!("/api/matches/{left}/pgn")).await;
    assert!(
        pgn.contains("[Result \"*\"]") && pgn.contains("[Termination \"abandoned\"]"),
        "{pgn}"
    );
    // One line remembered of it: that it was left.
    let of_it: Vec<String> = server
        .memories(&ann)
        .await
        .iter()
        .filter(|m| m["related_match_id"] == left.as_str())
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(of_it.len(), 1, "{of_it:?}");
    assert!(
        of_it[0].contains("Ann left our game unfinished after 1 move"),
        "{of_it:?}"
    );
    // Its actor and timers are gone; a move now is refused.
    let live = eventually(5, || async {
        server.get_as("/api/admin/status", ADMIN).await.1["live_matches"].as_u64() == Some(1)
    });
    assert!(live.await, "the left match still holds its place in the registry");
    let (status, out) = server
        .send_as(
            Method::POST,
            &format!("/api/matches/{left}/moves"),
            Some(&token),
            Some(json!({ "move": "d4" })),
        )
        .await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (409, Some("game_over")),
        "{out}"
    );
    // The same persona now opens a new match (the left one is no longer unfinished).
    let (status, out, _) = open(&server, &ann, "white").await;
    assert_eq!(status, 201, "{out}");
}
