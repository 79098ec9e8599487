//! `kibitz bench recall`: does the subconscious hand over the memory that
//! matters, in moments a club player would recognise? A server runs on a
//! temp data dir; each moment gets a fresh player whose earlier matches are
//! played through the API (a resignation is a loss, a mate in one a win, a
//! bare-kings capture a draw) and whose labelled memories are then stored
//! the way the product stores memories. The moment itself is played through
//! the API too (a start position, moves, chat lines, draw offers, an idle
//! wait, a resignation), and the trigger log says what was recalled. Figures
//! are printed and written as JSON, never asserted.

mod set;
mod trace;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use kibitz::chess::Game;
use kibitz::chess::openings;
use kibitz::config::Config;
use kibitz::ids::{MatchId, MemoryId, PlayerId};
use kibitz::memory::{CreatedBy, MemoryType, NewMemory, PositionTag};
use kibitz::runtime::Runtime;
use kibitz::subconscious::RecallTrace;
use kibitz::subconscious::relevance::board::TracedMoment;

use set::{CaseScore, Ledger, Moment, MomentSet, PastMatch, PastResult, Profile, Step};

/// Idle delays run at this share of the personas' own (30-60 s: 1.5-3 s).
const IDLE_SCALE: f64 = 0.05;

/// What to play and where the figures (and, with `trace`, the board
/// moments' candidates) go.
pub struct Plan<'a> {
    pub set: &'a Path,
    pub only: Option<&'a str>,
    /// How many times each moment is played; the figures are the mean.
    pub runs: usize,
    pub out: &'a Path,
    pub trace: Option<&'a Path>,
}

pub async fn run(config: &Config, plan: Plan<'_>) -> anyhow::Result<()> {
    let set = MomentSet::load(plan.set)?;
    let data = tempfile::tempdir()?;
    let (config, only, out, dir) = (
        config.clone(),
        (plan.only.map(str::to_string), plan.runs),
        (plan.out.to_path_buf(), plan.trace.map(Path::to_path_buf)),
        data.path().to_path_buf(),
    );
    // The server runs on a runtime of its own, dropped (and with it every
    // task holding the vector index, which flushes on drop) while the data
    // dir still exists.
    tokio::task::spawn_blocking(move || {
        let threads = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let played = threads.block_on(play_all(&config, &set, (only.0.as_deref(), only.1), &out, &dir));
        drop(threads);
        played
    })
    .await?
}

async fn play_all(
    config: &Config,
    set: &MomentSet,
    (only, runs): (Option<&str>, usize),
    (out, trace): &(PathBuf, Option<PathBuf>),
    data: &Path,
) -> anyhow::Result<()> {
    let bench = Bench::start(config, data, trace.is_some()).await?;
    let cases: Vec<&Moment> = set
        .cases
        .iter()
        .filter(|c| only.is_none_or(|o| c.id.contains(o)))
        .collect();
    anyhow::ensure!(!cases.is_empty(), "no case matches");
    let started = Instant::now();
    let (mut scores, mut traced) = (Vec::new(), Vec::new());
    // Each run plays every moment with fresh players; a moment scored in
    // every run counts once a run, so the figures are the runs' mean.
    let plays = (0..runs).flat_map(|_| cases.iter());
    for (i, case) in plays.enumerate() {
        let profile = &set.profiles[&case.profile];
        let (score, weighed) = bench
            .play(i, case, profile)
            .await
            .with_context(|| format!("case {}", case.id))?;
        traced.extend(weighed);
        eprintln!(
            "recall {}/{} {:<34} {:<17} got [{}] wanted [{}]",
            i + 1,
            cases.len() * runs,
            case.id,
            case.trigger,
            score.recalled.join(", "),
            score.relevant.join(", ")
        );
        scores.push(score);
    }
    bench.runtime.shutdown().await;
    if let Some(path) = trace {
        trace::write(path, &traced)?;
    }
    let (overall, per_kind) = set::report(&scores);
    println!(
        "recall: {} moments, {runs} run(s) each, in {:.0} s",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "{:<18} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "trigger", "cases", "P@3", "R@3", "hit@3", "MRR", "lore", "cross"
    );
    let rows = std::iter::once(("all".to_string(), &overall)).chain(per_kind.iter().map(|(k, s)| (k.clone(), s)));
    for (kind, s) in rows {
        println!(
            "{kind:<18} {:>5} {:>6.2} {:>6.2} {:>6.2} {:>6.2} {:>6.2} {:>6}",
            s.cases, s.precision_at_3, s.recall_at_3, s.hit_at_3, s.mrr, s.lore_share, s.cross_player_hits
        );
    }
    println!(
        "lore share of the slots where the player had a relevant memory: {:.2}",
        overall.lore_share_when_relevant
    );
    let report = json!({ "overall": overall, "per_trigger": per_kind, "cases": scores });
    crate::bench::write_figures(out, &report)
}

