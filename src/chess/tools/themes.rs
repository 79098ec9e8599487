//! Which tactical themes a position offers the side to move, as Lichess tags
//! its puzzles. Used to check the tools against puzzles nobody on the team
//! wrote (`kibitz bench tools`). Detectors exist for mate in one and a
//! hanging piece so far; the others come with find_threats and deep_threats.

use shakmaty::{Chess, Position};

use super::safety::see;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    MateIn1,
    HangingPiece,
}

impl Theme {
    pub const DETECTED: [Theme; 2] = [Theme::MateIn1, Theme::HangingPiece];

    /// Lichess's tag for the theme.
    pub fn tag(self) -> &'static str {
        match self {
            Theme::MateIn1 => "mateIn1",
            Theme::HangingPiece => "hangingPiece",
        }
    }

    pub fn present(self, pos: &Chess) -> bool {
        match self {
            Theme::MateIn1 => mate_in_one(pos),
            Theme::HangingPiece => wins_material(pos),
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
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

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
    }
}
