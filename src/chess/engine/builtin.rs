//! A small alpha-beta searcher, used when Stockfish is absent or fails.
//! Strength comes from depth and from how far below the best move it may
//! wander (a margin that grows as the persona's Elo falls).

use async_trait::async_trait;
use rand::Rng;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};

use super::style::style_bonus;
use super::{BestLine, Chosen, Engine, EngineError, Score, SearchRequest, Style};

const MATE: i32 = 100_000;

pub struct BuiltinEngine;

#[async_trait]
impl Engine for BuiltinEngine {
    fn name(&self) -> String {
        "kibitz built-in".into()
    }

    /// Unscored: its root scores carry the style's bonus, not the position's worth.
    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError> {
        let req = req.clone();
        tokio::task::spawn_blocking(move || choose(&req).map(Chosen::unscored))
            .await
            .map_err(|e| EngineError::Process(e.to_string()))?
    }

    /// A depth-2 search: the node budget is Stockfish's notion; this engine
    /// is only the fallback, so a shallow, predictable score is enough.
    async fn evaluate(&self, fen: &str, _nodes: u64) -> Result<Score, EngineError> {
        let pos = position(fen)?;
        tokio::task::spawn_blocking(move || Ok(to_score(negamax(&pos, 2, -MATE, MATE))))
            .await
            .map_err(|e| EngineError::Process(e.to_string()))?
    }

    /// Every legal move searched two plies deeper, without a style.
    async fn best_line(&self, fen: &str, _nodes: u64) -> Result<BestLine, EngineError> {
        let pos = position(fen)?;
        tokio::task::spawn_blocking(move || {
            let (best, score) = pos
                .legal_moves()
                .into_iter()
                .map(|m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    (m, -negamax(&after, 2, -MATE, MATE))
                })
                .max_by_key(|(_, s)| *s)
                .ok_or(EngineError::NoMove)?;
            Ok(BestLine {
                uci: UciMove::from_move(best, CastlingMode::Standard).to_string(),
                score: to_score(score),
            })
        })
        .await
        .map_err(|e| EngineError::Process(e.to_string()))?
    }
}

/// A search's centipawns as an engine reports them; near the mate bound, a mate.
fn to_score(s: i32) -> Score {
    let near_mate = MATE - 1000;
    if s >= near_mate {
        Score::Mate(1)
    } else if s <= -near_mate {
        Score::Mate(-1)
    } else {
        Score::Cp(s)
    }
}

fn position(fen: &str) -> Result<Chess, EngineError> {
    let fen: Fen = fen
        .parse()
        .map_err(|e| EngineError::Protocol(format!("bad FEN: {e}")))?;
    fen.into_position(CastlingMode::Standard)
        .map_err(|e| EngineError::Protocol(format!("bad position: {e}")))
}

fn choose(req: &SearchRequest) -> Result<String, EngineError> {
    let pos = position(&req.fen)?;
    let depth = match req.elo {
        0..=999 => 1,
        1000..=1799 => 2,
        _ => 3,
    };
    let scored = score_root_moves(&pos, depth, req.style);
    let best = scored.iter().map(|(_, s)| *s).max().ok_or(EngineError::NoMove)?;
    // Weaker personas accept moves further below the best one.
    let margin = (2200_i32 - req.elo as i32).clamp(0, 1600) / 8;
    let near: Vec<&Move> = scored
        .iter()
        .filter(|(_, s)| *s >= best - margin)
        .map(|(m, _)| m)
        .collect();
    let pick = near[rand::thread_rng().gen_range(0..near.len())];
    Ok(UciMove::from_move(*pick, CastlingMode::Standard).to_string())
}

fn score_root_moves(pos: &Chess, depth: u32, style: Style) -> Vec<(Move, i32)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = -negamax(&next, depth - 1, -MATE, MATE) + style_bonus(style, &m, &next);
            (m, score)
        })
        .collect()
}

fn negamax(pos: &Chess, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if depth == 0 {
        return quiesce(pos, alpha, beta, 4);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if pos.is_check() { -MATE } else { 0 };
    }
    for m in moves {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let score = -negamax(&next, depth - 1, -beta, -alpha);
        if score >= beta {
            return beta;
        }
        alpha = alpha.max(score);
    }
    alpha
}

/// Captures only, so a search does not stop in the middle of an exchange.
fn quiesce(pos: &Chess, mut alpha: i32, beta: i32, left: u32) -> i32 {
    let stand = evaluate(pos);
    if stand >= beta || left == 0 {
        return stand.min(beta);
    }
    alpha = alpha.max(stand);
    for m in pos.capture_moves() {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let score = -quiesce(&next, -beta, -alpha, left - 1);
        if score >= beta {
            return beta;
        }
        alpha = alpha.max(score);
    }
    alpha
}

/// Material plus a little centralisation, from the side to move.
fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut white = 0;
    for (sq, piece) in board.iter() {
        let value = piece_value(piece.role) + centre_bonus(piece.role, sq);
        white += if piece.color == Color::White { value } else { -value };
    }
    if pos.turn() == Color::White { white } else { -white }
}

fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 310,
        Role::Bishop => 320,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

fn centre_bonus(role: Role, sq: Square) -> i32 {
    if role == Role::King {
        return 0;
    }
    let file = u32::from(sq.file()) as i32;
    let rank = u32::from(sq.rank()) as i32;
    let distance = (2 * file - 7).abs() + (2 * rank - 7).abs();
    (14 - distance) * if role == Role::Pawn { 1 } else { 2 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::engine::SearchBudget;

    fn req(fen: &str, elo: u32) -> SearchRequest {
        SearchRequest {
            fen: fen.into(),
            elo,
            style: Style::Positional,
            budget: SearchBudget::Millis(100),
        }
    }

    #[test]
    fn takes_a_free_queen() {
        let fen = "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1";
        assert_eq!(choose(&req(fen, 2200)).unwrap(), "e4d5");
    }

    #[test]
    fn finds_mate_in_one() {
        let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
        assert_eq!(choose(&req(fen, 2200)).unwrap(), "d1d8");
    }

    #[test]
    fn no_move_when_mated() {
        let fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert!(matches!(choose(&req(fen, 1500)), Err(EngineError::NoMove)));
    }
}
