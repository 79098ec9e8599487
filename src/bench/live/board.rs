//! The board as a `bench live` player sees it: rebuilt from the match's
//! events, with a move picker that keeps games going (the move that loses
//! the least material to the best reply).

use kibitz::events::{EventBody, MatchEvent};
use rand::Rng;
use rand::rngs::StdRng;
use serde::Deserialize;
use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// A WebSocket frame as a client reads it: a numbered match event (typed),
/// the match's state (its FEN), or something else (an error frame).
pub(super) enum Frame {
    Event(MatchEvent),
    State(Option<String>),
    Other,
}

impl Frame {
    pub(super) fn read(text: &str) -> anyhow::Result<Frame> {
        let frame: Value = serde_json::from_str(text)?;
        Ok(match (frame.get("seq"), frame["type"].as_str()) {
            (Some(_), _) => Frame::Event(MatchEvent::deserialize(&frame)?),
            (None, Some("state")) => Frame::State(frame["data"]["fen"].as_str().map(str::to_string)),
            _ => Frame::Other,
        })
    }
}

/// The board as the match's events tell it, to pick legal moves.
#[derive(Default)]
pub(super) struct Game {
    pos: Chess,
    pub(super) over: bool,
}

impl Game {
    pub(super) fn observe(&mut self, frame: &Frame) {
        let fen = match frame {
            Frame::State(fen) => fen.as_deref(),
            Frame::Event(e) => match &e.body {
                EventBody::Move(m) => Some(m.fen.as_str()),
                EventBody::GameOver(_) => {
                    self.over = true;
                    None
                }
                _ => None,
            },
            Frame::Other => None,
        };
        if let Some(pos) = fen
            .and_then(|f| f.parse::<Fen>().ok())
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        {
            self.pos = pos;
        }
    }

    /// A move (UCI) if it is White's (the user's) turn: a random one among
    /// those that lose the least material to the best reply, so games last
    /// like a club player's rather than ending in a dozen random moves.
    pub(super) fn pick(&self, rng: &mut StdRng) -> Option<String> {
        if self.over || self.pos.turn() != shakmaty::Color::White {
            return None;
        }
        let scored: Vec<(shakmaty::Move, i32)> = self
            .pos
            .legal_moves()
            .into_iter()
            .map(|m| (m, after_best_reply(&self.pos, m)))
            .collect();
        let best = scored.iter().map(|(_, s)| *s).max()?;
        let candidates: Vec<_> = scored.iter().filter(|(_, s)| *s == best).collect();
        Some(kibitz::chess::notation::uci(
            candidates[rng.gen_range(0..candidates.len())].0,
        ))
    }
}

/// White's material after `m` and Black's most damaging answer (mate counts as a lot).
fn after_best_reply(pos: &Chess, m: shakmaty::Move) -> i32 {
    const MATE: i32 = 1000;
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_checkmate() {
        return MATE;
    }
    let replies = after.legal_moves();
    if replies.is_empty() {
        return material(&after);
    }
    replies
        .into_iter()
        .map(|r| {
            let mut next = after.clone();
            next.play_unchecked(r);
            if next.is_checkmate() { -MATE } else { material(&next) }
        })
        .min()
        .unwrap_or(0)
}

/// White's material minus Black's, in pawns.
fn material(pos: &Chess) -> i32 {
    let board = pos.board();
    let value = |color| -> i32 {
        use shakmaty::Role::*;
        [(Pawn, 1), (Knight, 3), (Bishop, 3), (Rook, 5), (Queen, 9)]
            .iter()
            .map(|(role, v)| v * (board.by_color(color) & board.by_role(*role)).count() as i32)
            .sum()
    };
    value(shakmaty::Color::White) - value(shakmaty::Color::Black)
}
