//! `kibitz familiarity`: how well each persona knows a player (show), or
//! every history made anew from the record (`rebuild`).

use anyhow::Context;
use chrono::Utc;

use kibitz::config::Config;
use kibitz::familiarity::{Familiarity, ledger};
use kibitz::store::Db;

#[derive(clap::Args)]
pub struct FamiliarityArgs {
    #[command(subcommand)]
    command: FamiliarityCommand,
}

#[derive(clap::Subcommand)]
enum FamiliarityCommand {
    /// How well each persona knows a player: stage, games together, time away.
    Show {
        /// Player id or name.
        #[arg(long)]
        player: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Make every player's familiarity history anew from the games and
    /// what was said in them (the same reading as the live updates; only
    /// histories that differ are rewritten). Safe while the server runs.
    Rebuild,
}

pub async fn run(config: &Config, args: FamiliarityArgs) -> anyhow::Result<()> {
    let db = Db::connect(&config.database_url)
        .await
        .context("opening the database")?;
    match args.command {
        FamiliarityCommand::Show { player, json } => show(config, &db, &player, json).await,
        FamiliarityCommand::Rebuild => {
            let mut report = |done: usize, of: usize| {
                if done.is_multiple_of(100) || done == of {
                    eprintln!("rebuilt {done} of {of} player-persona pairs");
                }
            };
            let rebuilt = ledger::rebuild(&db, &mut report).await?;
            println!(
                "{} player-persona pairs, {} games together; {} histories rewritten, the rest were already right",
                rebuilt.pairs, rebuilt.games, rebuilt.rewritten
            );
            Ok(())
        }
    }
}

async fn show(config: &Config, db: &Db, name: &str, json: bool) -> anyhow::Result<()> {
    let player = super::memories::find_player(db, name).await?;
    let personas = kibitz::personas::load_dir(&config.personas_dir).context("loading the personas")?;
    let mut known: Vec<(String, Familiarity)> = Vec::new();
    for persona in &personas {
        let history = ledger::update(db, player.id, &player.name, &persona.id).await?;
        known.push((
            persona.name.clone(),
            Familiarity::of(&history, &persona.familiarity, Utc::now()),
        ));
    }
    if json {
        let out: Vec<_> = known
            .iter()
            .map(|(persona, f)| serde_json::json!({ "persona": persona, "now": f }))
            .collect();
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!("How well the club knows {}:", player.name);
    for (persona, f) in known {
        let next = match (f.next, f.points_to_next) {
            (Some(next), Some(missing)) => format!("; {missing:.1} points to {}", next.described()),
            _ => String::new(),
        };
        let away = f
            .days_away
            .map_or(String::new(), |d| format!(", the last {d} days ago"));
        println!(
            "  {persona}: {} ({:.1} points, {} games together{away}{next})",
            f.stage.described(),
            f.points,
            f.games
        );
    }
    Ok(())
}
