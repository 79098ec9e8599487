//! The positional ideas a move carries that a club player names at once,
//! read from the pawns and pieces alone: a knight planted on an outpost,
//! a pawn grabbed with the queen, a minority attack, a passed pawn pushed,
//! the bishop pair given up, a piece given for a pawn at the king.
//! Each is a rule of structure, certain from the board (no engine).

use shakmaty::{Bitboard, Chess, Color, File, Move, Position, Rank, Role, Square};

use crate::chess::tools::{see, value};

/// A positional idea of one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// A knight or bishop on a square in the other half no enemy pawn can
    /// ever attack, guarded by a pawn.
    Outpost,
    /// The queen takes a wing pawn early, away from her pieces.
    PawnGrab,
    /// The a- or b-pawn pushed against a queenside where the other side
    /// has more pawns (the Carlsbad plan b4-b5).
    MinorityAttack,
    /// A passed pawn pushed into the other half.
    PassedPawn,
    /// A bishop given for a knight by the side that had both bishops.
    BishopPairGiven,
    /// A piece given for a pawn at the other king's shelter (Bxh3, Bxh7+).
    SacrificeAtKing,
    /// The queens can come off: the side to move's queen can take the other.
    QueenTrade,
    /// The kings stand (or can go) on opposite wings.
    OppositeCastling,
}

/// What the board offers the side to move beside tactics: a queen trade,
/// castling long against a king on the short side.
pub fn offers(pos: &Chess) -> Vec<Plan> {
    let me = pos.turn();
    let b = pos.board();
    let moves = pos.legal_moves();
    let queen_trade = moves
        .iter()
        .any(|m| m.role() == Role::Queen && m.capture() == Some(Role::Queen));
    let wing = |side: Color| b.king_of(side).map(|k| u32::from(k.file()) >= 4);
    let long_castle = moves
        .iter()
        .any(|m| matches!(m, Move::Castle { king, rook } if rook.file() < king.file()));
    let opposite = match (wing(me), wing(!me)) {
        (Some(mine), Some(theirs)) if castled(pos, !me) => {
            (castled(pos, me) && mine != theirs) || (long_castle && theirs)
        }
        _ => false,
    };
    let found = [(Plan::QueenTrade, queen_trade), (Plan::OppositeCastling, opposite)];
    found.into_iter().filter(|(_, yes)| *yes).map(|(p, _)| p).collect()
}

/// A king off its start square on a wing: castled, or walked there.
fn castled(pos: &Chess, side: Color) -> bool {
    pos.board()
        .king_of(side)
        .is_some_and(|k| matches!(k.file(), File::A | File::B | File::C | File::G | File::H))
}

/// The plans of `m`, played from `pos` (`after` is the position after it).
pub fn plans_of(pos: &Chess, m: Move, after: &Chess) -> Vec<Plan> {
    let me = pos.turn();
    let checks: [(Plan, bool); 6] = [
        (Plan::Outpost, outpost(after, m.to(), me)),
        (Plan::PawnGrab, pawn_grab(pos, m)),
        (Plan::MinorityAttack, minority_attack(pos, m)),
        (
            Plan::PassedPawn,
            m.role() == Role::Pawn && passed(after, m.to(), me) && in_their_half(m.to(), me),
        ),
        (Plan::BishopPairGiven, bishop_pair_given(pos, m)),
        (Plan::SacrificeAtKing, sacrifice_at_king(pos, m, after)),
    ];
    checks.into_iter().filter(|(_, yes)| *yes).map(|(p, _)| p).collect()
}

/// Ranks count from `side`'s own back rank: 0 is home, 7 the far side.
fn relative_rank(sq: Square, side: Color) -> u32 {
    let r = u32::from(sq.rank());
    if side.is_white() { r } else { 7 - r }
}

fn in_their_half(sq: Square, side: Color) -> bool {
    relative_rank(sq, side) >= 4
}

