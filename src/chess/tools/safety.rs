//! Is a move safe? Where the piece lands: who attacks and defends it, the
//! static exchange (what the opponent wins by capturing there first), check,
//! mate, and whether it lets the opponent mate at once.

use serde::Serialize;
use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square};

use super::{name, san, uci, value};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveSafety {
    pub san: String,
    pub uci: String,
    /// Where the moved piece stands afterwards.
    pub square: String,
    /// Opponent pieces attacking that square afterwards.
    pub attackers: Vec<&'static str>,
    /// Own pieces defending it.
    pub defenders: Vec<&'static str>,
    /// Material the opponent wins by starting captures there (0: safe).
    pub see: i32,
    pub hangs: bool,
    pub gives_check: bool,
    pub mates: bool,
    /// The opponent's mating reply, if the move allows one.
    pub allows_mate_in_one: Option<String>,
}

pub fn eval(pos: &Chess, m: Move) -> MoveSafety {
    let mover = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let to = m.to();
    let board = after.board();
    let roles = |color: Color| -> Vec<&'static str> {
        let attackers = board.attacks_to(to, color, board.occupied()) & board.by_color(color);
        attackers
            .into_iter()
            .filter_map(|sq| board.role_at(sq))
            .map(name)
            .collect()
    };
    let see = see(board, to, !mover);
    let mates = after.is_checkmate();
    MoveSafety {
        san: san(pos, m),
        uci: uci(m),
        square: to.to_string(),
        attackers: roles(!mover),
        defenders: roles(mover),
        see,
        hangs: see > 0,
        gives_check: after.is_check(),
        mates,
        allows_mate_in_one: if mates { None } else { mate_in_one(&after) },
    }
}

/// A move that mates at once, for the side to move, in SAN.
fn mate_in_one(pos: &Chess) -> Option<String> {
    pos.legal_moves().into_iter().find_map(|m| {
        let mut next = pos.clone();
        next.play_unchecked(m);
        next.is_checkmate().then(|| san(pos, m))
    })
}

/// Static exchange evaluation: the material `by` wins by capturing on `sq`
/// first, each side then recapturing with its least valuable piece while it
/// pays (sliders behind a capturer join in). 0 if capturing does not pay.
pub fn see(board: &Board, sq: Square, by: Color) -> i32 {
    let Some(target) = board.role_at(sq) else { return 0 };
    let mut occupied = board.occupied();
    let Some((from, mut last)) = least_valuable(board, sq, by, occupied) else {
        return 0;
    };
    occupied ^= from;
    let mut gains = vec![value(target)];
    let mut side = !by;
    while let Some((from, role)) = least_valuable(board, sq, side, occupied) {
        let previous = *gains.last().expect("starts non-empty");
        gains.push(value(last) - previous);
        occupied ^= from;
        last = role;
        side = !side;
    }
    // Each side may stop capturing when going on would lose.
    for d in (1..gains.len()).rev() {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
    }
    gains[0].max(0)
}

fn least_valuable(board: &Board, sq: Square, side: Color, occupied: Bitboard) -> Option<(Bitboard, Role)> {
    let attackers = board.attacks_to(sq, side, occupied) & occupied & board.by_color(side);
    attackers
        .into_iter()
        .filter_map(|s| Some((Bitboard::from(s), board.role_at(s)?)))
        .min_by_key(|(_, role)| value(*role))
}

impl MoveSafety {
    pub fn to_text(&self) -> String {
        let mut facts = vec![format!(
            "{}: on {}, attacked by [{}], defended by [{}]",
            self.san,
            self.square,
            self.attackers.join(", "),
            self.defenders.join(", ")
        )];
        if self.hangs {
            facts.push(format!("HANGS: the opponent wins {} by capturing", self.see));
        }
        if self.mates {
            facts.push("checkmate".into());
        } else if self.gives_check {
            facts.push("check".into());
        }
        if let Some(reply) = &self.allows_mate_in_one {
            facts.push(format!("ALLOWS MATE IN ONE: {reply}"));
        }
        facts.join("; ")
    }
}
