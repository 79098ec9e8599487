//! A persona as a Lichess BOT account, against a fake Lichess that speaks the
//! real wire format and checks every message against the official OpenAPI
//! specification (tests/common/lichess). The human side is played by the test.

mod common;

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

#[tokio::test]
async fn the_specifications_examples_read_as_kibitz_reads_lichess() {
    use kibitz::lichess::wire::{AccountEvent, GameEvent};
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo().join("tests/data/lichess/lichess-openapi.json")).unwrap(),
    )
    .unwrap();
    let checker = common::lichess::Spec::load();
    let events =
        &spec["paths"]["/api/stream/event"]["get"]["responses"]["200"]["content"]["application/x-ndjson"]["examples"];
    let events = events.as_object().expect("the event stream's examples");
    assert!(events.len() >= 5, "{} examples", events.len());
    for (name, example) in events {
        let value = &example["value"];
        checker
            .check_response("GET", "/api/stream/event", 200, "application/x-ndjson", value)
            .unwrap_or_else(|e| panic!("the checker refuses the specification's own {name}: {e}"));
        let read: Result<AccountEvent, _> = serde_json::from_value(value.clone());
        assert!(read.is_ok(), "{name}: {read:?}");
    }
    let schemas = &spec["components"]["schemas"];
    for name in ["GameFullEvent", "GameStateEvent", "ChatLineEvent", "OpponentGoneEvent"] {
        let mut value = schemas[name]["example"].clone();
        assert!(!value.is_null(), "{name} has an example");
        value["type"] = schemas[name]["properties"]["type"]["const"].clone();
        let read: Result<GameEvent, _> = serde_json::from_value(value);
        assert!(read.is_ok(), "{name}: {read:?}");
    }
    // And the checker can fail: a game state without its moves.
    let bad =
        serde_json::json!({"type": "gameState", "wtime": 1, "btime": 1, "winc": 0, "binc": 0, "status": "started"});
    let path = "/api/bot/game/stream/abc";
    assert!(
        checker
            .check_response("GET", path, 200, "application/x-ndjson", &bad)
            .is_err()
    );
}

#[tokio::test]
async fn challenges_are_taken_or_declined_with_the_apis_reasons() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    fake.add_human("rob", "RoboFan", 1500);
    let (_server, _dir) = bot_server(&fake, &[]).await;
    listening(&fake).await;
    let rapid = fake.challenge("ann", "viktor-bot", 600, 5, true, "white");
    let bullet = fake.challenge("rob", "viktor-bot", 30, 0, true, "white");
    let corr = fake.challenge_with(
        "rob",
        "viktor-bot",
        serde_json::json!({"type": "correspondence", "daysPerTurn": 2}),
        false,
        "standard",
    );
    let chess960 = fake.challenge_with(
        "rob",
        "viktor-bot",
        serde_json::json!({"type": "clock", "limit": 600, "increment": 0}),
        false,
        "chess960",
    );
    for id in [&rapid, &bullet, &corr, &chess960] {
        let id = id.clone();
        fake.wait_for(30, "an answer to each challenge", move |w| {
            w.challenges[&id].1 != "created"
        })
        .await;
    }
    assert_eq!(fake.challenge_status(&rapid), ("accepted".into(), None));
    assert_eq!(
        fake.challenge_status(&bullet),
        ("declined".into(), Some("tooFast".into()))
    );
    assert_eq!(
        fake.challenge_status(&corr),
        ("declined".into(), Some("tooSlow".into()))
    );
    assert_eq!(
        fake.challenge_status(&chess960),
        ("declined".into(), Some("variant".into()))
    );
    let game = fake.game_of(&rapid).expect("the accepted challenge's game");
    fake.wait_for(60, "the bot to follow its game", move |w| {
        !w.games[&game].streams.is_empty()
    })
    .await;
    no_violations(&fake);
}

/// Prints a game's chat as both sides saw it (the closing note quotes it).
fn transcript(fake: &FakeLichess, game: &str) -> Vec<(String, String, String)> {
    let chat = fake.game(game).chat;
    for (room, user, text) in &chat {
        println!("[{room}] {user}: {text}");
    }
    chat
}

