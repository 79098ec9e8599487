//! `kibitz bench news`: how well the news a chat line tells is heard (good,
//! bad, a trial ahead, none), on labelled lines written by someone else
//! (`{"lines": [{"text", "news"}]}`), through the listener a live line
//! goes through. Prints accuracy, and precision and recall per kind;
//! writes the figures as JSON. Never asserts.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use serde_json::json;

use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::listen::news::News;

#[derive(Deserialize)]
struct NewsSet {
    lines: Vec<LabelledLine>,
}

#[derive(Deserialize)]
struct LabelledLine {
    text: String,
    news: String,
}

const KINDS: [&str; 4] = ["good", "bad", "ahead", "none"];

fn name(news: Option<News>) -> &'static str {
    match news {
        Some(News::Good) => "good",
        Some(News::Bad) => "bad",
        Some(News::Ahead) => "ahead",
        None => "none",
    }
}

pub async fn run(config: &Config, set: &Path, json_out: &Path, verbose: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(set).with_context(|| format!("reading {}", set.display()))?;
    let set: NewsSet = serde_json::from_str(&text).with_context(|| format!("parsing {}", set.display()))?;
    if let Some(bad) = set.lines.iter().find(|l| !KINDS.contains(&l.news.as_str())) {
        anyhow::bail!("unknown news {:?} (one of {})", bad.news, KINDS.join(", "));
    }
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let (listener, _) = kibitz::listen::load_or_train(&embedder, &config.models_dir).await?;
    let vectors = embedder
        .embed(set.lines.iter().map(|l| l.text.clone()).collect())
        .await?;
    // Per kind: (heard as it, right, labelled it).
    let mut tally: BTreeMap<&str, (usize, usize, usize)> = KINDS.iter().map(|k| (*k, (0, 0, 0))).collect();
    let (mut right, mut answered, mut wrongly) = (0, 0, 0);
    for (line, v) in set.lines.iter().zip(&vectors) {
        let heard = listener.hear(&line.text, Some(v), "Ann");
        let got = name(heard.news);
        // The scripted brain answers news only in a line telling of their life.
        let told = name(heard.news_told());
        answered += usize::from(got == line.news && told == got && got != "none");
        wrongly += usize::from(told != "none" && told != line.news);
        let ok = got == line.news;
        right += usize::from(ok);
        tally.entry(got).or_default().0 += 1;
        let label = KINDS.iter().copied().find(|k| *k == line.news).unwrap_or("none");
        let labelled = tally.entry(label).or_default();
        labelled.1 += usize::from(ok);
        labelled.2 += 1;
        if verbose && !ok {
            println!("miss: {:<70} heard {got}, labelled {}", line.text, line.news);
        }
    }
    let accuracy = right as f64 / set.lines.len().max(1) as f64;
    println!("news accuracy {accuracy:.3} ({right} of {})", set.lines.len());
    let news = set.lines.iter().filter(|l| l.news != "none").count();
    println!("news answered as news (heard right, in a line telling of their life): {answered} of {news}");
    println!(
        "lines answered as news they do not tell: {wrongly} of {}",
        set.lines.len()
    );
    println!("{:>6} {:>6} {:>6} {:>4}", "kind", "P", "R", "n");
    let mut kinds = serde_json::Map::new();
    for (kind, (heard, ok, n)) in &tally {
        let (p, r) = (*ok as f64 / (*heard).max(1) as f64, *ok as f64 / (*n).max(1) as f64);
        println!("{kind:>6} {p:>6.2} {r:>6.2} {n:>4}");
        kinds.insert(kind.to_string(), json!({"precision": p, "recall": r, "n": n}));
    }
    super::write_figures(
        json_out,
        &json!({"accuracy": accuracy, "lines": set.lines.len(), "answered": answered, "news": news, "answered_wrongly": wrongly, "kinds": kinds}),
    )
}
