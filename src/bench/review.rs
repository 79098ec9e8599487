//! `kibitz bench review`: how long the review of a long finished game takes
//! to build (what GET /api/matches/{id}/review does beyond HTTP: the match,
//! its moves and events read from SQL, the game replayed, the moves and key
//! moments laid out, and the JSON written). The game is synthetic: legal
//! moves chosen by a fixed rule, each with made-up odds, a persona line
//! every fourth move, and a reflection. Figures are printed, never asserted.

use std::path::Path;
use std::time::Instant;

use chrono::Utc;
use serde_json::json;

use kibitz::chess::odds::{Eval, MoveClass, MoveOdds};
use kibitz::chess::{Game, GameEnd, PlayedMove};
use kibitz::events::{self, Side};
use kibitz::ids::MatchId;
use kibitz::reflection::{self, MatchFacts};
use kibitz::store::{Db, DomainWrite, NewEvent};

use super::erasure::{new_match, player, settle};
use super::stats::quantile;

pub async fn run(plies: usize, builds: usize, out: &Path) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("bench.db").display())).await?;
    let owner = player(&db, 0).await?;
    let m = new_match(&db, owner).await?;
    let game = long_game(plies);
    let odds = stored_game(&db, m, &game).await?;
    let history = Default::default();
    let facts = MatchFacts {
        persona_name: "Margot Vidal",
        player_name: "Player 0",
        user_is_white: true,
        end: GameEnd::DrawAgreed,
        moves: game.moves(),
        start_fullmove: 1,
        start_white: true,
        odds: &odds,
        opening: None,
        learned: Vec::new(),
        mood: "calm",
        history: &history,
        puzzles: None,
    };
    db.save_reflection(m, &reflection::write(&facts)).await?;

    let mut ms = Vec::with_capacity(builds);
    let mut bytes = 0;
    for i in 0..builds {
        let started = Instant::now();
        let review = kibitz::runtime::game_review(&db, m, |_| "Margot Vidal".to_string()).await?;
        bytes = serde_json::to_vec(&review)?.len();
        ms.push(started.elapsed().as_secs_f64() * 1000.0);
        if (i + 1) % 50 == 0 {
            eprint!("\rreviews built: {} of {builds}", i + 1);
        }
    }
    eprintln!();
    let (p50, p99, max) = (quantile(&ms, 0.5), quantile(&ms, 0.99), quantile(&ms, 1.0));
    println!(
        "review of a {}-ply game ({} moves, {bytes} bytes of JSON): p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms over {builds} builds",
        game.moves().len(),
        game.moves().len().div_ceil(2)
    );
    let report = json!({
        "at": Utc::now(),
        "plies": game.moves().len(),
        "builds": builds,
        "json_bytes": bytes,
        "p50_ms": p50,
        "p99_ms": p99,
        "max_ms": max,
    });
    super::write_figures(out, &report)
}

/// `plies` legal moves from the start that do not end the game, each the
/// first of a fixed rotation through the legal ones.
fn long_game(plies: usize) -> Game {
    let mut game = Game::new(None).expect("the start position");
    for ply in 0..plies {
        let legal = game.legal_moves();
        let next = (0..legal.len()).find_map(|k| {
            let (uci, _) = &legal[(ply * 7 + k) % legal.len()];
            let mut tried = game.clone();
            tried.play(tried.parse(uci).ok()?);
            tried.end().is_none().then_some(tried)
        });
        match next {
            Some(g) => game = g,
            None => break,
        }
    }
    game
}

/// The game written as the runtime writes one (moves with odds, a persona
/// line every fourth move, the end); the odds written.
async fn stored_game(db: &Db, m: MatchId, game: &Game) -> anyhow::Result<Vec<Option<MoveOdds>>> {
    let mut queued = Vec::new();
    let mut odds = Vec::new();
    let mut seq = 0;
    for (i, played) in game.moves().iter().enumerate() {
        let o = made_up_odds(i);
        odds.push(Some(o));
        seq += 1;
        queued.push(move_event(db, m, seq, (i + 1, played), o).await?);
        if i % 4 == 3 {
            seq += 1;
            let content = format!("Move {}: I saw that coming, more or less.", i + 1);
            let payload = json!({ "sender": "persona", "content": content });
            let write = DomainWrite::Message {
                sender: "persona".into(),
                content,
                tone: None,
            };
            queued.push(
                db.queue_event(event(m, seq, "message", &payload), write, Box::new(|| {}))
                    .await?,
            );
        }
    }
    seq += 1;
    let end = json!({ "result": "1/2-1/2", "termination": "draw_agreed" });
    let write = DomainWrite::Finish {
        result: "1/2-1/2".into(),
        termination: "draw_agreed".into(),
    };
    queued.push(
        db.queue_event(event(m, seq, "game_over", &end), write, Box::new(|| {}))
            .await?,
    );
    settle(queued).await?;
    Ok(odds)
}

async fn move_event(
    db: &Db,
    m: MatchId,
    seq: i64,
    (ply, played): (usize, &PlayedMove),
    odds: MoveOdds,
) -> anyhow::Result<kibitz::store::Queued> {
    let side = if ply % 2 == 1 { Side::User } else { Side::Persona };
    let body = events::Move {
        ply,
        uci: played.uci.clone(),
        san: played.san.clone(),
        side,
        fen: played.fen_after.clone(),
        odds: Some(odds),
    };
    let payload = serde_json::to_value(&body)?;
    let write = DomainWrite::Move {
        ply,
        uci: played.uci.clone(),
        san: played.san.clone(),
        side: side.as_str().into(),
        fen_after: played.fen_after.clone(),
        odds: Some(odds),
        think_ms: None,
    };
    Ok(db
        .queue_event(event(m, seq, "move", &payload), write, Box::new(|| {}))
        .await?)
}

fn event<'a>(m: MatchId, seq: i64, kind: &'a str, payload: &'a serde_json::Value) -> NewEvent<'a> {
    NewEvent {
        match_id: m,
        seq,
        kind,
        payload,
        at: Utc::now(),
    }
}

/// A swing now and then: every 17th move loses 20 points, every 11th 8.
fn made_up_odds(i: usize) -> MoveOdds {
    let delta = match i {
        _ if i % 17 == 16 => -20.0,
        _ if i % 11 == 10 => -8.0,
        _ => -1.0,
    };
    let white = 50.0 + 30.0 * ((i as f64) / 9.0).sin();
    MoveOdds {
        white,
        delta,
        class: MoveClass::from_delta(delta),
        eval: Some(Eval::Cp(((white - 50.0) * 8.0) as i32)),
        deep: i.is_multiple_of(2),
    }
}
