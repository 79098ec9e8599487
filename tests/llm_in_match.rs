//! A match served by a fake model that speaks the real OpenAI format: the
//! model's words reach the persona's messages and the call log, a broken
//! model never stalls the match, events reach a WebSocket while the model
//! thinks, an LLM subconscious searches then provides, the model knows the
//! player's local time, and what it wants remembered is checked.

mod common;

use std::time::Duration;

use common::fake_llm::{Behaviour, FakeLlm};
use common::*;
use serde_json::{Value, json};

fn ok(text: &str) -> Behaviour {
    Behaviour::Answer(text.into())
}

/// A match served by a fake model: `script` for every main-agent call.
const ADMIN: &str = "admin-token-for-the-llm-log";

async fn match_with(script: Vec<Behaviour>) -> (Server, FakeLlm, String) {
    let fake = FakeLlm::openai(script).await;
    let server = Server::start_with(&[
        ("KIBITZ_LLM_URL", &fake.url),
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("KIBITZ_LLM_MODEL_RECALL", "true"),
    ])
    .await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "pip", "white").await;
    (server, fake, m)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_speaks_for_the_persona_and_the_state_says_which() {
    let said = r#"{"thinking": "greet", "actions": [{"action": "send_message", "content": "Bold start, Pat.", "tone": "playful"}, {"action": "stop"}]}"#;
    let (server, fake, m) = match_with(vec![ok(said)]).await;
    // The greeting is said first, so both triggers reach the model: a line
    // sent while the greeting still recalls would cut it short before its
    // main call, and the call log below would hold one answer, not two.
    let greeted = persona_words_until(&server, &m, 0, 20, |said| !said.is_empty()).await;
    assert_eq!(greeted, ["Bold start, Pat."], "the model greets");
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": "hi pip" }))
        .await;
    assert_eq!(status, 200, "{out}");
    // The words follow the command, over the event stream.
    let line = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "message")
        .unwrap();
    let seq = line["seq"].as_i64().unwrap();
    let texts = persona_words_until(&server, &m, seq, 10, |said| {
        said.iter().any(|s| s == "Bold start, Pat.")
    })
    .await;
    assert_eq!(texts.last().map(String::as_str), Some("Bold start, Pat."), "{texts:?}");
    let serving = &out["state"]["serving"];
    assert_eq!(
        (serving["agent"].as_str(), serving["llm_endpoint"].as_str()),
        (Some("llm"), Some("default"))
    );
    // The player's words reached the model quoted, as data.
    let bodies = fake.calls.bodies.lock().unwrap().clone();
    let last = bodies.last().unwrap()["messages"].to_string();
    assert!(last.contains("<player_message>hi pip</player_message>"), "{last}");
    // Accounting: every call is in llm_calls with its tokens.
    let pool = server.sql().await;
    let rows: Vec<(i64, String, Option<String>)> =
        sqlx::query_as("SELECT prompt_tokens, role, error FROM llm_calls WHERE match_id = $1")
            .bind(&m)
            .fetch_all(&pool)
            .await
            .unwrap();
    // The same log over the admin API, and only there.
    let player = out["state"]["player_id"].as_str().unwrap();
    let log_path = format!("/api/admin/matches/{m}/llm-calls");
    let (status, _) = server.get_as(&log_path, &server.token(player)).await;
    assert_eq!(status, 403, "a player may not read the agents' raw answers");
    let (status, log) = server.get_as(&log_path, ADMIN).await;
    assert_eq!(status, 200, "{log}");
    assert_eq!(log.as_array().unwrap().len(), rows.len());
    // Answered calls carry their tokens; one the match stopped waiting for
    // would say so.
    assert!(
        rows.iter().filter(|(_, r, _)| r == "main").count() >= 2
            && rows.iter().any(|(_, r, _)| r == "subconscious")
            && rows.iter().all(|(t, _, e)| match e {
                None => *t == 42,
                Some(e) => e.starts_with("abandoned"),
            }),
        "{rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_model_never_stalls_the_match() {
    for broken in [
        Behaviour::NotJson,
        Behaviour::Truncated,
        Behaviour::Fail,
        ok("I would rather not answer in JSON."),
    ] {
        let (server, _fake, m) = match_with(vec![broken.clone()]).await;
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
            .await;
        assert_eq!(status, 200, "{broken:?}: {out}");
        assert_eq!(
            out["state"]["moves"].as_array().unwrap().len(),
            2,
            "the persona still moved"
        );
        // A chat line asks the model too (the move's words may be quiet).
        let (status, out) = server
            .post(&format!("/api/matches/{m}/chat"), json!({ "text": "hello there" }))
            .await;
        assert_eq!(status, 200, "{broken:?}: {out}");
        // The trigger log (thinking is never shown during play, so read SQL);
        // the words follow the commands.
        let pool = server.sql().await;
        let mut logs: Vec<(String,)> = Vec::new();
        for _ in 0..100 {
            logs = sqlx::query_as("SELECT actions FROM trigger_log WHERE match_id = $1")
                .bind(&m)
                .fetch_all(&pool)
                .await
                .unwrap();
            if logs.iter().filter(|(a,)| a.contains("scripted fallback")).count() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let fell_back = logs.iter().filter(|(a,)| a.contains("scripted fallback")).count();
        assert!(fell_back >= 2, "{broken:?}: the scripted brain acted: {logs:?}");
    }
}

/// Events reach a WebSocket as each one commits, not once the command that
/// made them is done: the player's own chat line shows while the model
/// still thinks about its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_shows_each_event_while_the_model_still_thinks() {
    let wait = Duration::from_secs(4);
    let answer = r#"{"thinking": "listen", "actions": [{"action": "send_message", "content": "Go on, Pat.", "tone": "playful"}, {"action": "stop"}]}"#.to_string();
    let needle = "hold that thought".to_string();
    let (server, _fake, m) = match_with(vec![Behaviour::SlowWhen { needle, wait, answer }]).await;
    let seen = server.events(&m).await.len() as i64;
    let mut ws = server.ws(&m, seen).await;
    assert_eq!(ws_next(&mut ws, Duration::from_secs(5)).await.unwrap()["type"], "state");
    let sent = std::time::Instant::now();
    ws_send(&mut ws, json!({ "type": "chat", "text": "hold that thought" })).await;
    // (The greeting may come first: the model's words follow their trigger.)
    let mine = |f: &Value| f["type"] == "message" && f["data"]["sender"] == "user";
    let echo = ws_until(&mut ws, wait / 2, mine).await;
    assert!(
        echo.last().is_some_and(mine),
        "the chat line, before the model answers: {echo:?}"
    );
    // The command itself did wait for the model: the answer came after.
    let rest = ws_until(&mut ws, Duration::from_secs(30), |f| {
        f["type"] == "message" && f["data"]["sender"] == "persona"
    })
    .await;
    assert_eq!(
        rest.last().map(|f| f["data"]["content"].clone()),
        Some(json!("Go on, Pat.")),
        "{rest:?}"
    );
    assert!(sent.elapsed() >= wait, "the model answered the chat at once: {rest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_llm_subconscious_searches_then_provides_with_its_reasons() {
    let save = r#"{"thinking": "note it", "actions": [{"action": "save_memory", "content": "Pat collects antique chess clocks from Vienna", "memory_type": "personal_note", "importance": 0.7}, {"action": "stop"}]}"#;
    let recaller = Behaviour::Recaller {
        query: "collects antique chess clocks".into(),
        reason: "Pat loves old clocks; ask about the collection".into(),
        answer: save.into(),
    };
    let fake = FakeLlm::openai(vec![recaller]).await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &fake.url), ("KIBITZ_LLM_MODEL_RECALL", "true")]).await;
    let pat = server.new_player("Pat").await;
    let (m1, _) = server.new_match(&pat, "pip", "white").await;
    assert_eq!(
        server
            .post(
                &format!("/api/matches/{m1}/chat"),
                json!({ "text": "I collect clocks" })
            )
            .await
            .0,
        200
    );
    assert_eq!(
        server.post(&format!("/api/matches/{m1}/resign"), json!({})).await.0,
        200
    );
    let saved = server.memories(&pat).await;
    let clock = saved
        .iter()
        .find(|m| m["content"].as_str().unwrap().contains("antique chess clocks"))
        .unwrap();

    // The next match: the model's subconscious searched, then provided it.
    let (m2, _) = server.new_match(&pat, "pip", "white").await;
    let token = server.token(&pat);
    let path = format!("/api/memories/{}", clock["id"].as_str().unwrap());
    // The recall is logged with the greeting's words, which follow.
    let reason_given = |shown: &Value| {
        let recalls = shown["recalls"].as_array().cloned().unwrap_or_default();
        recalls.iter().any(|r| {
            r["match_id"] == m2.as_str()
                && r["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("ask about the collection"))
        })
    };
    let mut shown = server.get_as(&path, &token).await.1;
    for _ in 0..100 {
        if reason_given(&shown) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        shown = server.get_as(&path, &token).await.1;
    }
    let given = reason_given(&shown);
    assert!(given, "{shown}");
    let searched = fake.calls.bodies.lock().unwrap().iter().any(|b| {
        b["messages"].to_string().contains("collects antique chess clocks") || b.to_string().contains("search_memories")
    });
    assert!(searched);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_knows_the_players_local_time_and_bad_offsets_are_refused() {
    let stop = r#"{"thinking": "", "actions": [{"action": "stop"}]}"#;
    let fake = FakeLlm::openai(vec![ok(stop)]).await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &fake.url)]).await;
    let pat = server.new_player("Pat").await;
    let body = json!({ "player_id": pat, "persona_id": "pip", "color": "white", "utc_offset_minutes": 14 * 60 + 1 });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (400, Some("invalid_utc_offset")),
        "{out}"
    );
    let body = json!({ "player_id": pat, "persona_id": "pip", "color": "white", "utc_offset_minutes": 330 });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    // The greeting is composed after the match is made.
    let asked = || {
        fake.calls
            .bodies
            .lock()
            .unwrap()
            .iter()
            .map(|b| b.to_string())
            .find(|b| b.contains("Trigger: before_match"))
    };
    assert!(
        eventually(10, || async { asked().is_some() }).await,
        "the greeting was asked for"
    );
    let greeting = asked().unwrap();
    assert!(greeting.contains("UTC+05:30"), "{greeting}");
}

