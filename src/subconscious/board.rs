//! What a club player notices on the board, as typed facts: the phase by
//! material (not by move number), the balance and its imbalances, the kind
//! of endgame, the tactics the side to move has, and what a move was.
//! Deterministic and cheap: the board tools' detectors on one position.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Rank, Role, Square};

use super::plans::{Plan, plans_of};
use crate::chess::tools::themes;
use crate::chess::tools::{see, value};

/// The phase by the pieces left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

/// The kind of endgame, by the pieces both sides have left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndgameKind {
    Pawn,
    Rook,
    Queen,
    OppositeBishops,
    /// Knights only.
    Knight,
    /// Bishops and knights only (bishop against knight, say).
    MinorPiece,
    /// Anything else (rook against minor piece, queen and rook, ...).
    Mixed,
}

/// A material imbalance beyond plain pawns up or down, for the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imbalance {
    /// A rook against a minor piece.
    ExchangeUp,
    ExchangeDown,
    /// A minor piece against pawns.
    PieceForPawns,
    PawnsForPiece,
}

/// A tactic the side to move has (or a move makes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motif {
    /// Mate in one; `back_rank` when a rook or queen mates on the king's first rank.
    Mate {
        back_rank: bool,
    },
    /// The other king sits on its first rank with no luft, and a rook or
    /// queen can give check along that rank.
    BackRank,
    Fork(Role),
    Pin,
    Skewer,
    DiscoveredAttack,
    /// A capture that wins this piece outright.
    HangingPiece(Role),
}

/// What a move was, beyond its square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveTrait {
    Capture(Role),
    QueenTrade,
    /// A rook given for a minor piece that can take it back.
    ExchangeSacrifice,
    /// The moved piece can be taken for less than it is worth.
    Sacrifice,
    CastleKingside,
    CastleQueenside,
    Promotion,
    /// A wing pawn pushed up the board towards the other king.
    PawnStorm,
    Check,
    /// A positional idea the move carries (`plans.rs`).
    Plan(Plan),
}

/// The board of a context, and whose side is whose.
pub struct Board {
    pub pos: Chess,
    pub user: Color,
}

const MINORS_AND_MAJORS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

impl Board {
    /// Knights, bishops, rooks and queens of one side, in pawns.
    fn pieces(&self, side: Color) -> i32 {
        self.roles(side).into_iter().map(value).sum()
    }

    fn roles(&self, side: Color) -> Vec<Role> {
        let b = self.pos.board();
        MINORS_AND_MAJORS
            .into_iter()
            .flat_map(|r| std::iter::repeat_n(r, (b.by_role(r) & b.by_color(side)).count()))
            .collect()
    }

    fn pawns(&self, side: Color) -> i32 {
        (self.pos.board().pawns() & self.pos.board().by_color(side)).count() as i32
    }

    /// As Lichess divides a game: the endgame once six or fewer knights,
    /// bishops, rooks and queens are left; the opening while nearly all
    /// are on and both back ranks are still full.
    pub fn phase(&self) -> Phase {
        let pieces = self.roles(Color::White).len() + self.roles(Color::Black).len();
        let b = self.pos.board();
        let full_back_rank = |side: Color, rank: Rank| (b.by_color(side) & Bitboard::from_rank(rank)).count() >= 4;
        let developing = full_back_rank(Color::White, Rank::First) && full_back_rank(Color::Black, Rank::Eighth);
        if pieces <= 6 {
            Phase::Endgame
        } else if pieces >= 12 && developing && self.pos.fullmoves().get() <= 15 {
            Phase::Opening
        } else {
            Phase::Middlegame
        }
    }

    pub fn endgame(&self) -> Option<EndgameKind> {
        if self.phase() != Phase::Endgame {
            return None;
        }
        let (w, b) = (self.roles(Color::White), self.roles(Color::Black));
        let all: Vec<Role> = w.iter().chain(&b).copied().collect();
        let only = |role: Role| !all.is_empty() && all.iter().all(|&r| r == role);
        Some(if all.is_empty() {
            EndgameKind::Pawn
        } else if only(Role::Rook) {
            EndgameKind::Rook
        } else if only(Role::Queen) {
            EndgameKind::Queen
        } else if w == [Role::Bishop] && b == [Role::Bishop] && self.bishops_differ() {
            EndgameKind::OppositeBishops
        } else if only(Role::Knight) {
            EndgameKind::Knight
        } else if all.iter().all(|r| matches!(r, Role::Knight | Role::Bishop)) {
            EndgameKind::MinorPiece
        } else {
            EndgameKind::Mixed
        })
    }