#[tokio::test]
async fn a_whole_game_with_chat_both_ways() {
    let (fake, server, _dir) = ann_and_viktor().await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, true, "white").await;
    let g = game.clone();
    fake.wait_for(60, "the greeting", move |w| {
        w.games[&g]
            .chat
            .iter()
            .any(|(room, user, _)| room == "player" && user == "Viktor-Bot")
    })
    .await;
    human_plays(&fake, &game, "e2e4").await;
    let said_before = fake.game(&game).chat.len();
    fake.human_chat(&game, "evening! I'm a nurse, I work night shifts in Lisbon");
    let g = game.clone();
    fake.wait_for(60, "an answer to the chat line", move |w| {
        let chat = &w.games[&g].chat;
        chat.len() > said_before + 1 && chat.last().is_some_and(|(_, user, _)| user == "Viktor-Bot")
    })
    .await;
    human_plays(&fake, &game, "g1f3").await;
    human_plays(&fake, &game, "f1c4").await;
    fake.human_resigns(&game);
    let pool = server.sql().await;
    let summary = loop_until_reflection(&pool, &game).await;
    let g = game.clone();
    let first_words: String = summary.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    fake.wait_for(60, "the reflection in the player room", move |w| {
        w.games[&g]
            .chat
            .iter()
            .any(|(room, user, text)| room == "player" && user == "Viktor-Bot" && text.starts_with(&first_words))
    })
    .await;

    let view = fake.game(&game);
    assert_eq!(
        match_moves(&server, &game).await,
        view.moves,
        "the match holds Lichess's moves"
    );
    let chat = transcript(&fake, &game);
    let spectators: Vec<_> = chat.iter().filter(|(room, ..)| room == "spectator").collect();
    assert_eq!(spectators.len(), 1, "one neutral line for spectators: {spectators:?}");
    assert!(spectators[0].2.contains("is playing"), "{spectators:?}");
    assert!(
        chat.iter().all(|(_, _, text)| text.chars().count() <= 140),
        "every line fits Lichess's chat"
    );
    let heard = sqlx::query("SELECT content FROM messages WHERE sender = 'user' AND content LIKE '%night shifts%'")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(heard.len(), 1, "the opponent's line was heard once");
    let player = sqlx::query("SELECT name FROM players WHERE lichess_id = 'ann'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(player.get::<String, _>("name"), "Ann");
    let ended = sqlx::query(
        "SELECT m.result, m.termination FROM matches m JOIN lichess_games g ON g.match_id = m.id WHERE g.game_id = $1",
    )
    .bind(&game)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(ended.get::<String, _>("result"), "0-1");
    assert_eq!(ended.get::<String, _>("termination"), "resignation");
    no_violations(&fake);
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

#[tokio::test]
async fn a_dropped_stream_is_taken_up_with_nothing_doubled_or_lost() {
    let (fake, server, _dir) = ann_and_viktor().await;
    let t0 = std::time::Instant::now();
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    // The network drops: while the bot cannot hear, Ann moves and talks.
    let g = game.clone();
    fake.with(|w| {
        w.drop_game_streams(&g);
        w.drop_event_streams();
        w.human_move(&g, "d2d4").unwrap();
        w.human_chat(&g, "sorry, my cat knocked the lamp over, back now");
    });
    let g = game.clone();
    fake.wait_for(60, "the reply after the reconnect", move |w| {
        w.games[&g].moves.len() >= 4
    })
    .await;
    let g = game.clone();
    fake.wait_for(30, "the event stream open again", move |w| {
        !w.event_streams.is_empty() && !w.games[&g].streams.is_empty()
    })
    .await;
    human_plays(&fake, &game, "g1f3").await;

    let pool = server.sql().await;
    let heard =
        sqlx::query("SELECT COUNT(*) AS n FROM messages WHERE sender = 'user' AND content LIKE '%cat knocked%'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        heard.get::<i64, _>("n"),
        1,
        "the line said while disconnected is heard, once"
    );
    let view = fake.game(&game);
    assert_eq!(
        match_moves(&server, &game).await,
        view.moves,
        "the match and Lichess hold the same moves"
    );
    let bot_moves = view.moves.len() / 2;
    assert_eq!(
        move_posts(&fake, &game),
        (bot_moves, 0),
        "each of the bot's moves posted once, none refused"
    );
    // Every word the persona said reached the player room once, in order.
    let g = game.clone();
    let said = persona_words(&pool, &game).await;
    fake.wait_for(30, "the persona's words", move |w| {
        let lines: Vec<String> = w.games[&g]
            .chat
            .iter()
            .filter(|(r, u, _)| r == "player" && u == "Viktor-Bot")
            .map(|(.., t)| t.clone())
            .collect();
        normalise(&lines.join(" ")) == said
    })
    .await;
    assert_eq!(bot_lines(&fake, &game), persona_words(&pool, &game).await);
    let streams = fake
        .requests()
        .iter()
        .filter(|r| r.path == format!("/api/bot/game/stream/{game}"))
        .count();
    assert_eq!(
        streams, 2,
        "the game's stream opened twice: at the start and after the drop"
    );
    transcript(&fake, &game);
    timeline(&fake, t0);
    no_violations(&fake);
}

#[tokio::test]
async fn a_429_stops_every_request_for_the_wait_lichess_asks() {
    let (fake, _server, _dir) = ann_and_viktor().await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    // The bot's next move is refused once with a 429.
    fake.rate_limit(&format!("/api/bot/game/{game}/move/"), 1);
    human_plays(&fake, &game, "d2d4").await;
    let requests = fake.requests();
    let limited = requests.iter().position(|r| r.status == 429).expect("a 429 was given");
    let next = &requests[limited + 1..]
        .iter()
        .find(|r| r.method == "POST")
        .expect("the bot posted again");
    let waited = next.at.duration_since(requests[limited].at);
    assert!(
        waited >= Duration::from_secs(2),
        "the next post came {waited:?} after the 429; the wait is 2 s"
    );
    assert_eq!(
        fake.game(&game).moves.len(),
        4,
        "the move was posted after the wait, once"
    );
    no_violations(&fake);
}

#[tokio::test]
async fn two_games_at_once_each_its_own_match() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    fake.add_human("bea", "Bea", 1600);
    let (server, _dir) = bot_server(&fake, &[]).await;
    listening(&fake).await;
    let first = fake.challenge("ann", "viktor-bot", 600, 5, false, "white");
    let second = fake.challenge("bea", "viktor-bot", 900, 10, false, "white");
    for c in [&first, &second] {
        let c = c.clone();
        fake.wait_for(30, "both games", move |w| w.games.values().any(|g| g.challenge == c))
            .await;
    }
    let (a, b) = (fake.game_of(&first).unwrap(), fake.game_of(&second).unwrap());
    for (ga, gb) in [("e2e4", "d2d4"), ("g1f3", "c2c4")] {
        fake.human_move(&a, ga).unwrap();
        fake.human_move(&b, gb).unwrap();
        let (a2, b2) = (a.clone(), b.clone());
        let n = fake.game(&a).moves.len() + 1;
        fake.wait_for(60, "both replies", move |w| {
            w.games[&a2].moves.len() >= n && w.games[&b2].moves.len() >= n
        })
        .await;
    }
    assert_eq!(match_moves(&server, &a).await, fake.game(&a).moves);
    assert_eq!(match_moves(&server, &b).await, fake.game(&b).moves);
    let pool = server.sql().await;
    let players =
        sqlx::query("SELECT COUNT(DISTINCT m.player_id) AS n FROM matches m JOIN lichess_games g ON g.match_id = m.id")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(players.get::<i64, _>("n"), 2, "each opponent is a player of their own");
    no_violations(&fake);
}

