//! The non-server commands, printed for people.

pub mod play;

use anyhow::Context;

use kibitz::config::Config;
use kibitz::ids::PlayerId;
use kibitz::memory::embed;
use kibitz::runtime::Runtime;
use kibitz::store::Db;

pub async fn serve(config: Config) -> anyhow::Result<()> {
    let listen = config.listen;
    let runtime = Runtime::start(config).await.context("starting kibitz")?;
    kibitz::server::serve(runtime, listen)
        .await
        .with_context(|| format!("serving on {listen}"))
}

pub fn personas(config: &Config) -> anyhow::Result<()> {
    let personas = kibitz::personas::load_dir(&config.personas_dir)?;
    println!("{:<10} {:<18} {:>5}  {:<11} biography", "id", "name", "elo", "style");
    for p in personas {
        let first = p.biography.split(". ").next().unwrap_or("");
        let bio = if first.chars().count() > 70 {
            format!("{}…", first.chars().take(69).collect::<String>())
        } else {
            format!("{first}.")
        };
        let style = format!("{:?}", p.style).to_lowercase();
        println!("{:<10} {:<18} {:>5}  {:<11} {bio}", p.id, p.name, p.elo, style);
    }
    Ok(())
}

pub async fn memories(config: &Config, player: &str, persona: Option<&str>) -> anyhow::Result<()> {
    let db = Db::connect(&config.database_url)
        .await
        .context("opening the database")?;
    let found = match player.parse::<PlayerId>() {
        Ok(id) => db.player(id).await?,
        Err(_) => db.player_by_name(player).await?,
    };
    let player = found.with_context(|| format!("no player with id or name '{player}'"))?;
    let query = kibitz::store::MemoryQuery {
        persona: persona.map(str::to_string),
        ..Default::default()
    };
    let memories = db.player_memories(player.id, &query).await?;
    println!("{} memories about {} ({})", memories.len(), player.name, player.id);
    for m in memories {
        println!(
            "{}  {:<8} {:<18} {}",
            m.created_at.format("%Y-%m-%d %H:%M"),
            m.persona_id,
            m.memory_type.as_str(),
            m.content
        );
    }
    Ok(())
}

pub fn models(config: &Config) -> anyhow::Result<()> {
    embed::check_models(&config.models_dir)?;
    println!("models: all files present in {}", config.models_dir.display());
    Ok(())
}
