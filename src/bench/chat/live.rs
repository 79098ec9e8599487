//! `kibitz bench chat`'s live part: the set's conversation played line by
//! line through a real match with each persona (no language model), on a
//! runtime of its own in a temp data dir. Counts a persona line said twice
//! in a row, and times each reply beyond the embedding model's own time.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use kibitz::config::Config;
use kibitz::runtime::{MatchRequest, Runtime, UserCommand};

/// One persona's conversation, tallied.
pub struct Played {
    pub persona: String,
    pub replies: usize,
    pub distinct: usize,
    /// The messages said twice in a row (each once).
    pub twice_in_a_row: Vec<String>,
    /// Per reply: wall time minus the embedding model's busy time, in ms.
    pub beyond_embedding_ms: Vec<f64>,
}

impl Played {
    pub fn figures(&self) -> serde_json::Value {
        json!({
            "persona": self.persona, "replies": self.replies, "distinct": self.distinct,
            "twice_in_a_row": self.twice_in_a_row.len(),
        })
    }
}

pub async fn play(config: &Config, lines: &[String]) -> anyhow::Result<Vec<Played>> {
    let data = tempfile::tempdir()?;
    let (config, lines, dir) = (config.clone(), lines.to_vec(), data.path().to_path_buf());
    // A runtime of its own, dropped while the data dir still exists.
    tokio::task::spawn_blocking(move || {
        let threads = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let played = threads.block_on(play_all(config, &lines, &dir));
        drop(threads);
        played
    })
    .await?
}

async fn play_all(mut config: Config, lines: &[String], data: &Path) -> anyhow::Result<Vec<Played>> {
    config.data_dir = data.to_path_buf();
    config.database_url = format!("sqlite://{}", data.join("kibitz.db").display());
    config.vectors_dir = data.join("vectors");
    config.chat_per_minute = 1_000_000;
    config.limits = kibitz::config::LimitsConfig::unlimited();
    config.memory_writes_per_minute = 1_000_000;
    let runtime = Runtime::start(config).await?;
    let (player, _) = runtime.create_player("Sam").await?;
    let personas: Vec<String> = runtime.personas().iter().map(|p| p.id.to_string()).collect();
    let mut out = Vec::new();
    for persona in personas {
        let created = runtime.create_match(player.id, MatchRequest::new(&persona)).await?;
        let id = created.state.id;
        let mut said: Vec<String> = Vec::new();
        let mut times = Vec::new();
        for line in lines {
            let embedder = runtime.shared().memory.embedder().clone();
            let (busy, at) = (embedder.busy(), Instant::now());
            let outcome = runtime.command(id, UserCommand::Chat(line.clone())).await?;
            let beyond = at.elapsed().saturating_sub(embedder.busy().saturating_sub(busy));
            times.push(beyond.as_secs_f64() * 1000.0);
            said.extend(
                outcome
                    .events
                    .iter()
                    .filter_map(|e| e.body.persona_said().map(str::to_string)),
            );
        }
        runtime.command(id, UserCommand::Resign).await?;
        let mut distinct = said.clone();
        distinct.sort();
        distinct.dedup();
        out.push(Played {
            persona,
            replies: said.len(),
            distinct: distinct.len(),
            twice_in_a_row: said.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0].clone()).collect(),
            beyond_embedding_ms: times,
        });
    }
    Ok(out)
}