    fn bishops_differ(&self) -> bool {
        let b = self.pos.board();
        let dark = |side: Color| (b.bishops() & b.by_color(side)).into_iter().next().map(|s| s.is_dark());
        dark(Color::White) != dark(Color::Black)
    }

    /// The player's material minus the persona's, in pawns.
    pub fn user_balance(&self) -> i32 {
        let side = |c: Color| self.pieces(c) + self.pawns(c);
        side(self.user) - side(!self.user)
    }

    /// The imbalance the pieces (not the pawns) show, for the player.
    pub fn imbalance(&self) -> Option<Imbalance> {
        let count = |side: Color, roles: &[Role]| self.roles(side).iter().filter(|r| roles.contains(r)).count() as i32;
        let minors = |side| count(side, &[Role::Knight, Role::Bishop]);
        let rooks = |side| count(side, &[Role::Rook]);
        let (me, you) = (self.user, !self.user);
        let rook_edge = rooks(me) - rooks(you);
        let minor_edge = minors(me) - minors(you);
        match (rook_edge, minor_edge) {
            (1, -1) => Some(Imbalance::ExchangeUp),
            (-1, 1) => Some(Imbalance::ExchangeDown),
            (0, 1) if self.pawns(you) - self.pawns(me) >= 2 => Some(Imbalance::PieceForPawns),
            (0, -1) if self.pawns(me) - self.pawns(you) >= 2 => Some(Imbalance::PawnsForPiece),
            _ => None,
        }
    }

    /// The player's king still on its start square at move 10 or later.
    pub fn user_king_in_centre(&self) -> bool {
        let home = if self.user.is_white() { Square::E1 } else { Square::E8 };
        self.pos.fullmoves().get() >= 10 && self.pos.board().king_of(self.user) == Some(home)
    }
}

/// The tactics the side to move has now, strongest first: mate, a fork, a
/// piece to win, a skewer, a pin, a discovered attack.
pub fn chances(pos: &Chess) -> Vec<Motif> {
    let moves = pos.legal_moves();
    let mut found = Vec::new();
    if let Some(&m) = moves.iter().find(|&&m| mates(pos, m)) {
        found.push(Motif::Mate {
            back_rank: back_rank(pos, m),
        });
    }
    if back_rank_weak(pos) && !found.contains(&Motif::Mate { back_rank: true }) {
        found.push(Motif::BackRank);
    }
    if let Some(m) = moves.iter().find(|&&m| themes::is_fork(pos, m)) {
        found.push(Motif::Fork(m.role()));
    }
    if let Some(role) = winning_capture(pos) {
        found.push(Motif::HangingPiece(role));
    }
    if themes::skewers(pos, pos.turn()) > 0 || moves.iter().any(|&m| themes::skewer_after(pos, m)) {
        found.push(Motif::Skewer);
    }
    if themes::pins(pos, pos.turn()) > 0 || moves.iter().any(|&m| themes::pin_after(pos, m)) {
        found.push(Motif::Pin);
    }
    if moves.iter().any(|&m| themes::discovers(pos, m)) {
        found.push(Motif::DiscoveredAttack);
    }
    found
}

/// The tactics one move carries, played from `pos`.
pub fn motifs_of(pos: &Chess, m: Move) -> Vec<Motif> {
    let mut found = Vec::new();
    if mates(pos, m) {
        found.push(Motif::Mate {
            back_rank: back_rank(pos, m),
        });
    }
    if themes::is_fork(pos, m) {
        found.push(Motif::Fork(m.role()));
    }
    if let Some(taken) = m.capture().filter(|_| see(pos.board(), m.to(), pos.turn()) > 0) {
        found.push(Motif::HangingPiece(taken));
    }
    if themes::skewer_after(pos, m) {
        found.push(Motif::Skewer);
    }
    if themes::pin_after(pos, m) {
        found.push(Motif::Pin);
    }
    if themes::discovers(pos, m) {
        found.push(Motif::DiscoveredAttack);
    }
    found
}