/// What a model wants remembered is checked like what it says: a result
/// while the game is on, or the situation restated, is refused, and the
/// trigger log says why; a true fact about the player is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_models_false_or_off_topic_memories_are_refused() {
    let save = |content: &str| {
        format!(r#"{{"action": "save_memory", "content": "{content}", "memory_type": "player_observation"}}"#)
    };
    let answer = format!(
        r#"{{"thinking": "note it", "actions": [{}, {}, {}, {{"action": "stop"}}]}}"#,
        save("The game ends in a draw and Pat lost to me."),
        save("Pat, a member of a chess club, playing a game of chess against Pip"),
        save("Pat keeps bees on the roof of their flat"),
    );
    let (server, _fake, m) = match_with(vec![ok(&answer)]).await;
    let (status, out) = server
        .post(
            &format!("/api/matches/{m}/chat"),
            json!({ "text": "I keep bees on my roof" }),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let mut chat = None;
    for _ in 0..100 {
        let log = server.triggers(&m).await;
        chat = log.into_iter().find(|t| t["trigger"] == "on_user_input");
        if chat.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let executed = chat.expect("the chat turn is logged")["executed"].clone();
    let skipped: Vec<&str> = executed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["skipped"].as_str())
        .collect();
    assert_eq!(skipped.len(), 2, "{executed}");
    assert!(
        skipped[0].contains("memory refused: it states a result, but the game is still on"),
        "{executed}"
    );
    assert!(
        skipped[1].contains("memory refused: it restates the situation"),
        "{executed}"
    );
    let player = out["state"]["player_id"].as_str().unwrap();
    let kept = server.memory_texts(player).await;
    assert!(kept.iter().any(|k| k.contains("keeps bees")), "{kept:?}");
    assert!(
        !kept.iter().any(|k| k.contains("draw") || k.contains("member of")),
        "{kept:?}"
    );
}