/// The server under test, reached over HTTP, and the runtime behind it for
/// storing the labelled memories.
struct Bench {
    runtime: Runtime,
    base: String,
    http: reqwest::Client,
    ledger: std::sync::Mutex<Ledger>,
    /// The board moments' candidates, kept with `--trace`.
    trace: Option<std::sync::Arc<RecallTrace>>,
}

impl Bench {
    async fn start(config: &Config, data: &Path, trace: bool) -> anyhow::Result<Bench> {
        let mut config = config.clone();
        config.data_dir = data.to_path_buf();
        config.database_url = format!("sqlite://{}", data.join("kibitz.db").display());
        config.vectors_dir = data.join("vectors");
        config.idle_time_scale = IDLE_SCALE;
        config.chat_per_minute = 1_000_000;
        config.limits = kibitz::config::LimitsConfig::unlimited();
        config.memory_writes_per_minute = 1_000_000;
        let runtime = Runtime::start(config).await?;
        wait_for_vocabulary(&runtime).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let router = kibitz::server::router(runtime.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });
        let mut ledger = Ledger::default();
        for persona in runtime.personas().iter() {
            ledger
                .lore
                .extend(runtime.shared().db.lore(&persona.id).await?.iter().map(|m| m.id));
        }
        Ok(Bench {
            base,
            http: reqwest::Client::new(),
            ledger: std::sync::Mutex::new(ledger),
            trace: trace.then(|| runtime.trace_recall()),
            runtime,
        })
    }

    /// One moment with a fresh player: history, memories, the moment, its
    /// score (and its candidates, traced).
    async fn play(
        &self,
        tag: usize,
        case: &Moment,
        profile: &Profile,
    ) -> anyhow::Result<(CaseScore, Option<TracedMoment>)> {
        let (player, token) = self.new_player(&profile.name).await?;
        let client = Client {
            bench: self,
            token,
            player,
        };
        for past in &profile.history {
            client.past_match(&profile.persona, past).await?;
        }
        client.forget_everything().await?;
        self.store_memories(tag, player, profile).await?;
        let match_id = client
            .new_match(&profile.persona, &case.color, case.fen.as_deref())
            .await?;
        for step in &case.steps {
            client.step(&match_id, step).await?;
        }
        let recalled = client.recalled_at(&match_id, &case.trigger).await?;
        let id: MatchId = match_id.parse()?;
        let weighed = self.trace.as_ref().map(|t| t.take(id)).unwrap_or_default();
        client.end_match(&match_id).await?;
        if let Some(t) = &self.trace {
            t.take(id);
        }
        let ledger = self.ledger.lock().expect("ledger lock");
        let owners: Vec<_> = recalled.into_iter().map(|id| ledger.owner(id, tag)).collect();
        let traced = trace::labelled(case, weighed, &ledger, tag);
        Ok((set::score(case, &owners), traced))
    }

    async fn new_player(&self, name: &str) -> anyhow::Result<(PlayerId, String)> {
        let created = send(
            self.http
                .post(format!("{}/api/players", self.base))
                .json(&json!({ "name": name })),
        )
        .await?;
        let id = created["id"].as_str().context("player id")?.parse()?;
        Ok((id, created["token"].as_str().context("player token")?.to_string()))
    }

    /// Saves the profile's memories through the memory service, as the
    /// agents' save_memory does (write policy, index, position tag).
    async fn store_memories(&self, tag: usize, player: PlayerId, profile: &Profile) -> anyhow::Result<()> {
        for m in &profile.memories {
            let saved = self
                .runtime
                .shared()
                .memory
                .save(NewMemory {
                    player_id: player,
                    persona_id: profile.persona.as_str().into(),
                    memory_type: m.memory_type.parse::<MemoryType>()?,
                    content: m.content.clone(),
                    related_match_id: None,
                    created_by: CreatedBy::MainAgent,
                    metadata: json!({}),
                    importance: 0.5,
                    position: m.moves.as_deref().map(position_after).transpose()?,
                })
                .await?;
            self.ledger
                .lock()
                .expect("ledger lock")
                .stored
                .insert(saved.memory.id, (tag, m.key.clone()));
        }
        Ok(())
    }
}