/// What kind of move `m` is, played from `pos`.
pub fn traits_of(pos: &Chess, m: Move) -> Vec<MoveTrait> {
    let mut after = pos.clone();
    after.play_unchecked(m);
    let mut found = Vec::new();
    if let Some(taken) = m.capture() {
        found.push(MoveTrait::Capture(taken));
        let b = after.board();
        let answered = b.attacks_to(m.to(), after.turn(), b.occupied()).any();
        if taken == Role::Queen && (m.role() == Role::Queen || answered) {
            found.push(MoveTrait::QueenTrade);
        }
        if m.role() == Role::Rook && matches!(taken, Role::Knight | Role::Bishop) && answered {
            found.push(MoveTrait::ExchangeSacrifice);
        }
    } else if m.role() != Role::Pawn && see(after.board(), m.to(), after.turn()) >= 3 {
        found.push(MoveTrait::Sacrifice);
    }
    match m {
        Move::Castle { king, rook } if rook.file() < king.file() => found.push(MoveTrait::CastleQueenside),
        Move::Castle { .. } => found.push(MoveTrait::CastleKingside),
        _ => {}
    }
    if m.promotion().is_some() {
        found.push(MoveTrait::Promotion);
    }
    if is_pawn_storm(pos, m) {
        found.push(MoveTrait::PawnStorm);
    }
    if after.is_check() {
        found.push(MoveTrait::Check);
    }
    found.extend(plans_of(pos, m, &after).into_iter().map(MoveTrait::Plan));
    found
}

fn mates(pos: &Chess, m: Move) -> bool {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next.is_checkmate()
}

/// A rook or queen mating on the mated king's first rank.
fn back_rank(pos: &Chess, m: Move) -> bool {
    let their_rank = if pos.turn().is_white() {
        Rank::Eighth
    } else {
        Rank::First
    };
    matches!(m.role(), Role::Rook | Role::Queen) && m.to().rank() == their_rank
}

/// The other king on its first rank, hemmed in by its own pieces (no luft),
/// and a rook or queen of the side to move able to check it along that rank.
fn back_rank_weak(pos: &Chess) -> bool {
    let them = !pos.turn();
    let b = pos.board();
    let Some(king) = b.king_of(them) else { return false };
    let (home, next) = if them.is_white() {
        (Rank::First, Rank::Second)
    } else {
        (Rank::Eighth, Rank::Seventh)
    };
    if king.rank() != home {
        return false;
    }
    let luft = shakmaty::attacks::king_attacks(king)
        .into_iter()
        .filter(|sq| sq.rank() == next)
        .any(|sq| !b.by_color(them).contains(sq) && !b.attacks_to(sq, pos.turn(), b.occupied()).any());
    !luft
        && pos.legal_moves().iter().any(|&m| {
            matches!(m.role(), Role::Rook | Role::Queen) && m.to().rank() == home && {
                let mut after = pos.clone();
                after.play_unchecked(m);
                after.is_check()
            }
        })
}

/// The most valuable piece the side to move wins outright by a capture.
fn winning_capture(pos: &Chess) -> Option<Role> {
    let me = pos.turn();
    pos.legal_moves()
        .into_iter()
        .filter(|m| m.is_capture() && see(pos.board(), m.to(), me) > 0)
        .filter_map(|m| m.capture())
        .max_by_key(|&r| value(r))
}

