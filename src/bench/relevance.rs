//! `kibitz bench relevance`: how well the recall relevance model picks the
//! memories a chat line is about, scored on each file of the corpus
//! (`corpus/recall/`, each written apart) with a model fitted on the
//! others, beside the nearest-by-meaning baseline. Scored as the recall bench scores a
//! chat moment: the best three above the threshold, precision@3 and
//! recall@3. Prints the figures at several thresholds; never asserts.
//! Then the board model likewise on `corpus/moments/`'s traces: fitted on
//! one writer's moments, scored on the other's (recall@3 counted among the
//! candidates recall found, so it is an upper bound of the live figure).

use std::time::Instant;

use anyhow::Context;
use serde_json::json;

use kibitz::config::Config;
use kibitz::embed::{DIMENSIONS, Embedder};
use kibitz::learn::Translation;
use kibitz::memory::reading::Readers;
use kibitz::subconscious::relevance::board::{self, BoardRelevance, TracedMoment};
use kibitz::subconscious::relevance::{self, Relevance, corpus};

/// Thresholds on the model's probability.
const THRESHOLDS: [f32; 9] = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6];
/// Shares of the line's best probability a memory must also reach.
const RATIOS: [f32; 4] = [0.0, 0.3, 0.5, 0.7];
/// Thresholds on bare similarity, for the baseline.
const SIMILARITIES: [f32; 5] = [0.2, 0.25, 0.3, 0.35, 0.4];
const K: usize = 3;

pub async fn run(config: &Config, json_out: &std::path::Path) -> anyhow::Result<()> {
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let (listener, _) = kibitz::listen::load_or_train(&embedder, &config.models_dir).await?;
    let (readers, _) = Readers::load_or_train(&embedder, &config.models_dir).await?;
    let started = Instant::now();
    // Each file read with a translation fitted on the others.
    let (halves, _) = relevance::cross_fitted(&embedder, &listener, Some(&readers))
        .await
        .context("reading the corpus")?;
    eprintln!("relevance: corpus read in {:.1} s", started.elapsed().as_secs_f64());
    let mut report = Vec::new();
    for scored_on in 0..halves.len() {
        let others: Vec<corpus::LinePairs> = (0..halves.len())
            .filter(|k| *k != scored_on)
            .flat_map(|k| halves[k].1.iter().cloned())
            .collect();
        let model = Relevance::fit(&others, Translation::identity(DIMENSIONS));
        let test = &halves[scored_on].1;
        let fit_on = "the others";
        println!("fitted on the others, scored on {}", halves[scored_on].0);
        println!("{:>32} {:>6} {:>6}", "", "P@3", "R@3");
        for t in THRESHOLDS {
            for ratio in RATIOS {
                let (p, r) = score(test, |line, i| model_p(&model, line, i), (t, ratio));
                println!("{:>32} {p:>6.2} {r:>6.2}", format!("model p >= {t}, >= {ratio} x best"));
                report.push(json!({"fit": fit_on, "scored": halves[scored_on].0, "by": "model", "threshold": t, "of_best": ratio, "precision_at_3": p, "recall_at_3": r}));
            }
        }
        println!("{:>32} {:>6} {:>6}", "the likeliest, said aloud", "right", "said");
        for bar in SPOKEN_BARS {
            let (right, said) = spoken(test, |line, i| model_p(&model, line, i), bar);
            println!("{:>32} {right:>6.2} {said:>6.2}", format!("model p >= {bar}"));
            report.push(json!({"fit": fit_on, "scored": halves[scored_on].0, "by": "spoken", "threshold": bar, "right": right, "said": said}));
        }
        for t in SIMILARITIES {
            let (p, r) = score(test, |line, i| line.features[i][0], (t, 0.0));
            println!("{:>32} {p:>6.2} {r:>6.2}", format!("nearness >= {t}"));
            report.push(json!({"fit": fit_on, "scored": halves[scored_on].0, "by": "similarity", "threshold": t, "precision_at_3": p, "recall_at_3": r}));
        }
    }
    let board_report = board()?;
    super::write_figures(json_out, &json!({ "relevance": report, "board": board_report }))
}

