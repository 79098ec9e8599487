//! Whether one of the player's memories is what a chat line is about: a
//! logistic model over how the two meet (`features.rs`: nearness of
//! meaning and its standing among the player's other memories, shared
//! words, the kind of thing the line is about against the memory's
//! subject, the part of life it touches against the memory's topics, the
//! memory's type), fitted on chat lines labelled with the
//! memories a friend would think of on hearing them (`corpus/recall/`,
//! written by others in many voices). It replaces hand-set similarity
//! thresholds that held on the lines they were set on and not beyond.
//! Kept beside the embedding model under a key of that model, the corpus,
//! the features and the readers they read, like the listener.

pub mod board;
pub mod corpus;
mod features;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

pub use features::{COUNT, Candidate, Line, features};

use crate::embed::Embedder;
use crate::learn::{self, Heads, Labelled, LearnError, Linear};
use crate::listen::Listener;
use crate::memory::reading::Readers;

/// Bumped whenever `features` or the labels change meaning.
const VERSION: &str = "relevance-3";

/// One flag: the memory is what the line is about.
const HEADS: Heads = Heads { classes: 1, flags: 1 };

/// The fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct Relevance(Linear);

/// The fitted models, loaded in the background at start; recall keeps its
/// cues and thresholds until each is there.
#[derive(Debug, Clone, Default)]
pub struct SharedRelevance {
    /// What a chat line is about.
    pub chat: Arc<OnceLock<Relevance>>,
    /// What a moment at the board brings to mind: None once it could not
    /// be loaded or fitted (no traces), so nobody waits for it.
    pub board: Arc<OnceLock<Option<board::BoardRelevance>>>,
}

impl Relevance {
    /// How likely `found[i]` is what `line` is about.
    pub fn p(&self, line: &Line<'_>, found: &[Candidate<'_>], i: usize) -> f32 {
        self.p_of(&features(line, found, i))
    }

    /// The same, from a pair's features.
    pub fn p_of(&self, features: &[f32]) -> f32 {
        self.0.read("", features).flags[0]
    }

    /// What the weights are, in a few hex digits.
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// Fitted on these examples (a corpus's pairs, `corpus::examples`).
    pub fn fit(examples: &[corpus::LinePairs]) -> Relevance {
        let (labelled, rows) = labelled(examples);
        Relevance(learn::train(&labelled, &rows, HEADS))
    }
}

/// Where the weights are kept: beside the model they were fitted on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("relevance.model")
}

/// The saved weights if they fit this embedding model, corpus, listener
/// and memory readers; else the corpus is read through them (embedded,
/// heard, tagged) and the model fitted and saved. Returns whether it fitted.
pub async fn load_or_train(
    embedder: &Embedder,
    listener: &Listener,
    readers: Option<&Readers>,
    models_dir: &Path,
) -> Result<(Relevance, bool), LearnError> {
    let mut described = vec![
        VERSION.to_string(),
        listener.version().unwrap_or_default(),
        readers.map(Readers::version).unwrap_or_default(),
    ];
    described.extend(corpus::FILES.iter().map(|(_, text)| text.to_string()));
    let key = learn::key_of(&embedder.model_digest().await?, described);
    let examples = async {
        let players = corpus::players(&corpus::FILES)?;
        let pairs = corpus::examples(embedder, listener, readers, &players).await?;
        Ok(labelled(&pairs))
    };
    let cache = cache_path(models_dir);
    let (model, fitted) = learn::load_or_fit("recall relevance", &cache, key, HEADS, examples).await?;
    Ok((Relevance(model), fitted))
}

