//! classify_last_move: what the opponent just played, and what it did to us:
//! which of our pieces it newly attacks (and whether they now hang), and
//! whether it threatens mate next move.

use serde::Serialize;
use shakmaty::{Board, Chess, Color, Move, Position, Role, Square};

use super::safety::see;
use super::{name, san};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LastMove {
    pub san: String,
    /// capture, check, castle, promotion, development, pawn move, piece move.
    pub kinds: Vec<&'static str>,
    /// Our pieces attacked now that were not before.
    pub newly_attacked: Vec<Attacked>,
    /// The mate it threatens if we ignore it, in SAN.
    pub threatens_mate: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attacked {
    pub piece: &'static str,
    pub square: String,
    pub hangs: bool,
}

/// `before` is the position the move `m` was played in; `now` the result.
pub fn classify(before: &Chess, m: Move, now: &Chess) -> LastMove {
    let me = now.turn();
    let mut kinds = Vec::new();
    let facts = [
        (m.is_capture(), "capture"),
        (now.is_check(), "check"),
        (m.is_castle(), "castle"),
        (m.is_promotion(), "promotion"),
        (develops(m, !me), "development"),
    ];
    kinds.extend(facts.iter().filter(|(yes, _)| *yes).map(|(_, k)| *k));
    kinds.push(if m.role() == Role::Pawn {
        "pawn move"
    } else {
        "piece move"
    });
    let (was, is) = (before.board(), now.board());
    let newly_attacked = is
        .by_color(me)
        .into_iter()
        .filter(|&sq| attacked(is, sq, !me) && !attacked(was, sq, !me))
        .filter_map(|sq| {
            Some(Attacked {
                piece: name(is.role_at(sq)?),
                square: sq.to_string(),
                hangs: see(is, sq, !me) > 0,
            })
        })
        .collect();
    LastMove {
        san: san(before, m),
        kinds,
        newly_attacked,
        threatens_mate: threatened_mate(now),
    }
}

fn attacked(board: &Board, sq: Square, by: Color) -> bool {
    (board.attacks_to(sq, by, board.occupied()) & board.by_color(by)).any()
}

/// A knight or bishop leaving its home rank.
fn develops(m: Move, mover: Color) -> bool {
    let home = mover.backrank();
    matches!(m.role(), Role::Knight | Role::Bishop) && m.from().is_some_and(|f| f.rank() == home)
}

/// If we passed, could the opponent mate at once? (Not asked when we are in
/// check: there is no passing then.)
fn threatened_mate(now: &Chess) -> Option<String> {
    let passed = now.clone().swap_turn().ok()?;
    passed.legal_moves().into_iter().find_map(|m| {
        let mut next = passed.clone();
        next.play_unchecked(m);
        next.is_checkmate().then(|| san(&passed, m))
    })
}

impl LastMove {
    pub fn to_text(&self) -> String {
        let attacked: Vec<String> = self
            .newly_attacked
            .iter()
            .map(|a| format!("{} {}{}", a.piece, a.square, if a.hangs { " (HANGS)" } else { "" }))
            .collect();
        let mut text = format!("{}: {}", self.san, self.kinds.join(", "));
        if !attacked.is_empty() {
            text.push_str(&format!("; newly attacks {}", attacked.join(", ")));
        }
        if let Some(mate) = &self.threatens_mate {
            text.push_str(&format!("; THREATENS MATE: {mate}"));
        }
        text
    }
}
