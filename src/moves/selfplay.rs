//! Brain against brain, no server: one game (`play_game`) and the figures
//! over many (`Tally`): results, length, per-move latency, tokens, illegal
//! proposals and engine fallbacks per side, serialisable as JSON.

use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::Color;

use super::{Driven, MoveBrain, decide_move};
use crate::chess::{Game, GameEnd};
use crate::llm::Usage;

/// How one game went, from the point of view of its two seats.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub result: &'static str,
    pub termination: &'static str,
    pub plies: usize,
    pub pgn_moves: Vec<String>,
    pub sides: [SideRecord; 2],
}

#[derive(Debug, Clone, Default)]
pub struct SideRecord {
    pub latencies: Vec<Duration>,
    pub usage: Usage,
    pub illegal: u32,
    pub fallbacks: u32,
    pub resigned: bool,
}

/// Plays until the game ends or `max_plies`, which is adjudicated a draw.
pub async fn play_game(white: &mut dyn MoveBrain, black: &mut dyn MoveBrain, max_plies: usize) -> GameRecord {
    let mut game = Game::new(None).expect("the standard start is a valid position");
    let mut sides = [SideRecord::default(), SideRecord::default()];
    let mut adjudicated = false;
    while game.end().is_none() {
        if game.moves().len() >= max_plies {
            adjudicated = true;
            break;
        }
        let mover = game.turn();
        let seat = usize::from(mover == Color::Black);
        let brain: &mut dyn MoveBrain = if seat == 0 { &mut *white } else { &mut *black };
        let started = Instant::now();
        let driven = decide_move(brain, &game).await;
        let side = &mut sides[seat];
        side.latencies.push(started.elapsed());
        match driven {
            Driven::Move { mv, report, .. } => {
                side.usage += report.usage;
                side.illegal += report.illegal;
                side.fallbacks += u32::from(report.fallback);
                game.play(mv);
            }
            Driven::Resign { usage, .. } => {
                side.usage += usage;
                side.resigned = true;
                game.finish(GameEnd::Resignation { winner: !mover });
            }
        }
    }
    let (result, termination) = match game.end() {
        Some(end) => (end.result(), end.termination()),
        None if adjudicated => ("1/2-1/2", "adjudicated"),
        None => ("*", "unfinished"),
    };
    GameRecord {
        result,
        termination,
        plies: game.moves().len(),
        pgn_moves: game.moves().iter().map(|m| m.san.clone()).collect(),
        sides,
    }
}

/// Figures over many games between the same two seats.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub white: String,
    pub black: String,
    pub games: usize,
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    pub average_plies: f64,
    pub terminations: std::collections::BTreeMap<String, usize>,
    pub white_side: SideFigures,
    pub black_side: SideFigures,
    #[serde(skip)]
    plies: usize,
    #[serde(skip)]
    latencies: [Vec<Duration>; 2],
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SideFigures {
    pub moves: usize,
    pub latency_p50_ms: f64,
    pub latency_p99_ms: f64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Illegal proposals per move made.
    pub illegal_rate: f64,
    /// Moves the engine made for a failed LLM brain, per move made.
    pub fallback_rate: f64,
    pub resignations: usize,
    #[serde(skip)]
    illegal: u64,
    #[serde(skip)]
    fallbacks: u64,
}

impl Tally {
    pub fn new(white: String, black: String) -> Self {
        Tally {
            white,
            black,
            ..Tally::default()
        }
    }

    pub fn add(&mut self, g: &GameRecord) {
        self.games += 1;
        match g.result {
            "1-0" => self.white_wins += 1,
            "0-1" => self.black_wins += 1,
            _ => self.draws += 1,
        }
        *self.terminations.entry(g.termination.to_string()).or_default() += 1;
        self.plies += g.plies;
        self.average_plies = self.plies as f64 / self.games as f64;
        for (i, side) in g.sides.iter().enumerate() {
            self.latencies[i].extend(&side.latencies);
            let figures = if i == 0 {
                &mut self.white_side
            } else {
                &mut self.black_side
            };
            figures.add(side, &self.latencies[i]);
        }
    }

    /// White's score: wins plus half the draws, per game.
    pub fn white_score(&self) -> f64 {
        (self.white_wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

impl SideFigures {
    fn add(&mut self, side: &SideRecord, all_latencies: &[Duration]) {
        self.moves += side.latencies.len();
        self.prompt_tokens += side.usage.prompt_tokens;
        self.completion_tokens += side.usage.completion_tokens;
        self.illegal += u64::from(side.illegal);
        self.fallbacks += u64::from(side.fallbacks);
        self.resignations += usize::from(side.resigned);
        let per_move = |n: u64| n as f64 / self.moves.max(1) as f64;
        self.illegal_rate = per_move(self.illegal);
        self.fallback_rate = per_move(self.fallbacks);
        let mut sorted: Vec<Duration> = all_latencies.to_vec();
        sorted.sort();
        self.latency_p50_ms = percentile_ms(&sorted, 0.50);
        self.latency_p99_ms = percentile_ms(&sorted, 0.99);
    }
}

fn percentile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::RandomBrain;

    #[tokio::test]
    async fn random_games_end_legally_and_tally_adds_up() {
        let mut tally = Tally::new("random".into(), "random".into());
        for _ in 0..3 {
            let g = play_game(&mut RandomBrain, &mut RandomBrain, 60).await;
            assert!(g.plies <= 60);
            assert_eq!(g.sides[0].latencies.len() + g.sides[1].latencies.len(), g.plies);
            let replay = Game::replay("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &g.pgn_moves);
            assert!(replay.is_ok(), "every move was legal");
            tally.add(&g);
        }
        assert_eq!(tally.games, 3);
        assert_eq!(tally.white_wins + tally.black_wins + tally.draws, 3);
        assert_eq!(tally.white_side.moves + tally.black_side.moves, tally.plies);
        assert_eq!(tally.white_side.illegal_rate, 0.0);
    }
}
