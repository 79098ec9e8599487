//! `kibitz bench odds`: how close the quick odds a server gives each move
//! are to a deep evaluation of the same position. Games are played as a
//! server plays them (a persona at its Elo and style on the server's search
//! budget, against a weaker engine standing in for the player); each
//! position's quick score is what the server would store: the root score of
//! the persona's search for the player's move, the chosen line's score for
//! the persona's own. Every such position is then evaluated again at the
//! deep node count on a separate Stockfish. `--fresh` searches without the
//! remembered evaluations and drawn opening choices (`chess/engine/memo.rs`),
//! as a server did before them. Figures are printed, never asserted.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use serde_json::json;

use kibitz::chess::Game;
use kibitz::chess::engine::{self, Engine, Priority, Score, SearchRequest, StockfishEngine, Style};
use kibitz::chess::odds::{MoveClass, white_pct};
use kibitz::config::Config;

use super::stats::quantile;

/// A game is cut off after this many half-moves.
const MAX_PLIES: usize = 160;

pub struct OddsPlan {
    pub games: usize,
    /// The persona's Elo and style; the stand-in player's Elo.
    pub persona: (u32, Style),
    pub player_elo: u32,
    /// Search without remembered evaluations (before they existed).
    pub fresh: bool,
    pub json: PathBuf,
}

/// One position a move led to: its quick score for the side to move.
struct Sample {
    fen: String,
    white_to_move: bool,
    quick: Score,
    /// The half-move that led here (0: the start) and its game.
    ply: usize,
    game: usize,
}

pub async fn run(config: &Config, plan: OddsPlan) -> anyhow::Result<()> {
    let path = &config.stockfish_path;
    if !path.exists() {
        bail!(
            "this bench needs Stockfish at {} (apt-get install stockfish)",
            path.display()
        );
    }
    let live: Arc<dyn Engine> = match plan.fresh {
        true => Arc::new(StockfishEngine::start(path, 1, Priority::Live).await?),
        false => engine::start(path, 1, Priority::Live).await,
    };
    let deep = StockfishEngine::start(path, 1, Priority::Live).await?;
    let mut samples = Vec::new();
    for g in 0..plan.games {
        samples.extend(play(live.as_ref(), config, &plan, g).await?);
        eprint!("\r  game {}/{}: {} positions scored", g + 1, plan.games, samples.len());
    }
    eprintln!();
    let mut deep_white = Vec::with_capacity(samples.len());
    for (i, s) in samples.iter().enumerate() {
        let score = deep.evaluate(&s.fen, config.eval_deep_nodes).await?;
        deep_white.push(white_pct(&score, s.white_to_move));
        if i % 20 == 19 {
            eprint!("\r  deep evaluations: {}/{}", i + 1, samples.len());
        }
    }
    eprintln!();
    report(config, &plan, &samples, &deep_white, path)
}

/// One game; the positions the server would have scored, in order.
async fn play(live: &dyn Engine, config: &Config, plan: &OddsPlan, g: usize) -> anyhow::Result<Vec<Sample>> {
    let mut game = Game::new(None)?;
    let persona_white = g.is_multiple_of(2);
    let mut out = Vec::new();
    while game.end().is_none() && game.moves().len() < MAX_PLIES {
        let persona_moves = game.turn().is_white() == persona_white;
        let (elo, style) = match persona_moves {
            true => plan.persona,
            false => (plan.player_elo, Style::Tricky),
        };
        let req = SearchRequest {
            fen: game.fen(),
            elo,
            style,
            budget: config.search_budget(),
        };
        let chosen = live.choose_move(&req).await?;
        let ply = game.moves().len();
        if let (true, Some(root)) = (persona_moves, chosen.root_score) {
            out.push(sample(&game, root, ply, g));
        }
        let m = game.parse(&chosen.uci).context("the engine's move")?;
        game.play(m);
        if let (true, Some(after)) = (persona_moves, chosen.score_after) {
            out.push(sample(&game, after, ply + 1, g));
        }
    }
    Ok(out)
}

fn sample(game: &Game, quick: Score, ply: usize, g: usize) -> Sample {
    Sample {
        fen: game.fen(),
        white_to_move: game.turn().is_white(),
        quick,
        ply,
        game: g,
    }
}

fn report(config: &Config, plan: &OddsPlan, samples: &[Sample], deep: &[f64], sf: &Path) -> anyhow::Result<()> {
    let quick: Vec<f64> = samples.iter().map(|s| white_pct(&s.quick, s.white_to_move)).collect();
    let gaps: Vec<f64> = quick.iter().zip(deep).map(|(q, d)| (q - d).abs()).collect();
    let within = |points: f64| gaps.iter().filter(|g| **g <= points).count() as f64 / gaps.len().max(1) as f64;
    let (agree, moves) = class_agreement(samples, &quick, deep);
    let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    println!(
        "odds vs a {}-node evaluation, {} positions from {} games ({}):",
        config.eval_deep_nodes,
        samples.len(),
        plan.games,
        if plan.fresh {
            "fresh searches"
        } else {
            "remembered evaluations"
        }
    );
    println!(
        "  |quick - deep| win%: mean {mean:.2}, p50 {:.2}, p90 {:.2}; within 5 points {:.3}, within 10 {:.3}",
        quantile(&gaps, 0.5),
        quantile(&gaps, 0.9),
        within(5.0),
        within(10.0)
    );
    println!("  move class (good / inaccuracy / mistake / blunder) the same: {agree} of {moves}");
    let out = json!({
        "positions": samples.len(), "games": plan.games, "fresh": plan.fresh,
        "persona_elo": plan.persona.0, "player_elo": plan.player_elo,
        "search_budget": format!("{:?}", config.search_budget()), "deep_nodes": config.eval_deep_nodes,
        "stockfish": sf.display().to_string(),
        "gap_mean": mean, "gap_p50": quantile(&gaps, 0.5), "gap_p90": quantile(&gaps, 0.9),
        "within_5": within(5.0), "within_10": within(10.0),
        "class_agree": agree, "classed_moves": moves,
    });
    std::fs::write(&plan.json, serde_json::to_string_pretty(&out)?)?;
    println!("  JSON: {}", plan.json.display());
    Ok(())
}

/// Of the moves with a score before and after (consecutive samples of one
/// game), how many the quick scores and the deep ones put in one class.
fn class_agreement(samples: &[Sample], quick: &[f64], deep: &[f64]) -> (usize, usize) {
    let class = |before: f64, after: f64, white_moved: bool| {
        let delta = if white_moved { after - before } else { before - after };
        MoveClass::from_delta(delta)
    };
    let mut agree = 0;
    let mut moves = 0;
    for i in 1..samples.len() {
        let (a, b) = (&samples[i - 1], &samples[i]);
        if a.game != b.game || b.ply != a.ply + 1 {
            continue;
        }
        moves += 1;
        // The side that moved is the one to move before it.
        let white_moved = a.white_to_move;
        agree += usize::from(class(quick[i - 1], quick[i], white_moved) == class(deep[i - 1], deep[i], white_moved));
    }
    (agree, moves)
}
