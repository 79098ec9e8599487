//! The voice that listens, with no language model: a fact told in one
//! match answers "do you remember me?" in the next, the intent of each line
//! is in the trigger log, and no line is said twice in a row.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// Chats, and returns the persona's replies to it.
async fn replies(server: &Server, m: &str, text: &str) -> Vec<String> {
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": text }))
        .await;
    assert_eq!(status, 200, "{out}");
    persona_lines(&out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fact_told_in_one_match_answers_do_you_remember_me_in_the_next() {
    let server = Server::start().await;
    let rae = server.new_player("Rae").await;
    let (m1, _) = server.new_match(&rae, "viktor", "white").await;
    let first = replies(&server, &m1, "Do you remember me?").await;
    assert!(
        first.iter().any(|r| r.contains("met")),
        "a stranger is not remembered: {first:?}"
    );
    replies(&server, &m1, "I work as a lighthouse keeper on the coast").await;
    assert_eq!(
        server.post(&format!("/api/matches/{m1}/resign"), json!({})).await.0,
        200
    );

    let (m2, _) = server.new_match(&rae, "viktor", "black").await;
    let answer = replies(&server, &m2, "Hello! Do you remember me?").await;
    assert!(
        answer.iter().any(|r| r.contains("lighthouse keeper")),
        "the fact answers the question: {answer:?}"
    );
    let score = replies(&server, &m2, "how many times have I beaten you?").await;
    assert!(score.iter().any(|r| r.contains("you won 0")), "{score:?}");
    let log: Vec<Value> = server.triggers(&m2).await;
    // Each line asks about their memory: as its point, or after a greeting.
    let asks_memory = |heard: &Value| {
        heard["intent"] == "asks_memory"
            || heard["also"]
                .as_array()
                .is_some_and(|also| also.iter().any(|i| i == "asks_memory"))
    };
    let heard: Vec<bool> = log
        .iter()
        .filter(|t| t["trigger"] == "on_user_input")
        .map(|t| asks_memory(&t["heard"]))
        .collect();
    assert_eq!(heard, [true, true], "{log:?}");
    // After the game, the reasoning shows how each line was heard.
    assert_eq!(
        server.post(&format!("/api/matches/{m2}/resign"), json!({})).await.0,
        200
    );
    let (status, reasoning) = server.get(&format!("/api/matches/{m2}/reasoning")).await;
    assert_eq!(status, 200, "{reasoning}");
    let confident = reasoning
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["heard"]["intent"] == "asks_memory")
        .all(|t| t["heard"]["confidence"].as_f64().is_some_and(|c| c > 0.5));
    assert!(confident, "{reasoning}");
}

/// What the player told a few lines ago answers "do you remember...?" in
/// the same match (recall otherwise leaves out what this match just made,
/// so it is not handed straight back), and a question nobody can answer
/// gets an honest line, not "Of course I do." before "you haven't told me".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fact_told_this_match_answers_a_question_a_minute_later() {
    let server = Server::start().await;
    let sam = server.new_player("Sam").await;
    let (m, _) = server.new_match(&sam, "margot", "white").await;
    let unknown = replies(&server, &m, "do you remember where I grew up?").await;
    assert!(
        unknown.iter().any(|r| r.starts_with("You haven't told me")),
        "said alone: {unknown:?}"
    );
    replies(&server, &m, "hi! I'm Sam, I teach piano at the conservatory").await;
    assert!(eventually(20, || async { !server.memories(&sam).await.is_empty() }).await);
    let asked = replies(&server, &m, "do you remember what I do for a living?").await;
    assert!(
        asked.iter().any(|r| r.contains("piano")),
        "the fact told this match answers: {asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_line_is_said_twice_in_a_row() {
    let server = Server::start().await;
    let kim = server.new_player("Kim").await;
    let (m, _) = server.new_match(&kim, "pip", "white").await;
    let mut last: Vec<String> = Vec::new();
    for line in ["nice move", "wow, nice move", "great move!", "nice one", "good move"] {
        let now = replies(&server, &m, line).await;
        assert!(!now.is_empty(), "{line} is answered");
        assert!(now.iter().all(|r| !last.contains(r)), "{line}: {now:?} after {last:?}");
        last = now;
    }
}

/// What the persona said before a restart still counts: the resumed match
/// does not open with the line it said last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_does_not_make_the_persona_repeat_itself() {
    let mut server = Server::start().await;
    let lou = server.new_player("Lou").await;
    let (m, _) = server.new_match(&lou, "pip", "white").await;
    let before = replies(&server, &m, "thanks!").await;
    assert_eq!(before.len(), 1, "{before:?}");
    server.kill();
    server.launch().await;
    let after = replies(&server, &m, "thanks!").await;
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(before, after, "the same thanks twice in a row across a restart");
}

