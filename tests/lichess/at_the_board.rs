//! At the board on Lichess: an opponent who left, a slow move brain and
//! the clock, a draw offer, a takeback.

use super::*;

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
