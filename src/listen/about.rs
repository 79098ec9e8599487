//! What a chat line is about, among the kinds of memory kept of a player:
//! "my two little assistants are fighting over who presses the clock" is
//! about their family, not their thinking time; "I can't win a game to save
//! my life" about their record and how they feel. A `learn::Linear` with one
//! flag per kind, trained on chat lines labelled by what they bring to mind
//! (`corpus/lines/`, written in many voices, with chess words used in other
//! senses beside them), kept beside the embedding model like the listener.
//! Each kind is named by the memory tag it selects.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, Labelled, LearnError, Linear};

/// One kind a line can be about: its label in the corpus and the memory
/// tag it selects (`memory::subject`, `memory::concepts`).
struct Kind {
    label: &'static str,
    tag: &'static str,
}

const fn kind(label: &'static str, tag: &'static str) -> Kind {
    Kind { label, tag }
}

/// The subjects of memories, then the concepts a chat line touches.
const KINDS: [Kind; 21] = [
    kind("record", "record"),
    kind("repertoire", "repertoire"),
    kind("past_game", "past_game"),
    kind("board_habits", "habit"),
    kind("feelings", "mood"),
    kind("life", "life"),
    kind("tastes", "taste"),
    kind("talk", "talk"),
    kind("opening", "opening"),
    kind("endgame", "endgame"),
    kind("thinking_time", "thinking_time"),
    kind("draw", "draw"),
    kind("resign", "resign"),
    kind("blunder", "blunder"),
    kind("sacrifice", "sacrifice"),
    kind("gambit", "gambit"),
    kind("mate", "mate"),
    kind("streak", "streak"),
    kind("down_material", "down_material"),
    kind("queen_trade", "queen_trade"),
    kind("away", "away"),
];

/// The tags this reader decides for a chat line: a word list does not
/// add them beside it ("press the clock" is no thinking time).
pub fn decides(tag: &str) -> bool {
    KINDS.iter().any(|k| k.tag == tag)
}

/// Below this a kind is not reported at all.
const REPORTED: f32 = 0.2;

/// One kind of memory a line is about, and how likely.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Touch {
    pub tag: &'static str,
    pub p: f32,
}

/// The trained reader of what a line is about.
#[derive(Debug, Clone, PartialEq)]
pub struct About(Linear);

impl About {
    /// What the weights are (`Linear::version`).
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// The kinds the line is likely enough about, likeliest first.
    pub fn read(&self, text: &str, vector: &[f32]) -> Vec<Touch> {
        let mut touches: Vec<Touch> = KINDS
            .iter()
            .zip(self.0.read(text, vector).flags)
            .filter(|(_, p)| *p >= REPORTED)
            .map(|(k, p)| Touch { tag: k.tag, p })
            .collect();
        touches.sort_by(|a, b| b.p.total_cmp(&a.p));
        touches
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("about.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, cache: &Path) -> Result<(About, bool), LearnError> {
    let classifier = Classifier {
        name: "what a line is about",
        cache,
        version: "about-1",
        // One class (every line is a line): the flags are the model.
        heads: Heads {
            classes: 1,
            flags: KINDS.len(),
        },
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((About(model), trained))
}

const FILES: [(&str, &str); 2] = [
    (
        "corpus/lines/about_a.jsonl",
        include_str!("../../corpus/lines/about_a.jsonl"),
    ),
    (
        "corpus/lines/about_b.jsonl",
        include_str!("../../corpus/lines/about_b.jsonl"),
    ),
];

#[derive(Deserialize)]
struct Raw {
    text: String,
    subjects: Vec<String>,
    concepts: Vec<String>,
}

/// The labelled lines; an unreadable one, or a label outside the kinds,
/// names its line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    learn::read_lines(&FILES, |raw: Raw| {
        let labels: Vec<&String> = raw.subjects.iter().chain(&raw.concepts).collect();
        if let Some(unknown) = labels.iter().find(|l| !KINDS.iter().any(|k| k.label == l.as_str())) {
            return Err(format!("unknown label {unknown}"));
        }
        Ok(Labelled {
            flags: KINDS.iter().map(|k| labels.iter().any(|l| *l == k.label)).collect(),
            text: raw.text,
            class: 0,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_names_every_kind_often() {
        let lines = corpus().expect("the shipped corpus reads");
        assert!(lines.len() >= 1500, "{}", lines.len());
        for (k, kind) in KINDS.iter().enumerate() {
            let n = lines.iter().filter(|l| l.flags[k]).count();
            assert!(n >= 40, "{}: {n}", kind.label);
        }
        let none = lines.iter().filter(|l| !l.flags.contains(&true)).count();
        assert!(none >= 150, "{none} lines about nothing kept");
    }
}
