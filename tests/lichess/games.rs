//! Games on Lichess: the specification's examples, challenges, a whole game
//! with chat, a dropped stream, rate limits, two games at once, a second
//! game's greeting, and a game that ended while the server was down.

use super::*;

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