/// The files beside `file` (and `file` itself when `with_own`).
fn files_near(file: File, with_own: bool) -> Bitboard {
    let f = u32::from(file) as i32;
    (f - 1..=f + 1)
        .filter(|&x| (0..8).contains(&x) && (with_own || x != f))
        .map(|x| Bitboard::from_file(File::new(x as u32)))
        .fold(Bitboard::EMPTY, |a, b| a | b)
}

/// Squares ahead of `sq` for `side`, on any rank beyond it.
fn ahead(sq: Square, side: Color) -> Bitboard {
    let here = relative_rank(sq, side);
    (0..8)
        .map(Rank::new)
        .filter(|&r| relative_rank(Square::from_coords(File::A, r), side) > here)
        .map(Bitboard::from_rank)
        .fold(Bitboard::EMPTY, |a, b| a | b)
}

fn pawns_of(pos: &Chess, side: Color) -> Bitboard {
    pos.board().pawns() & pos.board().by_color(side)
}

fn outpost(after: &Chess, sq: Square, me: Color) -> bool {
    let b = after.board();
    let minor = matches!(b.role_at(sq), Some(Role::Knight | Role::Bishop));
    // Their pawns that could still come to attack it stand beside it, ahead.
    let chasers = pawns_of(after, !me) & files_near(sq.file(), false) & ahead(sq, me);
    let guarded = (shakmaty::attacks::pawn_attacks(!me, sq) & pawns_of(after, me)).any();
    minor && in_their_half(sq, me) && relative_rank(sq, me) <= 6 && chasers.is_empty() && guarded
}

fn pawn_grab(pos: &Chess, m: Move) -> bool {
    let wing = matches!(m.to().file(), File::A | File::B | File::G | File::H);
    m.role() == Role::Queen && m.capture() == Some(Role::Pawn) && wing && pos.fullmoves().get() <= 25
}

fn minority_attack(pos: &Chess, m: Move) -> bool {
    let me = pos.turn();
    let queenside = Bitboard::from_file(File::A) | Bitboard::from_file(File::B) | Bitboard::from_file(File::C);
    let count = |side: Color| (pawns_of(pos, side) & queenside).count();
    let pushed =
        m.role() == Role::Pawn && !m.is_capture() && matches!(m.from().map(|s| s.file()), Some(File::A | File::B));
    pushed && relative_rank(m.to(), me) >= 3 && count(me) < count(!me) && count(me) >= 1
}

/// No pawn of theirs ahead of it on its file or beside.
fn passed(after: &Chess, sq: Square, me: Color) -> bool {
    (pawns_of(after, !me) & files_near(sq.file(), true) & ahead(sq, me)).is_empty()
}

fn bishop_pair_given(pos: &Chess, m: Move) -> bool {
    let b = pos.board();
    let pair = (b.bishops() & b.by_color(pos.turn())).count() >= 2;
    pair && m.role() == Role::Bishop && m.capture() == Some(Role::Knight)
}

