//! Draw offers both ways: the persona accepts when it is not ahead, declines
//! when it is, and proposes one itself after a long quiet stretch.

mod common;

use common::*;
use serde_json::json;

async fn match_from(server: &Server, player: &str, fen: &str) -> String {
    let body = json!({ "player_id": player, "persona_id": "margot", "color": "white", "fen": fen });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    out["state"]["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draws_are_offered_accepted_and_declined() {
    let server = Server::start().await;
    let player = server.new_player("Dora").await;

    // The user is a rook up at move 40: the persona gladly takes a draw.
    let m = match_from(&server, &player, "4k3/8/8/8/8/8/8/R3K3 w - - 0 40").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/draw"), json!({ "action": "offer" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["status"], "finished");
    assert_eq!(
        (out["state"]["result"].as_str(), out["state"]["termination"].as_str()),
        (Some("1/2-1/2"), Some("draw_agreed"))
    );
    let kinds: Vec<&str> = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"draw_offer") && kinds.contains(&"game_over"),
        "{kinds:?}"
    );

    // The persona is a queen up: it declines and the game goes on.
    let m = match_from(&server, &player, "3qk3/8/8/8/8/8/8/4K3 w - - 0 40").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/draw"), json!({ "action": "offer" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["status"], "active");
    let offer = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "draw_offer")
        .unwrap()
        .clone();
    assert_eq!(offer["data"]["accepted"], false);

    // Forty quiet half-moves and level material: the persona proposes a draw; the user accepts.
    let m = match_from(&server, &player, "r3k3/8/8/8/8/8/8/4K2R w - - 39 60").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "Kd2" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["draw_offer"], "persona", "{out}");
    let (status, out) = server
        .post(&format!("/api/matches/{m}/draw"), json!({ "action": "accept" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["state"]["termination"], "draw_agreed");
}
