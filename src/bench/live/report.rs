//! What `kibitz bench live` adds up and prints: the matches' tallies, the
//! CPU each process spent, and the report (printed and written as JSON).

use anyhow::bail;
use serde_json::{Value, json};

use super::{LiveArgs, WINDOW};
use crate::bench::stats::percentile;

/// What every match reports back.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) latencies_ms: Vec<f64>,
    /// The same, by the `WINDOW` of the run the move was sent in: a tail
    /// that comes late (games ending in numbers) shows apart.
    pub(super) windows_ms: Vec<Vec<f64>>,
    pub(super) idle_lateness_ms: Vec<f64>,
    pub(super) lost: usize,
    pub(super) duplicated: usize,
    pub(super) events: usize,
    pub(super) errors: usize,
    pub(super) moves: usize,
    /// Matches played (a finished one is followed by a rematch).
    pub(super) matches: usize,
}

impl Tally {
    /// A move answered after `ms`, sent in `window` of the run.
    pub(super) fn answered(&mut self, window: usize, ms: f64) {
        self.latencies_ms.push(ms);
        self.window(window).push(ms);
        self.moves += 1;
    }

    /// Adds another match's tally to this one.
    pub(super) fn absorb(&mut self, t: Tally) {
        self.latencies_ms.extend(t.latencies_ms);
        for (i, window) in t.windows_ms.into_iter().enumerate() {
            self.window(i).extend(window);
        }
        self.idle_lateness_ms.extend(t.idle_lateness_ms);
        self.lost += t.lost;
        self.duplicated += t.duplicated;
        self.events += t.events;
        self.moves += t.moves;
        self.matches += t.matches;
    }

    fn window(&mut self, i: usize) -> &mut Vec<f64> {
        if self.windows_ms.len() <= i {
            self.windows_ms.resize(i + 1, Vec::new());
        }
        &mut self.windows_ms[i]
    }
}

/// CPU seconds over the run: where a move's cost goes on a machine this size.
pub(super) struct CpuUse {
    pub(super) server_s: f64,
    pub(super) engines_s: f64,
    /// The deeper evaluation's Stockfish, at the lowest priority.
    pub(super) spare_engines_s: f64,
    pub(super) generator_s: f64,
}

impl CpuUse {
    /// Milliseconds of each per answered move: server, live engines, spare
    /// engines, load generator.
    fn per_move_ms(&self, moves: usize) -> [f64; 4] {
        let per = |s: f64| s * 1e3 / moves.max(1) as f64;
        [
            per(self.server_s),
            per(self.engines_s),
            per(self.spare_engines_s),
            per(self.generator_s),
        ]
    }
}

/// What the server itself said: its embedding counters and its per-phase
/// timings of the load (each `Value::Null` when unknown).
pub(super) struct ServerView {
    pub(super) embedding: Value,
    pub(super) phases: Value,
    pub(super) deep: Value,
    pub(super) searches: Value,
}

