//! `kibitz bench live`: a load generator. It starts a real `kibitz serve` on
//! loopback (or uses `--url`), opens N matches over WebSocket, each playing a
//! move every `--move-every` seconds (a rematch when a game ends, so N stay
//! open) and chatting now and then, while a tenth
//! of the players go quiet to be nudged. It reports move->reply latency (the
//! user's move sent to the persona's move received), lost and duplicated
//! events (against the server's stored stream), idle_wait lateness, and the
//! server's peak RSS. Figures are printed and written as JSON.

mod args;
mod board;
mod client;
mod club;
mod flood;
mod phases;
mod report;
mod server;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::Message;

pub use args::LiveArgs;
use board::{Frame, Game};
use club::{Club, Shared};
use kibitz::config::Config;
use kibitz::events::{EventBody, Side};
use kibitz::triggers::TriggerKind;
use report::{CpuUse, ServerView, Tally, report};
use server::own_cpu_seconds;

/// The shortest first nudge, in move intervals: players who keep moving are
/// never nudged, only the quiet ones (nudges come `first_after_secs *
/// idle_time_scale` after the last act).
const NUDGE_AFTER_MOVES: f64 = 3.0;
const QUIET_SHARE: usize = 10;
pub(super) const WINDOW: Duration = Duration::from_secs(10);
/// How long the reply to a move sent just before the deadline may take.
const LAST_REPLY_WAIT: Duration = Duration::from_secs(10);

pub async fn run(config: &Config, args: LiveArgs) -> anyhow::Result<()> {
    let report = match args.flood > 0.0 {
        false => run_once(config, &args, false).await?,
        true => {
            eprintln!("live: run 1 of 2, without the flood");
            let quiet = run_once(config, &args, false).await?;
            eprintln!("live: run 2 of 2, with {} match creations a second", args.flood);
            let flooded = run_once(config, &args, true).await?;
            report::compare_flood(&args, quiet, flooded)
        }
    };
    if let Some(dir) = args.json.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&args.json, serde_json::to_string_pretty(&report)?)?;
    println!("figures written to {}", args.json.display());
    Ok(())
}

