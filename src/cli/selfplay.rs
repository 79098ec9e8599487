//! `kibitz selfplay` (two brains, N games) and `kibitz calibrate` (each
//! persona against Stockfish at several UCI_Elo levels, giving an Elo
//! estimate with a 95% error bar). Both print a progress line per game and
//! write their figures as JSON.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use futures_util::StreamExt;
use serde_json::json;

use kibitz::chess::engine;
use kibitz::config::Config;
use kibitz::moves::calibrate::{EloEstimate, estimate_elo};

use crate::bench::stats::quantile;
use kibitz::moves::selfplay::{GameRecord, Tally, play_game};
use kibitz::moves::{BrainSpec, Workshop};
use kibitz::personas::Persona;

#[derive(clap::Args)]
pub struct SelfplayArgs {
    /// White: engine:<elo>, persona:<id>, random, llm, or pipeline:<p+e+pl+m>.
    #[arg(long)]
    white: BrainSpec,
    /// Black, spelled as for --white.
    #[arg(long)]
    black: BrainSpec,
    #[arg(long, default_value_t = 10)]
    games: usize,
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value = "bench/last-selfplay.json")]
    json: PathBuf,
}

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// Personas to calibrate (default: all).
    #[arg(long = "persona")]
    personas: Vec<String>,
    /// Stockfish UCI_Elo levels to play against (at least the engine's minimum).
    #[arg(long, value_delimiter = ',', default_value = "1350,1600,1900")]
    levels: Vec<u32>,
    /// Games per level, colours alternating.
    #[arg(long, default_value_t = 10)]
    games: usize,
    #[command(flatten)]
    budget: PersonaBudget,
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value = "bench/last-calibration.json")]
    json: PathBuf,
}

/// The personas' own search budget, while the Stockfish reference keeps
/// `--movetime`: the scale stays the same, the personas' budget changes.
#[derive(clap::Args)]
pub(crate) struct PersonaBudget {
    /// The personas search this many nodes a move (what `engine_nodes`
    /// sets on a server).
    #[arg(long)]
    pub(crate) persona_nodes: Option<u64>,
    /// With --persona-nodes: a persona's move also stops after this many
    /// milliseconds (what `engine_movetime_ms` caps on a server that sets
    /// `engine_nodes`).
    #[arg(long, requires = "persona_nodes")]
    pub(crate) persona_within_ms: Option<u64>,
}

#[derive(clap::Args)]
pub(crate) struct Common {
    /// Engine time per move, in milliseconds (both sides).
    #[arg(long, default_value_t = 50)]
    pub(crate) movetime: u64,
    /// Games adjudicated a draw after this many plies.
    #[arg(long, default_value_t = 300)]
    pub(crate) max_plies: usize,
    /// Games played at once (each uses one engine process at a time).
    #[arg(long, default_value_t = 2)]
    pub(crate) parallel: usize,
}

pub(crate) async fn workshop(config: &Config, common: &Common) -> Workshop {
    Workshop {
        engine: engine::start(&config.stockfish_path, common.parallel.max(1), engine::Priority::Live).await,
        llm: kibitz::llm::LlmPool::start(&config.llm, None).await,
        budget: engine::SearchBudget::Millis(common.movetime),
        sampling: config.llm.moves,
    }
}

/// The workshop the personas' brains come from: the reference's, or with a
/// node budget (capped at `within_ms`), as on a club that sets `engine_nodes`.
pub(crate) fn persona_workshop(shop: &Workshop, budget: &PersonaBudget) -> Workshop {
    Workshop {
        budget: match budget.persona_nodes {
            Some(nodes) => engine::SearchBudget::Nodes {
                nodes,
                within_ms: budget.persona_within_ms,
            },
            None => shop.budget,
        },
        ..shop.clone()
    }
}

