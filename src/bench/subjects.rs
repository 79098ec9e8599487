//! `kibitz bench subjects`: how well a memory's subject is read from its
//! meaning, on memories written in other people's words (a labelled set:
//! `{"memories": [{"text", "subject", ...}]}`), through the code a write
//! uses: the memory embedded, then the subject reader. Prints accuracy
//! overall, per subject and per writer's style, and how many the reader
//! was sure enough of to tag; writes the figures as JSON. Never asserts.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use chrono::Utc;
use serde::Deserialize;
use serde_json::json;

use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::memory::reading::{Meaning, Readers};
use kibitz::memory::subject::{LIKELY, Subject};

use super::concepts::Scores;

#[derive(Deserialize)]
struct SubjectSet {
    memories: Vec<LabelledMemory>,
}

#[derive(Deserialize)]
struct LabelledMemory {
    text: String,
    subject: String,
    #[serde(default)]
    style: String,
    /// The concepts its writer labelled it with, in their vocabulary.
    #[serde(default)]
    concepts: Vec<String>,
}

/// Right and total, per key.
type Tally = BTreeMap<String, (usize, usize)>;

pub async fn run(config: &Config, set: &Path, json_out: &Path, verbose: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(set).with_context(|| format!("reading {}", set.display()))?;
    let set: SubjectSet = serde_json::from_str(&text).with_context(|| format!("parsing {}", set.display()))?;
    for m in &set.memories {
        anyhow::ensure!(Subject::parse(&m.subject).is_some(), "unknown subject {}", m.subject);
    }
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let started = Instant::now();
    let (readers, trained) = Readers::load_or_train(&embedder, &config.models_dir).await?;
    let reader = &readers.subjects;
    eprintln!(
        "subjects: readers {} in {:.1} s",
        if trained { "trained" } else { "loaded" },
        started.elapsed().as_secs_f64()
    );
    let texts: Vec<String> = set.memories.iter().map(|m| m.text.clone()).collect();
    let vectors = embedder.embed(texts).await?;
    // The held-out memories come without a kind: read from their words alone.
    let read = Meaning {
        readers: Some(&readers),
        known: None,
    };
    let mut concepts = Scores::default();
    let (mut per_subject, mut per_style) = (Tally::new(), Tally::new());
    let (mut right, mut sure, mut sure_right) = (0, 0, 0);
    for (m, v) in set.memories.iter().zip(&vectors) {
        let (got, p) = reader.read(&m.text, v);
        let ok = got.as_str() == m.subject;
        right += usize::from(ok);
        sure += usize::from(p >= LIKELY);
        sure_right += usize::from(ok && p >= LIKELY);
        for (tally, key) in [(&mut per_subject, &m.subject), (&mut per_style, &m.style)] {
            let e = tally.entry(key.clone()).or_default();
            e.0 += usize::from(ok);
            e.1 += 1;
        }
        if verbose && !ok {
            println!("miss: {:<70} {} ({p:.2}; wanted {})", m.text, got.as_str(), m.subject);
        }
        let wrong = concepts.add(&read, &m.text, v, &m.concepts);
        if verbose && !wrong.is_empty() {
            println!("concepts: {:<70} {}", m.text, wrong.join(" "));
        }
    }
    let n = set.memories.len().max(1);
    let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
    let print = |title: &str, tally: &Tally| {
        println!("{title:<18} right  of");
        for (k, (r, t)) in tally {
            println!("{k:<18} {r:>5} {t:>4}");
        }
    };
    print("subject", &per_subject);
    print("style", &per_style);
    println!("subject accuracy {:.3} ({right} of {n})", ratio(right, n));
    println!(
        "tagged (p >= {LIKELY}): {sure} of {n}, of which right {:.3}",
        ratio(sure_right, sure)
    );
    let concepts = concepts.report();
    let figures = json!({
        "concepts": concepts,
        "at": Utc::now(), "memories": n, "accuracy": ratio(right, n),
        "tagged": sure, "tagged_precision": ratio(sure_right, sure),
        "per_subject": per_subject, "per_style": per_style,
    });
    crate::bench::write_figures(json_out, &figures)
}
