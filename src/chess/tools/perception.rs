//! What is on the board: every legal move by piece (both sides), the
//! captures on offer, and the material count.

use serde::Serialize;
use shakmaty::{Chess, Color, Position};

use super::{name, san, uci, value};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PieceMoves {
    pub piece: &'static str,
    pub square: String,
    /// SAN.
    pub moves: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegalMoves {
    pub to_move: Vec<PieceMoves>,
    /// The other side's moves if it were its turn (empty when the side to
    /// move is in check: a null move would leave its king en prise).
    pub opponent: Vec<PieceMoves>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capture {
    pub san: String,
    pub uci: String,
    pub piece: &'static str,
    pub captured: &'static str,
    pub square: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Material {
    pub white: i32,
    pub black: i32,
    /// White minus Black.
    pub balance: i32,
}

pub fn legal_moves(pos: &Chess) -> LegalMoves {
    let opponent = pos.clone().swap_turn().map(|p| by_piece(&p)).unwrap_or_default();
    LegalMoves {
        to_move: by_piece(pos),
        opponent,
    }
}

fn by_piece(pos: &Chess) -> Vec<PieceMoves> {
    let mut groups: Vec<PieceMoves> = Vec::new();
    for m in pos.legal_moves() {
        let square = m.from().map(|s| s.to_string()).unwrap_or_default();
        let entry = match groups.iter_mut().position(|g| g.square == square) {
            Some(i) => &mut groups[i],
            None => {
                groups.push(PieceMoves {
                    piece: name(m.role()),
                    square,
                    moves: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        entry.moves.push(san(pos, m));
    }
    groups
}

pub fn captures(pos: &Chess) -> Vec<Capture> {
    pos.legal_moves()
        .into_iter()
        .filter_map(|m| {
            Some(Capture {
                san: san(pos, m),
                uci: uci(m),
                piece: name(m.role()),
                captured: name(m.capture()?),
                square: m.to().to_string(),
            })
        })
        .collect()
}

pub fn material(pos: &Chess) -> Material {
    let board = pos.board();
    let count = |color: Color| -> i32 {
        board
            .by_color(color)
            .into_iter()
            .filter_map(|sq| board.role_at(sq))
            .filter(|r| *r != shakmaty::Role::King)
            .map(value)
            .sum()
    };
    let (white, black) = (count(Color::White), count(Color::Black));
    Material {
        white,
        black,
        balance: white - black,
    }
}

impl LegalMoves {
    pub fn to_text(&self) -> String {
        let side = |groups: &[PieceMoves]| -> String {
            groups
                .iter()
                .map(|g| format!("{} {}: {}", g.piece, g.square, g.moves.join(" ")))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!("to move:\n{}\nopponent:\n{}", side(&self.to_move), side(&self.opponent))
    }
}

impl Capture {
    pub fn to_text(&self) -> String {
        format!(
            "{} ({} takes {} on {})",
            self.san, self.piece, self.captured, self.square
        )
    }
}

impl Material {
    pub fn to_text(&self) -> String {
        format!(
            "material: White {}, Black {} (balance {:+})",
            self.white, self.black, self.balance
        )
    }
}
