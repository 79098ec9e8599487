//! Familiarity (issue 37) through the club: a player who keeps coming back
//! to one persona is greeted at each stage in that stage's words, told when
//! a stage is reached, shown it in the API and the CLI; an absence is
//! noticed; a rebuild from the record finds what the live updates wrote.

mod common;

use chrono::{Duration, Utc};
use common::*;
use kibitz::familiarity::Stage;
use kibitz::personas::{Persona, StageEvent, said_from};
use serde_json::{Value, json};

fn pip() -> Persona {
    kibitz::personas::load_dir(&repo().join("personas"))
        .unwrap()
        .into_iter()
        .find(|p| p.id == "pip")
        .unwrap()
}

/// Whether one of `said` came from one of these lines.
fn from_lines(lines: &[kibitz::personas::Line], said: &[String]) -> bool {
    lines.iter().any(|l| said.iter().any(|s| said_from(&l.text, s)))
}

async fn pip_known(server: &Server, player: &str) -> Value {
    let (status, me) = server
        .get_as(&format!("/api/players/{player}"), &server.token(player))
        .await;
    assert_eq!(status, 200, "{me}");
    me["familiarity"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["persona_id"] == "pip")
        .unwrap()
        .clone()
}

fn stage_of(known: &Value) -> Stage {
    serde_json::from_value(known["now"]["stage"].clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_games_with_pip_go_from_stranger_to_old_friend_and_an_absence_is_noticed() {
    let pip = pip();
    let server = Server::start().await;
    let noor = server.new_player("Noor").await;
    let mut reached = Vec::new();
    for game in 0..10 {
        let known = pip_known(&server, &noor).await;
        let stage = stage_of(&known);
        assert_eq!(known["now"]["games"], game, "{known}");
        let (m, out) = server.new_match(&noor, "pip", "white").await;
        let said = persona_lines(&out);
        let lines = match stage {
            Stage::Stranger => pip.lines.greeting.clone(),
            s => pip.stage_lines(s, StageEvent::Greeting).to_vec(),
        };
        let returning = &pip.lines.greeting_returning;
        assert!(
            from_lines(&lines, &said) || (stage == Stage::Stranger && from_lines(returning, &said)),
            "game {game}, {stage:?}: {said:?}"
        );
        let chat = if game == 0 {
            "hi, I am Noor and I teach piano"
        } else {
            "thanks, good game!"
        };
        let (status, _) = server
            .post(&format!("/api/matches/{m}/chat"), json!({ "text": chat }))
            .await;
        assert_eq!(status, 200);
        let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
        assert_eq!(status, 200, "{out}");
        let told = out["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["type"] == "familiarity");
        if let Some(told) = told {
            let text = told["data"]["text"].as_str().unwrap();
            assert!(text.starts_with("Pip Okafor now counts you as"), "{text}");
            reached.push(serde_json::from_value::<Stage>(told["data"]["stage"].clone()).unwrap());
        }
    }
    assert_eq!(reached, [Stage::Acquaintance, Stage::Regular, Stage::OldFriend]);

    let known = pip_known(&server, &noor).await;
    assert_eq!(
        (stage_of(&known), known["now"]["games"].as_u64()),
        (Stage::OldFriend, Some(10)),
        "{known}"
    );
    let history = known["history"].as_array().unwrap();
    assert_eq!(history.len(), 10);
    assert_eq!(history[0]["stage"], "acquaintance");
    assert!(
        history
            .windows(2)
            .all(|w| w[0]["points"].as_f64() < w[1]["points"].as_f64())
    );

    // The CLI shows the same, and a rebuild from the record changes nothing.
    let (ok, out, err) = server.run_cli(&["familiarity", "show", "--player", "Noor"]);
    assert!(ok, "{err}");
    assert!(out.contains("Pip Okafor: an old friend"), "{out}");
    assert!(out.contains("Margot Vidal: a stranger"), "{out}");
    let (ok, out, err) = server.run_cli(&["familiarity", "rebuild"]);
    assert!(ok, "{err}");
    assert!(out.contains("10 games together; 0 histories rewritten"), "{out}");

    // A month away: the games moved back 30 days, as if played then.
    let sql = server.sql().await;
    let month = Duration::days(30);
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT id, ended_at FROM matches WHERE persona_id = 'pip'")
        .fetch_all(&sql)
        .await
        .unwrap();
    for (id, ended) in rows {
        let ended = chrono::DateTime::parse_from_rfc3339(&ended)
            .unwrap()
            .with_timezone(&Utc);
        sqlx::query("UPDATE matches SET ended_at = $1 WHERE id = $2")
            .bind(kibitz::store::ts(ended - month))
            .bind(id)
            .execute(&sql)
            .await
            .unwrap();
    }
    let (_, out) = server.new_match(&noor, "pip", "black").await;
    let said = persona_lines(&out);
    assert!(
        from_lines(pip.stage_lines(Stage::OldFriend, StageEvent::Absence), &said),
        "{said:?}"
    );
    assert!(said.iter().any(|s| s.contains("A month!")), "{said:?}");

    // Nobody else sees it.
    let bob = server.new_player("Bob").await;
    let (status, _) = server
        .get_as(&format!("/api/players/{noor}"), &server.token(&bob))
        .await;
    assert_eq!(status, 404);
}

/// The moments Noor shared with Pip, from her memories.
async fn moments(server: &Server, noor: &str) -> Vec<(String, String)> {
    server
        .memories(noor)
        .await
        .into_iter()
        .filter(|m| m["memory_type"] == "shared_moment")
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Noor, a queen up, stalemates Pip with `mv` from `fen`, saying `line` first.
async fn stalemate_game(server: &Server, noor: &str, (fen, mv): (&str, &str), line: &str) {
    let body = json!({ "player_id": noor, "persona_id": "pip", "color": "white", "fen": fen });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    let m = out["state"]["id"].as_str().unwrap().to_string();
    server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": line }))
        .await;
    let (_, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
        .await;
    assert_eq!(out["state"]["termination"], "stalemate", "{out}");
}

/// A new match with Pip: which shared moments its opening words call back.
async fn called_back(server: &Server, noor: &str, moments: &[(String, String)]) -> Vec<String> {
    let (m, out) = server.new_match(noor, "pip", "white").await;
    let said = persona_lines(&out).join(" ");
    server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    moments
        .iter()
        .filter(|(_, c)| said.contains(c.as_str()))
        .map(|(id, _)| id.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_moments_are_kept_and_called_back_once_a_game_never_when_marked() {
    let server = Server::start().await;
    let noor = server.new_player("Noor").await;
    stalemate_game(
        &server,
        &noor,
        ("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", "Kh6"),
        "good evening Pip",
    )
    .await;
    let kept = moments(&server, &noor).await;
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        kept[0]
            .1
            .ends_with("Noor was a queen up against me and let me escape with a stalemate (1. Kh6)."),
        "{kept:?}"
    );
    let again = ("k7/2Q5/2K5/8/8/8/8/8 w - - 0 1", "Kb6");
    stalemate_game(&server, &noor, again, "hahaha I promise I won't stalemate you again").await;
    let kept = moments(&server, &noor).await;
    assert_eq!(kept.len(), 3, "the second stalemate and the joke: {kept:?}");
    assert!(
        kept.iter().any(|(_, c)| c.contains("made me laugh: ‘hahaha I promise")),
        "{kept:?}"
    );

    // Each later game calls back one, the one told longest ago.
    let mut told = Vec::new();
    for _ in 0..3 {
        let back = called_back(&server, &noor, &kept).await;
        assert_eq!(back.len(), 1, "one callback a game");
        told.push(back[0].clone());
    }
    told.sort();
    told.dedup();
    assert_eq!(told.len(), 3, "each moment in turn");

    // Marked never to be recalled, none comes back.
    for (id, _) in &kept {
        let (status, out) = server
            .send_as(
                reqwest::Method::PATCH,
                &format!("/api/memories/{id}"),
                Some(&server.token(&noor)),
                Some(json!({ "never_recall": true })),
            )
            .await;
        assert_eq!(status, 200, "{out}");
    }
    assert!(called_back(&server, &noor, &kept).await.is_empty());
}
