//! A whole game over the real HTTP + WebSocket API.

mod common;

use std::time::Duration;

use common::*;
use kibitz::chess::{Game, pgn};
use serde_json::{Value, json};

/// A deterministic "random" pick, so a failure replays the same game.
fn pick(legal: &[Value], turn: usize) -> String {
    let i = (turn * 7919 + 13) % legal.len();
    legal[i]["san"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_game_over_http_and_websocket() {
    let server = Server::start().await;
    let player = server.new_player("Ann").await;
    let (m, created) = server.new_match(&player, "margot", "white").await;
    assert_eq!(created["state"]["status"], "active");
    assert_eq!(created["state"]["user_color"], "white");
    assert_eq!(created["state"]["legal_moves"].as_array().unwrap().len(), 20);
    assert!(
        created["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "message"),
        "greeting: {created}"
    );

    let mut ws = server.ws(&m, 0).await;
    let hello = ws_next(&mut ws, Duration::from_secs(5)).await.expect("state frame");
    assert_eq!(hello["type"], "state");
    assert_eq!(hello["data"]["id"], m.as_str());

    // Chat and the first move over the WebSocket; answers come over the WebSocket.
    ws_send(
        &mut ws,
        json!({ "type": "chat", "text": "Good evening, shall we begin?" }),
    )
    .await;
    ws_send(&mut ws, json!({ "type": "move", "move": "e9" })).await;
    ws_send(&mut ws, json!({ "type": "move", "move": "e4" })).await;
    let frames = ws_until(&mut ws, Duration::from_secs(5), |f| {
        f["type"] == "move" && f["data"]["side"] == "persona"
    })
    .await;
    let kinds: Vec<&str> = frames.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"message"), "the persona answered the chat: {kinds:?}");
    let error = frames
        .iter()
        .find(|f| f["type"] == "error")
        .expect("an error frame for e9");
    assert_eq!(error["data"]["code"], "unrecognised_move");
    assert_eq!(kinds.last(), Some(&"move"), "the persona answered e4: {kinds:?}");
    let seen_so_far: Vec<i64> = frames.iter().filter_map(|f| f["seq"].as_i64()).collect();
    let (_, mut state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(state["moves"].as_array().unwrap().len(), 2);
    let mut turn = 0;
    while state["status"] == "active" && turn < 150 {
        let legal = state["legal_moves"].as_array().unwrap().clone();
        let before = state["moves"].as_array().unwrap().len();
        let (status, out) = server
            .post(
                &format!("/api/matches/{m}/moves"),
                json!({ "move": pick(&legal, turn) }),
            )
            .await;
        assert_eq!(status, 200, "move {turn}: {out}");
        state = out["state"].clone();
        let moves = state["moves"].as_array().unwrap();
        let grew = moves.len() - before;
        assert!(
            grew == 2 || (grew == 1 && state["status"] == "finished"),
            "after move {turn}: {grew} new moves"
        );
        for (i, mv) in moves.iter().enumerate() {
            assert_eq!(mv["ply"], i + 1);
        }
        let events = out["events"].as_array().unwrap();
        assert_eq!(events.iter().filter(|e| e["type"] == "move").count(), grew);
        turn += 1;
    }
    if state["status"] == "active" {
        let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
        assert_eq!(status, 200, "{out}");
        state = out["state"].clone();
    }
    assert_eq!(state["status"], "finished");
    assert!(state["legal_moves"].as_array().unwrap().is_empty());
    assert!(state["result"].is_string() && state["termination"].is_string());

    // The WebSocket saw every stored event, in order, once each.
    let stored = server.events(&m).await;
    let mut seen = seen_so_far;
    while let Some(frame) = ws_next(&mut ws, Duration::from_secs(3)).await {
        assert_ne!(frame["type"], "error", "{frame}");
        seen.push(frame["seq"].as_i64().unwrap());
        if seen.len() == stored.len() {
            break;
        }
    }
    let expected: Vec<i64> = (1..=stored.len() as i64).collect();
    assert_eq!(seen, expected, "websocket events vs stored events");
    let last_kind = stored.iter().rev().find(|e| e["type"] == "trigger").unwrap();
    assert_eq!(last_kind["data"]["trigger"], "after_match");
    assert!(
        stored
            .iter()
            .any(|e| e["type"] == "message" && e["data"]["sender"] == "user")
    );

    // The PGN replays to the same final position, with the right result.
    let (status, text) = server.text(&format!("/api/matches/{m}/pgn")).await;
    assert_eq!(status, 200);
    assert_eq!(pgn::header(&text, "Result").as_deref(), state["result"].as_str());
    let mut replay = Game::new(None).unwrap();
    for san in pgn::san_moves(&text) {
        let mv = replay.parse(&san).unwrap_or_else(|e| panic!("{san}: {e}\n{text}"));
        replay.play(mv);
    }
    assert_eq!(replay.fen(), state["fen"].as_str().unwrap());

    // A reconnecting client that saw up to N gets only what came after.
    let mut again = server.ws(&m, stored.len() as i64 - 2).await;
    assert_eq!(
        ws_next(&mut again, Duration::from_secs(5)).await.unwrap()["type"],
        "state"
    );
    let a = ws_next(&mut again, Duration::from_secs(5)).await.unwrap();
    let b = ws_next(&mut again, Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (a["seq"].as_i64(), b["seq"].as_i64()),
        (Some(stored.len() as i64 - 1), Some(stored.len() as i64))
    );
    assert!(ws_next(&mut again, Duration::from_millis(500)).await.is_none());

    // The persona's own lines are true: the claim checker never had to cut one.
    let log = serde_json::to_string(&server.triggers(&m).await).unwrap();
    assert!(
        !log.contains("false claim"),
        "a scripted line made a false claim: {log}"
    );
    assert!(
        log.contains("\"executed\""),
        "the check above reads the executed actions"
    );
}