pub(crate) fn load_personas(config: &Config) -> anyhow::Result<Vec<Arc<Persona>>> {
    let personas = kibitz::personas::load_dir(&config.personas_dir)?;
    Ok(personas.into_iter().map(Arc::new).collect())
}

/// Plays `n` games of white against black (swapped on odd games if `alternate`).
/// `n` games between the brains `white` (built by the first workshop) and
/// `black` (by the second); with `alternate`, every other game swaps colours.
pub(crate) async fn play_many(
    shops: (&Workshop, &Workshop),
    personas: &[Arc<Persona>],
    white: &BrainSpec,
    black: &BrainSpec,
    n: usize,
    alternate: bool,
    common: &Common,
) -> anyhow::Result<Vec<(bool, GameRecord)>> {
    let jobs = (0..n).map(|i| {
        let swapped = alternate && i % 2 == 1;
        let ((w, w_shop), (b, b_shop)) = match swapped {
            true => ((black, shops.1), (white, shops.0)),
            false => ((white, shops.0), (black, shops.1)),
        };
        let brains = w_shop
            .spec_brain(w, personas)
            .and_then(|w| Ok((w, b_shop.spec_brain(b, personas)?)));
        async move {
            let (mut w, mut b) = brains?;
            anyhow::Ok((swapped, play_game(w.as_mut(), b.as_mut(), common.max_plies).await))
        }
    });
    let mut stream = futures_util::stream::iter(jobs).buffer_unordered(common.parallel.max(1));
    let mut done = Vec::new();
    while let Some(game) = stream.next().await {
        let (swapped, record) = game?;
        done.push((swapped, record));
        let last = &done[done.len() - 1].1;
        print!(
            "\r  game {}/{n}: {} ({}, {} plies)        ",
            done.len(),
            last.result,
            last.termination,
            last.plies
        );
        std::io::stdout().flush().ok();
    }
    println!();
    Ok(done)
}

pub async fn selfplay(config: &Config, args: SelfplayArgs) -> anyhow::Result<()> {
    let shop = workshop(config, &args.common).await;
    let personas = load_personas(config)?;
    let white_name = shop.spec_brain(&args.white, &personas)?.name();
    let black_name = shop.spec_brain(&args.black, &personas)?.name();
    println!(
        "selfplay: {white_name} (white) vs {black_name} (black), {} games",
        args.games
    );
    let games = play_many(
        (&shop, &shop),
        &personas,
        &args.white,
        &args.black,
        args.games,
        false,
        &args.common,
    )
    .await?;
    let mut tally = Tally::new(white_name, black_name);
    games.iter().for_each(|(_, g)| tally.add(g));
    println!(
        "white {} / black {} / draws {}; {:.1} plies a game",
        tally.white_wins, tally.black_wins, tally.draws, tally.average_plies
    );
    for (name, side) in [("white", &tally.white_side), ("black", &tally.black_side)] {
        println!(
            "  {name}: move p50 {:.1} ms, p99 {:.1} ms; tokens {}+{}; illegal {:.3}/move; fallback {:.3}/move; resigned {}",
            side.latency_p50_ms,
            side.latency_p99_ms,
            side.prompt_tokens,
            side.completion_tokens,
            side.illegal_rate,
            side.fallback_rate,
            side.resignations
        );
    }
    write_json(&args.json, &serde_json::to_value(&tally)?)
}

