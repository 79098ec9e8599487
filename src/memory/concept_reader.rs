//! The chess-club concepts a memory is about, read from its meaning
//! whatever its words: "throws a bishop at my king on the slightest excuse"
//! is a sacrifice, "resigned from the bank in May" is not a resignation.
//! A `learn::Linear` with one flag per concept of `concepts::CONCEPTS`,
//! trained on memories labelled by concept in `corpus/memories/` (written
//! in many voices, with chess words used in other senses beside them), and
//! kept beside the embedding model like the subject reader.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::concepts::CONCEPTS;
use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, Labelled, LearnError, Linear};

/// The trained reader of concepts.
#[derive(Debug, Clone, PartialEq)]
pub struct ConceptReader(Linear);

/// A concept this likely is one the memory is about.
pub const LIKELY: f32 = 0.5;

impl ConceptReader {
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// The concepts the memory is likely about, in the vocabulary's order.
    pub fn read(&self, text: &str, vector: &[f32]) -> Vec<&'static str> {
        let flags = self.0.read(text, vector).flags;
        CONCEPTS
            .iter()
            .zip(flags)
            .filter(|(_, p)| *p >= LIKELY)
            .map(|(c, _)| c.tag)
            .collect()
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("concepts.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, cache: &Path) -> Result<(ConceptReader, bool), LearnError> {
    let classifier = Classifier {
        name: "memory concepts",
        cache,
        version: "concepts-1",
        // One class (every memory is a memory): the flags are the model.
        heads: Heads {
            classes: 1,
            flags: CONCEPTS.len(),
        },
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((ConceptReader(model), trained))
}

const FILES: [(&str, &str); 3] = [
    (
        "corpus/memories/concepts_a.jsonl",
        include_str!("../../corpus/memories/concepts_a.jsonl"),
    ),
    (
        "corpus/memories/concepts_b.jsonl",
        include_str!("../../corpus/memories/concepts_b.jsonl"),
    ),
    (
        "corpus/memories/concepts_away.jsonl",
        include_str!("../../corpus/memories/concepts_away.jsonl"),
    ),
];

#[derive(Deserialize)]
struct Raw {
    text: String,
    tags: Vec<String>,
}

/// The labelled memories; an unreadable one, or a tag outside the
/// vocabulary, names its line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    learn::read_lines(&FILES, |raw: Raw| {
        if let Some(unknown) = raw.tags.iter().find(|t| !CONCEPTS.iter().any(|c| c.tag == *t)) {
            return Err(format!("unknown concept {unknown}"));
        }
        Ok(Labelled {
            flags: CONCEPTS.iter().map(|c| raw.tags.iter().any(|t| t == c.tag)).collect(),
            text: raw.text,
            class: 0,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_names_every_concept_often() {
        let memories = corpus().expect("the shipped corpus reads");
        assert!(memories.len() >= 1500, "{}", memories.len());
        for (k, concept) in CONCEPTS.iter().enumerate() {
            let n = memories.iter().filter(|m| m.flags[k]).count();
            assert!(n >= 30, "{}: {n}", concept.tag);
        }
    }
}
