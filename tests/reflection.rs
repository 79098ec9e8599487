//! After the match: the reflection (facts from the odds, the memories made,
//! the head-to-head), the reasoning reveal (only once the match is over), the
//! `kibitz reflections` command, and a model retelling it in voice.

mod common;

use common::fake_llm::{Behaviour, FakeLlm};
use common::*;
use serde_json::json;

/// White can mate with Qxd8#; Qd4 instead hangs the queen to the rook.
const MATE_OR_BLUNDER: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

async fn blunder_and_resign(server: &Server) -> String {
    let pat = server.new_player("Pat").await;
    let body = json!({ "player_id": pat, "persona_id": "margot", "color": "white", "fen": MATE_OR_BLUNDER });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    let m = out["state"]["id"].as_str().unwrap().to_string();
    let chat = json!({ "text": "I collect antique chess clocks from Vienna" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "Qd4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    let (status, _) = server.get(&format!("/api/matches/{m}/reasoning")).await;
    assert_eq!(status, 409, "no reasoning while the match is on");
    let (status, _) = server.get(&format!("/api/matches/{m}/reflection")).await;
    assert_eq!(status, 404);
    let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let announced = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "reflection");
    assert!(announced, "a reflection event: {out}");
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_reflection_states_the_facts() {
    let server = Server::start().await;
    let m = blunder_and_resign(&server).await;
    let (status, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        (r["outcome"].as_str(), r["termination"].as_str()),
        (Some("win"), Some("resignation"))
    );
    assert_eq!(r["written_by"], "scripted");
    let moments = r["key_moments"].as_array().unwrap();
    let qd4 = moments.iter().find(|k| k["san"] == "Qd4").expect("Qd4 is a key moment");
    assert_eq!(
        (qd4["by"].as_str(), qd4["class"].as_str()),
        (Some("player"), Some("blunder"))
    );
    assert!(
        qd4["fen_after"].as_str().unwrap().starts_with("3r2k1/"),
        "the position to show"
    );
    let summary = r["summary"].as_str().unwrap();
    assert!(
        summary.contains("Margot Vidal beat Pat by resignation after 1 move.")
            && summary.contains("1. Qd4 by the player, a blunder"),
        "{summary}"
    );
    let learned: Vec<&str> = r["learned"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["content"].as_str())
        .collect();
    assert!(
        learned.iter().any(|c| c.contains("antique chess clocks")),
        "{learned:?}"
    );
    assert_eq!(r["head_to_head"]["played"], 1);

    // The reasoning reveal: every trigger with its private thinking.
    let (status, reasoning) = server.get(&format!("/api/matches/{m}/reasoning")).await;
    assert_eq!(status, 200, "{reasoning}");
    let turns = reasoning.as_array().unwrap();
    assert!(turns.iter().any(|t| t["trigger"] == "after_match"));
    assert!(turns.iter().any(|t| t["thinking"].is_string()), "{reasoning}");

    let (ok, out, err) = server.run_cli(&["reflections", "--player", "Pat"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Margot Vidal beat Pat") && out.contains("key moment: 1. Qd4 by the player"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_retells_the_reflection_in_the_personas_voice() {
    let stop = r#"{"thinking": "quiet", "actions": [{"action": "stop"}]}"#.to_string();
    let diary = "Pat hung the queen on move one; I noted it in the green ledger.".to_string();
    let keyed = Behaviour::Keyed(vec![("for your diary".into(), diary.clone())], stop);
    let fake = FakeLlm::openai(vec![keyed]).await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &fake.url)]).await;
    let m = blunder_and_resign(&server).await;
    let retold = eventually(10, || async {
        let (_, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
        r["summary"] == diary.as_str()
    })
    .await;
    assert!(retold, "the retold summary replaced the factual one");
    let (_, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
    assert_ne!(r["written_by"], "scripted");
    // The facts stay the facts.
    assert!(r["key_moments"].as_array().unwrap().iter().any(|k| k["san"] == "Qd4"));
    // The model was given the facts, not asked to invent them.
    let bodies = fake.calls.bodies.lock().unwrap().clone();
    let asked = bodies
        .iter()
        .find(|b| b.to_string().contains("for your diary"))
        .unwrap()
        .to_string();
    assert!(asked.contains("Qd4") && asked.contains("blunder"), "{asked}");
}
