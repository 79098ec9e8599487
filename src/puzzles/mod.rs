//! Your mistakes come back as puzzles: after a game, each of the player's
//! mistakes and blunders whose better move the engine finds (legal, and
//! clearly better than what was played) becomes a position to solve later,
//! kept for that player and persona with where it came from. A puzzle
//! solved twice retires; one failed comes back. This module knows the
//! chess and the rules of a puzzle's life; the store keeps the rows and the
//! runtime offers them.

pub mod rows;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::chess::engine::{Engine, EngineError};
use crate::chess::odds::{MoveClass, MoveOdds, win_pct};
use crate::chess::{Game, GameEnd};

pub use rows::{PuzzleId, PuzzleRow, PuzzleStatus};

/// How many win% points the better move must keep above the move played,
/// for the mover: below this the "mistake" is a matter of taste.
pub const CLEARLY_BETTER: f64 = 10.0;
/// At most this many puzzles from one game, the costliest first.
pub const MOST_PER_GAME: usize = 3;
/// Solved this many times, a puzzle retires.
pub const SOLVED_TO_RETIRE: i64 = 2;

/// A mistake of the player's with the move they should have found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Found {
    /// The ply of the move played (1: the game's first move).
    pub ply: usize,
    /// The position before it, the solver to move.
    pub fen: String,
    pub played_san: String,
    pub class: MoveClass,
    pub solution_uci: String,
    pub solution_san: String,
    /// Win% points the solution keeps above the move played, for the mover.
    pub gain: f64,
}

/// The player's mistakes and blunders in `game` (as `odds` classed them,
/// the deeper evaluation's where it revised them), each searched for its
/// better move at `nodes`; those whose better move is clearly better.
pub async fn find(
    engine: &dyn Engine,
    nodes: u64,
    game: &Game,
    odds: &[Option<MoveOdds>],
    player: Color,
) -> Result<Vec<Found>, EngineError> {
    let mut found = Vec::new();
    for (i, m) in game.moves().iter().enumerate() {
        let Some(o) = odds.get(i).copied().flatten() else {
            continue;
        };
        if m.mover != player || !matches!(o.class, MoveClass::Mistake | MoveClass::Blunder) {
            continue;
        }
        let before = fen_before(game, i);
        let best = engine.best_line(&before, nodes).await?;
        if best.uci == m.uci {
            continue;
        }
        // The best line's score is the mover's; the move played kept this.
        let kept = if player == Color::White {
            o.white
        } else {
            100.0 - o.white
        };
        let gain = win_pct(&best.score) - kept;
        let Some(solution_san) = san_of(&before, &best.uci) else {
            continue;
        };
        if gain >= CLEARLY_BETTER {
            found.push(Found {
                ply: i + 1,
                fen: before,
                played_san: m.san.clone(),
                class: o.class,
                solution_uci: best.uci,
                solution_san,
                gain: (gain * 10.0).round() / 10.0,
            });
        }
    }
    found.sort_by(|a, b| b.gain.total_cmp(&a.gain));
    found.truncate(MOST_PER_GAME);
    found.sort_by_key(|f| f.ply);
    Ok(found)
}

/// The position move `i` was played in.
fn fen_before(game: &Game, i: usize) -> String {
    match i {
        0 => game.start_fen().to_string(),
        _ => game.moves()[i - 1].fen_after.clone(),
    }
}

/// A legal move's SAN in `fen`; None if it is not legal there.
fn san_of(fen: &str, uci: &str) -> Option<String> {
    let mut game = Game::new(Some(fen)).ok()?;
    let m = game.parse(uci).ok()?;
    Some(game.play(m).san)
}

/// What an answer to a puzzle was.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Verdict {
    pub correct: bool,
    /// The answer as SAN (it was legal).
    pub answered_san: String,
    pub solution_san: String,
    /// What the puzzle is now: `open` (comes back), `retired` (solved twice).
    pub status: PuzzleStatus,
}

#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("'{0}' is not a legal move in the puzzle's position")]
    Illegal(String),
    #[error("the puzzle's position does not read: {0}")]
    Position(String),
}

#[derive(Debug, thiserror::Error)]
pub enum PuzzleError {
    #[error("no such puzzle")]
    NotFound,
    #[error(transparent)]
    Answer(#[from] AnswerError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Judges an answer to a kept puzzle and records it; the verdict says the
/// solution, and what the puzzle now is.
pub async fn answer(db: &crate::store::Db, id: PuzzleId, answer: &str) -> Result<(Verdict, PuzzleRow), PuzzleError> {
    let puzzle = db.puzzle(id).await?.ok_or(PuzzleError::NotFound)?;
    let (correct, answered_san) = judge(&puzzle, answer)?;
    let now = db.answer_puzzle(id, correct).await?.ok_or(PuzzleError::NotFound)?;
    let verdict = Verdict {
        correct,
        answered_san,
        solution_san: puzzle.solution_san.clone(),
        status: now.status,
    };
    Ok((verdict, now))
}

/// Judges `answer` (SAN or UCI): the solution, or any move that mates at
/// once, is right.
pub fn judge(puzzle: &PuzzleRow, answer: &str) -> Result<(bool, String), AnswerError> {
    let mut game = Game::new(Some(&puzzle.fen)).map_err(|e| AnswerError::Position(e.to_string()))?;
    let m = game
        .parse(answer.trim())
        .map_err(|_| AnswerError::Illegal(answer.chars().take(16).collect()))?;
    let played = game.play(m);
    let mates = matches!(game.end(), Some(GameEnd::Checkmate { .. }));
    Ok((played.uci == puzzle.solution_uci || mates, played.san))
}

#[cfg(test)]
mod tests;