#[tokio::test]
async fn a_second_game_is_greeted_with_a_memory_of_the_first() {
    let (fake, _server, _dir) = ann_and_viktor().await;
    let first = fake.ann_tells_of_her_bees_and_resigns().await;
    assert_eq!(fake.game(&first).status, "resign");

    let second = fake.challenge("ann", "viktor-bot", 600, 5, false, "black");
    fake.wait_for(30, "the second game", |w| {
        w.games.values().any(|g| g.challenge == second)
    })
    .await;
    let game2 = fake.game_of(&second).unwrap();
    let g = game2.clone();
    fake.wait_for(60, "the greeting", move |w| {
        w.games[&g]
            .chat
            .iter()
            .any(|(r, u, _)| r == "player" && u == "Viktor-Bot")
    })
    .await;
    let chat = transcript(&fake, &game2);
    let greeting = &chat
        .iter()
        .find(|(r, u, _)| r == "player" && u == "Viktor-Bot")
        .unwrap()
        .2;
    let remembers = ["bees", "Ghent", "resign", "e4", "lost", "beat"]
        .iter()
        .any(|w| greeting.contains(w));
    assert!(remembers, "the second greeting remembers the first game: {greeting}");
    no_violations(&fake);
}

#[tokio::test]
async fn a_game_that_ended_while_the_server_was_down_is_reconciled() {
    let (fake, mut server, _dir) = ann_and_viktor().await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    // Killed once all it said is on Lichess: a line counted as carried and
    // cut off before it was sent is lost, never repeated (at most once), and
    // this test is about what a restart says again.
    until_lichess_has_all_it_said(&fake, &server.sql().await, &game).await;
    server.kill();
    fake.with(|w| w.drop_event_streams());
    fake.human_resigns(&game);
    server.launch().await;
    let pool = server.sql().await;
    let summary = loop_until_reflection(&pool, &game).await;
    let ended = sqlx::query(
        "SELECT m.result, m.termination FROM matches m JOIN lichess_games g ON g.match_id = m.id WHERE g.game_id = $1",
    )
    .bind(&game)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        ended.get::<String, _>("result"),
        "0-1",
        "Ann resigned while nobody listened"
    );
    let first_words: String = summary.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    let g = game.clone();
    fake.wait_for(60, "the reflection after the restart", move |w| {
        w.games[&g].chat.iter().any(|(_, _, t)| t.starts_with(&first_words))
    })
    .await;
    // A long reflection goes out in several lines: not a race with the last.
    until_lichess_has_all_it_said(&fake, &pool, &game).await;
    assert_eq!(
        bot_lines(&fake, &game),
        persona_words(&pool, &game).await,
        "nothing said twice across the restart"
    );
    no_violations(&fake);
}

