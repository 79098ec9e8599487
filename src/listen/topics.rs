//! Which part of the player's life a text touches (their work, family,
//! pets, health, home, a sport they follow, their chess elsewhere...),
//! whether it is a chat line or a memory: "forty lab reports waiting for
//! my red pen" and "Kwame teaches physics at a secondary school" are both
//! about work, though they share no word. A `learn::Linear` with one flag
//! per topic, trained on texts of both kinds labelled by the part of life
//! they are about (`corpus/topics/`, written in many voices, with lines
//! that tell it by implication and near misses in chess words beside
//! them), kept beside the embedding model like the listener. A memory
//! keeps its topics as tags (`memory::reading`); a line's topics bring the
//! memories of the same part of life to mind (`subconscious`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Touch;
use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, Labelled, LearnError, Linear};

/// The topics, each by its label in the corpus and the tag it gives.
const TOPICS: [(&str, &str); 14] = [
    ("work", "topic:work"),
    ("study", "topic:study"),
    ("family", "topic:family"),
    ("pets", "topic:pets"),
    ("health", "topic:health"),
    ("home", "topic:home"),
    ("travel", "topic:travel"),
    ("sport", "topic:sport"),
    ("hobbies", "topic:hobbies"),
    ("food", "topic:food"),
    ("schedule", "topic:schedule"),
    ("chess_elsewhere", "topic:chess_elsewhere"),
    ("chess_culture", "topic:chess_culture"),
    ("talk", "topic:talk"),
];

/// Below this a topic is not reported at all. The reader is shy: fitted on
/// one corpus file and scored on another, it reaches 0.2 for only a third
/// of the topics a text has, so the bars are low and the relevance model
/// weighs how likely the topic is. At 0.2 and 0.3, "forty lab reports ...
/// tonight" (work 0.04, study 0.15) never met the teacher's "topic:study".
const REPORTED: f32 = 0.1;

/// A memory is tagged with a topic it is this likely about.
pub const TAGGED: f32 = 0.15;

/// The trained reader of a text's topics.
#[derive(Debug, Clone, PartialEq)]
pub struct Topics(Linear);

impl Topics {
    /// What the weights are (`Linear::version`) and the bars a memory is
    /// tagged at and a line's topic reported at: a model fitted on the tags
    /// and the topics must know all three.
    pub fn version(&self) -> String {
        format!("{}@{TAGGED}@{REPORTED}", self.0.version())
    }

    /// The topics the text is likely enough about, likeliest first.
    pub fn read(&self, text: &str, vector: &[f32]) -> Vec<Touch> {
        let mut touches: Vec<Touch> = TOPICS
            .iter()
            .zip(self.0.read(text, vector).flags)
            .filter(|(_, p)| *p >= REPORTED)
            .map(|((_, tag), p)| Touch { tag, p })
            .collect();
        touches.sort_by(|a, b| b.p.total_cmp(&a.p));
        touches
    }

    /// The tags of the topics a memory is surely about (`TAGGED`).
    pub fn tags(&self, text: &str, vector: &[f32]) -> Vec<&'static str> {
        let read = self.read(text, vector);
        read.into_iter().filter(|t| t.p >= TAGGED).map(|t| t.tag).collect()
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("topics.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, models_dir: &Path) -> Result<(Topics, bool), LearnError> {
    let cache = cache_path(models_dir);
    let classifier = Classifier {
        name: "a text's topics",
        cache: &cache,
        version: "topics-1",
        heads: HEADS,
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((Topics(model), trained))
}

/// One class (every text is a text): the flags are the model.
const HEADS: Heads = Heads {
    classes: 1,
    flags: TOPICS.len(),
};

/// The topics' labels, in the order of a `Labelled`'s flags.
pub fn labels() -> impl Iterator<Item = &'static str> {
    TOPICS.iter().map(|(label, _)| *label)
}

/// A reader fitted on these texts (`vectors[i]` embeds `texts[i]`): what
/// `kibitz bench topics` scores on the texts it was not fitted on.
pub fn fit(texts: &[Labelled], vectors: &[Vec<f32>]) -> Topics {
    Topics(learn::train(texts, vectors, HEADS))
}

/// Each shipped file's labelled texts, by name.
pub fn corpus_by_file() -> Result<Vec<(&'static str, Vec<Labelled>)>, LearnError> {
    FILES
        .iter()
        .map(|file| Ok((file.0, learn::read_lines(std::slice::from_ref(file), labelled)?)))
        .collect()
}

const FILES: [(&str, &str); 2] = [
    (
        "corpus/topics/topics_a.jsonl",
        include_str!("../../corpus/topics/topics_a.jsonl"),
    ),
    (
        "corpus/topics/topics_b.jsonl",
        include_str!("../../corpus/topics/topics_b.jsonl"),
    ),
];

#[derive(Deserialize)]
struct Raw {
    text: String,
    topics: Vec<String>,
}

/// The labelled texts; an unreadable one, or a label outside the topics,
/// names its line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    learn::read_lines(&FILES, labelled)
}

fn labelled(raw: Raw) -> Result<Labelled, String> {
    if let Some(unknown) = raw.topics.iter().find(|l| !TOPICS.iter().any(|(t, _)| t == l)) {
        return Err(format!("unknown topic {unknown}"));
    }
    Ok(Labelled {
        flags: TOPICS.iter().map(|(t, _)| raw.topics.iter().any(|l| l == t)).collect(),
        text: raw.text,
        class: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_names_every_topic_often() {
        let texts = corpus().expect("the shipped corpus reads");
        assert!(texts.len() >= 1000, "{}", texts.len());
        for (k, (label, _)) in TOPICS.iter().enumerate() {
            let n = texts.iter().filter(|l| l.flags[k]).count();
            assert!(n >= 60, "{label}: {n}");
        }
        let none = texts.iter().filter(|l| !l.flags.contains(&true)).count();
        assert!(none >= 150, "{none} texts about no topic");
    }

    #[test]
    fn a_label_outside_the_topics_names_its_line() {
        let bad = learn::read_lines(&[("x.jsonl", r#"{"text":"hi","topics":["weather"]}"#)], labelled);
        let err = bad.unwrap_err().to_string();
        assert!(err.contains("x.jsonl:1") && err.contains("weather"), "{err}");
    }
}
