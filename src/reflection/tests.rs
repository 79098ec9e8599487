use super::*;
use crate::chess::Game;
use crate::chess::engine::Score;

fn played(sans: &[&str]) -> Vec<PlayedMove> {
    let mut game = Game::new(None).unwrap();
    for san in sans {
        let m = game.parse(san).unwrap();
        game.play(m);
    }
    game.moves().to_vec()
}

/// Odds for White after each move, from White's win% before and after.
fn odds(whites: &[f64]) -> Vec<Option<MoveOdds>> {
    let mut before = 50.0;
    whites
        .iter()
        .enumerate()
        .map(|(i, &after)| {
            let white_moved = i % 2 == 0;
            // A score for the side to move after the move, matching `after`.
            let to_move = if white_moved { 100.0 - after } else { after };
            let cp = (-(100.0 / to_move - 1.0).ln() / 0.00368208 * 1.0) as i32;
            let o = MoveOdds::new(before, &Score::Cp(cp / 2 * 2), white_moved);
            before = o.white;
            Some(o)
        })
        .collect()
}

#[test]
fn the_worst_swings_are_the_key_moments_and_the_summary_states_facts() {
    // 1.f3 e5 2.g4?? Qh4#: the player (White) blundered on move 2.
    let moves = played(&["f3", "e5", "g4", "Qh4#"]);
    let odds = odds(&[44.0, 46.0, 2.0, 0.0]);
    let history = MatchHistory {
        played: 3,
        user_wins: 1,
        user_losses: 2,
        draws: 0,
        streak: Some(("user_lost".into(), 2)),
        usual_openings: Vec::new(),
        last_game: None,
        rating: Default::default(),
        familiarity: Default::default(),
        played_today: 1,
    };
    let facts = MatchFacts {
        persona_name: "Pip",
        player_name: "Ann",
        user_is_white: true,
        end: GameEnd::Checkmate {
            winner: shakmaty::Color::Black,
        },
        moves: &moves,
        start_fullmove: 1,
        start_white: true,
        odds: &odds,
        opening: Some("A00 Barnes Opening".into()),
        learned: vec![],
        mood: "proud",
        history: &history,
        puzzles: None,
    };
    let r = write(&facts);
    assert_eq!((r.outcome.as_str(), r.moves, r.result.as_str()), ("win", 2, "0-1"));
    let worst = r.key_moments.iter().min_by(|a, b| a.delta.total_cmp(&b.delta)).unwrap();
    assert_eq!((worst.move_label.as_str(), worst.by.as_str()), ("2. g4", "player"));
    assert_eq!(worst.class, MoveClass::Blunder);
    assert!(
        r.summary
            .starts_with("Pip beat Ann by checkmate after 2 moves in the A00 Barnes Opening."),
        "{}",
        r.summary
    );
    assert!(r.summary.contains("2. g4 by the player, a blunder"), "{}", r.summary);
    assert_eq!(r.head_to_head.streak.as_deref(), Some("user_lost x2"));
    assert_eq!(r.mood, "proud");
}

/// Ann (Black) agreed a draw with Margot after `moves`.
fn drawn_with_margot<'a>(
    moves: &'a [PlayedMove],
    odds: &'a [Option<MoveOdds>],
    history: &'a MatchHistory,
) -> MatchFacts<'a> {
    MatchFacts {
        persona_name: "Margot",
        player_name: "Ann",
        user_is_white: false,
        end: GameEnd::DrawAgreed,
        moves,
        start_fullmove: 1,
        start_white: true,
        odds,
        opening: None,
        learned: vec![],
        mood: "calm",
        history,
        puzzles: None,
    }
}

#[test]
fn a_clean_game_says_so() {
    let moves = played(&["e4", "e5"]);
    let odds = odds(&[52.0, 50.0]);
    let history = MatchHistory::default();
    let r = write(&drawn_with_margot(&moves, &odds, &history));
    assert!(r.key_moments.is_empty());
    assert_eq!(r.outcome, "draw");
    assert!(
        r.summary.contains("drew with Ann by draw agreed") && r.summary.contains("a clean game"),
        "{}",
        r.summary
    );
}

#[test]
fn the_reflection_counts_the_players_puzzles_from_the_figures() {
    let moves = played(&["e4", "e5"]);
    let odds = odds(&[52.0, 50.0]);
    let history = MatchHistory::default();
    let mut facts = drawn_with_margot(&moves, &odds, &history);
    assert!(!write(&facts).summary.contains("uzzle"), "no puzzles, no word of them");
    facts.puzzles = Some(PuzzleProgress {
        retired: 1,
        open: 2,
        answered_here: Some(true),
    });
    let r = write(&facts);
    assert!(
        r.summary.contains("Ann solved the puzzle") && r.summary.contains("1 learned (solved twice), 2 to come back"),
        "{}",
        r.summary
    );
    facts.puzzles = Some(PuzzleProgress {
        retired: 0,
        open: 1,
        answered_here: Some(false),
    });
    assert!(write(&facts).summary.contains("Ann missed the puzzle"));
}

