//! `kibitz reflections`: what the personas wrote after a player's matches.

use anyhow::Context;

use kibitz::config::Config;
use kibitz::store::Db;

#[derive(clap::Args)]
pub struct ReflectionsArgs {
    /// Player id or name.
    #[arg(long)]
    player: String,
    /// How many, newest first.
    #[arg(long, default_value_t = 5)]
    limit: i64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub async fn run(config: &Config, args: ReflectionsArgs) -> anyhow::Result<()> {
    let db = Db::connect(&config.database_url)
        .await
        .context("opening the database")?;
    let player = super::memories::find_player(&db, &args.player).await?;
    let found = db.reflections_of(player.id, args.limit.max(1)).await?;
    if args.json {
        let list: Vec<_> = found
            .iter()
            .map(|(id, r)| serde_json::json!({ "match_id": id, "reflection": r }))
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(());
    }
    if found.is_empty() {
        println!("no reflections yet for {}", player.name);
    }
    for (id, r) in found {
        println!(
            "match {id}  {}  {} ({})  written by {}",
            r.created_at.format("%Y-%m-%d %H:%M"),
            r.result,
            r.termination,
            r.written_by
        );
        println!("  {}", r.summary);
        for m in &r.key_moments {
            println!(
                "  key moment: {} by the {}, {:?} ({:+.1})",
                m.move_label, m.by, m.class, m.delta
            );
        }
        for l in &r.learned {
            println!("  learned: {}", l.content);
        }
        let h = &r.head_to_head;
        println!(
            "  mood {}; head to head {} played, {}-{}-{} (player W-L-D){}\n",
            r.mood,
            h.played,
            h.player_wins,
            h.player_losses,
            h.draws,
            h.streak.as_ref().map(|s| format!(", streak {s}")).unwrap_or_default()
        );
    }
    Ok(())
}
