//! `kibitz ratings`: the players' Glicko-2 ratings: show one, or make every
//! history anew from the games (`rebuild`).

use anyhow::Context;

use kibitz::config::Config;
use kibitz::rating::{self, figure, ledger, progress};
use kibitz::store::Db;

#[derive(clap::Args)]
pub struct RatingsArgs {
    #[command(subcommand)]
    command: RatingsCommand,
}

#[derive(clap::Subcommand)]
enum RatingsCommand {
    /// A player's rating now, its progress and its history.
    Show {
        /// Player id or name.
        #[arg(long)]
        player: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Make every player's rating history anew from their finished games
    /// (the same replay as the live updates; only histories that differ are
    /// rewritten). Safe while the server runs.
    Rebuild,
    /// Does a rating find a player's strength? A player of known strength
    /// (Stockfish at --player-elo) plays the personas in turn, rated as the
    /// club rates; --model N plays no games, to show the spread.
    Simulate(super::rating_run::SimulateArgs),
}

pub async fn run(config: &Config, args: RatingsArgs) -> anyhow::Result<()> {
    match args.command {
        // Engines and personas, not the club's database.
        RatingsCommand::Simulate(sim) => super::rating_run::simulate(config, sim).await,
        RatingsCommand::Show { player, json } => {
            let (db, card_elo) = open(config).await?;
            show(&db, &player, json, &card_elo).await
        }
        RatingsCommand::Rebuild => {
            let (db, card_elo) = open(config).await?;
            let mut report = |done: usize, of: usize| {
                if done.is_multiple_of(100) || done == of {
                    eprintln!("rebuilt {done} of {of} players");
                }
            };
            let rebuilt = ledger::rebuild(&db, &card_elo, &mut report).await?;
            println!(
                "{} players, {} rated games; {} histories rewritten, the rest were already right",
                rebuilt.players, rebuilt.rated_games, rebuilt.rewritten
            );
            Ok(())
        }
    }
}

/// The database, and each persona's card Elo (for games stored before a
/// match kept the strength it was played at).
async fn open(config: &Config) -> anyhow::Result<(Db, impl Fn(&str) -> Option<u32> + Sync + use<>)> {
    let db = Db::connect(&config.database_url)
        .await
        .context("opening the database")?;
    let personas = kibitz::personas::load_dir(&config.personas_dir).context("loading the personas")?;
    Ok((db, move |id: &str| personas.iter().find(|p| p.id == id).map(|p| p.elo)))
}

async fn show(db: &Db, name: &str, json: bool, card_elo: &(dyn Fn(&str) -> Option<u32> + Sync)) -> anyhow::Result<()> {
    let player = super::memories::find_player(db, name).await?;
    let history = ledger::update(db, player.id, card_elo).await?;
    let now = rating::current(&history);
    if json {
        let out = serde_json::json!({ "player": player.name, "now": now, "history": history });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let Some(p) = progress::progress(&history, chrono::Utc::now()) else {
        println!(
            "{} has no rated games yet (everyone starts at 1,500 ± 350).",
            player.name
        );
        return Ok(());
    };
    println!("{}: {}", player.name, p.describe());
    for e in &history {
        println!(
            "  {}  {:<8} ({:>5})  {:<4}  {:>6} ± {}",
            e.played_at.format("%Y-%m-%d %H:%M"),
            e.persona_id,
            figure(e.persona_rating),
            match e.score {
                s if s >= 1.0 => "won",
                s if s <= 0.0 => "lost",
                _ => "drew",
            },
            figure(e.rating),
            e.deviation.round()
        );
    }
    Ok(())
}