/// Follows one redirect by hand, with `cookie` if any: the `Location` of a
/// 303, and the cookie it sets.
async fn redirected(http: &reqwest::Client, url: &str, cookie: Option<&str>) -> (String, Option<String>) {
    let request = http.get(url);
    let request = match cookie {
        Some(c) => request.header("cookie", c),
        None => request,
    };
    let response = request.send().await.unwrap();
    let set = response
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string());
    let location = response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let status = response.status().as_u16();
    assert_eq!(status, 303, "{url} redirects: {:?}", response.text().await);
    (location.unwrap(), set)
}

/// The whole sign-in with Lichess, as a browser makes it: the club (which
/// sets its cookie), Lichess's consent page (the fake approves at once),
/// back to the club with the cookie; the page's address it ends on. The
/// same return without the cookie (another browser) is refused first.
async fn sign_in(server: &Server) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (to_lichess, cookie) = redirected(&http, &format!("{}/api/auth/lichess", server.base), None).await;
    let cookie = cookie.expect("the sign-in's cookie");
    let (back, _) = redirected(&http, &to_lichess, None).await;
    assert!(
        back.starts_with(&format!("{}/api/auth/lichess/callback?", server.base)),
        "{back}"
    );
    let elsewhere = http.get(&back).send().await.unwrap();
    assert_eq!(
        elsewhere.status().as_u16(),
        400,
        "the return opened in another browser is refused"
    );
    redirected(&http, &back, Some(&cookie)).await.0
}

#[tokio::test]
async fn a_sign_in_begun_on_one_node_is_finished_by_another() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    // Two nodes of one club, behind one public address.
    let public = [("KIBITZ_PUBLIC_URL", "http://club.example")];
    let (first, _d1) = bot_server(&fake, &public).await;
    let (second, _d2) = bot_server(&fake, &public).await;
    fake.sign_in_as("ann");
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (to_lichess, cookie) = redirected(&http, &format!("{}/api/auth/lichess", first.base), None).await;
    let (back, _) = redirected(&http, &to_lichess, None).await;
    let on_second = back.replacen("http://club.example", &second.base, 1);
    assert_ne!(on_second, back, "{back}");
    // The second node traded the code with the verifier the browser
    // carried (the fake checks it against the challenge the first sent):
    // Ann, whom no persona of this node has played, is told so.
    let (page, _) = redirected(&http, &on_second, cookie.as_deref()).await;
    assert_eq!(page, "/#/lichess/unknown");
    no_violations(&fake);
}

