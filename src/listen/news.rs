//! Whether a chat line tells news of the player's life, and which kind:
//! good ("two pink lines this morning!!"), bad ("we buried grandad on
//! Tuesday") or a trial ahead ("interview at nine tomorrow"), so the
//! persona congratulates, is sorry or wishes luck, instead of "Ha! I
//! remember this." A `learn::Linear` with one class per kind, trained on
//! lines labelled so (`corpus/news/`, written in many voices, with lines
//! that tell no news, everyday facts and chess-word near misses beside
//! them: "my bishop died on g7"), kept beside the embedding model.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, Labelled, LearnError, Linear};

/// The news a line tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum News {
    Good,
    Bad,
    Ahead,
}

impl News {
    /// The persona card's `[chat]` key for answering it.
    pub const fn key(self) -> &'static str {
        match self {
            News::Good => "good_news",
            News::Bad => "bad_news",
            News::Ahead => "news_ahead",
        }
    }

    /// Whether `key` is a card's key for news.
    pub fn is_key(key: &str) -> bool {
        key == AHEAD_OF_THEIRS || [News::Good, News::Bad, News::Ahead].iter().any(|n| n.key() == key)
    }
}

/// The card's key for a trial ahead of someone close to the player ("my son
/// starts university next september"): the luck is wished to them
/// (`{them}`: "your son"), not the player told to prepare well. Their good
/// and bad news need no other words: the player is congratulated or
/// comforted as well.
pub const AHEAD_OF_THEIRS: &str = "news_ahead_theirs";

/// The classes, in the order of the model's class head.
const CLASSES: [&str; 4] = ["none", "good", "bad", "ahead"];

/// Below this the line is heard as telling no news.
const SURE: f32 = 0.5;

/// The trained reader.
#[derive(Debug, Clone, PartialEq)]
pub struct NewsReader(Linear);

impl NewsReader {
    /// What the weights are (`Linear::version`).
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// The news the line tells, if the reader is sure enough of any.
    pub fn read(&self, text: &str, vector: &[f32]) -> Option<News> {
        let (class, p) = self.0.read(text, vector).best();
        let news = match class {
            1 => News::Good,
            2 => News::Bad,
            3 => News::Ahead,
            _ => return None,
        };
        (p >= SURE).then_some(news)
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("news.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, models_dir: &Path) -> Result<(NewsReader, bool), LearnError> {
    let cache = cache_path(models_dir);
    let classifier = Classifier {
        name: "the news a line tells",
        cache: &cache,
        version: "news-1",
        heads: Heads {
            classes: CLASSES.len(),
            flags: 0,
        },
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((NewsReader(model), trained))
}

const FILES: [(&str, &str); 3] = [
    (
        "corpus/news/news_a.jsonl",
        include_str!("../../corpus/news/news_a.jsonl"),
    ),
    (
        "corpus/news/news_b.jsonl",
        include_str!("../../corpus/news/news_b.jsonl"),
    ),
    (
        "corpus/news/news_c.jsonl",
        include_str!("../../corpus/news/news_c.jsonl"),
    ),
];

#[derive(Deserialize)]
struct Raw {
    text: String,
    news: String,
}

/// The labelled lines; an unreadable one, or a label outside the classes,
/// names its line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    learn::read_lines(&FILES, labelled)
}

fn labelled(raw: Raw) -> Result<Labelled, String> {
    let class = CLASSES
        .iter()
        .position(|c| *c == raw.news)
        .ok_or_else(|| format!("unknown news {}", raw.news))?;
    Ok(Labelled {
        text: raw.text,
        class,
        flags: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_has_every_kind_often() {
        let lines = corpus().expect("the shipped corpus reads");
        for (class, name) in CLASSES.iter().enumerate() {
            let n = lines.iter().filter(|l| l.class == class).count();
            assert!(n >= 100, "{name}: {n}");
        }
    }

    #[test]
    fn a_label_outside_the_kinds_names_its_line() {
        let bad = learn::read_lines(&[("x.jsonl", r#"{"text":"hi","news":"great"}"#)], labelled);
        let err = bad.unwrap_err().to_string();
        assert!(err.contains("x.jsonl:1") && err.contains("great"), "{err}");
    }
}