/// The board after `moves` (SAN from the start), as a memory made there keeps it.
fn position_after(moves: &str) -> anyhow::Result<PositionTag> {
    let mut game = Game::new(None)?;
    for san in moves.split_whitespace() {
        let m = game.parse(san).with_context(|| format!("{san} in {moves}"))?;
        game.play(m);
    }
    let opening = openings::book().classify(&game);
    Ok(PositionTag {
        key: openings::position_key(game.position()),
        eco: opening.map(|o| o.eco.clone()),
        opening: opening.map(|o| o.name.clone()),
    })
}

async fn wait_for_vocabulary(runtime: &Runtime) -> anyhow::Result<()> {
    let started = Instant::now();
    while !runtime.models_ready() {
        if started.elapsed() > Duration::from_secs(600) {
            bail!("the situation vocabulary, the listener or recall's relevance model was not ready within 600 s");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

/// One player's side of the API.
struct Client<'a> {
    bench: &'a Bench,
    token: String,
    player: PlayerId,
}

/// Earlier results, played for real: a mate in one for a win, taking the
/// last pawn (bare kings) for a draw, a resignation for a loss.
const MATE_IN_ONE: (&str, &str) = ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 30", "Ra8#");
const BARE_KINGS: (&str, &str) = ("8/8/4k3/8/8/3pK3/8/8 w - - 0 60", "Kxd3");

impl Client<'_> {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.bench.base)
    }

    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        send(
            self.bench
                .http
                .post(self.url(path))
                .bearer_auth(&self.token)
                .json(&body),
        )
        .await
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        send(self.bench.http.get(self.url(path)).bearer_auth(&self.token)).await
    }

    async fn new_match(&self, persona: &str, color: &str, fen: Option<&str>) -> anyhow::Result<String> {
        let body = json!({ "player_id": self.player.to_string(), "persona_id": persona, "color": color, "fen": fen });
        let created = self.post("/api/matches", body).await?;
        Ok(created["state"]["id"].as_str().context("match id")?.to_string())
    }

    async fn past_match(&self, persona: &str, past: &PastMatch) -> anyhow::Result<()> {
        let result = match past {
            PastMatch::Result(result) => *result,
            PastMatch::Opened { opened, color } => return self.past_opening(persona, opened, color).await,
        };
        let finish = match result {
            PastResult::Lost => None,
            PastResult::Won => Some(MATE_IN_ONE),
            PastResult::Drew => Some(BARE_KINGS),
        };
        let id = self.new_match(persona, "white", finish.map(|(fen, _)| fen)).await?;
        match finish {
            Some((_, mv)) => self.step(&id, &Step::Move(mv.into())).await,
            None => self.step(&id, &Step::Resign).await,
        }
    }

    /// A game in which the player played these moves (the persona's
    /// replies are its own), then resigned.
    async fn past_opening(&self, persona: &str, moves: &str, color: &str) -> anyhow::Result<()> {
        let id = self.new_match(persona, color, None).await?;
        if color == "black" {
            self.wait_for_turn(&id).await?;
        }
        for san in moves.split_whitespace() {
            match self.step(&id, &Step::Move(san.into())).await {
                Ok(()) => {}
                // The persona answered otherwise than the set's writer
                // foresaw: the game's opening is what was played till then.
                Err(e) if e.to_string().contains("illegal_move") => {
                    eprintln!("recall: {san} of {moves} no longer legal; that game ends there");
                    break;
                }
                // The persona's own reply ended it (a mate the line walked into).
                Err(e) if e.to_string().contains("game_over") => {
                    eprintln!("recall: the game was over before {san} of {moves}");
                    return Ok(());
                }
                Err(e) => return Err(e.context(format!("playing {san} of {moves}"))),
            }
            self.wait_for_turn(&id).await?;
        }
        self.step(&id, &Step::Resign).await
    }

    /// Forgets what the product noted during the earlier matches, so the
    /// labelled memories are all the persona knows of the player.
    async fn forget_everything(&self) -> anyhow::Result<()> {
        let memories = self.get(&format!("/api/players/{}/memories", self.player)).await?;
        for m in memories.as_array().context("memory list")? {
            let id = m["id"].as_str().context("memory id")?;
            let r = self
                .bench
                .http
                .delete(self.url(&format!("/api/memories/{id}")))
                .bearer_auth(&self.token)
                .send()
                .await?;
            anyhow::ensure!(r.status().is_success(), "deleting memory {id}: {}", r.status());
        }
        Ok(())
    }

    async fn step(&self, id: &str, step: &Step) -> anyhow::Result<()> {
        let path = |what: &str| format!("/api/matches/{id}/{what}");
        match step {
            Step::Move(mv) => self.post(&path("moves"), json!({ "move": mv })).await?,
            Step::Chat(text) => self.post(&path("chat"), json!({ "text": text })).await?,
            Step::Draw(action) => self.post(&path("draw"), json!({ "action": action })).await?,
            Step::Resign => self.post(&path("resign"), json!({})).await?,
            Step::Idle => return self.wait_for_trigger(id, "idle_wait").await,
        };
        Ok(())
    }

    async fn wait_for_trigger(&self, id: &str, kind: &str) -> anyhow::Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if self.triggers(id).await?.iter().any(|t| t["trigger"] == kind) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        bail!("no {kind} trigger within 30 s")
    }

    /// Until the persona has answered: the player is to move, or the game is over.
    async fn wait_for_turn(&self, id: &str) -> anyhow::Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            let state = self.get(&format!("/api/matches/{id}")).await?;
            if state["status"] != "active" || state["your_turn"] == true {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("the persona did not move within 30 s")
    }

    async fn triggers(&self, id: &str) -> anyhow::Result<Vec<Value>> {
        let log = self.get(&format!("/api/matches/{id}/triggers")).await?;
        Ok(log.as_array().context("trigger log")?.clone())
    }

    /// What the last `kind` trigger of the match handed over, best first.
    async fn recalled_at(&self, id: &str, kind: &str) -> anyhow::Result<Vec<MemoryId>> {
        let log = self.triggers(id).await?;
        let entry = log
            .iter()
            .rev()
            .find(|t| t["trigger"] == kind)
            .with_context(|| format!("no {kind} in the trigger log"))?;
        let ids = entry["recalled_ids"].as_array().context("recalled_ids")?;
        ids.iter()
            .map(|v| Ok(v.as_str().context("a recalled id")?.parse()?))
            .collect()
    }

    /// Resigns a match still going, so its timers stop.
    async fn end_match(&self, id: &str) -> anyhow::Result<()> {
        let state = self.get(&format!("/api/matches/{id}")).await?;
        if state["status"] == "active" {
            self.post(&format!("/api/matches/{id}/resign"), json!({})).await?;
        }
        Ok(())
    }
}

async fn send(request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
    let response = request.send().await?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("{status}: {body}");
    }
    Ok(body)
}