#[tokio::test]
async fn a_lichess_opponent_signs_in_with_lichess_and_sees_their_memories() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    fake.add_human("eve", "Eve", 1700);
    let (server, _dir) = bot_server(&fake, &[]).await;
    listening(&fake).await;
    let game = fake.ann_tells_of_her_bees_and_resigns().await;
    let game2 = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;

    fake.sign_in_as("ann");
    let page = sign_in(&server).await;
    let rest = page
        .strip_prefix("/#/signed-in/")
        .unwrap_or_else(|| panic!("signed in: {page}"));
    let (player, token) = rest.split_once('/').unwrap();
    let (status, memories) = server.get_as(&format!("/api/players/{player}/memories"), token).await;
    assert_eq!(status, 200, "{memories}");
    let texts: Vec<&str> = memories
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("bees")),
        "Ann sees what Viktor remembers: {texts:?}"
    );
    let (_, matches) = server.get_as(&format!("/api/players/{player}/matches"), token).await;
    let links: Vec<&str> = matches
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["lichess_url"].as_str())
        .collect();
    assert_eq!(links.len(), 2, "{matches}");
    assert!(links.contains(&format!("{}/{game}", fake.base).as_str()), "{links:?}");
    // The club's page shows a Lichess game; it is played on Lichess.
    let live = matches
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["status"] == "active")
        .unwrap();
    let (status, refused) = server
        .send_as(
            reqwest::Method::POST,
            &format!("/api/matches/{}/chat", live["id"].as_str().unwrap()),
            Some(token),
            Some(serde_json::json!({"text": "hi"})),
        )
        .await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (409, Some("played_on_lichess")),
        "{refused}"
    );
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.method == "DELETE" && r.path == "/api/token" && r.status == 204),
        "the sign-in's Lichess token was let go"
    );

    // Someone the personas never played is told so; a forged return is refused.
    fake.sign_in_as("eve");
    assert_eq!(sign_in(&server).await, "/#/lichess/unknown");
    let forged = reqwest::get(format!("{}/api/auth/lichess/callback?code=x&state=forged", server.base))
        .await
        .unwrap();
    assert_eq!(forged.status().as_u16(), 400);
    assert_eq!(fake.game(&game2).status, "started");
    no_violations(&fake);
}

#[tokio::test]
async fn an_opponent_who_left_loses_on_the_bots_claim() {
    let (fake, server, _dir) = ann_and_viktor().await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    fake.human_leaves(&game, 1);
    let g = game.clone();
    fake.wait_for(30, "the claimed win", move |w| w.games[&g].status == "timeout")
        .await;
    assert_eq!(fake.game(&game).winner.as_deref(), Some("black"), "Viktor, Black, won");
    let pool = server.sql().await;
    let summary = loop_until_reflection(&pool, &game).await;
    assert!(summary.contains("timeout"), "{summary}");
    no_violations(&fake);
}

#[tokio::test]
async fn a_slow_move_brain_never_costs_the_persona_its_clock() {
    // Viktor's moves come from a language model that takes 8 s a move; the
    // game is 1+0, so each move may take about a second.
    let llm = FakeLlm::openai(vec![Behaviour::Slow(Duration::from_secs(8), "e7e5".into())]).await;
    let personas = tempfile::tempdir().unwrap();
    let card = std::fs::read_to_string(common::repo().join("personas/viktor.toml")).unwrap();
    let card = card.replacen("style = ", "brain = \"llm\"\nstyle = ", 1);
    std::fs::write(personas.path().join("viktor.toml"), card).unwrap();
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    let env = [
        ("KIBITZ_PERSONAS_DIR", personas.path().to_str().unwrap()),
        ("KIBITZ_LLM_URL", llm.url.as_str()),
    ];
    let (_server, _dir) = fake
        .viktor_server(&env, "[lichess.challenges]\nmin_initial_secs = 60\n")
        .await;
    listening(&fake).await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 60, 0, false, "white").await;
    for uci in ["e2e4", "g1f3", "f1c4", "b1c3"] {
        human_plays(&fake, &game, uci).await;
    }
    let view = fake.game(&game);
    assert_eq!(view.status, "started", "{view:?}");
    // The clocks run from the second move: three of the bot's moves counted.
    assert!(
        view.btime > 52_000,
        "Viktor kept within its clock: {} ms left of 60 000",
        view.btime
    );
    no_violations(&fake);
}

#[tokio::test]
async fn the_opponents_draw_offer_is_answered_by_the_persona() {
    let (fake, server, _dir) = ann_and_viktor().await;
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    // A draw at move two: the Hammer plays on.
    fake.human_offers_draw(&game);
    let g = game.clone();
    fake.wait_for(30, "the answer to the offer", move |w| {
        w.log
            .iter()
            .any(|r| r.path == format!("/api/bot/game/{g}/draw/no") && r.status == 200)
    })
    .await;
    let view = fake.game(&game);
    assert_eq!(view.status, "started", "the offer was declined");
    let pool = server.sql().await;
    let offers = sqlx::query(
        "SELECT e.payload FROM events e JOIN lichess_games g ON g.match_id = e.match_id WHERE g.game_id = $1 AND e.kind = 'draw_offer'",
    )
    .bind(&game)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(offers.len(), 1, "the match heard the offer once");
    no_violations(&fake);
}