#[test]
fn the_reflection_states_the_rating_change_or_why_there_was_none() {
    use crate::rating::{Progress, progress::Change};
    use crate::triggers::{Adapted, Standing};
    let moves = played(&["e4", "e5"]);
    let odds = odds(&[52.0, 50.0]);
    let progress = Progress {
        rating: 1352.4,
        deviation: 81.0,
        games: 12,
        provisional: false,
        change: Some(Change {
            points: 110.0,
            since: chrono::NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
        }),
        best: Some(1352.4),
        personal_best: true,
        last_change: 12.2,
    };
    let rated = MatchHistory {
        rating: Standing {
            progress: Some(progress),
            this_match: Some(12.2),
            adapted: None,
        },
        ..MatchHistory::default()
    };
    let facts = |history| drawn_with_margot(&moves, &odds, history);
    let r = write(&facts(&rated));
    assert!(
        r.summary.ends_with(" Ann's rating went from 1,340 to 1,352 (+12)."),
        "{}",
        r.summary
    );
    let change = r.rating.unwrap();
    assert!((change.after - change.before - 12.2).abs() < 1e-9);
    let adapted = MatchHistory {
        rating: Standing {
            adapted: Some(Adapted {
                plays_at: 1420,
                card_elo: 1500,
                player_rating: 1420.0,
            }),
            ..Standing::default()
        },
        ..MatchHistory::default()
    };
    let r = write(&facts(&adapted));
    assert!(
        r.summary
            .ends_with(" Not rated: Margot played at 1,420, adapted to Ann."),
        "{}",
        r.summary
    );
    assert_eq!(r.rating, None);
}

#[test]
fn forgetting_a_memory_keeps_the_reflection_readable() {
    // The store erases in the stored JSON (`store::forget_in_reflection`):
    // what it leaves must still read back as a reflection.
    let mut body = serde_json::json!({
        "summary": "Sam plays 1. e4; 2 things learned.", "written_by": "scripted", "result": "1-0",
        "termination": "checkmate", "outcome": "loss", "moves": 20, "opening": null, "key_moments": [],
        "learned": [
            { "memory_id": "a", "content": "Sam keeps bees", "memory_type": "personal_note" },
            { "memory_id": "b", "content": "Sam opened 1. e4 2", "memory_type": "player_behavior" }
        ],
        "mood": "calm", "created_at": "2026-11-22T10:20:30Z",
        "head_to_head": { "played": 2, "player_wins": 1, "player_losses": 1, "draws": 0, "streak": null }
    });
    let forms = crate::store::scrub::Forms::new(["2"]);
    let scrub = |t: &str| forms.scrub_text(t);
    assert!(crate::store::forget_in_reflection(&mut body, "a", scrub));
    assert!(
        !crate::store::forget_in_reflection(&mut body, "a", scrub),
        "nothing left to forget"
    );
    let r: Reflection = serde_json::from_value(body).unwrap();
    assert_eq!(r.learned.len(), 1);
    assert_eq!(r.learned[0].content, "Sam opened 1. e4 [forgotten]");
    assert_eq!(r.summary, "Sam plays 1. e4; [forgotten] things learned.");
    // Typed fields untouched.
    assert_eq!((r.moves, r.head_to_head.played), (20, 2));
    assert_eq!(r.created_at.to_rfc3339(), "2026-11-22T10:20:30+00:00");
}

#[test]
fn the_reflection_says_which_moments_rest_on_the_quick_evaluation() {
    // 1.f3?! e5 2.g4?? Qh4#: two moments, the first of them an inaccuracy.
    let moves = played(&["f3", "e5", "g4", "Qh4#"]);
    let history = MatchHistory::default();
    let quick = odds(&[44.0, 46.0, 2.0, 0.0]);
    let r = write(&drawn_with_margot(&moves, &quick, &history));
    assert_eq!(r.key_moments.len(), 2, "{:?}", r.key_moments);
    assert!(r.key_moments.iter().all(|k| k.quick_only));
    assert_eq!(r.deep_checked, Some(DeepChecked { scored: 4, deep: 0 }));
    assert!(
        r.summary
            .contains(" These moments rest on the quick evaluation only (the deeper one checked 0 of 4 moves)."),
        "{}",
        r.summary
    );

    // The blunder checked deeply, the inaccuracy not.
    let mut some = quick.clone();
    some[2] = some[2].map(MoveOdds::checked_deeply);
    let r = write(&drawn_with_margot(&moves, &some, &history));
    assert_eq!(
        r.key_moments.iter().map(|k| k.quick_only).collect::<Vec<_>>(),
        [true, false]
    );
    assert!(
        r.summary.contains(
            " One of these 2 moments rests on the quick evaluation only (the deeper one checked 1 of 4 moves)."
        ),
        "{}",
        r.summary
    );

    let all: Vec<_> = quick.iter().map(|o| o.map(MoveOdds::checked_deeply)).collect();
    let r = write(&drawn_with_margot(&moves, &all, &history));
    assert!(!r.summary.contains("quick evaluation"), "{}", r.summary);
    assert_eq!(r.deep_checked, Some(DeepChecked { scored: 4, deep: 4 }));
}