pub(super) fn report(
    args: &LiveArgs,
    t: &mut Tally,
    opened_s: f64,
    peak_rss_mb: f64,
    cpu: CpuUse,
    server: ServerView,
) -> anyhow::Result<Value> {
    let ServerView {
        embedding,
        phases,
        deep,
        searches,
    } = server;
    if t.latencies_ms.is_empty() {
        bail!("no move was answered: is the server up?");
    }
    let (p50, p99) = (
        percentile(&mut t.latencies_ms, 0.5),
        percentile(&mut t.latencies_ms, 0.99),
    );
    let idle_max = t.idle_lateness_ms.iter().copied().fold(0.0, f64::max);
    let idle_p99 = match t.idle_lateness_ms.is_empty() {
        true => 0.0,
        false => percentile(&mut t.idle_lateness_ms, 0.99),
    };
    println!(
        "live: {} matches at once for {} s (opened in {opened_s:.1} s; {} games, rematches included): {} moves answered, \
         move->reply p50 {p50:.1} ms p99 {p99:.1} ms; {} events, {} lost, {} duplicated; \
         {} idle nudges, lateness p99 {:.0} ms max {:.0} ms; server peak RSS {peak_rss_mb:.0} MiB; {} match errors",
        args.matches,
        args.seconds,
        t.matches,
        t.moves,
        t.events,
        t.lost,
        t.duplicated,
        t.idle_lateness_ms.len(),
        idle_p99,
        idle_max,
        t.errors
    );
    let window_p99: Vec<f64> = t
        .windows_ms
        .iter_mut()
        .map(|w| if w.is_empty() { 0.0 } else { percentile(w, 0.99) })
        .collect();
    let shown: Vec<String> = window_p99.iter().map(|p| format!("{p:.0}")).collect();
    println!(
        "live: move->reply p99 by {} s of the run: {} ms",
        WINDOW.as_secs(),
        shown.join(" / ")
    );
    let [server_ms, engines_ms, spare_ms, generator_ms] = cpu.per_move_ms(t.moves);
    println!(
        "live: CPU per answered move: server {server_ms:.2} ms, Stockfish {engines_ms:.2} ms live + \
         {spare_ms:.2} ms spare (deeper evaluation, lowest priority), load generator {generator_ms:.2} ms \
         (run totals {:.1} / {:.1} / {:.1} / {:.1} s)",
        cpu.server_s, cpu.engines_s, cpu.spare_engines_s, cpu.generator_s
    );
    if let (Some(asked), Some(checked)) = (deep["asked"].as_u64(), deep["checked"].as_u64()) {
        println!(
            "live: deeper evaluation: {checked} of {asked} moves checked ({:.0}%), {} shed, {} still waiting",
            100.0 * checked as f64 / asked.max(1) as f64,
            deep["shed"],
            deep["waiting"]
        );
    }
    if let (Some(n), Some(short)) = (searches["searched"].as_u64(), searches["stopped_short"].as_u64()) {
        println!(
            "live: persona searches: {short} of {n} stopped by the time cap short of their nodes ({:.1}%), {} nodes on average",
            100.0 * short as f64 / n.max(1) as f64,
            searches["mean_nodes"]
        );
    }
    if let (Some(run), Some(hits)) = (embedding["texts_embedded"].as_u64(), embedding["memo_hits"].as_u64()) {
        let runs = embedding["model_runs"].as_u64().unwrap_or(0);
        println!("live: the server's model embedded {run} texts in {runs} runs and answered {hits} from its memo");
    }
    let per_s = |n: usize| n as f64 / args.seconds.max(1) as f64;
    println!(
        "live: {} node(s): {:.2} games/s, {:.1} moves/s answered",
        args.nodes.max(1),
        per_s(t.matches),
        per_s(t.moves)
    );
    let report = json!({
        "at": chrono::Utc::now(), "nodes": args.nodes.max(1), "games_per_s": per_s(t.matches), "moves_per_s": per_s(t.moves),
        "database": if args.database_url.is_some() { "postgres" } else { "sqlite" },
        "vectors": if args.qdrant_url.is_some() { "qdrant" } else { "embedded" },
        "matches": args.matches, "seconds": args.seconds, "opened_in_s": opened_s,
        "move_every_s": args.move_every, "chat_every": args.chat_every, "games": t.matches, "moves": t.moves,
        "move_reply_p50_ms": p50, "move_reply_p99_ms": p99, "move_reply_p99_ms_by_10s": window_p99,
        "events": t.events, "lost": t.lost, "duplicated": t.duplicated,
        "idle_nudges": t.idle_lateness_ms.len(), "idle_lateness_p99_ms": idle_p99, "idle_lateness_max_ms": idle_max,
        "server_peak_rss_mib": peak_rss_mb, "match_errors": t.errors,
        "engine_movetime_ms": args.engine_movetime_ms, "engine_nodes": args.engine_nodes, "eval_nodes": args.eval_nodes, "eval_deep_nodes": args.eval_deep_nodes,
        "embedding": embedding, "server_phases": phases, "deep_evaluations": deep, "persona_searches": searches,
        "cpu_ms_per_move": { "server": server_ms, "stockfish": engines_ms, "stockfish_spare": spare_ms, "load_generator": generator_ms },
        "busy_engine_wait_ms": args.busy_engine_wait_ms, "busy_lag_ms": args.busy_lag_ms, "busy_commit_wait_ms": args.busy_commit_wait_ms,
    });
    Ok(report)
}

/// The same load without and with the flood: the live matches' p99 in
/// each and their ratio (the goal: at most 2).
pub(super) fn compare_flood(args: &LiveArgs, quiet: Value, flooded: Value) -> Value {
    let p99 = |r: &Value| r["move_reply_p99_ms"].as_f64().unwrap_or(f64::NAN);
    let ratio = p99(&flooded) / p99(&quiet);
    println!(
        "live: move->reply p99 {:.1} ms without the flood, {:.1} ms with {} creations a second (ratio {ratio:.2}; \
         admission: engine wait {} ms, runtime lag {} ms, commit wait p90 {} ms); the flood: {}",
        p99(&quiet),
        p99(&flooded),
        args.flood,
        args.busy_engine_wait_ms,
        args.busy_lag_ms,
        args.busy_commit_wait_ms,
        flooded["flood"]
    );
    json!({
        "flood_per_second": args.flood, "busy_engine_wait_ms": args.busy_engine_wait_ms,
        "busy_lag_ms": args.busy_lag_ms, "busy_commit_wait_ms": args.busy_commit_wait_ms,
        "p99_without_flood_ms": p99(&quiet), "p99_with_flood_ms": p99(&flooded), "p99_ratio": ratio,
        "without_flood": quiet, "with_flood": flooded,
    })
}