/// One load on a server of its own (or `--url`), flooded or not: its report.
async fn run_once(config: &Config, args: &LiveArgs, flooded: bool) -> anyhow::Result<Value> {
    let personas = kibitz::personas::load_dir(&config.personas_dir)?;
    let shortest = personas
        .iter()
        .map(|p| p.idle.first_after_secs)
        .fold(f64::MAX, f64::min);
    let idle_scale = NUDGE_AFTER_MOVES * args.move_every / shortest;
    if args.url.is_some() {
        eprintln!("live: expecting the server to run with KIBITZ_IDLE_TIME_SCALE={idle_scale}");
    }
    let club = match &args.url {
        Some(url) => Club::remote(url),
        None => {
            let engine = [
                ("KIBITZ_ENGINE_MOVETIME_MS", args.engine_movetime_ms.to_string()),
                ("KIBITZ_ENGINE_NODES", args.engine_nodes.to_string()),
                ("KIBITZ_EVAL_NODES", args.eval_nodes.to_string()),
                ("KIBITZ_EVAL_DEEP_NODES", args.eval_deep_nodes.to_string()),
                ("KIBITZ_BUSY_ENGINE_WAIT_MS", args.busy_engine_wait_ms.to_string()),
                ("KIBITZ_BUSY_LAG_MS", args.busy_lag_ms.to_string()),
                ("KIBITZ_BUSY_COMMIT_WAIT_MS", args.busy_commit_wait_ms.to_string()),
            ];
            let shared = Shared {
                database_url: args.database_url.as_deref(),
                qdrant_url: args.qdrant_url.as_deref(),
            };
            Club::start(config, args.nodes.max(1), shared, idle_scale, &engine).await?
        }
    };
    let server = club.first();
    let idle_after: Vec<(String, f64)> = personas
        .iter()
        .map(|p| (p.id.to_string(), p.idle.first_after_secs * idle_scale))
        .collect();
    let mut tally = Tally::default();
    let played = Arc::new(Mutex::new(Vec::new()));
    let http = reqwest::Client::new();
    eprintln!("live: opening {} matches against {}", args.matches, server.base);
    let opening = Instant::now();
    let (ready_tx, mut ready) = mpsc::channel::<()>(args.matches.max(1));
    let (start_tx, start) = watch::channel(None);
    let mut tasks = Vec::new();
    for i in 0..args.matches {
        let (base, ws_base) = club.bases(i);
        let ctx = MatchCtx {
            http: http.clone(),
            base,
            ws_base,
            played: played.clone(),
            quiet: i % QUIET_SHARE == QUIET_SHARE - 1,
            move_every: Duration::from_secs_f64(args.move_every),
            chat_every: args.chat_every,
            idle_after: idle_after.clone(),
            seed: i as u64,
        };
        let (ready, start) = (ready_tx.clone(), start.clone());
        tasks.push(tokio::spawn(async move { ctx.run(ready, start).await }));
    }
    drop(ready_tx);
    // The load (and its clock, CPU and latencies) begins once every match
    // is open: opening 1,000 at once is a burst of its own, timed apart.
    let mut open = 0;
    while open < args.matches && ready.recv().await.is_some() {
        open += 1;
        if open % 100 == 0 {
            eprintln!("live: {open} matches open");
        }
    }
    let opened_s = opening.elapsed().as_secs_f64();
    eprintln!(
        "live: {open} matches opened in {opened_s:.1} s; the load runs for {} s",
        args.seconds
    );
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let cpu_before = (club.cpu(), own_cpu_seconds());
    let phases = phases::watch(server, deadline).await;
    let _ = start_tx.send(Some((started, deadline)));
    let flood = flooded.then(|| {
        let ids = personas.iter().map(|p| p.id.to_string()).collect();
        tokio::spawn(flood::flood(server.base.clone(), ids, args.flood, deadline))
    });
    let rss: Vec<_> = club.nodes.iter().map(|node| node.watch_rss(deadline)).collect();
    for t in tasks {
        if let Ok(Err(e)) = t.await {
            tracing::warn!("a match failed: {e:#}");
            tally.errors += 1;
        }
    }
    let flood = match flood {
        Some(task) => Some(task.await?.to_json()),
        None => None,
    };
    let mut peak_rss_mb: f64 = 0.0;
    for node in rss {
        peak_rss_mb = peak_rss_mb.max(node.await.unwrap_or(0) as f64 / 1024.0);
    }
    let (cpu_after, own_after) = (club.cpu(), own_cpu_seconds());
    let cpu = CpuUse {
        server_s: cpu_after.server - cpu_before.0.server,
        engines_s: cpu_after.engines - cpu_before.0.engines,
        spare_engines_s: cpu_after.spare_engines - cpu_before.0.spare_engines,
        generator_s: own_after - cpu_before.1,
    };
    let watched = phases.finish().await;
    let played = std::mem::take(&mut *played.lock().expect("played"));
    check_all(&http, &server.base, played, &mut tally).await;
    let server_view = ServerView {
        embedding: watched.embedding,
        phases: phases::report(&watched.snapshots),
        deep: watched.deep,
        searches: watched.searches,
    };
    let mut report = report(args, &mut tally, opened_s, peak_rss_mb, cpu, server_view)?;
    if let Some(flood) = flood {
        println!("live: the flood: {flood}");
        report["flood"] = flood;
    }
    Ok(report)
}

pub(super) struct MatchCtx {
    pub(super) http: reqwest::Client,
    pub(super) base: String,
    /// Where its WebSockets go (another node of a club, in turn).
    pub(super) ws_base: String,
    /// Every game played, checked against the store once the load is over.
    played: Arc<Mutex<Vec<Played>>>,
    /// Plays two moves, then stays quiet to be nudged.
    quiet: bool,
    move_every: Duration,
    chat_every: u32,
    pub(super) idle_after: Vec<(String, f64)>,
    pub(super) seed: u64,
}

/// When the load begins (every match open) and ends.
type Start = watch::Receiver<Option<(Instant, Instant)>>;

