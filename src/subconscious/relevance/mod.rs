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

use crate::embed::{DIMENSIONS, Embedder, cosine, pinned};
use crate::learn::{self, Heads, Labelled, LearnError, Linear, PairSums, Translation};
use crate::listen::Listener;
use crate::memory::reading::Readers;

/// Bumped whenever `features` or the labels change meaning.
const VERSION: &str = "relevance-6";

/// One flag: the memory is what the line is about.
const HEADS: Heads = Heads { classes: 1, flags: 1 };

/// The fitted model, and the map that carries a line's vector toward the
/// memories lines like it bring to mind (`nearness`).
#[derive(Debug, Clone, PartialEq)]
pub struct Relevance {
    model: Linear,
    translation: Translation,
}

/// How much of a line's nearness to a memory is its own meaning's; the
/// rest is its meaning carried by the translation. Half and half, with the
/// map held to the identity at 3 (the ridge's strength), ranked the
/// memories best on the corpus's files, each read by a map fitted on the
/// others (top-3 by nearness alone: a 0.84 -> 0.87, b 0.91 -> 0.93, c 0.89
/// -> 0.91, d 0.92 -> 0.94). As two features of their own instead, the
/// model did no better there and worse on the development halves.
const OWN_MEANING: f32 = 0.5;
const HELD_TO_IDENTITY: f64 = 3.0;

/// How near a chat line is to a memory, as the model reads it: the line's
/// own meaning, and the line carried toward what lines like it were about
/// ("the Magician from Riga" toward the player's favourite, Tal).
pub fn nearness(line: &[f32], carried: &[f32], memory: &[f32]) -> f32 {
    OWN_MEANING * cosine(line, memory) + (1.0 - OWN_MEANING) * cosine(carried, memory)
}

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
        self.model.read("", features).flags[0]
    }

    /// What the weights are, in a few hex digits.
    pub fn version(&self) -> String {
        self.model.version()
    }

    /// Fitted on these examples (a corpus's pairs, `corpus::examples`,
    /// read with `translation`).
    pub fn fit(examples: &[corpus::LinePairs], translation: Translation) -> Relevance {
        let (labelled, rows) = labelled(examples);
        Relevance {
            model: learn::train(&labelled, &rows, HEADS),
            translation,
        }
    }

    /// A line's vector carried toward its memories' (`nearness`).
    pub fn carry(&self, line: &[f32]) -> Vec<f32> {
        self.translation.apply(line)
    }
}

/// Each corpus file's pairs, its lines' nearness measured by a map fitted
/// on the other files (a line is never measured by a map fitted on it, as
/// a live line never is), and the map fitted on them all.
pub async fn cross_fitted(
    embedder: &Embedder,
    listener: &Listener,
    readers: Option<&Readers>,
) -> Result<(Vec<(&'static str, Vec<corpus::LinePairs>)>, Translation), LearnError> {
    let mut files = Vec::new();
    for file in corpus::FILES {
        let players = corpus::embedded(embedder, readers, corpus::players(&[file])?).await?;
        let sums = corpus::pair_sums(&players);
        files.push((file.0, players, sums));
    }
    let mut all = PairSums::new(DIMENSIONS);
    files.iter().for_each(|(_, _, sums)| all.merge(sums));
    let mut read = Vec::with_capacity(files.len());
    for (k, (name, players, _)) in files.iter().enumerate() {
        let mut others = PairSums::new(DIMENSIONS);
        let rest = files.iter().enumerate().filter(|(j, _)| *j != k);
        rest.for_each(|(_, (_, _, sums))| others.merge(sums));
        let map = Translation::fit(&others, HELD_TO_IDENTITY);
        read.push((*name, corpus::examples(listener, players, &map)));
    }
    Ok((read, Translation::fit(&all, HELD_TO_IDENTITY)))
}

/// Where the weights are kept: beside the model they were fitted on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("relevance.model")
}

/// The saved weights and map if they fit this embedding model, corpus,
/// listener and memory readers; else the corpus is read through them
/// (embedded, heard, tagged) and both fitted and saved. Returns whether
/// it fitted.
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
    let map_cache = models_dir.join("relevance.translation");
    let saved = pinned::load(&map_cache, &key, DIMENSIONS).and_then(Translation::from_rows);
    let fitted_map = OnceLock::new();
    let examples = async {
        let (files, map) = cross_fitted(embedder, listener, readers).await?;
        let _ = fitted_map.set(map);
        let pairs: Vec<corpus::LinePairs> = files.into_iter().flat_map(|(_, pairs)| pairs).collect();
        Ok(labelled(&pairs))
    };
    let cache = cache_path(models_dir);
    let (model, fitted) = learn::load_or_fit("recall relevance", &cache, key, HEADS, examples).await?;
    let translation = match (fitted_map.into_inner(), saved) {
        (None, Some(map)) => map,
        (fitted, _) => {
            let map = match fitted {
                Some(map) => map,
                None => cross_fitted(embedder, listener, readers).await?.1,
            };
            if let Err(e) = pinned::save(&map_cache, &key, &map.rows()) {
                tracing::warn!("cannot save the recall translation to {}: {e}", map_cache.display());
            }
            map
        }
    };
    Ok((Relevance { model, translation }, fitted))
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
        let model = Relevance::fit(&examples, Translation::identity(DIMENSIONS));
        assert_eq!(
            model,
            Relevance::fit(&examples, Translation::identity(DIMENSIONS)),
            "same corpus, same weights"
        );
        let fresh = line(&[0.40, 0.25, 0.15, 0.38], &[true, false, false, false], 0);
        let p: Vec<f32> = fresh.features.iter().map(|f| model.p_of(f)).collect();
        assert!(p[0] > 0.5 && p.iter().skip(1).all(|q| *q < p[0] / 2.0), "{p:?}");
    }
}