/// The board model's training: board moments of `corpus/moments/` played
/// through the product with their candidates traced (`kibitz bench recall
/// --set corpus/moments/moments_a.json --trace corpus/moments/traces_a.jsonl`;
/// again whenever what recall weighs changes: the cues, the readers' tags,
/// the embedding model).
pub const BOARD_TRACES: [(&str, &str); 4] = [
    (
        "corpus/moments/traces_a.jsonl",
        include_str!("../../../corpus/moments/traces_a.jsonl"),
    ),
    (
        "corpus/moments/traces_b.jsonl",
        include_str!("../../../corpus/moments/traces_b.jsonl"),
    ),
    (
        "corpus/moments/traces_c.jsonl",
        include_str!("../../../corpus/moments/traces_c.jsonl"),
    ),
    (
        "corpus/moments/traces_d.jsonl",
        include_str!("../../../corpus/moments/traces_d.jsonl"),
    ),
];

/// The traced moments of `files` (name, text).
pub fn board_traces(files: &[(&str, &str)]) -> Result<Vec<board::TracedMoment>, LearnError> {
    learn::read_lines(files, |m: board::TracedMoment| {
        match m.relevant.len() == m.candidates.len() {
            true => Ok(m),
            false => Err("a label for each candidate".to_string()),
        }
    })
}

/// The board model: saved beside the embedding model under a key of the
/// traces and the features, or fitted on the shipped traces now.
pub async fn load_or_fit_board(
    embedder: &Embedder,
    models_dir: &Path,
) -> Result<(board::BoardRelevance, bool), LearnError> {
    let mut described = vec![board::VERSION.to_string()];
    described.extend(BOARD_TRACES.iter().map(|(_, text)| text.to_string()));
    let key = learn::key_of(&embedder.model_digest().await?, described);
    let read = || board_traces(&BOARD_TRACES);
    board::BoardRelevance::load_or_fit(&models_dir.join("board.model"), key, read).await
}

/// Each pair as a labelled example and its features.
fn labelled(examples: &[corpus::LinePairs]) -> (Vec<Labelled>, Vec<Vec<f32>>) {
    let mut labelled = Vec::new();
    let mut rows = Vec::new();
    for line in examples {
        for (features, relevant) in line.features.iter().zip(&line.relevant) {
            labelled.push(Labelled {
                text: String::new(),
                class: 0,
                flags: vec![*relevant],
            });
            rows.push(features.clone());
        }
    }
    (labelled, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listen::{Intent, Touch};
    use crate::memory::MemoryType;

    /// A line's pairs from each memory's similarity and whether the line
    /// is about its kind; the relevant one is the nearest of the kind.
    fn line(similarities: &[f32], kinds: &[bool], relevant: usize) -> corpus::LinePairs {
        let (life, other) = (vec!["life".to_string()], vec!["habit".to_string()]);
        let found: Vec<Candidate<'_>> = similarities
            .iter()
            .zip(kinds)
            .map(|(s, k)| Candidate {
                similarity: *s,
                overlap: 0.0,
                tags: if *k { &life } else { &other },
                memory_type: MemoryType::PlayerObservation,
            })
            .collect();
        let about = [Touch { tag: "life", p: 0.8 }];
        let read = Line {
            about: &about,
            topics: &[],
            intents: &[Intent::SelfDisclosure],
            words: 8,
        };
        corpus::LinePairs {
            features: (0..found.len()).map(|i| features(&read, &found, i)).collect(),
            relevant: (0..found.len()).map(|i| i == relevant).collect(),
        }
    }

    #[test]
    fn it_learns_that_the_nearest_memory_of_the_kind_is_meant_and_fits_the_same_twice() {
        let examples: Vec<corpus::LinePairs> = (0..40)
            .map(|n| {
                let wobble = (n % 7) as f32 * 0.02;
                line(
                    &[0.45 + wobble, 0.30, 0.20, 0.35 - wobble],
                    &[true, true, false, false],
                    0,
                )
            })
            .collect();
        let model = Relevance::fit(&examples);
        assert_eq!(model, Relevance::fit(&examples), "same corpus, same weights");
        let fresh = line(&[0.40, 0.25, 0.15, 0.38], &[true, false, false, false], 0);
        let p: Vec<f32> = fresh.features.iter().map(|f| model.p_of(f)).collect();
        assert!(p[0] > 0.5 && p.iter().skip(1).all(|q| *q < p[0] / 2.0), "{p:?}");
    }
}
