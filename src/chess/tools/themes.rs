//! Which tactical themes a position offers the side to move, as Lichess tags
//! its puzzles. Used to check the tools against puzzles nobody on the team
//! wrote (`kibitz bench tools`): mate in one and two, hanging piece, fork,
//! pin, skewer and discovered attack. They are the seed of find_threats and deep_threats.

use shakmaty::{Chess, Color, Move, Position, Role, Square, attacks};

use super::safety::see;
use super::value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    MateIn1,
    HangingPiece,
    Fork,
    Pin,
    Skewer,
    DiscoveredAttack,
    MateIn2,
}

impl Theme {
    pub const DETECTED: [Theme; 7] = [
        Theme::MateIn1,
        Theme::HangingPiece,
        Theme::Fork,
        Theme::Pin,
        Theme::Skewer,
        Theme::DiscoveredAttack,
        Theme::MateIn2,
    ];

    /// Lichess's tag for the theme.
    pub fn tag(self) -> &'static str {
        match self {
            Theme::MateIn1 => "mateIn1",
            Theme::HangingPiece => "hangingPiece",
            Theme::Fork => "fork",
            Theme::Pin => "pin",
            Theme::Skewer => "skewer",
            Theme::DiscoveredAttack => "discoveredAttack",
            Theme::MateIn2 => "mateIn2",
        }
    }

    pub fn present(self, pos: &Chess) -> bool {
        match self {
            Theme::MateIn1 => mate_in_one(pos),
            Theme::HangingPiece => wins_material(pos),
            Theme::Fork => !forks(pos).is_empty(),
            Theme::Pin => pins(pos, pos.turn()) > 0 || pos.legal_moves().into_iter().any(|m| pin_after(pos, m)),
            Theme::Skewer => {
                skewers(pos, pos.turn()) > 0 || pos.legal_moves().into_iter().any(|m| skewer_after(pos, m))
            }
            Theme::DiscoveredAttack => pos.legal_moves().into_iter().any(|m| discovers(pos, m)),
            Theme::MateIn2 => mate_in_two(pos),
        }
    }
}

fn mate_in_one(pos: &Chess) -> bool {
    pos.legal_moves().into_iter().any(|m| {
        let mut next = pos.clone();
        next.play_unchecked(m);
        next.is_checkmate()
    })
}

/// Moves after which the moved piece, not lost itself, attacks two or more
/// targets worth attacking: the king, a piece worth more than it, or one
/// that is simply lost.
pub fn forks(pos: &Chess) -> Vec<Move> {
    pos.legal_moves().into_iter().filter(|&m| is_fork(pos, m)).collect()
}

pub fn is_fork(pos: &Chess, m: Move) -> bool {
    let me = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let board = after.board();
    let to = m.to();
    if see(board, to, !me) > 0 {
        return false;
    }
    let mover = value(m.promotion().unwrap_or(m.role()));
    let targets = (board.attacks_from(to) & board.by_color(!me))
        .into_iter()
        .filter(|&sq| {
            board
                .role_at(sq)
                .is_some_and(|r| r == Role::King || value(r) > mover || see(board, sq, me) > 0)
        })
        .count();
    targets >= 2
}

/// Two opponent pieces on one line of `by`'s slider, nothing between them:
/// (the slider, the front piece's role, the role behind it).
fn x_rays(pos: &Chess, by: Color) -> Vec<(Square, Role, Role)> {
    let board = pos.board();
    let theirs = board.by_color(!by);
    let sliders = board.by_color(by) & (board.bishops() | board.rooks() | board.queens());
    let mut found = Vec::new();
    for slider in sliders {
        for front in board.attacks_from(slider) & theirs {
            // Look through the attacked piece along the same line.
            let behind = (attacks::ray(slider, front) & theirs)
                .into_iter()
                .filter(|&sq| sq != front && attacks::between(slider, sq).contains(front))
                .min_by_key(|&sq| attacks::between(front, sq).count());
            let Some(behind) = behind else { continue };
            let clear = (attacks::between(front, behind) & board.occupied()).is_empty();
            if let (true, Some(f), Some(b)) = (clear, board.role_at(front), board.role_at(behind)) {
                found.push((slider, f, b));
            }
        }
    }
    found
}

/// How many of `by`'s opponent pieces stand pinned by `by`'s sliders: to
/// the king, or to a piece worth more behind them on the same line.
pub fn pins(pos: &Chess, by: Color) -> usize {
    x_rays(pos, by)
        .into_iter()
        .filter(|&(_, f, b)| f != Role::King && (b == Role::King || value(b) > value(f)))
        .count()
}

