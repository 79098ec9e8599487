//! Shared moments on real games with chosen odds: each kind found where it
//! happened, and nothing where nothing did.

use super::*;
use crate::chess::odds::MoveOdds;
use crate::chess::{Game, PlayedMove};
use crate::triggers::MatchHistory;

fn played(fen: Option<&str>, sans: &[&str]) -> Vec<PlayedMove> {
    let mut game = Game::new(fen).unwrap();
    for san in sans {
        let m = game.parse(san).unwrap();
        game.play(m);
    }
    game.moves().to_vec()
}

fn odds(whites: &[f64], blunder_at: Option<usize>) -> Vec<Option<MoveOdds>> {
    whites
        .iter()
        .enumerate()
        .map(|(i, &white)| {
            Some(MoveOdds {
                white,
                delta: if Some(i) == blunder_at { -40.0 } else { 0.0 },
                class: if Some(i) == blunder_at {
                    MoveClass::Blunder
                } else {
                    MoveClass::Good
                },
                eval: None,
                deep: false,
            })
        })
        .collect()
}

fn facts<'a>(
    moves: &'a [PlayedMove],
    odds: &'a [Option<MoveOdds>],
    end: GameEnd,
    history: &'a MatchHistory,
) -> MatchFacts<'a> {
    MatchFacts {
        persona_name: "Pip",
        player_name: "Noor",
        user_is_white: true,
        end,
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

const DATE: &str = "26 November 2026";
const WHITE_MATES: GameEnd = GameEnd::Checkmate {
    winner: shakmaty::Color::White,
};
const BLACK_MATES: GameEnd = GameEnd::Checkmate {
    winner: shakmaty::Color::Black,
};

#[test]
fn a_comeback_from_fifteen_percent_is_a_swindle_either_way() {
    let h = MatchHistory::default();
    // 1. e4 f6 2. d4 g5 3. Qh5#: Noor (White) was at 10% after 2. d4, and mated.
    let moves = played(None, &["e4", "f6", "d4", "g5", "Qh5#"]);
    let o = odds(&[55.0, 50.0, 10.0, 60.0, 100.0], None);
    let found = shared(&facts(&moves, &o, WHITE_MATES, &h), &[], DATE);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, "swindle");
    assert_eq!(
        found[0].content,
        "On 26 November 2026, Noor swindled me: after 2. d4 I was at about 90%, and Noor came back to win."
    );
    // 1. f3 e5 2. g4 Qh4#: Noor was at 90% after 1. f3, and was mated.
    let moves = played(None, &["f3", "e5", "g4", "Qh4#"]);
    let o = odds(&[90.0, 60.0, 30.0, 0.0], None);
    let found = shared(&facts(&moves, &o, BLACK_MATES, &h), &[], DATE);
    assert!(
        found[0]
            .content
            .starts_with("On 26 November 2026, I swindled Noor: after 1. f3 Noor was at about 90%")
    );
    // A game that went as the odds said holds no moment.
    let o = odds(&[50.0, 45.0, 30.0, 0.0], None);
    assert!(shared(&facts(&moves, &o, BLACK_MATES, &h), &[], DATE).is_empty());
}

#[test]
fn a_stalemate_a_queen_down_is_an_escape() {
    let h = MatchHistory::default();
    // Noor, a queen up, plays Kh6: stalemate.
    let moves = played(Some("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"), &["Kh6"]);
    let o = vec![None];
    let found = shared(&facts(&moves, &o, GameEnd::Stalemate, &h), &[], DATE);
    assert_eq!(
        found.iter().map(|m| (m.kind, m.content.as_str())).collect::<Vec<_>>(),
        [(
            "stalemate",
            "On 26 November 2026, Noor was a queen up against me and let me escape with a stalemate (1. Kh6)."
        )]
    );
}

#[test]
fn a_blunder_laughed_off_and_a_joke_are_kept_in_the_players_words() {
    let h = MatchHistory::default();
    let moves = played(None, &["f3", "e5", "g4", "Qh4#"]);
    let o = odds(&[45.0, 47.0, 2.0, 0.0], Some(2));
    let lines = [
        (0, "hi Pip!".to_string()),
        (1, "why did the pawn cross the board? to promote, haha".to_string()),
        (3, "hahaha oops".to_string()),
    ];
    let found = shared(&facts(&moves, &o, BLACK_MATES, &h), &lines, DATE);
    let kinds: Vec<&str> = found.iter().map(|m| m.kind).collect();
    assert_eq!(kinds, ["laughed_blunder", "joke"], "{found:?}");
    assert_eq!(
        found[0].content,
        "On 26 November 2026, Noor blundered with 2. g4 and Noor laughed it off: ‘hahaha oops’"
    );
    assert!(
        found[1]
            .content
            .ends_with("made me laugh: ‘why did the pawn cross the board? to promote, haha’")
    );
    // A laugh too far from the blunder, or too short to be a joke, is nothing.
    let late = [(0, "lol".to_string())];
    assert!(shared(&facts(&moves, &o, BLACK_MATES, &h), &late, DATE).is_empty());
}

#[test]
fn laughter_is_read_from_words_and_faces_not_inside_other_words() {
    for yes in ["hahaha", "LOL!", "ok 😂", "lmao that was bad", "haha"] {
        assert!(laughs(yes), "{yes}");
    }
    for no in ["Lolita", "hello", "the knight is lost", "hah"] {
        assert!(!laughs(no), "{no}");
    }
}
