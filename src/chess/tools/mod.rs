//! Board tools: deterministic answers a brain asks for instead of
//! guessing. Every tool is reached through one call, `analyze_board {action,
//! ...}`, as an LLM would make it; results are typed and also render as
//! compact text for prompts. This first set covers perception (legal_moves,
//! captures, score), move safety (eval), projection (project), the
//! opponent's last move (classify_last_move, which needs the game), our
//! tactics (find_threats, and two-move ones: deep_threats), theirs with our
//! answers (prophylaxis), candidates side by side (compare), and what each
//! piece is doing (deep_analysis), and the position in numbers (position_eval).

mod compare;
mod last_move;
mod perception;
mod position;
mod purpose;
mod safety;
mod structure;
pub mod themes;
mod threats;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position, Role};

pub use compare::Candidate;
pub use last_move::{Attacked, LastMove};
pub use perception::{Capture, LegalMoves, Material, PieceMoves};
pub use position::{PositionEval, SideEval};
pub use purpose::{Purpose, purposes};
pub use safety::{MoveSafety, see};
#[cfg(test)]
use shakmaty::{Color, Square};
pub use structure::PieceRole;
pub use threats::{Combination, Defence, MAX_THREATS, Prophylaxis, Threat};

use super::{Game, notation};

/// One `analyze_board` call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolCall {
    LegalMoves,
    Captures,
    Score,
    /// Safety of each candidate move (UCI or SAN).
    Eval {
        moves: Vec<String>,
    },
    /// Play up to six moves (both sides, in order) and describe the result.
    Project {
        moves: Vec<String>,
    },
    /// The opponent's last move: its kind, what it attacks, what it threatens.
    ClassifyLastMove,
    /// Our moves that create tactics, best first.
    FindThreats,
    /// The opponent's threats and our best answers.
    Prophylaxis,
    /// Candidate moves side by side.
    Compare {
        moves: Vec<String>,
    },
    /// Setup move + follow-up tactic.
    DeepThreats,
    /// What each of our pieces attacks and defends; sole defenders.
    DeepAnalysis,
    /// King safety, mobility, pawn structure, pins, batteries, forks.
    PositionEval,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", content = "result", rename_all = "snake_case")]
pub enum ToolResult {
    LegalMoves(LegalMoves),
    Captures(Vec<Capture>),
    Score(Material),
    Eval(Vec<MoveSafety>),
    Project(Projection),
    ClassifyLastMove(LastMove),
    FindThreats(Vec<Threat>),
    Prophylaxis(Prophylaxis),
    Compare(Vec<Candidate>),
    DeepThreats(Vec<Combination>),
    DeepAnalysis(Vec<PieceRole>),
    PositionEval(PositionEval),
}

/// Where a line of moves leads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// The moves as played, in SAN.
    pub line: Vec<String>,
    pub fen: String,
    pub material: Material,
    pub check: bool,
    pub checkmate: bool,
    pub stalemate: bool,
}

/// The longest line `project` plays: beyond six plies a forced line says
/// little a brain can use, and the text grows.
pub const MAX_PROJECTION: usize = 6;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToolError {
    #[error("'{0}' is not a legal move here")]
    BadMove(String),
    #[error("give at least one move to evaluate")]
    NoMoves,
    #[error("project plays at most {MAX_PROJECTION} moves")]
    TooLong,
    #[error("no move has been played yet")]
    NoLastMove,
}

/// Runs one tool on a game: the position now, and the move that led to it.
pub fn analyze_game(game: &Game, call: &ToolCall) -> Result<ToolResult, ToolError> {
    let ToolCall::ClassifyLastMove = call else {
        return analyze_board(game.position(), call);
    };
    let (last, earlier) = game.moves().split_last().ok_or(ToolError::NoLastMove)?;
    let ucis: Vec<String> = earlier.iter().map(|m| m.uci.clone()).collect();
    let before = Game::replay(game.start_fen(), &ucis).map_err(|_| ToolError::NoLastMove)?;
    let m = parse_move(before.position(), &last.uci)?;
    let classified = last_move::classify(before.position(), m, game.position());
    Ok(ToolResult::ClassifyLastMove(classified))
}

