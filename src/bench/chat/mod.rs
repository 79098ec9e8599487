//! `kibitz bench chat`: how well the persona listens, on a labelled set of
//! chat lines (`bench/chat_lines.json`), through the code a live match
//! uses: the line embedded as its recall embeds it, then `Listener::hear`
//! with the learned weights (loaded from beside the model, or trained).
//! Prints intent accuracy (overall and per intent), whether each line was
//! remembered (precision and recall against the labels) and the time
//! beyond the embedding; writes the figures as JSON. Never asserts.

mod live;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use chrono::Utc;
use serde::Deserialize;
use serde_json::json;

use super::stats::quantile;
use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::listen::Intent;
use live::Played;

/// The player's name in the set's facts.
const PLAYER: &str = "Sam";

#[derive(Deserialize)]
struct ChatSet {
    lines: Vec<LabelledLine>,
    /// Lines played in order through one live match per persona.
    #[serde(default)]
    conversation: Vec<String>,
}

#[derive(Deserialize)]
struct LabelledLine {
    text: String,
    intent: String,
    remember: bool,
    #[serde(default)]
    fact: Option<String>,
}

/// Tallies of one run.
#[derive(Default)]
struct Tally {
    right: usize,
    per_intent: BTreeMap<String, (usize, usize)>,
    remembered_right: usize,
    remembered: usize,
    worth: usize,
    hear_us: Vec<f64>,
    misses: Vec<String>,
}

pub async fn run(config: &Config, set: &Path, json_out: &Path, verbose: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(set).with_context(|| format!("reading {}", set.display()))?;
    let set: ChatSet = serde_json::from_str(&text).with_context(|| format!("parsing {}", set.display()))?;
    for l in &set.lines {
        anyhow::ensure!(
            Intent::parse(&l.intent).is_some(),
            "unknown intent {} ({})",
            l.intent,
            l.text
        );
    }
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let started = Instant::now();
    let (listener, trained) = kibitz::listen::load_or_train(&embedder, &config.models_dir).await?;
    eprintln!(
        "chat: listener {} in {:.1} s",
        if trained { "trained" } else { "loaded" },
        started.elapsed().as_secs_f64()
    );
    let mut t = Tally::default();
    for (n, line) in set.lines.iter().enumerate() {
        let vector = embedder.embed_one(&line.text).await?;
        let at = Instant::now();
        let heard = listener.hear(&line.text, Some(&vector), PLAYER);
        t.hear_us.push(at.elapsed().as_secs_f64() * 1e6);
        let got = heard.intent.as_str();
        let entry = t.per_intent.entry(line.intent.clone()).or_default();
        entry.1 += 1;
        if got == line.intent {
            t.right += 1;
            entry.0 += 1;
        } else {
            t.misses
                .push(format!("{:<55} {got} (wanted {})", line.text, line.intent));
        }
        let kept = !heard.facts.is_empty();
        t.remembered += usize::from(kept);
        t.worth += usize::from(line.remember);
        t.remembered_right += usize::from(kept && line.remember);
        if !verbose {
            continue;
        }
        // Every line's score, to see where a threshold would cut.
        let remember = listener.reading(&line.text, &vector).map_or(0.0, |r| r.remember);
        eprintln!("worth {n:>3} {remember:.3} {}", line.remember);
        if kept || line.remember {
            let wanted = line.fact.as_deref().map(|f| f.replace("{p}", PLAYER));
            eprintln!(
                "fact {n:>3} ({remember:.2}): {:?}  (labelled {:?})",
                heard.facts, wanted
            );
        }
    }
    let played = match set.conversation.is_empty() {
        true => Vec::new(),
        false => live::play(config, &set.conversation).await?,
    };
    report(&t, set.lines.len(), &played, json_out)
}

fn report(t: &Tally, total: usize, played: &[Played], json_out: &Path) -> anyhow::Result<()> {
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let accuracy = ratio(t.right, total);
    let precision = ratio(t.remembered_right, t.remembered);
    let recall = ratio(t.remembered_right, t.worth);
    let pct = |p: f64| quantile(&t.hear_us, p);
    for miss in &t.misses {
        println!("miss: {miss}");
    }
    println!("intent              right  lines");
    for (intent, (right, lines)) in &t.per_intent {
        println!("{intent:<18} {right:>6} {lines:>6}");
    }
    println!("intent accuracy {accuracy:.3} ({} of {total})", t.right);
    println!(
        "remembered: precision {precision:.3} ({} of {} kept), recall {recall:.3} ({} of {} worth it)",
        t.remembered_right, t.remembered, t.remembered_right, t.worth
    );
    println!(
        "listening beyond the embedding: p50 {:.3} ms, p99 {:.3} ms",
        pct(0.5) / 1000.0,
        pct(0.99) / 1000.0
    );
    let reply_ms: Vec<f64> = played
        .iter()
        .flat_map(|p| p.beyond_embedding_ms.iter().copied())
        .collect();
    let reply_pct = |p: f64| quantile(&reply_ms, p);
    for p in played {
        println!(
            "conversation with {}: {} replies, {} distinct, {} said twice in a row",
            p.persona,
            p.replies,
            p.distinct,
            p.twice_in_a_row.len()
        );
        for again in &p.twice_in_a_row {
            println!("  twice in a row: {again}");
        }
    }
    if !played.is_empty() {
        println!(
            "a chat's whole reply beyond the embedding (live match): p50 {:.2} ms, p99 {:.2} ms",
            reply_pct(0.5),
            reply_pct(0.99)
        );
    }
    let conversations: Vec<serde_json::Value> = played.iter().map(Played::figures).collect();
    let per_intent: BTreeMap<_, _> = t
        .per_intent
        .iter()
        .map(|(k, (r, n))| (k.clone(), json!({ "right": r, "lines": n })))
        .collect();
    let figures = json!({
        "at": Utc::now(), "lines": total, "intent_accuracy": accuracy, "per_intent": per_intent,
        "remember_precision": precision, "remember_recall": recall,
        "hear_p50_ms": pct(0.5) / 1000.0, "hear_p99_ms": pct(0.99) / 1000.0,
        "conversations": conversations, "reply_p50_ms": reply_pct(0.5), "reply_p99_ms": reply_pct(0.99),
    });
    crate::bench::write_figures(json_out, &figures)
}
