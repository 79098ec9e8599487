//! position_eval: the position in numbers, per side: material, mobility,
//! king safety, pawn structure, pins, skewers, batteries; and the forks on offer to
//! the side to move.

use serde::Serialize;
use shakmaty::{Bitboard, Board, Chess, Color, File, Position, Square, attacks};

use super::perception::{Material, material};
use super::themes::{forks, pins, skewers};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideEval {
    /// Legal moves if it were this side's turn.
    pub mobility: usize,
    /// Enemy attacks on the squares around the king.
    pub king_attacks: usize,
    /// Own pawns on the three squares in front of the king.
    pub pawn_shield: usize,
    pub doubled_pawns: usize,
    pub isolated_pawns: usize,
    pub passed_pawns: usize,
    /// Enemy pieces this side pins.
    pub pins: usize,
    /// Enemy pieces this side skewers (a valuable piece in front of another).
    pub skewers: usize,
    /// Pairs of own sliders lined up with nothing between.
    pub batteries: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionEval {
    pub material: Material,
    pub white: SideEval,
    pub black: SideEval,
    /// Forking moves for the side to move.
    pub forks_available: usize,
}

pub fn position_eval(pos: &Chess) -> PositionEval {
    PositionEval {
        material: material(pos),
        white: side(pos, Color::White),
        black: side(pos, Color::Black),
        forks_available: forks(pos).len(),
    }
}

fn side(pos: &Chess, color: Color) -> SideEval {
    let board = pos.board();
    let as_mover = if pos.turn() == color {
        Some(pos.clone())
    } else {
        pos.clone().swap_turn().ok()
    };
    let pawns = board.by_color(color) & board.pawns();
    let enemy_pawns = board.by_color(!color) & board.pawns();
    let king = board.king_of(color);
    SideEval {
        mobility: as_mover.map_or(0, |p| p.legal_moves().len()),
        king_attacks: king.map_or(0, |k| {
            attacks::king_attacks(k)
                .into_iter()
                .map(|sq| (board.attacks_to(sq, !color, board.occupied()) & board.by_color(!color)).count())
                .sum()
        }),
        pawn_shield: king.map_or(0, |k| (shield(k, color) & pawns).count()),
        doubled_pawns: File::ALL
            .iter()
            .map(|&f| (pawns & Bitboard::from_file(f)).count().saturating_sub(1))
            .sum(),
        isolated_pawns: pawns
            .into_iter()
            .filter(|sq| (pawns & neighbour_files(sq.file())).is_empty())
            .count(),
        passed_pawns: pawns
            .into_iter()
            .filter(|&sq| (enemy_pawns & front_span(sq, color)).is_empty())
            .count(),
        pins: pins(pos, color),
        skewers: skewers(pos, color),
        batteries: batteries(board, color),
    }
}

/// The three squares in front of the king.
fn shield(king: Square, color: Color) -> Bitboard {
    let ahead = if color.is_white() {
        king.rank().offset(1)
    } else {
        king.rank().offset(-1)
    };
    let Some(rank) = ahead else { return Bitboard::EMPTY };
    attacks::king_attacks(king) & Bitboard::from_rank(rank)
}

fn neighbour_files(file: File) -> Bitboard {
    [file.offset(-1), file.offset(1)]
        .into_iter()
        .flatten()
        .fold(Bitboard::EMPTY, |bb, f| bb | Bitboard::from_file(f))
}

/// Squares ahead of a pawn on its own and neighbouring files.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = neighbour_files(sq.file()) | Bitboard::from_file(sq.file());
    let ahead = Square::ALL.into_iter().filter(|s| {
        if color.is_white() {
            s.rank() > sq.rank()
        } else {
            s.rank() < sq.rank()
        }
    });
    ahead.fold(Bitboard::EMPTY, |bb, s| bb | Bitboard::from(s)) & files
}

fn batteries(board: &Board, color: Color) -> usize {
    let mine = board.by_color(color);
    let straight = mine & (board.rooks() | board.queens());
    let diagonal = mine & (board.bishops() | board.queens());
    let lined = |group: Bitboard, same_line: fn(Square, Square) -> bool| -> usize {
        let squares: Vec<Square> = group.into_iter().collect();
        let mut n = 0;
        for (i, &a) in squares.iter().enumerate() {
            for &b in &squares[i + 1..] {
                if same_line(a, b) && (attacks::between(a, b) & board.occupied()).is_empty() {
                    n += 1;
                }
            }
        }
        n
    };
    lined(straight, |a, b| a.file() == b.file() || a.rank() == b.rank())
        + lined(diagonal, |a, b| {
            let (df, dr) = (a.file() as i32 - b.file() as i32, a.rank() as i32 - b.rank() as i32);
            df.abs() == dr.abs()
        })
}

impl PositionEval {
    pub fn to_text(&self) -> String {
        let side = |name: &str, s: &SideEval| {
            format!(
                "{name}: mobility {}, king attacked {}x, pawn shield {}, pawns doubled {} isolated {} passed {}, pins {}, skewers {}, batteries {}",
                s.mobility,
                s.king_attacks,
                s.pawn_shield,
                s.doubled_pawns,
                s.isolated_pawns,
                s.passed_pawns,
                s.pins,
                s.skewers,
                s.batteries
            )
        };
        format!(
            "{}\n{}\n{}\nforks available to the side to move: {}",
            self.material.to_text(),
            side("White", &self.white),
            side("Black", &self.black),
            self.forks_available
        )
    }
}
