//! Your mistakes come back as puzzles: a planted blunder becomes a puzzle
//! after the game, with the engine's better move as its answer; answered
//! wrong it stays, solved twice it retires; the player may dismiss it; no
//! one else can see it. The reflection's key moment names the better move.

mod common;

use common::*;
use serde_json::{Value, json};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_puzzle_the_greeting_could_not_offer_comes_while_the_player_thinks() {
    // Margot nudges after 60 s, scaled to 3 s.
    let server = Server::start_with(&[("KIBITZ_IDLE_TIME_SCALE", "0.05")]).await;
    let pat = server.new_player("Pat").await;
    // A game begun before the mistake was made: nothing to offer at its greeting.
    let (m, opened) = server.new_match(&pat, "margot", "white").await;
    assert!(
        !opened["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "puzzle"),
        "{opened}"
    );
    let (_, id) = planted(&server, &pat).await;
    // The player moves; while they think over the next one, she offers it.
    server.play_move(&m, "e4").await;
    let offered = || async {
        let events = server.events(&m).await;
        let offer = events
            .iter()
            .any(|e| e["type"] == "puzzle" && e["data"]["id"] == id.as_str());
        let said = events.iter().any(|e| {
            e["type"] == "message"
                && e["data"]["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("While you think") && c.contains("“Qd4”"))
        });
        offer && said
    };
    assert!(eventually(30, offered).await, "{:?}", server.events(&m).await);
    let (status, answered) = server
        .post(&format!("/api/matches/{m}/puzzle"), json!({ "move": "Qxd8#" }))
        .await;
    assert_eq!(status, 200, "{answered}");
    // One a game: the next idle wait offers nothing more.
    let offers = server.events(&m).await.iter().filter(|e| e["type"] == "puzzle").count();
    assert_eq!(offers, 1);
}
