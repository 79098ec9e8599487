//! `kibitz bench topics`: how well the parts of a player's life are read
//! from a text's meaning, on texts the reader was not fitted on: fitted on
//! each shipped file of `corpus/topics/` in turn, scored on the others.
//! Prints precision and recall overall at several bars (and for the ten
//! nearest training texts voting, a baseline), per topic at the bar a
//! memory is tagged at;
//! with `--read`, the shipped reader's topics for the given texts.
//! Writes the figures as JSON. Never asserts.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::learn::Labelled;
use kibitz::listen::topics::{self, TAGGED, Topics};

/// Found, right and labelled, per topic.
#[derive(Default, Clone, Copy)]
struct Tally {
    found: usize,
    right: usize,
    labelled: usize,
}

impl Tally {
    fn precision(&self) -> f64 {
        self.right as f64 / self.found.max(1) as f64
    }

    fn recall(&self) -> f64 {
        self.right as f64 / self.labelled.max(1) as f64
    }
}

pub async fn run(config: &Config, read: &[String], json_out: &Path) -> anyhow::Result<()> {
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    if !read.is_empty() {
        let (reader, _) = topics::load_or_train(&embedder, &config.models_dir).await?;
        let vectors = embedder.embed(read.to_vec()).await?;
        for (text, v) in read.iter().zip(&vectors) {
            let found: Vec<String> = reader
                .read(text, v)
                .iter()
                .map(|t| format!("{} {:.2}", t.tag, t.p))
                .collect();
            println!("{text}\n    {}", found.join(", "));
        }
        return Ok(());
    }
    let files = topics::corpus_by_file()?;
    let mut embedded = Vec::with_capacity(files.len());
    for (name, texts) in &files {
        let vectors = embedder.embed(texts.iter().map(|t| t.text.clone()).collect()).await?;
        embedded.push((*name, texts, vectors));
    }
    let mut report = Vec::new();
    for (i, (name, texts, vectors)) in embedded.iter().enumerate() {
        let (train, train_vectors): (Vec<Labelled>, Vec<Vec<f32>>) = embedded
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, (_, t, v))| t.iter().cloned().zip(v.iter().cloned()))
            .unzip();
        let reader = topics::fit(&train, &train_vectors);
        println!("fitted on the others, scored on {name} ({} texts)", texts.len());
        for bar in BARS {
            let all = total(&score(&reader, texts, vectors, bar));
            println!("  at p >= {bar:.2}: P {:.2} R {:.2}", all.precision(), all.recall());
        }
        // Beside it, the ten nearest texts voting: no better on these files.
        for bar in BARS {
            let all = total(&score_nearest(&train, &train_vectors, texts, vectors, bar));
            println!(
                "  10 nearest at {bar:.2}: P {:.2} R {:.2}",
                all.precision(),
                all.recall()
            );
        }
        let tallies = score(&reader, texts, vectors, TAGGED);
        report.push(json!({ "file": name, "topics": print(&tallies) }));
    }
    super::write_figures(json_out, &json!({ "at": TAGGED, "files": report }))
}

/// The bars the overall figures are printed at, beside the tagging bar's table.
const BARS: [f32; 4] = [0.2, 0.3, 0.4, 0.5];

/// Per topic, what the reader found at `bar` against the labels, over every text.
fn score(reader: &Topics, texts: &[Labelled], vectors: &[Vec<f32>], bar: f32) -> BTreeMap<&'static str, Tally> {
    let mut tallies: BTreeMap<&'static str, Tally> = topics::labels().map(|l| (l, Tally::default())).collect();
    for (text, v) in texts.iter().zip(vectors) {
        let found = reader.read(&text.text, v);
        for (k, label) in topics::labels().enumerate() {
            let tally = tallies.get_mut(label).expect("every label tallied");
            let got = found
                .iter()
                .any(|t| t.p >= bar && t.tag.trim_start_matches("topic:") == label);
            tally.found += usize::from(got);
            tally.labelled += usize::from(text.flags[k]);
            tally.right += usize::from(got && text.flags[k]);
        }
    }
    tallies
}

/// The same tallies for the ten training texts nearest each text, each
/// topic weighted by their similarity.
fn score_nearest(
    train: &[Labelled],
    train_vectors: &[Vec<f32>],
    texts: &[Labelled],
    vectors: &[Vec<f32>],
    bar: f32,
) -> BTreeMap<&'static str, Tally> {
    let mut tallies: BTreeMap<&'static str, Tally> = topics::labels().map(|l| (l, Tally::default())).collect();
    for (text, v) in texts.iter().zip(vectors) {
        let mut near: Vec<(f32, usize)> = train_vectors
            .iter()
            .enumerate()
            .map(|(i, t)| (kibitz::embed::cosine(v, t), i))
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        near.truncate(10);
        let weight: f32 = near.iter().map(|(s, _)| s.max(0.0)).sum::<f32>().max(1e-6);
        for (j, label) in topics::labels().enumerate() {
            let p = near
                .iter()
                .filter(|(_, i)| train[*i].flags[j])
                .map(|(s, _)| s.max(0.0))
                .sum::<f32>()
                / weight;
            let tally = tallies.get_mut(label).expect("every label tallied");
            let got = p >= bar;
            tally.found += usize::from(got);
            tally.labelled += usize::from(text.flags[j]);
            tally.right += usize::from(got && text.flags[j]);
        }
    }
    tallies
}

fn total(tallies: &BTreeMap<&'static str, Tally>) -> Tally {
    tallies.values().fold(Tally::default(), |a, t| Tally {
        found: a.found + t.found,
        right: a.right + t.right,
        labelled: a.labelled + t.labelled,
    })
}

fn print(tallies: &BTreeMap<&'static str, Tally>) -> serde_json::Value {
    println!("{:>18} {:>6} {:>6} {:>6}", "topic", "P", "R", "n");
    let all = total(tallies);
    let mut out = serde_json::Map::new();
    for (label, t) in tallies {
        println!(
            "{label:>18} {:>6.2} {:>6.2} {:>6}",
            t.precision(),
            t.recall(),
            t.labelled
        );
        out.insert(
            label.to_string(),
            json!({"precision": t.precision(), "recall": t.recall(), "n": t.labelled}),
        );
    }
    println!(
        "{:>18} {:>6.2} {:>6.2} {:>6}",
        "all",
        all.precision(),
        all.recall(),
        all.labelled
    );
    out.insert(
        "all".into(),
        json!({"precision": all.precision(), "recall": all.recall(), "n": all.labelled}),
    );
    serde_json::Value::Object(out)
}