/// Over the WebSocket, as the page talks: a line about the player is echoed
/// and kept as a fact, a question about the board is answered from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_websocket_hears_a_fact_and_a_question() {
    let server = Server::start().await;
    let tom = server.new_player("Tom").await;
    let (m, _) = server.new_match(&tom, "margot", "black").await;
    // A `since` past the last event (a stale client's) is read as "now".
    let mut ws = server.ws(&m, i64::MAX).await;
    let persona_says = |f: &Value| f["type"] == "message" && f["data"]["sender"] == "persona";
    let said = |frames: &[Value]| -> String {
        let texts = frames.iter().filter(|f| persona_says(f));
        texts
            .map(|f| f["data"]["content"].as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    };
    ws_send(&mut ws, json!({ "type": "chat", "text": "I work as a baker in Leeds" })).await;
    let frames = ws_until(&mut ws, Duration::from_secs(10), persona_says).await;
    assert!(said(&frames).contains("baker in Leeds"), "echoed: {frames:?}");
    // The fact is kept as the reply is said (its row may commit just after).
    let kept = || async {
        let facts = server.memory_texts(&tom).await;
        facts.iter().any(|f| f.contains("Tom works as a baker in Leeds"))
    };
    assert!(eventually(5, kept).await, "{:?}", server.memory_texts(&tom).await);

    ws_send(&mut ws, json!({ "type": "chat", "text": "why did you play that?" })).await;
    let frames = ws_until(&mut ws, Duration::from_secs(10), persona_says).await;
    let opened = server.get(&format!("/api/matches/{m}")).await.1["moves"][0]["san"].clone();
    let opened = opened.as_str().expect("the persona opened as White");
    assert!(said(&frames).contains(&format!("{opened}? Because it")), "{frames:?}");
    let heard: Vec<Value> = server
        .triggers(&m)
        .await
        .into_iter()
        .map(|t| t["heard"]["intent"].clone())
        .collect();
    assert!(
        heard.contains(&json!("self_disclosure")) && heard.contains(&json!("asks_position")),
        "{heard:?}"
    );
}

/// `kibitz play` in a terminal: what the player tells in one match answers
/// "do you remember me?" in the next.
#[test]
fn kibitz_play_remembers_the_player_across_matches() {
    let data = tempfile::tempdir().unwrap();
    let play = |input: &str| -> String {
        let mut cmd = kibitz_in(data.path());
        cmd.args(["play", "--persona", "pip", "--player", "Wren", "--color", "white"])
            .env("KIBITZ_DATA_DIR", data.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "kibitz play failed");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let first = play("My grandmother taught me chess\n/resign\n");
    assert!(
        first.to_lowercase().contains("your grandmother taught you chess"),
        "{first}"
    );
    // It stopped cleanly (the game's last turns done, the index flushed):
    // the next start has nothing to check.
    assert!(!data.path().join("kibitz.running").exists(), "the run marker stayed");
    let second = play("Do you remember me?\n/quit\n");
    assert!(second.contains("Wren's grandmother taught them chess"), "{second}");
    // The match left unfinished is resumed, and heard: its actor is loaded
    // before the terminal subscribes (a match not loaded yet had no events
    // to follow, and the session ended before reading a line).
    let third = play("Do you remember me?\n/quit\n");
    let resumed = third.split("Resuming your unfinished match").nth(1).unwrap_or_default();
    assert!(resumed.contains("grandmother"), "{third}");
}

/// Told again in the next match, a fact is said back as known, and kept
/// once (the memory reinforced, not stored a second time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fact_told_again_is_recognised_not_noted_twice() {
    let server = Server::start().await;
    let ida = server.new_player("Ida").await;
    let (m1, _) = server.new_match(&ida, "margot", "white").await;
    replies(&server, &m1, "I teach the cello at a music school in Porto").await;
    assert_eq!(
        server.post(&format!("/api/matches/{m1}/resign"), json!({})).await.0,
        200
    );
    let (m2, _) = server.new_match(&ida, "margot", "black").await;
    let again = replies(&server, &m2, "I teach the cello at a music school in Porto, did I say?").await;
    assert!(
        again
            .iter()
            .any(|r| r.contains("You told me before") || r.contains("I remember")),
        "said back as known: {again:?}"
    );
    let cello: Vec<Value> = server
        .memories(&ida)
        .await
        .into_iter()
        .filter(|m| m["content"].as_str().is_some_and(|c| c.contains("cello")))
        .collect();
    assert_eq!(cello.len(), 1, "kept once: {cello:?}");
}

/// Bad news told in passing is met with sympathy and remembered, with its
/// date made absolute: a friend would not forget that the dog died.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_news_told_in_passing_is_met_with_sympathy_and_kept() {
    let server = Server::start().await;
    let uma = server.new_player("Uma").await;
    let (m, _) = server.new_match(&uma, "margot", "white").await;
    let said = replies(&server, &m, "my dog had to be put down yesterday").await;
    assert!(
        said.iter().any(|r| r.contains("sorry") || r.contains("sympathies")),
        "met with sympathy: {said:?}"
    );
    let kept: Vec<String> = server
        .memories(&uma)
        .await
        .into_iter()
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .filter(|c| c.contains("dog"))
        .collect();
    assert_eq!(kept.len(), 1, "kept once: {kept:?}");
    assert!(
        kept[0].contains("put down on ") && !kept[0].contains("yesterday"),
        "the date made absolute: {kept:?}"
    );
}
