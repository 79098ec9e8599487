//! A persona as a Lichess BOT account, against a fake Lichess that speaks the
//! real wire format and checks every message against the official OpenAPI
//! specification (tests/common/lichess). The human side is played by the test.

mod accounts;
mod at_the_board;
#[path = "../common/mod.rs"]
mod common;
mod games;

use std::time::Duration;

use common::Server;
use common::fake_llm::{Behaviour, FakeLlm};
use common::lichess::FakeLichess;
use serde_json::Value;
use sqlx::Row;

use common::lichess::TOKEN;

/// A server whose persona Viktor plays on `fake` as `viktor-bot`.
async fn bot_server(fake: &FakeLichess, extra: &[(&str, &str)]) -> (Server, tempfile::TempDir) {
    fake.viktor_server(extra, "").await
}

/// Viktor following his account on a fake Lichess where Ann plays.
async fn ann_and_viktor() -> (FakeLichess, Server, tempfile::TempDir) {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    let (server, dir) = bot_server(&fake, &[]).await;
    listening(&fake).await;
    (fake, server, dir)
}

/// A game begun on a challenge the bot took: its id.
async fn accepted_game(
    fake: &FakeLichess,
    from: &str,
    to: &str,
    limit: u32,
    increment: u32,
    rated: bool,
    color: &str,
) -> String {
    let challenge = fake.challenge(from, to, limit, increment, rated, color);
    let id = challenge.clone();
    fake.wait_for(30, "the game", move |w| w.games.values().any(|g| g.challenge == id))
        .await;
    fake.game_of(&challenge).unwrap()
}

/// The bot's event stream is open (it is following its account).
async fn listening(fake: &FakeLichess) {
    fake.wait_for(60, "the bot's event stream", |w| !w.event_streams.is_empty())
        .await;
}

/// The moves the match of a Lichess game holds, from SQL.
async fn match_moves(server: &Server, game: &str) -> Vec<String> {
    let pool = server.sql().await;
    let rows = sqlx::query(
        "SELECT m.uci FROM moves m JOIN lichess_games g ON g.match_id = m.match_id WHERE g.game_id = $1 ORDER BY m.ply",
    )
    .bind(game)
    .fetch_all(&pool)
    .await
    .unwrap();
    rows.iter().map(|r| r.get::<String, _>("uci")).collect()
}

/// The human plays `uci` once the bot has answered up to `ply` moves.
async fn human_plays(fake: &FakeLichess, game: &str, uci: &str) {
    let before = fake.game(game).moves.len();
    fake.human_move(game, uci).unwrap_or_else(|e| panic!("{uci}: {e}"));
    let game_id = game.to_string();
    fake.wait_for(60, "the bot's reply", move |w| {
        let g = &w.games[&game_id];
        g.moves.len() >= before + 2 || g.status != "started"
    })
    .await;
}

fn no_violations(fake: &FakeLichess) {
    let violations = fake.violations();
    assert!(violations.is_empty(), "messages off the specification: {violations:#?}");
}

/// Prints a game's chat as both sides saw it (the closing note quotes it).
fn transcript(fake: &FakeLichess, game: &str) -> Vec<(String, String, String)> {
    let chat = fake.game(game).chat;
    for (room, user, text) in &chat {
        println!("[{room}] {user}: {text}");
    }
    chat
}

/// The reflection of the game's match, once written.
async fn loop_until_reflection(pool: &sqlx::AnyPool, game: &str) -> String {
    for _ in 0..600 {
        let row = sqlx::query(
            "SELECT e.payload FROM events e JOIN lichess_games g ON g.match_id = e.match_id WHERE g.game_id = $1 AND e.kind = 'reflection'",
        )
        .bind(game)
        .fetch_optional(pool)
        .await
        .unwrap();
        if let Some(row) = row {
            let payload: Value = serde_json::from_str(&row.get::<String, _>("payload")).unwrap();
            return payload["summary"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no reflection for game {game}");
}

/// The persona's words in the match (messages, then the reflection), as one
/// string with single spaces: what the player room must hold, once each.
async fn persona_words(pool: &sqlx::AnyPool, game: &str) -> String {
    let rows = sqlx::query(
        "SELECT e.kind, e.payload FROM events e JOIN lichess_games g ON g.match_id = e.match_id
         WHERE g.game_id = $1 AND e.kind IN ('message', 'reflection') ORDER BY e.seq",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap();
    let mut words = Vec::new();
    for row in rows {
        let payload: Value = serde_json::from_str(&row.get::<String, _>("payload")).unwrap();
        match row.get::<String, _>("kind").as_str() {
            "message" if payload["sender"] == "persona" => words.push(payload["content"].as_str().unwrap().to_string()),
            "reflection" => words.push(payload["summary"].as_str().unwrap().to_string()),
            _ => {}
        }
    }
    normalise(&words.join(" "))
}

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the bot said in the player room, joined.
fn bot_lines(fake: &FakeLichess, game: &str) -> String {
    let chat = fake.game(game).chat;
    let lines: Vec<String> = chat
        .into_iter()
        .filter(|(room, user, _)| room == "player" && user == "Viktor-Bot")
        .map(|(.., t)| t)
        .collect();
    normalise(&lines.join(" "))
}

/// Waits (up to 30 s) until the bot's lines on Lichess are at least as long
/// as what the persona said in the match: a line said twice then shows as
/// more, never as a line still on its way.
async fn until_lichess_has_all_it_said(fake: &FakeLichess, pool: &sqlx::AnyPool, game: &str) {
    for _ in 0..300 {
        if bot_lines(fake, game).len() >= persona_words(pool, game).await.len() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The bot's move posts that Lichess took, and any it refused.
fn move_posts(fake: &FakeLichess, game: &str) -> (usize, usize) {
    let prefix = format!("/api/bot/game/{game}/move/");
    let posts: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with(&prefix))
        .collect();
    (
        posts.iter().filter(|r| r.status == 200).count(),
        posts.iter().filter(|r| r.status != 200).count(),
    )
}

/// Prints what the bot asked of Lichess, in time from `t0` (the closing note quotes it).
fn timeline(fake: &FakeLichess, t0: std::time::Instant) {
    for r in fake.requests() {
        let form: Vec<String> = r.form.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "{:>7} ms {} {} {} {}",
            r.at.duration_since(t0).as_millis(),
            r.status,
            r.method,
            r.path,
            form.join("&")
        );
    }
}
