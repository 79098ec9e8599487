//! `kibitz ratings simulate`: does a rating find a player's strength? A
//! player of known strength (Stockfish at a UCI_Elo, on the scale the
//! personas were calibrated on) plays the personas in turn, and each result
//! is rated as the club rates it. `--model N` plays no games: N players
//! whose results are drawn from the Elo expectation, to show the spread.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use chrono::{Duration, TimeZone, Utc};
use rand::{Rng, SeedableRng};
use serde_json::json;

use kibitz::config::Config;
use kibitz::ids::MatchId;
use kibitz::moves::BrainSpec;
use kibitz::personas::Persona;
use kibitz::rating::{self, Entry, RatedGame, figure};

use super::selfplay::{Common, PersonaBudget, load_personas, persona_workshop, play_many, workshop};

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// The simulated player's strength (Stockfish UCI_Elo in real games).
    #[arg(long, default_value_t = 1500)]
    player_elo: u32,
    /// Rated games, the personas in turn, colours alternating.
    #[arg(long, default_value_t = 30)]
    games: usize,
    /// Personas to play (default: all).
    #[arg(long = "persona")]
    personas: Vec<String>,
    /// Each game against the persona the lobby marks fairest (expected score
    /// nearest 0.5 for the rating so far), as a player following its advice
    /// would; without it, the personas in turn.
    #[arg(long)]
    follow_pairings: bool,
    /// No games: this many simulated players whose results follow the Elo
    /// expectation against the cards' ratings.
    #[arg(long)]
    model: Option<usize>,
    #[command(flatten)]
    budget: PersonaBudget,
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value = "bench/last-rating-run.json")]
    json: PathBuf,
}

pub async fn simulate(config: &Config, args: SimulateArgs) -> anyhow::Result<()> {
    let all = load_personas(config)?;
    let chosen: Vec<Arc<Persona>> = match args.personas.is_empty() {
        true => all.clone(),
        false => args
            .personas
            .iter()
            .map(|id| {
                all.iter()
                    .find(|p| p.id == *id)
                    .cloned()
                    .with_context(|| format!("no persona {id:?}"))
            })
            .collect::<anyhow::Result<_>>()?,
    };
    anyhow::ensure!(!chosen.is_empty(), "no personas to play");
    if let Some(players) = args.model {
        return model(&args, &chosen, players.max(1));
    }
    let (games, history) = real_games(config, &args, &all, &chosen).await?;
    for (i, (g, e)) in games.iter().zip(&history).enumerate() {
        let result = ["lost", "drew", "won"][(g.score * 2.0) as usize];
        println!(
            "  game {:>2}: {result:<4} vs {:<8} ({})  ->  {} ± {}",
            i + 1,
            g.persona_id,
            figure(g.persona_rating),
            figure(e.rating),
            e.deviation.round()
        );
    }
    let last = history.last().context("no games played")?;
    let error = last.rating - f64::from(args.player_elo);
    println!(
        "a {} player after {} games: {} ± {} ({error:+.0}); within ±100: {}",
        figure(f64::from(args.player_elo)),
        history.len(),
        figure(last.rating),
        last.deviation.round(),
        if error.abs() <= 100.0 { "yes" } else { "no" }
    );
    let trail: Vec<_> = history.iter().map(entry_json).collect();
    super::selfplay::write_json(
        &args.json,
        &json!({
            "mode": "games", "player_elo": args.player_elo, "games": history.len(),
            "final_rating": last.rating.round(), "final_deviation": last.deviation.round(),
            "error": error.round(), "within_100": error.abs() <= 100.0,
            "movetime_ms": args.common.movetime, "persona_nodes": args.budget.persona_nodes,
            "persona_within_ms": args.budget.persona_within_ms, "history": trail,
        }),
    )
}