pub(super) type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One game's view, kept until the load is over.
struct Played {
    id: String,
    token: String,
    play: Play,
}

/// Each game's events against what the server stored, once the load is over
/// (reading them meanwhile would be load no player makes).
async fn check_all(http: &reqwest::Client, base: &str, played: Vec<Played>, tally: &mut Tally) {
    eprintln!(
        "live: checking {} games' events against the server's store",
        played.len()
    );
    let mut checks = futures_util::stream::iter(played)
        .map(|p| async move {
            let lost = lost_events(http, base, &p).await;
            (p.play, lost)
        })
        .buffer_unordered(16);
    while let Some((mut play, lost)) = checks.next().await {
        match lost {
            Ok(lost) => play.tally.lost = lost,
            Err(e) => {
                tracing::warn!("a match's events could not be checked: {e:#}");
                tally.errors += 1;
            }
        }
        // What was timed stands even if the store could not be read.
        play.tally.duplicated = play.duplicated;
        play.tally.events = play.seen.len();
        play.tally.matches = 1;
        tally.absorb(play.tally);
    }
}

/// Against what the server stored: anything it has up to the last event
/// we saw, and we never saw, was lost.
async fn lost_events(http: &reqwest::Client, base: &str, Played { id, token, play }: &Played) -> anyhow::Result<usize> {
    let stored: Value = http
        .get(format!("{base}/api/matches/{id}/events"))
        .bearer_auth(token)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let stored: BTreeSet<i64> = stored
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    let last = play.seen.last().copied().unwrap_or(0);
    Ok(stored.difference(&play.seen).filter(|s| **s <= last).count())
}

/// One match's view while it runs.
struct Play {
    game: Game,
    seen: BTreeSet<i64>,
    duplicated: usize,
    sent_at: Option<Instant>,
    /// When it last became the user's turn: the idle timer starts then.
    turn_since: Instant,
    my_moves: usize,
    tally: Tally,
    started: Instant,
    quiet: bool,
}

impl MatchCtx {
    /// One player: opens a match, says so on `ready`, and once the load
    /// starts plays it, then another (a rematch) when it ends, until the deadline.
    async fn run(self, ready: mpsc::Sender<()>, mut start: Start) -> anyhow::Result<()> {
        let mut rng = StdRng::seed_from_u64(self.seed);
        let opened = self.open().await;
        let _ = ready.send(()).await;
        let (player_id, token, mut next) = opened?;
        let (started, deadline) = loop {
            if let Some(times) = *start.borrow_and_update() {
                break times;
            }
            start
                .changed()
                .await
                .context("the bench stopped before the load began")?;
        };
        loop {
            let (id, idle_after, ws) = next;
            let mut play = Play::new(started, self.quiet);
            let outcome = self.play(ws, &mut play, idle_after, &mut rng, deadline).await;
            let played = Played {
                id,
                token: token.clone(),
                play,
            };
            self.played.lock().expect("played").push(played);
            outcome?;
            if Instant::now() >= deadline {
                return Ok(());
            }
            next = match self.rematch(&player_id, &token, deadline).await? {
                Some(next) => next,
                None => return Ok(()),
            };
        }
    }

    async fn open(&self) -> anyhow::Result<(Value, String, (String, f64, Ws))> {
        let (player_id, token) = self.new_player().await?;
        let first = self.new_match(&player_id, &token).await?;
        Ok((player_id, token, first))
    }

