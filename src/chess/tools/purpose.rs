//! Why a move was played, as a player would say it: what it takes, the
//! tactic it makes, what it newly attacks, the mate it threatens, or else
//! what it does for the mover's game (castling, development, the centre).
//! Read from the board before the move, so every reason is a fact.

use shakmaty::{Chess, Move, Position, Role, Square};

use super::last_move::classify;
use super::safety::see;
use super::themes::{discovers, is_fork, pin_after, skewer_after};
use super::value;

/// One reason, most telling first in `purposes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    Mates,
    Promotes(Role),
    /// `wins`: the capture gains material outright (static exchange).
    Takes {
        role: Role,
        wins: bool,
    },
    /// The pieces the moved one attacks at once.
    Forks(Vec<Role>),
    Pins,
    Skewers,
    DiscoveredAttack,
    /// The mate it threatens next, in SAN.
    ThreatensMate(String),
    Check,
    /// An opponent piece attacked now that was not before; `hangs`: it
    /// can be taken for profit.
    Attacks {
        role: Role,
        square: Square,
        hangs: bool,
    },
    Castles,
    Develops(Role),
    /// A pawn or piece placed on, or newly aimed at, the four centre squares.
    Centre,
}

const CENTRE: [Square; 4] = [Square::D4, Square::E4, Square::D5, Square::E5];

/// The reasons for `m` played from `before`, most telling first (at least
/// none: a quiet move may have no reason a rule can name).
pub fn purposes(before: &Chess, m: Move) -> Vec<Purpose> {
    let mut after = before.clone();
    after.play_unchecked(m);
    let mut found = Vec::new();
    if after.is_checkmate() {
        return vec![Purpose::Mates];
    }
    if let Some(role) = m.promotion() {
        found.push(Purpose::Promotes(role));
    }
    if let Some(role) = m.capture() {
        let wins = see(before.board(), m.to(), before.turn()) > 0;
        found.push(Purpose::Takes { role, wins });
    }
    if is_fork(before, m) {
        found.push(Purpose::Forks(forked(&after, m.to())));
    }
    let tactics = [
        (pin_after(before, m), Purpose::Pins),
        (skewer_after(before, m), Purpose::Skewers),
        (discovers(before, m), Purpose::DiscoveredAttack),
    ];
    found.extend(tactics.into_iter().filter(|(yes, _)| *yes).map(|(_, p)| p));
    let seen = classify(before, m, &after);
    if let Some(mate) = seen.threatens_mate {
        found.push(Purpose::ThreatensMate(mate));
    }
    if after.is_check() {
        found.push(Purpose::Check);
    }
    found.extend(newly_attacked(before, &after));
    found.extend(quiet_purpose(before, m));
    found
}

/// The opponent pieces attacked now and not before, the ones that hang
/// first, then the most valuable; the king is left to `Check`.
fn newly_attacked(before: &Chess, after: &Chess) -> Vec<Purpose> {
    let (was, is, them) = (before.board(), after.board(), after.turn());
    let attacked = |b: &shakmaty::Board, sq| (b.attacks_to(sq, !them, b.occupied()) & b.by_color(!them)).any();
    let mut found: Vec<(Role, Square, bool)> = is
        .by_color(them)
        .into_iter()
        .filter(|&sq| attacked(is, sq) && !attacked(was, sq))
        .filter_map(|sq| Some((is.role_at(sq)?, sq, see(is, sq, !them) > 0)))
        .filter(|(role, ..)| *role != Role::King)
        .collect();
    found.sort_by_key(|&(role, _, hangs)| std::cmp::Reverse((hangs, value(role))));
    found
        .into_iter()
        .map(|(role, square, hangs)| Purpose::Attacks { role, square, hangs })
        .collect()
}

/// The targets of a fork: what the moved piece attacks that matters.
fn forked(after: &Chess, at: Square) -> Vec<Role> {
    let board = after.board();
    let mut roles: Vec<Role> = (board.attacks_from(at) & board.by_color(after.turn()))
        .into_iter()
        .filter_map(|sq| board.role_at(sq))
        .filter(|r| *r != Role::Pawn)
        .collect();
    roles.sort_by_key(|r| std::cmp::Reverse(value(*r)));
    roles
}

/// What a move without a tactic does for its side.
fn quiet_purpose(before: &Chess, m: Move) -> Option<Purpose> {
    if m.is_castle() {
        return Some(Purpose::Castles);
    }
    let home = before.turn().backrank();
    let from_home = m.from().is_some_and(|f| f.rank() == home);
    if matches!(m.role(), Role::Knight | Role::Bishop) && from_home {
        return Some(Purpose::Develops(m.role()));
    }
    let mut after = before.clone();
    after.play_unchecked(m);
    let centre: shakmaty::Bitboard = CENTRE.into_iter().collect();
    let aims = |pos: &Chess, from: Square| (pos.board().attacks_from(from) & centre).count();
    let newly_aims = m.role() != Role::King && aims(&after, m.to()) > m.from().map_or(0, |f| aims(before, f));
    (CENTRE.contains(&m.to()) || newly_aims).then_some(Purpose::Centre)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::tools::test_position;
    use shakmaty::san::San;

    fn why(fen: &str, san: &str) -> Vec<Purpose> {
        let pos = test_position(fen);
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        purposes(&pos, m)
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_move_is_explained_by_what_it_does_on_the_board() {
        // 1. e4 Nf6: develops the knight and attacks the e4 pawn.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(
            why(after_e4, "Nf6"),
            [
                Purpose::Attacks {
                    role: Role::Pawn,
                    square: Square::E4,
                    hangs: true
                },
                Purpose::Develops(Role::Knight)
            ]
        );
        assert_eq!(why(START, "e4"), [Purpose::Centre]);
        assert_eq!(why(START, "a3"), []);
        // Scholar's mate threat: Qh5 eyes f7 with the bishop on c4.
        let italian = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3";
        assert!(why(italian, "Qh5").contains(&Purpose::ThreatensMate("Qxf7#".into())));
        // A knight fork of king and rook, with check.
        let fork = "r3k3/8/8/1N6/8/8/8/4K3 w - - 0 1";
        let found = why(fork, "Nc7+");
        assert_eq!(found[0], Purpose::Forks(vec![Role::King, Role::Rook]), "{found:?}");
        assert!(found.contains(&Purpose::Check));
        let mate = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(why(mate, "Ra8#"), [Purpose::Mates]);
        let castle = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1";
        assert_eq!(why(castle, "O-O"), [Purpose::Castles]);
    }
}