pub async fn calibrate(config: &Config, args: CalibrateArgs) -> anyhow::Result<()> {
    let shop = workshop(config, &args.common).await;
    let persona_shop = persona_workshop(&shop, &args.budget);
    let personas = load_personas(config)?;
    let chosen: Vec<Arc<Persona>> = if args.personas.is_empty() {
        personas.clone()
    } else {
        let find = |id: &String| personas.iter().find(|p| p.id == *id).cloned();
        args.personas
            .iter()
            .map(|id| find(id).with_context(|| format!("no persona {id:?}")))
            .collect::<anyhow::Result<_>>()?
    };
    let mut report = Vec::new();
    for persona in &chosen {
        let me = BrainSpec::Persona {
            id: persona.id.to_string(),
        };
        let mut scores = Vec::new();
        let mut per_level = Vec::new();
        let mut think: Vec<std::time::Duration> = Vec::new();
        let searched_before = persona_shop.engine.searches();
        for &level in &args.levels {
            println!(
                "calibrate: {} (card {}) vs Stockfish UCI_Elo {level}",
                persona.id, persona.elo
            );
            let opponent = BrainSpec::Engine { elo: level };
            let shops = (&persona_shop, &shop);
            let games = play_many(shops, &personas, &me, &opponent, args.games, true, &args.common).await?;
            let level_scores: Vec<f64> = games
                .iter()
                .map(|(swapped, g)| persona_score(*swapped, g.result))
                .collect();
            // The persona is White unless the game was swapped.
            think.extend(
                games
                    .iter()
                    .flat_map(|(swapped, g)| g.sides[usize::from(*swapped)].latencies.clone()),
            );
            let total: f64 = level_scores.iter().sum();
            per_level.push(json!({"level": level, "games": games.len(), "score": total}));
            scores.extend(level_scores.into_iter().map(|s| (f64::from(level), s)));
        }
        let estimate = estimate_elo(&scores).context("no games played")?;
        print_estimate(persona, &estimate);
        let ms: Vec<f64> = think.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        let (p50, p99) = (quantile(&ms, 0.5), quantile(&ms, 0.99));
        println!("  {}: its own moves took p50 {p50:.1} ms, p99 {p99:.1} ms", persona.id);
        let searches = searched_since(&persona_shop, searched_before);
        if searches.searched > 0 {
            println!(
                "  {}: {} of {} searches stopped by the time cap short of their nodes, {} nodes on average",
                persona.id, searches.stopped_short, searches.searched, searches.mean_nodes
            );
        }
        report.push(json!({
            "persona": persona.id, "card_elo": persona.elo, "style": persona.style,
            "estimate": estimate.elo.round(), "plus_minus_95": estimate.plus_minus.round(),
            "within_150_of_card": (estimate.elo - f64::from(persona.elo)).abs() <= 150.0,
            "levels": per_level, "movetime_ms": args.common.movetime, "persona_nodes": args.budget.persona_nodes, "persona_within_ms": args.budget.persona_within_ms,
            "persona_move_p50_ms": p50, "persona_move_p99_ms": p99, "persona_searches": searches,
        }));
    }
    write_json(&args.json, &json!(report))
}

/// The persona's searches under its node budget since `before` (the
/// engine's books count from its start).
fn searched_since(shop: &Workshop, before: engine::SearchTally) -> engine::SearchTally {
    let now = shop.engine.searches();
    let searched = now.searched - before.searched;
    let nodes = now.mean_nodes * now.searched - before.mean_nodes * before.searched;
    engine::SearchTally {
        searched,
        stopped_short: now.stopped_short - before.stopped_short,
        mean_nodes: nodes / searched.max(1),
    }
}

/// The persona's score in a game where it was White unless `swapped`.
fn persona_score(swapped: bool, result: &str) -> f64 {
    match (result, swapped) {
        ("1-0", false) | ("0-1", true) => 1.0,
        ("1-0", true) | ("0-1", false) => 0.0,
        _ => 0.5,
    }
}

fn print_estimate(p: &Persona, e: &EloEstimate) {
    let gap = e.elo - f64::from(p.elo);
    println!(
        "  {}: {:.0} ± {:.0} (95%, {} games); card {} ({gap:+.0})",
        p.id, e.elo, e.plus_minus, e.games, p.elo
    );
}

pub(crate) fn write_json(path: &PathBuf, value: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, serde_json::to_string_pretty(value)?)
        .with_context(|| format!("writing {}", path.display()))?;
    println!("figures written to {}", path.display());
    Ok(())
}