/// Plays the games one by one, each rated before the next is chosen.
async fn real_games(
    config: &Config,
    args: &SimulateArgs,
    all: &[Arc<Persona>],
    chosen: &[Arc<Persona>],
) -> anyhow::Result<(Vec<RatedGame>, Vec<Entry>)> {
    let shop = workshop(config, &args.common).await;
    let persona_shop = persona_workshop(&shop, &args.budget);
    let player = BrainSpec::Engine { elo: args.player_elo };
    let (mut games, mut history) = (Vec::new(), Vec::new());
    for i in 0..args.games {
        let persona = opponent(args, chosen, &history, i);
        let me = BrainSpec::Persona {
            id: persona.id.to_string(),
        };
        // Colours alternate: the player is White in even games.
        let (white, black, shops) = match i % 2 {
            0 => (&player, &me, (&shop, &persona_shop)),
            _ => (&me, &player, (&persona_shop, &shop)),
        };
        let played = play_many(shops, all, white, black, 1, false, &args.common).await?;
        let (_, record) = played.first().context("the game was not played")?;
        let score = rating::score(record.result, i % 2 == 0).unwrap_or(0.5);
        let game = rated(i, persona, score);
        history.push(rating::step(history.last(), &game));
        games.push(game);
    }
    Ok((games, history))
}

/// Whom game `i` is against: the personas in turn, or the fairest.
fn opponent<'a>(args: &SimulateArgs, chosen: &'a [Arc<Persona>], history: &[Entry], i: usize) -> &'a Persona {
    if !args.follow_pairings {
        return &chosen[i % chosen.len()];
    }
    let now = rating::current(history);
    let gap = |p: &&Arc<Persona>| {
        let pairing = rating::pairing(now, history.len(), &p.id, &p.name, p.elo);
        (pairing.expected_score - 0.5).abs()
    };
    chosen
        .iter()
        .min_by(|a, b| gap(a).total_cmp(&gap(b)))
        .expect("personas to play")
}

/// Game `i` of the run, a day apart (as a club player might play).
fn rated(i: usize, persona: &Persona, score: f64) -> RatedGame {
    RatedGame {
        match_id: MatchId::new(),
        persona_id: persona.id.clone(),
        persona_rating: f64::from(persona.elo),
        score,
        played_at: Utc.with_ymd_and_hms(2026, 10, 1, 19, 0, 0).unwrap() + Duration::days(i as i64),
    }
}

/// The spread over many simulated players: results drawn from the Elo
/// expectation against each card's rating.
fn model(args: &SimulateArgs, chosen: &[Arc<Persona>], players: usize) -> anyhow::Result<()> {
    let truth = f64::from(args.player_elo);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1500);
    let mut errors = Vec::with_capacity(players);
    let mut deviations = Vec::with_capacity(players);
    for _ in 0..players {
        let mut history: Vec<Entry> = Vec::new();
        for i in 0..args.games {
            let persona = opponent(args, chosen, &history, i);
            let expected = 1.0 / (1.0 + 10f64.powf((f64::from(persona.elo) - truth) / 400.0));
            let game = rated(i, persona, drawn_score(&mut rng, expected));
            history.push(rating::step(history.last(), &game));
        }
        let last = history.pop().context("no games")?;
        errors.push(last.rating - truth);
        deviations.push(last.deviation);
    }
    let within = errors.iter().filter(|e| e.abs() <= 100.0).count() as f64 / players as f64;
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let (p50, p95) = (abs[players / 2], abs[(players * 95 / 100).min(players - 1)]);
    let mean_dev = deviations.iter().sum::<f64>() / players as f64;
    println!(
        "{players} simulated {} players, {} games each against {}: within ±100 {:.1}%; |error| p50 {p50:.0}, p95 {p95:.0}; deviation {mean_dev:.0}",
        figure(truth),
        args.games,
        chosen.iter().map(|p| p.id.as_str()).collect::<Vec<_>>().join(", "),
        within * 100.0
    );
    super::selfplay::write_json(
        &args.json,
        &json!({
            "mode": "model", "player_elo": args.player_elo, "games": args.games, "players": players,
            "within_100_share": within, "abs_error_p50": p50, "abs_error_p95": p95, "mean_deviation": mean_dev,
        }),
    )
}

/// A result with this expected score: a fifth of the undecided share drawn.
fn drawn_score(rng: &mut impl Rng, expected: f64) -> f64 {
    let draw = 0.2 * (1.0 - (2.0 * expected - 1.0).abs());
    let roll: f64 = rng.r#gen();
    if roll < expected - draw / 2.0 {
        1.0
    } else if roll < expected + draw / 2.0 {
        0.5
    } else {
        0.0
    }
}

fn entry_json(e: &Entry) -> serde_json::Value {
    json!({ "persona": e.persona_id, "score": e.score, "rating": e.rating.round(), "deviation": e.deviation.round() })
}
