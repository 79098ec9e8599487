//! The listener's learned part: what a chat line is for (its main intent,
//! every intent it shows) and whether it tells something worth keeping,
//! read by logistic regression on the line's embedding and its hashed
//! words (`features.rs`), trained on the labelled corpus in `corpus/listen/`
//! (`corpus.rs`, `train.rs`). The weights are saved beside the embedding
//! model under a key of that model and the corpus, so a server loads them
//! in milliseconds, and trains them anew (a few seconds) when either
//! changed.

mod corpus;
mod features;
mod train;

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::listen::Intent;
use crate::memory::embed::{EmbedError, Embedder};
use crate::memory::pinned;

pub use corpus::{Labelled, corpus};
use features::{SLOTS, ngrams};
pub use train::train;

/// Outputs: the main intent (softmax over every intent), each intent's
/// presence (one logistic output each), and whether to remember.
const INTENTS: usize = Intent::ALL.len();
const MAIN: Range<usize> = 0..INTENTS;
const PRESENT: Range<usize> = INTENTS..2 * INTENTS;
const REMEMBER: usize = 2 * INTENTS;
const HEADS: usize = 2 * INTENTS + 1;

/// Changes whenever the features or the training change, so an old file is
/// never read as a new model.
const VERSION: &str = "listen-learned-2";

#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error("listening corpus, {at}: {reason}")]
    Corpus { at: String, reason: String },
    #[error("embedding the listening corpus: {0}")]
    Embed(#[from] EmbedError),
    #[error("the listener's training stopped: {0}")]
    Training(String),
}

/// The weights: one row per output, each the embedding's weights, then
/// the hashed words' weights, then a bias.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned {
    rows: Vec<Vec<f32>>,
    dim: usize,
}

/// What the model reads in one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The main intent and its probability.
    pub main: (Intent, f32),
    /// Each intent's probability of being in the line, in `Intent::ALL` order.
    pub present: [f32; INTENTS],
    /// The probability that the line tells a lasting fact about the player.
    pub remember: f32,
}

impl Learned {
    fn zeroed(dim: usize) -> Learned {
        Learned {
            rows: vec![vec![0.0; dim + SLOTS + 1]; HEADS],
            dim,
        }
    }

    /// Reads a line from its text and its embedding.
    pub fn read(&self, text: &str, vector: &[f32]) -> Reading {
        let logits = self.logits(vector, &ngrams(text));
        let main = softmax(&logits[MAIN]);
        let (best, p) = main
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("there are intents");
        let mut present = [0.0; INTENTS];
        for (k, p) in present.iter_mut().enumerate() {
            *p = sigmoid(logits[PRESENT.start + k]);
        }
        Reading {
            main: (Intent::ALL[best], *p),
            present,
            remember: sigmoid(logits[REMEMBER]),
        }
    }

    fn logits(&self, dense: &[f32], sparse: &[(usize, f32)]) -> [f32; HEADS] {
        let mut out = [0.0; HEADS];
        for (o, row) in out.iter_mut().zip(&self.rows) {
            let embedded: f32 = row[..self.dim].iter().zip(dense).map(|(w, x)| w * x).sum();
            let worded: f32 = sparse.iter().map(|(slot, x)| row[self.dim + slot] * x).sum();
            *o = embedded + worded + row[self.dim + SLOTS];
        }
        out
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("listen.model")
}

/// The key the saved weights must carry: this model, this corpus, this trainer.
fn key(model_digest: &[u8; 32], lines: &[Labelled]) -> [u8; 32] {
    let mut texts = vec![VERSION.to_string()];
    texts.extend(lines.iter().map(|l| {
        let intents: Vec<&str> = l.intents.iter().map(|i| i.as_str()).collect();
        format!("{}\t{}\t{}", l.text, intents.join(","), l.remember)
    }));
    pinned::key(model_digest, &texts)
}

/// The saved weights if they fit this model and corpus, else trained now
/// (the corpus embedded in small requests between live queries, then
/// fitted off the reactor) and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, cache: &Path) -> Result<(Learned, bool), LearnError> {
    let lines = corpus()?;
    let key = key(&embedder.model_digest().await?, &lines);
    if let Some(rows) = pinned::load(cache, &key, HEADS) {
        let dim = rows[0].len().saturating_sub(SLOTS + 1);
        if dim > 0 {
            return Ok((Learned { rows, dim }, false));
        }
    }
    let mut vectors = Vec::with_capacity(lines.len());
    for batch in lines.chunks(32) {
        vectors.extend(embedder.embed(batch.iter().map(|l| l.text.clone()).collect()).await?);
    }
    let model = tokio::task::spawn_blocking(move || train(&lines, &vectors))
        .await
        .map_err(|e| LearnError::Training(e.to_string()))?;
    if let Err(e) = pinned::save(cache, &key, &model.rows) {
        tracing::warn!("cannot save the listener's weights to {}: {e}", cache.display());
    }
    Ok((model, true))
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|z| (z - top).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}
