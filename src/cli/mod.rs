//! The non-server commands, printed for people.

pub mod bench;
mod bench_chat;
mod bench_chat_live;
mod bench_erasure;
mod bench_live;
mod bench_llm;
mod bench_policy;
mod bench_prompt;
mod bench_recall;
mod bench_tools;
mod bench_trigger;
mod live_board;
mod live_client;
mod live_flood;
mod live_phases;
mod live_report;
mod live_server;
pub mod memories;
pub mod personas;
pub mod play;
mod recall_set;
pub mod reflections;
pub mod selfplay;

use anyhow::Context;

use kibitz::config::Config;
use kibitz::memory::embed;
use kibitz::runtime::{Runtime, Stopped};

pub async fn serve(config: Config) -> anyhow::Result<()> {
    let listen = config.listen;
    let runtime = kibitz::server::serve(listen, Runtime::start(config))
        .await
        .with_context(|| format!("serving on {listen}"))?;
    // Every write was committed as it was acknowledged; a clean stop also
    // tells the next start that nothing needs checking.
    match runtime.shutdown().await {
        Stopped::Clean => tracing::info!("stopped cleanly"),
        Stopped::Unclean(why) => tracing::warn!("stopped: {why}; the next start checks the vector index"),
    }
    Ok(())
}

pub fn models(config: &Config) -> anyhow::Result<()> {
    embed::check_models(&config.models_dir)?;
    println!("models: all files present in {}", config.models_dir.display());
    Ok(())
}
