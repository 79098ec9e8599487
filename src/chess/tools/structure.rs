//! deep_analysis: what each of our pieces is doing. For every piece: what it
//! attacks and defends, who attacks and defends it, whether it hangs, how
//! mobile it is, and which of our pieces it is the sole defender of (moving
//! it would leave them hanging).

use serde::Serialize;
use shakmaty::{Board, Chess, Color, Position, Square};

use super::name;
use super::safety::see;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PieceRole {
    pub piece: &'static str,
    pub square: String,
    pub attacks: Vec<String>,
    pub defends: Vec<String>,
    pub attacked_by: usize,
    pub defended_by: usize,
    pub hangs: bool,
    /// Legal moves of this piece.
    pub mobility: usize,
    /// Our pieces that only this one defends while they are attacked.
    pub sole_defender_of: Vec<String>,
}

pub fn deep_analysis(pos: &Chess) -> Vec<PieceRole> {
    let me = pos.turn();
    let board = pos.board();
    let moves = pos.legal_moves();
    board
        .by_color(me)
        .into_iter()
        .filter_map(|sq| {
            let role = board.role_at(sq)?;
            let reach = board.attacks_from(sq);
            let squares = |bb: shakmaty::Bitboard| bb.into_iter().map(|s| s.to_string()).collect::<Vec<_>>();
            Some(PieceRole {
                piece: name(role),
                square: sq.to_string(),
                attacks: squares(reach & board.by_color(!me)),
                defends: squares(reach & board.by_color(me)),
                attacked_by: attackers(board, sq, !me).count(),
                defended_by: attackers(board, sq, me).count(),
                hangs: see(board, sq, !me) > 0,
                mobility: moves.iter().filter(|m| m.from() == Some(sq)).count(),
                sole_defender_of: squares(
                    (reach & board.by_color(me))
                        .into_iter()
                        .filter(|&t| attackers(board, t, !me).any() && attackers(board, t, me).count() == 1)
                        .collect(),
                ),
            })
        })
        .collect()
}

fn attackers(board: &Board, sq: Square, by: Color) -> shakmaty::Bitboard {
    board.attacks_to(sq, by, board.occupied()) & board.by_color(by)
}

impl PieceRole {
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{} {}: attacks [{}], defends [{}], attacked {}x, defended {}x, {} moves",
            self.piece,
            self.square,
            self.attacks.join(" "),
            self.defends.join(" "),
            self.attacked_by,
            self.defended_by,
            self.mobility
        );
        if self.hangs {
            text.push_str(", HANGS");
        }
        if !self.sole_defender_of.is_empty() {
            text.push_str(&format!(", SOLE DEFENDER of {}", self.sole_defender_of.join(" ")));
        }
        text
    }
}