fn sacrifice_at_king(pos: &Chess, m: Move, after: &Chess) -> bool {
    let Some(taken) = m.capture() else { return false };
    let Some(king) = pos.board().king_of(!pos.turn()) else {
        return false;
    };
    let near = shakmaty::attacks::king_attacks(king).contains(m.to())
        || (u32::from(m.to().file()) as i32 - u32::from(king.file()) as i32).abs() <= 1
            && relative_rank(m.to(), pos.turn()) >= 5;
    // What they win back beyond the pawn: a piece for a pawn at least.
    let given = see(after.board(), m.to(), after.turn()) - value(taken);
    m.role() != Role::Pawn && near && given >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::notation::parse_move;
    use crate::chess::tools::test_position as pos;

    /// The plans of the move `san` from the position `fen`.
    fn plans(fen: &str, san: &str) -> Vec<Plan> {
        let before = pos(fen);
        let m = parse_move(&before, san).unwrap();
        let mut after = before.clone();
        after.play_unchecked(m);
        plans_of(&before, m, &after)
    }

    #[test]
    fn each_plan_is_seen_where_it_is_and_not_where_it_is_not() {
        // (position, move, the plan it shows, or none)
        let cases: &[(&str, &str, Option<Plan>)] = &[
            // Nd5 after ...e5 and ...d6: no c- or e-pawn can chase it, c4 guards it.
            (
                "r1bqk2r/pp2bppp/2np1n2/4p3/2P1P3/2N2N2/PP2BPPP/R1BQK2R w KQkq - 0 8",
                "Nd5",
                Some(Plan::Outpost),
            ),
            // Nd5 with a black c-pawn still on c7: it can be kicked.
            (
                "r1bqk2r/ppp1bppp/2np1n2/4p3/4P3/2N2N2/PPP1BPPP/R1BQK2R w KQkq - 0 8",
                "Nd5",
                None,
            ),
            // The poisoned pawn: ...Qxb2.
            (
                "rn2kbnr/pp3ppp/1q2p3/2ppPb2/3P4/2P2N2/PP3PPP/RNBQKB1R b KQkq - 0 6",
                "Qxb2",
                Some(Plan::PawnGrab),
            ),
            // Carlsbad: White's a- and b-pawns against a7, b7, c6.
            (
                "r1bq1rk1/pp2bppp/2p1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
                "b4",
                None,
            ),
            (
                "r2q1rk1/pp1nbppp/2p1pn2/3p4/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 0 11",
                "b4",
                Some(Plan::MinorityAttack),
            ),
            // A passed pawn pushed into the other half.
            ("8/5k2/8/3P4/8/8/5K2/8 w - - 0 50", "d6", Some(Plan::PassedPawn)),
            ("8/2p2k2/8/3P4/8/8/5K2/8 w - - 0 50", "d6", None),
            // Bxc6 with both bishops: the pair is given.
            (
                "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
                "Bxc6",
                Some(Plan::BishopPairGiven),
            ),
            // Bxh3: a bishop for the pawn in front of the castled king.
            (
                "r1bq1rk1/ppp1npbp/3p1np1/3Pp3/2P1P3/2N2N1P/PP2BPP1/R1BQ1RK1 b - - 0 9",
                "Bxh3",
                Some(Plan::SacrificeAtKing),
            ),
            // The Greek gift: Bxh7+ and the king takes.
            (
                "r1bq1rk1/pp1n1ppp/2n1p3/2bpP3/5B2/2NB1N2/PPP2PPP/R2QK2R w KQ - 2 9",
                "Bxh7+",
                Some(Plan::SacrificeAtKing),
            ),
            // Bxh3 when nothing can take back is no sacrifice.
            (
                "r1bq1rk1/ppp1npbp/3p1np1/3Pp3/2P1P3/2N2N1P/PP2BP2/R1BQ1RK1 b - - 0 9",
                "Bxh3",
                None,
            ),
        ];
        for (fen, san, want) in cases {
            let got = plans(fen, san);
            match want {
                Some(plan) => assert!(got.contains(plan), "{san} in {fen}: {got:?}"),
                None => assert!(got.is_empty(), "{san} in {fen}: {got:?}"),
            }
        }
    }

    #[test]
    fn the_board_offers_a_queen_trade_and_castling_against_the_king() {
        // After ...dxe5 White's Qd1 can take on d8.
        let trade = pos("rnbq1rk1/ppp2pbp/5np1/4p3/4P3/2N2N2/PPP1BPPP/R1BQ1RK1 w - - 0 8");
        assert!(offers(&trade).contains(&Plan::QueenTrade), "{:?}", offers(&trade));
        // Black can castle long; White's king is on g1.
        let long = pos("r3kb1r/ppqn1ppp/5n2/3pp3/6b1/1QNP1NP1/PP2PPBP/R1B2RK1 b kq - 3 9");
        assert_eq!(offers(&long), vec![Plan::OppositeCastling]);
        assert!(offers(&Chess::default()).is_empty());
    }
}
