//! The non-server commands, printed for people.

pub mod backup;
pub mod bench;
pub mod familiarity;
pub mod lichess;
pub mod memories;
pub mod personas;
pub mod play;
pub mod rating_run;
pub mod ratings;
pub mod reflections;
pub mod selfplay;

use anyhow::Context;

use kibitz::config::Config;
use kibitz::embed;
use kibitz::runtime::{Runtime, Stopped};

pub async fn serve(config: Config) -> anyhow::Result<()> {
    kibitz::telemetry::install();
    let listen = config.listen;
    // The personas' Lichess accounts play beside the club, if configured.
    let lichess = std::sync::OnceLock::new();
    let start = async {
        let runtime = Runtime::start(config.clone()).await?;
        let accounts = kibitz::lichess::Lichess::start(&runtime, &config)?;
        if accounts.accounts() > 0 {
            tracing::info!("{} persona(s) playing on {}", accounts.accounts(), config.lichess.url);
        }
        let _ = lichess.set(accounts);
        Ok::<_, anyhow::Error>(runtime)
    };
    let runtime = kibitz::server::serve(listen, start)
        .await
        .with_context(|| format!("serving on {listen}"))?;
    if let Some(accounts) = lichess.get() {
        accounts.stop();
    }
    stop(&runtime).await;
    Ok(())
}

/// Every write was committed as it was acknowledged; a clean stop (the
/// matches' last turns done, the index flushed) also tells the next start
/// that nothing needs checking.
async fn stop(runtime: &Runtime) {
    match runtime.shutdown().await {
        Stopped::Clean => tracing::info!("stopped cleanly"),
        Stopped::Unclean(why) => tracing::warn!("stopped: {why}; the next start checks the vector index"),
    }
}

/// Checks the model files, then loads the learned readers' weights (the
/// chat listener, the memory subjects and concepts, recall's relevance), training them if the model or the
/// corpus changed (setup runs this, so
/// a server starts with them).
fn say_trained(what: &str, trained: bool, config: &Config, started: std::time::Instant) {
    let done = if trained { "trained" } else { "up to date" };
    println!(
        "models: {what} {done} (in {}, {:.1} s)",
        config.models_dir.display(),
        started.elapsed().as_secs_f64()
    );
}

pub async fn models(config: &Config) -> anyhow::Result<()> {
    embed::check_models(&config.models_dir)?;
    println!("models: all files present in {}", config.models_dir.display());
    let embedder = embed::Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let started = std::time::Instant::now();
    let (listener, trained) = kibitz::listen::load_or_train(&embedder, &config.models_dir).await?;
    say_trained("chat listener", trained, config, started);
    let started = std::time::Instant::now();
    let (readers, trained) = kibitz::memory::reading::Readers::load_or_train(&embedder, &config.models_dir).await?;
    say_trained("memory subjects and concepts", trained, config, started);
    let started = std::time::Instant::now();
    let (_, trained) =
        kibitz::subconscious::relevance::load_or_train(&embedder, &listener, Some(&readers), &config.models_dir)
            .await?;
    say_trained("recall relevance", trained, config, started);
    Ok(())
}