/// The board model scored on each traces file, fitted on the others (each
/// file is another writer's: a file left out is unseen by the model).
fn board() -> anyhow::Result<Vec<serde_json::Value>> {
    let files = relevance::BOARD_TRACES;
    let mut report = Vec::new();
    for scored_on in 0..files.len() {
        let others: Vec<(&str, &str)> = (0..files.len()).filter(|i| *i != scored_on).map(|i| files[i]).collect();
        let (fit, test) = (
            relevance::board_traces(&others)?,
            relevance::board_traces(&files[scored_on..=scored_on])?,
        );
        if fit.is_empty() || test.is_empty() {
            println!("board: no traces to fit on or in {}", files[scored_on].0);
            continue;
        }
        let model = BoardRelevance::fit(&fit);
        let fit_on = others.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(" + ");
        println!("board model fitted on {fit_on}, scored on {}", files[scored_on].0);
        let mut by_trigger: Vec<(String, Vec<corpus::LinePairs>)> = Vec::new();
        for m in &test {
            let kind: &str = m.trigger.into();
            let pairs = as_pairs(m);
            match by_trigger.iter_mut().find(|(k, _)| k == kind) {
                Some((_, v)) => v.push(pairs),
                None => by_trigger.push((kind.to_string(), vec![pairs])),
            }
        }
        let all: Vec<corpus::LinePairs> = test.iter().map(as_pairs).collect();
        for t in THRESHOLDS {
            for ratio in RATIOS {
                let (p, r) = score(&all, |m, i| model.p_of(&m.features[i]), (t, ratio));
                println!("{:>32} {p:>6.2} {r:>6.2}", format!("model p >= {t}, >= {ratio} x best"));
                report.push(json!({"fit": fit_on, "scored": files[scored_on].0, "threshold": t, "of_best": ratio, "precision_at_3": p, "recall_at_3": r}));
            }
        }
        for (kind, moments) in &by_trigger {
            let (p, r) = score(moments, |m, i| model.p_of(&m.features[i]), (0.3, 0.5));
            println!(
                "{:>32} {p:>6.2} {r:>6.2}  ({} moments)",
                format!("{kind} at 0.3, 0.5"),
                moments.len()
            );
        }
    }
    Ok(report)
}

/// A traced moment's candidates as features and labels.
fn as_pairs(m: &TracedMoment) -> corpus::LinePairs {
    corpus::LinePairs {
        features: (0..m.candidates.len())
            .map(|i| board::features(m.trigger, &m.candidates, i))
            .collect(),
        relevant: m.relevant.clone(),
    }
}

fn model_p(model: &Relevance, line: &corpus::LinePairs, i: usize) -> f32 {
    model.p_of(&line.features[i])
}

/// Bars on the likeliest memory's probability for saying it aloud.
const SPOKEN_BARS: [f32; 5] = [0.15, 0.3, 0.4, 0.5, 0.6];

/// What a reminder said aloud would be: of the lines whose likeliest
/// memory clears `bar`, the share where it is one the line is about
/// (right), and the share of all lines where one is said.
fn spoken(lines: &[corpus::LinePairs], score: impl Fn(&corpus::LinePairs, usize) -> f32, bar: f32) -> (f64, f64) {
    let (mut right, mut said) = (0usize, 0usize);
    for line in lines {
        let best = (0..line.relevant.len())
            .map(|i| (i, score(line, i)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, _)) = best.filter(|(_, p)| *p >= bar) {
            said += 1;
            right += usize::from(line.relevant[i]);
        }
    }
    (
        right as f64 / said.max(1) as f64,
        said as f64 / lines.len().max(1) as f64,
    )
}

/// Precision@3 and recall@3 over the lines, each line's memories taken
/// best first by `score` while at least `threshold` and `of_best` times
/// the best.
fn score(
    lines: &[corpus::LinePairs],
    score: impl Fn(&corpus::LinePairs, usize) -> f32,
    (threshold, of_best): (f32, f32),
) -> (f64, f64) {
    let (mut precision, mut recall) = (Vec::new(), Vec::new());
    for line in lines {
        let mut ranked: Vec<(usize, f32)> = (0..line.relevant.len()).map(|i| (i, score(line, i))).collect();
        let best = ranked.iter().map(|(_, s)| *s).fold(f32::MIN, f32::max);
        ranked.retain(|(_, s)| *s >= threshold && *s >= of_best * best);
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(K);
        let found = ranked.iter().filter(|(i, _)| line.relevant[*i]).count();
        let wanted = line.relevant.iter().filter(|r| **r).count();
        if !ranked.is_empty() {
            precision.push(found as f64 / ranked.len() as f64);
        } else if wanted > 0 {
            precision.push(0.0);
        }
        if wanted > 0 {
            recall.push(found as f64 / wanted.min(K) as f64);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    (mean(&precision), mean(&recall))
}