/// Runs one tool on `pos` (classify_last_move needs `analyze_game`).
pub fn analyze_board(pos: &Chess, call: &ToolCall) -> Result<ToolResult, ToolError> {
    Ok(match call {
        ToolCall::ClassifyLastMove => return Err(ToolError::NoLastMove),
        ToolCall::FindThreats => ToolResult::FindThreats(threats::find_threats(pos)),
        ToolCall::Prophylaxis => ToolResult::Prophylaxis(threats::prophylaxis(pos)),
        ToolCall::DeepThreats => ToolResult::DeepThreats(threats::deep_threats(pos)),
        ToolCall::DeepAnalysis => ToolResult::DeepAnalysis(structure::deep_analysis(pos)),
        ToolCall::PositionEval => ToolResult::PositionEval(position::position_eval(pos)),
        ToolCall::Compare { moves } if moves.is_empty() => return Err(ToolError::NoMoves),
        ToolCall::Compare { moves } => {
            let moves = moves
                .iter()
                .map(|m| parse_move(pos, m))
                .collect::<Result<Vec<_>, _>>()?;
            ToolResult::Compare(compare::compare(pos, &moves))
        }
        ToolCall::LegalMoves => ToolResult::LegalMoves(perception::legal_moves(pos)),
        ToolCall::Captures => ToolResult::Captures(perception::captures(pos)),
        ToolCall::Score => ToolResult::Score(perception::material(pos)),
        ToolCall::Eval { moves } if moves.is_empty() => return Err(ToolError::NoMoves),
        ToolCall::Eval { moves } => ToolResult::Eval(
            moves
                .iter()
                .map(|m| parse_move(pos, m).map(|mv| safety::eval(pos, mv)))
                .collect::<Result<_, _>>()?,
        ),
        ToolCall::Project { moves } => ToolResult::Project(project(pos, moves)?),
    })
}

fn project(pos: &Chess, moves: &[String]) -> Result<Projection, ToolError> {
    if moves.is_empty() {
        return Err(ToolError::NoMoves);
    }
    if moves.len() > MAX_PROJECTION {
        return Err(ToolError::TooLong);
    }
    let mut at = pos.clone();
    let mut line = Vec::new();
    for text in moves {
        let m = parse_move(&at, text)?;
        line.push(san(&at, m));
        at.play_unchecked(m);
    }
    Ok(Projection {
        line,
        fen: shakmaty::fen::Fen::from_position(&at, shakmaty::EnPassantMode::Legal).to_string(),
        material: perception::material(&at),
        check: at.is_check(),
        checkmate: at.is_checkmate(),
        stalemate: at.is_stalemate(),
    })
}

impl ToolResult {
    /// Compact text for a prompt: one fact a line.
    pub fn to_text(&self) -> String {
        match self {
            ToolResult::LegalMoves(l) => l.to_text(),
            ToolResult::Captures(c) if c.is_empty() => "no captures".into(),
            ToolResult::Captures(c) => c.iter().map(Capture::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Score(m) => m.to_text(),
            ToolResult::Eval(e) => e.iter().map(MoveSafety::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Project(p) => {
                let state = match (p.checkmate, p.stalemate, p.check) {
                    (true, _, _) => "checkmate",
                    (_, true, _) => "stalemate",
                    (_, _, true) => "check",
                    _ => "play on",
                };
                format!(
                    "after {}: {state}; {}; FEN {}",
                    p.line.join(" "),
                    p.material.to_text(),
                    p.fen
                )
            }
            ToolResult::ClassifyLastMove(l) => l.to_text(),
            ToolResult::FindThreats(t) if t.is_empty() => "no tactical threats".into(),
            ToolResult::FindThreats(t) => t.iter().map(Threat::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Prophylaxis(p) => p.to_text(),
            ToolResult::Compare(c) => compare::table(c),
            ToolResult::DeepThreats(c) if c.is_empty() => "no two-move combinations".into(),
            ToolResult::DeepThreats(c) => c.iter().map(Combination::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::DeepAnalysis(p) => p.iter().map(PieceRole::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::PositionEval(e) => e.to_text(),
        }
    }
}

/// A move in UCI or SAN, checked for legality.
fn parse_move(pos: &Chess, text: &str) -> Result<Move, ToolError> {
    notation::parse_move(pos, text).map_err(|_| ToolError::BadMove(text.chars().take(12).collect()))
}

fn san(pos: &Chess, m: Move) -> String {
    shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string()
}

fn uci(m: Move) -> String {
    notation::uci(m)
}

/// Material values, the classic ones: P=1, N=3, B=3, R=5, Q=9.
pub fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        // Never traded: capturing into a defended square with the king is illegal.
        Role::King => 100,
    }
}

fn name(role: Role) -> &'static str {
    notation::role_name(role)
}

/// A position from a FEN, for tests.
#[cfg(test)]
pub(crate) fn test_position(fen: &str) -> Chess {
    use shakmaty::fen::Fen;
    fen.parse::<Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap()
}

#[cfg(test)]
mod tests;