    /// Moves (and chats) on a timer until the game ends or the deadline
    /// comes; what was seen is in `play` even if the WebSocket fails.
    async fn play(
        &self,
        ws: Ws,
        play: &mut Play,
        idle_after: f64,
        rng: &mut StdRng,
        deadline: Instant,
    ) -> anyhow::Result<()> {
        let (mut sink, mut stream) = ws.split();
        let mut next_move = Instant::now() + self.move_every.mul_f64(rng.r#gen::<f64>());
        while Instant::now() < deadline && !play.game.over {
            let wait = next_move
                .saturating_duration_since(Instant::now())
                .min(deadline - Instant::now());
            match tokio::time::timeout(wait, stream.next()).await {
                Ok(frame) => play.read(frame, idle_after)?,
                // The deadline, not the move timer: every match would send
                // at this instant, a burst no real load has.
                Err(_) if Instant::now() >= deadline => break,
                Err(_) => {
                    next_move = Instant::now() + self.move_every;
                    if self.quiet && play.my_moves >= 2 {
                        continue;
                    }
                    if let Some(cmd) = play.next_command(rng, self.chat_every) {
                        sink.send(Message::Text(cmd.to_string().into())).await?;
                    }
                }
            }
        }
        // A move sent before the deadline counts, however late its reply:
        // leaving it out would hide the slowest replies of all.
        let grace = Instant::now() + LAST_REPLY_WAIT;
        while play.sent_at.is_some() && !play.game.over {
            match tokio::time::timeout_at(grace.into(), stream.next()).await {
                Ok(frame) => play.read(frame, idle_after)?,
                Err(_) => bail!("the last move had no reply within {LAST_REPLY_WAIT:?}"),
            }
        }
        Ok(())
    }
}

impl Play {
    fn new(started: Instant, quiet: bool) -> Play {
        Play {
            game: Game::default(),
            seen: BTreeSet::new(),
            duplicated: 0,
            sent_at: None,
            turn_since: Instant::now(),
            my_moves: 0,
            tally: Tally::default(),
            started,
            quiet,
        }
    }

    /// One read from the WebSocket: an event is observed, the socket's end is an error.
    fn read(
        &mut self,
        frame: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        idle_after: f64,
    ) -> anyhow::Result<()> {
        match frame {
            Some(Ok(Message::Text(t))) => self.observe(&Frame::read(t.as_str())?, idle_after),
            Some(Ok(_)) => {}
            _ => bail!("the WebSocket closed"),
        }
        Ok(())
    }

    fn observe(&mut self, frame: &Frame, idle_after: f64) {
        let Frame::Event(event) = frame else {
            return self.game.observe(frame);
        };
        self.duplicated += usize::from(!self.seen.insert(event.seq));
        self.game.observe(frame);
        let persona_moved = matches!(&event.body, EventBody::Move(m) if m.side == Side::Persona);
        if persona_moved {
            self.turn_since = Instant::now();
        }
        if persona_moved && let Some(at) = self.sent_at.take() {
            let window = at.saturating_duration_since(self.started).as_secs() / WINDOW.as_secs();
            self.tally.answered(window as usize, at.elapsed().as_secs_f64() * 1e3);
        }
        // The first nudge after going quiet: how long after it was due.
        let nudged = matches!(&event.body, EventBody::Trigger(t) if t.trigger == TriggerKind::IdleWait);
        // Only a quiet player's, once quiet: a nudge that came while every
        // match was being opened says nothing about the timers under load.
        if nudged && self.quiet && self.my_moves >= 2 && self.tally.idle_lateness_ms.is_empty() {
            let late = self.turn_since.elapsed().as_secs_f64() - idle_after;
            self.tally.idle_lateness_ms.push((late * 1e3).max(0.0));
        }
    }

    /// A move (or now and then a chat line) if it is the user's turn.
    fn next_command(&mut self, rng: &mut StdRng, chat_every: u32) -> Option<Value> {
        let uci = self.game.pick(rng).filter(|_| self.sent_at.is_none())?;
        if chat_every > 0 && rng.gen_range(0..chat_every) == 0 {
            // A chat on the user's turn re-arms the idle timer.
            self.turn_since = Instant::now();
            // Different words each time, as people's are: a repeated line
            // would be answered from the embedder's memo, not the model.
            let text = format!(
                "nice game so far, move {}; I had {} minutes left on my clock",
                self.my_moves,
                rng.gen_range(1..100_000)
            );
            return Some(json!({ "type": "chat", "text": text }));
        }
        self.sent_at = Some(Instant::now());
        self.my_moves += 1;
        Some(json!({ "type": "move", "move": uci }))
    }
}
