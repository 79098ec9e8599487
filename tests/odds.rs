//! The engine's verdict on each move: stored, pushed, and shown in the state,
//! and never allowed to hold a reply past its budget.

mod common;

use common::*;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-odds-tests-0123";

/// White mates with Qxd8#; Qd4 instead hangs the queen to the rook.
const MATE_OR_BLUNDER: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

async fn start(server: &Server) -> String {
    let pat = server.new_player("Pat").await;
    let body = json!({ "player_id": pat, "persona_id": "margot", "color": "white", "fen": MATE_OR_BLUNDER });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    out["state"]["id"].as_str().unwrap().to_string()
}

fn first_move(state: &Value) -> Value {
    state["moves"][0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_queen_is_a_blunder_and_the_odds_are_kept() {
    let server = Server::start().await;
    let m = start(&server).await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "Qd4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let pushed = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "move" && e["data"]["san"] == "Qd4")
        .expect("the move event")
        .clone();
    let odds = &pushed["data"]["odds"];
    assert_eq!(odds["class"], "blunder", "{pushed}");
    assert!(odds["white"].as_f64().unwrap() < 20.0, "{odds}");
    assert!(
        odds["delta"].as_f64().unwrap() < -50.0,
        "from a mate in one to a lost queen: {odds}"
    );

    // The engine's score, from White's side: the rook takes the queen.
    let cp = odds["eval"]["cp"].as_i64().expect("a score in centipawns");
    assert!(cp < -300, "{odds}");

    // Stored with the move: the state of a reloaded match shows it too.
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(first_move(&state)["odds"]["class"], "blunder", "{state}");
    assert_eq!(first_move(&state)["odds"]["eval"]["cp"].as_i64(), Some(cp), "{state}");
    let persona_reply = &state["moves"][1];
    assert!(persona_reply["odds"]["white"].is_number(), "{persona_reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_time_for_it_a_move_simply_has_no_odds() {
    let server = Server::start_with(&[("KIBITZ_EVAL_BUDGET_MS", "0")]).await;
    let m = start(&server).await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "Qxd8#" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(state["status"], "finished");
    assert!(first_move(&state).get("odds").is_none(), "{state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deeper_evaluation_after_the_reply_revises_the_stored_odds() {
    // The hot path looks one node deep; the deeper look comes afterwards.
    let server = Server::start_with(&[
        ("KIBITZ_EVAL_NODES", "1"),
        ("KIBITZ_EVAL_DEEP_NODES", "100000"),
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
    ])
    .await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "margot", "white").await;
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let revised = eventually(20, || async {
        server.events(&m).await.iter().any(|e| e["type"] == "odds")
    })
    .await;
    assert!(revised, "an odds event arrived: {:?}", server.events(&m).await);
    // What the event said is what the state now shows for that ply.
    let events = server.events(&m).await;
    let last = events.iter().rev().find(|e| e["type"] == "odds").unwrap();
    let ply = last["data"]["ply"].as_u64().unwrap() as usize;
    assert_eq!(last["data"]["depth"], "deep");
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(
        state["moves"][ply - 1]["odds"]["white"],
        last["data"]["odds"]["white"],
        "{state}"
    );
    assert_eq!(
        state["moves"][ply - 1]["odds"]["deep"],
        true,
        "the move is marked checked: {state}"
    );
    // The books say so: both moves asked, the checked ones counted, none shed.
    let (_, status) = server.get_as("/api/admin/status", ADMIN).await;
    let deep = &status["deep_evaluations"];
    assert_eq!(deep["asked"], json!(2), "{status}");
    assert!(deep["checked"].as_u64().unwrap() >= 1, "{status}");
    assert_eq!(deep["shed"], json!(0), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_searches_that_choose_the_personas_moves_score_both_sides_moves() {
    // No evaluation could finish within the budget (100M nodes in 2 s), so
    // any odds below come from the persona's own searches: its move's from the
    // search that chose it, the user's from the search of the reply.
    let server = Server::start_with(&[
        ("KIBITZ_EVAL_NODES", "100000000"),
        ("KIBITZ_EVAL_BUDGET_MS", "2000"),
        ("KIBITZ_EVAL_DEEP_NODES", "0"),
    ])
    .await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "margot", "black").await;
    for _ in 0..3 {
        let (_, state) = server.get(&format!("/api/matches/{m}")).await;
        let mv = state["legal_moves"][0]["uci"]
            .as_str()
            .expect("a legal move")
            .to_string();
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{out}");
    }
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    let moves = state["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7, "{state}");
    for m in moves {
        assert!(m["odds"]["white"].is_number(), "every move has odds: {m}");
    }
}
