//! The write policy's labelled pairs (bench/write_policy.json): how often it
//! reinforces, supersedes or keeps both as a person would, at several
//! duplicate thresholds. This is how memory.duplicate_threshold was tuned.

use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use serde_json::json;

use kibitz::config::MemoryConfig;
use kibitz::embed::{Embedder, cosine};
use kibitz::ids::{MatchId, PlayerId};
use kibitz::memory::policy::{Verdict, judge};
use kibitz::memory::{CreatedBy, Memory, MemoryType};

#[derive(Deserialize)]
struct PolicySet {
    pairs: Vec<Pair>,
}

#[derive(Deserialize)]
struct Pair {
    #[serde(rename = "type")]
    memory_type: MemoryType,
    older: String,
    newer: String,
    expect: String,
    #[serde(default)]
    other_match: bool,
    subject: Option<String>,
}

const THRESHOLDS: [f32; 7] = [0.80, 0.85, 0.88, 0.90, 0.92, 0.94, 0.96];

pub async fn bench_write_policy(
    embedder: &Embedder,
    path: &Path,
    config: &MemoryConfig,
) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let set: PolicySet = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let player = PlayerId::new();
    let mut cases = Vec::new();
    for pair in &set.pairs {
        let vectors = embedder.embed(vec![pair.older.clone(), pair.newer.clone()]).await?;
        let similarity = cosine(&vectors[0], &vectors[1]);
        let (older, newer) = (memory(pair, &pair.older, player), memory(pair, &pair.newer, player));
        let newer = Memory {
            related_match_id: if pair.other_match {
                Some(MatchId::new())
            } else {
                older.related_match_id
            },
            ..newer
        };
        cases.push((older, newer, similarity, pair.expect.as_str()));
    }
    let mut by_threshold = Vec::new();
    for threshold in THRESHOLDS {
        let config = MemoryConfig {
            duplicate_threshold: threshold,
            ..config.clone()
        };
        let right = cases
            .iter()
            .filter(|(older, newer, similarity, expect)| name(judge(newer, older, *similarity, &config)) == *expect)
            .count();
        by_threshold.push(json!({ "duplicate_threshold": threshold, "accuracy": right as f64 / cases.len() as f64 }));
    }
    let wrong: Vec<serde_json::Value> = cases
        .iter()
        .filter_map(|(older, newer, similarity, expect)| {
            let got = name(judge(newer, older, *similarity, config));
            (got != *expect).then(|| json!({ "older": older.content, "newer": newer.content, "similarity": similarity, "expected": expect, "got": got }))
        })
        .collect();
    let accuracy = 1.0 - wrong.len() as f64 / cases.len() as f64;
    println!(
        "write policy: {:.3} of {} labelled pairs right at duplicate_threshold {:.2}",
        accuracy,
        cases.len(),
        config.duplicate_threshold
    );
    for t in &by_threshold {
        let (threshold, accuracy) = (t["duplicate_threshold"].as_f64(), t["accuracy"].as_f64());
        println!(
            "  duplicate_threshold {:.2}: accuracy {:.3}",
            threshold.unwrap_or_default(),
            accuracy.unwrap_or_default()
        );
    }
    for w in &wrong {
        println!("  wrong: {w}");
    }
    Ok(json!({ "pairs": cases.len(), "accuracy": accuracy, "by_threshold": by_threshold, "wrong": wrong }))
}

fn memory(pair: &Pair, text: &str, player: PlayerId) -> Memory {
    let metadata = match &pair.subject {
        Some(s) => json!({ "subject": s }),
        None => json!({}),
    };
    Memory {
        player_id: Some(player),
        related_match_id: Some(MatchId::new()),
        metadata,
        ..Memory::new("pip", pair.memory_type, text, CreatedBy::MainAgent)
    }
}

fn name(v: Verdict) -> &'static str {
    match v {
        Verdict::Duplicate => "duplicate",
        Verdict::Contradicts => "contradicts",
        Verdict::Unrelated => "unrelated",
    }
}
