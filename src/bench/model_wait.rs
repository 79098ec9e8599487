//! `kibitz bench llm`: what a language model costs the player's wait. The
//! same matches are played twice, each on a runtime of its own: with the
//! scripted brain, then with the model (the tests' llama-server with
//! SmolLM2, started here, unless `--url` names an endpoint). It prints the
//! player's move->reply latency for both (the goal: the model's p99 within
//! 1.5x of the scripted one) and, per trigger, the model's calls, prompt
//! and output tokens and time, and how its words came (on time, late,
//! dropped).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use kibitz::config::Config;
use kibitz::runtime::{MatchRequest, Runtime, UserCommand};
use kibitz::store::MatchStatus;

use super::stats::quantile as pct;
use super::write_figures;

/// The matches played, the same both times.
#[derive(Clone, Copy)]
pub struct Plan {
    pub matches: usize,
    pub moves: usize,
    /// The player's think between moves (with a model only: without one,
    /// nothing comes after the reply).
    pub think: Duration,
}

/// One completed model call.
#[derive(Clone)]
struct Call {
    prompt: i64,
    output: i64,
    /// Of the prompt, what the server had cached.
    cached: i64,
    ms: i64,
    /// Answered (not failed, not abandoned at a deadline).
    answered: bool,
    /// Which firing it served: the match and the move count in its context.
    firing: (usize, i64),
}

/// One way of playing: its move->reply times and the model's calls.
#[derive(Default)]
struct Played {
    reply_ms: Vec<f64>,
    /// Per trigger, the calls made for it.
    calls: BTreeMap<String, Vec<Call>>,
    /// Per trigger: how its words came ("on time", "late: ...", "dropped: ...").
    words: BTreeMap<String, BTreeMap<String, usize>>,
    triggers: BTreeMap<String, usize>,
}

pub async fn run(config: Config, url: Option<String>, plan: Plan, json_out: &Path) -> anyhow::Result<()> {
    let Plan { matches, moves, .. } = plan;
    let llama = match &url {
        Some(_) => None,
        None => Some(Llama::start().await?),
    };
    let url = url
        .or_else(|| llama.as_ref().map(|l| l.url.clone()))
        .unwrap_or_default();
    println!("llm bench: {matches} matches x {moves} moves, scripted then {url}");
    let scripted = play(config.clone(), None, plan).await?;
    let model = play(config, Some(url.clone()), plan).await?;
    let p = pct;
    for (name, played) in [("scripted", &scripted), ("model", &model)] {
        println!(
            "{name:<9} move->reply p50 {:>7.1} ms  p99 {:>7.1} ms  ({} moves)",
            p(&played.reply_ms, 0.5),
            p(&played.reply_ms, 0.99),
            played.reply_ms.len()
        );
    }
    let ratio = p(&model.reply_ms, 0.99) / p(&scripted.reply_ms, 0.99).max(0.001);
    println!("model/scripted p99 ratio {ratio:.2} (goal <= 1.5)");
    println!(
        "prompt tokens served from the server's cache: {:.0}%",
        cached_share(&model) * 100.0
    );
    println!(
        "{:<18} {:>6} {:>6} {:>9} {:>8} {:>7} {:>7} {:>7} {:>8}  words",
        "trigger", "fired", "calls", "calls p50", "answered", "prompt", "cached", "output", "call ms"
    );
    for (trigger, fired) in &model.triggers {
        let calls = model.calls.get(trigger).cloned().unwrap_or_default();
        let answered = calls.iter().filter(|c| c.answered);
        let col = |f: fn(&Call) -> i64| -> Vec<f64> { answered.clone().map(|c| f(c) as f64).collect() };
        let words: Vec<String> = model
            .words
            .get(trigger)
            .map(|w| w.iter().map(|(k, n)| format!("{k} {n}")).collect())
            .unwrap_or_default();
        println!(
            "{trigger:<18} {fired:>6} {:>6} {:>9.0} {:>8} {:>7.0} {:>7.0} {:>7.0} {:>8.0}  {}",
            calls.len(),
            p(&calls_per_firing(&calls, *fired), 0.5),
            answered.clone().count(),
            p(&col(|c| c.prompt), 0.5),
            p(&col(|c| c.cached), 0.5),
            p(&col(|c| c.output), 0.5),
            p(&col(|c| c.ms), 0.5),
            words.join(", ")
        );
    }
    println!("(calls p50: per firing of the trigger, 0 for a firing with none; tokens and ms: p50 of answered calls)");
    let figures = json!({
        "endpoint": url, "matches": matches, "moves": moves, "think_ms": plan.think.as_millis() as u64,
        "scripted": { "reply_ms_p50": p(&scripted.reply_ms, 0.5), "reply_ms_p99": p(&scripted.reply_ms, 0.99) },
        "model": { "reply_ms_p50": p(&model.reply_ms, 0.5), "reply_ms_p99": p(&model.reply_ms, 0.99) },
        "p99_ratio": ratio,
        "calls_per_trigger": model.calls.iter().map(|(k, v)| (k.clone(), v.len())).collect::<BTreeMap<_, _>>(),
        "calls_per_firing_p50": model.triggers.iter().map(|(k, fired)| {
            let calls = model.calls.get(k).cloned().unwrap_or_default();
            (k.clone(), p(&calls_per_firing(&calls, *fired), 0.5))
        }).collect::<BTreeMap<_, _>>(),
        "cached_prompt_share": cached_share(&model),
        "fired": model.triggers,
    });
    write_figures(json_out, &figures)?;
    drop(llama);
    Ok(())
}