/// Skewers by `by`: the front piece (the king, or one worth more) must move
/// and expose a piece behind it, and the skewering slider is not simply lost.
pub fn skewers(pos: &Chess, by: Color) -> usize {
    let board = pos.board();
    x_rays(pos, by)
        .into_iter()
        .filter(|&(slider, f, b)| {
            let valuable_front = f == Role::King || value(f) > value(b);
            valuable_front && b != Role::King && b != Role::Pawn && see(board, slider, !by) <= 0
        })
        .count()
}

/// The move creates a skewer and its piece is not simply lost.
pub fn skewer_after(pos: &Chess, m: Move) -> bool {
    let me = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    see(after.board(), m.to(), !me) == 0 && skewers(&after, me) > skewers(pos, me)
}

/// The move creates a pin and its piece is not simply lost.
pub fn pin_after(pos: &Chess, m: Move) -> bool {
    let me = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    see(after.board(), m.to(), !me) == 0 && pins(&after, me) > pins(pos, me)
}

/// Moving this piece out of the way lets one of our sliders attack the king
/// or a target worth attacking (worth more than the slider, or simply lost).
pub fn discovers(pos: &Chess, m: Move) -> bool {
    let Some(from) = m.from() else { return false };
    let me = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let (before, board) = (pos.board(), after.board());
    let sliders = board.by_color(me) & (board.bishops() | board.rooks() | board.queens());
    sliders.into_iter().filter(|&s| s != m.to()).any(|s| {
        let newly = board.attacks_from(s) & !before.attacks_from(s) & board.by_color(!me);
        newly.into_iter().any(|t| {
            attacks::between(s, t).contains(from)
                && board.role_at(t).is_some_and(|r| {
                    let slider = board.role_at(s).map_or(0, value);
                    r == Role::King || value(r) > slider || see(board, t, me) > 0
                })
        })
    })
}

/// The shortest mate takes two moves: none mates at once, and one move
/// leaves every reply open to mate (as Lichess tags mateIn2).
fn mate_in_two(pos: &Chess) -> bool {
    !mate_in_one(pos)
        && pos.legal_moves().into_iter().any(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let replies = after.legal_moves();
            !replies.is_empty()
                && replies.into_iter().all(|r| {
                    let mut next = after.clone();
                    next.play_unchecked(r);
                    mate_in_one(&next)
                })
        })
}

/// A capture the side to move can make that wins material outright.
fn wins_material(pos: &Chess) -> bool {
    let me = pos.turn();
    pos.legal_moves()
        .into_iter()
        .filter(|m| m.is_capture())
        .any(|m| see(pos.board(), m.to(), me) > 0)
}

#[cfg(test)]
mod tests {
    use super::super::test_position as pos;
    use super::*;

    #[test]
    fn detectors_fire_on_their_theme_only() {
        let mate = pos("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
        assert!(Theme::MateIn1.present(&mate));
        assert!(!Theme::MateIn1.present(&Chess::default()));
        // Black left the d5 knight en prise to the e4 pawn.
        let hanging = pos("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1");
        assert!(Theme::HangingPiece.present(&hanging));
        // Defended by a pawn: PxN, pxP still wins a knight for a pawn; a
        // defended pawn attacked by a knight does not hang.
        let defended_pawn = pos("4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1");
        assert!(!Theme::HangingPiece.present(&defended_pawn));
        // Nc7+ forks the king on e8 and the rook on a8.
        let fork = pos("r3k3/8/8/3N4/8/8/8/4K3 w - - 0 1");
        assert_eq!(forks(&fork).len(), 1);
        assert!(!Theme::Fork.present(&Chess::default()));
        // The bishop on b5 pins the c6 knight to the e8 king.
        let pinned = pos("4k3/8/2n5/1B6/8/8/8/4K3 b - - 0 1");
        assert_eq!(pins(&pinned, Color::White), 1);
        assert_eq!(pins(&Chess::default(), Color::White), 0);
        // Back-rank mate in two: Re8+ Rxe8, Rxe8#.
        let two = pos("3r2k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1");
        assert!(Theme::MateIn2.present(&two));
        // Moving the e4 knight uncovers the e1 rook on the e8 king.
        let discovered = pos("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1");
        assert!(Theme::DiscoveredAttack.present(&discovered));
        assert!(!Theme::DiscoveredAttack.present(&Chess::default()));
        let one = pos("3r2k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1");
        assert!(!Theme::MateIn2.present(&one), "a mate in one is not a mate in two");
        assert!(!Theme::MateIn2.present(&Chess::default()));
    }
}
