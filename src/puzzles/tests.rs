use super::*;
use crate::chess::engine::{BuiltinEngine, Score};

/// White to play: Rd8 mates (the back rank); 1. h3 instead lets Black live.
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";

fn played(moves: &[&str]) -> Game {
    let mut game = Game::new(Some(MATE_IN_ONE)).unwrap();
    for m in moves {
        let mv = game.parse(m).unwrap();
        game.play(mv);
    }
    game
}

fn odds(white_before: f64, after_to_move: i32, white_moved: bool) -> Option<MoveOdds> {
    Some(MoveOdds::new(white_before, &Score::Cp(after_to_move), white_moved))
}

#[tokio::test]
async fn a_missed_mate_becomes_a_puzzle_with_the_mate_as_its_answer() {
    let game = played(&["h3", "h6"]);
    // White was winning outright and is now only a rook up: a blunder.
    let o = [odds(100.0, -300, true), odds(75.0, 300, false)];
    assert_eq!(o[0].unwrap().class, MoveClass::Blunder);
    let found = find(&BuiltinEngine, 1_000, &game, &o, Color::White).await.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!((f.ply, f.fen.as_str(), f.played_san.as_str()), (1, MATE_IN_ONE, "h3"));
    assert_eq!((f.solution_uci.as_str(), f.solution_san.as_str()), ("d1d8", "Rd8#"));
    assert!(f.gain >= CLEARLY_BETTER, "{f:?}");
    // The persona's moves are not the player's puzzles.
    let black = find(&BuiltinEngine, 1_000, &game, &o, Color::Black).await.unwrap();
    assert!(black.is_empty(), "{black:?}");
}

#[tokio::test]
async fn a_good_move_or_the_best_move_is_no_puzzle() {
    let game = played(&["Rd8#"]);
    let o = [odds(100.0, 0, true)];
    let found = find(&BuiltinEngine, 1_000, &game, &o, Color::White).await.unwrap();
    assert!(found.is_empty(), "the mate itself: {found:?}");
    // Marked a mistake, yet it was the engine's move: nothing to find better.
    let mut wrong = o;
    wrong[0] = Some(MoveOdds {
        class: MoveClass::Mistake,
        ..wrong[0].unwrap()
    });
    let found = find(&BuiltinEngine, 1_000, &game, &wrong, Color::White).await.unwrap();
    assert!(found.is_empty(), "{found:?}");
}

fn row(fen: &str, solution: &str) -> PuzzleRow {
    PuzzleRow {
        id: PuzzleId::new(),
        player_id: crate::ids::PlayerId::new(),
        persona_id: "margot".into(),
        match_id: crate::ids::MatchId::new(),
        ply: 1,
        fen: fen.into(),
        played_san: "h3".into(),
        class: MoveClass::Blunder,
        solution_uci: solution.into(),
        solution_san: String::new(),
        gain: 20.0,
        solved: 0,
        failed: 0,
        status: PuzzleStatus::Open,
        created_at: chrono::Utc::now(),
        last_tried_at: None,
    }
}

#[test]
fn an_answer_is_judged_by_the_solution_or_a_mate() {
    let p = row(MATE_IN_ONE, "d1d8");
    assert_eq!(judge(&p, "Rd8#").unwrap(), (true, "Rd8#".to_string()));
    assert_eq!(judge(&p, "d1d8").unwrap(), (true, "Rd8#".to_string()));
    assert_eq!(judge(&p, "Rd7").unwrap(), (false, "Rd7".to_string()));
    assert!(matches!(judge(&p, "Qh7"), Err(AnswerError::Illegal(_))));
    // Another mate than the one kept is right too.
    let two_mates = row("6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "d1d8");
    assert!(judge(&two_mates, "Re8#").unwrap().0);
}