#[tokio::test]
async fn kibitz_lichess_check_says_whose_each_token_is() {
    let fake = FakeLichess::start().await;
    fake.add_bot(TOKEN, "viktor-bot", "Viktor-Bot");
    fake.add_human("ann", "Ann", 1500);
    fake.with(|w| w.tokens.insert("lip_ann".into(), "ann".into()));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("kibitz.toml");
    let accounts = "[[lichess.accounts]]\npersona = \"viktor\"\ntoken_env = \"T_VIKTOR\"\n\n[[lichess.accounts]]\npersona = \"pip\"\ntoken_env = \"T_PIP\"\n";
    std::fs::write(&config, accounts).unwrap();
    let base = fake.base.clone();
    let config_path = config.clone();
    let out = tokio::task::spawn_blocking(move || {
        common::kibitz_in(dir.path())
            .args(["lichess", "--check"])
            .env("KIBITZ_CONFIG", &config_path)
            .env("KIBITZ_LICHESS_URL", &base)
            .env("T_VIKTOR", TOKEN)
            .env("T_PIP", "lip_ann")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("viktor: plays as BOT Viktor-Bot"), "{stdout}");
    assert!(stdout.contains("pip: Ann is not a BOT account yet"), "{stdout}");
    assert!(!out.status.success(), "one account is not ready: {stdout}");
    assert!(
        !stdout.contains(TOKEN) && !String::from_utf8_lossy(&out.stderr).contains(TOKEN),
        "the token is never printed"
    );
}

/// Waits until the match of `game` holds the moves Lichess has.
async fn boards_agree(fake: &FakeLichess, server: &Server, game: &str) -> Vec<String> {
    for _ in 0..300 {
        let (lichess, ours) = (fake.game(game).moves, match_moves(server, game).await);
        if lichess == ours {
            return ours;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the boards differ: Lichess {:?}, the match {:?}",
        fake.game(game).moves,
        match_moves(server, game).await
    );
}

/// Waits for the bot's answer to a takeback proposal in `game`.
async fn takeback_answer(fake: &FakeLichess, game: &str, answer: &str) {
    let path = format!("/api/bot/game/{game}/takeback/{answer}");
    fake.wait_for(30, "the answer to the takeback", move |w| {
        w.log.iter().any(|r| r.path == path && r.status == 200)
    })
    .await;
}

#[tokio::test]
async fn a_takeback_goes_back_on_both_boards_when_the_persona_grants_it() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    let bots = [
        ("pip", "lip_pipbot", "pip-bot", "Pip-Bot"),
        ("viktor", TOKEN, "viktor-bot", "Viktor-Bot"),
    ];
    // The club's cap of one live match a player does not hold Ann's second
    // Lichess game back: Lichess games keep to the account's own limits.
    let cap = [("KIBITZ_LIVE_MATCHES_PER_PLAYER", "1")];
    let (server, _dir) = fake.server_for(&bots, &cap, "").await;
    fake.wait_for(60, "both bots' event streams", |w| w.event_streams.len() >= 2)
        .await;
    // Pip grants two a game: Ann's move and Pip's answer go back on both boards.
    let game = accepted_game(&fake, "ann", "pip-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    human_plays(&fake, &game, "d2d4").await;
    fake.human_proposes_takeback(&game);
    takeback_answer(&fake, &game, "yes").await;
    let back = boards_agree(&fake, &server, &game).await;
    assert_eq!(back.len(), 2, "d4 and the answer to it are gone: {back:?}");
    assert_eq!(back[0], "e2e4");
    human_plays(&fake, &game, "g1f3").await;
    let on = boards_agree(&fake, &server, &game).await;
    assert_eq!(
        (on.len(), on[2].as_str()),
        (4, "g1f3"),
        "the game goes on from there: {on:?}"
    );
    // Viktor never grants one: nothing moves.
    let game = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;
    human_plays(&fake, &game, "e2e4").await;
    fake.human_proposes_takeback(&game);
    takeback_answer(&fake, &game, "no").await;
    assert_eq!(
        boards_agree(&fake, &server, &game).await.len(),
        2,
        "refused: both moves stand"
    );
    no_violations(&fake);
}
