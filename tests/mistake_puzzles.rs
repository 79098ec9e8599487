//! Your mistakes come back as puzzles: a planted blunder becomes a puzzle
//! after the game, with the engine's better move as its answer; answered
//! wrong it stays, solved twice it retires; the player may dismiss it; no
//! one else can see it. The reflection's key moment names the better move.

mod common;

use common::*;
use serde_json::{Value, json};

/// White mates with Qxd8#; Qd4 instead hangs the queen to the rook.
const MATE_OR_BLUNDER: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blunder_comes_back_as_a_puzzle_until_solved_twice() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (m, id) = planted(&server, &pat).await;
    let list = format!("/api/players/{pat}/puzzles");
    let (_, puzzles) = server.get(&list).await;
    let p = puzzles[0].clone();
    assert_eq!(
        (p["fen"].as_str(), p["played_san"].as_str()),
        (Some(MATE_OR_BLUNDER), Some("Qd4")),
        "{p}"
    );
    assert_eq!(
        (p["match_id"].as_str(), p["ply"].as_i64(), p["class"].as_str()),
        (Some(m.as_str()), Some(1), Some("blunder"))
    );
    assert!(
        p.get("solution_san").is_none() && p.get("solution_uci").is_none(),
        "the answer is not given away: {p}"
    );

    // The reflection's key moment names the better move.
    let better = eventually(10, || async {
        let (_, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
        r["key_moments"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k["better"] == "Qxd8#"))
    })
    .await;
    assert!(
        better,
        "{}",
        server.get(&format!("/api/matches/{m}/reflection")).await.1
    );

    let token = server.token(&pat);
    let answer = |mv: &'static str| {
        let (path, server, token) = (format!("/api/puzzles/{id}/answer"), &server, &token);
        async move {
            server
                .send_as(reqwest::Method::POST, &path, Some(token), Some(json!({ "move": mv })))
                .await
        }
    };
    let (status, wrong) = answer("Qd4").await;
    assert_eq!(status, 200, "{wrong}");
    assert_eq!(verdict(&wrong), (false, "Qxd8#", "open"), "{wrong}");
    assert_eq!(wrong["puzzle"]["failed"], 1);
    let (status, illegal) = answer("Qh8").await;
    assert_eq!(
        (status, illegal["error"]["code"].as_str()),
        (422, Some("illegal_move")),
        "{illegal}"
    );
    let (_, right) = answer("d1d8").await;
    assert_eq!(
        verdict(&right),
        (true, "Qxd8#", "open"),
        "solved once, it comes back: {right}"
    );
    let (_, again) = answer("Qxd8#").await;
    assert_eq!(verdict(&again), (true, "Qxd8#", "retired"), "{again}");

    // Nobody else's: another player gets 404 for the list and the puzzle.
    let eve = server.new_player("Eve").await;
    let eve_token = server.token(&eve);
    let (status, _) = server.get_as(&list, &eve_token).await;
    assert_eq!(status, 404);
    let (status, _) = server
        .send_as(
            reqwest::Method::POST,
            &format!("/api/puzzles/{id}/answer"),
            Some(&eve_token),
            Some(json!({ "move": "Qxd8#" })),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .send_as(
            reqwest::Method::POST,
            &format!("/api/puzzles/{id}/dismiss"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (_, after) = server.get(&list).await;
    assert_eq!(after[0]["status"], "dismissed", "{after}");
}

fn verdict(answered: &Value) -> (bool, &str, &str) {
    let v = &answered["verdict"];
    (
        v["correct"].as_bool().unwrap_or_default(),
        v["solution_san"].as_str().unwrap_or_default(),
        v["status"].as_str().unwrap_or_default(),
    )
}

/// A game with a planted blunder, over and reviewed: its id and its puzzle's.
async fn planted(server: &Server, pat: &str) -> (String, String) {
    let m = server.new_match_at(pat, "margot", "white", MATE_OR_BLUNDER).await;
    server.play_move(&m, "Qd4").await;
    server.resign(&m).await;
    // Kept after the game, off the reply.
    let list = format!("/api/players/{pat}/puzzles");
    assert!(eventually(30, || async { server.get(&list).await.1[0]["id"].is_string() }).await);
    let id = server.get(&list).await.1[0]["id"].as_str().unwrap().to_string();
    (m, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_game_offers_the_mistake_and_the_player_solves_it_on_the_websocket() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (_, id) = planted(&server, &pat).await;

    // The next game with Margot: the greeting offers it, in her words.
    let (m, opened) = server.new_match(&pat, "margot", "white").await;
    let events = opened["events"].as_array().unwrap();
    let offer = events.iter().find(|e| e["type"] == "puzzle").expect("a puzzle offered");
    assert_eq!(
        (offer["data"]["id"].as_str(), offer["data"]["fen"].as_str()),
        (Some(id.as_str()), Some(MATE_OR_BLUNDER))
    );
    assert_eq!(offer["data"]["played_san"], "Qd4");
    let said: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "message" && e["data"]["sender"] == "persona")
        .filter_map(|e| e["data"]["content"].as_str())
        .collect();
    assert!(
        said.iter().any(|l| l.contains("Remember") && l.contains("“Qd4”")),
        "{said:?}"
    );

    // Solved on the WebSocket: judged, told, and in her words.
    let mut ws = ws_connect_as(&server.ws_url(&m, 0), &server.token(&pat)).await.unwrap();
    ws_send(&mut ws, json!({ "type": "puzzle", "move": "Qxd8#" })).await;
    let frames = ws_until(&mut ws, std::time::Duration::from_secs(10), |f| {
        f["type"] == "puzzle_answer"
    })
    .await;
    let answer = frames.last().unwrap();
    assert_eq!(answer["type"], "puzzle_answer", "{frames:?}");
    assert_eq!(
        (answer["data"]["correct"].as_bool(), answer["data"]["status"].as_str()),
        (Some(true), Some("open"))
    );
    let frames = ws_until(&mut ws, std::time::Duration::from_secs(10), |f| f["type"] == "message").await;
    let words = frames.last().unwrap()["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(words.contains("That's it"), "{frames:?}");
    let (_, puzzles) = server.get(&format!("/api/players/{pat}/puzzles")).await;
    assert_eq!(puzzles[0]["solved"], 1, "{puzzles}");

    // One answer a game; and tried today, it rests before it comes back.
    let (status, again) = server
        .post(&format!("/api/matches/{m}/puzzle"), json!({ "move": "Qxd8#" }))
        .await;
    assert_eq!(
        (status, again["error"]["code"].as_str()),
        (409, Some("no_puzzle")),
        "{again}"
    );
    server.resign(&m).await;
    let (_, next) = server.new_match(&pat, "margot", "white").await;
    assert!(
        !next["events"].as_array().unwrap().iter().any(|e| e["type"] == "puzzle"),
        "{next}"
    );
}