/// Plays `matches` matches of `moves` moves on a runtime of its own.
async fn play(config: Config, url: Option<String>, plan: Plan) -> anyhow::Result<Played> {
    let data = tempfile::tempdir()?;
    let dir = data.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let threads = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let played = threads.block_on(play_all(config, url, plan, &dir));
        drop(threads);
        played
    })
    .await?
}

async fn play_all(mut config: Config, url: Option<String>, plan: Plan, data: &Path) -> anyhow::Result<Played> {
    let Plan { matches, moves, think } = plan;
    let think = if url.is_some() { think } else { Duration::ZERO };
    config.data_dir = data.to_path_buf();
    config.database_url = format!("sqlite://{}", data.join("kibitz.db").display());
    config.vectors_dir = data.join("vectors");
    config.llm.url = url;
    config.llm.detect_ollama = false;
    config.chat_per_minute = 1_000_000;
    config.limits = kibitz::config::LimitsConfig::unlimited();
    let runtime = Runtime::start(config).await?;
    let (player, _) = runtime.create_player("Bench").await?;
    let mut played = Played::default();
    let mut ids = Vec::new();
    for n in 0..matches {
        let created = runtime.create_match(player.id, MatchRequest::new("viktor")).await?;
        let id = created.state.id;
        ids.push(id);
        let mut state = created.state;
        for turn in 0..moves {
            if state.status != MatchStatus::Active {
                break;
            }
            // The same moves both times: a pick by the turn and the match.
            let legal = &state.legal_moves;
            let pick = legal[(turn * 7 + n * 3) % legal.len()].san.clone();
            let started = Instant::now();
            let outcome = runtime.command(id, UserCommand::Move(pick)).await?;
            played.reply_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            state = outcome.state;
            // A player thinks; the persona's words have time to come.
            tokio::time::sleep(think).await;
        }
        let _ = runtime.command(id, UserCommand::Resign).await;
    }
    // The last words land (a chat reply's deadline at most).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let db = &runtime.shared().db;
    for (n, id) in ids.into_iter().enumerate() {
        for t in db.triggers(id).await? {
            *played.triggers.entry(t.trigger.clone()).or_default() += 1;
            let words = t
                .actions
                .get("words")
                .and_then(|w| w.as_str())
                .map_or("on time", |w| w.split(':').next().unwrap_or(w));
            *played
                .words
                .entry(t.trigger.clone())
                .or_default()
                .entry(words.to_string())
                .or_default() += 1;
        }
        for call in db.llm_calls(id).await? {
            let trigger = call
                .request
                .split("Trigger: ")
                .nth(1)
                .and_then(|r| r.split(|c: char| !c.is_alphanumeric() && c != '_').next())
                .unwrap_or(call.role.as_str())
                .to_string();
            played.calls.entry(trigger).or_default().push(Call {
                prompt: call.prompt_tokens,
                output: call.completion_tokens,
                cached: call.cached_tokens,
                ms: call.latency_ms,
                answered: call.error.is_none(),
                firing: (n, move_count(&call.request)),
            });
        }
    }
    Ok(played)
}

/// Calls per firing of a trigger fired `fired` times: a firing with no
/// call counts 0.
fn calls_per_firing(calls: &[Call], fired: usize) -> Vec<f64> {
    let mut per: BTreeMap<(usize, i64), usize> = BTreeMap::new();
    for c in calls {
        *per.entry(c.firing).or_default() += 1;
    }
    let mut counts: Vec<f64> = per.values().map(|n| *n as f64).collect();
    counts.resize(fired.max(counts.len()), 0.0);
    counts
}

/// The share of all prompt tokens the server had cached.
fn cached_share(played: &Played) -> f64 {
    let all = played.calls.values().flatten().filter(|c| c.answered);
    let (cached, prompt) = all.fold((0, 0), |(c, p), call| (c + call.cached, p + call.prompt));
    cached as f64 / prompt.max(1) as f64
}

/// The move count in a main-agent request's context (`"move_count":N`).
fn move_count(request: &str) -> i64 {
    let Some(at) = request.find("move_count") else {
        return -1;
    };
    let digits: String = request[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(-1)
}

/// The tests' llama-server (scripts/llama-server.sh builds it once), on a
/// free port; killed on drop.
struct Llama {
    child: Child,
    url: String,
}

impl Llama {
    async fn start() -> anyhow::Result<Llama> {
        let out = Command::new("scripts/llama-server.sh")
            .stderr(Stdio::inherit())
            .output()?;
        anyhow::ensure!(out.status.success(), "scripts/llama-server.sh failed");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let value = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).map(PathBuf::from);
        let (Some(bin), Some(model)) = (value("LLAMA_SERVER="), value("LLAMA_MODEL=")) else {
            anyhow::bail!("scripts/llama-server.sh printed no LLAMA_SERVER/LLAMA_MODEL: {text}");
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new(bin)
            .arg("-m")
            .arg(model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "1", "-c", "8192", "-np", "2", "--jinja", "--no-webui"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let llama = Llama {
            child,
            url: format!("http://127.0.0.1:{port}/v1"),
        };
        let (http, started) = (reqwest::Client::new(), Instant::now());
        while started.elapsed() < Duration::from_secs(120) {
            let health = http.get(format!("http://127.0.0.1:{port}/health")).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                return Ok(llama);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        anyhow::bail!("llama-server was not healthy within 120 s")
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
