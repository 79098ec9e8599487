//! With a language model, the game never waits for the talk: in front of
//! the real llama-server sits a proxy that holds every completion for 30 s.
//! The persona's moves come at engine speed all the same (no completion has
//! been answered when they arrive), its words come by the deadline from the
//! scripted voice, words about a board the player has moved on from are
//! dropped, and the trigger log says how each turn's words came.

mod common;

use std::time::Duration;

use common::llama::LlamaServer;
use common::slow_llm::SlowLlm;
use common::*;
use serde_json::{Value, json};

/// How each trigger's words came, in firing order: (trigger, "words" note).
async fn words_log(server: &Server, m: &str) -> Vec<(String, String)> {
    server
        .triggers(m)
        .await
        .iter()
        .map(|t| {
            let note = t["words"].as_str().unwrap_or("on time").to_string();
            (t["trigger"].as_str().unwrap().to_string(), note)
        })
        .collect()
}

/// `preferred` if it is legal in match `m` now, else its first legal move.
async fn legal_or_any(server: &Server, m: &str, preferred: &str) -> String {
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    let legal: Vec<&str> = state["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["san"].as_str())
        .collect();
    let pick = legal.iter().find(|san| **san == preferred).or(legal.first());
    pick.expect("a legal move").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_never_wait_for_a_slow_model() {
    let llama = LlamaServer::start().await;
    let slow = SlowLlm::start(&llama.url, Duration::from_secs(30)).await;
    let server = Server::start_with(&[
        ("KIBITZ_LLM_URL", &slow.url),
        ("KIBITZ_LLM_WORDS_DEADLINE_MS", "5000"),
        ("KIBITZ_LLM_CHAT_DEADLINE_MS", "2000"),
    ])
    .await;
    let ida = server.new_player("Ida").await;
    let (m, created) = server.new_match(&ida, "viktor", "white").await;
    assert_eq!(created["state"]["serving"]["agent"], "llm", "{created}");

    // Three moves back to back: each answered by the persona's move while
    // the model has answered nothing at all. Viktor (chattiness 2) has
    // words for every other move of the player's: e4 and the third.
    for (ply, preferred) in [(2, "e4"), (4, "d4"), (6, "Nc3")] {
        let mv = legal_or_any(&server, &m, preferred).await;
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{out}");
        assert_eq!(out["state"]["moves"].as_array().unwrap().len(), ply, "{out}");
        assert_eq!(slow.answered(), 0, "a move waited for the model");
    }
    assert!(slow.begun() >= 1, "the model was asked for words");

    // The greeting was cut short by e4 (the scripted voice gave it), the
    // words about e4 were called off when d4 came, those about the third
    // move came from the scripted voice at the deadline.
    let mut log = words_log(&server, &m).await;
    let moved = |log: &[(String, String)]| log.iter().filter(|(k, _)| k == "on_user_move").count();
    for _ in 0..100 {
        if moved(&log) == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        log = words_log(&server, &m).await;
    }
    let of = |kind: &str| -> Vec<&str> { log.iter().filter(|(k, _)| k == kind).map(|(_, w)| w.as_str()).collect() };
    assert!(of("before_match")[0].starts_with("cut short"), "{log:?}");
    let moved = of("on_user_move");
    assert_eq!(moved.len(), 3, "{log:?}");
    assert!(moved[0].starts_with("dropped"), "{log:?}");
    // d4's words were quiet (no call: the scripted voice had nothing to
    // say) or, if it had, called off by the third move.
    assert!(moved[1] == "on time" || moved[1].starts_with("dropped"), "{log:?}");
    assert!(moved[2].starts_with("late: the model took over 5.0 s"), "{log:?}");
    // The persona's own moves spoke in the scripted voice at once: the
    // model was busy with the words about the player's move.
    assert!(of("before_agent_move").iter().all(|w| *w == "on time"), "{log:?}");

    // A chat line is answered by its deadline, and the fact in it kept.
    let (status, out) = server
        .post(
            &format!("/api/matches/{m}/chat"),
            json!({ "text": "My grandmother taught me chess" }),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let line: &Value = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "message")
        .unwrap();
    let told = |r: &String| r.to_lowercase().contains("your grandmother taught you chess");
    let seq = line["seq"].as_i64().unwrap();
    let reply = persona_words_until(&server, &m, seq, 15, |said| said.iter().any(told)).await;
    assert!(reply.iter().any(told), "{reply:?}");
    // The fact is saved just after the words that say it was heard.
    let kept = || async {
        let facts = server.memory_texts(&ida).await;
        facts.iter().any(|f| f.contains("Ida's grandmother taught them chess"))
    };
    assert!(
        common::eventually(10, kept).await,
        "{:?}",
        server.memory_texts(&ida).await
    );
    assert_eq!(slow.answered(), 0, "nothing waited for the model's answers");
}