/// A pawn on the wing where the other king lives, pushed into the other half.
fn is_pawn_storm(pos: &Chess, m: Move) -> bool {
    if m.role() != Role::Pawn || m.is_capture() {
        return false;
    }
    let me = pos.turn();
    let Some(king) = pos.board().king_of(!me) else {
        return false;
    };
    let same_wing =
        (m.to().file() as i32 - king.file() as i32).abs() <= 2 && !(3..=4).contains(&(m.to().file() as i32));
    let advanced = if me.is_white() {
        m.to().rank() >= Rank::Fourth
    } else {
        m.to().rank() <= Rank::Fifth
    };
    same_wing && advanced && pos.fullmoves().get() >= 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::tools::test_position as pos;

    fn board(fen: &str, user: Color) -> Board {
        Board { pos: pos(fen), user }
    }

    #[test]
    fn the_phase_goes_by_material() {
        assert_eq!(
            board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Color::White).phase(),
            Phase::Opening
        );
        // Move 30 with every piece on: still no endgame.
        let crowded = board(
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 30",
            Color::White,
        );
        assert_eq!(crowded.phase(), Phase::Middlegame);
        let rooks = board("8/5pk1/6p1/7p/8/6P1/r4PK1/3R4 w - - 0 40", Color::White);
        assert_eq!(
            (rooks.phase(), rooks.endgame()),
            (Phase::Endgame, Some(EndgameKind::Rook))
        );
        assert_eq!(rooks.user_balance(), -1);
        let ocb = board("8/5k2/4p3/4b2p/2B5/6P1/5K2/8 w - - 0 50", Color::White);
        assert_eq!(ocb.endgame(), Some(EndgameKind::OppositeBishops));
        let kp = board("8/8/4k3/4p3/4P3/3K4/8/8 w - - 0 55", Color::White);
        assert_eq!(kp.endgame(), Some(EndgameKind::Pawn));
    }

    #[test]
    fn imbalances_are_told_from_the_players_side() {
        // Two rooks against one: more, but of the same kind.
        let b = board("r5k1/ppp2ppp/8/8/8/8/PPP2PPP/R3R1K1 w - - 0 20", Color::White);
        assert_eq!(b.imbalance(), None);
        let even = board("r5k1/ppp2ppp/8/8/8/8/PPP2PPP/4R1K1 w - - 0 20", Color::White);
        assert_eq!(even.imbalance(), None, "a rook each");
        let exchange = board("4b1k1/ppp2ppp/8/8/8/8/PPP2PPP/4R1K1 w - - 0 20", Color::White);
        assert_eq!(exchange.imbalance(), Some(Imbalance::ExchangeUp));
        let exchange = board("4b1k1/ppp2ppp/8/8/8/8/PPP2PPP/4R1K1 w - - 0 20", Color::Black);
        assert_eq!(exchange.imbalance(), Some(Imbalance::ExchangeDown));
    }

    #[test]
    fn moves_are_told_by_what_they_are() {
        let queens = pos("r1b2rk1/ppp2ppp/2n2n2/3q4/3Q4/2N2N2/PPP2PPP/R1B2RK1 w - - 0 10");
        let m = crate::chess::notation::parse_move(&queens, "Qxd5").unwrap();
        assert!(traits_of(&queens, m).contains(&MoveTrait::QueenTrade));
        let castle = pos("r1bqk2r/pppp1ppp/2n2n2/2b1p3/4P3/2NP1Q2/PPPB1PPP/R3KBNR w KQkq - 4 6");
        let m = crate::chess::notation::parse_move(&castle, "O-O-O").unwrap();
        assert!(traits_of(&castle, m).contains(&MoveTrait::CastleQueenside));
        let exchange = pos("r4rk1/ppp2ppp/3p4/4b3/8/2P5/PP3PPP/4RRK1 w - - 0 20");
        let m = crate::chess::notation::parse_move(&exchange, "Rxe5").unwrap();
        assert!(traits_of(&exchange, m).contains(&MoveTrait::ExchangeSacrifice));
    }

    #[test]
    fn chances_name_the_tactic_the_side_to_move_has() {
        // After Kh1, Black's Nf2+ forks the king and the queen.
        let fork = pos("r5k1/ppp3pp/8/8/4n3/8/PPP3PP/R2Q3K b - - 1 20");
        assert!(
            chances(&fork).contains(&Motif::Fork(Role::Knight)),
            "{:?}",
            chances(&fork)
        );
        let back_rank = pos("4r1k1/3R1ppp/1q6/8/8/8/5PPP/6K1 b - - 1 30");
        assert!(
            chances(&back_rank).contains(&Motif::Mate { back_rank: true }),
            "{:?}",
            chances(&back_rank)
        );
        assert!(chances(&Chess::default()).is_empty());
    }
}
