//! What a memory is about, read from its meaning whatever its words: a
//! record between the two of them, the player's openings as White or as
//! Black, one past game, their habits at the board, their feelings, their
//! life, their tastes, how to talk with them. A `learn::Linear` trained on
//! the labelled memories in `corpus/memories/` (written in many voices: an
//! agent's summary, an app's import, the player's own edit, a lorebook, a
//! diary, a coach's log), kept beside the embedding model. A memory's
//! subject becomes the tags the subconscious's cues select by, so "Bea
//! meets 1.d4 with the King's Indian" is a Black repertoire and "Dan and I
//! have split our last six games" a record, like the product's own words.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, Labelled, LearnError, Linear};

#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter, strum::EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum Subject {
    Record,
    RepertoireWhite,
    RepertoireBlack,
    PastGame,
    BoardHabits,
    Feelings,
    Life,
    Tastes,
    Talk,
}

impl Subject {
    pub const ALL: [Subject; 9] = [
        Subject::Record,
        Subject::RepertoireWhite,
        Subject::RepertoireBlack,
        Subject::PastGame,
        Subject::BoardHabits,
        Subject::Feelings,
        Subject::Life,
        Subject::Tastes,
        Subject::Talk,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<Subject> {
        s.parse().ok()
    }

    /// The concept tags a memory of this subject carries, those the
    /// situation's cues name (`subconscious::situation::cues`).
    pub fn tags(self) -> &'static [&'static str] {
        match self {
            Subject::Record => &["result", "record"],
            Subject::RepertoireWhite => &["as_white", "opening", "repertoire"],
            Subject::RepertoireBlack => &["as_black", "opening", "repertoire"],
            Subject::PastGame => &["past_game"],
            Subject::BoardHabits => &["habit"],
            Subject::Feelings => &["mood"],
            Subject::Life => &["personal", "life"],
            Subject::Tastes => &["personal", "taste"],
            Subject::Talk => &["personal", "talk"],
        }
    }
}

/// The trained reader of subjects.
#[derive(Debug, Clone, PartialEq)]
pub struct Subjects(Linear);

impl Subjects {
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// A memory's likeliest subject and its probability.
    pub fn read(&self, text: &str, vector: &[f32]) -> (Subject, f32) {
        let (best, p) = self.0.read(text, vector).best();
        (Subject::ALL[best], p)
    }
}

/// A subject this likely is the memory's.
pub const LIKELY: f32 = 0.5;

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("subjects.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, cache: &Path) -> Result<(Subjects, bool), LearnError> {
    let classifier = Classifier {
        name: "memory subjects",
        cache,
        version: "subjects-1",
        heads: Heads {
            classes: Subject::ALL.len(),
            flags: 0,
        },
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((Subjects(model), trained))
}

const CORPUS: &str = include_str!("../../corpus/memories/subjects.jsonl");

#[derive(Deserialize)]
struct Raw {
    text: String,
    subject: String,
}

/// The labelled memories; an unreadable one names its line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    learn::read_lines(&[("corpus/memories/subjects.jsonl", CORPUS)], |raw: Raw| {
        let subject = Subject::parse(&raw.subject).ok_or(format!("unknown subject {}", raw.subject))?;
        Ok(Labelled {
            text: raw.text,
            class: Subject::ALL.iter().position(|s| *s == subject).expect("in ALL"),
            flags: Vec::new(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_covers_every_subject() {
        let memories = corpus().expect("the shipped corpus reads");
        assert!(memories.len() >= 1000, "{}", memories.len());
        for (k, subject) in Subject::ALL.iter().enumerate() {
            let n = memories.iter().filter(|m| m.class == k).count();
            assert!(n >= 100, "{}: {n}", subject.as_str());
        }
    }
}
